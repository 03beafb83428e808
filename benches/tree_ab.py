"""benches/tree-ab.sh's measurements and report (pyarrow, python-chess).

  tree_ab.py stats OUT JSON     openings.parquet and games.parquet of an import
  tree_ab.py pick OUT JSON      a position after 8 plies reached by one game
  tree_ab.py report RESULTS STATS RUNS BASE NEW COMMIT ARGS
"""
import datetime
import json
import os
import statistics
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

# The sink's row groups (src/sink/parquet.rs ROW_GROUP_ROWS) and default codec
# (src/sink/compression.rs: zstd level 1).
ROW_GROUP_ROWS = 1 << 15
ZSTD_LEVEL = 1
SPECIAL = ("DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
           "BYTE_STREAM_SPLIT")


def plain_schema(schema):
    """string_view columns as string, for pyarrow's writer."""
    return pa.schema([pa.field(f.name, pa.string() if f.type == pa.string_view() else f.type,
                               f.nullable) for f in schema])


def writer_options(meta):
    """The real file's codec and per-column encodings, as ParquetWriter options."""
    rg = meta.row_group(0)
    codec = rg.column(0).compression
    options = {"compression": {"ZSTD": "zstd", "LZ4_RAW": "lz4", "LZ4": "lz4",
                               "SNAPPY": "snappy", "UNCOMPRESSED": "none"}[codec]}
    if codec == "ZSTD":
        options["compression_level"] = ZSTD_LEVEL
    dictionary, encoding = [], {}
    for i in range(rg.num_columns):
        column = rg.column(i)
        if column.has_dictionary_page:
            dictionary.append(column.path_in_schema)
        else:
            special = [e for e in column.encodings if e in SPECIAL]
            encoding[column.path_in_schema] = special[0] if special else "PLAIN"
    options["use_dictionary"] = dictionary
    options["column_encoding"] = encoding
    return options


class Split:
    """A pyarrow file of some of the rows, written in row groups of
    ROW_GROUP_ROWS."""

    def __init__(self, path, schema, options):
        self.path, self.schema = path, schema
        self.writer = pq.ParquetWriter(path, schema, **options)
        self.pending, self.rows = [], 0

    def add(self, table):
        if table.num_rows:
            self.pending.append(table)
            self.rows += table.num_rows
        self.flush(False)

    def flush(self, last):
        buffered = sum(t.num_rows for t in self.pending)
        if buffered >= ROW_GROUP_ROWS or (last and buffered):
            table = pa.concat_tables(self.pending)
            whole = table.num_rows if last else table.num_rows // ROW_GROUP_ROWS * ROW_GROUP_ROWS
            self.writer.write_table(table.slice(0, whole), row_group_size=ROW_GROUP_ROWS)
            self.pending = [table.slice(whole)] if whole < table.num_rows else []

    def close(self):
        self.flush(True)
        self.writer.close()
        size = os.path.getsize(self.path)
        os.remove(self.path)
        return size


def stats(out, json_path):
    summary = json.load(open(os.path.join(out, "summary.json")))
    path = os.path.join(out, "openings.parquet")
    file = pq.ParquetFile(path)
    meta = file.metadata
    columns = {}
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        for i in range(rg.num_columns):
            column = rg.column(i)
            columns[column.path_in_schema] = (columns.get(column.path_in_schema, 0)
                                              + column.total_compressed_size)
    result = {
        "games_read": summary["games_read"],
        "accepted": summary["accepted"],
        "openings_bytes": os.path.getsize(path),
        "games_bytes": os.path.getsize(os.path.join(out, "games.parquet")),
        "rows": meta.num_rows,
        "row_groups": meta.num_row_groups,
        "column_bytes": columns,
        "codec": meta.row_group(0).column(0).compression if meta.num_row_groups else None,
    }
    if meta.num_rows:
        schema = plain_schema(file.schema_arrow)
        options = writer_options(meta)
        splits = {name: Split(os.path.join(out, f"tree-ab-{name}.parquet"), schema, options)
                  for name in ("one", "many", "all")}
        for g in range(meta.num_row_groups):
            table = file.read_row_group(g).cast(schema)
            one = pc.equal(table["games"], 1)
            splits["one"].add(table.filter(one))
            splits["many"].add(table.filter(pc.invert(one)))
            splits["all"].add(table)
        for name, split in splits.items():
            result[f"rows_{name}"] = split.rows
            result[f"pyarrow_bytes_{name}"] = split.close()
    json.dump(result, open(json_path, "w"), indent=1)


