//! The lake (`import --into`, `lake`, reading with `--data LAKE`): a lake
//! of imports reads as one import of all their inputs; names, replacing and
//! removing; outside engines read the Hive partitions as they are.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

// Re-exported for tests/it/serve.rs, which still names them by this
// module: the helpers live in `common`.
pub(crate) use common::{ok, pgnlake, text};
use common::{rows, run_oracle, sample};
use pgnlake::read::query::{Tables, split_statements};
use pgnlake::sink::schema::{self, Merge, Table};

const INPUTS: [&str; 3] = ["lichess-2025-05-30games.pgn", "openings.pgn", "results.pgn"];

pub(crate) fn error(output: Output) -> String {
    common::usage_error(&output)
}

pub(crate) fn input(name: &str) -> String {
    text(&sample(name))
}

/// `import INPUT --into LAKE --moves` with `extra` options.
pub(crate) fn import_into(lake: &Path, input_name: &str, extra: &[&str]) -> Output {
    let (input, lake) = (input(input_name), text(lake));
    let mut args = vec!["import", &input, "--into", &lake, "--moves", "--quiet"];
    args.extend_from_slice(extra);
    pgnlake(&args)
}

/// Each statement's rows over `data` (an import's folder or a lake).
pub(crate) fn query_rows(data: &Path, sql: &str) -> Vec<String> {
    let mut tables = Tables::open(data).unwrap_or_else(|e| panic!("{e}"));
    let statement = split_statements(sql)
        .pop()
        .unwrap_or_else(|| panic!("{sql}"));
    rows(
        &tables
            .run(&statement, "test")
            .unwrap_or_else(|e| panic!("{e}")),
    )
}

/// An aggregate table summed by its key columns, as its declaration says
/// each column adds up (sums, minima, maxima; a value the same in every
/// row of a key once; ratios left out: they follow from the sums).
fn summed_by_key(table: &Table) -> String {
    let keys: Vec<String> = table
        .columns
        .iter()
        .filter(|c| c.merge == Merge::Key)
        .map(|c| format!("\"{}\"", c.name))
        .collect();
    let values: Vec<String> = table
        .columns
        .iter()
        .filter_map(|c| match c.merge {
            Merge::Key => Some(format!("\"{}\"", c.name)),
            Merge::Sum => Some(format!("SUM(\"{0}\") AS \"{0}\"", c.name)),
            Merge::Min | Merge::Same => Some(format!("MIN(\"{0}\") AS \"{0}\"", c.name)),
            Merge::Max => Some(format!("MAX(\"{0}\") AS \"{0}\"", c.name)),
            // Game ids are numbered per import in a lake; the spelling is
            // on the rows of two games or more of one import.
            Merge::Row
            | Merge::Derived
            | Merge::Witness
            | Merge::Top
            | Merge::Earliest
            | Merge::Latest
            | Merge::Spelled => None,
        })
        .collect();
    format!(
        "SELECT {} FROM {} GROUP BY {} ORDER BY {}",
        values.join(", "),
        table.name,
        keys.join(", "),
        keys.join(", ")
    )
}

/// A table's rows without the columns that differ between a lake and one
/// import (the import's name, and game ids numbered per import), in the
/// order of their place in the inputs.
fn rows_by_place(table: &Table) -> String {
    let columns: Vec<String> = table
        .columns
        .iter()
        .filter(|c| c.name != "game_id")
        .map(|c| format!("\"{}\"", c.name))
        .collect();
    format!(
        "SELECT {} FROM {} ORDER BY \"source\", \"offset\"",
        columns.join(", "),
        table.name
    )
}

/// Imports `inputs` one by one into a lake and all at once into a folder,
/// checks that the two read alike (every aggregate table summed by key;
/// games and rejects row by row apart from `import` and `game_id`;
/// `explore`'s answers), and returns (lake, folder).
fn assert_lake_reads_as_one_import(dir: &Path, inputs: &[PathBuf]) -> (PathBuf, PathBuf) {
    let lake = dir.join("lake");
    let lake_text = text(&lake);
    for input in inputs {
        ok(pgnlake(&[
            "import",
            &text(input),
            "--into",
            &lake_text,
            "--moves",
            "--quiet",
        ]));
    }
    let one = dir.join("one");
    let one_text = text(&one);
    let inputs: Vec<String> = inputs.iter().map(|p| text(p)).collect();
    let mut args = vec!["import", "--out", &one_text];
    args.extend(inputs.iter().map(String::as_str));
    args.extend(["--moves", "--quiet"]);
    ok(pgnlake(&args));
    assert_reads_alike(&lake, &one);
    // And after the lake's statistics are compacted into one partition.
    compact(&lake);
    assert_reads_alike(&lake, &one);
    (lake, one)
}

