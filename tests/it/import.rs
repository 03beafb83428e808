//! Integration tests: import the sample data and assert exact values read
//! back from the Parquet tables.

use crate::common;

use common::*;

struct Expected {
    event: &'static str,
    plies: u32,
    declared: Option<&'static str>,
    by_rule: Option<&'static str>,
    check: &'static str,
    end_state: &'static str,
    winner: Option<&'static str>,
    threefold_first: Option<u32>,
    fifty_first: Option<u32>,
    automatic_end: Option<u32>,
    after_end: u32,
    perpetual: bool,
}

const fn e(
    event: &'static str,
    plies: u32,
    declared: Option<&'static str>,
    by_rule: Option<&'static str>,
    check: &'static str,
    end_state: &'static str,
) -> Expected {
    Expected {
        event,
        plies,
        declared,
        by_rule,
        check,
        end_state,
        winner: None,
        threefold_first: None,
        fifty_first: None,
        automatic_end: None,
        after_end: 0,
        perpetual: false,
    }
}

const DRAW: Option<&str> = Some("1/2-1/2");

fn expected_games() -> Vec<Expected> {
    vec![
        Expected {
            winner: Some("black"),
            ..e(
                "checkmate",
                4,
                Some("0-1"),
                Some("0-1"),
                "consistent",
                "checkmate",
            )
        },
        Expected {
            winner: Some("black"),
            ..e(
                "contradicts checkmate",
                4,
                Some("1-0"),
                Some("0-1"),
                "contradicts_checkmate",
                "checkmate",
            )
        },
        Expected {
            winner: Some("white"),
            ..e(
                "unfinished but decided",
                7,
                Some("*"),
                Some("1-0"),
                "unfinished_but_decided",
                "checkmate",
            )
        },
        e("stalemate", 19, DRAW, DRAW, "consistent", "stalemate"),
        e(
            "contradicts stalemate",
            1,
            Some("1-0"),
            DRAW,
            "contradicts_stalemate",
            "stalemate",
        ),
        // King and bishop against king from the start: dead at ply 0
        // (FIDE 5.2.2 ended the game there), one move played after it.
        Expected {
            automatic_end: Some(0),
            after_end: 1,
            ..e(
                "insufficient material",
                1,
                DRAW,
                DRAW,
                "consistent",
                "insufficient_material",
            )
        },
        e(
            "contradicts insufficient",
            1,
            Some("0-1"),
            None,
            "contradicts_insufficient",
            "none",
        ),
        Expected {
            fifty_first: Some(0),
            automatic_end: Some(1),
            ..e(
                "seventyfive moves",
                1,
                DRAW,
                DRAW,
                "consistent",
                "seventyfive_moves",
            )
        },
        Expected {
            fifty_first: Some(1),
            ..e(
                "fifty moves claimable",
                1,
                Some("1-0"),
                None,
                "consistent",
                "none",
            )
        },
        Expected {
            threefold_first: Some(8),
            automatic_end: Some(16),
            ..e(
                "fivefold repetition",
                16,
                DRAW,
                DRAW,
                "consistent",
                "fivefold_repetition",
            )
        },
        Expected {
            threefold_first: Some(8),
            automatic_end: Some(16),
            after_end: 1,
            ..e(
                "contradicts automatic draw",
                17,
                Some("1-0"),
                DRAW,
                "contradicts_automatic_draw",
                "none",
            )
        },
        Expected {
            threefold_first: Some(9),
            perpetual: true,
            ..e("perpetual check", 10, DRAW, None, "consistent", "none")
        },
        e("chess960", 6, Some("*"), None, "consistent", "none"),
        e(
            "tag marker mismatch",
            2,
            Some("1-0"),
            None,
            "tag_marker_mismatch",
            "none",
        ),
        e(
            "nonstandard result",
            2,
            Some("*"),
            None,
            "nonstandard_result",
            "none",
        ),
        e("missing result", 2, None, None, "missing_result", "none"),
        e(
            "latin-1 and annotations",
            6,
            Some("1-0"),
            None,
            "consistent",
            "none",
        ),
    ]
}

