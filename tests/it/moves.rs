//! `import --moves` and the move comments: the moves table and the games
//! columns read back with exact values for each comment format (lichess,
//! ChessBase, cutechess, TCEC), checked ply by ply against python-chess on
//! lichess games, and a stale moves table removed by an import without it.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{Imported, import_moves, run_oracle, sample};
use polars::prelude::*;

/// The columns of the moves table the fixtures check, in this order.
const CHECKED: [&str; 16] = [
    "ply",
    "move_number",
    "color",
    "san",
    "uci",
    "piece",
    "is_capture",
    "is_check",
    "is_checkmate",
    "promotion",
    "material_diff",
    "clock_ms",
    "move_time_ms",
    "eval_cp",
    "eval_mate",
    "eval_depth",
];

fn game_id_of(run: &Imported, event: &str) -> i64 {
    let games = common::row_by_event(&run.table("games"), event);
    common::i64_at(&games, "game_id", 0).unwrap_or_else(|| panic!("no game {event}"))
}

/// The game's moves rows as `a | b | …` (nulls `-`), with its NAGs last.
fn moves_of(run: &Imported, event: &str) -> Vec<String> {
    let id = game_id_of(run, event);
    let moves = run
        .table("moves")
        .lazy()
        .filter(col("game_id").eq(lit(id)))
        .collect()
        .unwrap_or_else(|e| panic!("{e}"));
    let checked = moves.select(CHECKED).unwrap_or_else(|e| panic!("{e}"));
    let nags = moves
        .column("nags")
        .and_then(|c| c.list().cloned())
        .unwrap_or_else(|e| panic!("{e}"));
    common::rows(&checked)
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let glyphs: Vec<String> = nags
                .get_as_series(i)
                .and_then(|s| {
                    let values = s.i32().ok()?;
                    Some(
                        (0..values.len())
                            .filter_map(|i| values.get(i))
                            .collect::<Vec<_>>(),
                    )
                })
                .unwrap_or_default()
                .iter()
                .map(|n| format!("${n}"))
                .collect();
            format!("{row} | [{}]", glyphs.join(" "))
        })
        .collect()
}

fn comments_run() -> Imported {
    import_moves(&[sample("time-and-eval-comments.pgn")], 2)
}

#[test]
fn each_comment_format_fills_its_columns() {
    let run = comments_run();
    assert_eq!(
        moves_of(&run, "Comments: lichess"),
        [
            "1 | 1 | white | f3 | f2f3 | P | false | false | false | - | 0 | 60000 | - | -50 | - | - | []",
            "2 | 1 | black | e5 | e7e5 | P | false | false | false | - | 0 | 60000 | - | -45 | - | - | []",
            "3 | 2 | white | g4 | g2g4 | P | false | false | false | - | 0 | 57300 | 3700 | - | -1 | - | [$4 $6]",
            "4 | 2 | black | Qh4# | d8h4 | Q | false | true | true | - | 0 | 59000 | 2000 | - | - | - | []",
        ]
    );
    // %emt gives the move time; a malformed clock is null; no increment in
    // `40/7200:3600`, so no move time from clocks.
    assert_eq!(
        moves_of(&run, "Comments: ChessBase"),
        [
            "1 | 1 | white | e4 | e2e4 | P | false | false | false | - | 0 | 7188000 | 12000 | - | - | - | []",
            "2 | 1 | black | e5 | e7e5 | P | false | false | false | - | 0 | 7138000 | 62000 | - | - | - | []",
            "3 | 2 | white | Nf3 | g1f3 | N | false | false | false | - | 0 | - | - | - | - | - | []",
        ]
    );
    // From a FEN with Black to move: the scores are the mover's, stored as
    // White's; `book` says nothing.
    assert_eq!(
        moves_of(&run, "Comments: cutechess"),
        [
            "1 | 1 | black | c5 | c7c5 | P | false | false | false | - | 0 | - | - | - | - | - | []",
            "2 | 2 | white | Nf3 | g1f3 | N | false | false | false | - | 0 | - | 2100 | 31 | - | 18 | []",
            "3 | 2 | black | d6 | d7d6 | P | false | false | false | - | 0 | - | 1500 | -25 | - | 20 | []",
            "4 | 3 | white | d4 | d2d4 | P | false | false | false | - | 0 | - | 400 | - | -5 | 30 | []",
        ]
    );
    assert_eq!(
        moves_of(&run, "Comments: TCEC"),
        [
            "1 | 1 | white | d4 | d2d4 | P | false | false | false | - | 0 | 1616163 | 29343 | 31 | - | 35 | []",
            "2 | 1 | black | Nf6 | g8f6 | N | false | false | false | - | 0 | 904000 | 56000 | - | -3 | 20 | []",
        ]
    );
}