/// Two lakes read alike (see [`assert_reads_alike`]), by pgnlake and by
/// DuckDB, polars, pyarrow and Spark.
pub(crate) fn assert_lakes_alike(lake: &Path, other: &Path) {
    assert_reads_alike(lake, other);
    let games =
        "SELECT import, COUNT(*) AS n, SUM(plies) AS s FROM games GROUP BY import ORDER BY import";
    assert_eq!(query_rows(lake, games), query_rows(other, games));
}

/// `pgnlake lake LAKE --compact`, checked: every statistics table has the
/// compacted partition alone, games per import as before.
pub(crate) fn compact(lake: &Path) {
    let games_before = common::listing(&lake.join("games"));
    ok(pgnlake(&["lake", &text(lake), "--compact"]));
    compact_layout_checked(lake);
    // Again: nothing to do, nothing left behind.
    ok(pgnlake(&["lake", &text(lake), "--compact"]));
    compact_layout_checked(lake);
    assert_eq!(staging_left(lake), Vec::<String>::new());
    assert_eq!(common::listing(&lake.join("games")), games_before);
}

fn is_aggregate(table: &Table) -> bool {
    table.columns.iter().any(|c| c.merge == Merge::Key)
}

/// A lake and one import's folder read alike: every aggregate table
/// summed by key; games and rejects row by row apart from `import` and
/// `game_id`; `explore`'s answers.
fn assert_reads_alike(lake: &Path, one: &Path) {
    let (lake_text, one_text) = (text(lake), text(one));
    // Every aggregate table, summed by key, is the same.
    for table in [
        &schema::openings::TABLE,
        &schema::opening_lines::TABLE,
        &schema::results::TABLE,
        &schema::material::TABLE,
        &schema::endgames::TABLE,
    ] {
        let sql = summed_by_key(table);
        let (ours, theirs) = (query_rows(lake, &sql), query_rows(one, &sql));
        assert!(!ours.is_empty(), "{}", table.name);
        assert_eq!(ours, theirs, "{}", table.name);
    }
    // A position's earliest ply: in a lake, the least over the position's
    // rows of every import.
    let earliest = "SELECT position_key, MIN(ply) AS ply FROM openings GROUP BY position_key ORDER BY position_key";
    assert_eq!(query_rows(lake, earliest), query_rows(one, earliest));
    // Games and rejects are the same rows apart from import and game_id.
    for table in [&schema::games::TABLE, &schema::rejects::TABLE] {
        let sql = rows_by_place(table);
        assert_eq!(
            query_rows(lake, &sql),
            query_rows(one, &sql),
            "{}",
            table.name
        );
    }
    // explore answers alike, with and without filters.
    for extra in [
        &[][..],
        &["e4"][..],
        &["d4"][..],
        &["e4", "c5"][..],
        &["e4", "--speed", "blitz,bullet"][..],
        &["--rating", "1600..", "--since", "2025-01"][..],
        &["e4", "--format", "json"][..],
    ] {
        let explore = |data: &str| {
            let mut args = vec!["explore", "--data", data];
            args.extend_from_slice(extra);
            ok(pgnlake(&args))
        };
        assert_eq!(explore(&lake_text), explore(&one_text), "{extra:?}");
    }
}

