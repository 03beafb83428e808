//! Explorer: one position of an import's opening tree, read back from
//! `openings.parquet`, as an opening explorer shows it: the moves played
//! there with their games, results, ratings and last year, summed over the
//! speeds, rating bands and months the filters keep (as the lichess
//! explorer filters its tree), with the top games of each move when the
//! import has `moves.parquet`.
//!
//! The rooms, each usable alone (an explorer server calls the first two):
//! `locate` finds the position and its opening, `position` sums its rows
//! per move, `filters` reads the options into tests on a row, `top_games`
//! lists the games of each move, `render` prints the view. This module
//! puts them together for `pgnlake explore` and the report.

pub(crate) mod filters;
pub(crate) mod locate;
pub(crate) mod position;
mod render;
pub(crate) mod top_games;

use std::path::Path;

use serde::Serialize;

pub use self::filters::Filters;
pub(crate) use self::locate::{OpeningLabel, Target, locate};
use self::position::{MoveSums, read_position};
pub use self::top_games::TopGame;
use self::top_games::{PlayedGame, TreeShape, ranked_games};
use super::source::Data;
pub use crate::error::ExploreError;
use crate::sink::schema;
use crate::stats::dimensions::OpeningPeriod;

/// One move played from the position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoveLine {
    pub san: String,
    pub uci: String,
    pub games: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    pub unfinished: u64,
    pub white_percent: f64,
    pub draw_percent: f64,
    pub black_percent: f64,
    pub average_white_elo: Option<f64>,
    pub average_black_elo: Option<f64>,
    pub last_year: Option<i32>,
    /// `--games N`: the games that played the move, highest average
    /// rating first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_games: Option<Vec<TopGame>>,
}

impl From<MoveSums> for MoveLine {
    fn from(m: MoveSums) -> MoveLine {
        let percent = |part: u64, whole: u64| {
            if whole == 0 {
                0.0
            } else {
                100.0 * part as f64 / whole as f64
            }
        };
        let average = |sum: u64, n: u64| (n > 0).then(|| sum as f64 / n as f64);
        let (c, r) = (m.counts, m.ratings);
        MoveLine {
            san: m.san,
            uci: m.uci,
            games: c.games,
            white_wins: c.white_wins,
            draws: c.draws,
            black_wins: c.black_wins,
            unfinished: c.unfinished(),
            white_percent: percent(c.white_wins, c.games),
            draw_percent: percent(c.draws, c.games),
            black_percent: percent(c.black_wins, c.games),
            average_white_elo: average(r.white_sum, r.white_count),
            average_black_elo: average(r.black_sum, r.black_count),
            last_year: m.last_year,
            top_games: None,
        }
    }
}

/// The explorer view of one position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Explored {
    pub epd: String,
    /// As stored in the table (signed; see `openings::stored_key`).
    pub position_key: i64,
    pub opening: Option<OpeningLabel>,
    /// Games of the position the filters leave (all its games without).
    pub games: u64,
    /// The filters in force; absent when none.
    #[serde(skip_serializing_if = "Filters::is_empty")]
    pub filters: Filters,
    /// Games of the position before the filters (only with filters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_games: Option<u64>,
    /// Most played first; ties by SAN.
    pub moves: Vec<MoveLine>,
    /// The import's `--opening-min-games` when above 1: moves played in
    /// fewer games are not in the table, so `moves` and `games` may be
    /// incomplete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opening_min_games: Option<u64>,
    /// Why no top games are listed although `--games` asked for them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_games_note: Option<String>,
}

