#!/usr/bin/env bash
# `pgnlake search` against scoutfish (mcostalba/scoutfish, the query
# language's origin) on the same games, the same queries, the same threads.
#   benches/search.sh
# Settings, from the environment:
#   PGN=FILE      the games (default ../shared/data/corpus/pgnmentor-players.pgn.zst:
#                 454,278 OTB games); .zst and .gz are decompressed into a
#                 temporary folder, since scoutfish reads plain text only
#   THREADS=N     threads of both tools (default 2)
#   RUNS=N        timed runs of each query and tool (default 3; medians)
#   PGNLAKE=BIN   the pgnlake binary (default $CARGO_TARGET_DIR/release/pgnlake,
#                 built by cargo first)
#   SCOUTFISH=BIN the scoutfish binary (default ~/.cache/scoutfish/scoutfish,
#                 built when missing: see build_scoutfish below)
#
# 1. `scoutfish make` (its index, FILE.scout) and `pgnlake import --out`
#    of the same plain PGN, both timed. scoutfish leaves out games with a
#    FEN tag, a non-standard Variant or a move it cannot read, pgnlake
#    searches every accepted game: nothing is stripped, both counts are
#    printed (scoutfish's from `{"pass": ""}`).
# 2. Each query RUNS times per tool, interleaved: scoutfish fed on stdin
#    (`setoption name Threads value N`, `scout FILE.scout QUERY`, `quit`),
#    its own "processing time (ms)" (the scan, after the index is mapped)
#    and the process's wall; `pgnlake search --format ndjson -o /dev/null
#    --quiet`, its process's wall. Matches: scoutfish's "match count",
#    pgnlake's lines of NDJSON (one more run, into a file).
# 3. A markdown table: matches of both, medians, moves/s and the speed
#    ratio, scoutfish's scan ms ÷ pgnlake's process ms (above 1: pgnlake
#    is faster; in brackets, against scoutfish's process wall, which adds
#    its ~55 ms start and the printing of its matches). "moves" is
#    scoutfish's: the plies of every game it scanned, counted whole even
#    where it stopped a game at its first match, so moves/s is the index's
#    plies over the time, not plies replayed.
#
# The exact-FEN query is the position after move 20 (ply 40) of the
# file's first standard game of 40 plies or more, found with python-chess
# (PYTHON, default the tests' venv); scoutfish has no exact rule, so it
# gets that board as a sub-fen, its material and the side to move (its
# README's recipe), pgnlake the plain FEN.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"

threads=${THREADS:-2}
runs=${RUNS:-3}
input=${PGN:-../shared/data/corpus/pgnmentor-players.pgn.zst}
python=${PYTHON:-$CARGO_TARGET_DIR/test-venv/bin/python}
if [ ! -f "$input" ]; then
  echo "benchmark skipped: $input is absent" >&2
  exit 0
fi

# scoutfish at a fixed commit (its last, 2017), from the search tool's
# mirror when there is one, else from GitHub; g++ 12 builds it as it is
# (warnings only). ARCH=x86-64-modern: SSE3 and popcnt.
scoutfish_commit=00cec1339f97114a32c30080dbad5e3a500634f2
scoutfish_mirror=${SCOUTFISH_MIRROR:-/work/.mirror/mcostalba+scoutfish/repo}
scoutfish=${SCOUTFISH:-$HOME/.cache/scoutfish/scoutfish}
build_scoutfish() {
  local src=$HOME/.cache/scoutfish-src arch=x86-64-modern
  [ "$(uname -m)" = x86_64 ] || arch=general-64
  rm -rf "$src"
  mkdir -p "$src" "$(dirname "$scoutfish")"
  if [ -d "$scoutfish_mirror" ]; then
    git -C "$scoutfish_mirror" archive "$scoutfish_commit" | tar -x -C "$src"
  else
    git clone -q https://github.com/mcostalba/scoutfish "$src/clone"
    git -C "$src/clone" archive "$scoutfish_commit" | tar -x -C "$src"
    rm -rf "$src/clone"
  fi
  echo "building scoutfish (ARCH=$arch) in $src/src" >&2
  if ! make -C "$src/src" -j "$(nproc)" build ARCH="$arch" COMP=gcc > "$src/build.log" 2>&1; then
    tail -n 30 "$src/build.log" >&2
    echo "scoutfish did not build: $src/build.log" >&2
    exit 1
  fi
  cp "$src/src/scoutfish" "$scoutfish"
}
[ -x "$scoutfish" ] || build_scoutfish

if [ -z "${PGNLAKE:-}" ]; then
  cargo build --release --locked --quiet --bin pgnlake
fi
pgnlake=${PGNLAKE:-$CARGO_TARGET_DIR/release/pgnlake}
have_search=1
if ! "$pgnlake" search --help > /dev/null 2>&1; then
  have_search=0
  echo "pgnlake search: not in $pgnlake ('search --help' fails); its half is skipped" >&2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pgn="$tmp/games.pgn"   # scoutfish writes games.scout beside it