#[test]
fn games_get_clock_columns_and_the_utc_timestamp() {
    let run = comments_run();
    let games = run.table("games");
    let timestamps = games
        .column("utc_timestamp")
        .and_then(|c| c.cast(&DataType::Int64))
        .unwrap_or_else(|e| panic!("{e}"));
    let lichess = common::row_by_event(&games, "Comments: lichess");
    let at = |frame: &DataFrame, column: &str| common::i64_at(frame, column, 0);
    // date -u -d '2025-05-01 12:34:56' +%s
    assert_eq!(
        timestamps.i64().ok().and_then(|t| t.get(0)),
        Some(1_746_102_896_000)
    );
    assert_eq!(common::bool_at(&lichess, "has_clocks", 0), Some(true));
    assert_eq!(common::bool_at(&lichess, "has_evals", 0), Some(true));
    assert_eq!(at(&lichess, "clock_white_final_ms"), Some(57_300));
    assert_eq!(at(&lichess, "clock_black_final_ms"), Some(59_000));
    assert_eq!(at(&lichess, "base_seconds"), Some(60));
    let cutechess = common::row_by_event(&games, "Comments: cutechess");
    assert_eq!(common::bool_at(&cutechess, "has_clocks", 0), Some(false));
    assert_eq!(common::bool_at(&cutechess, "has_evals", 0), Some(true));
    assert_eq!(at(&cutechess, "clock_white_final_ms"), None);
    let chessbase = common::row_by_event(&games, "Comments: ChessBase");
    assert_eq!(at(&chessbase, "clock_white_final_ms"), Some(7_188_000));
    assert_eq!(at(&chessbase, "clock_black_final_ms"), Some(7_138_000));
    // Only UTCDate + UTCTime make the timestamp; Date alone does not.
    let nulls = timestamps.null_count();
    assert_eq!(nulls, 3, "one game of four has UTCDate and UTCTime");

    let a = run
        .summary
        .annotations
        .unwrap_or_else(|| panic!("annotations are counted with --moves"));
    assert_eq!(
        (a.clocks, a.move_times, a.evals, a.malformed),
        (8, 7, 8, 1),
        "{a:?}"
    );
    assert_eq!(run.summary.tables.get("moves.parquet"), Some(&13));
}

/// An import without `--moves` keeps each game's comments as written and
/// reads only the last few for the games columns (final clocks, has_clocks,
/// has_evals); the games table must equal the one `--moves` writes, which
/// reads every comment as it comes. The annotation counts are `--moves`'s.
fn games_agree_with_and_without_moves(inputs: &[std::path::PathBuf]) {
    let with = import_moves(inputs, 2);
    let without = common::import(inputs, 2);
    let (with_games, without_games) = (with.table("games"), without.table("games"));
    assert!(with_games.height() > 0);
    assert!(
        with_games.equals_missing(&without_games),
        "{with_games:?}\n{without_games:?}"
    );
    assert!(with.summary.annotations.is_some());
    assert_eq!(without.summary.annotations, None);
}

