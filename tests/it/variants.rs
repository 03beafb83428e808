//! The lichess variants end to end on `sample-data/variants.pgn` (made by
//! `scripts/variants_fixture.py` with python-chess): each variant's end in
//! `games`, the variant keys of `results`, drops in `moves`, and `clean`
//! writing the games back so that they import the same. The game-by-game
//! comparison with python-chess's boards is in `differential.rs`.

use crate::common;

use common::{bool_at, i32_at, import, import_moves, sample, str_at, u64_at};
use polars::prelude::*;

/// The games row with this `game_index`.
fn game(games: &DataFrame, index: u64) -> DataFrame {
    let mask = games
        .column("game_index")
        .and_then(|c| c.as_materialized_series().equal(index))
        .unwrap_or_else(|e| panic!("{e}"));
    games.filter(&mask).unwrap_or_else(|e| panic!("{e}"))
}

type Ending = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// variant_name, end_state, variant_end, winner_by_rule, result_check.
fn ending(games: &DataFrame, index: u64) -> Ending {
    let row = game(games, index);
    let text = |column: &str| str_at(&row, column, 0);
    (
        text("variant_name"),
        text("end_state"),
        text("variant_end"),
        text("winner_by_rule"),
        text("result_check"),
    )
}

fn some(values: [&str; 5]) -> Ending {
    let [a, b, c, d, e] = values.map(|v| (v != "-").then(|| v.to_owned()));
    (a, b, c, d, e)
}

#[test]
fn each_variant_ends_by_its_own_rules() {
    let run = import(&[sample("variants.pgn")], 2);
    assert_eq!(
        (
            run.summary.games_read,
            run.summary.accepted,
            run.summary.rejected
        ),
        (25, 21, 4)
    );
    let games = run.table("games");
    for (index, want) in [
        (1, ["standard", "checkmate", "-", "white", "consistent"]),
        (
            2,
            [
                "atomic",
                "variant_loss",
                "king_exploded",
                "white",
                "consistent",
            ],
        ),
        (3, ["atomic", "checkmate", "-", "black", "consistent"]),
        (
            4,
            [
                "antichess",
                "variant_win",
                "all_pieces_lost",
                "white",
                "consistent",
            ],
        ),
        (
            5,
            [
                "antichess",
                "variant_win",
                "stalemated",
                "black",
                "consistent",
            ],
        ),
        (
            6,
            [
                "king_of_the_hill",
                "variant_loss",
                "king_on_hill",
                "white",
                "consistent",
            ],
        ),
        (
            8,
            [
                "three_check",
                "variant_loss",
                "three_checks",
                "white",
                "consistent",
            ],
        ),
        (12, ["crazyhouse", "checkmate", "-", "white", "consistent"]),
        (15, ["crazyhouse", "none", "-", "-", "consistent"]),
        (
            17,
            [
                "horde",
                "variant_loss",
                "horde_destroyed",
                "black",
                "consistent",
            ],
        ),
        (
            19,
            [
                "racing_kings",
                "variant_loss",
                "king_reached_goal",
                "white",
                "consistent",
            ],
        ),
        (
            20,
            [
                "racing_kings",
                "variant_draw",
                "both_kings_reached_goal",
                "-",
                "consistent",
            ],
        ),
        // White's king reached the hill; the game says 0-1.
        (
            21,
            [
                "king_of_the_hill",
                "variant_loss",
                "king_on_hill",
                "white",
                "contradicts_variant_end",
            ],
        ),
    ] {
        assert_eq!(ending(&games, index), some(want), "game {index}");
    }
    // The `Variant` tag stays as written.
    assert_eq!(
        str_at(&game(&games, 7), "variant", 0).as_deref(),
        Some("KOTH")
    );
    assert_eq!(
        str_at(&game(&games, 5), "variant", 0).as_deref(),
        Some("Giveaway")
    );
    // Racing Kings' draw has its own draw reason; the Crazyhouse draw is a
    // real threefold repetition (pockets included).
    let draw = |index| str_at(&game(&games, index), "draw_reason", 0);
    assert_eq!(draw(20).as_deref(), Some("variant_draw"));
    assert_eq!(draw(15).as_deref(), Some("threefold_repetition"));
    assert_eq!(bool_at(&game(&games, 15), "threefold_final", 0), Some(true));
    // Game 14 repeats the board with other pieces in hand: no repetition.
    assert_eq!(
        bool_at(&game(&games, 14), "threefold_final", 0),
        Some(false)
    );
    // Crazyhouse material counts the pieces in hand (black's bishop).
    let drop_mate = game(&games, 12);
    assert_eq!(
        (
            i32_at(&drop_mate, "white_material", 0),
            i32_at(&drop_mate, "black_material", 0),
            i32_at(&drop_mate, "material_diff", 0)
        ),
        (Some(36), Some(44), Some(-8))
    );
    assert!(
        str_at(&drop_mate, "final_fen", 0).is_some_and(|f| f.contains("RNn~1K2R[b] b KQ")),
        "pockets and promoted pieces in the FEN"
    );
    // Variant games have no opening name and stay out of the tree.
    let named = (1..=21)
        .filter(|&i| str_at(&game(&games, i), "opening_name", 0).is_some())
        .count();
    assert_eq!(named, 1);
    let rejects = run.table("rejects");
    let messages: Vec<String> = (0..rejects.height())
        .filter_map(|row| str_at(&rejects, "message", row))
        .collect();
    assert_eq!(
        messages,
        [
            "illegal move N@e5 at ply 11 (white to move): no piece can be dropped in this variant (Knight@e5)",
            "illegal move Kxh3 at ply 51 (white to move): no king can reach h3",
            "illegal move Rh7 at ply 14 (black to move): no rook can reach h7",
            "unsupported variant \"Shogi\"",
        ]
    );
}

