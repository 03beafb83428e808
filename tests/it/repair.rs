//! `import --repair` (issue 37): the games the strict import rejects for
//! their notation or tags, read by `clean --repair`'s rules, accepted with
//! what was mended in `repairs`; the moves checked against `clean --repair`
//! and against python-chess reading the original bytes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use polars::prelude::*;

use crate::common::{
    self, Imported, import, import_repair, ok, pgnlake, read_table, run_oracle, sample,
};

/// `column` of every row, by `key` (nulls as `-`).
fn by(frame: &DataFrame, key: &str, column: &str) -> BTreeMap<String, String> {
    let pick = frame
        .select([key, column])
        .unwrap_or_else(|e| panic!("{e}"));
    common::rows(&pick)
        .into_iter()
        .filter_map(|row| {
            let (k, v) = row.split_once(" | ")?;
            Some((k.to_owned(), v.to_owned()))
        })
        .collect()
}

fn offsets(frame: &DataFrame) -> Vec<i64> {
    let column = frame
        .column("offset")
        .and_then(|c| c.i64().cloned())
        .unwrap_or_else(|e| panic!("{e}"));
    column.iter().flatten().collect()
}

/// The repairs summed by kind, as the summary counts them.
fn repairs_of(imported: &Imported) -> Vec<(String, u64)> {
    let repairs = &imported.summary.repairs;
    repairs.iter().map(|(k, n)| (k.clone(), *n)).collect()
}

fn pairs(list: &[(&str, u64)]) -> Vec<(String, u64)> {
    list.iter().map(|(k, n)| ((*k).to_owned(), *n)).collect()
}

