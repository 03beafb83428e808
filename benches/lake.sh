#!/usr/bin/env bash
# Lake benchmark: how reading a lake scales with its imports. Imports the
# sample data (or FILE) N times into one lake under different names
# (default 100), then times `explore` (a position, with filters, with top
# games) and a `query` over the union, against one import of the same
# input, and again after `lake --compact`; prints the lake's size, the
# commit time per import and the compaction's time.
#   benches/lake.sh [N] [FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

imports=${1:-100}
input=${2:-sample-data}
cargo build --release --locked --quiet --bin pgnlake
bin="$CARGO_TARGET_DIR/release/pgnlake"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s.%N)
for i in $(seq -w 1 "$imports"); do
  "$bin" import "$input" --into "$tmp/lake" --name "import-$i" --moves --quiet
done
end=$(date +%s.%N)
"$bin" import "$input" --out "$tmp/one" --moves --quiet
echo "lake of $imports imports of $input: $(du -sh "$tmp/lake" | cut -f1)," \
  "$(echo "($end - $start) / $imports" | bc -l | cut -c1-5) s per import (with its commit)"

timed() { # LABEL COMMAND...: the best wall time of three runs
  local label=$1 best=""
  shift
  for _ in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" > /dev/null
    read -r wall rss < "$tmp/time"
    if [ -z "$best" ] || [ "$(echo "$wall < $best" | bc)" = 1 ]; then best=$wall; fi
  done
  printf '%-48s %6s s  %6d MiB\n' "$label" "$best" $((rss / 1024))
}
cp -r "$tmp/lake" "$tmp/compacted"
/usr/bin/time -f "%e %M" -o "$tmp/time" "$bin" lake "$tmp/compacted" --compact 2> /dev/null
read -r wall rss < "$tmp/time"
echo "lake --compact of $imports imports: $wall s, $((rss / 1024)) MiB"
for data in one lake compacted; do
  timed "$data: explore e4 c5" "$bin" explore --data "$tmp/$data" e4 c5
  timed "$data: explore e4 --speed blitz --rating 1600.." \
    "$bin" explore --data "$tmp/$data" e4 --speed blitz --rating 1600..
  timed "$data: explore e4 --games 3" "$bin" explore --data "$tmp/$data" e4 --games 3
  timed "$data: query games by time class" "$bin" query --data "$tmp/$data" \
    -e "SELECT time_class, COUNT(*) AS n FROM games GROUP BY time_class"
done