#[test]
fn the_games_columns_are_the_same_without_moves() {
    games_agree_with_and_without_moves(&[
        sample("time-and-eval-comments.pgn"),
        sample("lichess-2025-05-30games.pgn"),
        sample("edge-cases.pgn"),
        sample("variants.pgn"),
    ]);
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn corpus_games_columns_are_the_same_without_moves() {
    let shared = common::corpus_data();
    games_agree_with_and_without_moves(&[
        shared.join("corpus/tcec-engine-sample.pgn.zst"),
        shared.join("corpus/lichess-2025-05-sample.pgn"),
        shared.join("corpus/book-collections.pgn.zst"),
    ]);
}

#[test]
fn an_import_without_moves_removes_an_earlier_moves_table() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out");
    let input = sample("time-and-eval-comments.pgn");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pgnlake"))
            .arg("import")
            .arg(&input)
            .arg("--out")
            .arg(&out)
            .arg("--quiet")
            .args(extra)
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let first = run(&["--moves"]);
    assert!(first.status.success(), "{first:?}");
    assert!(out.join("moves.parquet").exists());
    std::fs::write(out.join("notes.parquet"), b"mine").unwrap_or_else(|e| panic!("{e}"));
    let second = run(&[]);
    assert!(second.status.success(), "{second:?}");
    assert!(!out.join("moves.parquet").exists());
    assert!(
        out.join("notes.parquet").exists(),
        "a file pgnlake did not write"
    );
    let stderr = String::from_utf8_lossy(&second.stderr);
    let expected = format!(
        "pgnlake: removed {} (an earlier run's table; this run did not write it)\n",
        out.join("moves.parquet").display()
    );
    assert_eq!(stderr, expected);
    assert_eq!(
        common::listing(&out),
        [
            ".pgnlake.lock",
            "endgames.parquet",
            "games.parquet",
            "material.parquet",
            "notes.parquet",
            "opening_lines.parquet",
            "openings.parquet",
            "rejects.parquet",
            "results.parquet",
            "summary.json"
        ]
    );
}

/// python-chess's `node.clock()`, `node.eval()`, `eval_depth()`, SAN, UCI,
/// check and Polyglot key of every ply, and each game's clock columns, equal
/// the tables (see `tests/oracle/moves.py`); the counts it prints.
fn python_chess_agrees(pgn: &Path) -> (Imported, Vec<u64>) {
    let run = import_moves(&[pgn.to_path_buf()], 2);
    let lines = run_oracle("moves.py", &[pgn.as_os_str(), run.dir.path().as_os_str()]);
    let mismatches: Vec<&String> = lines.iter().filter(|l| l.starts_with("mismatch")).collect();
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    let last = lines.last().cloned().unwrap_or_default();
    let counts: Vec<u64> = last
        .split_whitespace()
        .filter_map(|field| field.split_once('=').and_then(|(_, n)| n.parse().ok()))
        .collect();
    assert_eq!(counts.len(), 5, "{last}");
    (run, counts)
}

#[test]
fn python_chess_agrees_on_every_ply_of_the_lichess_sample() {
    let (run, counts) = python_chess_agrees(&sample("lichess-2025-05-30games.pgn"));
    // games, plies, clocks, evaluations, en-passant differences.
    assert_eq!(counts, [30, 1742, 1742, 84, 0]);
    let a = run
        .summary
        .annotations
        .unwrap_or_else(|| panic!("annotations are counted with --moves"));
    assert_eq!((a.clocks, a.evals, a.malformed), (1742, 84, 0));
    assert_eq!(run.summary.tables.get("moves.parquet"), Some(&1742));
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn corpus_python_chess_agrees_on_every_ply_of_the_lichess_export() {
    let shared = common::corpus_data();
    let pgn = shared.join("corpus/lichess-2025-05-sample.pgn");
    let (run, counts) = python_chess_agrees(&pgn);
    assert_eq!(counts, [438, 28538, 28538, 2216, 0]);
    assert_eq!(run.summary.annotations.map(|a| a.clocks), Some(28538));
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn corpus_tcec_comments_read_with_few_malformed_values() {
    let shared = common::corpus_data();
    let run = import_moves(&[shared.join("corpus/tcec-engine-sample.pgn.zst")], 2);
    let a = run
        .summary
        .annotations
        .unwrap_or_else(|| panic!("annotations are counted with --moves"));
    // The 5 malformed are engine sentinels (`wv=-21474836.48`).
    assert_eq!(
        (a.clocks, a.move_times, a.evals, a.malformed),
        (406_617, 406_617, 406_612, 5),
        "{a:?}"
    );
    assert_eq!(run.summary.tables.get("moves.parquet"), Some(&445_824));
}
