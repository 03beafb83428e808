//! How the tables' pages are written: `--compression` (import, merge, lake
//! --compact): every codec writes the same rows, the files say which codec
//! they use (as pyarrow reads their metadata), and DuckDB reads them; and
//! each column's value encoding as its table declares it.

use std::path::{Path, PathBuf};

use crate::common::{ok, pgnlake, read_table, run_oracle, sample, table_names, text};
use crate::shard::assert_same_tables;

/// `import sample-data --moves` into `out` with `extra` options.
fn import(out: &Path, extra: &[&str]) {
    let (input, out) = (text(&sample("")), text(out));
    let mut args = vec!["import", &input, "--out", &out, "--moves", "--quiet"];
    args.extend_from_slice(extra);
    ok(pgnlake(&args));
}

/// Every Parquet file under `dir` and its codecs, as pyarrow reports them.
fn codecs(dir: &Path) -> Vec<(String, String)> {
    run_oracle("parquet_readers.py", &["codecs".as_ref(), dir.as_os_str()])
        .iter()
        .filter_map(|line| line.split_once('\t'))
        .map(|(file, codecs)| (file.to_owned(), codecs.to_owned()))
        .collect()
}

fn assert_all_in(dir: &Path, codec: &str, files: usize) {
    let found = codecs(dir);
    assert_eq!(found.len(), files, "{}: {found:?}", dir.display());
    for (file, codecs) in found {
        assert_eq!(codecs, codec, "{file}");
    }
}

/// Rows of every table as DuckDB counts them.
fn duckdb_counts(dir: &Path) -> serde_json::Value {
    let statements: Vec<serde_json::Value> = table_names()
        .map(|t| serde_json::json!({"id": t, "sql": format!("SELECT count(*) FROM {t}")}))
        .collect();
    let file = dir.join("statements.json");
    std::fs::write(&file, serde_json::Value::from(statements).to_string())
        .unwrap_or_else(|e| panic!("{e}"));
    let out = run_oracle(
        "parquet_readers.py",
        &["duckdb".as_ref(), dir.as_os_str(), file.as_os_str()],
    )
    .join("\n");
    std::fs::remove_file(&file).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn every_codec_writes_the_same_rows_and_outside_readers_read_them() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let default = root.path().join("default");
    import(&default, &[]);
    let tables = table_names().count();
    assert_all_in(&default, "ZSTD", tables);
    let counted = duckdb_counts(&default);
    assert_eq!(
        counted["games"]["rows"],
        serde_json::json!([[read_table(&default.join("games.parquet")).height()]])
    );
    // pyarrow says LZ4 for Parquet's LZ4_RAW (the only LZ4 we write).
    for (codec, reported) in [("zstd:9", "ZSTD"), ("lz4", "LZ4"), ("none", "UNCOMPRESSED")] {
        let out = root.path().join(codec.replace(':', "-"));
        import(&out, &["--compression", codec]);
        assert_all_in(&out, reported, tables);
        assert_same_tables(&default, &out, codec);
        assert_eq!(duckdb_counts(&out), counted, "{codec}: DuckDB's counts");
    }
}

#[test]
fn merge_and_compaction_write_in_their_own_codec() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let single = root.path().join("single");
    import(&single, &[]);
    // Shards in one codec, merged in another: the merge is the import.
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            let out = root.path().join(format!("shard-{k}"));
            import(
                &out,
                &["--shard", &format!("{k}/2"), "--compression", "lz4"],
            );
            out
        })
        .collect();
    let merged = root.path().join("merged");
    let (a, b, out) = (text(&shards[0]), text(&shards[1]), text(&merged));
    ok(pgnlake(&[
        "merge",
        &a,
        &b,
        "--out",
        &out,
        "--quiet",
        "--compression",
        "none",
    ]));
    assert_all_in(&merged, "UNCOMPRESSED", table_names().count());
    assert_same_tables(&single, &merged, "merge --compression none");

    let lake = root.path().join("lake");
    let lake_text = text(&lake);
    let input = text(&sample(""));
    ok(pgnlake(&[
        "import",
        &input,
        "--into",
        &lake_text,
        "--name",
        "a",
        "--quiet",
        "--compression",
        "lz4",
    ]));
    ok(pgnlake(&[
        "lake",
        &lake_text,
        "--compact",
        "--compression",
        "zstd:5",
    ]));
    for (file, codecs) in codecs(&lake) {
        let expected = match file.contains("import=_compacted") {
            true => "ZSTD",
            false => "LZ4",
        };
        assert_eq!(codecs, expected, "{file}");
    }
    assert!(
        codecs(&lake)
            .iter()
            .any(|(file, _)| file.contains("import=_compacted")),
        "nothing compacted"
    );
}

/// Regression: polars takes the length of text statistics from the
/// environment; the files must not depend on it.
#[test]
fn the_files_do_not_depend_on_polars_environment() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let plain = root.path().join("plain");
    import(&plain, &[]);
    let other = root.path().join("other");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args([
            "import",
            &text(&sample("")),
            "--out",
            &text(&other),
            "--moves",
            "--quiet",
        ])
        .env("POLARS_PARQUET_BINARY_STATISTICS_TRUNCATE_LEN", "8")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(output.status.success(), "{output:?}");
    for table in table_names() {
        let file = format!("{table}.parquet");
        let read = |dir: &Path| std::fs::read(dir.join(&file)).unwrap_or_default();
        assert!(read(&plain) == read(&other), "{file} differs");
    }
}

/// Each column is written with the value encoding its table declares
/// (`schema::Column::encoding`), as pyarrow reads the files' metadata.
#[test]
fn every_column_is_encoded_as_declared() {
    use pgnlake::sink::schema::{TABLES, ValueEncoding};
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    import(root.path(), &[]);
    let lines = run_oracle(
        "parquet_readers.py",
        &["encodings".as_ref(), root.path().as_os_str()],
    );
    let mut checked = 0;
    for table in TABLES {
        for column in table.columns {
            // A nested column's leaves are `name.list.element....`.
            let leaves: Vec<&str> = lines
                .iter()
                .filter_map(|l| l.strip_prefix(&format!("{}\t{}", table.name, column.name)))
                .filter_map(|rest| rest.strip_prefix('\t').or_else(|| rest.strip_prefix('.')))
                .map(|rest| rest.rsplit('\t').next().unwrap_or_default())
                .collect();
            assert!(
                !leaves.is_empty(),
                "{}.{}: not in {lines:?}",
                table.name,
                column.name
            );
            let found = leaves.join(",");
            let dictionary = found.contains("DICTIONARY");
            match column.encoding {
                ValueEncoding::Delta => {
                    assert!(
                        found.contains("DELTA_BINARY_PACKED"),
                        "{}.{}: {found}",
                        table.name,
                        column.name
                    );
                    assert!(!dictionary, "{}.{}: {found}", table.name, column.name);
                    checked += 1;
                }
                ValueEncoding::Plain => {
                    assert!(!dictionary, "{}.{}: {found}", table.name, column.name);
                    checked += 1;
                }
                ValueEncoding::Chosen => {}
            }
        }
    }
    assert!(checked >= 10, "{checked} declared columns checked");
}
