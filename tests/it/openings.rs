//! Opening statistics read back from Parquet: names by position, the
//! opening tree (with a transposition and a repeated position), the
//! per-opening table, and spilled runs equal to in-memory runs.

use crate::common;

use common::{
    Imported, bool_at, f64_at, i64_at, import, import_with, row_by_event, sample, str_at, u32_at,
    u64_at,
};
use pgnlake::stats::dimensions::OpeningPeriod;
use polars::prelude::*;

fn fixture() -> Imported {
    import(&[sample("openings.pgn")], 2)
}

/// One openings row as text: ply, position after which moves, stats. The
/// position and move are spelled from the row's game (rows of one game
/// carry no text; `spell_tree` checks the others' own).
fn tree_rows(frame: &DataFrame, games: &DataFrame) -> Vec<String> {
    let spelled = common::tree::spell_tree(frame, games);
    let year = |c: &str, i| common::i32_at(frame, c, i).map_or("-".to_owned(), |y| y.to_string());
    let months = common::dates(frame, "month");
    let n = |c: &str, i| u64_at(frame, c, i).unwrap_or(u64::MAX);
    let mut rows: Vec<String> = (0..frame.height())
        .map(|i| {
            format!(
                "{} {} {} {}/{}/{}/{} w{}/{} b{}/{} {}-{} {} {} {}",
                u32_at(frame, "ply", i).unwrap_or(u32::MAX),
                spelled[i].epd,
                spelled[i].san,
                n("white_wins", i),
                n("draws", i),
                n("black_wins", i),
                n("unfinished", i),
                n("white_elo_sum", i),
                n("white_elo_count", i),
                n("black_elo_sum", i),
                n("black_elo_count", i),
                year("first_year", i),
                year("last_year", i),
                str_at(frame, "time_class", i).unwrap_or_default(),
                year("rating_band", i),
                months
                    .get(i)
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| "-".to_owned()),
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn the_opening_tree_of_the_fixture_has_exactly_these_rows() {
    let run = fixture();
    assert_eq!(run.summary.games_read, 6);
    assert_eq!(run.summary.accepted, 6);
    let tree = run.table("openings");
    let expected = [
        // Start: the knights game left the start position last with e4
        // (its Nf3 is cut out as a loop); the Sicilian also played e4, but
        // unrated and undated: two rows of e4.
        "0 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c4 0/0/1/0 w2300/1 b2600/1 1995-1995 unknown 2400 -",
        "0 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - d4 1/0/0/0 w2500/1 b2400/1 2001-2001 unknown 2400 2001-03-01",
        "0 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - e4 0/0/0/1 w0/0 b0/0 --- unknown - -",
        "0 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - e4 0/1/0/0 w2000/1 b0/0 2010-2010 unknown - 2010-01-01",
        // Fool's mate declared 1-0: the board proves 0-1, which counts.
        "0 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - f3 0/0/1/0 w1200/1 b1300/1 2020-2020 unknown 1200 2020-06-01",
        "1 rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - e6 0/0/1/0 w2300/1 b2600/1 1995-1995 unknown 2400 -",
        "1 rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - Nf6 1/0/0/0 w2500/1 b2400/1 2001-2001 unknown 2400 2001-03-01",
        // Reached at ply 1 by the Sicilian and at ply 5 by the knights game
        // (its row, below: a row's ply is its own game's).
        "1 rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c5 0/0/0/1 w0/0 b0/0 --- unknown - -",
        "1 rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - Nf6 0/1/0/0 w2000/1 b0/0 2010-2010 unknown - 2010-01-01",
        "1 rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - e5 0/0/1/0 w1200/1 b1300/1 2020-2020 unknown 1200 2020-06-01",
        "2 rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - c4 1/0/0/0 w2500/1 b2400/1 2001-2001 unknown 2400 2001-03-01",
        "2 rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - Ng1 0/1/0/0 w2000/1 b0/0 2010-2010 unknown - 2010-01-01",
        "2 rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - Nf3 0/0/0/1 w0/0 b0/0 --- unknown - -",
        "2 rnbqkbnr/pppp1ppp/4p3/8/2P5/8/PP1PPPPP/RNBQKBNR w KQkq - d4 0/0/1/0 w2300/1 b2600/1 1995-1995 unknown 2400 -",
        "2 rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - g4 0/0/1/0 w1200/1 b1300/1 2020-2020 unknown 1200 2020-06-01",
        "3 rnbqkb1r/pppppppp/5n2/8/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - e6 1/0/0/0 w2500/1 b2400/1 2001-2001 unknown 2400 2001-03-01",
        "3 rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - Ng8 0/1/0/0 w2000/1 b0/0 2010-2010 unknown - 2010-01-01",
        "3 rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - d6 0/0/0/1 w0/0 b0/0 --- unknown - -",
        "3 rnbqkbnr/pppp1ppp/4p3/8/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - Nf6 0/0/1/0 w2300/1 b2600/1 1995-1995 unknown 2400 -",
        "3 rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - Qh4# 0/0/1/0 w1200/1 b1300/1 2020-2020 unknown 1200 2020-06-01",
        // The transposition: both move orders meet here, one row each for
        // the game of 1995 (no month) and that of March 2001.
        "4 rnbqkb1r/pppp1ppp/4pn2/8/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - Nc3 0/0/1/0 w2300/1 b2600/1 1995-1995 unknown 2400 -",
        "4 rnbqkb1r/pppp1ppp/4pn2/8/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - Nc3 1/0/0/0 w2500/1 b2400/1 2001-2001 unknown 2400 2001-03-01",
        "5 rnbqkb1r/pppp1ppp/4pn2/8/2PP4/2N5/PP2PPPP/R1BQKBNR b KQkq - Bb4 0/0/1/0 w2300/1 b2600/1 1995-1995 unknown 2400 -",
        "5 rnbqkb1r/pppp1ppp/4pn2/8/2PP4/2N5/PP2PPPP/R1BQKBNR b KQkq - Bb4 1/0/0/0 w2500/1 b2400/1 2001-2001 unknown 2400 2001-03-01",
        "5 rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - e5 0/1/0/0 w2000/1 b0/0 2010-2010 unknown - 2010-01-01",
    ];
    assert_eq!(tree_rows(&tree, &run.table("games")), expected);
    // games = white + draws + black + unfinished on every row.
    let games: u64 = (0..tree.height())
        .filter_map(|i| u64_at(&tree, "games", i))
        .sum();
    assert_eq!(games, 25);
    // Rows are sorted by position key as stored (signed), and the key read
    // back as unsigned is the Polyglot key.
    let keys: Vec<i64> = (0..tree.height())
        .filter_map(|i| i64_at(&tree, "position_key", i))
        .collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]));
    assert!(keys.iter().any(|&k| k < 0) && keys.iter().any(|&k| k > 0));
    let polyglot: Vec<u64> = keys.iter().map(|k| k.cast_unsigned()).collect();
    assert!(polyglot.contains(&0x463b_9618_1691_fc9c));
    assert!(polyglot.contains(&0x823c_9b50_fd11_4196), "1.e4 b KQkq -");
}