#[test]
fn edge_cases_give_exact_outcomes() {
    let run = import(&[sample("edge-cases.pgn")], 2);
    let games = run.table("games");
    for want in expected_games() {
        let row = row_by_event(&games, want.event);
        let at = |c: &str| str_at(&row, c, 0);
        let ctx = want.event;
        assert_eq!(u32_at(&row, "plies", 0), Some(want.plies), "{ctx}: plies");
        assert_eq!(
            at("declared_result").as_deref(),
            want.declared,
            "{ctx}: declared"
        );
        assert_eq!(
            at("result_by_rule").as_deref(),
            want.by_rule,
            "{ctx}: by rule"
        );
        assert_eq!(
            at("result_check").as_deref(),
            Some(want.check),
            "{ctx}: check"
        );
        assert_eq!(
            at("end_state").as_deref(),
            Some(want.end_state),
            "{ctx}: end state"
        );
        assert_eq!(
            at("winner_by_rule").as_deref(),
            want.winner,
            "{ctx}: winner"
        );
        assert_eq!(
            u32_at(&row, "threefold_first_ply", 0),
            want.threefold_first,
            "{ctx}: 3fold"
        );
        assert_eq!(
            u32_at(&row, "fifty_first_ply", 0),
            want.fifty_first,
            "{ctx}: fifty"
        );
        assert_eq!(
            u32_at(&row, "automatic_end_ply", 0),
            want.automatic_end,
            "{ctx}: auto end"
        );
        assert_eq!(
            u32_at(&row, "plies_after_end", 0),
            Some(want.after_end),
            "{ctx}: after end"
        );
        assert_eq!(
            bool_at(&row, "perpetual_check", 0),
            Some(want.perpetual),
            "{ctx}: perpetual"
        );
    }
    assert_eq!(run.summary.games_read, 29);
    assert_eq!(run.summary.accepted, 18);
    assert_eq!(run.summary.rejected, 11);
}

