"""pgnlake on Apache Spark: one archive imported as N shards, merged with Spark SQL.

    spark-submit [--master ...] [--files /path/to/pgnlake] spark/pgnlake_job.py \
        (--out OUT | --into LAKE --name NAME [--replace] [--out OUT]) \
        [--shards N | --shard-bytes BYTES] [--pgnlake PATH] \
        [--opening-min-games N] [--opening-plies N] [--opening-period P] \
        [--piece-values V] [--moves] [--repair] [--compression CODEC] \
        INPUT...

Each Spark task runs `pgnlake import INPUT... --shard K/N` (the binary decides
which games are in shard K, the same way on every executor), then publishes
its tables under OUT/_shards/TABLE/shard=K/ (a retried or speculative task
replaces its own shard only). The driver then merges with Spark SQL:

- games and rejects (and moves, with --moves): every shard's rows, `game_id`
  rebased by the games read in the shards before it (from their summaries),
  in `game_id` order (moves: `game_id`, `ply`);
- openings, opening_lines, results, material, endgames: the counts summed per
  key (SUM ... GROUP BY), minima and maxima taken, averages recomputed from
  the sums, each column as the binary declares it (`pgnlake schema --format
  json`), `--opening-min-games` applied after the sums, in the order
  `pgnlake import` writes them;
- openings' games: game_id, top_game_id, first_game_id and last_game_id
  rebased as the games' before the sums; `ply` and `game_id` the least
  (ply, game_id) of the rows summed (the witness game), the top game the
  greatest (top_game_elo_sum, top_game_id), first_game_id the least id
  (null when it is the witness) and last_game_id the greatest, a row of
  one game offering its own game (to the top game when it has both
  ratings); top, first and last game kept on rows of two games or more
  only;
- openings' spelling (epd, move_san, next_position_key), null on a row of
  one game: a row of two games or more keeps its parts' spelling (any
  part's: the same text, the key's position); one whose parts were all
  rows of one game is spelled by a UDF on the executors, replaying its
  witness game's first `ply` moves (the start of the merged games table's
  `moves_uci`)
  with python-chess: THE EXECUTORS' PYTHON NEEDS python-chess (`pip
  install chess`; run with `python ... --master local[N]`, the executors
  run the driver's Python);
- summary.json: the shards' counts added up, each input once.

`--compression` (zstd, zstd:LEVEL, none; default zstd:1, as `pgnlake
import`) is the codec of the final tables' pages and of the shards' own.
Not lz4: Spark's Parquet reader (parquet-java before the fix of
apache/parquet-java#3478) fails on LZ4_RAW pages over 8 KiB, its own
included.

The final tables are Parquet folders OUT/TABLE/ (part files in order) with
the schema `pgnlake import` writes; they equal `pgnlake merge` of the shards
and a single-machine import of the same inputs (CI checks it).

With --into LAKE --name NAME the result becomes the import NAME of a lake
(docs/lake.md): the driver runs `pgnlake lake LAKE --add OUT --name NAME`,
which commits it atomically as `import --into` does; OUT defaults to a
folder inside the lake, removed once added (an --out given is kept).

INPUT paths must be readable at the same path on every executor (a shared
file system, or an object store mounted as one); they are written to the
`source` column as given, so give them as a single import would.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
import zlib

# The tables of an import without --moves; their columns come from the
# binary (`pgnlake schema --format json`).
TABLES = ["games", "rejects", "openings", "opening_lines", "results", "material", "endgames"]

# The orders of pgnlake's enumerations (src/replay/variant.rs VariantName::ALL,
# src/pgn/time_control.rs TimeClass::ALL,
# src/replay/mod.rs EndState::ALL, src/replay/draw.rs DrawReason::ALL, and the
# declared results of src/stats/outcomes.rs RESULTS): `results` is sorted by
# them. CI compares this job's tables with pgnlake's, so a change shows there.
VARIANTS = [
    "standard",
    "chess960",
    "crazyhouse",
    "atomic",
    "antichess",
    "king_of_the_hill",
    "three_check",
    "horde",
    "racing_kings",
]
TIME_CLASSES = ["ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence", "unknown"]
DECLARED = ["1-0", "0-1", "1/2-1/2", "*"]
END_STATES = [
    "checkmate",
    "stalemate",
    "insufficient_material",
    "dead_position",
    "fivefold_repetition",
    "seventyfive_moves",
    "none",
    "variant_win",
    "variant_loss",
    "variant_draw",
]
DRAW_REASONS = [
    "stalemate",
    "insufficient_material",
    "dead_position",
    "fivefold_repetition",
    "seventyfive_moves",
    "threefold_repetition",
    "fifty_moves",
    "perpetual_check",
    "agreement_or_other",
    "variant_draw",
]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", nargs="+", help="PGN files or folders (as executors see them)")
    parser.add_argument("--out", help="output folder (shared by driver and executors)")
    parser.add_argument("--into", help="add the result to this lake as the import --name")
    parser.add_argument("--name", help="the import's name in the lake (with --into)")
    parser.add_argument("--replace", action="store_true",
                        help="replace the lake's import of the same name (with --into)")
    parser.add_argument("--pgnlake", default="pgnlake",
                        help="the binary: a path on the executors, or the name of a file shipped "
                             "with --files (default: pgnlake)")
    parser.add_argument("--shards", type=int, help="number of shards (default: input bytes / --shard-bytes)")
    parser.add_argument("--shard-bytes", type=int, default=1 << 30,
                        help="input bytes per shard when --shards is not given (default 1 GiB)")
    parser.add_argument("--opening-min-games", type=int, default=1)
    parser.add_argument("--opening-plies", type=int)
    parser.add_argument("--opening-period", choices=["month", "year", "none"])
    parser.add_argument("--piece-values")
    parser.add_argument("--moves", action="store_true",
                        help="also write the moves table (pgnlake import --moves)")
    parser.add_argument("--repair", action="store_true",
                        help="read rejected games again by clean --repair's rules (pgnlake import --repair)")
    parser.add_argument("--memory-limit", help="per shard, as pgnlake import takes it")
    parser.add_argument("--compression", type=spark_codec, default=spark_codec("zstd:1"),
                        help="zstd, zstd:LEVEL (1-22) or none, as pgnlake import takes it (not lz4)")
    parser.add_argument("--threads", type=int, help="pgnlake threads per task (default: spark.task.cpus)")
    parser.add_argument("--master", help="Spark master when not run by spark-submit (e.g. local[2])")
    args = parser.parse_args(argv)
    if args.into is None and args.out is None:
        parser.error("give --out OUT or --into LAKE --name NAME")
    if (args.into is None) != (args.name is None):
        parser.error("--into and --name go together")
    if args.replace and args.into is None:
        parser.error("--replace needs --into")
    return args


def input_bytes(paths):
    total = 0
    for path in paths:
        if os.path.isdir(path):
            for root, _, files in os.walk(path):
                total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
        elif os.path.exists(path):
            total += os.path.getsize(path)
    return total


def binary(name):
    """The pgnlake binary on this executor: shipped with --files, or a path."""
    from pyspark import SparkFiles

    try:
        shipped = SparkFiles.get(os.path.basename(name))
    except Exception:  # noqa: BLE001 - no SparkContext files on this worker
        shipped = None
    if shipped and os.path.isfile(shipped):
        os.chmod(shipped, 0o755)
        return shipped
    return shutil.which(name) or name


def tables_of(moves):
    """The tables a run writes: moves.parquet with --moves only."""
    return TABLES + (["moves"] if moves else [])


def publish(tmp_out, base, index, tables):
    """Moves a finished shard's tables under base/TABLE/shard=K/ (replacing an
    earlier attempt's), each with a rename on the same file system."""
    for table in tables + ["summary"]:
        name = "summary.json" if table == "summary" else f"{table}.parquet"
        folder = os.path.join(base, table)
        os.makedirs(folder, exist_ok=True)
        attempt = os.path.join(folder, f".shard={index}.{uuid.uuid4().hex}")
        os.makedirs(attempt)
        shutil.copyfile(os.path.join(tmp_out, name), os.path.join(attempt, name))
        final = os.path.join(folder, f"shard={index}")
        if os.path.exists(final):
            old = os.path.join(folder, f".old-shard={index}.{uuid.uuid4().hex}")
            os.rename(final, old)
            shutil.rmtree(old, ignore_errors=True)
        os.rename(attempt, final)


