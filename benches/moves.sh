#!/usr/bin/env bash
# Cost of the move comments and of the moves table (issue 17), against the
# bare floor (benches/floor/, built on its own) in the same minute, runs interleaved.
#   benches/moves.sh [RUNS]            (default 5)
#   BASE=/path/to/older/pgnlake benches/moves.sh   also runs an older build
#                                      (the import before comments were read)
# Inputs: pgnmentor (plain text; few comments), the lichess export sample
# repeated to 201,480 games (a [%clk] on every move, some [%eval]), and the
# TCEC sample repeated to 13,112 games (a 1 KB engine comment on every move). Prints per input the
# median CPU µs per game and its ratio to the floor, for the default import
# (every games column, comments read), `--moves`, and BASE; and the median
# wall, games/s and peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

runs=${1:-5}
corpus=../shared/data/corpus
if [ ! -f "$corpus/pgnmentor-players.pgn.zst" ]; then
  echo "benchmark skipped: $corpus is absent" >&2
  exit 0
fi
# shellcheck source=benches/timed.sh
source benches/timed.sh
bench_setup

zstd -dq "$corpus/pgnmentor-players.pgn.zst" -o "$tmp/pgnmentor.pgn"
for _ in $(seq 460); do cat "$corpus/lichess-2025-05-sample.pgn"; echo; done > "$tmp/lichess-x460.pgn"
# Four times the TCEC sample: one pass is a third of a second, too short to
# tell 3 % apart.
for _ in 1 2 3 4; do zstd -dcq "$corpus/tcec-engine-sample.pgn.zst"; echo; done > "$tmp/tcec-x4.pgn"
inputs=("$tmp/pgnmentor.pgn" "$tmp/lichess-x460.pgn" "$tmp/tcec-x4.pgn")

results="$tmp/results.txt"
for run in $(seq "$runs"); do
  for input in "${inputs[@]}"; do
    timed floor "$input" "$floor" "$input"
    if [ -n "$base" ]; then
      timed base "$input" "$base" import "$input" --out "$tmp/out" --quiet
    fi
    timed import "$input" "$bin" import "$input" --out "$tmp/out" --quiet
    timed import-moves "$input" "$bin" import "$input" --out "$tmp/out" --quiet --moves
  done
done
for input in "${inputs[@]}"; do
  echo "$(basename "$input") $("$floor" "$input" | awk '{print $2}')" >> "$tmp/games.txt"
done
python3 - "$results" "$tmp/games.txt" "$runs" <<'PY'
import sys
sys.path.insert(0, "benches")
from medians import print_table, read_runs
path, games_path, runs = sys.argv[1], sys.argv[2], sys.argv[3]
games = dict((name, int(n)) for name, n in (line.split() for line in open(games_path)))
print(f"medians of {runs} interleaved runs")
for input_, by_name in read_runs(path).items():
    n = games[input_]
    print(f"\n{input_}: {n:,} games")
    cpu_ratio = print_table(by_name, n)
    if "base" in cpu_ratio:
        print(f"  import / base, CPU per game (as ratios to the floor): "
              f"{cpu_ratio['import'] / cpu_ratio['base']:.3f}")
    print(f"  --moves / import, CPU per game: {cpu_ratio['import-moves'] / cpu_ratio['import']:.3f}")
PY