#[test]
fn edge_cases_keep_identity_moves_and_tags() {
    let run = import(&[sample("edge-cases.pgn")], 1);
    let games = run.table("games");

    let mate = row_by_event(&games, "checkmate");
    assert_eq!(u64_at(&mate, "game_id", 0), Some(0));
    assert_eq!(u64_at(&mate, "game_index", 0), Some(1));
    assert_eq!(u64_at(&mate, "offset", 0), Some(0));
    assert_eq!(u64_at(&mate, "line", 0), Some(1));
    assert_eq!(
        str_at(&mate, "moves_uci", 0).as_deref(),
        Some("f2f3 e7e5 g2g4 d8h4")
    );
    assert_eq!(
        str_at(&mate, "final_fen", 0).as_deref(),
        Some("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    );
    assert_eq!(str_at(&mate, "start_fen", 0), None);
    assert_eq!(i32_at(&mate, "year", 0), Some(2026));

    let frc = row_by_event(&games, "chess960");
    assert_eq!(bool_at(&frc, "chess960", 0), Some(true));
    assert_eq!(
        str_at(&frc, "moves_uci", 0).as_deref(),
        Some("g2g3 g7g6 f1g1 f8g8 f2f4 f7f5")
    );
    assert_eq!(
        str_at(&frc, "start_fen", 0).as_deref(),
        Some("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1")
    );

    let latin = row_by_event(&games, "latin-1 and annotations");
    assert_eq!(str_at(&latin, "white", 0).as_deref(), Some("Müller"));
    assert_eq!(bool_at(&latin, "encoding_repaired", 0), Some(true));
    assert_eq!(str_at(&latin, "result_tag", 0).as_deref(), Some("1:0"));
    assert_eq!(str_at(&latin, "result_marker", 0).as_deref(), Some("1-0"));
    assert_eq!(
        str_at(&latin, "moves_uci", 0).as_deref(),
        Some("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6")
    );

    let fen_game = row_by_event(&games, "insufficient material");
    assert_eq!(
        str_at(&fen_game, "start_fen", 0).as_deref(),
        Some("8/8/4k3/8/8/3BK3/8/8 w - - 0 1")
    );
    let extra = fen_game
        .column("extra_tags")
        .and_then(|c| c.list().map(|l| l.get_as_series(0)))
        .ok()
        .flatten()
        .map(|s| s.len());
    // SetUp and FEN have no column of their own.
    assert_eq!(extra, Some(2));
}

struct ExpectedReject {
    event: Option<&'static str>,
    game_index: u64,
    line: u64,
    reason: &'static str,
    ply: Option<u32>,
    token: Option<&'static str>,
    token_line: Option<u64>,
}

#[test]
fn edge_case_rejects_say_what_and_where() {
    let run = import(&[sample("edge-cases.pgn")], 2);
    let rejects = run.table("rejects");
    let expected = [
        ExpectedReject {
            event: None,
            game_index: 18,
            line: 186,
            reason: "garbage",
            ply: None,
            token: None,
            token_line: None,
        },
        ExpectedReject {
            event: Some("illegal move"),
            game_index: 19,
            line: 188,
            reason: "illegal_move",
            ply: Some(3),
            token: Some("Rxh7"),
            token_line: Some(196),
        },
        ExpectedReject {
            event: Some("ambiguous move"),
            game_index: 20,
            line: 198,
            reason: "ambiguous_move",
            ply: Some(1),
            token: Some("Nd2"),
            token_line: Some(208),
        },
        ExpectedReject {
            event: Some("unparsable san"),
            game_index: 21,
            line: 210,
            reason: "unparsable_san",
            ply: Some(3),
            token: Some("Nf9"),
            token_line: Some(218),
        },
        ExpectedReject {
            event: Some("unknown token"),
            game_index: 22,
            line: 220,
            reason: "unknown_token",
            ply: Some(2),
            token: Some("Zz9"),
            token_line: Some(228),
        },
        ExpectedReject {
            event: Some("scoresheet notation"),
            game_index: 23,
            line: 230,
            reason: "unknown_token",
            ply: Some(1),
            token: Some("e2-e4"),
            token_line: Some(238),
        },
        ExpectedReject {
            event: Some("invalid fen"),
            game_index: 24,
            line: 240,
            reason: "invalid_fen",
            ply: None,
            token: None,
            token_line: None,
        },
        ExpectedReject {
            event: Some("unsupported variant"),
            game_index: 25,
            line: 252,
            reason: "unsupported_variant",
            ply: None,
            token: None,
            token_line: None,
        },
        ExpectedReject {
            event: Some("null move"),
            game_index: 26,
            line: 263,
            reason: "null_move",
            ply: Some(2),
            token: Some("--"),
            token_line: Some(271),
        },
        ExpectedReject {
            event: Some("unterminated comment"),
            game_index: 27,
            line: 273,
            reason: "unterminated_comment",
            ply: Some(2),
            token: Some("{"),
            token_line: Some(276),
        },
        ExpectedReject {
            event: Some("malformed tag"),
            game_index: 28,
            line: 278,
            reason: "malformed_tag",
            ply: Some(1),
            token: Some("Quoted\""),
            token_line: Some(279),
        },
    ];
    assert_eq!(rejects.height(), expected.len());
    for (row, want) in expected.iter().enumerate() {
        let ctx = want.reason;
        assert_eq!(
            str_at(&rejects, "event", row).as_deref(),
            want.event,
            "{ctx}: event"
        );
        assert_eq!(
            u64_at(&rejects, "game_index", row),
            Some(want.game_index),
            "{ctx}"
        );
        assert_eq!(
            u64_at(&rejects, "line", row),
            Some(want.line),
            "{ctx}: line"
        );
        assert_eq!(
            str_at(&rejects, "reason", row).as_deref(),
            Some(want.reason),
            "{ctx}"
        );
        assert_eq!(u32_at(&rejects, "ply", row), want.ply, "{ctx}: ply");
        assert_eq!(
            str_at(&rejects, "token", row).as_deref(),
            want.token,
            "{ctx}: token"
        );
        assert_eq!(
            u64_at(&rejects, "token_line", row),
            want.token_line,
            "{ctx}: token line"
        );
        let source = str_at(&rejects, "source", row).unwrap_or_default();
        assert!(source.ends_with("edge-cases.pgn"), "{ctx}: source {source}");
    }
    assert_eq!(
        str_at(&rejects, "message", 1).as_deref(),
        Some("illegal move Rxh7 at ply 3 (white to move): no rook can reach h7")
    );
    assert_eq!(u64_at(&rejects, "offset", 1), Some(3538));
    let raw = str_at(&rejects, "raw_pgn", 1).unwrap_or_default();
    assert!(
        raw.starts_with("[Event \"illegal move\"]"),
        "raw_pgn: {raw}"
    );
}

#[test]
fn every_outcome_and_reject_reason_occurs() {
    // The variants' end states and audit, and the dead positions, are in
    // their own fixtures.
    let run = import(
        &[
            sample("edge-cases.pgn"),
            sample("variants.pgn"),
            sample("walled-kings.pgn"),
        ],
        2,
    );
    let games = run.table("games");
    let rejects = run.table("rejects");
    let end_states = distinct(&games, "end_state");
    for state in pgnlake::replay::EndState::ALL {
        assert!(
            end_states.contains(state.as_str()),
            "missing end state {}",
            state.as_str()
        );
    }
    let checks = distinct(&games, "result_check");
    for check in pgnlake::replay::audit::ResultCheck::ALL {
        assert!(
            checks.contains(check.as_str()),
            "missing result check {}",
            check.as_str()
        );
    }
    let reasons = distinct(&rejects, "reason");
    for reason in pgnlake::replay::reject::RejectReason::ALL {
        // A 32 MiB game does not belong in sample data (its unit test is in
        // the framer), nor does a cut-off file (tests/faults.rs).
        if !matches!(
            reason,
            pgnlake::replay::reject::RejectReason::OversizedGame
                | pgnlake::replay::reject::RejectReason::TruncatedInput
        ) {
            assert!(
                reasons.contains(reason.as_str()),
                "missing reject reason {}",
                reason.as_str()
            );
        }
    }
}

#[test]
fn lichess_games_match_python_chess() {
    // Expected values computed with python-chess 1.11 on the same file.
    let run = import(&[sample("lichess-2025-05-30games.pgn")], 2);
    assert_eq!((run.summary.games_read, run.summary.accepted), (30, 30));
    let games = run.table("games");
    assert_eq!(str_at(&games, "white", 0).as_deref(), Some("alanbrito4"));
    assert_eq!(str_at(&games, "black", 0).as_deref(), Some("Meridyan"));
    assert_eq!(i32_at(&games, "white_elo", 0), Some(1028));
    assert_eq!(i32_at(&games, "black_elo", 0), Some(1132));
    assert_eq!(str_at(&games, "eco_tag", 0).as_deref(), Some("C46"));
    assert_eq!(str_at(&games, "time_control", 0).as_deref(), Some("300+3"));
    // The lichess tags as columns: game id, rating changes, clock.
    assert_eq!(str_at(&games, "lichess_id", 0).as_deref(), Some("ENPo6ReH"));
    assert_eq!(i32_at(&games, "white_rating_diff", 0), Some(-5));
    assert_eq!(i32_at(&games, "black_rating_diff", 0), Some(5));
    assert_eq!(i64_at(&games, "base_seconds", 0), Some(300));
    assert_eq!(i64_at(&games, "increment_seconds", 0), Some(3));
    assert_eq!(
        distinct(&games, "lichess_id").len(),
        30,
        "every game has its own id"
    );
    for (i, (white, black)) in [(-5, 5), (-4, 5)].into_iter().enumerate() {
        assert_eq!(
            i32_at(&games, "white_rating_diff", i),
            Some(white),
            "game {i}"
        );
        assert_eq!(
            i32_at(&games, "black_rating_diff", i),
            Some(black),
            "game {i}"
        );
    }
    for (row, plies, fen, end_state) in [
        (
            0,
            42,
            "r7/p1p2k1n/2p4r/4P2p/4Np2/BP3P1b/P1P2Kq1/R2QR3 w - - 4 22",
            "checkmate",
        ),
        (
            1,
            68,
            "4k3/p1p3r1/1p6/3BpP2/7P/6n1/PPP3P1/6K1 w - - 2 35",
            "none",
        ),
        (
            2,
            39,
            "3q1rk1/p2n2pp/4Q3/p1p2p2/2PPn3/B1P1P1P1/4NPKP/1R6 b - - 0 20",
            "none",
        ),
        (
            16,
            75,
            "5Q1k/pp4p1/8/3pp1N1/2r5/P7/1Pp3KP/2R5 b - - 4 38",
            "checkmate",
        ),
    ] {
        assert_eq!(u32_at(&games, "plies", row), Some(plies), "game {row}");
        assert_eq!(
            str_at(&games, "final_fen", row).as_deref(),
            Some(fen),
            "game {row}"
        );
        assert_eq!(
            str_at(&games, "end_state", row).as_deref(),
            Some(end_state),
            "game {row}"
        );
    }
    let checkmates = games
        .column("end_state")
        .and_then(|c| {
            c.str().map(|s| {
                (0..s.len())
                    .filter(|&i| s.get(i) == Some("checkmate"))
                    .count()
            })
        })
        .ok();
    assert_eq!(checkmates, Some(6));
}

#[test]
fn thread_count_does_not_change_the_tables() {
    let inputs = [
        sample("edge-cases.pgn"),
        sample("lichess-2025-05-30games.pgn"),
    ];
    let one = import(&inputs, 1);
    let four = import(&inputs, 4);
    for table in [
        "games.parquet",
        "rejects.parquet",
        "openings.parquet",
        "opening_lines.parquet",
    ] {
        assert_same_bytes(one.dir.path(), four.dir.path(), table, "1 and 4 threads");
    }
}

/// Framing on the workers (chunks cut before an empty line then
/// `[Event "`) gives the tables framing on the reader thread gives
/// (`PGNLAKE_SERIAL_FRAMING=1`), byte for byte: LF and CRLF text of many
/// chunks, with the edge cases' unterminated comments and tags-only games.
#[test]
fn framing_on_the_workers_gives_the_tables_of_framing_on_the_reader() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut lf = std::fs::read(sample("lichess-2025-05-30games.pgn")).unwrap_or_default();
    lf = lf.repeat(40);
    lf.extend(std::fs::read(sample("edge-cases.pgn")).unwrap_or_default());
    let text = String::from_utf8_lossy(&lf).into_owned();
    let crlf = text.replace("\r\n", "\n").replace('\n', "\r\n");
    let inputs = [dir.path().join("lf.pgn"), dir.path().join("crlf.pgn")];
    for (path, bytes) in inputs.iter().zip([text.as_bytes(), crlf.as_bytes()]) {
        std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{e}"));
    }
    let run = |serial: bool, out: &str| {
        let out = dir.path().join(out);
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pgnlake"));
        command.arg("import").args(&inputs).arg("--out").arg(&out);
        command.args(["--quiet", "--threads", "2", "--moves"]);
        command.env_remove("PGNLAKE_SERIAL_FRAMING");
        if serial {
            command.env("PGNLAKE_SERIAL_FRAMING", "1");
        }
        let status = command.status().unwrap_or_else(|e| panic!("{e}"));
        assert!(status.success(), "{status}");
        out
    };
    let (chunked, serial) = (run(false, "chunked"), run(true, "serial"));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(chunked.join("summary.json")).unwrap_or_default())
            .unwrap_or_default();
    // 1,200 lichess games and the 29 edge cases, twice.
    assert_eq!(summary["games_read"], 2 * (1200 + 29), "{summary}");
    for table in table_names() {
        assert_same_bytes(
            &chunked,
            &serial,
            &format!("{table}.parquet"),
            "framing on the workers and on the reader",
        );
    }
}

