#!/usr/bin/env bash
# Benchmark: full import of ../shared/data/corpus/pgnmentor-players.pgn.zst
# (454,278 OTB games). Prints games/s and peak RSS. Usage:
#   benches/import-pgnmentor.sh [extra pgnlake import options, e.g. --threads 1]
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

input=../shared/data/corpus/pgnmentor-players.pgn.zst
if [ ! -f "$input" ]; then
  echo "benchmark skipped: $input is absent" >&2
  exit 0
fi
cargo build --release --locked --quiet
bin="$CARGO_TARGET_DIR/release/pgnlake"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

log=$(mktemp)
/usr/bin/time -v "$bin" import "$input" --out "$out" --quiet "$@" 2> "$log"
games=$(python3 -c "import json,sys; print(json.load(open('$out/summary.json'))['games_read'])")
wall=$(grep 'Elapsed (wall clock)' "$log" | awk '{print $NF}')
rss_kb=$(grep 'Maximum resident set size' "$log" | awk '{print $NF}')
seconds=$(python3 -c "
parts = '$wall'.split(':')
print(sum(float(p) * 60 ** i for i, p in enumerate(reversed(parts))))")
python3 - <<PY
games, seconds, rss_kb = $games, $seconds, $rss_kb
print(f"games:      {games}")
print(f"wall:       {seconds:.2f} s")
print(f"games/s:    {games / seconds:,.0f}")
print(f"peak RSS:   {rss_kb / 1024:.0f} MiB")
PY
rm -f "$log"