/// Every game of the untidy archive `clean --repair` mends, `import
/// --repair` accepts, with each repair named; the two it cannot read stay
/// rejected for the same reasons; the strictly accepted games' rows are
/// the same; each repaired game has the moves of the game `clean --repair`
/// writes, and `export --repair` finds it at its place and hash.
#[test]
fn import_repair_reads_the_untidy_archive_as_clean_repair_does() {
    let input = sample("untidy-archive.pgn");
    let strict = import(std::slice::from_ref(&input), 2);
    let repaired = import_repair(std::slice::from_ref(&input), 2);
    let counts = |i: &Imported| {
        let s = &i.summary;
        (s.games_read, s.accepted, s.rejected, s.repaired)
    };
    assert_eq!(counts(&strict), (22, 8, 14, 0));
    assert_eq!(counts(&repaired), (22, 20, 2, 12));
    assert!(repaired.summary.options.repair);
    assert_eq!(
        repairs_of(&repaired),
        pairs(&[
            ("capture_without_x", 1),
            ("empty_fen", 2),
            ("en_passant_mark", 2),
            ("mate_or_resign_word", 3),
            ("move_glued_to_result", 1),
            ("reduced_pawn_capture", 2),
            ("text_after_result", 2),
            ("unescaped_quotes", 2),
        ])
    );
    let reasons = by(&repaired.table("rejects"), "game_id", "reason");
    let reasons: Vec<&str> = reasons.values().map(String::as_str).collect();
    assert_eq!(reasons, ["illegal_move", "ambiguous_move"]);
    let games = repaired.table("games");
    let mended: Vec<(String, String)> = by(&games, "event", "repairs")
        .into_iter()
        .filter(|(_, repairs)| repairs != "-")
        .collect();
    let expected = [
        ("A second result", "text_after_result:1"),
        ("Capture without x", "capture_without_x:1"),
        ("Empty FEN", "empty_fen:1"),
        ("Empty FEN without SetUp", "empty_fen:1"),
        ("En passant marks", "en_passant_mark:2"),
        ("Mat", "mate_or_resign_word:1"),
        ("Matt", "mate_or_resign_word:1"),
        ("Move glued to the result", "move_glued_to_result:1"),
        ("Reduced pawn captures", "reduced_pawn_capture:2"),
        ("Resigns", "mate_or_resign_word:1"),
        ("Text after the result", "text_after_result:1"),
        ("The \"Big\" Open", "unescaped_quotes:2"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(e, r)| ((*e).to_owned(), (*r).to_owned()))
        .collect();
    assert_eq!(mended, expected);
    // A game read as written has the same row with or without --repair.
    let strict_rows = common::rows(&strict.table("games"));
    let repaired_rows = common::rows(&games);
    for row in &strict_rows {
        assert!(repaired_rows.contains(row), "{row}");
    }
    // The moves are the moves of the game `clean --repair` writes.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cleaned = dir.path().join("clean.pgn");
    let text = |p: &Path| p.to_string_lossy().into_owned();
    ok(pgnlake(&[
        "clean",
        &text(&input),
        "-o",
        &text(&cleaned),
        "--repair",
        "-q",
    ]));
    let of_clean = import(std::slice::from_ref(&cleaned), 1);
    assert_eq!(of_clean.summary.accepted, 20);
    let clean_moves = by(&of_clean.table("games"), "event", "moves_uci");
    let import_moves = by(&games, "event", "moves_uci");
    for (event, _) in &expected {
        assert_eq!(import_moves.get(event), clean_moves.get(event), "{event}");
        assert!(import_moves.get(event).is_some_and(|m| !m.is_empty()));
    }
    // export finds each repaired game at its place with the hash of its
    // bytes as read, and writes it as `clean --repair` does.
    let exported = dir.path().join("exported.pgn");
    ok(pgnlake(&[
        "export",
        "--data",
        &text(repaired.dir.path()),
        "-e",
        "select game_id from games where repairs is not null order by game_id",
        "-o",
        &text(&exported),
        "--repair",
        "-q",
    ]));
    let exported = std::fs::read_to_string(&exported).unwrap_or_else(|e| panic!("{e}"));
    let cleaned = std::fs::read_to_string(&cleaned).unwrap_or_else(|e| panic!("{e}"));
    let games_of = |text: &str| -> Vec<String> {
        text.split("\n\n[")
            .map(|g| g.trim_start_matches('[').trim().to_owned())
            .collect()
    };
    let all_clean = games_of(&cleaned);
    let exported = games_of(&exported);
    assert_eq!(exported.len(), 12);
    for game in &exported {
        assert!(all_clean.contains(game), "{game}");
    }
    // The report's run table counts them.
    let page = ok(pgnlake(&[
        "report",
        "--data",
        &text(repaired.dir.path()),
        "-o",
        "-",
    ]));
    assert!(page.contains("<td>accepted after repair (--repair)</td><td>12</td>"));
    let strict_page = ok(pgnlake(&[
        "report",
        "--data",
        &text(strict.dir.path()),
        "-o",
        "-",
    ]));
    assert!(!strict_page.contains("after repair"));
}

/// The bytes of each game a strict import rejected, as `START:END` ranges
/// of `plain` (END: the next game's offset, or the end of the file), with
/// their offsets.
fn rejected_ranges(strict: &Imported, plain: &Path) -> Vec<(i64, String)> {
    let size = std::fs::metadata(plain).map_or(0, |m| m.len()) as i64;
    let mut all = offsets(&strict.table("games"));
    let rejected = offsets(&strict.table("rejects"));
    all.extend(&rejected);
    all.sort_unstable();
    rejected
        .iter()
        .map(|&start| {
            let end = all.iter().find(|&&o| o > start).copied().unwrap_or(size);
            (start, format!("{start}:{end}"))
        })
        .collect()
}

/// python-chess's reading of each game the strict import rejects, against
/// `import --repair`'s: by status (`ok`, `split`, `error`, `raised`) and
/// whether `--repair` accepted it with the same moves (`same`), other
/// moves (`differs`) or rejected it (`rejected`).
fn compare_with_python_chess(plain: &Path) -> BTreeMap<(String, String), usize> {
    let strict = import(&[plain.to_path_buf()], 2);
    let repaired = import_repair(&[plain.to_path_buf()], 2);
    let ranges = rejected_ranges(&strict, plain);
    let mut args: Vec<std::ffi::OsString> = vec![plain.into()];
    args.extend(ranges.iter().map(|(_, r)| r.into()));
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let theirs = run_oracle("read_at.py", &args);
    assert_eq!(theirs.len(), ranges.len());
    let ours = by(&repaired.table("games"), "offset", "moves_uci");
    let mut tally = BTreeMap::new();
    for line in &theirs {
        let mut fields = line.split('\t');
        let (offset, status, moves) = (
            fields.next().unwrap_or_default(),
            fields.next().unwrap_or_default(),
            fields.next().unwrap_or_default(),
        );
        let verdict = match ours.get(offset) {
            None => "rejected",
            Some(m) if m == moves => "same",
            Some(_) => "differs",
        };
        assert!(
            !(matches!(status, "ok" | "split") && verdict != "same"),
            "{}: python-chess reads {moves:?}, import --repair {verdict}: {:?}",
            plain.display(),
            ours.get(offset)
        );
        *tally
            .entry((status.to_owned(), verdict.to_owned()))
            .or_default() += 1;
    }
    tally
}

fn tally(list: &[(&str, &str, usize)]) -> BTreeMap<(String, String), usize> {
    list.iter()
        .map(|(s, v, n)| (((*s).to_owned(), (*v).to_owned()), *n))
        .collect()
}

/// The check: on a chessgames.com-style download and a chess.com
/// archive export (lichess games, CC0, with the faults of such archives
/// put in: captures without x, promotions without =, long algebraic,
/// `cd4` for `cxd4`, doubled quotes in a tag, `++`), python-chess reads
/// seven games the strict import rejects; `--repair` accepts every one of
/// them with the moves python-chess reads.
#[test]
fn import_repair_accepts_what_python_chess_reads_in_chessgames_and_chesscom_archives() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle");
    for name in ["chessgames-style.pgn", "chesscom-style.pgn"] {
        let input = fixtures.join(name);
        let repaired = import_repair(std::slice::from_ref(&input), 1);
        assert_eq!(
            (repaired.summary.accepted, repaired.summary.repaired),
            (8, 7),
            "{name}"
        );
        assert_eq!(
            compare_with_python_chess(&input),
            tally(&[("ok", "same", 7)]),
            "{name}"
        );
    }
}