/// Reads the moves of `target` from `DIR/openings.parquet`, summed over the
/// rows `filters` keep; with `top_games` > 0, up to that many games of
/// each move from `games.parquet` and `moves.parquet`.
pub(crate) fn explore(
    data: &Path,
    target: &Target,
    filters: &Filters,
    top_games: usize,
) -> Result<Explored, ExploreError> {
    let located = locate(target)?;
    let key = located.stored_key();
    let data = Data::open(data)?;
    let summaries = data.summaries();
    // A lake's imports agree on the tree's plies and period (checked when
    // each was imported); an import's folder has one summary or none.
    let summary = summaries.first();
    let tree = TreeShape {
        // Without a summary, the default import's.
        period: summary.map_or(OpeningPeriod::Month, |s| s.opening_tree.period),
        // Every ply when unknown (or past what a column can hold).
        plies: summary.map_or(i32::MAX, |s| {
            i32::try_from(s.opening_tree.plies).unwrap_or(i32::MAX)
        }),
    };
    let bounds = filters.bounds(tree.period)?;
    let position = read_position(&data, &located.position, &bounds)?;
    let (games, position_games) = (position.games(), position.all_games);
    let mut moves: Vec<MoveLine> = position.moves.into_iter().map(MoveLine::from).collect();
    let mut top_games_note = None;
    if top_games > 0 && !moves.is_empty() {
        // An import without --moves removes an earlier moves table.
        match data.scan(&schema::moves::TABLE)? {
            Some(played) => {
                let ranked = ranked_games(&data, played, key, &bounds, tree)?;
                add_top_games(&mut moves, &ranked, top_games);
            }
            None => {
                top_games_note = Some(
                    "top games need moves.parquet: import with --moves to list them".to_owned(),
                )
            }
        }
    }
    Ok(Explored {
        epd: located.epd(),
        position_key: key,
        opening: located.opening,
        games,
        position_games: (!filters.is_empty()).then_some(position_games),
        filters: filters.clone(),
        moves,
        opening_min_games: summaries
            .iter()
            .map(|s| u64::from(s.opening_tree.min_games))
            .max()
            .filter(|&n| n > 1),
        top_games_note,
    })
}

/// Fills each move's `top_games` with up to `top` of the `ranked` games
/// that played it, in their order.
fn add_top_games(moves: &mut [MoveLine], ranked: &[PlayedGame], top: usize) {
    for line in moves.iter_mut() {
        let games = ranked
            .iter()
            .filter(|played| played.uci == line.uci)
            .take(top)
            .map(|played| played.game.clone())
            .collect();
        line.top_games = Some(games);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::counts::{Counts, Ratings};

    fn game(id: i64, elos: Option<(i32, i32)>) -> TopGame {
        TopGame {
            import: None,
            game_id: id,
            white: None,
            black: None,
            white_elo: elos.map(|e| e.0),
            black_elo: elos.map(|e| e.1),
            result: None,
            date: None,
        }
    }

    fn line(uci: &str) -> MoveLine {
        MoveLine {
            san: uci.to_owned(),
            uci: uci.to_owned(),
            games: 0,
            white_wins: 0,
            draws: 0,
            black_wins: 0,
            unfinished: 0,
            white_percent: 0.0,
            draw_percent: 0.0,
            black_percent: 0.0,
            average_white_elo: None,
            average_black_elo: None,
            last_year: None,
            top_games: None,
        }
    }

    #[test]
    fn each_move_takes_its_own_games_in_rank_order() {
        let ranked = [
            ("e2e4", game(7, Some((2000, 2000)))),
            ("d2d4", game(3, Some((1900, 1900)))),
            ("e2e4", game(1, Some((1500, 1500)))),
            ("e2e4", game(2, None)),
        ]
        .map(|(uci, game)| PlayedGame {
            uci: uci.to_owned(),
            game,
        });
        let mut moves = [line("e2e4"), line("d2d4"), line("c2c4")];
        add_top_games(&mut moves, &ranked, 2);
        let ids = |m: &MoveLine| -> Vec<i64> {
            m.top_games.iter().flatten().map(|g| g.game_id).collect()
        };
        assert_eq!(moves.each_ref().map(ids), [vec![7, 1], vec![3], vec![]]);
    }

    #[test]
    fn a_move_line_reads_its_shares_and_averages_from_the_sums() {
        let line = MoveLine::from(MoveSums {
            san: "e4".into(),
            uci: "e2e4".into(),
            counts: Counts {
                games: 8,
                white_wins: 4,
                draws: 2,
                black_wins: 1,
            },
            ratings: Ratings {
                white_sum: 4000,
                white_count: 2,
                black_sum: 0,
                black_count: 0,
            },
            last_year: Some(2020),
        });
        assert_eq!(line.unfinished, 1);
        assert_eq!(
            (line.white_percent, line.draw_percent, line.black_percent),
            (50.0, 25.0, 12.5)
        );
        assert_eq!(
            (line.average_white_elo, line.average_black_elo),
            (Some(2000.0), None)
        );
        let none = MoveLine::from(MoveSums::default());
        assert_eq!((none.games, none.white_percent), (0, 0.0));
    }
}
