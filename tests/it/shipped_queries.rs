//! Every file in `queries/` runs with polars SQL over the tables of a
//! sample-data import, and the opening queries give known answers.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Imported, import, import_moves, rows, str_at, u64_at};
use pgnlake::read::query::{Tables, place, split_statements};
use polars::prelude::*;

fn queries_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("queries")
}

fn context(run: &Imported) -> Tables {
    Tables::open(run.dir.path()).unwrap_or_else(|e| panic!("{e}"))
}

/// Every statement's result of `queries/NAME`, in order.
fn run_all(tables: &mut Tables, name: &str) -> Vec<DataFrame> {
    let sql =
        std::fs::read_to_string(queries_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    split_statements(&sql)
        .iter()
        .enumerate()
        .map(|(i, statement)| {
            tables
                .run(statement, &place(name, i, statement))
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

/// The last statement's result of `queries/NAME`.
fn run_query(tables: &mut Tables, name: &str) -> DataFrame {
    run_all(tables, name)
        .pop()
        .unwrap_or_else(|| panic!("{name} has no statement"))
}

/// An integer cell, whatever integer type the engine chose.
fn number_at(frame: &DataFrame, column: &str, row: usize) -> Option<u64> {
    frame
        .column(column)
        .and_then(|c| c.cast(&DataType::UInt64))
        .ok()
        .and_then(|c| c.u64().ok().and_then(|s| s.get(row)))
}

/// The stored key of a FEN or EPD, as `pgnlake key` prints it.
fn key_of(fen: &str) -> i64 {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(["key", fen])
        .output()
        .unwrap_or_else(|e| panic!("pgnlake key: {e}"));
    let text = common::stdout_of(&output);
    text.trim()
        .parse()
        .unwrap_or_else(|e| panic!("pgnlake key {fen}: {e}: {text:?}"))
}

fn sample_run() -> Imported {
    import_moves(
        &[Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data")],
        2,
    )
}

#[test]
fn every_query_states_its_question_and_runs() {
    let run = sample_run();
    let mut context = context(&run);
    let names = common::recipes();
    assert!(names.len() >= 6, "{names:?}");
    for name in &names {
        let sql = std::fs::read_to_string(queries_dir().join(name)).unwrap_or_default();
        assert!(sql.starts_with("-- "), "{name} has no header comment");
        assert!(
            sql.contains("-- Tables: "),
            "{name} does not name its tables"
        );
        for frame in run_all(&mut context, name) {
            assert!(frame.width() > 0, "{name}");
        }
    }
}

#[test]
fn opening_queries_answer_on_the_sample() {
    let run = sample_run();
    let mut context = context(&run);

    let decades = run_query(&mut context, "openings_by_decade.sql");
    // The fixture's games of 1995 and 2001-2020 and the lichess games of 2025.
    let firsts: Vec<(u64, String)> = (0..decades.height())
        .filter(|&i| number_at(&decades, "rank", i) == Some(1))
        .map(|i| {
            let decade = number_at(&decades, "decade", i).unwrap_or_default();
            (
                decade,
                str_at(&decades, "opening_family", i).unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        firsts.first(),
        Some(&(1990, "Nimzo-Indian Defense".to_owned()))
    );
    assert_eq!(firsts.len(), 4, "{firsts:?}");

    let replies = run_query(&mut context, "replies_after_e4_c5.sql");
    let moves: Vec<String> = (0..replies.height())
        .filter_map(|i| str_at(&replies, "move_uci", i))
        .collect();
    // The unfinished fixture game (2.Nf3 *) has no finished result to score.
    assert!(!moves.is_empty());
    let total: u64 = (0..replies.height())
        .filter_map(|i| number_at(&replies, "games", i))
        .sum();
    let openings = run.table("openings");
    // Found by key: rows of one game have no EPD.
    let e4_c5 = key_of("rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -");
    // Per move over all its rows (speeds, bands, months): the moves with a
    // finished game.
    let mut by_move: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
    for i in (0..openings.height())
        .filter(|&i| common::i64_at(&openings, "position_key", i) == Some(e4_c5))
    {
        let entry = by_move
            .entry(str_at(&openings, "move_uci", i).unwrap_or_default())
            .or_default();
        let games = u64_at(&openings, "games", i).unwrap_or_default();
        entry.0 += games;
        entry.1 += games - u64_at(&openings, "unfinished", i).unwrap_or_default();
    }
    let expected: u64 = by_move.values().filter(|m| m.1 > 0).map(|m| m.0).sum();
    assert_eq!(total, expected);
    assert_eq!(moves.len(), by_move.values().filter(|m| m.1 > 0).count());

    let transpositions = run_query(&mut context, "transpositions.sql");
    // The Nimzo-Indian fixture pair meets after 4 plies from two parents
    // (a third game, in edge-cases.pgn, comes the queen's pawn way).
    // Its rows are of one game each: found by key, through their games.
    let nimzo_node = key_of("rnbqkb1r/pppp1ppp/4pn2/8/2PP4/8/PP2PPPP/RNBQKBNR w KQkq -");
    let row = (0..transpositions.height())
        .find(|&i| common::i64_at(&transpositions, "position_key", i) == Some(nimzo_node))
        .unwrap_or_else(|| panic!("no transposition row for the Nimzo node"));
    assert_eq!(number_at(&transpositions, "move_orders", row), Some(2));
    assert_eq!(number_at(&transpositions, "games", row), Some(3));
}

/// The replies to 1.e4 by rating band, against the games and moves tables:
/// each standard game's band from its two ratings and its second move.
#[test]
fn replies_by_rating_band_agree_with_the_games_and_moves_tables() {
    let run = sample_run();
    let mut context = context(&run);
    let ranked = run_query(&mut context, "replies_to_e4_by_rating_band.sql");
    let games = run.table("games");
    let moves = run.table("moves");
    let mut first_two: std::collections::BTreeMap<i64, Vec<(i32, String)>> = Default::default();
    for i in 0..moves.height() {
        let ply = common::i32_at(&moves, "ply", i).unwrap_or_default();
        if ply <= 2 {
            let id = common::i64_at(&moves, "game_id", i).unwrap_or_default();
            let uci = str_at(&moves, "uci", i).unwrap_or_default();
            first_two.entry(id).or_default().push((ply, uci));
        }
    }
    let mut expected: std::collections::BTreeMap<(i32, String), u64> = Default::default();
    for i in 0..games.height() {
        let standard = str_at(&games, "variant_name", i).as_deref() == Some("standard")
            && str_at(&games, "start_fen", i).is_none();
        let elos = (
            common::i32_at(&games, "white_elo", i),
            common::i32_at(&games, "black_elo", i),
        );
        let (true, (Some(white), Some(black))) = (standard, elos) else {
            continue;
        };
        let band = ((white + black) / 2 / 200 * 200).clamp(800, 2800);
        let id = common::i64_at(&games, "game_id", i).unwrap_or_default();
        if let Some([(1, first), (2, reply)]) = first_two.get(&id).map(Vec::as_slice)
            && first == "e2e4"
        {
            *expected.entry((band, reply.clone())).or_default() += 1;
        }
    }
    assert!(ranked.height() >= 5, "{}", ranked.height());
    for i in 0..ranked.height() {
        let band = number_at(&ranked, "rating_band", i).unwrap_or_default() as i32;
        let uci = str_at(&ranked, "move_uci", i).unwrap_or_default();
        let games = number_at(&ranked, "games", i);
        assert_eq!(
            games,
            expected.get(&(band, uci.clone())).copied(),
            "{band} {uci}"
        );
        // Ranked by games: no reply of the band outside the top three has more.
        if number_at(&ranked, "rank", i) == Some(1) {
            let most = expected
                .iter()
                .filter(|((b, _), _)| *b == band)
                .map(|(_, n)| *n)
                .max();
            assert_eq!(games, most);
        }
    }
}

/// The month-by-month shares of the opening families, against the games
/// table's `month` and `opening_family`.
#[test]
fn opening_shares_by_month_agree_with_the_games_table() {
    let run = sample_run();
    let mut context = context(&run);
    let shares = run_query(&mut context, "opening_share_by_month.sql");
    let games = run.table("games");
    let months = common::dates(&games, "month");
    assert!(shares.height() > 3, "{}", shares.height());
    for i in 0..shares.height() {
        let month = str_at(&shares, "month", i);
        let family = str_at(&shares, "opening_family", i);
        let named_in_month = (0..games.height())
            .filter(|&g| months.get(g).cloned().flatten() == month)
            .filter(|&g| str_at(&games, "opening_family", g).is_some())
            .count() as f64;
        let of_family = (0..games.height())
            .filter(|&g| months.get(g).cloned().flatten() == month)
            .filter(|&g| str_at(&games, "opening_family", g) == family)
            .count() as u64;
        assert_eq!(
            number_at(&shares, "games", i),
            Some(of_family),
            "{month:?} {family:?}"
        );
        let share = common::f64_at(&shares, "share_percent", i).unwrap_or_default();
        assert!((share - 100.0 * of_family as f64 / named_in_month).abs() < 1e-9);
    }
}

#[test]
fn result_queries_answer_on_the_fixture() {
    let run = import(&[common::sample("results.pgn")], 2);
    let mut context = context(&run);
    assert_eq!(
        rows(&run_query(&mut context, "expected_score_curve.sql")),
        [
            "-800 | 1 | 0.0",
            "-100 | 1 | 0.5",
            "-50 | 1 | 1.0",
            "0 | 11 | 0.6",
            "50 | 1 | 0.5",
            "100 | 1 | 1.0",
            "800 | 1 | 1.0",
        ]
    );
    assert_eq!(
        rows(&run_query(&mut context, "draw_reasons_by_time_class.sql")),
        [
            "blitz | perpetual_check | 1 | 1.0",
            "bullet | agreement_or_other | 1 | 0.5",
            "bullet | stalemate | 1 | 0.5",
            "classical | agreement_or_other | 1 | 1.0",
            "correspondence | agreement_or_other | 1 | 1.0",
            "rapid | agreement_or_other | 1 | 1.0",
        ]
    );
    assert_eq!(
        rows(&run_query(&mut context, "checkmates_by_time_class.sql")),
        [
            "blitz | 4 | 0 | 0.0",
            "bullet | 4 | 1 | 0.25",
            "classical | 3 | 0 | 0.0",
            "correspondence | 3 | 0 | 0.0",
            "rapid | 6 | 1 | 0.166667",
            "ultrabullet | 2 | 0 | 0.0",
            "unknown | 1 | 0 | 0.0",
        ]
    );
    assert_eq!(
        rows(&run_query(&mut context, "top_endgames.sql")),
        [
            "KQPPPvKRPP | 1 | 0 | 1 | 0 | 10.0",
            "KRPvKR | 1 | 0 | 1 | 0 | 8.0"
        ]
    );
    let draw_rates = rows(&run_query(
        &mut context,
        "draw_rate_by_time_class_and_year.sql",
    ));
    assert_eq!(draw_rates.len(), 14);
    assert!(draw_rates.contains(&"correspondence | 2023 | 3 | 1 | 0.333333".to_owned()));
}

#[test]
fn material_lead_conversion_agrees_with_the_games_table() {
    let run = sample_run();
    let mut context = context(&run);
    let conversion = run_query(&mut context, "material_lead_conversion.sql");
    let games = run.table("games");
    // The material table counts standard chess and Chess960 only.
    let standard_rules = |i: usize| {
        matches!(
            common::str_at(&games, "variant_name", i).as_deref(),
            Some("standard" | "chess960")
        )
    };
    let at_40: Vec<Option<i32>> = (0..games.height())
        .filter(|&i| standard_rules(i))
        .map(|i| common::i32_at(&games, "material_diff_at_40", i))
        .collect();
    assert!(conversion.height() > 0);
    for row in 0..conversion.height() {
        let lead = number_at(&conversion, "lead", row).unwrap_or_default() as i32;
        let expected = at_40
            .iter()
            .filter(|d| d.map(i32::abs) == Some(lead))
            .count() as u64;
        assert_eq!(
            number_at(&conversion, "games", row),
            Some(expected),
            "lead {lead}"
        );
    }
}

/// The replies to 1.e4 that gained and lost ground, against `explore`'s
/// own count of each band and year (its `--rating` and `--since`/`--until`
/// filters): the games of each move and its share of the band's games.
#[test]
fn move_trends_agree_with_explore_by_band_and_year() {
    let run = sample_run();
    let mut context = context(&run);
    let trends = run_query(&mut context, "move_trends_after_e4.sql");
    assert!(trends.height() >= 2, "{trends:?}");
    let data = common::text(run.dir.path());
    let explored = |band: u64, year: u64| -> serde_json::Value {
        let (band, since, until) = (band.to_string(), format!("{year}-01"), format!("{year}-12"));
        let output = common::pgnlake(&[
            "explore", "--data", &data, "e4", "--rating", &band, "--since", &since, "--until",
            &until, "--format", "json",
        ]);
        serde_json::from_str(&common::stdout_of(&output)).unwrap_or_else(|e| panic!("{e}"))
    };
    let (mut gained, mut lost) = (false, false);
    for i in 0..trends.height() {
        let band = number_at(&trends, "rating_band", i).unwrap_or_else(|| panic!("band"));
        let uci = str_at(&trends, "move_uci", i).unwrap_or_else(|| panic!("move"));
        let mut shares = [0.0; 2];
        for (k, (year, games)) in [
            ("earlier_year", "earlier_games"),
            ("later_year", "later_games"),
        ]
        .into_iter()
        .enumerate()
        {
            let year = number_at(&trends, year, i).unwrap_or_else(|| panic!("{year}"));
            let answer = explored(band, year);
            let all = answer["games"].as_u64().unwrap_or(0);
            let of_move = answer["moves"]
                .as_array()
                .and_then(|moves| {
                    moves
                        .iter()
                        .find(|m| m["uci"].as_str() == Some(uci.as_str()))
                })
                .and_then(|m| m["games"].as_u64())
                .unwrap_or(0);
            assert_eq!(
                number_at(&trends, games, i),
                Some(of_move),
                "{band} {uci} {year}"
            );
            assert!(all > 0, "{band} {year}: the band has no games");
            shares[k] = 100.0 * of_move as f64 / all as f64;
        }
        let change = common::f64_at(&trends, "change_points", i).unwrap_or(f64::NAN);
        assert!(
            (change - (shares[1] - shares[0])).abs() < 1e-9,
            "{band} {uci}: {change} vs {shares:?}"
        );
        gained |= change > 0.0;
        lost |= change < 0.0;
    }
    assert!(gained && lost, "the sample has moves that gained and lost");
}
