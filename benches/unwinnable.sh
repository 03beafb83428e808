#!/usr/bin/env bash
# Cost of the dead-position question (issue 21), two parts:
#   1. the import on pgnmentor (454,278 games, plain text) against the bare
#      floor (benches/floor/) in the same minute, runs interleaved: the
#      default import (the static test alone), `--unwinnable-nodes 2000`
#      (search on the flagged positions) and, with BASE=/path/to/older/pgnlake,
#      an import from before the question was asked; CPU per game as a ratio
#      to the floor, medians.
#   2. `pgnlake unwinnable` over CHA's 30,000 real lichess final positions
#      (one process, one core): positions per CPU-second for the static test
#      alone (--nodes 0), the import's budget and the command's default.
#   benches/unwinnable.sh [RUNS]       (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

runs=${1:-5}
data=../shared/data
if [ ! -f "$data/corpus/pgnmentor-players.pgn.zst" ]; then
  echo "benchmark skipped: $data is absent" >&2
  exit 0
fi
# shellcheck source=benches/timed.sh
source benches/timed.sh
bench_setup

input="$tmp/pgnmentor.pgn"
zstd -dq "$data/corpus/pgnmentor-players.pgn.zst" -o "$input"
results="$tmp/results.txt"
for _ in $(seq "$runs"); do
  timed floor "$input" "$floor" "$input"
  if [ -n "$base" ]; then
    timed base "$input" "$base" import "$input" --out "$tmp/out" --quiet
  fi
  timed import "$input" "$bin" import "$input" --out "$tmp/out" --quiet
  timed search-2000 "$input" "$bin" import "$input" --out "$tmp/out" --quiet --unwinnable-nodes 2000
done
"$bin" import "$input" --out "$tmp/out" --quiet
games=$("$floor" "$input" | awk '{print $2}')

positions="$data/unwinnable/cha-lichess-30k-positions.txt"
for nodes in 0 2000 200000 700000; do
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" \
    "$bin" unwinnable "$positions" --nodes "$nodes" > "$tmp/answers-$nodes.jsonl"
  echo "$nodes $(cat "$tmp/time")" >> "$tmp/positions.txt"
done

python3 - "$results" "$games" "$runs" "$tmp/out/summary.json" "$tmp/positions.txt" "$tmp" <<'PY'
import json, sys
sys.path.insert(0, "benches")
from medians import print_table, read_runs
path, games, runs, summary_path, positions_path, tmp = sys.argv[1:7]
games = int(games)
print(f"pgnmentor, {games:,} games; medians of {runs} interleaved runs")
(by_name,) = read_runs(path).values()
ratio = print_table(by_name, games, 12)
if "base" in ratio:
    for name in ("import", "search-2000"):
        print(f"  {name} / base, CPU per game (as ratios to the floor): {ratio[name] / ratio['base']:.3f}")
summary = json.load(open(summary_path))
print(f"  end states: {summary['end_states']}")
print(f"  result checks: {summary['result_checks']}")
print(f"  can mate, per side: {summary['unwinnability']}")
print("\ncha-lichess-30k-positions.txt, pgnlake unwinnable, one core")
print(f"  {'--nodes':>8}{'CPU s':>8}{'positions/s':>13}{'winnable':>10}{'unwinnable':>12}{'undetermined':>14}")
for line in open(positions_path):
    nodes, wall, user, sys_, rss = line.split()
    counts = {"winnable": 0, "unwinnable": 0, "undetermined": 0}
    n = 0
    for answer in open(f"{tmp}/answers-{nodes}.jsonl"):
        value = json.loads(answer)
        if "error" in value:
            continue
        n += 1
        for side in ("white", "black"):
            counts[value[side]] += 1
    cpu = float(user) + float(sys_)
    print(f"  {int(nodes):>8}{cpu:>8.2f}{n / cpu:>13,.0f}{counts['winnable']:>10}"
          f"{counts['unwinnable']:>12}{counts['undetermined']:>14}")
PY
