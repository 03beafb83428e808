//! `pgnlake search` against an independent implementation of scoutfish's
//! query language written with python-chess from docs/search.md
//! (`tests/oracle/scout_search.py`, its queries in
//! `tests/oracle/scout_queries.json`: every rule, lists, sequences,
//! streaks nested in sequences, skip and limit): the same games at the
//! same plies, and the same statistics; on a lake before and after
//! `--compact`, equal to one import; bad queries refused with one line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{self, read_table, run_oracle, sample, str_at};

fn pgnlake(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("pgnlake: {e}"))
}

fn ok(output: Output) -> String {
    assert!(
        output.status.code() == Some(0) || output.status.code() == Some(1),
        "pgnlake failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `pgnlake import sample-data/NAME... --out DATA`.
fn import_samples(names: &[&str], data: &Path) {
    let mut args = vec!["import".to_owned(), "--out".to_owned(), text(data)];
    args.push("-q".to_owned());
    args.extend(names.iter().map(|name| text(&sample(name))));
    ok(pgnlake(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
}

/// `pgnlake search --data DATA --format ndjson -q QUERY`'s output.
fn search_ndjson(data: &Path, query: &str) -> String {
    ok(pgnlake(&[
        "search",
        "--data",
        &text(data),
        "--format",
        "ndjson",
        "-q",
        query,
    ]))
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

fn queries() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/scout_queries.json");
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"))
}

/// A query as the command line takes it: a FEN as it is, JSON as text.
fn argument(query: &Value) -> String {
    match query {
        Value::String(fen) => fen.clone(),
        other => other.to_string(),
    }
}

/// (game_id, plies) by query, from `search --format ndjson`.
fn ours(data: &Path, extra: &[&str]) -> Vec<Vec<(i64, Vec<u64>)>> {
    queries()
        .iter()
        .map(|query| {
            let q = argument(query);
            let mut args = vec!["search", "--data", data.to_str().unwrap_or("?")];
            args.extend(["--format", "ndjson", "-q"]);
            args.extend(extra);
            args.push(&q);
            ok(pgnlake(&args))
                .lines()
                .map(|line| {
                    let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}"));
                    let plies = v["ply"]
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_u64).collect::<Vec<_>>());
                    (
                        v["game_id"].as_i64().unwrap_or(-1),
                        plies.unwrap_or_default(),
                    )
                })
                .collect()
        })
        .collect()
}

/// The games python-chess searches (standard, Chess960, set-up
/// positions) exported as PGN with their ids, in game_id order.
fn exported(data: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    let select =
        "SELECT game_id FROM games WHERE variant_name IN ('standard', 'chess960') ORDER BY game_id";
    let pgn = dir.join("games.pgn");
    ok(pgnlake(&[
        "export",
        "--data",
        &text(data),
        "-e",
        select,
        "-o",
        &text(&pgn),
        "-q",
    ]));
    let ids = ok(pgnlake(&[
        "query",
        "--data",
        &text(data),
        "-e",
        select,
        "--format",
        "csv",
    ]));
    let ids_path = dir.join("ids.txt");
    let lines: Vec<&str> = ids.lines().skip(1).collect();
    std::fs::write(&ids_path, lines.join("\n") + "\n").unwrap_or_else(|e| panic!("{e}"));
    (pgn, ids_path)
}

/// The oracle's matches by query.
fn oracle(pgn: &Path, ids: &Path, queries: usize) -> Vec<Vec<(i64, Vec<u64>)>> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/scout_queries.json");
    let mut by_query = vec![Vec::new(); queries];
    for line in run_oracle(
        "scout_search.py",
        &[pgn.as_os_str(), ids.as_os_str(), file.as_os_str()],
    ) {
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let plies = v["ply"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_u64).collect());
        let query = v["query"].as_u64().unwrap_or(u64::MAX) as usize;
        by_query[query].push((
            v["game_id"].as_i64().unwrap_or(-1),
            plies.unwrap_or_default(),
        ));
    }
    by_query
}

