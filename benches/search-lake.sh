#!/usr/bin/env bash
# `pgnlake search` on a lake of lichess-like games (issue 65's targets):
#   benches/search-lake.sh [GAMES]      (default 1000000; THREADS=2, RUNS=3)
# 1. A lake of GAMES random lichess-like games (examples/gen_games.rs
#    --lichess), in 4 monthly imports, kept in
#    $CARGO_TARGET_DIR/bench-data/search-lake-GAMES/ for later runs.
# 2. Timed, RUNS times each (wall of the process, median): an exact FEN
#    after move 20 (the position at ply 40 of the lake's first game of 40
#    plies or more, found with python-chess), a rare material balance
#    (KBNK), and sub-FENs that match almost every game (the worst cases:
#    every game replayed), with the count of games each lists and the
#    pre-filter's share.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"
games=${1:-1000000}
threads=${THREADS:-2}
runs=${RUNS:-3}
python=${PYTHON:-$CARGO_TARGET_DIR/test-venv/bin/python}
cargo build --release --locked --quiet --bin pgnlake --example gen_games
bin="${BIN:-$CARGO_TARGET_DIR/release/pgnlake}"
gen="$CARGO_TARGET_DIR/release/examples/gen_games"
data="$CARGO_TARGET_DIR/bench-data"
mkdir -p "$data"
lake="$data/search-lake-$games"
if [ ! -f "$lake/.complete" ]; then
  rm -rf "$lake"
  per=$((games / 4))
  for month in 1 2 3 4; do
    input="$data/search-2025.0$month-$per.pgn"
    echo "generating and importing $input" >&2
    "$gen" "$per" --lichess --seed "$month" --month "2025.0$month" -o "$input"
    "$bin" import "$input" --into "$lake" --name "2025-0$month" --quiet
    rm -f "$input"
  done
  touch "$lake/.complete"
fi
moves=$("$bin" query --data "$lake" --format csv -e \
  "SELECT moves_uci FROM games WHERE plies >= 40 AND variant_name = 'standard' AND start_fen IS NULL ORDER BY import, game_id LIMIT 1" | tail -n 1)
fen=$("$python" -c '
import sys, chess
board = chess.Board()
for uci in sys.argv[1].split()[:40]:
    board.push_uci(uci)
print(board.fen())' "$moves")
ms() { # QUERY: median wall ms of RUNS runs; prints "ms listed"
  local times=() start end listed
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$bin" search --data "$lake" --threads "$threads" --format ndjson -o "$tmp/out" --quiet "$1" || true
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
  done
  listed=$(wc -l < "$tmp/out")
  printf '%s\n' "${times[@]}" | sort -n | awk -v n="$listed" '{a[NR]=$1} END {print a[int((NR+1)/2)], n}'
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| query | games listed | ms (median of $runs, $threads threads) |"
echo "|---|---:|---:|"
for q in "$fen" '{"material": "KBNK"}' '{"material": "KRPKR"}' \
  '{"sub-fen": "8/8/8/8/8/8/8/6K1"}' '{"sub-fen": "k7/8/8/8/8/8/8/8"}' \
  '{"sub-fen": "8/8/8/8/4P3/8/8/8"}' '{"pass": ""}'; do
  read -r took listed < <(ms "$q")
  echo "| \`$q\` | $listed | $took |"
done
"$bin" search --data "$lake" --threads "$threads" -o /dev/null "$fen" 2>&1 | tail -n 1
