#!/usr/bin/env bash
# Throughput benchmark: pgnlake import against the bare floor
# (benches/floor/, built on its own: pgn-reader parse + shakmaty replay, as pgn-reader's
# parallel_validate does) on the same input, in the same minute, runs
# interleaved. Absolute figures drift ±15 % on shared machines; ratios do not.
#   benches/throughput.sh [RUNS]      (default 3)
# Inputs: ../shared/data/corpus/pgnmentor-players.pgn.zst (one zstd frame),
# its plain text, and a pzstd copy (lichess's layout), made in a temporary
# folder; and LICHESS_GAMES (default 200000) lichess-like games
# (examples/gen_games.rs --lichess: the six speeds, [%clk] on every move,
# [%eval] in analysed games, openings drawn from the lichess table). Prints, per input, the median wall, games/s, CPU s, CPU µs per game
# and peak RSS of the floor, the default import and `--opening-plies 0`, each
# import's ratio to the floor; then CPU per game at --threads 1 and 2; then
# the stage profile (PGNLAKE_PROFILE=1) of one more run per input, and from
# it the projected time of a 90 M-game lichess month on 16 cores.
#   BASE=/path/to/older/pgnlake benches/throughput.sh   also times an older
# build's default import (`base-import`) in the same rounds, for A/B ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

runs=${1:-3}
corpus=../shared/data/corpus/pgnmentor-players.pgn.zst
if [ ! -f "$corpus" ]; then
  echo "benchmark skipped: $corpus is absent" >&2
  exit 0
fi
for tool in zstd pzstd; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install zstd" >&2; exit 2; }
done
cargo build --release --locked --quiet --bin pgnlake --example gen_games
cargo build --release --locked --quiet --manifest-path benches/floor/Cargo.toml
bin="$CARGO_TARGET_DIR/release/pgnlake"
floor="$CARGO_TARGET_DIR/release/floor"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

zstd -dq "$corpus" -o "$tmp/pgnmentor.pgn"
pzstd -q -p 2 -3 "$tmp/pgnmentor.pgn" -o "$tmp/pgnmentor-pzstd.pgn.zst"
lichess="$tmp/lichess-like.pgn"
"$CARGO_TARGET_DIR/release/examples/gen_games" "${LICHESS_GAMES:-200000}" --lichess -o "$lichess"
inputs=("$corpus" "$tmp/pgnmentor.pgn" "$tmp/pgnmentor-pzstd.pgn.zst" "$lichess")
games="$tmp/games.txt"
for input in "${inputs[@]}"; do
  echo "$(basename "$input") $("$floor" "$input" | awk '{print $2}')" >> "$games"
done

results="$tmp/results.txt"
# shellcheck source=benches/timed.sh
source benches/timed.sh
for run in $(seq "$runs"); do
  for input in "${inputs[@]}"; do
    timed floor "$input" "$floor" "$input"
    timed import "$input" "$bin" import "$input" --out "$tmp/out" --quiet
    if [ -n "${BASE:-}" ]; then
      timed base-import "$input" "$BASE" import "$input" --out "$tmp/out" --quiet
    fi
    timed import-no-tree "$input" "$bin" import "$input" --out "$tmp/out" --quiet --opening-plies 0
    timed "threads-1" "$input" "$bin" import "$input" --out "$tmp/out" --quiet --threads 1
    timed "threads-2" "$input" "$bin" import "$input" --out "$tmp/out" --quiet --threads 2
  done
done
python3 - "$results" "$games" "$runs" <<'PY'
import statistics, sys
path, games_path, runs = sys.argv[1], sys.argv[2], sys.argv[3]
games_of = dict((n, int(g)) for n, g in (line.split() for line in open(games_path)))
rows = {}
for line in open(path):
    input_, name, wall, user, sys_, rss = line.split()
    rows.setdefault(input_, {}).setdefault(name, []).append(
        (float(wall), float(user) + float(sys_), int(rss)))
print(f"medians of {runs} interleaved runs")
for input_, by_name in rows.items():
    games = games_of[input_]
    print(f"\n{input_}: {games:,} games")
    print(f"  {'run':<16}{'wall s':>8}{'games/s':>10}{'CPU s':>8}{'µs CPU/game':>13}{'peak RSS':>12}{'× floor':>9}")
    floor = games / statistics.median(w for w, _, _ in by_name["floor"])
    cpu_per_game = {}
    for name, runs_ in by_name.items():
        wall = statistics.median(w for w, _, _ in runs_)
        cpu = statistics.median(c for _, c, _ in runs_)
        rss = max(r for _, _, r in runs_) / 1024
        cpu_per_game[name] = cpu / games * 1e6
        print(f"  {name:<16}{wall:>8.2f}{games / wall:>10,.0f}{cpu:>8.1f}{cpu / games * 1e6:>13.1f}"
              f"{rss:>8.0f} MiB{games / wall / floor:>9.2f}")
    if "base-import" in by_name:
        ratio = (statistics.median(w for w, _, _ in by_name["import"])
                 / statistics.median(w for w, _, _ in by_name["base-import"]))
        print(f"  import wall / base-import wall: {ratio:.3f}")
    if "threads-1" in cpu_per_game:
        ratio = cpu_per_game["threads-2"] / cpu_per_game["threads-1"]
        print(f"  CPU per game at --threads 2 / --threads 1: {ratio:.2f}")
PY
for input in "$corpus" "$tmp/pgnmentor-pzstd.pgn.zst" "$lichess"; do
  for plies in 20 0; do
    echo
    echo "stage profile: $(basename "$input") --opening-plies $plies"
    rm -rf "$tmp/out"
    PGNLAKE_PROFILE=1 "$bin" import "$input" --out "$tmp/out" --quiet --opening-plies "$plies" \
      2>&1 | tee "$tmp/profile.txt"
    # The profile's total CPU per game and serial share, projected to a
    # lichess month: 90 M games on 16 cores, the parallel part divided by 16.
    python3 - "$tmp/profile.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"total ([0-9.]+) µs/game; serial share ([0-9.]+) %", text)
if m:
    total, share = float(m.group(1)), float(m.group(2)) / 100
    seconds = 90e6 * total * 1e-6 * (share + (1 - share) / 16)
    print(f"  projected: 90 M games on 16 cores in {seconds / 60:.1f} min"
          f" ({90e6 / seconds:,.0f} games/s; {1e6 / total:,.0f} games per CPU-second)")
PY
  done
done
