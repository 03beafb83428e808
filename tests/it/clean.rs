//! `pgnlake clean`: clean PGN out, rejects byte for byte, accounting, round
//! trips through import, and exact export-format output.

use crate::common;

use std::path::{Path, PathBuf};

use common::{import, sample};
use pgnlake::clean::enrich::{Enrich, SplitBy, StripPart, TagToAdd};
use pgnlake::clean::{CleanOptions, CleanSummary, run_clean};

/// Plain options: clean `input` into `output`, nothing else asked.
fn options(input: &Path, output: &Path) -> CleanOptions {
    common::clean_options(vec![input.to_path_buf()], output)
}

fn clean(input: &Path, output: &Path, rejects: Option<PathBuf>) -> CleanSummary {
    run(CleanOptions {
        rejects,
        ..options(input, output)
    })
}

fn run(options: CleanOptions) -> CleanSummary {
    run_clean(&options).unwrap_or_else(|e| panic!("clean failed: {e}"))
}

/// `clean --repair` of `input` into `dir`, with a report: the summary,
/// the clean PGN's path and the report's.
fn repaired(input: &Path, dir: &Path) -> (CleanSummary, PathBuf, PathBuf) {
    let output = dir.join("clean.pgn");
    let report = dir.join("report.parquet");
    let summary = run(CleanOptions {
        report: Some(report.clone()),
        repair: true,
        ..options(input, &output)
    });
    (summary, output, report)
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_clean_file_round_trips_through_import_and_clean() {
    let dir = tmp();
    let input = sample("lichess-2025-05-30games.pgn");
    let first = dir.path().join("clean.pgn.zst");
    let summary = clean(&input, &first, None);
    assert_eq!(
        (summary.games_read, summary.clean, summary.rejected),
        (30, 30, 0)
    );
    // Importing the clean output gives the same games table.
    let direct = import(std::slice::from_ref(&input), 2).table("games");
    let cleaned = import(std::slice::from_ref(&first), 2).table("games");
    // Where each game is, and its bytes as read (the clean file writes
    // them anew).
    let place = [
        "game_id",
        "source",
        "game_index",
        "offset",
        "line",
        "raw_hash",
    ];
    let keep: Vec<String> = direct
        .get_column_names()
        .iter()
        .map(|n| n.to_string())
        .filter(|n| !place.contains(&n.as_str()))
        .collect();
    let a = direct
        .select(keep.clone())
        .unwrap_or_else(|e| panic!("{e}"));
    let b = cleaned.select(keep).unwrap_or_else(|e| panic!("{e}"));
    assert!(a.equals_missing(&b), "the games tables differ");
    // Cleaning the clean output changes nothing.
    let second = dir.path().join("again.pgn");
    clean(&first, &second, None);
    let third = dir.path().join("third.pgn");
    clean(&second, &third, None);
    let (second, third) = (
        std::fs::read(&second).unwrap_or_default(),
        std::fs::read(&third).unwrap_or_default(),
    );
    assert!(!second.is_empty());
    assert!(second == third, "clean is not idempotent");
    // Comments (%clk) are kept.
    let text = String::from_utf8(second).unwrap_or_default();
    assert!(text.contains("1. e4 {[%clk 0:05:00]} 1... e5 {[%clk 0:05:00]} 2. Nf3"));
}

#[test]
fn rejects_are_set_aside_byte_for_byte_and_every_game_is_counted() {
    let dir = tmp();
    let input = sample("edge-cases.pgn");
    let rejects = dir.path().join("rejects.pgn");
    let summary = clean(&input, &dir.path().join("clean.pgn"), Some(rejects.clone()));
    assert_eq!(summary.games_read, 29);
    assert_eq!(summary.clean, 18);
    assert_eq!(summary.rejected, 11);
    assert_eq!(summary.duplicates, 0);
    assert_eq!(
        summary.games_read,
        summary.clean + summary.rejected + summary.duplicates
    );
    assert_eq!(summary.rejected_by_reason.get("unknown_token"), Some(&2));
    // Each rejected game's bytes, as import quarantined them, in order.
    let written = std::fs::read_to_string(&rejects).unwrap_or_default();
    let table = import(&[input], 2).table("rejects");
    let mut from = 0;
    for i in 0..table.height() {
        let raw = common::str_at(&table, "raw_pgn", i).unwrap_or_default();
        let at = written[from..]
            .find(&raw)
            .unwrap_or_else(|| panic!("reject {i} is not in rejects.pgn byte for byte"));
        from += at + raw.len();
    }
}

#[test]
fn export_format_exactly() {
    let dir = tmp();
    let input = dir.path().join("in.pgn");
    std::fs::write(
        &input,
        concat!(
            "[White \"Kasparov, \\\"Garry\\\"\"]\n",
            "[Black \"back\\\\slash\"]\n",
            "[Event \"Fixture\"]\n",
            "[Annotator \"pgnlake\"]\n",
            "[Result \"1:0\"]\n",
            "\n",
            "{Opening remark} 1.e4 $1 e5 {a\n  reply} 2.Nf3 (2.f4 exf4) Nc6 !? 3.Bb5 (3.Qxf7) 1:0\n",
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let output = dir.path().join("out.pgn");
    let summary = clean(&input, &output, None);
    assert_eq!((summary.variations, summary.variations_dropped), (2, 1));
    let text = std::fs::read_to_string(&output).unwrap_or_default();
    assert_eq!(
        text,
        concat!(
            "[Event \"Fixture\"]\n",
            "[Site \"?\"]\n",
            "[Date \"????.??.??\"]\n",
            "[Round \"?\"]\n",
            "[White \"Kasparov, \\\"Garry\\\"\"]\n",
            "[Black \"back\\\\slash\"]\n",
            "[Result \"1-0\"]\n",
            "[Annotator \"pgnlake\"]\n",
            "\n",
            "{Opening remark} 1. e4 $1 e5 {a reply} 2. Nf3 (2. f4 exf4) 2... Nc6 $5 3. Bb5\n",
            "{illegal variation: Qxf7} 1-0\n",
            "\n",
        )
    );
}

#[test]
fn latin1_input_comes_out_as_utf8() {
    let dir = tmp();
    let input = dir.path().join("latin1.pgn");
    let mut bytes = b"[Event \"R".to_vec();
    bytes.push(0xE9); // é in Windows-1252
    bytes.extend_from_slice(b"ti memorial\"]\n[Result \"*\"]\n\n1. Nf3 {Zukertort ");
    bytes.push(0xE9);
    bytes.extend_from_slice(b"t\xE9} d5 *\n");
    std::fs::write(&input, bytes).unwrap_or_else(|e| panic!("{e}"));
    let output = dir.path().join("out.pgn");
    let summary = clean(&input, &output, None);
    assert_eq!(summary.encoding_repaired, 1);
    let text = std::fs::read_to_string(&output).unwrap_or_else(|e| panic!("not UTF-8: {e}"));
    assert!(text.contains("[Event \"Réti memorial\"]"), "{text}");
    assert!(text.contains("1. Nf3 {Zukertort été} 1... d5 *"), "{text}");
}

#[test]
fn fix_results_sets_only_what_the_board_proves_and_reports_it() {
    let dir = tmp();
    let input = sample("edge-cases.pgn");
    let output = dir.path().join("fixed.pgn");
    let report = dir.path().join("report.parquet");
    let summary = run(CleanOptions {
        fix_results: true,
        report: Some(report.clone()),
        ..options(&input, &output)
    });
    assert_eq!(summary.results_fixed, 4);
    // 4 results fixed, 1 game transcoded, 11 rejects (the one variation in
    // the file is legal and kept).
    assert_eq!(summary.report_rows, 4 + 1 + 11);
    let text = std::fs::read_to_string(&output).unwrap_or_default();
    assert!(text.contains(
        "[Event \"contradicts checkmate\"]\n[Site \"pgnlake edge cases\"]\n[Date \"2026.11.29\"]\n\
         [Round \"1\"]\n[White \"White\"]\n[Black \"Black\"]\n[Result \"0-1\"]\n\
         [OriginalResult \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n"
    ));
    // Importing the fixed file: every proven result is now the declared one,
    // and every result the board does not prove is as it was (a missing one
    // is written as `*`).
    let before = import(&[input], 2).table("games");
    let after = import(&[output], 2).table("games");
    assert_eq!(before.height(), after.height());
    for i in 0..after.height() {
        let proven = common::str_at(&after, "result_by_rule", i);
        let declared = common::str_at(&after, "declared_result", i);
        match proven {
            Some(result) => assert_eq!(declared.as_deref(), Some(result.as_str()), "game {i}"),
            None => {
                let was = common::str_at(&before, "declared_result", i);
                assert_eq!(declared, was.or(Some("*".to_owned())), "game {i}");
            }
        }
    }
    // The report: one row per action, with the game's place.
    let table = common::read_table(&report);
    let rows = common::rows(&table);
    assert_eq!(rows.len(), 16);
    let source = sample("edge-cases.pgn").display().to_string();
    assert_eq!(
        rows[0],
        format!("result_fixed | {source} | 2 | 153 | 11 | 4 | 1-0 -> 0-1 (checkmate) | -")
    );
    assert_eq!(
        rows[3],
        format!(
            "result_fixed | {source} | 11 | 2059 | 112 | 17 | 1-0 -> 1/2-1/2 (fivefold_repetition) | -"
        )
    );
    assert!(rows[5].starts_with(&format!(
        "reject | {source} | 18 | 3485 | 186 | - | garbage: "
    )));
}

#[test]
fn a_failed_run_leaves_no_output_behind() {
    let dir = tmp();
    let input = sample("lichess-2025-05-30games.pgn");
    // The report cannot be created: the clean output and the rejects file,
    // already open under temporary names, must go.
    let options = CleanOptions {
        rejects: Some(dir.path().join("rejects.pgn")),
        report: Some(dir.path().join("no-such-folder").join("report.parquet")),
        ..options(&input, &dir.path().join("clean.pgn"))
    };
    assert!(run_clean(&options).is_err());
    // The lock file stays (empty, unlocked); nothing else.
    assert_eq!(common::listing(dir.path()), [".clean.pgn.lock"]);
}

#[test]
fn a_truncated_input_keeps_the_games_before_the_cut() {
    let dir = tmp();
    let plain = std::fs::read(sample("lichess-2025-05-30games.pgn")).unwrap_or_default();
    // One zstd frame per 1 KiB, so that the frames before the cut decode.
    let zst: Vec<u8> = plain
        .chunks(1024)
        .flat_map(|chunk| zstd::encode_all(chunk, 3).unwrap_or_default())
        .collect();
    let cut = zst.get(..zst.len() / 2).unwrap_or_default();
    let input = dir.path().join("broken.pgn.zst");
    std::fs::write(&input, cut).unwrap_or_else(|e| panic!("{e}"));
    let summary = run(options(&input, &dir.path().join("clean.pgn")));
    let truncated = summary.inputs[0].truncated.clone();
    assert!(truncated.is_some(), "{summary:?}");
    assert!(summary.balanced);
    assert!(summary.clean >= 10, "{summary:?}");
    assert_eq!(summary.rejected_by_reason.get("truncated_input"), Some(&1));
    assert_eq!(
        truncated.map(|t| t.offset),
        Some(summary.inputs[0].uncompressed_bytes)
    );
}

#[test]
fn the_chinese_scoresheets_come_out_as_san() {
    let dir = tmp();
    let (summary, output, report) = repaired(&sample("chinese-notation.pgn"), dir.path());
    assert_eq!(
        (summary.games_read, summary.clean, summary.rejected),
        (2, 2, 0)
    );
    assert_eq!(summary.games_repaired, 2);
    let text = std::fs::read_to_string(&output).unwrap_or_default();
    let movetexts: Vec<String> = text
        .split("\n\n")
        .filter(|part| part.starts_with("1."))
        .map(|part| part.replace('\n', " "))
        .collect();
    assert_eq!(
        movetexts,
        [
            "1. e4 d6 2. d4 Nf6 3. Nc3 g6 4. Be2 Bg7 5. g4 h6 6. h3 c5 7. d5 O-O 8. h4 e6 9. \
             g5 hxg5 10. hxg5 Ne8 11. Qd3 exd5 12. Nxd5 Nc6 13. Qg3 Be6 14. Qh4 f5 15. Qh7+ \
             Kf7 16. Qxg6+ $3 Kxg6 17. Bh5+ Kh7 18. Bf7+ Bh6 19. g6+ Kg7 20. Bxh6+ 1-0",
            "1. e4 e5 2. Nf3 Nc6 3. Bc4 d6 4. Nc3 Bg4 5. O-O Nd4 6. Nxe5 Bxd1 7. Bxf7+ Ke7 8. \
             Nd5# 1-0",
        ]
    );
    // The wrong origin square (象e4: the bishop stands on c4) at ply 13.
    let rows = common::rows(&common::read_table(&report));
    assert!(
        rows.iter().any(|r| r.starts_with("move_repaired")
            && r.contains(" | 2 | ")
            && r.ends_with(" | 13 | 象e4×f7＋ -> Bxf7+ | notation")),
        "{rows:#?}"
    );
    // The second game ends in checkmate.
    let games = import(&[output], 2).table("games");
    assert_eq!(
        common::str_at(&games, "end_state", 1).as_deref(),
        Some("checkmate")
    );
    // Without --repair both games are rejected.
    let plain = clean(
        &sample("chinese-notation.pgn"),
        &dir.path().join("plain.pgn"),
        None,
    );
    assert_eq!(plain.rejected, 2);
}

#[test]
fn dedupe_keeps_the_richest_copy_and_sets_the_others_aside() {
    let dir = tmp();
    let input = dir.path().join("dups.pgn");
    std::fs::write(
        &input,
        concat!(
            "[Event \"A\"]\n[White \"X\"]\n[Black \"Y\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n",
            "[Event \"A\"]\n[White \"X\"]\n[Black \"Y\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n",
            "[Event \"C\"]\n[White \"X\"]\n[Black \"Y\"]\n[Result \"1-0\"]\n[WhiteElo \"2500\"]\n\
             [BlackElo \"2400\"]\n\n1. e4 e5 2. Nf3 1-0\n\n",
            "[Event \"D\"]\n[White \"X\"]\n[Black \"Y\"]\n[Result \"*\"]\n[WhiteElo \"2500\"]\n\
             [BlackElo \"2400\"]\n[Annotator \"z\"]\n\n1. e4 e5 2. Nf3 *\n\n",
            "[Event \"E\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n\n",
            "[Event \"F\"]\n[White \" x \"]\n[Black \"Y\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n",
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let dedupe = |mode, name: &str| {
        let duplicates = dir.path().join(format!("{name}-dups.pgn"));
        let summary = run(CleanOptions {
            dedupe: mode,
            duplicates: Some(duplicates.clone()),
            ..options(&input, &dir.path().join(format!("{name}.pgn")))
        });
        assert_eq!(
            summary.games_read,
            summary.clean + summary.rejected + summary.duplicates
        );
        let set_aside = std::fs::read_to_string(duplicates).unwrap_or_default();
        (summary, set_aside)
    };
    let source = input.display().to_string();
    // Exact: the second game is the first one again.
    let (summary, set_aside) = dedupe(pgnlake::clean::dedupe::DedupeMode::Exact, "exact");
    assert_eq!((summary.clean, summary.duplicates), (5, 1));
    assert_eq!(set_aside.matches("[DuplicateOf ").count(), 1);
    assert!(set_aside.contains(&format!("[DuplicateOf \"{source} game 1\"]")));
    // Moves: four games share the mainline; C is the richest finished one
    // (D has more tags but no result).
    let (summary, set_aside) = dedupe(pgnlake::clean::dedupe::DedupeMode::Moves, "moves");
    assert_eq!((summary.clean, summary.duplicates), (3, 3));
    assert_eq!(
        set_aside
            .matches(&format!("[DuplicateOf \"{source} game 3\"]"))
            .count(),
        3
    );
    let kept = std::fs::read_to_string(dir.path().join("moves.pgn")).unwrap_or_default();
    assert!(kept.contains("[Event \"C\"]") && kept.contains("[Event \"E\"]"));
    assert!(!kept.contains("[Event \"D\"]"));
    // Contained: F (1.e4 e5, same players up to case and spaces) is a
    // truncated copy of C's line.
    let (summary, set_aside) = dedupe(pgnlake::clean::dedupe::DedupeMode::Contained, "contained");
    assert_eq!((summary.clean, summary.duplicates), (2, 4));
    assert_eq!(
        set_aside
            .matches(&format!("[DuplicateOf \"{source} game 3\"]"))
            .count(),
        4
    );
    assert!(set_aside.contains("[Event \"F\"]"));
}

#[test]
fn dedupe_moves_takes_games_without_moves_for_duplicates_only_of_exact_copies() {
    // Issue 63: every game without moves (forfeits between different
    // players) was a duplicate of every other.
    let dir = tmp();
    let input = dir.path().join("forfeits.pgn");
    std::fs::write(
        &input,
        concat!(
            "[Event \"R1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1-0\n\n",
            "[Event \"R1\"]\n[White \"C\"]\n[Black \"D\"]\n[Result \"0-1\"]\n\n0-1\n\n",
            "[Event \"R2\"]\n[White \"A\"]\n[Black \"C\"]\n[Result \"1-0\"]\n\n1-0\n\n",
            "[Event \"R1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1-0\n\n",
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let duplicates = dir.path().join("dups.pgn");
    let summary = run(CleanOptions {
        dedupe: pgnlake::clean::dedupe::DedupeMode::Moves,
        duplicates: Some(duplicates.clone()),
        ..options(&input, &dir.path().join("clean.pgn"))
    });
    // Only the fourth game, an exact copy of the first, is a duplicate.
    assert_eq!((summary.clean, summary.duplicates), (3, 1), "{summary:?}");
    let set_aside = std::fs::read_to_string(duplicates).unwrap_or_default();
    assert!(set_aside.contains("game 1\"]"), "{set_aside}");
}

#[test]
fn a_repair_that_fits_two_moves_rejects_the_game_as_ambiguous() {
    let dir = tmp();
    let input = dir.path().join("ambiguous.pgn");
    // `Rh1-d1`: no piece on h1; a rook (English R) reaches d1 from a1, and
    // a king (French or Spanish R) from e1. Not guessed.
    std::fs::write(
        &input,
        "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/R3KR2 w - - 0 1\"]\n[Result \"*\"]\n\n1. Rh1-d1 *\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let summary = run(CleanOptions {
        threads: 1,
        repair: true,
        ..options(&input, &dir.path().join("out.pgn"))
    });
    assert_eq!((summary.clean, summary.rejected), (0, 1));
    assert_eq!(summary.rejected_by_reason.get("ambiguous_move"), Some(&1));
}

/// The report's repair rows as `action | game_index | ply | repair | detail`.
fn repair_rows(report: &Path) -> Vec<String> {
    let frame = common::read_table(report);
    let rows = (0..frame.height()).map(|row| {
        let text = |column: &str| common::str_at(&frame, column, row).unwrap_or("-".into());
        let ply = common::u32_at(&frame, "ply", row).map_or("-".into(), |p| p.to_string());
        let index = common::u64_at(&frame, "game_index", row).unwrap_or_default();
        format!(
            "{} | {index} | {ply} | {} | {}",
            text("action"),
            text("repair"),
            text("detail")
        )
    });
    rows.collect()
}

/// Issue 18: each fault class of `sample-data/untidy-archive.pgn` is
/// repaired exactly, reported with its class, counted, and the output is
/// read by python-chess without an error.
#[test]
fn each_archive_fault_is_repaired_exactly() {
    let dir = tmp();
    let (summary, output, report) = repaired(&sample("untidy-archive.pgn"), dir.path());
    assert_eq!(
        (summary.games_read, summary.clean, summary.rejected),
        (22, 20, 2)
    );
    assert!(summary.balanced);
    let by_class: Vec<(&str, u64)> = summary.repairs.iter().map(|(c, n)| (*c, *n)).collect();
    assert_eq!(
        by_class,
        [
            ("capture_without_x", 1),
            ("empty_fen", 2),
            ("en_passant_mark", 2),
            ("impossible_fen_rights", 2),
            ("mate_or_resign_word", 3),
            ("move_glued_to_result", 1),
            ("reduced_pawn_capture", 2),
            ("text_after_result", 2),
            ("unescaped_quotes", 2),
        ]
    );
    assert_eq!(
        summary
            .rejected_by_reason
            .keys()
            .copied()
            .collect::<Vec<_>>(),
        ["ambiguous_move", "illegal_move"]
    );
    insta::assert_snapshot!("untidy_archive_report", repair_rows(&report).join("\n"));
    let text = std::fs::read_to_string(&output).unwrap_or_default();
    insta::assert_snapshot!("untidy_archive_clean", text);
    // python-chess reads every game without an error, with the same plies
    // as pgnlake's import of the clean output (which accepts every game).
    let oracle = common::run_oracle("differential.py", &[output.as_os_str()]);
    assert_eq!(oracle.len(), 20);
    let imported = import(std::slice::from_ref(&output), 2);
    assert_eq!(
        (imported.summary.games_read, imported.summary.rejected),
        (20, 0)
    );
    let games = imported.table("games");
    for (row, line) in oracle.iter().enumerate() {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.get(1), Some(&"ok"), "{line}");
        let plies = common::u32_at(&games, "plies", row).map(|p| p.to_string());
        assert_eq!(fields.get(2).copied(), plies.as_deref(), "{line}");
    }
}

#[test]
fn salvage_keeps_the_legal_moves_and_never_decides_the_result() {
    let dir = tmp();
    let output = dir.path().join("clean.pgn");
    let report = dir.path().join("report.parquet");
    let summary = run(CleanOptions {
        report: Some(report.clone()),
        repair: true,
        salvage: true,
        fix_results: true,
        ..options(&sample("untidy-archive.pgn"), &output)
    });
    // The two readings of `cd` are still not guessed.
    assert_eq!((summary.clean, summary.rejected), (21, 1));
    assert_eq!(summary.repairs.get("salvaged"), Some(&1));
    let text = std::fs::read_to_string(&output).unwrap_or_default();
    let game = text
        .split("\n\n[Event")
        .find(|g| g.contains("Illegal after move 8"))
        .unwrap_or_default();
    assert!(game.contains("[Result \"*\"]\n"), "{game}");
    assert!(game.contains("[OriginalResult \"1-0\"]\n"), "{game}");
    assert!(
        game.ends_with("7. Kf1 Qc4+\n8. Ke1 {Qe8 (a scoresheet slip) 9. Qe2 Bd6 10. Qxe8+ 1-0} *"),
        "{game}"
    );
    let rows = repair_rows(&report);
    assert!(
        rows.contains(
            &"salvaged | 15 | 16 | salvaged | 15 legal moves kept; \"Qe8\" at ply 16 fits no legal move"
                .to_owned()
        ),
        "{rows:#?}"
    );
    let imported = import(&[output], 2);
    let games = common::row_by_event(&imported.table("games"), "Illegal after move 8");
    assert_eq!(common::u32_at(&games, "plies", 0), Some(15));
    assert_eq!(
        common::str_at(&games, "result_tag", 0).as_deref(),
        Some("*")
    );
}

/// `--repair` reads again only what was rejected: every game the plain
/// run writes comes out of the repairing run unchanged, in order.
#[test]
fn repair_never_changes_a_game_that_imports_cleanly() {
    let dir = tmp();
    let inputs = common::files_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data"));
    let plain_path = dir.path().join("plain.pgn");
    let repaired_path = dir.path().join("repaired.pgn");
    let plain = run(common::clean_options(inputs.clone(), &plain_path));
    let repaired = run(CleanOptions {
        repair: true,
        salvage: true,
        ..common::clean_options(inputs, &repaired_path)
    });
    assert!(repaired.clean > plain.clean);
    // Every game written starts with the Seven Tag Roster.
    let games = |path: &Path| -> Vec<String> {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        format!("\n\n{text}")
            .split("\n\n[Event ")
            .skip(1)
            .map(str::to_owned)
            .collect()
    };
    let (plain_games, repaired_games) = (games(&plain_path), games(&repaired_path));
    let mut rest = repaired_games.iter();
    for game in &plain_games {
        assert!(rest.any(|g| g == game), "changed or missing: {game}");
    }
}

/// Issue 18: a broadcast's tags-only games, whatever their first tag, are
/// each a game; one at the end of a file without a final newline is
/// complete.
#[test]
fn tags_only_games_are_each_a_game() {
    let imported = import(&[sample("untidy-archive.pgn")], 2);
    let games = imported.table("games");
    let rounds = common::distinct(&games, "round");
    for round in ["1.1", "1.2", "1.3", "1.4", "1.5"] {
        assert!(rounds.contains(round), "{rounds:?}");
    }
    assert_eq!(imported.summary.games_read, 22);
    let dir = tmp();
    let input = dir.path().join("broadcast.pgn");
    std::fs::write(
        &input,
        "[Round \"1\"]\n[White \"a\"]\n[Result \"*\"]\n\n[White \"b\"]\n[Result \"*\"]",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let imported = import(&[input], 1);
    assert_eq!(
        (imported.summary.games_read, imported.summary.accepted),
        (2, 2)
    );
    assert_eq!(
        imported.summary.inputs.first().map(|i| i.truncated.clone()),
        Some(None)
    );
}

/// Issue 18 on the book collection (25,129 annotated games, old databases):
/// what each repair class recovers there, counted exactly, and python-chess
/// reads every game written without an error. Skips without `../shared`.
#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn the_book_collection_is_repaired_and_python_chess_reads_it() {
    let shared = common::corpus_data();
    let dir = tmp();
    let output = dir.path().join("book.pgn");
    let input = shared.join("corpus/book-collections.pgn.zst");
    let summary = run(CleanOptions {
        repair: true,
        ..options(&input, &output)
    });
    assert_eq!(
        (summary.games_read, summary.clean, summary.rejected),
        (25_129, 25_125, 4)
    );
    let by_class: Vec<(&str, u64)> = summary.repairs.iter().map(|(c, n)| (*c, *n)).collect();
    assert_eq!(
        by_class,
        [
            ("en_passant_mark", 17),
            ("impossible_fen_rights", 20),
            ("notation", 450),
            ("text_after_result", 2),
            ("unescaped_quotes", 5),
        ]
    );
    assert_eq!(summary.variations, 14_207);
    let oracle = common::run_oracle("differential.py", &[output.as_os_str()]);
    assert_eq!(oracle.len(), 25_125);
    let failed: Vec<&String> = oracle
        .iter()
        .filter(|line| line.split('\t').nth(1) != Some("ok"))
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    // --salvage keeps the legal moves of three of the four left.
    let salvaged = run(CleanOptions {
        repair: true,
        salvage: true,
        ..options(&input, &dir.path().join("salvaged.pgn"))
    });
    assert_eq!((salvaged.clean, salvaged.rejected), (25_128, 1));
    assert_eq!(salvaged.repairs.get("salvaged"), Some(&3));
}

/// Tags for a one-game input: `event` and `Result "*"`, a `FEN` tag when
/// `fen` is given (empty or not), then the movetext.
fn one_game(event: &str, fen: Option<&str>, movetext: &str) -> String {
    let fen = fen.map_or(String::new(), |f| format!("[SetUp \"1\"]\n[FEN \"{f}\"]\n"));
    format!("[Event \"{event}\"]\n[Result \"*\"]\n{fen}\n{movetext}\n\n")
}

/// Issue 18's limits: what `--repair --salvage` must still reject, each
/// for its own reason. A capture without `x` that two knights can make
/// (`Nd5`, knights on b4 and f4, a pawn on d5) is `ambiguous_move`; a game
/// whose first move is illegal has no legal prefix to salvage; an empty
/// `FEN` tag whose moves do not replay from the standard start is not
/// read as the standard start (nor salvaged).
#[test]
fn repair_and_salvage_still_reject_what_they_cannot_read_exactly() {
    let dir = tmp();
    let input = dir.path().join("limits.pgn");
    let games = [
        one_game(
            "Two knights take",
            Some("4k3/8/8/3p4/1N3N2/8/8/4K3 w - - 0 1"),
            "1. Nd5 Ke7 *",
        ),
        one_game("First move illegal", None, "1. Qe8 e5 2. Nf3 *"),
        one_game("Empty FEN, other start", Some(""), "1. e4 e5 2. Qxf7 *"),
        one_game(
            "One knight takes",
            Some("4k3/8/8/3p4/1N6/8/8/4K3 w - - 0 1"),
            "1. Nd5 *",
        ),
    ];
    std::fs::write(&input, games.concat()).unwrap_or_else(|e| panic!("{e}"));
    let output = dir.path().join("out.pgn");
    let report = dir.path().join("report.parquet");
    let summary = run(CleanOptions {
        threads: 1,
        repair: true,
        salvage: true,
        report: Some(report.clone()),
        ..options(&input, &output)
    });
    assert_eq!((summary.clean, summary.rejected), (1, 3));
    let reasons: Vec<(&str, u64)> = summary
        .rejected_by_reason
        .iter()
        .map(|(r, n)| (*r, *n))
        .collect();
    assert_eq!(
        reasons,
        [
            ("ambiguous_move", 1),
            ("illegal_move", 1),
            ("invalid_fen", 1)
        ]
    );
    assert_eq!(summary.repairs.get("salvaged"), None);
    assert_eq!(summary.repairs.get("empty_fen"), None);
    let rows = repair_rows(&report);
    insta::assert_snapshot!(rows.join("\n"), @r#"
    reject | 1 | 1 | - | ambiguous_move: repair: "Nd5" at ply 1 fits more than one legal move
    reject | 2 | 1 | - | illegal_move: illegal move Qe8 at ply 1 (white to move): no queen can reach e8
    reject | 3 | - | - | invalid_fen: invalid FEN "": invalid fen
    move_repaired | 4 | 1 | capture_without_x | Nd5 -> Nxd5
    "#);
    let text = std::fs::read_to_string(&output).unwrap_or_default();
    assert!(text.contains("[Event \"One knight takes\"]"), "{text}");
    assert!(text.contains("\n\n1. Nxd5 *\n"), "{text}");
}

/// Issue 34: the import's token audit and `clean --repair` read result
/// markers with one lexer and one list of spellings. A game that ends in
/// `0.5-0.5`, `1–0` (en dash), `0–1` or `½–½` has the import's
/// `result_marker` when its moves are SAN, and the same result when its
/// moves need repair (long algebraic): before, repair failed on `0.5-0.5`
/// and `½–½` and did not see `1–0` and `0–1` at all. No Result tag: the
/// marker alone gives the result.
#[test]
fn repair_reads_the_result_markers_the_import_reads() {
    let dir = tmp();
    let input = dir.path().join("markers.pgn");
    let markers = [
        ("0.5-0.5", "1/2-1/2"),
        ("1\u{2013}0", "1-0"),
        ("0\u{2013}1", "0-1"),
        ("\u{bd}\u{2013}\u{bd}", "1/2-1/2"),
    ];
    let mut text = String::new();
    for (i, (marker, _)) in markers.iter().enumerate() {
        text += &format!("[Event \"san {i}\"]\n\n1. e4 e5 2. Nf3 Nc6 {marker}\n\n");
        text += &format!("[Event \"long {i}\"]\n\n1. e2-e4 e7-e5 2. Ng1-f3 Nb8-c6 {marker}\n\n");
    }
    std::fs::write(&input, text).unwrap_or_else(|e| panic!("{e}"));
    let games = import(std::slice::from_ref(&input), 1).table("games");
    let (summary, output, _) = repaired(&input, dir.path());
    assert_eq!((summary.clean, summary.rejected), (8, 0));
    let cleaned = std::fs::read_to_string(&output).unwrap_or_default();
    let cleaned: Vec<&str> = cleaned.split("\n\n[Event").collect();
    for (i, (marker, expected)) in markers.iter().enumerate() {
        let san = common::row_by_event(&games, &format!("san {i}"));
        let imported = common::str_at(&san, "result_marker", 0);
        assert_eq!(imported.as_deref(), Some(*expected), "{marker}");
        // The SAN game and the repaired one, written alike.
        for at in [2 * i, 2 * i + 1] {
            let game = cleaned.get(at).copied().unwrap_or_default();
            let result = format!("[Result \"{expected}\"]");
            assert!(game.contains(&result), "{marker}: {game}");
            let movetext = format!("1. e4 e5 2. Nf3 Nc6 {expected}");
            assert!(game.contains(&movetext), "{marker}: {game}");
        }
    }
}

/// Each game's tags in a PGN text: (name, value) in order, per game.
fn tags_of(pgn: &str) -> Vec<Vec<(String, String)>> {
    let mut games: Vec<Vec<(String, String)>> = Vec::new();
    let mut in_tags = false;
    for line in pgn.lines() {
        let Some(tag) = line.strip_prefix('[').and_then(|l| l.strip_suffix("\"]")) else {
            in_tags = false;
            continue;
        };
        let Some((name, value)) = tag.split_once(" \"") else {
            continue;
        };
        if !in_tags {
            games.push(Vec::new());
            in_tags = true;
        }
        if let Some(game) = games.last_mut() {
            game.push((name.to_owned(), value.replace("\\\"", "\"")));
        }
    }
    games
}

#[test]
fn added_eco_opening_and_variation_tags_agree_with_the_games_table() {
    let dir = tmp();
    let inputs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data")];
    let output = dir.path().join("tagged.pgn");
    let tags = [
        TagToAdd::Eco,
        TagToAdd::Opening,
        TagToAdd::Variation,
        TagToAdd::Plycount,
    ];
    let summary = run(CleanOptions {
        enrich: Enrich::new(&tags, true, &[]),
        ..common::clean_options(inputs.clone(), &output)
    });
    // The sample's own ECO and Opening tags that name another opening
    // than the position does (replaced and counted).
    assert_eq!(
        summary.tags_disagreeing,
        [("ECO".to_owned(), 3), ("Opening".to_owned(), 1)].into()
    );
    assert_eq!(summary.tags_replaced, 4);
    let written = tags_of(&std::fs::read_to_string(&output).unwrap());
    let games = import(&inputs, 2).table("games");
    let column = |name: &str| -> Vec<Option<String>> {
        let c = games
            .column(name)
            .unwrap()
            .cast(&polars::prelude::DataType::String)
            .unwrap();
        let values = c.str().unwrap();
        (0..values.len())
            .map(|i| values.get(i).map(str::to_owned))
            .collect()
    };
    let (eco, name, plies) = (column("eco"), column("opening_name"), column("plies"));
    assert_eq!(written.len(), eco.len());
    let mut named = 0;
    for (i, tags) in written.iter().enumerate() {
        let tag = |n: &str| tags.iter().find(|(t, _)| t == n).map(|(_, v)| v.clone());
        assert_eq!(tag("PlyCount"), plies[i], "game {i}");
        let Some(eco) = &eco[i] else { continue };
        named += 1;
        assert_eq!(tag("ECO").as_ref(), Some(eco), "game {i}");
        // pgn-extract's split, or lichess's whole name kept (it agrees).
        let opening = tag("Opening").unwrap();
        let whole = match tag("Variation") {
            Some(variation) if !opening.contains(':') => format!("{opening}: {variation}"),
            _ => opening,
        };
        assert_eq!(Some(&whole), name[i].as_ref(), "game {i}");
    }
    assert!(named > 60, "{named}");
}

#[test]
fn a_disagreeing_tag_is_kept_and_reported_without_overwrite_tags() {
    let dir = tmp();
    let input = dir.path().join("wrong-eco.pgn");
    std::fs::write(
        &input,
        "[Event \"e\"]\n[ECO \"C20\"]\n[Site \"https://lichess.org/AbCdEfGh\"]\n[TimeControl \"180+2\"]\n\n1. e4 c5 2. Nf3 d6 1-0\n\n",
    )
    .unwrap();
    let output = dir.path().join("out.pgn");
    let report = dir.path().join("report.parquet");
    let all = [
        TagToAdd::Eco,
        TagToAdd::TimeClass,
        TagToAdd::LichessId,
        TagToAdd::ResultByRule,
        TagToAdd::FinalFen,
    ];
    let summary = run(CleanOptions {
        enrich: Enrich::new(&all, false, &[]),
        report: Some(report.clone()),
        ..options(&input, &output)
    });
    assert_eq!(summary.tags_disagreeing, [("ECO".to_owned(), 1)].into());
    let tags = &tags_of(&std::fs::read_to_string(&output).unwrap())[0];
    let tag = |n: &str| tags.iter().find(|(t, _)| t == n).map(|(_, v)| v.as_str());
    assert_eq!(tag("ECO"), Some("C20"));
    assert_eq!(tag("TimeClass"), Some("blitz"));
    assert_eq!(tag("LichessId"), Some("AbCdEfGh"));
    assert_eq!(tag("ResultByRule"), None);
    assert_eq!(
        tag("FinalFEN"),
        Some("rnbqkbnr/pp2pppp/3p4/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3")
    );
    let rows = common::read_table(&report);
    let detail = rows
        .column("detail")
        .unwrap()
        .str()
        .unwrap()
        .get(0)
        .map(str::to_owned);
    assert_eq!(detail.as_deref(), Some("ECO: tag \"C20\", pgnlake \"B50\""));
}

#[test]
fn stripped_parts_are_gone_and_the_games_import_the_same() {
    let dir = tmp();
    let inputs = vec![
        sample("time-and-eval-comments.pgn"),
        sample("lichess-2025-05-30games.pgn"),
        sample("edge-cases.pgn"),
    ];
    let full = dir.path().join("full.pgn");
    run(common::clean_options(inputs.clone(), &full));
    let full_text = std::fs::read_to_string(&full).unwrap();
    assert!(full_text.contains("[%clk") && full_text.contains('(') && full_text.contains('$'));
    for (parts, gone) in [
        (
            &[StripPart::Clocks][..],
            &["[%clk ", "[%eval ", "[%emt "][..],
        ),
        (
            &[StripPart::Comments, StripPart::Variations, StripPart::Nags][..],
            &["{", "(", "$"][..],
        ),
    ] {
        let output = dir.path().join("stripped.pgn");
        run(CleanOptions {
            enrich: Enrich::new(&[], false, parts),
            ..common::clean_options(inputs.clone(), &output)
        });
        let text = std::fs::read_to_string(&output).unwrap();
        for needle in gone {
            assert!(!text.contains(needle), "{parts:?}: {needle}");
        }
        // The same games, move for move.
        let moves = |pgn: &Path| {
            let games = import(&[pgn.to_path_buf()], 2).table("games");
            games.column("moves_uci").unwrap().clone()
        };
        assert_eq!(moves(&output), moves(&full), "{parts:?}");
    }
}

#[test]
fn split_by_writes_one_file_per_key_or_chunk_and_every_game_once() {
    let dir = tmp();
    let inputs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data")];
    let whole = dir.path().join("whole.pgn");
    run(common::clean_options(inputs.clone(), &whole));
    let whole_games = tags_of(&std::fs::read_to_string(&whole).unwrap()).len();
    // N games a file, in input order: the files put together are the whole.
    let chunks = dir.path().join("chunks").join("part.pgn");
    std::fs::create_dir(chunks.parent().unwrap()).unwrap();
    let summary = run(CleanOptions {
        split_by: Some(SplitBy::Games(50)),
        ..common::clean_options(inputs.clone(), &chunks)
    });
    let dir_listing = common::listing(chunks.parent().unwrap());
    assert_eq!(
        dir_listing,
        [".part.pgn.lock", "part-1.pgn", "part-2.pgn", "part-3.pgn"]
    );
    assert_eq!(summary.outputs.len(), 3);
    let joined: String = (1..=3)
        .map(|k| std::fs::read_to_string(chunks.with_file_name(format!("part-{k}.pgn"))).unwrap())
        .collect();
    assert_eq!(joined, std::fs::read_to_string(&whole).unwrap());
    // By ECO: each file's games are of its ECO (added as a tag to check).
    let by_eco = dir.path().join("eco").join("sample.pgn.gz");
    std::fs::create_dir(by_eco.parent().unwrap()).unwrap();
    run(CleanOptions {
        split_by: Some(SplitBy::Eco),
        enrich: Enrich::new(&[TagToAdd::Eco], true, &[]),
        ..common::clean_options(inputs, &by_eco)
    });
    let mut games = 0;
    for name in common::listing(by_eco.parent().unwrap()) {
        let Some(key) = name
            .strip_prefix("sample-")
            .and_then(|n| n.strip_suffix(".pgn.gz"))
        else {
            continue;
        };
        let file = std::fs::File::open(by_eco.with_file_name(&name)).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::MultiGzDecoder::new(file), &mut text)
            .unwrap();
        for tags in tags_of(&text) {
            games += 1;
            let eco = tags
                .iter()
                .find(|(n, _)| n == "ECO")
                .map(|(_, v)| v.as_str());
            // A game's own `?` names no ECO: its file is `unknown`.
            let eco = eco.filter(|e| !e.starts_with('?')).unwrap_or("unknown");
            assert_eq!(eco, key, "{name}");
        }
    }
    assert_eq!(games, whole_games);
}