#[test]
fn next_position_key_links_a_move_to_the_row_of_the_position_it_reaches() {
    let run = fixture();
    let tree = run.table("openings");
    let spelled = common::tree::spell_tree(&tree, &run.table("games"));
    let row_of = |san: &str, ply: u32| {
        (0..tree.height())
            .find(|&i| spelled[i].san == san && u32_at(&tree, "ply", i) == Some(ply))
            .unwrap_or_else(|| panic!("no {san} at ply {ply}"))
    };
    let c4 = row_of("c4", 2);
    let e6 = row_of("e6", 3);
    assert_eq!(
        Some(spelled[c4].next_position_key),
        i64_at(&tree, "position_key", e6)
    );
    assert_eq!(
        str_at(&tree, "move_uci", row_of("Bb4", 5)).as_deref(),
        Some("f8b4")
    );
}

#[test]
fn opening_lines_of_the_fixture_has_exactly_these_rows() {
    let lines = fixture().table("opening_lines");
    let names: Vec<(String, String, String)> = (0..lines.height())
        .map(|i| {
            (
                str_at(&lines, "eco", i).unwrap_or_default(),
                str_at(&lines, "opening_name", i).unwrap_or_default(),
                str_at(&lines, "opening_family", i).unwrap_or_default(),
            )
        })
        .collect();
    let own = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        names,
        vec![
            own("A00", "Barnes Opening: Fool's Mate", "Barnes Opening"),
            own(
                "B50",
                "Sicilian Defense: Modern Variations",
                "Sicilian Defense"
            ),
            own("C20", "King's Pawn Game", "King's Pawn Game"),
            // The two Nimzo-Indian games: one of 1995 (month unknown, so
            // null, first), one of March 2001.
            own("E20", "Nimzo-Indian Defense", "Nimzo-Indian Defense"),
            own("E20", "Nimzo-Indian Defense", "Nimzo-Indian Defense"),
        ]
    );
    let months = common::dates(&lines, "month");
    assert_eq!(
        (months[3].as_deref(), months[4].as_deref()),
        (None, Some("2001-03-01"))
    );
    assert_eq!(common::i32_at(&lines, "rating_band", 3), Some(2400));
    let counts = |i| {
        ["games", "white_wins", "draws", "black_wins", "unfinished"]
            .map(|c| u64_at(&lines, c, i).unwrap_or(u64::MAX))
    };
    assert_eq!(counts(0), [1, 0, 0, 1, 0]);
    assert_eq!(counts(1), [1, 0, 0, 0, 1]);
    assert_eq!(counts(2), [1, 0, 1, 0, 0]);
    assert_eq!(counts(3), [1, 0, 0, 1, 0]);
    assert_eq!(counts(4), [1, 1, 0, 0, 0]);
    let elo = |i| {
        [
            "white_elo_sum",
            "white_elo_count",
            "black_elo_sum",
            "black_elo_count",
            "plies_sum",
            "elo_diff_count",
        ]
        .map(|c| u64_at(&lines, c, i).unwrap_or(u64::MAX))
    };
    assert_eq!(elo(0), [1200, 1, 1300, 1, 4, 1]);
    assert_eq!(elo(1), [0, 0, 0, 0, 4, 0]);
    assert_eq!(elo(2), [2000, 1, 0, 0, 6, 0]);
    assert_eq!(elo(3), [2300, 1, 2600, 1, 6, 1]);
    assert_eq!(elo(4), [2500, 1, 2400, 1, 6, 1]);
    let ratios =
        |i| ["white_score", "draw_rate", "avg_plies", "avg_elo_diff"].map(|c| f64_at(&lines, c, i));
    assert_eq!(ratios(0), [Some(0.0), Some(0.0), Some(4.0), Some(-100.0)]);
    // Unfinished only: no score, no draw rate.
    assert_eq!(ratios(1), [None, None, Some(4.0), None]);
    assert_eq!(ratios(2), [Some(0.5), Some(1.0), Some(6.0), None]);
    assert_eq!(ratios(3), [Some(0.0), Some(0.0), Some(6.0), Some(-300.0)]);
    assert_eq!(ratios(4), [Some(1.0), Some(0.0), Some(6.0), Some(100.0)]);
    assert_eq!(i64_at(&lines, "elo_diff_sum", 3), Some(-300));
}