#[test]
fn compression_is_detected_from_magic_bytes() {
    use std::io::Write;
    let plain = std::fs::read(sample("edge-cases.pgn")).unwrap_or_default();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let zst = zstd::encode_all(&plain[..], 3).unwrap_or_default();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&plain).ok();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(&plain).ok();
    // Misleading suffixes on purpose: only the magic bytes count.
    let files = [
        ("a.pgn", zst),
        ("b.pgn.gz", bz.finish().unwrap_or_default()),
        ("c.pgn.bz2", gz.finish().unwrap_or_default()),
    ];
    let reference = import(&[sample("edge-cases.pgn")], 2).table("games");
    for (name, bytes) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        let run = import(&[path], 2);
        assert_eq!(run.summary.games_read, 29, "{name}");
        let games = run.table("games");
        let moves = |f: &polars::prelude::DataFrame| f.column("moves_uci").cloned().ok();
        assert_eq!(moves(&games), moves(&reference), "{name}");
    }
}

/// The lichess sample, eight times over (240 games, 490 KB): several
/// zstd frames of 64 KiB, as pzstd cuts them.
fn lichess_eightfold() -> Vec<u8> {
    std::fs::read(sample("lichess-2025-05-30games.pgn"))
        .unwrap_or_default()
        .repeat(8)
}

