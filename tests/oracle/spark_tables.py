"""Reads pgnlake's tables with Apache Spark, for the tests.

Usage:
  spark_tables.py SINGLE SPARK_OUT STATEMENTS.json
      SINGLE: the folder of a single-machine `pgnlake import`; SPARK_OUT: the
      output of spark/pgnlake_job.py over the same inputs. Prints one JSON
      object:
      - "schemas": per table, the columns as Spark reads them from each side
        (name and Spark type);
      - "decimals": the columns Spark reads as a decimal from SINGLE (none
        should be: no unsigned 64-bit integers);
      - "rows": per table, each side's rows in file order (part files by
        name), read with pyarrow, and whether they are equal;
      - "sql": each statement of STATEMENTS.json ([{"id", "sql"}]) run by
        Spark SQL over SPARK_OUT's tables: id -> {"columns", "rows"}.
"""

import datetime
import json
import pathlib
import sys

import pyarrow.parquet as pq
from pyspark.sql import Row, SparkSession
from pyspark.sql import types as T

import parquet_readers

TABLES = ["games", "rejects", "openings", "opening_lines", "results", "material", "endgames", "moves"]


def plain(value):
    """As parquet_readers.plain, and Spark's rows (structs) as objects."""
    if isinstance(value, Row):
        return {k: plain(v) for k, v in value.asDict().items()}
    if isinstance(value, (list, tuple)) and not isinstance(value, Row):
        return [plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return parquet_readers.plain(value)


def spark_columns(frame):
    return [[field.name, field.dataType.simpleString()] for field in frame.schema.fields]


def decimal_columns(frame, table):
    return [f"{table}.{f.name}" for f in frame.schema.fields if isinstance(f.dataType, T.DecimalType)]


def file_rows(path):
    """Rows in file order; a folder's part files by name."""
    path = pathlib.Path(path)
    files = [path] if path.is_file() else sorted(
        p for p in path.glob("*.parquet") if not p.name.startswith((".", "_")))
    rows = []
    for file in files:
        rows.extend(plain(list(r.values())) for r in pq.read_table(file).to_pylist())
    return rows


def main():
    single, spark_out, statements = sys.argv[1:4]
    spark = (SparkSession.builder.master("local[2]").appName("pgnlake-oracle")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.host", "127.0.0.1")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    result = {"schemas": {}, "decimals": [], "rows": {}, "sql": {}}
    for table in TABLES:
        ours = spark.read.parquet(str(pathlib.Path(single) / f"{table}.parquet"))
        theirs = spark.read.parquet(str(pathlib.Path(spark_out) / table))
        theirs.createOrReplaceTempView(table)
        result["schemas"][table] = {"single": spark_columns(ours), "spark": spark_columns(theirs)}
        result["decimals"] += decimal_columns(ours, table)
        a = file_rows(pathlib.Path(single) / f"{table}.parquet")
        b = file_rows(pathlib.Path(spark_out) / table)
        result["rows"][table] = {"single": len(a), "spark": len(b), "equal": a == b,
                                 "first_difference": next(
                                     ([i, x, y] for i, (x, y) in enumerate(zip(a, b)) if x != y), None)}
    for item in json.loads(pathlib.Path(statements).read_text()):
        frame = spark.sql(item["sql"])
        result["sql"][item["id"]] = {
            "columns": frame.columns,
            "rows": [plain(list(row)) for row in frame.collect()],
        }
    spark.stop()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