#[test]
fn games_are_named_by_position_and_checked_against_their_eco_tag() {
    let games = fixture().table("games");
    let named = |event: &str| {
        let row = row_by_event(&games, event);
        (
            str_at(&row, "eco", 0),
            str_at(&row, "opening_name", 0),
            str_at(&row, "opening_family", 0),
            u32_at(&row, "opening_ply", 0),
            bool_at(&row, "eco_matches_tag", 0),
        )
    };
    let some = |s: &str| Some(s.to_owned());
    let nimzo = (
        some("E20"),
        some("Nimzo-Indian Defense"),
        some("Nimzo-Indian Defense"),
        Some(6),
    );
    let (eco, name, family, ply, matches) = named("Fixture: Nimzo-Indian, queen's pawn order");
    assert_eq!(
        ((eco, name, family, ply), matches),
        (nimzo.clone(), Some(true))
    );
    // Same position by another order; its ECO tag (A13) is wrong.
    let (eco, name, family, ply, matches) = named("Fixture: Nimzo-Indian, English order");
    assert_eq!(((eco, name, family, ply), matches), (nimzo, Some(false)));
    // No ECO tag: nothing to compare.
    let knights = named("Fixture: knights out and back, then 1.e4 e5");
    assert_eq!(knights.0.as_deref(), Some("C20"));
    assert_eq!((knights.3, knights.4), (Some(6), None));
    assert_eq!(named("Fixture: Sicilian, unfinished").4, Some(true));
    // A set-up position has no opening.
    assert_eq!(
        named("Fixture: set-up position"),
        (None, None, None, None, None)
    );
}