/// A skippable frame holding `payload`, with magic `0x184D2A50 + nibble`.
fn skippable_frame(nibble: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x50 + nibble, 0x2a, 0x4d, 0x18];
    frame.extend((payload.len() as u32).to_le_bytes());
    frame.extend(payload);
    frame
}

/// `plain` cut into zstd frames of `chunk` bytes; with `pzstd`, each frame
/// is preceded by a skippable frame holding its compressed size, as the
/// lichess database files are written.
fn zstd_frames(plain: &[u8], chunk: usize, pzstd: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in plain.chunks(chunk) {
        let frame = zstd::encode_all(piece, 3).unwrap_or_default();
        if pzstd {
            out.extend(skippable_frame(0, &(frame.len() as u32).to_le_bytes()));
        }
        out.extend(frame);
    }
    out
}

/// Imports `bytes` written to a file `name` and returns the run.
fn import_bytes(dir: &std::path::Path, name: &str, bytes: &[u8]) -> Imported {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
    import(&[path], 2)
}

/// A table without its `source` column, which names the file.
fn without_source(frame: polars::prelude::DataFrame) -> polars::prelude::DataFrame {
    frame.drop("source").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn zstd_frame_layouts_give_the_tables_of_the_plain_file() {
    let plain = lichess_eightfold();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let reference = import_bytes(dir.path(), "plain.pgn", &plain);
    assert_eq!(reference.summary.games_read, 240);
    let mut middle = zstd_frames(plain.get(..100_000).unwrap_or_default(), 1 << 16, false);
    middle.extend(skippable_frame(0xf, b"anything at all, skipped"));
    middle.extend(skippable_frame(0x3, b""));
    middle.extend(zstd_frames(
        plain.get(100_000..).unwrap_or_default(),
        1 << 16,
        false,
    ));
    // Frames that carry their content size (as `zstd::bulk` writes them).
    let sized: Vec<u8> = plain
        .chunks(1 << 16)
        .flat_map(|piece| zstd::bulk::compress(piece, 3).unwrap_or_default())
        .collect();
    let layouts = [
        ("pzstd.pgn.zst", zstd_frames(&plain, 1 << 16, true)),
        ("sized.pgn.zst", sized),
        ("frames.pgn.zst", zstd_frames(&plain, 1 << 16, false)),
        ("middle.pgn.zst", middle),
    ];
    for (name, bytes) in layouts {
        let run = import_bytes(dir.path(), name, &bytes);
        assert_eq!(run.summary.games_read, 240, "{name}");
        assert_eq!(run.summary.truncated_inputs, 0, "{name}");
        assert_eq!(run.summary.inputs[0].uncompressed_bytes, plain.len() as u64);
        for table in ["games", "rejects"] {
            assert!(
                without_source(run.table(table))
                    .equals_missing(&without_source(reference.table(table))),
                "{name}: {table} differs from the plain file's"
            );
        }
        for table in ["openings", "results", "material", "endgames"] {
            assert!(
                run.table(table).equals_missing(&reference.table(table)),
                "{name}: {table} differs from the plain file's"
            );
        }
    }
}

#[test]
fn a_truncated_pzstd_file_keeps_the_games_before_the_cut() {
    let plain = lichess_eightfold();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let reference = import_bytes(dir.path(), "plain.pgn", &plain).table("games");
    let pzstd = zstd_frames(&plain, 1 << 16, true);
    let cut = pzstd.get(..pzstd.len() * 3 / 4).unwrap_or_default();
    let run = import_bytes(dir.path(), "cut.pgn.zst", cut);
    let truncated = run.summary.inputs[0].truncated.clone();
    assert!(truncated.is_some(), "{:?}", run.summary.inputs);
    // Three quarters of the frames are whole: at least 2/3 of the games,
    // less than all of them.
    let read = run.summary.games_read;
    assert!((160..240).contains(&read), "{read} games read");
    let games = run.table("games");
    let kept = games.height().saturating_sub(1);
    let moves =
        |f: &polars::prelude::DataFrame| f.head(Some(kept)).column("moves_uci").cloned().ok();
    assert_eq!(moves(&games), moves(&reference));
}

#[test]
fn a_utf16_file_gives_the_games_of_its_utf8_twin() {
    let plain = std::fs::read_to_string(sample("lichess-2025-05-30games.pgn")).unwrap_or_default();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let reference = import(&[sample("lichess-2025-05-30games.pgn")], 2);
    for (name, big_endian) in [("le.pgn", false), ("be.pgn", true)] {
        let run = import_bytes(
            dir.path(),
            name,
            &pgnlake::input::text::encode_utf16(&plain, big_endian),
        );
        assert_eq!(run.summary.games_read, 30, "{name}");
        assert_eq!(run.summary.accepted, reference.summary.accepted, "{name}");
        assert!(
            without_source(run.table("games"))
                .equals_missing(&without_source(reference.table("games"))),
            "{name}: games differ from the UTF-8 file's"
        );
    }
}

/// A zip archive of `(name, bytes)` entries (a name ending in `/` is a
/// folder), deflated or stored.
fn zip_archive(entries: &[(&str, &[u8])], method: zip::CompressionMethod) -> Vec<u8> {
    use std::io::Write;
    let options = zip::write::SimpleFileOptions::default().compression_method(method);
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        let written = if name.ends_with('/') {
            writer.add_directory(*name, options)
        } else {
            writer
                .start_file(*name, options)
                .and_then(|()| writer.write_all(bytes).map_err(Into::into))
        };
        written.unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    writer
        .finish()
        .unwrap_or_else(|e| panic!("{e}"))
        .into_inner()
}

#[test]
fn zip_archives_are_read_entry_by_entry() {
    let edge = std::fs::read(sample("edge-cases.pgn")).unwrap_or_default();
    let lichess = std::fs::read(sample("lichess-2025-05-30games.pgn")).unwrap_or_default();
    let archive = zip_archive(
        &[
            ("round1.pgn", &edge),
            ("readme.txt", b"TWIC 1599"),
            ("games/", b""),
            ("games/ROUND2.PGN", &lichess),
        ],
        zip::CompressionMethod::Deflated,
    );
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let folder = dir.path().join("in");
    std::fs::create_dir(&folder).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(folder.join("twic1599g.zip"), &archive).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(folder.join("a.pgn"), &edge).unwrap_or_else(|e| panic!("{e}"));
    // A folder walk finds the archive beside the plain file.
    let run = import(std::slice::from_ref(&folder), 2);
    let zip_name = folder.join("twic1599g.zip").display().to_string();
    let paths: Vec<&str> = run.summary.inputs.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            folder.join("a.pgn").display().to_string(),
            format!("{zip_name}/round1.pgn"),
            format!("{zip_name}/games/ROUND2.PGN"),
        ]
    );
    assert_eq!(
        run.summary.skipped_entries,
        [format!("{zip_name}/readme.txt")]
    );
    // edge-cases.pgn twice (29 games), the lichess sample (30).
    assert_eq!(run.summary.games_read, 29 + 29 + 30);
    let games = run.table("games");
    let sources = distinct(&games, "source");
    assert!(
        sources.contains(&format!("{zip_name}/games/ROUND2.PGN")),
        "{sources:?}"
    );
    // The entries give the games of the files they hold.
    let plain = import(
        &[
            sample("edge-cases.pgn"),
            sample("lichess-2025-05-30games.pgn"),
        ],
        2,
    );
    let zipped = import(&[folder.join("twic1599g.zip")], 2);
    for table in ["games", "rejects"] {
        assert!(
            without_source(zipped.table(table)).equals_missing(&without_source(plain.table(table))),
            "{table} differs between the archive and its files"
        );
    }
    let json = std::fs::read_to_string(zipped.dir.path().join("summary.json")).unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(
        value["skipped_entries"][0],
        format!("{zip_name}/readme.txt")
    );
}

