//! The opening tree's rows spelled from their games, for the tests: a row
//! of one game holds no text (issue 56), so the tests spell every row from
//! `games.moves_uci` (its `game_id`'s first `ply` moves, then
//! `move_uci`) and check the import's own spelling of the other rows
//! against it.

use std::collections::HashMap;

use polars::prelude::*;
use shakmaty::fen::Epd;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Position};

use super::{i64_at, str_at, u32_at, u64_at};

/// A row's text, as a single import spells a row of two games or more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spelled {
    pub epd: String,
    pub san: String,
    pub next_position_key: i64,
}

/// Every row of `tree` spelled from the games of `games` (by `game_id`),
/// checked: the position reached has the row's key, and a row of two games
/// or more carries exactly this spelling, a row of one game none.
pub fn spell_tree(tree: &DataFrame, games: &DataFrame) -> Vec<Spelled> {
    let first_moves: HashMap<i64, String> = (0..games.height())
        .filter_map(|i| Some((i64_at(games, "game_id", i)?, str_at(games, "moves_uci", i)?)))
        .collect();
    (0..tree.height())
        .map(|row| {
            let game = i64_at(tree, "game_id", row).unwrap_or_else(|| panic!("row {row}: game_id"));
            let ply = u32_at(tree, "ply", row).unwrap_or_else(|| panic!("row {row}: ply"));
            let moves = first_moves
                .get(&game)
                .unwrap_or_else(|| panic!("row {row}: game {game} has no moves_uci"));
            let mut pos = Chess::default();
            for token in moves.split(' ').take(ply as usize) {
                let m = UciMove::from_ascii(token.as_bytes())
                    .ok()
                    .and_then(|u| u.to_move(&pos).ok())
                    .unwrap_or_else(|| panic!("game {game}: {token}"));
                pos.play_unchecked(m);
            }
            let key = |p: &Chess| {
                p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal)
                    .0
                    .cast_signed()
            };
            assert_eq!(
                Some(key(&pos)),
                i64_at(tree, "position_key", row),
                "row {row}"
            );
            let uci = str_at(tree, "move_uci", row).unwrap_or_else(|| panic!("row {row}: move"));
            let m = UciMove::from_ascii(uci.as_bytes())
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
                .unwrap_or_else(|| panic!("row {row}: {uci}"));
            let spelled = Spelled {
                epd: Epd::from_position(&pos, EnPassantMode::Legal).to_string(),
                san: SanPlus::from_move(pos.clone(), m).to_string(),
                next_position_key: {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    key(&after)
                },
            };
            let own = (
                str_at(tree, "epd", row),
                str_at(tree, "move_san", row),
                i64_at(tree, "next_position_key", row),
            );
            match u64_at(tree, "games", row) {
                Some(1) => assert_eq!(own, (None, None, None), "row {row}: one game, no text"),
                _ => assert_eq!(
                    own,
                    (
                        Some(spelled.epd.clone()),
                        Some(spelled.san.clone()),
                        Some(spelled.next_position_key)
                    ),
                    "row {row}"
                ),
            }
            spelled
        })
        .collect()
}