/// The ids of the games python-chess does not search (other variants).
fn other_variants(data: &Path) -> Vec<i64> {
    let select = "SELECT game_id FROM games WHERE variant_name NOT IN ('standard', 'chess960')";
    let out = ok(pgnlake(&[
        "query",
        "--data",
        &text(data),
        "-e",
        select,
        "--format",
        "csv",
    ]));
    out.lines()
        .skip(1)
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Compares our matches of every query with the oracle's, on `data`.
fn compare_with_oracle(data: &Path) -> usize {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (pgn, ids) = exported(data, dir.path());
    let skipped = other_variants(data);
    let queries = queries();
    let theirs = oracle(&pgn, &ids, queries.len());
    let ours = ours(data, &[]);
    let mut compared = 0;
    for (i, query) in queries.iter().enumerate() {
        // skip and limit count every game; the oracle does not see the
        // other variants' games, so those queries compare on games it sees.
        let has_window = query.get("skip").is_some() || query.get("limit").is_some();
        let mine: Vec<_> = ours[i]
            .iter()
            .filter(|(id, _)| !skipped.contains(id))
            .cloned()
            .collect();
        if has_window && !skipped.is_empty() {
            continue;
        }
        assert_eq!(mine, theirs[i], "query {i}: {query}");
        compared += mine.len();
    }
    compared
}

#[test]
fn every_query_matches_python_chess_at_the_same_plies() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    let inputs: Vec<String> = [
        "lichess-2025-05-30games.pgn",
        "openings.pgn",
        "results.pgn",
        "edge-cases.pgn",
        "untidy-archive.pgn",
        "time-and-eval-comments.pgn",
        "walled-kings.pgn",
    ]
    .iter()
    .map(|n| text(&sample(n)))
    .collect();
    let mut args = vec!["import", "--out", data.to_str().unwrap_or("?"), "-q"];
    args.extend(inputs.iter().map(String::as_str));
    ok(pgnlake(&args));
    let compared = compare_with_oracle(&data);
    assert!(compared > 500, "only {compared} matches compared");
}

#[test]
fn chess960_set_ups_and_variants_are_searched_from_their_own_start() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    import_samples(&["variants.pgn"], &data);
    compare_with_oracle(&data);
    // A crazyhouse drop is a move; the start of a set-up game is ply 0.
    let drops = search_ndjson(&data, r#"{"moved": "N", "captured": ""}"#);
    assert!(!drops.is_empty());
}

