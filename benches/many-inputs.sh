#!/usr/bin/env bash
# Benchmark: memory and time against the number of inputs (issue 63, item 7).
# Builds a zip of 20,000 one-game entries and a folder of 10,000 one-game
# files, and for comparison the same games as one file; imports each with
# 2 threads and prints peak RSS (/usr/bin/time and summary.json's
# peak_rss_bytes) and wall time. Usage:
#   benches/many-inputs.sh [BINARY] [extra pgnlake import options]
# BINARY defaults to the release build (built here); pass
# target/debug/pgnlake (under $CARGO_TARGET_DIR) to measure a debug build.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

if [ $# -gt 0 ] && [ -x "$1" ]; then
  bin=$1
  shift
else
  cargo build --release --locked --quiet --bin pgnlake
  bin="$CARGO_TARGET_DIR/release/pgnlake"
fi
entries=${ENTRIES:-20000}
files=${FILES:-10000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The inputs: one-game PGNs of about 300 bytes, as TWIC's one-game entries.
python3 - "$tmp" "$entries" "$files" <<'PY'
import os, sys, zipfile
tmp, entries, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def game(i):
    return (f'[Event "Many inputs"]\n[Site "?"]\n[Date "2024.01.01"]\n[Round "{i}"]\n'
            f'[White "White player {i}"]\n[Black "Black player {i}"]\n[Result "1-0"]\n'
            f'[ECO "C20"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n')
with zipfile.ZipFile(f"{tmp}/entries.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for i in range(entries):
        z.writestr(f"round{i:05}.pgn", game(i))
os.mkdir(f"{tmp}/files")
for i in range(files):
    with open(f"{tmp}/files/{i:05}.pgn", "w") as f:
        f.write(game(i))
with open(f"{tmp}/one.pgn", "w") as f:
    for i in range(entries):
        f.write(game(i))
PY

printf '%-28s %8s %12s %14s %8s\n' input games "time RSS" "summary RSS" wall
run() {
  local name=$1 input=$2
  shift 2
  rm -rf "$tmp/out"
  /usr/bin/time -f "%e %M" -o "$tmp/time" \
    "$bin" import "$input" --out "$tmp/out" --quiet --threads 2 "$@" > /dev/null
  read -r wall rss_kib < "$tmp/time"
  python3 - "$tmp/out/summary.json" "$name" "$wall" "$rss_kib" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
name, wall, rss_kib = sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
peak = summary.get("peak_rss_bytes") or 0
print(f"{name:<28} {summary['games_read']:>8} {rss_kib / 1024:>8.0f} MiB "
      f"{peak / 2**20:>10.0f} MiB {wall:>6.1f} s")
PY
}
run "zip of $entries entries" "$tmp/entries.zip" "$@"
run "folder of $files files" "$tmp/files" "$@"
run "one file of $entries games" "$tmp/one.pgn" "$@"