#[test]
fn a_lake_of_three_imports_reads_as_one_import_of_the_three() {
    let dir = tempfile::tempdir().unwrap();
    let inputs: Vec<PathBuf> = INPUTS.iter().map(|n| sample(n)).collect();
    let (lake, one) = assert_lake_reads_as_one_import(dir.path(), &inputs);
    // Compacted in name order, which is the inputs' order: the games' ids
    // in the compacted tree run on as the single import's, and its rows of
    // two games from several imports are spelled from their games' first
    // moves, so the compacted tree is the single import's, byte for byte.
    let compacted = std::fs::read(lake.join("openings/import=_compacted/part-0.parquet"))
        .unwrap_or_else(|e| panic!("{e}"));
    let single = std::fs::read(one.join("openings.parquet")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        compacted == single,
        "the compacted tree is not the single import's"
    );
    let one_text = text(&one);
    // The recipes for a lake: the union by import, and the tree summed.
    let recipe = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("queries/lake")
            .join(name);
        let sql = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        query_rows(&lake, &sql)
    };
    assert_eq!(
        recipe("games_by_import.sql"),
        [
            "lichess-2025-05-30games | 30 | 2025 | 2025",
            "openings | 6 | 1995 | 2021",
            "results | 23 | 2018 | 2024"
        ]
    );
    let summed = recipe("openings_after_e4_summed.sql");
    let explored = ok(pgnlake(&[
        "explore", "--data", &one_text, "e4", "--format", "json",
    ]));
    let explored: serde_json::Value =
        serde_json::from_str(&explored).unwrap_or_else(|e| panic!("{e}"));
    let first = &explored["moves"][0];
    assert_eq!(
        summed
            .first()
            .map(|row| row.split(" | ").take(2).collect::<Vec<_>>().join(" | ")),
        Some(format!(
            "{} | {}",
            first["uci"].as_str().unwrap_or("?"),
            first["games"]
        ))
    );
    // The lake's union keeps each import's rows apart.
    assert_eq!(
        query_rows(
            &lake,
            "SELECT import, COUNT(*) AS games FROM games GROUP BY import ORDER BY import"
        ),
        [
            "lichess-2025-05-30games | 30",
            "openings | 6",
            "results | 23"
        ]
    );
}

#[test]
fn names_are_checked_and_an_existing_import_is_replaced_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let lake = dir.path().join("lake");
    let lake_text = text(&lake);
    ok(import_into(&lake, "openings.pgn", &["--name", "month-1"]));
    assert_eq!(
        error(import_into(&lake, "results.pgn", &["--name", "month-1"])),
        format!(
            "pgnlake: {lake_text}: import month-1 exists; give --replace to replace it, or another --name"
        )
    );
    assert!(
        error(import_into(&lake, "results.pgn", &["--name", "../x"])).contains("letters, digits")
    );
    assert!(
        error(import_into(&lake, "results.pgn", &["--name", "_imports"])).contains("not starting")
    );
    // Options that would make the tables impossible to add up.
    let message = error(import_into(
        &lake,
        "results.pgn",
        &["--name", "month-2", "--opening-plies", "10"],
    ));
    assert!(
        message.contains("import month-1 was imported with --opening-plies 20 --opening-period month --piece-values 1,3,3,5,9"),
        "{message}"
    );
    let games = |lake: &Path| {
        query_rows(
            lake,
            "SELECT import, COUNT(*) AS n FROM games GROUP BY import ORDER BY import",
        )
    };
    assert_eq!(games(&lake), ["month-1 | 6"]);
    // --replace swaps the import's partitions; a second import is added.
    ok(import_into(
        &lake,
        "results.pgn",
        &["--name", "month-1", "--replace"],
    ));
    ok(import_into(&lake, "openings.pgn", &["--name", "month-2"]));
    assert_eq!(games(&lake), ["month-1 | 23", "month-2 | 6"]);
    let listing = ok(pgnlake(&["lake", &lake_text]));
    let lines: Vec<Vec<&str>> = listing.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        lines.iter().map(|l| l[..5].join(" ")).collect::<Vec<_>>(),
        [
            "import inputs games accepted rejected",
            "month-1 1 23 23 0",
            "month-2 1 6 6 0"
        ]
    );
    // Removing leaves the other import; removing it again is an error.
    ok(pgnlake(&["lake", &lake_text, "--remove", "month-1"]));
    assert_eq!(games(&lake), ["month-2 | 6"]);
    assert!(!lake.join("games/import=month-1").exists());
    assert_eq!(
        error(pgnlake(&["lake", &lake_text, "--remove", "month-1"])),
        format!("pgnlake: {lake_text}: no import named month-1")
    );
    // Nothing is left in the staging folder.
    assert_eq!(staging_left(&lake), Vec::<String>::new());
}

