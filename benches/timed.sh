# Sourced by the benchmark scripts that time runs per input:
#   timed NAME INPUT COMMAND...
# runs COMMAND with its output discarded (stderr kept in $tmp/stderr), after
# removing $tmp/out, and appends "INPUT-NAME NAME wall user sys maxrss-KiB"
# to $results. Needs $tmp and $results set by the caller.
timed() {
  local name=$1 input=$2
  shift 2
  rm -rf "$tmp/out"
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" > /dev/null 2> "$tmp/stderr"
  echo "$(basename "$input") $name $(cat "$tmp/time")" >> "$results"
}
