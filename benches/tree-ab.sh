#!/usr/bin/env bash
# Opening tree A/B (issue 56): what the opening tree costs two builds on the
# same inputs, in the same minutes.
#   BASE=/path/old/pgnlake NEW=/path/new/pgnlake benches/tree-ab.sh [pgnmentor|lichess|random|all] [RUNS]
# (default all, RUNS=3). Both binaries are given (release builds, e.g. a
# `git worktree` of the build before built with its own CARGO_TARGET_DIR).
# Inputs (generated ones kept in $CARGO_TARGET_DIR/bench-data/):
#   pgnmentor  $PGNMENTOR (default ../shared/data/corpus/pgnmentor-players.pgn.zst)
#   lichess    $GAMES_LICHESS (default 200000) `gen_games --lichess --seed 1`
#   random     $GAMES_RANDOM (default 1000000) `gen_games --seed 1`
# Each round (RUNS of them, base first in odd rounds, new first in even ones)
# times with /usr/bin/time, per input: the floor (pgnmentor only), each
# build's default import and each build's `--opening-plies 0` import. The
# first round's default imports are measured (tables/tree_ab.py stats):
# openings.parquet bytes, rows, rows of one game, bytes per accepted game,
# bytes per row of one game and of 2+ games (from two files pyarrow writes of
# those rows with the real file's codec and encodings; the rewrite of all rows
# against the real file is printed as a check), the real file's compressed
# bytes per column, games.parquet bytes. Then `explore` on NEW's random
# import, EXPLORE_RUNS (default 5) times each: the start position and a
# position after 8 plies reached by one game only (moves spelled from that
# game's games.moves_uci with python-chess). Prints the details, then a
# markdown table of medians for docs/performance.md.
# Knobs: GEN=path of gen_games (default: built in release when an input is
# missing), FLOOR=path of benches/floor's binary or `none` (default: built in
# release), PGNMENTOR, GAMES_LICHESS, GAMES_RANDOM, EXPLORE_RUNS.
# Needs python3 with pyarrow and python-chess.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

usage="usage: BASE=/path/old/pgnlake NEW=/path/new/pgnlake benches/tree-ab.sh [pgnmentor|lichess|random|all] [RUNS]"
which_inputs=${1:-all}
runs=${2:-3}
: "${BASE:?$usage}" "${NEW:?$usage}"
for b in "$BASE" "$NEW"; do
  [ -x "$b" ] || { echo "not an executable: $b" >&2; exit 2; }
done
case $which_inputs in
  all) inputs=(pgnmentor lichess random) ;;
  pgnmentor | lichess | random) inputs=("$which_inputs") ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
python3 -c 'import pyarrow.parquet, chess' || {
  echo "python3 needs pyarrow and python-chess" >&2; exit 2; }

pgnmentor=${PGNMENTOR:-../shared/data/corpus/pgnmentor-players.pgn.zst}
games_lichess=${GAMES_LICHESS:-200000}
games_random=${GAMES_RANDOM:-1000000}
explore_runs=${EXPLORE_RUNS:-5}
seed=1
data="$CARGO_TARGET_DIR/bench-data"
lichess="$data/lichess-$games_lichess-seed$seed.pgn"
random="$data/random-$games_random-seed$seed.pgn"

input_of() { # NAME -> path
  case $1 in
    pgnmentor) echo "$pgnmentor" ;;
    lichess) echo "$lichess" ;;
    random) echo "$random" ;;
  esac
}

generate() { # PATH ARGS...: gen_games ARGS into PATH, once
  local path=$1
  shift
  [ -f "$path" ] && return
  if [ -z "${GEN:-}" ]; then
    cargo build --release --locked --quiet --example gen_games
    GEN="$CARGO_TARGET_DIR/release/examples/gen_games"
  fi
  mkdir -p "$data"
  echo "generating $path" >&2
  "$GEN" "$@" --seed "$seed" -o "$path.partial"
  mv "$path.partial" "$path"
}
for input in "${inputs[@]}"; do
  case $input in
    pgnmentor) [ -f "$pgnmentor" ] || { echo "$pgnmentor is absent" >&2; exit 2; } ;;
    lichess) generate "$lichess" "$games_lichess" --lichess ;;
    random) generate "$random" "$games_random" ;;
  esac