def pick(out, json_path):
    """The first position (by key) reached by one game only, at ply 8: its
    game, that game's first 8 moves in SAN, the position's EPD."""
    import chess
    file = pq.ParquetFile(os.path.join(out, "openings.parquet"))
    found = None
    # A position's rows are never split between row groups (sink/openings.rs).
    for g in range(file.metadata.num_row_groups):
        table = file.read_row_group(g, columns=["position_key", "ply", "games", "game_id"])
        by = table.group_by("position_key").aggregate([("games", "sum"), ("ply", "min")])
        single = by.filter(pc.and_(pc.equal(by["games_sum"], 1), pc.equal(by["ply_min"], 8)))
        if single.num_rows:
            key = single["position_key"][0].as_py()
            row = table.filter(pc.equal(table["position_key"], key))
            found = (key, row["game_id"][0].as_py())
            break
    if found is None:
        sys.exit(f"{out}: no position at ply 8 reached by one game")
    key, game_id = found
    games = pq.ParquetFile(os.path.join(out, "games.parquet"))
    first_moves = None
    for g in range(games.metadata.num_row_groups):
        table = games.read_row_group(g, columns=["game_id", "moves_uci"])
        hit = pc.indices_nonzero(pc.equal(table["game_id"], game_id))
        if len(hit):
            first_moves = table["moves_uci"][hit[0].as_py()].as_py()
            break
    if first_moves is None:
        sys.exit(f"{out}: game {game_id} of position {key} is not in games.parquet")
    board, san = chess.Board(), []
    for uci in first_moves.split()[:8]:
        move = chess.Move.from_uci(uci)
        san.append(board.san(move))
        board.push(move)
    json.dump({"position_key": key, "game_id": game_id, "san": san, "epd": board.epd()},
              open(json_path, "w"), indent=1)


def fmt(value, spec=",.0f"):
    return "-" if value is None else format(value, spec)