#[test]
fn outside_engines_read_the_lake_through_hive_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let lake = dir.path().join("lake");
    for name in ["openings.pgn", "results.pgn"] {
        ok(import_into(&lake, name, &[]));
    }
    assert_outside_engines_agree(&lake, 4);
    // Compacted: the tree in one partition, the games per import.
    compact(&lake);
    assert_outside_engines_agree(&lake, 3);
}

/// DuckDB, pyarrow and Spark see the lake's rows per import as pgnlake
/// does (games and the opening tree: `rows` lines in all).
fn assert_outside_engines_agree(lake: &Path, rows: usize) {
    let ours: Vec<String> = ["games", "openings"]
        .iter()
        .flat_map(|table| {
            let sum = if *table == "games" { "plies" } else { "games" };
            query_rows(
                lake,
                &format!(
                    "SELECT '{table}' AS t, import, COUNT(*) AS n, SUM({sum}) AS s FROM {table} GROUP BY import ORDER BY import"
                ),
            )
        })
        .map(|row| row.replace(" | ", "\t"))
        .collect();
    assert_eq!(ours.len(), rows, "{ours:?}");
    for engine in ["duckdb", "polars", "pyarrow", "spark"] {
        let theirs: Vec<String> =
            run_oracle("lake_readers.py", &[lake.as_os_str(), engine.as_ref()])
                .into_iter()
                .map(|line| {
                    line.split_once('\t')
                        .map(|(_, rest)| rest.to_owned())
                        .unwrap_or(line)
                })
                .collect();
        assert_eq!(theirs, ours, "{engine}");
    }
}

/// What readers see of a lake: games per import, and the opening tree and
/// the results summed over its imports.
pub(crate) fn lake_state(lake: &Path) -> Vec<String> {
    let mut state = query_rows(
        lake,
        "SELECT import, COUNT(*) AS n FROM games GROUP BY import ORDER BY import",
    );
    for table in [&schema::openings::TABLE, &schema::results::TABLE] {
        state.extend(query_rows(lake, &summed_by_key(table)));
    }
    state
}

/// A lake with `imports` (name, sample file) committed one by one.
pub(crate) fn lake_of(dir: &Path, imports: &[(&str, &str)]) -> PathBuf {
    let lake = dir.join(format!("lake-{}", imports.len()));
    for (name, file) in imports {
        ok(import_into(&lake, file, &["--name", name]));
    }
    lake
}

#[test]
fn a_finished_import_folder_is_added_as_an_import_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder");
    let folder_text = text(&folder);
    ok(pgnlake(&[
        "import",
        &input("openings.pgn"),
        "--out",
        &folder_text,
        "--moves",
        "--quiet",
    ]));
    let before = common::listing(&folder);
    let lake = dir.path().join("lake");
    let lake_text = text(&lake);
    let add = |extra: &[&str]| {
        let mut args = vec!["lake", &lake_text, "--add", &folder_text];
        args.extend_from_slice(extra);
        pgnlake(&args)
    };
    assert_eq!(ok(add(&["--name", "a"])), "");
    assert_eq!(common::listing(&folder), before);
    let direct = lake_of(&dir.path().join("direct"), &[("a", "openings.pgn")]);
    assert_eq!(lake_state(&lake), lake_state(&direct));
    // As an import: a name taken is refused without --replace.
    assert!(error(add(&["--name", "a"])).contains("import a exists"));
    ok(add(&["--name", "a", "--replace"]));
    assert_eq!(lake_state(&lake), lake_state(&direct));
    // Not an import's folder, or one shard of one: one line, exit 2.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let not_import = common::usage_error(&pgnlake(&[
        "lake",
        &lake_text,
        "--add",
        &text(&empty),
        "--name",
        "b",
    ]));
    assert!(
        not_import.ends_with("not an import's folder"),
        "{not_import}"
    );
    let shard = dir.path().join("shard");
    ok(pgnlake(&[
        "import",
        &input("openings.pgn"),
        "--out",
        &text(&shard),
        "--shard",
        "1/2",
        "--quiet",
    ]));
    let one_shard = common::usage_error(&pgnlake(&[
        "lake",
        &lake_text,
        "--add",
        &text(&shard),
        "--name",
        "b",
    ]));
    assert!(one_shard.contains("merge the shards"), "{one_shard}");
}