def run_shard(index, count, options):
    """One Spark task: import shard index/count, publish it, return its summary."""
    with tempfile.TemporaryDirectory(prefix=f"pgnlake-shard{index}-") as tmp:
        out = os.path.join(tmp, "out")
        command = [binary(options["pgnlake"]), "import", *options["inputs"],
                   "--shard", f"{index}/{count}", "--out", out, "--quiet",
                   "--threads", str(options["threads"]), *options["import_args"]]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        # 1: an input was cut short (its games before the cut are in the
        # tables, as in a single run); anything else is a failure to retry.
        if done.returncode not in (0, 1):
            raise RuntimeError(f"shard {index}/{count}: {' '.join(command)}: exit "
                               f"{done.returncode}: {done.stderr.strip()}")
        publish(out, options["shards_dir"], index, options["tables"])
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
            return json.load(f)


def move_order(uci):
    """pgnlake's order of a position's moves: shakmaty's packed UCI move
    (from | to << 6 | promotion << 12), as a Spark column expression."""
    from pyspark.sql import functions as F

    def square(at):
        file = F.ascii(F.substring(uci, at, 1)) - F.lit(ord("a"))
        rank = F.substring(uci, at + 1, 1).cast("int") - F.lit(1)
        return file + rank * 8

    promotion = (F.when(F.substring(uci, 5, 1) == "n", 2)
                 .when(F.substring(uci, 5, 1) == "b", 3)
                 .when(F.substring(uci, 5, 1) == "r", 4)
                 .when(F.substring(uci, 5, 1) == "q", 5)
                 .otherwise(0))
    return square(1) + square(3) * 64 + promotion * 4096


