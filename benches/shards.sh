#!/usr/bin/env bash
# Shard benchmark: what splitting an import into N shards (`import --shard
# K/N`, run one after the other here) and `merge` cost against one import of
# the same input, on the pgnmentor corpus as a plain file and as pzstd
# (multi-frame) .zst, both made in a temp folder.
#   benches/shards.sh [N]      (default 4)
# Prints, per input: the single import (wall, CPU, games/s, peak RSS), the N
# shards (sum of wall and CPU, the slowest shard, games each), the merge (wall,
# peak RSS) and the overhead: shards' CPU + merge ÷ single CPU. A shard that
# starts inside a file frames (and for .zst decompresses) the text before its
# part: that is most of the overhead. Absolute figures drift ±15 % on shared
# machines.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"
shards=${1:-4}
corpus=../shared/data/corpus/pgnmentor-players.pgn.zst
if [ ! -f "$corpus" ]; then
  echo "benches/shards.sh: $corpus is missing" >&2
  exit 2
fi
cargo build --release --locked --quiet --bin pgnlake
bin="$CARGO_TARGET_DIR/release/pgnlake"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zstd -d -q "$corpus" -o "$tmp/pgnmentor.pgn"
pzstd -q -p 2 -3 "$tmp/pgnmentor.pgn" -o "$tmp/pgnmentor-pzstd.pgn.zst"

timed() { # NAME COMMAND...: appends "NAME wall user sys rss" to results
  local name=$1
  shift
  /usr/bin/time -f "$name %e %U %S %M" -a -o "$tmp/results.txt" "$@" > /dev/null 2> "$tmp/stderr" || {
    cat "$tmp/stderr" >&2
    exit 1
  }
}
for input in "$tmp/pgnmentor.pgn" "$tmp/pgnmentor-pzstd.pgn.zst"; do
  kind=$(basename "$input")
  timed "$kind single" "$bin" import "$input" --out "$tmp/single" --quiet
  dirs=()
  for k in $(seq 1 "$shards"); do
    timed "$kind shard$k" "$bin" import "$input" --shard "$k/$shards" --out "$tmp/shard$k" --quiet
    dirs+=("$tmp/shard$k")
  done
  timed "$kind merge" "$bin" merge "${dirs[@]}" --out "$tmp/merged" --quiet
  for k in $(seq 1 "$shards"); do
    python3 -c "import json,sys; print('$kind games$k', json.load(open(sys.argv[1]))['games_read'])" \
      "$tmp/shard$k/summary.json" >> "$tmp/results.txt"
  done
  python3 -c "import json,sys; print('$kind games', json.load(open(sys.argv[1]))['games_read'])" \
    "$tmp/single/summary.json" >> "$tmp/results.txt"
  rm -rf "$tmp"/shard* "$tmp/single" "$tmp/merged"
done

python3 - "$tmp/results.txt" "$shards" <<'PY'
import collections, sys
path, shards = sys.argv[1], int(sys.argv[2])
runs, games = collections.defaultdict(dict), collections.defaultdict(dict)
for line in open(path):
    kind, name, *values = line.split()
    if name.startswith("games"):
        games[kind][name] = int(values[0])
    else:
        wall, user, sys_, rss = values
        runs[kind][name] = (float(wall), float(user) + float(sys_), int(rss) / 1024)
for kind, run in runs.items():
    wall, cpu, rss = run["single"]
    total = games[kind]["games"]
    print(f"{kind}: {total:,} games, {shards} shards")
    print(f"  single  wall {wall:7.2f} s  CPU {cpu:7.1f} s  {total / wall:9,.0f} games/s  RSS {rss:5.0f} MiB")
    parts = [run[f"shard{k}"] for k in range(1, shards + 1)]
    each = [games[kind][f"games{k}"] for k in range(1, shards + 1)]
    print(f"  shards  wall {sum(p[0] for p in parts):7.2f} s  CPU {sum(p[1] for p in parts):7.1f} s"
          f"  slowest {max(p[0] for p in parts):.2f} s  RSS {max(p[2] for p in parts):5.0f} MiB"
          f"  games {each}")
    mwall, mcpu, mrss = run["merge"]
    print(f"  merge   wall {mwall:7.2f} s  CPU {mcpu:7.1f} s  RSS {mrss:5.0f} MiB")
    overhead = (sum(p[1] for p in parts) + mcpu) / cpu
    print(f"  shards + merge CPU ÷ single CPU: {overhead:.2f}")
PY