#[test]
fn readers_during_a_compaction_read_the_lake_whole() {
    let dir = tempfile::tempdir().unwrap();
    let lake = lake_of(
        dir.path(),
        &[
            ("a", "openings.pgn"),
            ("b", "results.pgn"),
            ("c", "lichess-2025-05-30games.pgn"),
        ],
    );
    let lake_text = text(&lake);
    let explore = || ok(pgnlake(&["explore", "--data", &lake_text, "e4"]));
    let expected = explore();
    std::thread::scope(|scope| {
        let readers: Vec<_> = (0..8).map(|_| scope.spawn(explore)).collect();
        ok(pgnlake(&["lake", &lake_text, "--compact"]));
        for reader in readers {
            assert_eq!(reader.join().unwrap(), expected);
        }
    });
    compact_layout_checked(&lake);
    assert_eq!(explore(), expected);
}

/// `_staging/` of a lake: empty but for the lake's lock file.
pub(crate) fn staging_left(lake: &Path) -> Vec<String> {
    let mut left = common::listing(&lake.join("_staging"));
    left.retain(|name| name != ".lake.lock");
    left
}

#[test]
fn a_run_killed_at_any_step_of_a_commit_removal_or_compaction_leaves_the_lake_before_or_after() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let only_a = lake_state(&lake_of(&dir.path().join("1"), &[("a", "openings.pgn")]));
    let a_and_b = lake_state(&lake_of(
        &dir.path().join("2"),
        &[("a", "openings.pgn"), ("b", "results.pgn")],
    ));
    let a_replaced = lake_state(&lake_of(&dir.path().join("3"), &[("a", "results.pgn")]));
    let a_and_c = lake_state(&lake_of(
        &dir.path().join("4"),
        &[("a", "openings.pgn"), ("c", "edge-cases.pgn")],
    ));
    const A_B_AND_C: &[(&str, &str)] = &[
        ("a", "openings.pgn"),
        ("b", "results.pgn"),
        ("c", "edge-cases.pgn"),
    ];
    let all_three = lake_state(&lake_of(&dir.path().join("5"), A_B_AND_C));
    // (what runs, the lake it runs on, compacted first?), the command, the
    // state before and the state after.
    type Run = (&'static str, &'static [(&'static str, &'static str)], bool);
    type Scenario<'a> = (Run, &'a [&'a str], &'a Vec<String>, &'a Vec<String>);
    let scenarios: [Scenario; 6] = [
        (
            ("add b", &[("a", "openings.pgn")], false),
            &["import", "results.pgn", "b", ""],
            &only_a,
            &a_and_b,
        ),
        (
            ("replace a", &[("a", "openings.pgn")], false),
            &["import", "results.pgn", "a", "--replace"],
            &only_a,
            &a_replaced,
        ),
        (
            (
                "remove b",
                &[("a", "openings.pgn"), ("b", "results.pgn")],
                false,
            ),
            &["remove", "", "b", ""],
            &a_and_b,
            &only_a,
        ),
        (
            (
                "compact",
                &[("a", "openings.pgn"), ("b", "results.pgn")],
                false,
            ),
            &["compact", "", "", ""],
            &a_and_b,
            &a_and_b,
        ),
        (
            ("remove compacted b", A_B_AND_C, true),
            &["remove", "", "b", ""],
            &all_three,
            &a_and_c,
        ),
        (
            ("replace compacted a", &[("a", "openings.pgn")], true),
            &["import", "results.pgn", "a", "--replace"],
            &only_a,
            &a_replaced,
        ),
    ];
    for ((what, imports, compacted), command, before, after) in scenarios {
        let mut crashed = 0;
        let mut seen_after = false;
        for step in 1.. {
            let root = dir.path().join(format!("{what}-{step}"));
            let lake = lake_of(&root, imports);
            let lake_text = text(&lake);
            if compacted {
                compact(&lake);
            }
            let mut args: Vec<String> = match command[0] {
                "import" => vec![
                    "import".into(),
                    input(command[1]),
                    "--into".into(),
                    lake_text.clone(),
                    "--name".into(),
                    command[2].into(),
                    "--moves".into(),
                    "--quiet".into(),
                ],
                "compact" => vec!["lake".into(), lake_text.clone(), "--compact".into()],
                _ => vec![
                    "lake".into(),
                    lake_text.clone(),
                    "--remove".into(),
                    command[2].into(),
                ],
            };
            if !command[3].is_empty() {
                args.push(command[3].into());
            }
            let output = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
                .args(&args)
                .env("PGNLAKE_LAKE_CRASH_AFTER", step.to_string())
                .output()
                .unwrap_or_else(|e| panic!("{e}"));
            let killed = output.status.signal().is_some();
            if !killed {
                assert!(output.status.success(), "{what} {step}: {output:?}");
            }
            // The first read sees the lake whole: before or after, and
            // after once a step has made it so.
            let seen = lake_state(&lake);
            if seen_after || !killed {
                assert_eq!(&seen, after, "{what}, killed after step {step}");
            } else {
                assert!(
                    &seen == before || &seen == after,
                    "{what}, killed after step {step}: {seen:#?}"
                );
            }
            seen_after = &seen == after;
            // And every lake command leaves nothing behind.
            ok(pgnlake(&["lake", &lake_text]));
            assert_eq!(staging_left(&lake), Vec::<String>::new(), "{what} {step}");
            assert_eq!(&lake_state(&lake), &seen, "{what} {step}");
            if !killed {
                if command[0] == "compact" {
                    compact_layout_checked(&lake);
                }
                break;
            }
            crashed += 1;
        }
        // Every table's folder, the summary and the staging were steps.
        assert!(crashed >= 8, "{what}: {crashed}");
    }
}