#[test]
fn a_damaged_zip_entry_is_a_truncated_input() {
    let lichess = std::fs::read(sample("lichess-2025-05-30games.pgn")).unwrap_or_default();
    let archive = zip_archive(
        &[("a.pgn", &lichess), ("b.pgn", &lichess)],
        zip::CompressionMethod::Stored,
    );
    // Change one move inside the first (stored) entry: its checksum fails
    // at the end of the entry.
    let mut damaged = archive.clone();
    let at = memchr_find(&damaged, b" e4 ").unwrap_or_else(|| panic!("no e4"));
    damaged[at + 2] = b'5';
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let run = import_bytes(dir.path(), "damaged.zip", &damaged);
    assert!(
        run.summary.inputs[0].truncated.is_some(),
        "{:?}",
        run.summary.inputs
    );
    assert!(run.summary.inputs[1].truncated.is_none());
    assert_eq!(run.summary.inputs[1].games, 30);
    assert_eq!(run.summary.truncated_inputs, 1);
}

fn memchr_find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn folders_are_walked_in_path_order_and_summary_json_is_written() {
    let run = import(
        &[std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-data")],
        2,
    );
    assert_eq!(run.summary.games_read, 144);
    // The two Chinese scoresheets are not SAN: import rejects them.
    assert!(run.summary.inputs[0].path.ends_with("chinese-notation.pgn"));
    assert!(run.summary.inputs[1].path.ends_with("edge-cases.pgn"));
    assert!(
        run.summary.inputs[2]
            .path
            .ends_with("lichess-2025-05-30games.pgn")
    );
    assert!(run.summary.inputs[3].path.ends_with("openings.pgn"));
    assert!(run.summary.inputs[4].path.ends_with("results.pgn"));
    assert!(
        run.summary.inputs[5]
            .path
            .ends_with("time-and-eval-comments.pgn")
    );
    assert!(run.summary.inputs[6].path.ends_with("untidy-archive.pgn"));
    assert!(run.summary.inputs[7].path.ends_with("variants.pgn"));
    assert!(run.summary.inputs[8].path.ends_with("walled-kings.pgn"));
    let json = std::fs::read_to_string(run.dir.path().join("summary.json")).unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(value["games_read"], 144);
    assert_eq!(value["accepted"], 113);
    assert_eq!(value["rejected"], 31);
    assert_eq!(value["balanced"], true);
    assert_eq!(value["tables"]["games.parquet"], 113);
    assert_eq!(value["tables"]["moves.parquet"], serde_json::Value::Null);
    assert_eq!(value["options"]["moves"], false);
    assert_eq!(value["options"]["unwinnable_nodes"], 0);
    // Per side of each standard-rules final position: the mates given; the
    // mated, stalemated, insufficient and proven dead; three flagged sides
    // the static stage cannot settle (no search by default); the positions
    // the cheap test did not flag.
    assert_eq!(
        value["unwinnability"],
        serde_json::json!({"winnable": 15, "unwinnable": 32, "undetermined": 3, "not_asked": 136})
    );
    // Counted with --moves only (see tests/it/moves.rs).
    assert_eq!(value["annotations"], serde_json::Value::Null);
    assert_eq!(value["tables"]["rejects.parquet"], 31);
    assert_eq!(value["rejected_by_reason"]["unknown_token"], 12);
    assert_eq!(value["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(value["truncated_inputs"], 0);
    assert!(
        value["peak_rss_bytes"]
            .as_u64()
            .is_some_and(|b| b > 1 << 20)
    );
    // No temporary files are left behind: the tables, the summary and the
    // (released) lock file.
    assert_eq!(
        common::listing(run.dir.path()),
        [
            ".pgnlake.lock",
            "endgames.parquet",
            "games.parquet",
            "material.parquet",
            "opening_lines.parquet",
            "openings.parquet",
            "rejects.parquet",
            "results.parquet",
            "summary.json"
        ]
    );
}

/// Issue 18: a FEN whose castling rights or en-passant square its position
/// cannot have is read without them, as python-chess does, and marked.
#[test]
fn impossible_fen_rights_are_dropped_and_marked() {
    let run = import(&[sample("untidy-archive.pgn")], 2);
    let games = run.table("games");
    let odds = common::row_by_event(&games, "Odds of the rook");
    assert_eq!(common::bool_at(&odds, "fen_repaired", 0), Some(true));
    assert_eq!(common::bool_at(&odds, "chess960", 0), Some(false));
    assert_eq!(common::u32_at(&odds, "plies", 0), Some(8));
    assert_eq!(
        common::str_at(&odds, "start_fen", 0).as_deref(),
        Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w KQkq - 0 1")
    );
    let ep = common::row_by_event(&games, "Impossible en passant square");
    assert_eq!(common::bool_at(&ep, "fen_repaired", 0), Some(true));
    let repaired = (0..games.height())
        .filter(|&row| common::bool_at(&games, "fen_repaired", row) == Some(true))
        .count();
    assert_eq!(repaired, 2);
}

/// The paths of every struct field of a summary (`a`, `a.b`, `inputs.0.c`):
/// the maps of counts by name (reasons, states, tables…) hold data, not
/// fields, and are left whole.
fn summary_fields(value: &serde_json::Value, at: &str, out: &mut Vec<String>) {
    const MAPS: [&str; 6] = [
        "rejected_by_reason",
        "end_states",
        "result_checks",
        "repairs",
        "tables",
        "table_digests",
    ];
    match value {
        serde_json::Value::Object(fields) => {
            for (name, inner) in fields {
                let path = if at.is_empty() {
                    name.clone()
                } else {
                    format!("{at}.{name}")
                };
                out.push(path.clone());
                if !MAPS.contains(&name.as_str()) {
                    summary_fields(inner, &path, out);
                }
            }
        }
        serde_json::Value::Array(items) => {
            if let Some(first) = items.first() {
                summary_fields(first, &format!("{at}.0"), out);
            }
        }
        _ => {}
    }
}

/// `value` with the field at `path` removed (`None`) or an unknown field
/// added beside it (`Some`).
fn edited(value: &serde_json::Value, path: &str, added: Option<&str>) -> serde_json::Value {
    let mut value = value.clone();
    let (parent, name) = path.rsplit_once('.').unwrap_or(("", path));
    let mut at = &mut value;
    for step in parent.split('.').filter(|s| !s.is_empty()) {
        at = match step.parse::<usize>() {
            Ok(i) => &mut at[i],
            Err(_) => &mut at[step],
        };
    }
    let object = at.as_object_mut().unwrap();
    match added {
        None => {
            object.remove(name);
        }
        Some(unknown) => {
            object.insert(unknown.to_owned(), serde_json::Value::from(1));
        }
    }
    value
}

#[test]
fn a_summary_missing_any_field_or_with_an_unknown_one_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let input = sample("openings.pgn");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(["import", "--quiet", "--moves", "--out"])
        .arg(&out)
        .arg(&input)
        .status()
        .unwrap();
    assert!(status.success());
    let path = out.join("summary.json");
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut fields = Vec::new();
    summary_fields(&original, "", &mut fields);
    assert!(fields.len() > 40, "{fields:?}");
    let read = |value: &serde_json::Value, what: &str| {
        std::fs::write(&path, value.to_string()).unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_pgnlake"))
            .args(["explore", "--data"])
            .arg(&out)
            .arg("e4")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{what}: {output:?}");
        common::usage_error(&output)
    };
    for field in &fields {
        let name = field.rsplit('.').next().unwrap();
        let line = read(&edited(&original, field, None), field);
        assert!(
            line.contains(&format!("missing field `{name}`")),
            "{field}: {line}"
        );
    }
    // An unknown field at every level of structs.
    let mut parents: Vec<&str> = fields
        .iter()
        .filter_map(|f| f.rsplit_once('.').map(|(parent, _)| parent))
        .collect();
    parents.push("");
    parents.sort();
    parents.dedup();
    for parent in parents.into_iter().filter(|p| {
        !p.split('.').any(|s| {
            [
                "rejected_by_reason",
                "end_states",
                "result_checks",
                "repairs",
                "tables",
            ]
            .contains(&s)
        })
    }) {
        let beside = if parent.is_empty() {
            "games_read".to_owned()
        } else {
            format!("{parent}.x")
        };
        let line = read(&edited(&original, &beside, Some("surplus")), &beside);
        assert!(line.contains("unknown field `surplus`"), "{parent}: {line}");
    }
    std::fs::write(&path, original.to_string()).unwrap();
}
