"""Reads pgnlake's tables with two outside Parquet readers, for the tests.

Usage:
  parquet_readers.py schema DIR
      Prints one line per column of every DIR/*.parquet as read by pyarrow:
      `table<TAB>column<TAB>type`, the type in the README's words (u64, i32,
      f64, bool, string, list<struct<name: string, value: string>>).
  parquet_readers.py duckdb DIR STATEMENTS.json
      STATEMENTS.json is a list of {"id": ..., "sql": ...}. Creates a DuckDB
      view per table (`CREATE VIEW games AS SELECT * FROM
      read_parquet('DIR/games.parquet')`), runs each statement and prints
      one JSON object: id -> {"columns": [...], "rows": [[...], ...]}.
  parquet_readers.py pyarrow DIR TABLE COLUMN...
      Prints the named columns of a table as read by pyarrow, as JSON rows
      in file order.
  parquet_readers.py codecs DIR
      Prints one line per Parquet file under DIR (its path relative to DIR,
      sorted): `path<TAB>codecs`, the codecs of all its column chunks as
      pyarrow reports them, distinct and sorted, joined by `,`.
  parquet_readers.py encodings DIR
      Prints one line per column of every DIR/*.parquet:
      `table<TAB>column<TAB>encodings`, the encodings of its column chunks
      in all row groups, distinct and sorted, joined by `,`.
"""

import datetime
import decimal
import json
import pathlib
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

WORDS = {
    pa.uint8(): "u8", pa.uint16(): "u16", pa.uint32(): "u32", pa.uint64(): "u64",
    pa.int8(): "i8", pa.int16(): "i16", pa.int32(): "i32", pa.int64(): "i64",
    pa.float32(): "f32", pa.float64(): "f64", pa.bool_(): "bool",
}


def words(t):
    if t in WORDS:
        return WORDS[t]
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "string"
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t):
        return f"list<{words(t.value_type)}>"
    if pa.types.is_date32(t):
        return "date"
    if pa.types.is_timestamp(t):
        return f"timestamp<{t.unit}, {t.tz}>"
    if pa.types.is_struct(t):
        fields = ", ".join(f"{t.field(i).name}: {words(t.field(i).type)}" for i in range(t.num_fields))
        return f"struct<{fields}>"
    return str(t)


def plain(value):
    """JSON-ready: DuckDB's decimals become floats; lists and dicts recurse."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def tables(folder):
    return sorted(p for p in pathlib.Path(folder).glob("*.parquet") if not p.name.startswith("."))


def schema(folder):
    for path in tables(folder):
        for field in pq.read_schema(path):
            print(f"{path.stem}\t{field.name}\t{words(field.type)}")


def run_duckdb(folder, statements_file):
    con = duckdb.connect()
    for path in tables(folder):
        literal = str(path).replace("'", "''")
        con.execute(f'CREATE VIEW "{path.stem}" AS SELECT * FROM read_parquet(\'{literal}\')')
    results = {}
    for item in json.loads(pathlib.Path(statements_file).read_text()):
        relation = con.sql(item["sql"])
        results[item["id"]] = {
            "columns": list(relation.columns),
            "rows": [plain(list(row)) for row in relation.fetchall()],
        }
    print(json.dumps(results))


def run_pyarrow(folder, table, columns):
    data = pq.read_table(pathlib.Path(folder) / f"{table}.parquet", columns=columns)
    print(json.dumps([plain([row[c] for c in columns]) for row in data.to_pylist()]))


def codecs(folder):
    root = pathlib.Path(folder)
    for path in sorted(root.rglob("*.parquet")):
        meta = pq.ParquetFile(path).metadata
        found = {meta.row_group(g).column(c).compression
                 for g in range(meta.num_row_groups) for c in range(meta.num_columns)}
        print(f"{path.relative_to(root)}\t{','.join(sorted(found))}")


def encodings(folder):
    for path in sorted(pathlib.Path(folder).glob("*.parquet")):
        meta = pq.ParquetFile(path).metadata
        for c in range(meta.num_columns):
            found = {e for g in range(meta.num_row_groups)
                     for e in meta.row_group(g).column(c).encodings}
            name = meta.row_group(0).column(c).path_in_schema if meta.num_row_groups else str(c)
            print(f"{path.stem}\t{name}\t{','.join(sorted(found))}")


def main():
    command, folder, *rest = sys.argv[1:]
    if command == "schema":
        schema(folder)
    elif command == "duckdb":
        run_duckdb(folder, rest[0])
    elif command == "pyarrow":
        run_pyarrow(folder, rest[0], rest[1:])
    elif command == "codecs":
        codecs(folder)
    elif command == "encodings":
        encodings(folder)
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