#[test]
fn real_games_get_the_names_lichess_gives_them() {
    let games = import(&[sample("lichess-2025-05-30games.pgn")], 2).table("games");
    // Expected values from an independent python-chess classifier over the
    // same table; they equal these games' own lichess Opening tags.
    let expected = [
        ("alanbrito4", "C46", "Three Knights Opening", 5),
        ("mohammadX1X", "C42", "Petrov's Defense", 4),
        (
            "agstokes57",
            "C70",
            "Ruy Lopez: Morphy Defense, Caro Variation",
            8,
        ),
        (
            "GASPADAREK",
            "D93",
            "Grünfeld Defense: Three Knights Variation, Hungarian Variation",
            11,
        ),
        ("shmevayaa", "B01", "Scandinavian Defense: Main Line", 6),
    ];
    for (white, eco, name, ply) in expected {
        let i = (0..games.height())
            .find(|&i| str_at(&games, "white", i).as_deref() == Some(white))
            .unwrap_or_else(|| panic!("no game of {white}"));
        assert_eq!(str_at(&games, "eco", i).as_deref(), Some(eco), "{white}");
        assert_eq!(
            str_at(&games, "opening_name", i).as_deref(),
            Some(name),
            "{white}"
        );
        assert_eq!(u32_at(&games, "opening_ply", i), Some(ply), "{white}");
        assert_eq!(
            str_at(&games, "opening_tag", i).as_deref(),
            Some(name),
            "{white}"
        );
    }
    // 29 of the 30 ECO tags agree; lichess tags one C47 game that this
    // table names C55 (Italian Game: Two Knights Defense).
    let agree: Vec<Option<bool>> = (0..games.height())
        .map(|i| bool_at(&games, "eco_matches_tag", i))
        .collect();
    assert_eq!(agree.iter().filter(|a| **a == Some(true)).count(), 29);
    assert_eq!(agree.iter().filter(|a| **a == Some(false)).count(), 1);
}

#[test]
fn a_tiny_memory_budget_spills_and_gives_identical_tables() {
    let inputs = [std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-data")];
    let in_memory = import_with(&inputs, 1, 20, 1 << 30);
    let spilled = import_with(&inputs, 2, 20, 16 << 10);
    assert_eq!(in_memory.summary.opening_tree.spill_runs, 0);
    assert!(
        spilled.summary.opening_tree.spill_runs > 10,
        "{} runs",
        spilled.summary.opening_tree.spill_runs
    );
    for table in [
        "openings.parquet",
        "opening_lines.parquet",
        "results.parquet",
        "material.parquet",
        "endgames.parquet",
    ] {
        let a = std::fs::read(in_memory.dir.path().join(table)).unwrap_or_default();
        let b = std::fs::read(spilled.dir.path().join(table)).unwrap_or_default();
        assert!(a.len() > 1000, "{table} is too small");
        assert!(a == b, "{table} differs between in-memory and spilled runs");
    }
    let rows = in_memory.table("openings").height();
    assert_eq!(rows as u64, in_memory.summary.tables["openings.parquet"]);
    // The spill folder is removed.
    let names = common::listing(spilled.dir.path());
    assert!(
        names
            .iter()
            .all(|n| !n.starts_with('.') || n == ".pgnlake.lock"),
        "{names:?}"
    );
}

#[test]
fn the_window_is_set_by_opening_plies() {
    let run = import_with(&[sample("openings.pgn")], 1, 2, 1 << 30);
    let tree = run.table("openings");
    let max_ply = (0..tree.height())
        .filter_map(|i| u32_at(&tree, "ply", i))
        .max();
    assert_eq!(max_ply, Some(1));
    assert_eq!(tree.height(), 10);
}

/// The tree and the lines of the sample data summed over speed, rating
/// band and month are exactly the tables before the dimensions (pgnlake
/// c0b3e60: 570 rows of (position, move), 42 openings), whatever the period.
#[test]
fn summed_over_the_dimensions_the_tables_are_those_before_them() {
    let sample_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data");
    let mut rows = Vec::new();
    for period in [
        OpeningPeriod::Month,
        OpeningPeriod::Year,
        OpeningPeriod::None,
    ] {
        let run = common::import_period(std::slice::from_ref(&sample_dir), period);
        let tree = run.table("openings");
        assert_eq!(
            common::summed_tree_digest(&tree, &run.table("games")),
            (570, "8409ac0bd6a947f3".to_owned()),
            "{period:?}"
        );
        assert_eq!(
            common::summed_lines_digest(&run.table("opening_lines")),
            (42, "d7a1e21f4d70cc1e".to_owned()),
            "{period:?}"
        );
        let months: std::collections::BTreeSet<Option<String>> =
            common::dates(&tree, "month").into_iter().collect();
        match period {
            OpeningPeriod::Month => assert!(months.contains(&Some("2025-05-01".to_owned()))),
            OpeningPeriod::Year => assert!(months.iter().flatten().all(|m| m.ends_with("-01-01"))),
            OpeningPeriod::None => assert_eq!(months, [None].into()),
        }
        assert_eq!(run.summary.opening_tree.period, period);
        rows.push(tree.height());
    }
    // Coarser periods, fewer rows; never fewer than the (position, move)s.
    assert!(
        rows[0] >= rows[1] && rows[1] > rows[2] && rows[2] > 570,
        "{rows:?}"
    );
}

/// A row's dimensions are its games': two games of one line, one blitz
/// 2000-rated of May 2025 and one classical unrated of 1999, are two rows
/// of every (position, move) they share.
#[test]
fn games_of_other_speeds_bands_and_months_are_rows_of_their_own() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let pgn = dir.path().join("two.pgn");
    std::fs::write(
        &pgn,
        "[Event \"a\"]\n[UTCDate \"2025.05.31\"]\n[Date \"2025.06.01\"]\n[WhiteElo \"1990\"]\n\
         [BlackElo \"2250\"]\n[TimeControl \"180+2\"]\n\n1. e4 e5 2. Nf3 1-0\n\n\
         [Event \"b\"]\n[Date \"1999.??.??\"]\n[WhiteElo \"2400\"]\n[TimeControl \"5400+30\"]\n\n\
         1. e4 e5 2. Nc3 0-1\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let run = import(&[pgn], 1);
    let tree = run.table("openings");
    let spelled = common::tree::spell_tree(&tree, &run.table("games"));
    let months = common::dates(&tree, "month");
    let rows: Vec<String> = (0..tree.height())
        .map(|i| {
            format!(
                "{} {} {} {} {}",
                spelled[i].san,
                str_at(&tree, "time_class", i).unwrap_or_default(),
                common::i32_at(&tree, "rating_band", i).map_or("-".to_owned(), |b| b.to_string()),
                months
                    .get(i)
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| "-".to_owned()),
                u64_at(&tree, "games", i).unwrap_or_default(),
            )
        })
        .collect();
    let mut sorted = rows.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            "Nc3 classical - - 1",
            "Nf3 blitz 2000 2025-05-01 1",
            "e4 blitz 2000 2025-05-01 1",
            "e4 classical - - 1",
            "e5 blitz 2000 2025-05-01 1",
            "e5 classical - - 1",
        ]
    );
    // Within a (position, move): by speed (blitz before classical).
    let e4: Vec<&String> = rows.iter().filter(|r| r.starts_with("e4 ")).collect();
    assert_eq!(e4, ["e4 blitz 2000 2025-05-01 1", "e4 classical - - 1"]);
    let games = run.table("games");
    assert_eq!(
        common::dates(&games, "month"),
        [Some("2025-05-01".to_owned()), None]
    );
}

