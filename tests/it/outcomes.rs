//! Result and material statistics read back from Parquet: exact per-game
//! values and exact rows of `results`, `material` and `endgames` on the
//! hand-made fixture `sample-data/results.pgn` (23 games).

use crate::common;

use common::{Imported, bool_at, i32_at, import, row_by_event, rows, sample, str_at, u32_at};
use polars::prelude::*;

fn fixture() -> Imported {
    import(&[sample("results.pgn")], 2)
}

#[test]
fn results_has_exactly_these_rows() {
    let run = fixture();
    assert_eq!(run.summary.games_read, 23);
    assert_eq!(run.summary.accepted, 23);
    // variant_name | year | time_class | rating_diff_bucket | declared_result | end_state |
    // termination | draw_reason | games | white | draws | black | unfinished
    let expected = [
        "standard | - | unknown | 0 | 1-0 | none | Normal | - | 1 | 1 | 0 | 0 | 0",
        "standard | 2018 | rapid | - | 1-0 | none | Normal | - | 1 | 1 | 0 | 0 | 0",
        "standard | 2018 | rapid | - | 0-1 | none | Normal | - | 1 | 0 | 0 | 1 | 0",
        "standard | 2018 | rapid | - | 1/2-1/2 | none | Normal | agreement_or_other | 1 | 0 | 1 | 0 | 0",
        "standard | 2019 | rapid | 100 | 1-0 | checkmate | Normal | - | 1 | 1 | 0 | 0 | 0",
        // Fool's mate declared 1-0: counted as the board's 0-1.
        "standard | 2020 | bullet | - | 1-0 | checkmate | Normal | - | 1 | 0 | 0 | 1 | 0",
        "standard | 2021 | blitz | 0 | 0-1 | none | Abandoned | - | 1 | 0 | 0 | 1 | 0",
        "standard | 2021 | classical | 0 | 1/2-1/2 | none | Normal | agreement_or_other | 1 | 0 | 1 | 0 | 0",
        "standard | 2022 | bullet | - | 1/2-1/2 | stalemate | Normal | stalemate | 1 | 0 | 1 | 0 | 0",
        "standard | 2022 | blitz | -100 | 1/2-1/2 | none | Normal | perpetual_check | 1 | 0 | 1 | 0 | 0",
        "standard | 2023 | rapid | 0 | * | none | - | - | 1 | 0 | 0 | 0 | 1",
        "standard | 2023 | classical | 0 | 1-0 | none | Normal | - | 1 | 1 | 0 | 0 | 0",
        "standard | 2023 | classical | 0 | 0-1 | none | Normal | - | 1 | 0 | 0 | 1 | 0",
        // `-` and `1 in 3 days` share a row.
        "standard | 2023 | correspondence | 0 | 1-0 | none | Normal | - | 2 | 2 | 0 | 0 | 0",
        "standard | 2023 | correspondence | 0 | 1/2-1/2 | none | Normal | agreement_or_other | 1 | 0 | 1 | 0 | 0",
        "standard | 2024 | ultrabullet | 0 | 1-0 | none | Normal | - | 1 | 1 | 0 | 0 | 0",
        "standard | 2024 | ultrabullet | 0 | 0-1 | none | Time forfeit | - | 1 | 0 | 0 | 1 | 0",
        "standard | 2024 | bullet | -50 | 1-0 | none | Normal | - | 1 | 1 | 0 | 0 | 0",
        "standard | 2024 | bullet | 50 | 1/2-1/2 | none | Normal | agreement_or_other | 1 | 0 | 1 | 0 | 0",
        "standard | 2024 | blitz | -800 | 0-1 | none | Normal | - | 1 | 0 | 0 | 1 | 0",
        "standard | 2024 | blitz | 800 | 1-0 | none | Normal | - | 1 | 1 | 0 | 0 | 0",
        "standard | 2024 | rapid | - | 1-0 | none | Normal | - | 1 | 1 | 0 | 0 | 0",
    ];
    assert_eq!(rows(&run.table("results")), expected);
}

#[test]
fn material_and_endgames_have_exactly_these_rows() {
    let run = fixture();
    // checkpoint_ply | material_diff | games | white | draws | black | unfinished
    assert_eq!(
        rows(&run.table("material")),
        [
            "20 | -5 | 1 | 0 | 0 | 1 | 0",
            "20 | 1 | 1 | 1 | 0 | 0 | 0",
            "20 | 2 | 1 | 0 | 1 | 0 | 0",
        ]
    );
    // variant_name | signature | games | stronger | draws | weaker | unfinished | plies sum | average
    assert_eq!(
        rows(&run.table("endgames")),
        [
            "standard | KQPPPvKRPP | 1 | 0 | 1 | 0 | 0 | 10 | 10.0",
            "standard | KRPvKR | 1 | 0 | 1 | 0 | 0 | 8 | 8.0",
        ]
    );
}

