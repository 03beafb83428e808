#!/usr/bin/env bash
# `pgnlake serve` under load (issue 57), on the machine it runs on.
#   benches/serve.sh [GAMES] [SECONDS]
# (default 2000000 games, 30 s). Needs python3 (any: the load uses the
# standard library only).
#
# 1. A lake of GAMES random lichess-like games (examples/gen_games.rs
#    --lichess, seed 1), in 4 monthly imports (2025-01 … 2025-04), then
#    `lake --compact`: one compacted tree. Kept in
#    $CARGO_TARGET_DIR/bench-data/serve-lake-GAMES/ for later runs.
# 2. `pgnlake serve` on it; 8 clients with keep-alive connections request
#    random positions of the first 8 plies (prefixes of the games'
#    moves_uci) with random filters for SECONDS seconds
#    (benches/serve_load.py): p50, p90, p99 latency, requests a second.
# 3. RSS (VmRSS of the server) before the load, after it, and every 2,500
#    requests of a further 10,000: steady or growing.
# 4. `/player` on 1,000,000 games of 200 players (gen_games --players 200:
#    each plays about 5,000 games as white): the time to the first NDJSON
#    line and to the last, over 5 runs.
# 5. One client at a time for SECONDS seconds: p50, p90, p99.
# Prints the figures, then a markdown table for docs/performance.md.
#
# BIN=/path/to/pgnlake (an older build, for an A/B) serves, and builds
# its own lakes, with DATA_TAG=NAME naming them apart from the current
# build's (a build that writes other files must read its own).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

games=${1:-2000000}
seconds=${2:-30}
cargo build --release --locked --quiet --bin pgnlake --example gen_games
bin="${BIN:-$CARGO_TARGET_DIR/release/pgnlake}"
tag="${DATA_TAG:-}"
gen="$CARGO_TARGET_DIR/release/examples/gen_games"
data="$CARGO_TARGET_DIR/bench-data"
mkdir -p "$data"

lake="$data/serve-lake-$games$tag"
if [ ! -f "$lake/.complete" ]; then
  rm -rf "$lake"
  per=$((games / 4))
  for month in 1 2 3 4; do
    input="$data/serve-2025.0$month-$per$tag.pgn"
    echo "generating and importing $input" >&2
    "$gen" "$per" --lichess --seed "$month" --month "2025.0$month" -o "$input"
    "$bin" import "$input" --into "$lake" --name "2025-0$month" --quiet
    rm -f "$input"
  done
  "$bin" lake "$lake" --compact
  touch "$lake/.complete"
fi
players="$data/serve-players-1000000$tag"
if [ ! -f "$players/.complete" ]; then
  rm -rf "$players"
  input="$data/serve-players-1000000$tag.pgn"
  echo "generating and importing $input" >&2
  "$gen" 1000000 --lichess --seed 7 --players 200 -o "$input"
  "$bin" import "$input" --out "$players" --quiet
  rm -f "$input"
  touch "$players/.complete"
fi

tmp=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

lines="$tmp/lines.txt"
"$bin" query --data "$lake" --format csv \
  -e "SELECT moves_uci FROM games WHERE start_fen IS NULL AND variant_name = 'standard' LIMIT 20000" \
  | tail -n +2 | tr -d '"' > "$lines"

start_server() { # DATA: starts it, sets server_pid and url
  "$bin" serve --data "$1" --listen 127.0.0.1:0 > "$tmp/serve.out" 2> "$tmp/serve.err" &
  server_pid=$!
  for _ in $(seq 100); do
    url=$(sed -n 's|^pgnlake serve: listening on \(http://[^ ]*\)/$|\1|p' "$tmp/serve.out")
    [ -n "$url" ] && return
    sleep 0.1
  done
  echo "the server did not start:" >&2
  cat "$tmp/serve.err" >&2
  exit 1
}
rss() { awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$server_pid/status"; }

start_server "$lake"
# One request opens the tables' footers, as the first user would.
curl -s -o /dev/null "$url/lichess"
rss_before=$(rss)
load=$(python3 benches/serve_load.py "$url" "$lines" --clients 8 --seconds "$seconds")
echo "load: $load"
rss_after=$(rss)
steady=()
for round in 1 2 3 4; do
  python3 benches/serve_load.py "$url" "$lines" --clients 8 --seconds 600 --requests 2500 --seed $((round + 1)) > /dev/null
  steady+=("$(rss)")
done
one=$(python3 benches/serve_load.py "$url" "$lines" --clients 1 --seconds "$seconds" --seed 9)
echo "one client: $one"
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=

start_server "$players"
player_times=()
for run in 1 2 3 4 5; do
  player_times+=("$(python3 - "$url" <<'EOF'
import sys, time, urllib.request
start = time.perf_counter()
with urllib.request.urlopen(sys.argv[1] + "/player?player=player7&color=white") as r:
    first = None
    lines = 0
    for line in r:
        if line.strip():
            lines += 1
            if first is None:
                first = time.perf_counter() - start
    last = time.perf_counter() - start
print(f"{first:.3f}/{last:.3f}/{lines}")
EOF
)")
done
games_of_player=$(curl -s "$url/player?player=player7&color=white" | tail -n 1 \
  | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["white"]+d["draws"]+d["black"])')

field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$load" "$1"; }
one_field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$one" "$1"; }
echo
echo "lake: $games games in 4 imports, compacted; tree $(du -sh "$lake/openings" | cut -f1)"
echo "rss MiB: before $rss_before, after ${seconds}s $rss_after, then every 2,500 requests: ${steady[*]}"
echo "player7 as white: $games_of_player games; first line / last line / lines, 5 runs (s): ${player_times[*]}"
echo
echo "| clients | seconds | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | errors | RSS before → after → +10,000 requests |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
echo "| 8 | $(field seconds) | $(field requests) | $(field rps) | $(field p50_ms) | $(field p90_ms) | $(field p99_ms) | $(field max_ms) | $(field errors) | $rss_before → $rss_after → ${steady[3]} MiB |"
echo "| 1 | $(one_field seconds) | $(one_field requests) | $(one_field rps) | $(one_field p50_ms) | $(one_field p90_ms) | $(one_field p99_ms) | $(one_field max_ms) | $(one_field errors) | |"