/// Our statistics of each query, against the oracle's count of the same
/// games by speed, band and month.
#[test]
fn statistics_equal_python_chess_recount_for_every_filter() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    import_samples(&["lichess-2025-05-30games.pgn", "openings.pgn"], &data);
    let (pgn, ids) = exported(&data, dir.path());
    let games = read_table(&data.join("games.parquet"));
    let months = common::dates(&games, "month");
    let tsv: Vec<String> = (0..games.height())
        .map(|i| {
            let counted = match str_at(&games, "result_check", i).as_deref() {
                Some("consistent") => {
                    str_at(&games, "declared_result", i).or(str_at(&games, "result_by_rule", i))
                }
                _ => str_at(&games, "result_by_rule", i),
            };
            let show = |v: Option<String>| v.unwrap_or_else(|| "-".into());
            format!(
                "{}\t{}\t{}\t{}\t{}\t{}",
                common::i64_at(&games, "game_id", i).unwrap_or(-1),
                show(str_at(&games, "time_class", i)),
                show(common::i32_at(&games, "white_elo", i).map(|e| e.to_string())),
                show(common::i32_at(&games, "black_elo", i).map(|e| e.to_string())),
                show(months[i].as_ref().map(|m| m[..7].to_owned())),
                show(counted.filter(|r| r != "*")),
            )
        })
        .collect();
    let tsv_path = dir.path().join("games.tsv");
    std::fs::write(&tsv_path, tsv.join("\n") + "\n").unwrap_or_else(|e| panic!("{e}"));
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/scout_queries.json");
    let theirs: Vec<Value> = run_oracle(
        "scout_search.py",
        &[
            "--stats".as_ref(),
            pgn.as_os_str(),
            ids.as_os_str(),
            file.as_os_str(),
            tsv_path.as_os_str(),
        ],
    )
    .iter()
    .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}")))
    .collect();
    let stats_path = dir.path().join("stats.json");
    let stats = |query: &Value, extra: &[&str]| -> Value {
        let q = argument(query);
        let mut args = vec![
            "search",
            "--data",
            data.to_str().unwrap_or("?"),
            "-q",
            "-o",
            "/dev/null",
        ];
        args.extend(["--stats", stats_path.to_str().unwrap_or("?")]);
        args.extend(extra);
        args.push(&q);
        ok(pgnlake(&args));
        let json = std::fs::read_to_string(&stats_path).unwrap_or_else(|e| panic!("{e}"));
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"))
    };
    let mut checked = 0;
    for (i, query) in queries().iter().enumerate() {
        let want = &theirs[i];
        let got = stats(query, &[]);
        for key in ["total", "by_speed", "by_band", "by_month"] {
            assert_eq!(got[key], want[key], "query {i} {query}: {key}");
        }
        checked += got["total"]["games"].as_u64().unwrap_or(0);
        // The filters' checks cost a run each: the first queries (every
        // rule kind once) are enough for them.
        if i > 12 || query.get("skip").is_some() || query.get("limit").is_some() {
            continue;
        }
        // A filter keeps the games of its speed, band or months alone.
        for (speed, counts) in want["by_speed"].as_object().into_iter().flatten() {
            assert_eq!(
                &stats(query, &["--speed", speed])["total"],
                counts,
                "query {i} --speed {speed}"
            );
        }
        for (band, counts) in want["by_band"].as_object().into_iter().flatten() {
            if band != "-" {
                assert_eq!(
                    &stats(query, &["--rating", band])["total"],
                    counts,
                    "query {i} --rating {band}"
                );
            }
        }
        for (month, counts) in want["by_month"].as_object().into_iter().flatten() {
            if month != "-" {
                let range = ["--since", month, "--until", month];
                assert_eq!(&stats(query, &range)["total"], counts, "query {i} {month}");
            }
        }
    }
    assert!(checked > 300, "{checked}");
}