#[test]
fn time_classes_at_every_boundary() {
    let games = fixture().table("games");
    for (tc, class) in [
        ("15+0", "ultrabullet"),
        ("29", "ultrabullet"),
        ("30", "bullet"),
        ("179", "bullet"),
        ("180", "blitz"),
        ("479", "blitz"),
        ("480", "rapid"),
        ("1499", "rapid"),
        ("1500", "classical"),
        ("21599", "classical"),
        ("21600", "correspondence"),
        ("-", "correspondence"),
        ("1 in 3 days", "correspondence"),
        ("?", "unknown"),
    ] {
        let row = row_by_event(&games, &format!("time control {tc}"));
        assert_eq!(
            str_at(&row, "time_class", 0).as_deref(),
            Some(class),
            "{tc}"
        );
    }
}

/// (final_material, white, black, diff, at_20, max white lead, max black lead,
/// endgame ply, endgame signature, bishop pair white, bishop pair black).
type Material = (
    Option<String>,
    Option<i32>,
    Option<i32>,
    Option<i32>,
    Option<i32>,
    Option<i32>,
    Option<i32>,
    Option<u32>,
    Option<String>,
    Option<bool>,
    Option<bool>,
);

fn material_of(games: &DataFrame, event: &str) -> Material {
    let row = row_by_event(games, event);
    (
        str_at(&row, "final_material", 0),
        i32_at(&row, "white_material", 0),
        i32_at(&row, "black_material", 0),
        i32_at(&row, "material_diff", 0),
        i32_at(&row, "material_diff_at_20", 0),
        i32_at(&row, "max_white_lead", 0),
        i32_at(&row, "max_black_lead", 0),
        u32_at(&row, "endgame_ply", 0),
        str_at(&row, "endgame_signature", 0),
        bool_at(&row, "bishop_pair_white", 0),
        bool_at(&row, "bishop_pair_black", 0),
    )
}

fn s(text: &str) -> Option<String> {
    Some(text.to_owned())
}

#[test]
fn per_game_material_facts() {
    let games = fixture().table("games");
    // Legall's mate: 5.Nxe5 (+1), 5...Bxd1 (−8), 6.Bxf7+ (−7), 7.Nd5#.
    assert_eq!(
        material_of(&games, "Legall's mate"),
        (
            s("KRRBBNNPPPPPPPPvKQRRBBNNPPPPPP"),
            Some(30),
            Some(37),
            Some(-7),
            None,
            Some(1),
            Some(8),
            None,
            None,
            Some(true),
            Some(true),
        )
    );
    // An endgame from the first position; no checkpoint reached.
    assert_eq!(
        material_of(&games, "rook and pawn endgame"),
        (
            s("KRPvKR"),
            Some(6),
            Some(5),
            Some(1),
            None,
            Some(1),
            Some(0),
            Some(0),
            s("KRPvKR"),
            Some(false),
            Some(false),
        )
    );
    // 4.Bxc6 gives up the bishop pair; black keeps both bishops.
    let pair = material_of(&games, "bishop pair");
    assert_eq!(
        (pair.5, pair.6, pair.9, pair.10),
        (Some(3), Some(0), Some(false), Some(true))
    );
    assert_eq!(material_of(&games, "a rook down at ply 20").4, Some(-5));
    assert_eq!(material_of(&games, "a pawn up at ply 20").4, Some(1));
    let perpetual = row_by_event(&games, "perpetual check");
    assert_eq!(
        str_at(&perpetual, "draw_reason", 0).as_deref(),
        Some("perpetual_check")
    );
    let stalemate = row_by_event(&games, "stalemate");
    assert_eq!(
        str_at(&stalemate, "draw_reason", 0).as_deref(),
        Some("stalemate")
    );
    // Not a draw: no reason.
    let fools = row_by_event(&games, "fool's mate declared 1-0");
    assert_eq!(str_at(&fools, "draw_reason", 0), None);
}

#[test]
fn piece_values_change_the_material_and_are_recorded() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let options = pgnlake::import::ImportOptions {
        inputs: vec![sample("results.pgn")],
        out: dir.path().to_path_buf(),
        threads: 1,
        quiet: true,
        strict: false,
        opening_plies: 20,
        opening_period: Default::default(),
        opening_min_games: 1,
        memory_limit: 1 << 30,
        piece_values: pgnlake::replay::material::PieceValues::parse("1,3,3,5,10")
            .unwrap_or_default(),
        shard: None,
        moves: false,
        unwinnable_nodes: pgnlake::replay::dead::DEFAULT_NODES,
        repair: false,
        compression: Default::default(),
    };
    let summary = pgnlake::import::run_import(&options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(summary.options.piece_values.queen, 10);
    let games = common::read_table(&dir.path().join("games.parquet"));
    // Black kept its queen: 37 + 1.
    let legall = material_of(&games, "Legall's mate");
    assert_eq!(
        (legall.1, legall.2, legall.3, legall.6),
        (Some(30), Some(38), Some(-8), Some(9))
    );
    let json = std::fs::read_to_string(dir.path().join("summary.json")).unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(
        value["options"]["piece_values"],
        serde_json::json!({"pawn": 1, "knight": 3, "bishop": 3, "rook": 5, "queen": 10})
    );
}