case "$input" in
  *.zst) zstd -dq "$input" -o "$pgn" ;;
  *.gz) gzip -dc "$input" > "$pgn" ;;
  *) ln -s "$(realpath "$input")" "$pgn" ;;
esac
scout="$tmp/games.scout"
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

start=$(date +%s%N)
"$scoutfish" make "$pgn" > "$tmp/make.out" 2> "$tmp/make.err"
make_ms=$(ms_since "$start")
make_field() { sed -n "s/^ *\"$1\": *\"*\([^\",]*\).*/\1/p" "$tmp/make.out"; }
echo "scoutfish make: ${make_ms} ms; $(make_field Games) games read, $(make_field Moves) moves," \
  "$(make_field 'Incorrect moves') moves it fixed; $(basename "$scout") $(make_field 'DB file size') bytes" \
  "(the PGN: $(stat -L -c %s "$pgn") bytes)"
wrong=$(grep -a -c '^Wrong' "$tmp/make.err" || true)
if [ "$wrong" -gt 0 ]; then
  echo "  games it left out at a move it could not read: $wrong, the first ones:"
  grep -a -A 20 '^Wrong' "$tmp/make.err" | grep -a -E '^(Wrong|Fen:)' | head -n 10 | sed 's/^/    /'
fi
echo "  FEN tags: $(grep -a -c '^\[FEN ' "$pgn" || true), Variant tags:" \
  "$(grep -a -c '^\[Variant ' "$pgn" || true) (games scoutfish leaves out)"

lake="$tmp/lake"
import_ms=-
if [ "$have_search" = 1 ]; then
  start=$(date +%s%N)
  "$pgnlake" import "$pgn" --out "$lake" --quiet
  import_ms=$(ms_since "$start")
  games=$(python3 - "$lake/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"{s['games_read']} games read, {s['accepted']} accepted, {s['rejected']} rejected")
PY
)
  echo "pgnlake import: ${import_ms} ms; $games"
fi

# The exact position: ply 40 of the first standard game that has 40 plies.
exact=$("$python" - "$pgn" <<'PY' 2> /dev/null || true
import sys, chess.pgn
with open(sys.argv[1], encoding="latin-1", newline="") as f:
    while (game := chess.pgn.read_game(f)) is not None:
        if "FEN" in game.headers or game.errors or "Variant" in game.headers:
            continue
        moves = list(game.mainline_moves())
        if len(moves) < 40:
            continue
        board = game.board()
        for move in moves[:40]:
            board.push(move)
        code = "".join("K" + "".join(chess.piece_symbol(p).upper() * len(board.pieces(p, c))
                                     for p in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN))
                       for c in (chess.WHITE, chess.BLACK))
        print(f"{board.fen()}\t{code}")
        break
PY
)
if [ -z "$exact" ]; then
  # pgnmentor's first game (Abdusattorov–Alikulov, 2014) after 20...Bc3.
  echo "python-chess ($python) unavailable: the exact FEN is pgnmentor's, hard-coded" >&2
  exact=$'5r2/1b1nn2k/pq1B2pp/1p3p2/1P2P3/1NbP2P1/3NQ1BP/5RK1 w - - 1 21\tKQRBBNNPPPPPKQRBBNNPPPPP'