def place_in(names, column, nullable):
    """A name's place in one of pgnlake's enumerations (null first when nullable)."""
    from pyspark.sql import functions as F

    expression = F.lit(None)
    for i, name in enumerate(names):
        expression = F.when(column == name, i + (1 if nullable else 0)).otherwise(expression)
    return F.when(column.isNull(), 0).otherwise(expression) if nullable else expression


def termination_hash(text):
    """FNV-1a 64 of the text, | 1 (0 for null), as pgnlake keys `termination`."""
    if text is None:
        return 0
    h = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return (h | 1) - (1 << 64) if (h | 1) >= (1 << 63) else (h | 1)


# The merge roles `pgnlake schema --format json` declares that this job
# knows; an unknown one stops it rather than merge a column wrongly.
ROLES = {"row", "key", "same", "min", "max", "sum", "derived", "witness", "top", "earliest", "latest",
         "spelled"}
# What the game roles are made of (openings): the witness is the game of
# the least (WITNESS_ORDER, id); the top game the greatest (TOP_SUM, TOP_ID)
# of the games with both ratings; the earliest the least id, the latest the
# greatest. A row of one game holds its game in `game_id` alone and offers
# it to top, earliest and latest.
GAME_ID = "game_id"
WITNESS_ORDER = "ply"
TOP_SUM, TOP_ID = "top_game_elo_sum", "top_game_id"


def game_id_columns(table):
    """The columns of an aggregate table that hold game ids (rebased like
    games.game_id): its witness, top, earliest and latest games."""
    return [c["name"] for c in table["columns"]
            if c["merge"] in ("witness", "top", "earliest", "latest") and c["name"].endswith(GAME_ID)]


def rebased(frame, table, shifts):
    """A table's shard rows, their game ids shifted by the games read in
    the shards before theirs (`shifts`: shard, id_shift)."""
    from pyspark.sql import functions as F

    ids = [GAME_ID] if table["name"] in ("games", "rejects", "moves") else game_id_columns(table)
    if not ids:
        return frame
    frame = frame.join(F.broadcast(shifts), "shard")
    for name in ids:
        frame = frame.withColumn(name, F.col(name) + F.col("id_shift"))
    return frame.drop("id_shift")


