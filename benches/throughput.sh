#!/usr/bin/env bash
# Throughput benchmark (issue 14): pgnlake import against the bare floor
# (examples/floor.rs: pgn-reader parse + shakmaty replay, as pgn-reader's
# parallel_validate does) on the same input, in the same minute, runs
# interleaved; prints the median wall, games/s, CPU seconds and peak RSS of
# each, and each import's ratio to the floor's games/s.
#   benches/throughput.sh [INPUT] [RUNS] [THREADS]
# INPUT defaults to ../shared/data/corpus/pgnmentor-players.pgn.zst.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

input=${1:-../shared/data/corpus/pgnmentor-players.pgn.zst}
runs=${2:-3}
threads=${3:-0}
if [ ! -f "$input" ]; then
  echo "benchmark skipped: $input is absent" >&2
  exit 0
fi
cargo build --release --locked --quiet --bin pgnlake --example floor
bin="$CARGO_TARGET_DIR/release/pgnlake"
floor="$CARGO_TARGET_DIR/release/examples/floor"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

declare -A cmds=(
  [floor]="$floor --threads $threads $input"
  [import]="$bin import $input --out $out/all --quiet --threads $threads"
  [import-no-tree]="$bin import $input --out $out/notree --quiet --threads $threads --opening-plies 0"
)
order=(floor import import-no-tree)
results=$out/results.txt
for run in $(seq "$runs"); do
  for name in "${order[@]}"; do
    rm -rf "$out/all" "$out/notree"
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" ${cmds[$name]} > "$out/stdout"
    echo "$name $(cat "$out/time")" >> "$results"
  done
done
games=$("$floor" --threads "$threads" "$input" | awk '{print $2}')
python3 - "$results" "$games" "$input" "$threads" <<'PY'
import statistics, sys
path, games, input_, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = {}
for line in open(path):
    name, wall, user, sys_, rss = line.split()
    rows.setdefault(name, []).append((float(wall), float(user) + float(sys_), int(rss)))
print(f"input {input_}: {games:,} games, threads {threads or 'all'}, {len(rows['floor'])} interleaved runs, medians")
print(f"{'run':<16}{'wall s':>8}{'games/s':>10}{'CPU s':>8}{'µs CPU/game':>13}{'peak RSS':>10}{'× floor':>9}")
floor = games / statistics.median(w for w, _, _ in rows["floor"])
for name, runs in rows.items():
    wall = statistics.median(w for w, _, _ in runs)
    cpu = statistics.median(c for _, c, _ in runs)
    rss = max(r for _, _, r in runs) / 1024
    print(f"{name:<16}{wall:>8.2f}{games / wall:>10,.0f}{cpu:>8.1f}{cpu / games * 1e6:>13.1f}{rss:>8.0f} MiB{games / wall / floor:>9.2f}")
PY
