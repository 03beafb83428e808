//! `pgnlake query` end to end: every recipe in `queries/` against committed
//! snapshots, the output formats and errors, and the proof that outside
//! readers (pyarrow, DuckDB) read the tables as documented and answer the
//! portable recipes with the same rows.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use common::{
    import_moves, pgnlake, recipes, run_oracle, stdout_of as stdout, text, usage_error as error,
};
use pgnlake::read::query::{engine, split_statements};
use serde_json::Value;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The sample-data import, made once for all tests of this file. It is run
/// on the relative path `sample-data` (tests start in the package folder), so
/// `source` columns and snapshots do not depend on where the clone is.
fn data() -> &'static Path {
    static RUN: OnceLock<common::Imported> = OnceLock::new();
    RUN.get_or_init(|| import_moves(&[PathBuf::from("sample-data")], 2))
        .dir
        .path()
}

fn query(args: &[&str]) -> Output {
    let data = data().to_string_lossy().into_owned();
    let mut all = vec!["query", "--data", data.as_str()];
    all.extend_from_slice(args);
    pgnlake(&all)
}

fn recipe(name: &str) -> String {
    std::fs::read_to_string(manifest().join("queries").join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_recipe_matches_its_snapshot() {
    let names = recipes();
    assert!(names.len() >= 18, "{names:?}");
    for name in &names {
        let output = stdout(&query(&[&format!("queries/{name}")]));
        insta::assert_snapshot!(name.trim_end_matches(".sql"), output);
    }
}

#[test]
fn the_questions_users_ask_first_are_answered() {
    for name in [
        "games_and_rejects.sql",
        "results_by_end_state.sql",
        "result_contradictions.sql",
        "longest_games.sql",
        "checkmate_plies.sql",
        "top_players.sql",
    ] {
        assert!(recipes().contains(&name.to_owned()), "{name}");
    }
    // The totals agree with the import's own count (116 read).
    let totals = stdout(&query(&[
        "--format",
        "csv",
        "-e",
        "SELECT 'accepted' AS status, COUNT(*) AS games FROM games \
         UNION ALL SELECT 'rejected' AS status, COUNT(*) AS games FROM rejects",
    ]));
    assert_eq!(totals, "status,games\naccepted,113\nrejected,31\n");
}

#[test]
fn table_format_cuts_at_the_limit_and_says_so() {
    let output = stdout(&query(&[
        "--limit",
        "2",
        "-e",
        "SELECT game_id, plies FROM games ORDER BY game_id",
    ]));
    assert_eq!(
        output,
        "game_id  plies\n-------  -----\n      2      4\n      3      4\n113 rows (2 shown; --limit 2)\n"
    );
}

#[test]
fn position_key_of_a_fen_finds_the_rows_of_its_position() {
    let replies = stdout(&query(&[
        "--format",
        "csv",
        "-e",
        "SELECT move_uci, SUM(games) AS games FROM openings \
         WHERE position_key = position_key('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -') \
         GROUP BY move_uci ORDER BY games DESC, move_uci LIMIT 3",
    ]));
    // As `explore e4` counts them: e5 36, g6 4, c5 3.
    assert_eq!(replies, "move_uci,games\ne7e5,36\ng7g6,4\nc7c5,3\n");
    assert_eq!(
        error(&query(&[
            "-e",
            "SELECT 1 AS one -- position_key('nope')\n, position_key('nope') AS k"
        ])),
        "pgnlake: -e: statement 1 (line 1): position_key: not a legal position: \"nope\" \
         (invalid board part in fen)"
    );
}

/// Regression (issue 64): `GROUP BY move_san` over `openings`, the obvious
/// query, gave a null row and short counts (rows of one game carry no
/// SAN), and nothing said so. It now earns one line on stderr naming the
/// column and what to use; grouping by `move_uci` counts right, with
/// `MAX(move_san)` beside it, and earns none; nor does any recipe.
#[test]
fn grouping_the_tree_by_move_san_is_warned_of_and_move_uci_counts_right() {
    let after_e4 = "position_key('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -')";
    let by_san = query(&[
        "--format",
        "csv",
        "-e",
        &format!(
            "SELECT move_san, SUM(games) AS games FROM openings \
             WHERE position_key = {after_e4} GROUP BY move_san ORDER BY games DESC, move_san"
        ),
    ]);
    // The rows are the query's, wrong as they are: e5's games of one row
    // fall in the null group.
    assert_eq!(stdout(&by_san), "move_san,games\ne5,25\n,23\n");
    let warning = String::from_utf8_lossy(&by_san.stderr).into_owned();
    assert_eq!(warning.lines().count(), 1, "{warning}");
    assert!(
        warning.starts_with("pgnlake: warning: -e: statement 1 (line 1): move_san is null")
            && warning.contains("group by move_uci"),
        "{warning}"
    );
    let by_uci = query(&[
        "--format",
        "csv",
        "-e",
        &format!(
            "SELECT move_uci, MAX(move_san) AS move_san, SUM(games) AS games FROM openings \
             WHERE position_key = {after_e4} GROUP BY move_uci ORDER BY games DESC, move_uci \
             LIMIT 3"
        ),
    ]);
    assert_eq!(
        stdout(&by_uci),
        "move_uci,move_san,games\ne7e5,e5,36\ng7g6,,4\nc7c5,,3\n"
    );
    assert!(by_uci.stderr.is_empty(), "{by_uci:?}");
    for name in recipes() {
        let output = query(&[&format!("queries/{name}")]);
        assert!(
            !String::from_utf8_lossy(&output.stderr).contains("warning"),
            "{name}: {output:?}"
        );
    }
}

#[test]
fn statements_are_titled_and_separated() {
    let output = stdout(&query(&[
        "-e",
        "-- First\nSELECT 1 AS one;\n-- Second\n-- Tables: games\nSELECT 'a;b' AS two",
    ]));
    assert_eq!(
        output,
        "-- First\none\n---\n  1\n1 row\n\n-- Second\ntwo\n---\na;b\n1 row\n"
    );
}

#[test]
fn csv_json_and_parquet_hold_the_whole_result() {
    let sql = "SELECT game_id, white_elo, extra_tags FROM games \
               WHERE game_id IN (2, 9, 36) ORDER BY game_id";
    let csv = stdout(&query(&["--format", "csv", "--limit", "1", "-e", sql]));
    assert_eq!(
        csv,
        "game_id,white_elo,extra_tags\n2,,[]\n9,,\"[{\"\"name\"\":\"\"SetUp\"\",\"\"value\"\":\"\"1\"\"},{\"\"name\"\":\"\"FEN\"\",\"\"value\"\":\"\"8/8/4k3/8/8/4K3/8/4Q3 w - - 149 100\"\"}]\"\n\
         36,1159,\"[{\"\"name\"\":\"\"UTCDate\"\",\"\"value\"\":\"\"2025.05.01\"\"},{\"\"name\"\":\"\"UTCTime\"\",\"\"value\"\":\"\"00:00:06\"\"}]\"\n"
    );
    let json: Value = serde_json::from_str(&stdout(&query(&["--format", "json", "-e", sql])))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(json.as_array().map(Vec::len), Some(3));
    assert_eq!(
        json[1]["extra_tags"][1]["value"],
        "8/8/4k3/8/8/4K3/8/4Q3 w - - 149 100"
    );
    assert_eq!(json[2]["white_elo"], 1159);
    // The rating changes have columns of their own.
    assert_eq!(json[2]["extra_tags"].as_array().map(Vec::len), Some(2));
    assert_eq!(json[0]["white_elo"], Value::Null);

    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("result.parquet");
    let file_arg = file.to_string_lossy().into_owned();
    stdout(&query(&["--format", "parquet", "-o", &file_arg, "-e", sql]));
    let frame = common::read_table(&file);
    assert_eq!(frame.height(), 3);
    assert_eq!(common::i32_at(&frame, "white_elo", 2), Some(1159));
    assert_eq!(common::listing(dir.path()), ["result.parquet"]);
}

#[test]
fn errors_are_one_line_and_exit_2() {
    let missing_table = error(&query(&["-e", "SELECT * FROM gmes"]));
    assert!(
        missing_table.contains("-e: statement 1 (line 1): table \"gmes\" does not exist in")
            && missing_table.ends_with(
                "(tables: endgames, games, material, moves, opening_lines, openings, rejects, results)"
            ),
        "{missing_table}"
    );
    let missing_column = error(&query(&["-e", "SELECT 1 AS a;\n\nSELECT nope FROM games"]));
    assert!(
        missing_column.starts_with(
            "pgnlake: -e: statement 2 (line 3): not found: unable to find column \"nope\""
        ),
        "{missing_column}"
    );
    let syntax = error(&query(&["-e", "SELEC 1"]));
    assert!(
        syntax.starts_with("pgnlake: -e: statement 1 (line 1): sql parser error:"),
        "{syntax}"
    );
    assert_eq!(
        error(&pgnlake(&[
            "query",
            "--data",
            "no/such/dir",
            "-e",
            "SELECT 1"
        ])),
        "pgnlake: no/such/dir: no such folder (run `pgnlake import --out DIR` first, or pass --data)"
    );
    assert_eq!(
        error(&query(&["queries/no_such.sql"])),
        "pgnlake: queries/no_such.sql: read failed: No such file or directory (os error 2)"
    );
    assert_eq!(
        error(&query(&[
            "--format",
            "csv",
            "queries/games_and_rejects.sql"
        ])),
        "pgnlake: queries/games_and_rejects.sql: holds 2 statements, but --format Csv writes one \
         result; use --format table, or one statement per file"
    );
    assert_eq!(
        error(&query(&["-e", "-- nothing\n;"])),
        "pgnlake: -e: no SQL statement in it"
    );
    let unwritable = error(&query(&[
        "--format",
        "csv",
        "-o",
        "/no/such/dir/x.csv",
        "-e",
        "SELECT 1",
    ]));
    assert!(
        unwritable.starts_with("pgnlake: /no/such/dir/x.csv: "),
        "{unwritable}"
    );
}

#[test]
fn data_defaults_to_out() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap_or_else(|e| panic!("{e}"));
    // An import's folder is its tables with its summary (a table without
    // one is no import).
    for file in ["rejects.parquet", "summary.json"] {
        std::fs::copy(data().join(file), out.join(file)).unwrap_or_else(|e| panic!("{e}"));
    }
    let output = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args([
            "query",
            "--format",
            "csv",
            "-e",
            "SELECT COUNT(*) AS n FROM rejects",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stdout(&output), "n\n31\n");
}

// ---------------------------------------------------------------- interop

/// `table` → `column` → type, as `src/sink/schema.rs` declares them (and
/// `docs/tables.md` documents them: `docs::tables_reference_is_the_schema_declaration`).
fn documented_schema() -> BTreeMap<String, BTreeMap<String, String>> {
    pgnlake::sink::schema::TABLES
        .iter()
        .map(|table| {
            let columns = table
                .columns
                .iter()
                .map(|c| (c.name.to_owned(), c.ty.as_str().to_owned()))
                .collect();
            (table.name.to_owned(), columns)
        })
        .collect()
}

#[test]
fn pyarrow_reads_every_table_with_the_documented_schema() {
    let data_arg = data().as_os_str();
    let mut read: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for line in run_oracle("parquet_readers.py", &["schema".as_ref(), data_arg]) {
        let fields: Vec<&str> = line.split('\t').collect();
        if let [table, column, kind] = fields[..] {
            read.entry(table.to_owned())
                .or_default()
                .insert(column.to_owned(), kind.to_owned());
        }
    }
    assert_eq!(read.len(), 8, "{:?}", read.keys());
    // No unsigned column anywhere: Spark, BigQuery and Trino read UINT_64
    // as a decimal.
    let unsigned: Vec<String> = read
        .iter()
        .flat_map(|(table, columns)| {
            columns
                .iter()
                .filter(|(_, kind)| kind.starts_with('u'))
                .map(move |(column, kind)| format!("{table}.{column}: {kind}"))
        })
        .collect();
    assert!(unsigned.is_empty(), "{unsigned:?}");
    assert_eq!(read, documented_schema());
}

/// Same rows: equal columns and values, numbers compared as numbers
/// (integers exactly, floats to 1e-9), in order.
pub(crate) fn same_value(ours: &Value, theirs: &Value) -> bool {
    match (ours, theirs) {
        (Value::Number(a), Value::Number(b)) => match (a.as_i128(), b.as_i128()) {
            (Some(a), Some(b)) => a == b,
            _ => {
                let (a, b) = (
                    a.as_f64().unwrap_or(f64::NAN),
                    b.as_f64().unwrap_or(f64::NAN),
                );
                (a - b).abs() <= 1e-9 * a.abs().max(1.0)
            }
        },
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => ours == theirs,
    }
}

/// A JSON object's entries in the order written (serde_json's own map
/// sorts its keys).
struct OrderedRow(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for OrderedRow {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = OrderedRow;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<OrderedRow, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(OrderedRow(entries))
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

/// One statement through `pgnlake query --format json`: the column names
/// (known when there is a row) and each row's values in column order.
pub(crate) fn pgnlake_rows(data: &Path, sql: &str) -> (Vec<String>, Vec<Value>) {
    let data = data.to_string_lossy().into_owned();
    let text = stdout(&pgnlake(&[
        "query", "--data", &data, "--format", "json", "-e", sql,
    ]));
    let objects: Vec<OrderedRow> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let columns = objects
        .first()
        .map(|row| row.0.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let rows = objects
        .into_iter()
        .map(|row| Value::Array(row.0.into_iter().map(|(_, v)| v).collect()))
        .collect();
    (columns, rows)
}

/// Every portable recipe's statements, and three that read back the signed
/// 64-bit keys, lists of (name, value) structs and nullable columns whole.
pub(crate) fn portable_statements() -> Vec<(String, String)> {
    let mut statements = Vec::new();
    for name in recipes() {
        let script = recipe(&name);
        if engine(&script) == Some("polars") {
            continue;
        }
        for (i, statement) in split_statements(&script).into_iter().enumerate() {
            statements.push((format!("{name}#{}", i + 1), statement.sql));
        }
    }
    for (id, sql) in [
        (
            "keys",
            "SELECT position_key, next_position_key, games FROM openings ORDER BY position_key, move_uci, time_class, rating_band NULLS FIRST, month NULLS FIRST",
        ),
        (
            "lists",
            "SELECT game_id, extra_tags FROM games ORDER BY game_id",
        ),
        (
            "nulls",
            "SELECT game_id, white_elo, year, opening_ply, eco_matches_tag, endgame_signature, material_diff_at_80 FROM games ORDER BY game_id",
        ),
    ] {
        statements.push((id.to_owned(), sql.to_owned()));
    }
    statements
}

/// `statements` as the oracles read them: `DIR/statements.json`, a list of
/// `{"id", "sql"}`.
pub(crate) fn statements_file(dir: &Path, statements: &[(String, String)]) -> PathBuf {
    let list: Vec<Value> = statements
        .iter()
        .map(|(id, sql)| serde_json::json!({"id": id, "sql": sql}))
        .collect();
    let file = dir.join("statements.json");
    std::fs::write(&file, Value::Array(list).to_string()).unwrap_or_else(|e| panic!("{e}"));
    file
}

/// Runs `statements` in DuckDB over the tables in `data` and in `pgnlake
/// query`, asserts the same columns and rows, and returns DuckDB's results.
fn assert_duckdb_agrees(data: &Path, statements: &[(String, String)]) -> Value {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = statements_file(dir.path(), statements);
    let output = run_oracle(
        "parquet_readers.py",
        &["duckdb".as_ref(), data.as_os_str(), file.as_os_str()],
    )
    .join("\n");
    let duckdb: Value = serde_json::from_str(&output).unwrap_or_else(|e| panic!("{e}: {output}"));
    assert_same_answers("DuckDB", data, statements, &duckdb);
    duckdb
}

/// Asserts that `engine` (its results by statement id: `{columns, rows}`)
/// gave the same columns and rows as `pgnlake query` over `data`.
pub(crate) fn assert_same_answers(
    engine: &str,
    data: &Path,
    statements: &[(String, String)],
    results: &Value,
) {
    for (id, sql) in statements {
        let (columns, rows) = pgnlake_rows(data, sql);
        let theirs = &results[id];
        assert!(theirs.is_object(), "{id}: {engine} gave no result");
        let their_rows = theirs["rows"].as_array().cloned().unwrap_or_default();
        if !rows.is_empty() {
            assert_eq!(
                theirs["columns"],
                serde_json::json!(columns),
                "{id}: columns"
            );
        }
        assert_eq!(rows.len(), their_rows.len(), "{id}: row count");
        for (ours, theirs) in rows.iter().zip(&their_rows) {
            assert!(
                same_value(ours, theirs),
                "{id}: pgnlake {ours} ≠ {engine} {theirs}"
            );
        }
    }
}

#[test]
fn duckdb_answers_every_portable_recipe_with_the_same_rows() {
    let statements = portable_statements();
    assert!(statements.len() >= 20, "{}", statements.len());
    let duckdb = assert_duckdb_agrees(data(), &statements);
    // Keys are signed: Polyglot keys above 2^63 are negative, and both
    // engines sort them first.
    let keys: Vec<i64> = duckdb["keys"]["rows"]
        .as_array()
        .map(|rows| rows.iter().filter_map(|r| r[0].as_i64()).collect())
        .unwrap_or_default();
    assert!(
        keys.iter().any(|&k| k < 0),
        "the sample has keys above 2^63"
    );
    assert!(keys.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn pyarrow_reads_integers_lists_and_nulls_as_written() {
    let (_, ours) = pgnlake_rows(
        data(),
        "SELECT game_id, white_elo, extra_tags FROM games ORDER BY game_id",
    );
    let text = run_oracle(
        "parquet_readers.py",
        &[
            "pyarrow".as_ref(),
            data().as_os_str(),
            "games".as_ref(),
            "game_id".as_ref(),
            "white_elo".as_ref(),
            "extra_tags".as_ref(),
        ],
    )
    .join("\n");
    let theirs: Vec<Value> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ours.len(), 113);
    assert_eq!(ours.len(), theirs.len());
    for (a, b) in ours.iter().zip(&theirs) {
        assert!(same_value(a, b), "pgnlake {a} ≠ pyarrow {b}");
    }
}

/// The same proof on real archives: OTB games with every kind of tag, a
/// lichess export and annotated books with set-up positions (skipped, with a
/// notice, without `../shared/data`).
#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn duckdb_agrees_on_corpus_archives() {
    let shared = common::corpus_data();
    let corpus = shared.join("corpus");
    let run = import_moves(
        &[
            corpus.join("twic0920.pgn"),
            corpus.join("lichess-2025-05-sample.pgn"),
            corpus.join("book-collections.pgn.zst"),
        ],
        2,
    );
    assert!(run.summary.accepted > 25_000, "{}", run.summary.accepted);
    assert_duckdb_agrees(run.dir.path(), &portable_statements());
}

#[test]
fn script_from_stdin() {
    use std::io::Write as _;
    let data = data().to_string_lossy().into_owned();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(["query", "-", "--data", &data, "--format", "csv"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    child
        .stdin
        .take()
        .map(|mut stdin| stdin.write_all(b"SELECT MAX(plies) AS longest FROM games;\n"))
        .transpose()
        .unwrap_or_else(|e| panic!("{e}"));
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stdout(&output), "longest\n136\n");
}

/// `pgnlake ARGS` that succeeds quietly: its stdout.
fn quiet_ok(args: &[&str]) -> String {
    let output = pgnlake(args);
    let out = stdout(&output);
    assert!(output.stderr.is_empty(), "{args:?}: {output:?}");
    out
}

/// A lake at `lake` of two imports (`a`, with moves, and `b`) and one
/// merged from two shards (`m`, the shards beside the lake), compacted.
fn lake_of_three(lake: &Path) -> String {
    let sample = |name: &str| text(&common::sample(name));
    let (lake_text, parent) = (text(lake), lake.parent().unwrap_or(lake));
    let (one, two) = (text(&parent.join("s1")), text(&parent.join("s2")));
    let games = sample("lichess-2025-05-30games.pgn");
    for args in [
        vec![
            "import",
            &sample("openings.pgn"),
            "--into",
            &lake_text,
            "--name",
            "a",
            "--moves",
        ],
        vec![
            "import",
            &sample("results.pgn"),
            "--into",
            &lake_text,
            "--name",
            "b",
        ],
        vec!["import", &games, "--shard", "1/2", "--out", &one],
        vec!["import", &games, "--shard", "2/2", "--out", &two],
        vec!["merge", &one, &two, "--into", &lake_text, "--name", "m"],
    ] {
        quiet_ok(&[args.as_slice(), &["--quiet"]].concat());
    }
    let compacted = pgnlake(&["lake", &lake_text, "--compact"]);
    stdout(&compacted);
    lake_text
}

/// Issue 54, 6: polars' Hive reader took `key=value` folders from the
/// whole path, so that a lake under `year=2024/` imported and compacted,
/// then every reader failed ("path contains column not present in the
/// given Hive schema: year"). Each reader of such a lake (query, explore,
/// export, report; merge --into and compaction made it) answers as the
/// same lake elsewhere, with no column from the folders above it.
#[test]
fn a_lake_under_folders_named_like_hive_partitions_reads_as_any_lake() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let plain = lake_of_three(&dir.path().join("plain").join("lake"));
    let hive = lake_of_three(&dir.path().join("year=2024").join("month=05").join("lake"));
    let read = |lake: &str, what: &str| -> Vec<String> {
        let query = |sql: &str| quiet_ok(&["query", "--data", lake, "--format", "csv", "-e", sql]);
        let out = dir.path().join(format!("{what}.pgn"));
        let exported = "SELECT import, game_id FROM games ORDER BY import, game_id";
        quiet_ok(&[
            "export",
            "--data",
            lake,
            "-e",
            exported,
            "-o",
            &text(&out),
            "-q",
        ]);
        let report = dir.path().join(format!("{what}.html"));
        stdout(&pgnlake(&["report", "--data", lake, "-o", &text(&report)]));
        vec![
            query("SELECT import, COUNT(*) AS games FROM games GROUP BY import ORDER BY import"),
            query("SELECT * FROM games ORDER BY import, game_id LIMIT 3"),
            query("SELECT import, COUNT(*) AS moves FROM moves GROUP BY import ORDER BY import"),
            query(
                "SELECT import, SUM(games) AS games FROM openings GROUP BY import ORDER BY import",
            ),
            quiet_ok(&["explore", "--data", lake, "e4", "--format", "json"]),
            std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}")),
        ]
    };
    let (expected, got) = (read(&plain, "plain"), read(&hive, "hive"));
    assert_eq!(
        expected[0], "import,games\na,6\nb,23\nm,30\n",
        "the games of each import"
    );
    // The games' own `year` and `month`, not the folders' 2024 and 05.
    assert!(got[1].contains(",2001,2001-03-01,"), "{}", got[1]);
    let header = got[1].lines().next().unwrap_or_default();
    let declared = pgnlake::sink::schema::games::TABLE
        .columns
        .iter()
        .map(|c| c.name);
    let columns: Vec<&str> = declared.chain(["import"]).collect();
    assert_eq!(header, columns.join(","));
    assert_eq!(got, expected);
}

/// Issue 54, 6: a query's `read_parquet` of a lake's partition or of a
/// glob over the partitions panicked in polars (guessing the type of
/// `import=a`; exit 101 and a backtrace). They read the files as they
/// are: the table's columns, no column from the path, every row.
#[test]
fn read_parquet_of_paths_with_equals_signs_reads_the_files_as_they_are() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lake_path = dir.path().join("lake");
    let lake = text(&lake_path);
    for (input, name) in [("openings.pgn", "a"), ("results.pgn", "b")] {
        let input = text(&common::sample(input));
        quiet_ok(&["import", &input, "--into", &lake, "--name", name, "--quiet"]);
    }
    let query = |sql: &str| {
        let output = pgnlake(&["query", "--data", &lake, "--format", "csv", "-e", sql]);
        assert_eq!(output.status.code(), Some(0), "{sql}: {output:?}");
        assert!(output.stderr.is_empty(), "{sql}: {output:?}");
        stdout(&output)
    };
    let games = |from: &str| query(&format!("SELECT COUNT(*) AS n FROM {from}"));
    assert_eq!(games("games WHERE import = 'a'"), "n\n6\n");
    assert_eq!(games("games"), "n\n29\n");
    let partition = format!("read_parquet('{lake}/games/import=a/part-0.parquet')");
    assert_eq!(games(&partition), "n\n6\n");
    let glob = format!("read_parquet('{lake}/games/*/*.parquet')");
    assert_eq!(games(&glob), "n\n29\n");
    assert_eq!(
        games(&format!("{glob} AS g WHERE g.game_id >= 0")),
        "n\n29\n"
    );
    let columns = query(&format!("SELECT * FROM {partition} LIMIT 0"));
    let declared: Vec<&str> = pgnlake::sink::schema::games::TABLE
        .columns
        .iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(columns.trim_end(), declared.join(","));
}

/// A panic inside polars (here its SQL's `COLUMNS` with a regex that does
/// not compile, unwrapped in polars-sql 0.55) ends the run as any
/// failure: exit 2, one line, no backtrace.
#[test]
fn a_panic_in_polars_is_one_line_and_exit_2() {
    let line = error(&query(&["-e", "SELECT COLUMNS('(') FROM games"]));
    assert!(
        line.starts_with("pgnlake: internal error in query: ") || line.starts_with("pgnlake: -e:"),
        "{line}"
    );
    assert!(
        !line.contains("panicked") && !line.contains("RUST_BACKTRACE"),
        "{line}"
    );
}

/// Regression: polars rewrites `COUNT(*)` over a `UNION ALL` with a cast
/// to a 128-bit integer, which failed ("casting from UInt32 to UInt128 not
/// supported") until polars' `dtype-u128` was enabled.
#[test]
fn a_count_over_a_union_all_is_answered() {
    let games = common::stdout_of(&query(&[
        "--format",
        "csv",
        "-e",
        "SELECT COUNT(*) AS n FROM games",
    ]));
    let twice = common::stdout_of(&query(&[
        "--format",
        "csv",
        "-e",
        "SELECT COUNT(*) AS n FROM (SELECT game_id FROM games UNION ALL SELECT game_id FROM games)",
    ]));
    let n = |csv: &str| -> u64 { csv.lines().nth(1).unwrap().trim().parse().unwrap() };
    assert!(n(&games) > 100, "{games}");
    assert_eq!(n(&twice), 2 * n(&games), "{twice}");
}

#[test]
fn a_folder_of_tables_without_a_summary_is_no_import() {
    // Issue 63: a run stopped between its tables and its summary left a
    // folder that `query`, `explore` and `serve` read without a word.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out");
    let out_text = out.to_string_lossy().into_owned();
    let input = manifest().join("sample-data/openings.pgn");
    let status = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(["import", &input.to_string_lossy(), "--out", &out_text, "-q"])
        .status()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(status.success());
    std::fs::remove_file(out.join("summary.json")).unwrap_or_else(|e| panic!("{e}"));
    let html = dir.path().join("r.html").to_string_lossy().into_owned();
    for args in [
        vec![
            "query",
            "--data",
            &out_text,
            "-e",
            "SELECT count(*) AS n FROM games",
        ],
        vec!["explore", "--data", &out_text, "e4"],
        vec![
            "export",
            "--data",
            &out_text,
            "-e",
            "SELECT game_id FROM games",
            "-o",
            "-",
        ],
        vec!["report", "--data", &out_text, "-o", &html],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
            .args(&args)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let line = error(&output);
        assert!(
            line.contains(&out_text) && line.contains("not a finished import"),
            "{}: {line}",
            args[0]
        );
    }
}