/// A compacted lake's statistics tables: the compacted partition alone.
fn compact_layout_checked(lake: &Path) {
    for table in schema::TABLES.iter().filter(|t| is_aggregate(t)) {
        assert_eq!(
            common::listing(&lake.join(table.name)),
            ["_layout", "import=_compacted"],
            "{}",
            table.name
        );
    }
}

#[test]
fn merged_shards_go_into_a_lake_as_one_import() {
    let dir = tempfile::tempdir().unwrap();
    let samples = text(&Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data"));
    let mut shards = Vec::new();
    for k in 1..=3 {
        let out = text(&dir.path().join(format!("shard-{k}")));
        let shard = format!("{k}/3");
        ok(pgnlake(&[
            "import", &samples, "--out", &out, "--shard", &shard, "--moves", "--quiet",
        ]));
        shards.push(out);
    }
    let merged = dir.path().join("merged");
    let mut args = vec!["merge", "--into"];
    let merged_text = text(&merged);
    args.push(&merged_text);
    args.extend(["--name", "sample", "--quiet"]);
    args.extend(shards.iter().map(String::as_str));
    ok(pgnlake(&args));
    let direct = dir.path().join("direct");
    ok(pgnlake(&[
        "import",
        &samples,
        "--into",
        &text(&direct),
        "--name",
        "sample",
        "--moves",
        "--quiet",
    ]));
    assert_eq!(lake_state(&merged), lake_state(&direct));
    assert_eq!(lake_state(&merged)[0], "sample | 113");
    // A second merge of the same name is refused like an import.
    let mut again = args.clone();
    again.retain(|a| *a != "--quiet");
    assert!(error(pgnlake(&again)).contains("import sample exists"));
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn a_lake_of_corpus_imports_reads_as_one_import_of_them() {
    let shared = common::corpus_data();
    let corpus = shared.join("corpus");
    let inputs = [
        "lichess-2025-05-sample.pgn",
        "twic1599-sample.pgn",
        "book-collections.pgn.zst",
    ]
    .map(|name| corpus.join(name));
    let dir = tempfile::tempdir().unwrap();
    let (lake, _) = assert_lake_reads_as_one_import(dir.path(), &inputs);
    let listing = ok(pgnlake(&["lake", &text(&lake)]));
    let names: Vec<&str> = listing
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .collect();
    assert_eq!(
        names,
        [
            "book-collections",
            "lichess-2025-05-sample",
            "twic1599-sample"
        ]
    );
}
