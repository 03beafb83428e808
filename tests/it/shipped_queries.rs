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
        .filter_map(|i| str_at(&replies, "move_san", i))
        .collect();
    // The unfinished fixture game (2.Nf3 *) has no finished result to score.
    assert!(!moves.is_empty());
    let total: u64 = (0..replies.height())
        .filter_map(|i| number_at(&replies, "games", i))
        .sum();
    let openings = run.table("openings");
    let e4_c5 = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -";
    let expected: u64 = (0..openings.height())
        .filter(|&i| str_at(&openings, "epd", i).as_deref() == Some(e4_c5))
        .filter(|&i| u64_at(&openings, "unfinished", i) != u64_at(&openings, "games", i))
        .filter_map(|i| u64_at(&openings, "games", i))
        .sum();
    assert_eq!(total, expected);

    let transpositions = run_query(&mut context, "transpositions.sql");
    // The Nimzo-Indian fixture pair meets after 4 plies from two parents
    // (a third game, in edge-cases.pgn, comes the queen's pawn way).
    let nimzo_node = "rnbqkb1r/pppp1ppp/4pn2/8/2PP4/8/PP2PPPP/RNBQKBNR w KQkq -";
    let row = (0..transpositions.height())
        .find(|&i| str_at(&transpositions, "epd", i).as_deref() == Some(nimzo_node))
        .unwrap_or_else(|| panic!("no transposition row for the Nimzo node"));
    assert_eq!(number_at(&transpositions, "move_orders", row), Some(2));
    assert_eq!(number_at(&transpositions, "games", row), Some(3));
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
