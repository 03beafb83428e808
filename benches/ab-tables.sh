#!/usr/bin/env bash
# Tables A/B: the tables two builds write for the same inputs and options.
#   benches/ab-tables.sh BASE_BIN [NEW_BIN]     (NEW_BIN: the release build)
# Imports sample-data/ (default options, then --moves) and, when ../shared
# is there, the corpus (pgnmentor, the lichess sample, TWIC) with each
# build, then checks that
# - every table but openings and opening_lines is byte for byte the same;
# - openings and opening_lines hold the same rows once summed into the
#   rating bands both builds have (ROLLUP below maps bands by BAND_MAP,
#   default: 2500 into 2400 and 2700 into 2600, the bands before issue 55),
#   through each build's own `pgnlake query`, by the columns' merge roles
#   (`pgnlake schema --format json`).
# SAMPLE_ONLY=1 leaves the corpus out. Prints one line per input and table;
# exits 1 on any difference.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pgnlake-target}"
base=${1:?usage: benches/ab-tables.sh BASE_BIN [NEW_BIN]}
new=${2:-}
if [ -z "$new" ]; then
  cargo build --release --locked --quiet --bin pgnlake
  new="$CARGO_TARGET_DIR/release/pgnlake"
fi
band_map=${BAND_MAP:-"2500:2400,2700:2600"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The SQL that sums a tree table into the shared bands, by merge role.
rollup_sql() { # TABLE
  "$new" schema --format json | python3 -c '
import json, sys
table, band_map = sys.argv[1], sys.argv[2]
tables = json.load(sys.stdin)
tables = tables if isinstance(tables, list) else tables.get("tables", tables)
spec = next(t for t in tables if t["name"] in (table, table + ".parquet"))
cases = " ".join(f"WHEN {a} THEN {b}" for a, b in (p.split(":") for p in band_map.split(",")))
band = f"CASE rating_band {cases} ELSE rating_band END"
keys, cols = [], []
for c in spec["columns"]:
    name, role = c["name"], c["merge"]
    expr = band if name == "rating_band" else name
    if role == "key":
        keys.append(expr); cols.append(f"{expr} AS {name}")
    elif role in ("same", "min"):
        cols.append(f"MIN({name}) AS {name}")
    elif role == "max":
        cols.append(f"MAX({name}) AS {name}")
    elif role == "sum":
        cols.append(f"SUM({name}) AS {name}")
order = ", ".join(f"{k} NULLS FIRST" for k in keys)
print(f"SELECT {chr(44).join(cols)} FROM {table} GROUP BY {chr(44).join(keys)} ORDER BY {order}")
' "$1" "$band_map"
}

status=0
compare() { # NAME ARGS...
  local name=$1
  shift
  rm -rf "$tmp/a" "$tmp/b"
  "$base" import "$@" --out "$tmp/a" --quiet || true
  "$new" import "$@" --out "$tmp/b" --quiet || true
  for file in "$tmp"/a/*.parquet; do
    local table
    table=$(basename "$file" .parquet)
    case $table in
      openings | opening_lines)
        local sql
        sql=$(rollup_sql "$table")
        "$base" query --data "$tmp/a" --format csv -o "$tmp/a.csv" -e "$sql"
        "$new" query --data "$tmp/b" --format csv -o "$tmp/b.csv" -e "$sql"
        if cmp -s "$tmp/a.csv" "$tmp/b.csv"; then
          echo "$name $table: same rows once summed into the shared bands ($(($(wc -l < "$tmp/a.csv") - 1)) rows)"
        else
          echo "$name $table: DIFFERENT once summed into the shared bands"; status=1
        fi ;;
      *)
        if cmp -s "$file" "$tmp/b/$table.parquet"; then
          echo "$name $table: byte for byte the same ($(stat -c %s "$file") bytes)"
        else
          echo "$name $table: DIFFERENT bytes"; status=1
        fi ;;
    esac
  done
}

compare sample-data sample-data
compare sample-data--moves sample-data --moves
shared=../shared/data/corpus
if [ -d "$shared" ] && [ -z "${SAMPLE_ONLY:-}" ]; then
  compare corpus "$shared"/pgnmentor-players.pgn.zst "$shared"/lichess-2025-05-sample.pgn "$shared"/twic0920.pgn
fi
exit $status