done

floor=
if [[ " ${inputs[*]} " == *" pgnmentor "* ]]; then
  case ${FLOOR:-} in
    none) ;;
    "")
      cargo build --release --locked --quiet --manifest-path benches/floor/Cargo.toml
      floor="$CARGO_TARGET_DIR/release/floor" ;;
    *) floor=$FLOOR ;;
  esac
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results="$tmp/results.txt"
mkdir -p "$tmp/stats"
: > "$results"

# timed INPUT NAME OUT COMMAND...: runs COMMAND (its output folder OUT
# removed first), appends "INPUT NAME wall user sys maxrss-KiB" to $results.
timed() {
  local input=$1 name=$2 out=$3
  shift 3
  rm -rf "$out"
  if ! /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" > "$tmp/stdout" 2> "$tmp/stderr"; then
    echo "$input $name failed: $*" >&2
    cat "$tmp/stderr" >&2
    exit 1
  fi
  echo "$input $name $(cat "$tmp/time")" >> "$results"
}

# import_run RUN INPUT WHO MODE: one timed import; the first round's default
# imports are measured; NEW's random default import is kept for explore.
import_run() {
  local run=$1 input=$2 who=$3 mode=$4 bin out
  bin=$BASE
  [ "$who" = new ] && bin=$NEW
  out="$tmp/out-$input-$who-$mode"
  if [ "$mode" = default ]; then
    timed "$input" "$who-default" "$out" "$bin" import "$(input_of "$input")" --out "$out" --quiet
    [ -f "$out/openings.parquet" ] || { echo "$input $who: no openings.parquet" >&2; exit 1; }
    if [ "$run" = 1 ]; then
      python3 benches/tree_ab.py stats "$out" "$tmp/stats/$input-$who.json"
    fi
    if [ "$input" = random ] && [ "$who" = new ]; then
      return
    fi
  else
    timed "$input" "$who-plies0" "$out" "$bin" import "$(input_of "$input")" --out "$out" --quiet --opening-plies 0
  fi
  rm -rf "$out"
}

for run in $(seq "$runs"); do
  order=(base new)
  if [ $((run % 2)) = 0 ]; then order=(new base); fi
  for input in "${inputs[@]}"; do
    echo "round $run/$runs: $input" >&2
    if [ "$input" = pgnmentor ] && [ -n "$floor" ]; then
      timed pgnmentor floor "$tmp/out-floor" "$floor" "$pgnmentor"
      awk '{print $2}' "$tmp/stdout" > "$tmp/stats/floor-games"
    fi
    for mode in default plies0; do
      for who in "${order[@]}"; do
        import_run "$run" "$input" "$who" "$mode"
      done
    done
  done
done

if [[ " ${inputs[*]} " == *" random "* ]]; then
  kept="$tmp/out-random-new-default"
  python3 benches/tree_ab.py pick "$kept" "$tmp/stats/explore-pick.json"
  read -r -a moves < <(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["san"]))' \
    "$tmp/stats/explore-pick.json")
  for i in $(seq "$explore_runs"); do
    timed random explore-start "$tmp/none" "$NEW" explore --data "$kept"
    if [ "$i" = 1 ]; then cp "$tmp/stdout" "$tmp/stats/explore-start.txt"; fi
    timed random explore-one-game "$tmp/none" "$NEW" explore --data "$kept" "${moves[@]}"
    if [ "$i" = 1 ]; then cp "$tmp/stdout" "$tmp/stats/explore-one-game.txt"; fi
  done
fi

python3 benches/tree_ab.py report "$results" "$tmp/stats" "$runs" "$BASE" "$NEW" \
  "$(git rev-parse --short HEAD)" "$*"