def summed_by_key(frame, table, derived):
    """An aggregate table's shard rows added up as its declaration says:
    `sum` added, `min`/`max` (and `same`) taken so, `derived` recomputed by
    the formulas given; and the games of an opening tree row: `witness` the
    game of the least (ply, game_id), `top` the greatest (elo sum, id) of
    the games with both ratings, `earliest` the least id and `latest` the
    greatest (a row of one game offering its own game to each), kept on
    rows of two games or more only;
    `spelled` columns the parts' spelling (the same text in every part that
    has one: it is the key's position), null on a row of one game. A row of
    two games or more whose parts had no spelling keeps it null here: see
    `spelled_tree`."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    columns = table["columns"]

    def named(merge):
        return [c["name"] for c in columns if c["merge"] == merge]

    roles = {c["merge"] for c in columns}
    if roles - ROLES:
        raise SystemExit(f"pgnlake on Spark: {table['name']}: no merge for roles {sorted(roles - ROLES)}")
    unknown = sorted(set(named("derived")) - set(derived))
    if unknown:
        raise SystemExit(f"pgnlake on Spark: {table['name']}: no formula for derived columns {unknown}")
    games = F.col("games")
    one, many = games == 1, games >= 2
    types = {field.name: field.dataType for field in frame.schema.fields}
    # A part's spelling: an empty text is none (no EPD or SAN is empty).
    spelling = [F.min(F.nullif(F.col(c), F.lit("")) if isinstance(types[c], T.StringType) else F.col(c))
                .alias(c) for c in named("spelled")]
    aggregates = ([F.min(c).alias(c) for c in named("same") + named("min")] + spelling
                  + [F.max(c).alias(c) for c in named("max")]
                  + [F.sum(c).alias(c) for c in named("sum")])
    after = {}
    for name in named("witness"):
        if name != GAME_ID:
            raise SystemExit(f"pgnlake on Spark: {table['name']}: witness column {name}, not {GAME_ID}")
        witness = F.min(F.struct(F.col(WITNESS_ORDER).alias("order"), F.col(name).alias("id")))
        aggregates.append(witness.getField("id").alias(name))
    if named("top"):
        if sorted(named("top")) != sorted([TOP_SUM, TOP_ID]):
            raise SystemExit(f"pgnlake on Spark: {table['name']}: top columns {named('top')}, "
                             f"not {[TOP_SUM, TOP_ID]}")
        own = F.when(one & (F.col("white_elo_count") == 1) & (F.col("black_elo_count") == 1),
                     F.struct((F.col("white_elo_sum") + F.col("black_elo_sum")).alias("sum"),
                              F.col(GAME_ID).alias("id")))
        theirs = F.when(~one & F.col(TOP_SUM).isNotNull() & F.col(TOP_ID).isNotNull(),
                        F.struct(F.col(TOP_SUM).alias("sum"), F.col(TOP_ID).alias("id")))
        aggregates.append(F.max(F.coalesce(own, theirs)).alias("_top"))
        after[TOP_SUM] = F.col("_top").getField("sum")
        after[TOP_ID] = F.col("_top").getField("id")
    for name in named("earliest"):
        # A part without a first game has its witness first (and a row of
        # one game its game); the sum names it only when it is not the
        # sum's witness.
        aggregates.append(F.min(F.coalesce(F.col(name), F.col(GAME_ID))).alias(name))
        after[name] = F.when(F.col(name) != F.col(GAME_ID), F.col(name))
    for name in named("latest"):
        aggregates.append(F.max(F.when(one, F.col(GAME_ID)).otherwise(F.col(name))).alias(name))
        after[name] = F.col(name)
    for name in named("spelled"):
        after[name] = F.col(name)
    summed = frame.groupBy(*named("key")).agg(*aggregates)
    # Named by a row of two games or more only.
    for name, value in after.items():
        summed = summed.withColumn(name, F.when(many, value).cast(types[name]))
    for name in named("derived"):
        summed = summed.withColumn(name, derived[name])
    return summed.select(*[c["name"] for c in columns])


def spell(moves_uci, ply, move_uci, position_key):
    """A tree row's spelling from its witness game's moves (`moves_uci`: UCI,
    by spaces): the position after `ply` of them (which must have the row's
    key) as EPD, the move in SAN with +/#, and the next position's key; as
    pgnlake spells it (src/stats/tree_row/board.rs). Needs python-chess."""
    import chess
    import chess.polyglot

    class LegalEnPassant(chess.polyglot.ZobristHasher):
        # pgnlake's key (shakmaty, EnPassantMode::Legal) hashes the
        # en-passant file only when the capture is legal; python-chess's
        # Polyglot hash when a pawn stands by.
        def hash_ep_square(self, board):
            if board.has_legal_en_passant():
                return self.array[772 + chess.square_file(board.ep_square)]
            return 0

    def key(board):
        h = LegalEnPassant(chess.polyglot.POLYGLOT_RANDOM_ARRAY)(board)
        return h - (1 << 64) if h >= 1 << 63 else h

    moves = (moves_uci or "").split()
    if len(moves) < ply:
        raise ValueError(f"spelling the opening tree: the witness game's first moves "
                         f"({len(moves)}) do not reach ply {ply}")
    board = chess.Board()
    for uci in moves[:ply]:
        board.push_uci(uci)
    if key(board) != position_key:
        raise ValueError(f"spelling the opening tree: the witness game after {ply} plies "
                         f"({board.epd()}) is not the row's position {position_key}")
    move = board.parse_uci(move_uci)
    epd, san = board.epd(), board.san(move)
    board.push(move)
    return epd, san, key(board)


def spelled_tree(rows, games):
    """The tree's rows of two games or more with no spelling yet (their
    parts were rows of one game) spelled from their witness game's first
    moves (the merged games' `moves_uci`, by rebased game_id), by a UDF
    on the executors; the other rows as they are."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    columns = rows.columns
    needs = (F.col("games") >= 2) & (F.col("epd").isNull() | F.col("move_san").isNull()
                                     | F.col("next_position_key").isNull())
    spelling = T.StructType([T.StructField("epd", T.StringType()),
                             T.StructField("move_san", T.StringType()),
                             T.StructField("next_position_key", T.LongType())])
    speller = F.udf(spell, spelling)
    todo = (rows.where(needs)
            .join(games.select(GAME_ID, "moves_uci"), GAME_ID, "left")
            .withColumn("_spelled", speller(F.col("moves_uci"), F.col("ply"), F.col("move_uci"),
                                            F.col("position_key"))))
    for name in ["epd", "move_san", "next_position_key"]:
        todo = todo.withColumn(name, F.col("_spelled").getField(name))
    return rows.where(~needs).unionByName(todo.select(*columns))


def declared_schema(pgnlake):
    """Every table's columns as the binary declares them (`pgnlake schema`)."""
    text = subprocess.run([binary(pgnlake), "schema", "--format", "json"], check=True,
                          capture_output=True, text=True).stdout
    return {table["name"]: table for table in json.loads(text)}


def spark_codec(text):
    """`--compression` as pgnlake takes it -> (the text for the shards, Spark's
    codec name, the zstd level or None)."""
    text = text.strip().lower()
    codecs = {"zstd": ("zstd", 1), "none": ("uncompressed", None)}
    if text == "lz4":
        raise argparse.ArgumentTypeError(
            "lz4: Spark's Parquet reader fails on LZ4_RAW pages over 8 KiB "
            "(apache/parquet-java#3478); use zstd, zstd:LEVEL or none")
    if text in codecs:
        return (text, *codecs[text])
    level = text.removeprefix("zstd:")
    if level != text and level.isdigit() and 1 <= int(level) <= 22:
        return (text, "zstd", int(level))
    raise argparse.ArgumentTypeError(f"`{text}`: expected zstd, zstd:LEVEL (1-22) or none")


def merge(spark, shards_dir, summaries, out, min_games, tables, schema, compression):
    from pyspark import StorageLevel
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    def shard_table(name):
        return spark.read.parquet(os.path.join(shards_dir, name))

    _, codec, level = compression

    def write(frame, name):
        writer = frame.write.mode("overwrite").option("compression", codec)
        if level is not None:
            writer = writer.option("parquet.compression.codec.zstd.level", str(level))
        writer.parquet(os.path.join(out, name))

    # games, rejects (and moves): game_id rebased by the games read in
    # earlier shards.
    first_ids, total = [], 0
    for summary in summaries:
        first_ids.append((summary["shard"]["index"], total))
        total += summary["games_read"]
    shifts = spark.createDataFrame(first_ids, "shard INT, id_shift BIGINT")
    for name in [t for t in ["games", "rejects", "moves"] if t in tables]:
        columns = [c["name"] for c in schema[name]["columns"]]
        order = ["game_id", "ply"] if name == "moves" else ["game_id"]
        write(rebased(shard_table(name), schema[name], shifts).select(*columns).orderBy(*order), name)

    # The aggregates, as pgnlake declares them (`pgnlake schema --format
    # json`): summed per key columns, `min`/`max` columns taken so, `same`
    # columns (a function of the key) kept, `derived` ratios recomputed from
    # the sums by the formulas below; the tree's games and spelling as
    # summed_by_key and spelled_tree say.
    done = F.col("white_wins") + F.col("draws") + F.col("black_wins")
    ratio = lambda num, den: F.when(den > 0, num.cast("double") / den.cast("double"))  # noqa: E731
    derived = {
        "white_score": ratio(F.col("white_wins") + F.col("draws") / F.lit(2.0), done),
        "draw_rate": ratio(F.col("draws"), done),
        "avg_plies": ratio(F.col("plies_sum"), F.col("games")),
        "avg_elo_diff": ratio(F.col("elo_diff_sum"), F.col("elo_diff_count")),
        "avg_plies_to_end": (F.col("plies_to_end_sum").cast("double")
                             / F.greatest(F.col("games"), F.lit(1)).cast("double")),
    }

    def aggregate(name):
        # Game ids (the tree's witness, top and latest games) rebased first.
        return summed_by_key(rebased(shard_table(name), schema[name], shifts), schema[name], derived)

    # openings: rows of fewer than min_games games out after the sums; the
    # rows kept of two games or more that no part spelled, spelled from
    # their witness game's first moves in the merged games table.
    summed = aggregate("openings").persist(StorageLevel.MEMORY_AND_DISK)
    kept = spelled_tree(summed.where(F.col("games") >= min_games),
                        spark.read.parquet(os.path.join(out, "games")))
    # Within a (position, move) or an opening, rows in pgnlake's order of
    # the dimensions: speed as listed, then band and month, nulls first.
    dimensions = [place_in(TIME_CLASSES, F.col("time_class"), False),
                  F.col("rating_band").asc_nulls_first(),
                  F.col("month").asc_nulls_first()]
    write(kept.orderBy("position_key", move_order(F.col("move_uci")), *dimensions), "openings")

    write(aggregate("opening_lines").orderBy("eco", "opening_name", *dimensions), "opening_lines")

    # results: in pgnlake's key order.
    results = aggregate("results")
    hashed = F.udf(termination_hash, T.LongType())
    order = [place_in(VARIANTS, F.col("variant_name"), False),
             F.col("year").asc_nulls_first(),
             place_in(TIME_CLASSES, F.col("time_class"), False),
             F.col("rating_diff_bucket").asc_nulls_first(),
             place_in(DECLARED, F.col("declared_result"), True),
             place_in(END_STATES, F.col("end_state"), False),
             place_in(DRAW_REASONS, F.col("draw_reason"), True),
             # pgnlake compares the hash as unsigned: flip the sign bit.
             F.when(F.col("termination").isNull(), F.lit(-(1 << 63)))
              .otherwise(hashed(F.col("termination")).bitwiseXOR(F.lit(-(1 << 63))))]
    write(results.orderBy(*order), "results")

    write(aggregate("material").orderBy("checkpoint_ply", "material_diff"), "material")

    endgames = aggregate("endgames")
    write(endgames.orderBy(place_in(VARIANTS, F.col("variant_name"), False),
                           F.col("games").desc(), "endgame_signature"),
          "endgames")

    rows = {name: spark.read.parquet(os.path.join(out, name)).count() for name in tables}
    dropped = summed.count() - rows["openings"]
    summed.unpersist()
    return rows, dropped


def table_digest(folder):
    """A table's content as summary.json records it (`table_digests`): the
    bytes and CRC-32 of its part files read in name order, as `pgnlake lake
    --add` reads them (files starting with . or _ are not parts)."""
    crc, size = 0, 0
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.startswith((".", "_")) or not name.endswith(".parquet") or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                crc = zlib.crc32(chunk, crc)
                size += len(chunk)
    return {"bytes": size, "crc32": f"{crc:08x}"}


def merged_summary(summaries, rows, min_games, dropped):
    """The shards' summaries as one run's (the same fields `pgnlake merge` writes)."""
    first = dict(summaries[0])
    add = lambda field: sum(s.get(field) or 0 for s in summaries)  # noqa: E731

    def add_maps(field):
        # A field no shard has (annotations without --moves) stays null.
        maps = [s[field] for s in summaries if isinstance(s.get(field), dict)]
        if not maps:
            return None
        total = {}
        for m in maps:
            for name, n in m.items():
                total[name] = total.get(name, 0) + n
        return dict(sorted(total.items()))

    inputs = []
    for s in summaries:
        for item in s["inputs"]:
            part = item.get("part") or {}
            last = inputs[-1] if inputs and inputs[-1]["path"] == item["path"] else None
            if last is None:
                inputs.append({k: v for k, v in item.items() if k != "part"})
            else:
                last["games"] += item["games"]
                if part.get("end") is None:
                    last["uncompressed_bytes"] = item["uncompressed_bytes"]
                    last["truncated"] = item["truncated"]
    read, accepted, rejected = add("games_read"), add("accepted"), add("rejected")
    first.pop("shard", None)
    first.update({
        "merged_shards": len(summaries),
        "inputs": inputs,
        "games_read": read, "accepted": accepted, "rejected": rejected,
        "balanced": all(s["balanced"] for s in summaries) and read == accepted + rejected
                    and read == sum(i["games"] for i in inputs),
        "rejected_by_reason": add_maps("rejected_by_reason"),
        "end_states": add_maps("end_states"),
        "result_checks": add_maps("result_checks"),
        "annotations": add_maps("annotations"),
        "unwinnability": add_maps("unwinnability"),
        "repaired": add("repaired"),
        "repairs": add_maps("repairs") or {},
        "elapsed_seconds": add("elapsed_seconds"),
        "tables": {f"{name}.parquet": n for name, n in sorted(rows.items())},
        "truncated_inputs": sum(1 for i in inputs if i.get("truncated")),
    })
    first["options"] = dict(first["options"], inputs=[i["path"] for i in inputs])
    tree = dict(first["opening_tree"])
    tree.update({"min_games": min_games, "rows": rows["openings"] + dropped, "rows_dropped": dropped})
    first["opening_tree"] = tree
    return first


def main(argv=None):
    from pyspark.sql import SparkSession

    args = parse_args(argv)
    builder = SparkSession.builder.appName("pgnlake")
    if args.master:
        builder = builder.master(args.master)
        if args.master.startswith("local"):
            # The local executors run this Python (python-chess's), not
            # whatever `python3` comes first on the PATH.
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = builder.getOrCreate()
    # `utc_timestamp` as pgnlake writes it: Parquet TIMESTAMP(MILLIS, UTC),
    # not Spark's default INT96.
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MILLIS")
    # Into a lake without --out: written inside the lake (a hidden folder,
    # the same file system: the lake hard-links it), removed once added.
    scratch = args.out is None
    out = os.path.abspath(args.out or os.path.join(args.into, f"_spark-{uuid.uuid4().hex}"))
    shards_dir = os.path.join(out, "_shards")
    count = args.shards or max(1, -(-input_bytes(args.inputs) // args.shard_bytes))
    import_args = []
    for flag, value in [("--opening-plies", args.opening_plies), ("--opening-period", args.opening_period),
                        ("--piece-values", args.piece_values), ("--memory-limit", args.memory_limit),
                        ("--compression", args.compression[0])]:
        if value is not None:
            import_args += [flag, str(value)]
    if args.moves:
        import_args.append("--moves")
    if args.repair:
        import_args.append("--repair")
    tables = tables_of(args.moves)
    options = {
        "pgnlake": args.pgnlake,
        # As given: they are the `source` column, as in a single import.
        "inputs": args.inputs,
        "shards_dir": shards_dir,
        "threads": args.threads or int(spark.conf.get("spark.task.cpus", "1")),
        "import_args": import_args,
        "tables": tables,
    }
    summaries = (spark.sparkContext
                 .parallelize(range(1, count + 1), count)
                 .map(lambda k: run_shard(k, count, options))
                 .collect())
    summaries.sort(key=lambda s: s["shard"]["index"])
    schema = declared_schema(args.pgnlake)
    rows, dropped = merge(spark, shards_dir, summaries, out, args.opening_min_games, tables, schema,
                          args.compression)
    summary = merged_summary(summaries, rows, args.opening_min_games, dropped)
    summary["table_digests"] = {f"{name}.parquet": table_digest(os.path.join(out, name))
                                for name in sorted(rows)}
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    print(f"pgnlake on Spark: {count} shards, games read {summary['games_read']} = accepted "
          f"{summary['accepted']} + rejected {summary['rejected']}")
    spark.stop()
    if args.into is not None:
        add_to_lake(args, out, scratch)


def add_to_lake(args, out, scratch):
    """The merged result committed into the lake by pgnlake itself."""
    command = [binary(args.pgnlake), "lake", args.into, "--add", out, "--name", args.name]
    if args.replace:
        command.append("--replace")
    done = subprocess.run(command, check=False)
    if done.returncode != 0:
        raise SystemExit(done.returncode)
    if scratch:
        shutil.rmtree(out, ignore_errors=True)
    print(f"pgnlake on Spark: added to {args.into} as import {args.name}")


if __name__ == "__main__":
    main()