/// The book collection (old databases, 25,129 games): `--repair` accepts
/// what `clean --repair` writes, and python-chess reads every game the
/// strict import rejects and `--repair` accepts, with the same moves (7 of
/// them only after a second blank line that python-chess takes for the end
/// of the game). Skips without `../shared`.
#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn import_repair_reads_the_book_collection_as_python_chess_does() {
    let shared = common::corpus_data();
    let compressed = shared.join("corpus/book-collections.pgn.zst");
    let repaired = import_repair(std::slice::from_ref(&compressed), 2);
    let s = &repaired.summary;
    assert_eq!(
        (s.games_read, s.accepted, s.rejected, s.repaired),
        (25_129, 25_125, 4, 391)
    );
    assert_eq!(
        repairs_of(&repaired),
        pairs(&[
            ("en_passant_mark", 17),
            ("notation", 450),
            ("text_after_result", 2),
            ("unescaped_quotes", 5),
        ])
    );
    let mended = read_table(&repaired.dir.path().join("games.parquet"))
        .column("repairs")
        .map(|c| c.len() - c.null_count())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(mended, 391);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let plain: PathBuf = dir.path().join("book.pgn");
    let bytes = std::fs::read(&compressed).unwrap_or_else(|e| panic!("{e}"));
    let text = zstd::decode_all(bytes.as_slice()).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&plain, text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        compare_with_python_chess(&plain),
        tally(&[
            ("error", "rejected", 4),
            ("ok", "same", 384),
            ("split", "same", 7),
        ])
    );
}