def report(results, stats_dir, runs, base, new, commit, args):
    times = {}
    for line in open(results):
        input_, name, wall, user, sys_, rss = line.split()
        times.setdefault(input_, {}).setdefault(name, []).append(
            (float(wall), float(user) + float(sys_), int(rss)))

    def med(input_, name, i):
        runs_ = times.get(input_, {}).get(name)
        if not runs_:
            return None
        if i == 2:
            return max(r[2] for r in runs_) / 1024
        return statistics.median(r[i] for r in runs_)

    def load(name):
        path = os.path.join(stats_dir, name)
        return json.load(open(path)) if os.path.exists(path) else None

    floor_games = None
    if os.path.exists(os.path.join(stats_dir, "floor-games")):
        floor_games = int(open(os.path.join(stats_dir, "floor-games")).read())
    inputs = [i for i in ("pgnmentor", "lichess", "random") if i in times]
    print(f"\nmedians of {runs} interleaved runs; BASE = {base}; NEW = {new}")
    rows = []
    for input_ in inputs:
        print(f"\n{input_}")
        print(f"  {'run':<16}{'wall s':>8}{'CPU s':>8}{'peak RSS MiB':>14}{'games/s':>10}{'× floor games/s':>17}")
        floor_rate = None
        if "floor" in times[input_] and floor_games:
            floor_rate = floor_games / med(input_, "floor", 0)
        for name in times[input_]:
            if name.startswith("explore"):
                continue
            wall, cpu, rss = (med(input_, name, i) for i in range(3))
            st = load(f"{input_}-{name.split('-')[0]}.json")
            games = st["games_read"] if st else floor_games
            rate = games / wall if games else None
            ratio = rate / floor_rate if rate and floor_rate else None
            print(f"  {name:<16}{wall:>8.2f}{cpu:>8.1f}{rss:>14,.0f}{fmt(rate):>10}{fmt(ratio, '.3f'):>17}")
        for who in ("base", "new"):
            st = load(f"{input_}-{who}.json")
            cpu, cpu0 = med(input_, f"{who}-default", 1), med(input_, f"{who}-plies0", 1)
            wall = med(input_, f"{who}-default", 0)
            rate = st["games_read"] / wall
            row = {
                "input": input_, "who": who, "wall": wall, "cpu": cpu, "cpu0": cpu0,
                "rss": med(input_, f"{who}-default", 2), "cpu_ratio": cpu / cpu0 if cpu0 else None,
                "floor": rate / floor_rate if floor_rate else None, **st,
            }
            row["per_game"] = st["openings_bytes"] / st["accepted"] if st["accepted"] else None
            for part in ("one", "many"):
                n = st.get(f"rows_{part}")
                row[f"per_row_{part}"] = st[f"pyarrow_bytes_{part}"] / n if n else None
            rows.append(row)
            print(f"  {who}: openings.parquet {st['openings_bytes']:,} B ({st['codec']}), "
                  f"{st['rows']:,} rows in {st['row_groups']} row groups, "
                  f"{st.get('rows_one', 0):,} of one game; games.parquet {st['games_bytes']:,} B; "
                  f"{st['accepted']:,} games accepted of {st['games_read']:,}")
            if st.get("rows_all"):
                print(f"    pyarrow rewrite (same codec and encodings): all rows "
                      f"{st['pyarrow_bytes_all']:,} B = {st['pyarrow_bytes_all'] / st['openings_bytes']:.2f}"
                      f" × the real file; rows of one game {st['pyarrow_bytes_one']:,} B "
                      f"({fmt(row['per_row_one'], '.1f')} B/row), of 2+ games "
                      f"{st['pyarrow_bytes_many']:,} B ({fmt(row['per_row_many'], '.1f')} B/row)")
        base_cols = load(f"{input_}-base.json")["column_bytes"]
        new_cols = load(f"{input_}-new.json")["column_bytes"]
        print(f"  openings.parquet compressed bytes per column (all row groups)")
        print(f"    {'column':<20}{'base':>14}{'new':>14}")
        for column in list(dict.fromkeys([*base_cols, *new_cols])):
            print(f"    {column:<20}{fmt(base_cols.get(column)):>14}{fmt(new_cols.get(column)):>14}")

    explore = {}
    if "random" in times:
        pick_ = load("explore-pick.json")
        for name in ("explore-start", "explore-one-game"):
            if name in times["random"]:
                explore[name] = (med("random", name, 0), len(times["random"][name]))
        if explore:
            print(f"\nexplore on NEW's random import (median of {explore['explore-start'][1]} runs):")
            print(f"  start position: {explore['explore-start'][0]:.3f} s")
            print(f"  after {' '.join(pick_['san'])} (game {pick_['game_id']}, one game; "
                  f"{pick_['epd']}): {explore['explore-one-game'][0]:.3f} s")
            for name in ("explore-start", "explore-one-game"):
                text = open(os.path.join(stats_dir, name + ".txt")).read().splitlines()
                print(f"  {name} printed:")
                for line in text[:8]:
                    print(f"    {line}")

    # The markdown table for docs/performance.md.
    today = datetime.date.today().isoformat()
    print(f"\nMeasured on {today} (commit {commit}), `benches/tree-ab.sh {args}`, medians of "
          f"{runs} interleaved runs, BASE `{base}`, NEW `{new}`:\n")
    print("| input | build | wall s | CPU s | CPU s `--opening-plies 0` | CPU ÷ plies 0 "
          "| × floor games/s | peak RSS MiB (max) | openings.parquet B | rows | rows of one game "
          "| B/game | B/row of one game | B/row of 2+ | games.parquet B |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
          "| ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['input']} | {r['who']} | {r['wall']:.2f} | {r['cpu']:.1f} | {fmt(r['cpu0'], '.1f')} "
              f"| {fmt(r['cpu_ratio'], '.2f')} | {fmt(r['floor'], '.3f')} | {r['rss']:,.0f} "
              f"| {r['openings_bytes']:,} | {r['rows']:,} | {r.get('rows_one', 0):,} "
              f"| {fmt(r['per_game'], '.0f')} | {fmt(r['per_row_one'], '.1f')} "
              f"| {fmt(r['per_row_many'], '.1f')} | {r['games_bytes']:,} |")
    print("\nB/game: openings.parquet bytes ÷ games accepted. B/row: pyarrow files of those rows "
          "alone, same codec and encodings as the real file, ÷ their rows.")
    if explore:
        print(f"\n`explore` on NEW's random import ({load('random-new.json')['accepted']:,} games), "
              f"median of {explore['explore-start'][1]}: start position "
              f"{explore['explore-start'][0]:.3f} s; a position after 8 plies reached by one game "
              f"{explore['explore-one-game'][0]:.3f} s.")
    print("\nProjected openings.parquet:")
    for r in rows:
        if r["per_game"]:
            print(f"- {r['input']}, {r['who']}: {r['per_game']:.0f} B/game × 90 M games (a lichess "
                  f"month) = {r['per_game'] * 90e6 / 1e9:,.1f} GB; × 7 billion (all lichess) = "
                  f"{r['per_game'] * 7e9 / 1e12:,.2f} TB")


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "stats":
        stats(sys.argv[2], sys.argv[3])
    elif command == "pick":
        pick(sys.argv[2], sys.argv[3])
    elif command == "report":
        report(*sys.argv[2:9])
    else:
        sys.exit(__doc__)