/// An import made with other rating bands (before lichess's groups were
/// unions of bands: no `rating_bands`, or other ones) cannot be summed with
/// this version's rows: `merge`, `lake --add` and the readers refuse it
/// with one line naming the bands.
#[test]
fn imports_of_other_rating_bands_are_refused_by_merge_lake_and_readers() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pgnlake"))
            .args(args)
            .output()
            .unwrap()
    };
    let input = sample("openings.pgn").to_string_lossy().into_owned();
    let (s1, s2, w) = (at("s1"), at("s2"), at("w"));
    for args in [
        vec!["--shard", "1/2", "-o", &s1],
        vec!["--shard", "2/2", "-o", &s2],
        vec!["-o", &w],
    ] {
        let made = run(&[&["import", &input, "-q"][..], &args].concat());
        assert!(made.status.success(), "{made:?}");
    }
    let edit = |folder: &str, bands: Option<serde_json::Value>| {
        let path = dir.path().join(folder).join("summary.json");
        let mut summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let tree = summary["opening_tree"].as_object_mut().unwrap();
        assert_eq!(
            tree["rating_bands"],
            serde_json::json!(pgnlake::model::RatingBand::LOWER_BOUNDS)
        );
        match bands {
            Some(bands) => tree.insert("rating_bands".into(), bands),
            None => tree.remove("rating_bands"),
        };
        std::fs::write(&path, summary.to_string()).unwrap();
    };
    let old: Vec<i32> = (800..=2800).step_by(200).collect();
    edit("s2", Some(serde_json::json!(old)));
    let merged = common::usage_error(&run(&["merge", &at("s1"), &at("s2"), "-o", &at("m")]));
    assert!(
        merged.contains("s2/summary.json: made with other rating bands (opening_tree.rating_bands [800,1000,1200"),
        "{merged}"
    );
    assert!(merged.ends_with("import it again"), "{merged}");
    edit("w", None);
    let added = common::usage_error(&run(&[
        "lake",
        &at("lake"),
        "--add",
        &at("w"),
        "--name",
        "a",
    ]));
    assert!(added.contains("missing field `rating_bands`"), "{added}");
    let explored = common::usage_error(&run(&["explore", "--data", &at("w"), "e4"]));
    assert!(
        explored.contains("made with other rating bands"),
        "{explored}"
    );
}