fi
exact_fen=${exact%%$'\t'*}
exact_code=${exact#*$'\t'}
exact_board=${exact_fen%% *}
exact_stm=$([ "$(echo "$exact_fen" | cut -d' ' -f2)" = w ] && echo white || echo black)
echo "exact FEN: $exact_fen (material $exact_code)"

# name, scoutfish's query, pgnlake's (the same but for the exact FEN).
names=() sf_queries=() pl_queries=()
add() { names+=("$1"); sf_queries+=("$2"); pl_queries+=("${3:-$2}"); }
add sub-fen '{"sub-fen": "8/8/p7/8/8/1B3N2/8/8"}'
add material '{"material": "KRPKR"}'
add imbalance '{"imbalance": "PPvN"}'
add white-move '{"white-move": "O-O-O"}'
add black-move '{"black-move": "Rac8"}'
add moved+captured '{"moved": "KP", "captured": "Q"}'
add 'captured ""' '{"captured": ""}'
add stm+captured '{"stm": "black", "captured": "QR"}'
add result '{"result": "0-1"}'
add result-type '{"result-type": "mate"}'
add pass '{"pass": ""}'
add sequence '{"sequence": [{"sub-fen": "r1bqkb1r/pppp1ppp/2n2n2/1B2p3/4P3/2N2N2/PPPP1PPP/R1BQK2R", "result": "1-0"}, {"sub-fen": "8/8/8/8/2B5/8/8/8"}, {"sub-fen": "8/8/8/8/8/5B2/8/8"}]}'
add streak '{"streak": [{"captured": ""}, {"stm": "white", "captured": "Q"}, {"captured": ""}]}'
add 'material KBNK' '{"material": "KBNK"}'
add 'exact FEN, ply 40' "{\"sub-fen\": \"$exact_board\", \"material\": \"$exact_code\", \"stm\": \"$exact_stm\"}" "$exact_fen"

sf_field() { sed -n "s/^ *\"$1\": *\([0-9]*\),.*/\1/p;/\"matches\":/q" "$tmp/sf.out"; }
sf_run() { # QUERY: one scoutfish process; appends "ms wall moves matches" to $tmp/sf
  local start wall ms moves matches listed
  start=$(date +%s%N)
  printf 'setoption name Threads value %s\nscout %s %s\nquit\n' "$threads" "$scout" "$1" \
    | "$scoutfish" > "$tmp/sf.out" 2> "$tmp/sf.err"
  wall=$(ms_since "$start")
  ms=$(sf_field 'processing time (ms)') moves=$(sf_field moves) matches=$(sf_field 'match count')
  listed=$(grep -c '"ofs"' "$tmp/sf.out" || true)
  if [ -z "$ms" ] || [ -z "$moves" ] || [ "$listed" != "$matches" ]; then
    echo "scoutfish's answer to $1 does not parse:" >&2
    head -c 2000 "$tmp/sf.out" "$tmp/sf.err" >&2
    exit 1
  fi
  echo "$ms $wall $moves $matches" >> "$tmp/sf"
}
pl_run() { # QUERY [OUT]: one pgnlake search; appends its wall ms (or "failed") to $tmp/pl
  local start
  start=$(date +%s%N)
  if "$pgnlake" search --data "$lake" --threads "$threads" --format ndjson -o "${2:-/dev/null}" \
      --quiet "$1" 2> "$tmp/pl.err"; then
    ms_since "$start" >> "$tmp/pl"
  else
    echo "pgnlake search failed on $1: $(head -n 3 "$tmp/pl.err")" >&2
    echo failed >> "$tmp/pl"
  fi
}

results="$tmp/results.tsv"
for i in "${!names[@]}"; do
  rm -f "$tmp/sf" "$tmp/pl"
  for _ in $(seq "$runs"); do
    sf_run "${sf_queries[$i]}"
    if [ "$have_search" = 1 ]; then pl_run "${pl_queries[$i]}"; fi
  done
  pl_matches=- pl_ms=-
  if [ "$have_search" = 1 ]; then
    pl_ms=$(sort -n "$tmp/pl" | tr '\n' ,)
    rm -f "$tmp/pl"
    rm -f "$tmp/pl.ndjson"
    pl_run "${pl_queries[$i]}" "$tmp/pl.ndjson"
    pl_matches=failed
    [ -f "$tmp/pl.ndjson" ] && pl_matches=$(wc -l < "$tmp/pl.ndjson")
  fi
  # name, scoutfish ms / wall ms / moves / matches of each run, pgnlake's
  printf '%s\t%s\t%s\t%s\n' "${names[$i]}" "$(tr '\n' ';' < "$tmp/sf")" "$pl_ms" "$pl_matches" >> "$results"
  echo "  ${names[$i]}: scoutfish $(cut -d' ' -f4 "$tmp/sf" | head -n 1) matches, ms $(cut -d' ' -f1 "$tmp/sf" | tr '\n' ' ')/" \
    "pgnlake $pl_matches matches, ms $pl_ms" >&2
done

python3 - "$results" "$threads" "$runs" "$make_ms" "$import_ms" <<'PY'
import statistics, sys
path, threads, runs, make_ms, import_ms = sys.argv[1:6]
def median(xs):
    return statistics.median(xs) if xs else None
def rate(moves, ms):
    return f"{moves / ms * 1000 / 1e6:,.1f} M" if ms else "–"
print(f"\nscoutfish make {int(make_ms) / 1000:.1f} s, pgnlake import "
      + (f"{int(import_ms) / 1000:.1f} s" if import_ms != "-" else "skipped")
      + f"; {threads} threads, medians of {runs} runs")
print("\n| query | scoutfish games | pgnlake games | scoutfish ms (scan) | scoutfish ms (process) "
      "| pgnlake ms (process) | moves | scoutfish moves/s | pgnlake moves/s | pgnlake speed ÷ scoutfish's |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for line in open(path):
    name, sf, pl, pl_matches = line.rstrip("\n").split("\t")
    sf = [tuple(int(x) for x in r.split()) for r in sf.split(";") if r]
    sf_ms = median([r[0] for r in sf])
    sf_wall = median([r[1] for r in sf])
    moves = median([r[2] for r in sf])
    sf_matches = sf[0][3]
    pl_ms = median([int(x) for x in pl.split(",") if x.strip().isdigit()])
    ratio = f"{sf_ms / pl_ms:.2f} (process: {sf_wall / pl_ms:.2f})" if pl_ms else "–"
    pl_matches = "–" if pl_matches == "-" else pl_matches
    print(f"| {name} | {sf_matches:,} | {pl_matches} | {sf_ms:g} | {sf_wall:g} | "
          f"{pl_ms if pl_ms is not None else '–'} | {moves:,.0f} | {rate(moves, sf_ms)} | "
          f"{rate(moves, pl_ms)} | {ratio} |")
PY
echo
echo "queries (scoutfish's; pgnlake's exact-FEN query is the plain FEN):"
for i in "${!names[@]}"; do
  echo "- ${names[$i]}: \`${sf_queries[$i]}\`"
done
