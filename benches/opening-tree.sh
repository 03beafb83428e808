#!/usr/bin/env bash
# Opening-tree benchmark: what the opening tree (openings.parquet) costs an
# import, and how it behaves when it must spill under a small memory limit.
#   benches/opening-tree.sh [GAMES]      (default 2000000)
#   BASE=/path/to/older/pgnlake benches/opening-tree.sh [GAMES]   also runs an
# older build's default import (`base-tree-1G`) right after this one's, for
# the A/B wall ratio and the tree's rows and bytes before and after.
# Input: GAMES random legal lichess-like games (examples/gen_games.rs, seed 1),
# generated once into $CARGO_TARGET_DIR/bench-data/ and kept there. Runs, one
# each, on the same input: the bare floor (benches/floor/, built on its own), the import
# without the tree (`--opening-plies 0`), the default import (1 GiB memory
# limit), then `--memory-limit 64M` and `256M`. Prints, per run, wall, games/s,
# CPU s, peak RSS and wall ÷ the tree-less import's; for the tree runs the
# tree's rows, spill runs, spill bytes (and per tree row) and, when
# summary.json reports them, rows spilled and the tree's peak memory. Random games share few openings beyond
# the first plies, so the tree is much larger than a real archive's: a worst
# case for the spill path. Absolute figures drift ±15 % on shared machines.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

games=${1:-2000000}
seed=1
cargo build --release --locked --quiet --bin pgnlake --example gen_games
cargo build --release --locked --quiet --manifest-path benches/floor/Cargo.toml
bin="$CARGO_TARGET_DIR/release/pgnlake"
floor="$CARGO_TARGET_DIR/release/floor"
gen="$CARGO_TARGET_DIR/release/examples/gen_games"

data="$CARGO_TARGET_DIR/bench-data"
input="$data/random-$games-seed$seed.pgn"
if [ ! -f "$input" ]; then
  mkdir -p "$data"
  echo "generating $input" >&2
  "$gen" "$games" --seed "$seed" -o "$input.partial"
  mv "$input.partial" "$input"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results="$tmp/results.txt"
timed() { # NAME COMMAND...: times it; keeps summary.json (if any) as NAME.json
  local name=$1
  shift
  rm -rf "$tmp/out"
  if ! /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" > "$tmp/$name.stdout" 2> "$tmp/stderr"; then
    echo "$name failed:" >&2
    cat "$tmp/stderr" >&2
    exit 1
  fi
  if [ -f "$tmp/out/summary.json" ]; then
    cp "$tmp/out/summary.json" "$tmp/$name.json"
  fi
  if [ -f "$tmp/out/openings.parquet" ]; then
    stat -c %s "$tmp/out/openings.parquet" > "$tmp/$name.tree-bytes"
  fi
  echo "$name $(cat "$tmp/time")" >> "$results"
}
timed floor "$floor" "$input"
timed no-tree "$bin" import "$input" --out "$tmp/out" --quiet --opening-plies 0
timed tree-1G "$bin" import "$input" --out "$tmp/out" --quiet
if [ -n "${BASE:-}" ]; then
  timed base-tree-1G "$BASE" import "$input" --out "$tmp/out" --quiet
  timed tree-1G-again "$bin" import "$input" --out "$tmp/out" --quiet
fi
timed tree-period-none "$bin" import "$input" --out "$tmp/out" --quiet --opening-period none
timed tree-64M "$bin" import "$input" --out "$tmp/out" --quiet --memory-limit 64M
timed tree-256M "$bin" import "$input" --out "$tmp/out" --quiet --memory-limit 256M

python3 - "$tmp" "$input" <<'PY'
import json, os, sys
tmp, input_ = sys.argv[1], sys.argv[2]
runs = []
for line in open(os.path.join(tmp, "results.txt")):
    name, wall, user, sys_, rss = line.split()
    summary = {}
    path = os.path.join(tmp, name + ".json")
    if os.path.exists(path):
        summary = json.load(open(path))
    runs.append((name, float(wall), float(user) + float(sys_), int(rss), summary))
# The floor prints `games N illegal N ...`; the imports report games_read.
floor_out = open(os.path.join(tmp, "floor.stdout")).read().split()
floor_games = int(floor_out[floor_out.index("games") + 1])
base = next(wall for name, wall, *_ in runs if name == "no-tree")


def tree_bytes(name):
    """MiB of the run's openings.parquet, when it wrote one."""
    path = os.path.join(tmp, name + ".tree-bytes")
    return int(open(path).read()) / 2**20 if os.path.exists(path) else None


def fmt(value, spec=",.0f"):
    return "-" if value is None else format(value, spec)

print(f"{os.path.basename(input_)}: {floor_games:,} games, "
      f"{os.path.getsize(input_) / 2**20:,.0f} MiB")
print(f"{'run':<14}{'wall s':>8}{'games/s':>10}{'CPU s':>8}{'RSS MiB':>9}{'÷ no-tree':>10}"
      f"{'tree rows':>12}{'spill runs':>11}{'spill rows':>12}{'spill MiB':>10}{'B/row':>7}"
      f"{'tree MiB':>9}{'file MiB':>9}")
for name, wall, cpu, rss, summary in runs:
    games = summary.get("games_read", floor_games)
    tree = summary.get("opening_tree") or {}
    rows = spill_runs = spill_rows = spill_bytes = per_row = peak = None
    if tree.get("plies"):
        rows = tree.get("rows", summary.get("tables", {}).get("openings.parquet"))
        spill_runs = tree.get("spill_runs")
        spill_rows = tree.get("spill_rows")
        spill_bytes = tree.get("spill_bytes")
        if rows and spill_bytes is not None:
            per_row = spill_bytes / rows
        peak = tree.get("peak_memory_bytes")
    print(f"{name:<14}{wall:>8.2f}{games / wall:>10,.0f}{cpu:>8.1f}{rss / 1024:>9,.0f}"
          f"{wall / base:>10.2f}{fmt(rows):>12}{fmt(spill_runs):>11}{fmt(spill_rows):>12}"
          f"{fmt(None if spill_bytes is None else spill_bytes / 2**20, ',.1f'):>10}"
          f"{fmt(per_row, ',.1f'):>7}{fmt(None if peak is None else peak / 2**20):>9}"
          f"{fmt(tree_bytes(name), ',.1f'):>9}")
    dropped = tree.get("rows_dropped")
    if dropped:
        print(f"{'':<14}  ({dropped:,} tree rows dropped)")
walls = {name: wall for name, wall, *_ in runs}
if "base-tree-1G" in walls:
    ours = (walls["tree-1G"] + walls["tree-1G-again"]) / 2
    print(f"default import wall / base's (mean of the runs before and after it): "
          f"{ours / walls['base-tree-1G']:.3f}")
PY
