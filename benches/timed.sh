# Sourced by the benchmark scripts that time runs per input.
#   bench_setup
# builds pgnlake and the floor in release and sets $bin, $floor, $base (a
# binary to compare against, from $BASE, may be empty) and $tmp (a folder
# removed on exit).
#   timed NAME INPUT COMMAND...
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

bench_setup() {
  cargo build --release --locked --quiet --bin pgnlake
  cargo build --release --locked --quiet --manifest-path benches/floor/Cargo.toml
  bin="$CARGO_TARGET_DIR/release/pgnlake"
  floor="$CARGO_TARGET_DIR/release/floor"
  base=${BASE:-}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
}
