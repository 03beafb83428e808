#!/usr/bin/env bash
# Cost of a game's length (issue 63): one knight-shuffle game (1. Nf3 Nf6
# 2. Ng1 Ng8 …, fivefold repetition at ply 16, the rest replayed all the
# same) of 100k, 200k, 400k and 1M plies, each imported alone. Replay and
# outcome detection are linear in the game's length: the CPU per ply stays
# flat (it grew with the length while repetitions were found by comparing
# with every earlier position: 1M plies took minutes).
#   benches/long-game.sh [RUNS]        (default 3)
#   BASE=/path/to/older/pgnlake benches/long-game.sh   also runs an older build
#   BIN=/path/to/pgnlake benches/long-game.sh          times that build
#                                      instead of building the release one
#   PLIES="100000 1000000" benches/long-game.sh        other lengths
# Prints per length the median wall and CPU seconds, the CPU µs per ply,
# the peak RSS and the end state the summary names.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

runs=${1:-3}
# shellcheck source=benches/timed.sh
source benches/timed.sh
if [ -n "${BIN:-}" ]; then
  bin=$BIN
  base=${BASE:-}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
else
  bench_setup
fi

plies_list=${PLIES:-100000 200000 400000 1000000}
inputs=()
for plies in $plies_list; do
  python3 - "$plies" "$tmp/shuffle-$plies.pgn" <<'PY'
import sys
plies, path = int(sys.argv[1]), sys.argv[2]
cycle = ("Nf3", "Nf6", "Ng1", "Ng8")
with open(path, "w") as out:
    out.write('[Event "long game"]\n[Site "?"]\n[Date "2024.01.01"]\n[Round "1"]\n'
              '[White "a"]\n[Black "b"]\n[Result "1/2-1/2"]\n\n')
    line = []
    for ply in range(plies):
        san = cycle[ply % 4]
        line.append(f"{ply // 2 + 1}. {san}" if ply % 2 == 0 else san)
        if len(line) == 16:
            out.write(" ".join(line) + "\n")
            line = []
    line.append("1/2-1/2")
    out.write(" ".join(line) + "\n")
PY
  inputs+=("$tmp/shuffle-$plies.pgn")
done

results="$tmp/results.txt"
for _ in $(seq "$runs"); do
  for input in "${inputs[@]}"; do
    if [ -n "$base" ]; then
      timed base "$input" "$base" import "$input" --out "$tmp/out" --quiet
    fi
    timed import "$input" "$bin" import "$input" --out "$tmp/out" --quiet
  done
done
for plies in $plies_list; do
  rm -rf "$tmp/out"
  "$bin" import "$tmp/shuffle-$plies.pgn" --out "$tmp/out" --quiet
  python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(sys.argv[2], s["accepted"], " ".join(s["end_states"]))' \
    "$tmp/out/summary.json" "$plies" >> "$tmp/ends.txt"
done

python3 - "$results" "$runs" "$tmp/ends.txt" <<'PY'
import sys
sys.path.insert(0, "benches")
from medians import read_runs
import statistics
path, runs, ends_path = sys.argv[1:4]
ends = {int(p): (int(a), e) for p, a, e in (l.split(maxsplit=2) for l in open(ends_path))}
print(f"one knight-shuffle game per input; medians of {runs} runs")
print(f"  {'plies':>9}  {'run':<8}{'wall s':>8}{'CPU s':>8}{'µs CPU/ply':>12}{'peak RSS':>12}  end state")
rows = read_runs(path)
for input_, by_name in sorted(rows.items(), key=lambda kv: int(kv[0].split("-")[1].split(".")[0])):
    plies = int(input_.split("-")[1].split(".")[0])
    accepted, end = ends.get(plies, (0, "?"))
    for name, samples in by_name.items():
        wall = statistics.median(w for w, _, _ in samples)
        cpu = statistics.median(c for _, c, _ in samples)
        rss = max(r for _, _, r in samples) / 1024
        state = f"{end.strip()} ({accepted} accepted)" if name == "import" else ""
        print(f"  {plies:>9,}  {name:<8}{wall:>8.2f}{cpu:>8.2f}{cpu / plies * 1e6:>12.2f}"
              f"{rss:>8.0f} MiB  {state}")
PY