#[test]
fn a_bad_query_is_one_line_exit_2_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    import_samples(&["openings.pgn"], &data);
    let out = dir.path().join("matches.csv");
    for (query, says) in [
        ("{not json", "not JSON"),
        (r#"{"colour": "white"}"#, "unknown rule \"colour\""),
        (r#"{"sub-fen": "8/8/8/9/8/8/8/8"}"#, "\"sub-fen\""),
        (
            r#"{"white-move": "Zz9"}"#,
            "\"white-move\" \"Zz9\": not a move in SAN",
        ),
        (r#"{"material": "KQK"}"#, ""),
        (r#"{"material": "QKK"}"#, "material \"QKK\""),
        (r#"{"result": "2-0"}"#, "\"result\" \"2-0\""),
        (r#"{"stm": "red"}"#, "\"stm\""),
        (
            r#"{"sequence": [{"sequence": [{"pass": ""}]}]}"#,
            "\"sequence\" inside a condition",
        ),
        (
            r#"{"streak": [{"streak": [{"pass": ""}]}]}"#,
            "\"streak\" inside a condition",
        ),
        (r#"{"imbalance": "PP"}"#, "no 'v'"),
        (r#"{"skip": -1, "pass": ""}"#, "\"skip\""),
        ("8/8/8 w - - 0 1", "neither a JSON object nor a FEN"),
        ("{}", "a condition without rules"),
    ] {
        let output = pgnlake(&["search", "--data", &text(&data), "-o", &text(&out), query]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        if says.is_empty() {
            assert!(
                output.status.code() == Some(0) || output.status.code() == Some(1),
                "{query}: {stderr}"
            );
            let _ = std::fs::remove_file(&out);
            continue;
        }
        assert_eq!(output.status.code(), Some(2), "{query}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{query}: {stderr}");
        assert!(stderr.contains(says), "{query}: {stderr}");
        assert!(!out.exists(), "{query}: {} written", out.display());
    }
}

#[test]
fn every_format_lists_the_same_matches() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    import_samples(&["openings.pgn"], &data);
    let q = r#"{"sequence": [{"white-move": "e4"}, {"black-move": ["c5", "e5"]}]}"#;
    let d = text(&data);
    let ndjson = search_ndjson(&data, q);
    let csv = ok(pgnlake(&[
        "search", "--data", &d, "--format", "csv", "-q", q,
    ]));
    let parquet = dir.path().join("m.parquet");
    ok(pgnlake(&[
        "search",
        "--data",
        &d,
        "--format",
        "parquet",
        "-o",
        &text(&parquet),
        "-q",
        q,
    ]));
    let frame = read_table(&parquet);
    let from_json: Vec<String> = ndjson
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}"));
            let plies: Vec<String> = v["ply"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| p.to_string())
                .collect();
            format!("{},{}", v["game_id"], plies.join(" "))
        })
        .collect();
    assert!(!from_json.is_empty());
    assert_eq!(csv.lines().skip(1).collect::<Vec<_>>(), from_json);
    assert_eq!(frame.height(), from_json.len());
    let ids = frame
        .column("game_id")
        .and_then(|c| c.i64().cloned())
        .unwrap_or_else(|e| panic!("{e}"));
    let plies = frame
        .column("ply")
        .and_then(|c| c.list().cloned())
        .unwrap_or_else(|e| panic!("{e}"));
    for (row, line) in from_json.iter().enumerate() {
        let list = plies
            .get_as_series(row)
            .unwrap_or_else(|| panic!("row {row}"));
        let values: Vec<String> = list
            .i32()
            .unwrap_or_else(|e| panic!("{e}"))
            .iter()
            .flatten()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(
            &format!("{},{}", ids.get(row).unwrap_or(-1), values.join(" ")),
            line
        );
    }
}

/// A match named by what stays the same across imports: its source file
/// and its place there.
fn placed(data: &Path, matches: &str) -> Vec<(String, i64, Vec<u64>)> {
    let mut places: BTreeMap<(String, i64), (String, i64)> = BTreeMap::new();
    let games = ok(pgnlake(&[
        "query",
        "--data",
        &text(data),
        "-e",
        "SELECT * FROM games",
        "--format",
        "json",
    ]));
    let rows: Vec<Value> = serde_json::from_str(&games).unwrap_or_else(|e| panic!("{e}"));
    for v in rows {
        let import = v["import"].as_str().unwrap_or("").to_owned();
        let source = v["source"].as_str().unwrap_or("?");
        let name = Path::new(source)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        places.insert(
            (import, v["game_id"].as_i64().unwrap_or(-1)),
            (name, v["game_index"].as_i64().unwrap_or(-1)),
        );
    }
    let mut out: Vec<(String, i64, Vec<u64>)> = matches
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}"));
            let key = (
                v["import"].as_str().unwrap_or("").to_owned(),
                v["game_id"].as_i64().unwrap_or(-1),
            );
            let (source, index) = places
                .get(&key)
                .cloned()
                .unwrap_or_else(|| panic!("{key:?}"));
            let plies = v["ply"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
                .collect();
            (source, index, plies)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_lake_answers_as_one_import_before_and_after_compaction() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lake = dir.path().join("lake");
    let single = dir.path().join("single");
    let files = ["openings.pgn", "lichess-2025-05-30games.pgn", "results.pgn"];
    for name in files {
        let stem = name.trim_end_matches(".pgn").replace('.', "-");
        ok(pgnlake(&[
            "import",
            &text(&sample(name)),
            "--into",
            &text(&lake),
            "--name",
            &stem,
            "-q",
        ]));
    }
    let mut args = vec![
        "import".to_owned(),
        "--out".to_owned(),
        text(&single),
        "-q".to_owned(),
    ];
    args.extend(files.iter().map(|n| text(&sample(n))));
    ok(pgnlake(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    // The statistics too: the same games counted the same way.
    let stats = |data: &Path, q: &str| -> String {
        let path = dir.path().join("stats.json");
        ok(pgnlake(&[
            "search",
            "--data",
            &text(data),
            "-q",
            "-o",
            "/dev/null",
            "--stats",
            &text(&path),
            q,
        ]));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"))
    };
    for query in queries().iter().take(12) {
        let q = argument(query);
        assert_eq!(stats(&lake, &q), stats(&single, &q), "{q}");
    }
    for query in queries() {
        let q = argument(&query);
        if query.get("skip").is_some() || query.get("limit").is_some() {
            continue;
        }
        let search = |data: &Path| search_ndjson(data, &q);
        let before = placed(&lake, &search(&lake));
        let one = placed(&single, &search(&single));
        assert_eq!(before, one, "{q}");
    }
    ok(pgnlake(&["lake", &text(&lake), "--compact"]));
    for query in queries().iter().take(12) {
        let q = argument(query);
        let search = |data: &Path| search_ndjson(data, &q);
        assert_eq!(
            placed(&lake, &search(&lake)),
            placed(&single, &search(&single)),
            "{q}"
        );
    }
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn the_corpus_matches_python_chess_on_standard_set_up_and_chess960_games() {
    let shared = common::corpus_data().join("corpus");
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    let mut args = vec![
        "import".to_owned(),
        "--out".to_owned(),
        text(&data),
        "-q".to_owned(),
    ];
    args.push(text(&shared.join("lichess-2025-05-sample.pgn")));
    args.push(text(&shared.join("book-collections.pgn.zst")));
    args.push(text(&shared.join("tcec-engine-sample.pgn.zst")));
    ok(pgnlake(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    // A slice of each kind (python-chess replays every game for every query).
    let slice = dir.path().join("slice");
    // The slice is imported again from an export of those games.
    let pgn = dir.path().join("slice.pgn");
    let pick = "SELECT game_id FROM games WHERE (start_fen IS NULL AND NOT chess960 AND game_id % 40 = 0) \
        OR (start_fen IS NOT NULL AND NOT chess960 AND game_id % 15 = 0) OR (chess960 AND game_id % 5 = 0)";
    ok(pgnlake(&[
        "export",
        "--data",
        &text(&data),
        "-e",
        pick,
        "-o",
        &text(&pgn),
        "-q",
    ]));
    ok(pgnlake(&[
        "import",
        &text(&pgn),
        "--out",
        &text(&slice),
        "-q",
    ]));
    let compared = compare_with_oracle(&slice);
    assert!(compared > 1000, "only {compared} matches compared");
}

/// The games `export --search` writes are the games the search lists:
/// imported again, every one of them matches, and no other game.
#[test]
fn export_search_writes_the_matching_games_as_pgn() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    let d = text(&data);
    import_samples(&["lichess-2025-05-30games.pgn", "results.pgn"], &data);
    let q = r#"{"sequence": [{"white-move": "e4"}, {"result-type": "mate"}]}"#;
    let listed = search_ndjson(&data, q);
    let pgn = dir.path().join("mates.pgn");
    ok(pgnlake(&[
        "export",
        "--data",
        &d,
        "--search",
        q,
        "-o",
        &text(&pgn),
        "-q",
    ]));
    let again = dir.path().join("again");
    ok(pgnlake(&[
        "import",
        &text(&pgn),
        "--out",
        &text(&again),
        "-q",
    ]));
    let games = read_table(&again.join("games.parquet"));
    assert_eq!(games.height(), listed.lines().count());
    assert!(games.height() > 0);
    let rematched = search_ndjson(&again, q);
    assert_eq!(rematched.lines().count(), games.height());
    // A bad query is refused before anything is written.
    let out = dir.path().join("none.pgn");
    let refused = pgnlake(&[
        "export",
        "--data",
        &d,
        "--search",
        r#"{"moved": "X"}"#,
        "-o",
        &text(&out),
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(!out.exists());
}

/// `/search` answers as `pgnlake search` finds: its statistics over every
/// match and the first games; a bad query is a 400 in JSON; the explorer
/// page links the position shown to it.
#[test]
fn the_server_answers_search_as_the_command_does() {
    use crate::common::app::App;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    let d = text(&data);
    import_samples(&["lichess-2025-05-30games.pgn", "openings.pgn"], &data);
    let app = App::over(&data);
    let stats_path = dir.path().join("stats.json");
    for query in queries().iter().take(20) {
        if query.get("skip").is_some() || query.get("limit").is_some() {
            continue;
        }
        let q = argument(query);
        let listed = ok(pgnlake(&[
            "search",
            "--data",
            &d,
            "--format",
            "ndjson",
            "-q",
            "--stats",
            &text(&stats_path),
            &q,
        ]));
        let stats: Value =
            serde_json::from_str(&std::fs::read_to_string(&stats_path).unwrap_or_default())
                .unwrap_or_else(|e| panic!("{e}"));
        let key = if query.is_string() { "fen" } else { "q" };
        let uri = format!(
            "/search?{}",
            serde_urlencoded::to_string([(key, q.as_str()), ("games", "3")])
                .unwrap_or_else(|e| panic!("{e}"))
        );
        let answer = app.get(&uri);
        assert_eq!(answer.status, 200, "{uri}: {}", answer.body);
        let json = answer.json();
        assert_eq!(json["stats"], stats, "{q}");
        assert_eq!(
            json["matched"].as_u64(),
            Some(listed.lines().count() as u64),
            "{q}"
        );
        let first: Vec<i64> = listed
            .lines()
            .take(3)
            .map(|l| {
                serde_json::from_str::<Value>(l)
                    .map(|v| v["game_id"].as_i64().unwrap_or(-1))
                    .unwrap_or(-1)
            })
            .collect();
        let ids: Vec<i64> = json["games"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|g| g["id"].as_i64().unwrap_or(-1))
            .collect();
        assert_eq!(ids, first, "{q}");
    }
    for bad in [
        "/search?q=%7Bnope",
        "/search?q=%7B%22moved%22%3A%22X%22%7D",
        "/search",
        "/search?fen=8%2F8",
        "/search?q=%7B%22pass%22%3A1%7D&speed=warp",
    ] {
        let answer = app.get(bad);
        assert_eq!(answer.status, 400, "{bad}: {}", answer.body);
        assert!(answer.json()["error"].is_string(), "{bad}");
    }
    let page = app.get("/?play=e2e4,c7c5");
    assert!(page.body.contains("href=\"/search?fen=rnbqkbnr%2Fpp1ppppp%2F8%2F2p5%2F4P3%2F8%2FPPPP1PPP%2FRNBQKBNR+w+KQkq+-+0+2\""), "{}", page.body);
}

/// An exact position inside the opening window: the games found include
/// every game the tree counts there (its count, its top and latest games).
#[test]
fn an_exact_position_finds_every_game_the_tree_counts_for_it() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    import_samples(&["lichess-2025-05-30games.pgn", "openings.pgn"], &data);
    let d = text(&data);
    let mut checked = 0;
    for moves in [
        &["e4"][..],
        &["e4", "c5"],
        &["d4"],
        &["e4", "e5", "Nf3"],
        &["e4", "c5", "Nf3"],
    ] {
        let mut args = vec!["explore", "--data", &d, "--format", "json"];
        args.extend(["--games", "100", "--recent", "100"]);
        args.extend(moves);
        let explored: Value =
            serde_json::from_str(&ok(pgnlake(&args))).unwrap_or_else(|e| panic!("{e}"));
        let epd = explored["epd"]
            .as_str()
            .unwrap_or_else(|| panic!("{explored}"));
        let fen = format!("{epd} 0 1");
        let found: std::collections::BTreeSet<i64> = search_ndjson(&data, &fen)
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}"));
                v["game_id"].as_i64().unwrap_or(-1)
            })
            .collect();
        let counted = explored["games"].as_u64().unwrap_or(u64::MAX);
        assert!(
            found.len() as u64 >= counted,
            "{moves:?}: {} < {counted}",
            found.len()
        );
        let named = explored["moves"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|m| m["top_games"].as_array().into_iter().flatten())
            .chain(explored["recent_games"].as_array().into_iter().flatten())
            .filter_map(|g| g["game_id"].as_i64());
        for id in named {
            assert!(
                found.contains(&id),
                "{moves:?}: game {id} of the tree not found"
            );
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked}");
}