#[test]
fn results_are_keyed_by_variant_and_drops_are_moves() {
    let run = import_moves(&[sample("variants.pgn")], 2);
    let results = run.table("results");
    let mut by_variant: Vec<(String, u64)> = Vec::new();
    for row in 0..results.height() {
        let name = str_at(&results, "variant_name", row).unwrap_or_default();
        let games = u64_at(&results, "games", row).unwrap_or_default();
        match by_variant.last_mut() {
            Some((last, n)) if *last == name => *n += games,
            _ => by_variant.push((name, games)),
        }
    }
    // In `VariantName` order, each variant once.
    let expected = [
        ("standard", 1),
        ("crazyhouse", 5),
        ("atomic", 2),
        ("antichess", 2),
        ("king_of_the_hill", 3),
        ("three_check", 4),
        ("horde", 2),
        ("racing_kings", 2),
    ]
    .map(|(name, n)| (name.to_owned(), n));
    assert_eq!(by_variant, expected);
    // The material table is standard chess's: the one standard game is
    // 7 plies long, so it is empty.
    assert_eq!(run.table("material").height(), 0);
    let moves = run.table("moves");
    let drops: Vec<(Option<String>, Option<String>, Option<i32>)> = (0..moves.height())
        .filter(|&row| str_at(&moves, "uci", row).is_some_and(|u| u.contains('@')))
        .take(2)
        .map(|row| {
            (
                str_at(&moves, "san", row),
                str_at(&moves, "uci", row),
                i32_at(&moves, "material_diff", row),
            )
        })
        .collect();
    // Game 12, plies 14 and 23: pawn drops (SAN as python-chess and
    // shakmaty write them), the material with pockets.
    assert_eq!(
        drops,
        [
            (Some("@b2".into()), Some("P@b2".into()), Some(-2)),
            (Some("@f7#".into()), Some("P@f7".into()), Some(-8)),
        ]
    );
}

#[test]
fn clean_writes_variant_games_back_and_they_import_the_same() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let output = dir.path().join("clean.pgn");
    let summary = pgnlake::clean::run_clean(&common::clean_options(
        vec![sample("variants.pgn")],
        &output,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((summary.clean, summary.rejected), (21, 4));
    let text = std::fs::read_to_string(&output).unwrap_or_default();
    assert!(text.contains("@f7#"), "drops written back");
    assert!(text.contains("[Variant \"Racing Kings\"]"));
    let facts = |games: &DataFrame| -> Vec<(Option<String>, Option<String>, Option<String>)> {
        (0..games.height())
            .map(|row| {
                (
                    str_at(games, "variant_name", row),
                    str_at(games, "final_fen", row),
                    str_at(games, "end_state", row),
                )
            })
            .collect()
    };
    let before = facts(&import(&[sample("variants.pgn")], 1).table("games"));
    let after = facts(&import(&[output], 1).table("games"));
    assert_eq!(before.len(), 21);
    assert_eq!(before, after);
}
