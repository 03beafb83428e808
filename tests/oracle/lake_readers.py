"""Reads a pgnlake lake the way outside engines do, for the tests.

Usage:
  lake_readers.py LAKE ENGINE...
      ENGINE: duckdb, polars, pyarrow or spark. For each engine, reads the lake's
      `games` and `openings` tables through Hive partitioning (the folders
      `import=NAME`) and prints one line per (engine, table, import):
      `ENGINE<TAB>TABLE<TAB>IMPORT<TAB>ROWS<TAB>SUM`, where SUM is the sum of
      `plies` for games and of `games` for openings.
"""

import pathlib
import sys

TABLES = {"games": "plies", "openings": "games"}


def duckdb_rows(lake):
    import duckdb

    for table, column in TABLES.items():
        glob = str(pathlib.Path(lake) / table / "*" / "*.parquet")
        rows = duckdb.sql(
            f"SELECT import, count(*), sum({column}) FROM read_parquet('{glob}', hive_partitioning = true) "
            "GROUP BY import ORDER BY import"
        ).fetchall()
        for name, count, total in rows:
            yield table, name, count, total


def polars_rows(lake):
    import polars as pl

    for table, column in TABLES.items():
        glob = str(pathlib.Path(lake) / table / "*" / "*.parquet")
        frame = (
            pl.scan_parquet(glob, hive_partitioning=True)
            .group_by("import")
            .agg(pl.len(), pl.col(column).sum())
            .sort("import")
            .collect()
        )
        for name, count, total in frame.iter_rows():
            yield table, name, count, total


def pyarrow_rows(lake):
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    for table, column in TABLES.items():
        dataset = ds.dataset(str(pathlib.Path(lake) / table), format="parquet", partitioning="hive")
        names = sorted(set(dataset.to_table(columns=["import"]).column("import").to_pylist()))
        for name in names:
            part = dataset.to_table(columns=[column], filter=ds.field("import") == name)
            yield table, name, part.num_rows, pc.sum(part.column(column)).as_py()


def spark_rows(lake):
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("pgnlake-lake-oracle")
             .config("spark.ui.enabled", "false")
             .config("spark.driver.host", "127.0.0.1")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for table, column in TABLES.items():
        frame = spark.read.parquet(str(pathlib.Path(lake) / table))
        frame.createOrReplaceTempView(table)
        rows = spark.sql(
            f"SELECT import, count(*), sum({column}) FROM {table} GROUP BY import ORDER BY import"
        ).collect()
        for name, count, total in rows:
            yield table, name, count, total
    spark.stop()


READERS = {
    "duckdb": duckdb_rows,
    "polars": polars_rows,
    "pyarrow": pyarrow_rows,
    "spark": spark_rows,
}


def main():
    lake = sys.argv[1]
    for engine in sys.argv[2:]:
        for table, name, count, total in READERS[engine](lake):
            print(f"{engine}\t{table}\t{name}\t{count}\t{total}")


if __name__ == "__main__":
    main()
