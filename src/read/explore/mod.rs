//! Explorer: one position of an import's opening tree, read back from
//! `openings.parquet`, as an opening explorer shows it: the moves played
//! there with their games, results, ratings and last year, summed over the
//! speeds, rating bands and months the filters keep (as the lichess
//! explorer filters its tree), with the top and recent games the tree's
//! rows name, read from `games.parquet`.
//!
//! The rooms, each usable alone (an explorer server calls the first two):
//! `locate` finds the position and its opening, `position` sums its rows
//! per move, `filters` reads the options into tests on a row, `top_games`
//! ranks the games the rows name and reads them, `render` prints the
//! view. This module puts them together for `pgnlake explore` and the
//! report.

pub(crate) mod filters;
pub(crate) mod history;
pub(crate) mod locate;
pub(crate) mod position;
mod render;
pub(crate) mod top_games;

use std::path::Path;

use serde::Serialize;

pub(crate) use self::filters::Bounds;
pub use self::filters::Filters;
pub use self::history::{MonthCounts, MoveHistory};
pub(crate) use self::locate::{OpeningLabel, Target, locate, stored_key_of_fen};
use self::position::{MoveSums, read_position};
pub use self::top_games::TopGame;
use self::top_games::{FoundGames, GameAt, GameIds, best_games, latest_games, read_games};
use super::keyed::KeyedFiles;
use super::source::Data;
pub use crate::error::ExploreError;
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
    /// rating first (the best-rated game of each row the filters keep,
    /// the best of those).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_games: Option<Vec<TopGame>>,
    /// With `--games`: the game, when the move was played in one game of
    /// the rows kept (lichess's `moves[].game`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<TopGame>,
    /// `--history`: the move's games month by month, its share of the
    /// position's, its first and last month.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<MoveHistory>,
}

/// A game of the position's latest (`--recent N`), with its move.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecentGame {
    pub uci: String,
    pub san: String,
    #[serde(flatten)]
    pub game: TopGame,
}

impl From<&MoveSums> for MoveLine {
    fn from(m: &MoveSums) -> MoveLine {
        let percent = |part: u64, whole: u64| {
            if whole == 0 {
                0.0
            } else {
                100.0 * part as f64 / whole as f64
            }
        };
        let average = |sum: u64, n: u64| (n > 0).then(|| sum as f64 / n as f64);
        let (c, r) = (m.counts, &m.ratings);
        MoveLine {
            san: m.san.clone(),
            uci: m.uci.clone(),
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
            game: None,
            history: None,
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
    /// `--recent N`: the latest games of the position the filters keep,
    /// latest first (the latest game of each row kept, the latest of
    /// those).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recent_games: Option<Vec<RecentGame>>,
    /// `--history` asked: the table prints the moves' months (JSON has
    /// them in `moves`).
    #[serde(skip)]
    pub history: bool,
}

/// How many games `explore` lists: top games per move, recent games of
/// the position (0: none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct GameCounts {
    pub top: usize,
    pub recent: usize,
}

/// Reads the moves of `target` from `DIR/openings.parquet`, summed over the
/// rows `filters` keep; with `lists`, the top games of each move and the
/// position's recent games, from the games the rows name; with `history`,
/// each move's months.
pub(crate) fn explore(
    data: &Path,
    target: &Target,
    filters: &Filters,
    lists: GameCounts,
    history: bool,
) -> Result<Explored, ExploreError> {
    let located = locate(target)?;
    let data = Data::open(data)?;
    let summaries = data.summaries();
    // A lake's imports agree on the tree's period (checked when each was
    // imported); an import's folder has one summary or none (then the
    // default import's period).
    let period = summaries
        .first()
        .map_or(OpeningPeriod::Month, |s| s.opening_tree.period);
    let bounds = filters.bounds(period)?;
    let files = KeyedFiles::default();
    let position = read_position(&data, &located.position, &bounds, &files)?;
    let (games, position_games) = (position.games(), position.all_games);
    let mut moves: Vec<MoveLine> = position.moves.iter().map(MoveLine::from).collect();
    if history {
        for (line, sum) in moves.iter_mut().zip(&position.moves) {
            line.history = history::move_history(&sum.by_month, &position.by_month);
        }
        add_first_games(&data, &position.moves, &mut moves, &files)?;
    }
    let recent_games = add_games(&data, &position.moves, &mut moves, lists, &files)?;
    Ok(Explored {
        epd: located.epd(),
        position_key: located.stored_key(),
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
        recent_games,
        history,
    })
}

/// Fills each move's top games (and its game, when it has one) and
/// returns the position's recent games, as `lists` asks; `sums` are the
/// moves' rows, in the order of `moves`. Every game is read from
/// `games.parquet` in one scan.
fn add_games(
    data: &Data,
    sums: &[MoveSums],
    moves: &mut [MoveLine],
    lists: GameCounts,
    files: &KeyedFiles,
) -> Result<Option<Vec<RecentGame>>, ExploreError> {
    if lists == GameCounts::default() {
        return Ok(None);
    }
    let ids = GameIds::of(data)?;
    let mut tops: Vec<(Vec<GameAt>, Option<GameAt>)> = Vec::with_capacity(sums.len());
    if lists.top > 0 {
        for sum in sums {
            let best = best_games(&sum.best, &ids, lists.top)?;
            let single = sum.single_game().map(|g| ids.place(g)).transpose()?;
            tops.push((best, single));
        }
    }
    let latest = sums
        .iter()
        .enumerate()
        .flat_map(|(index, sum)| sum.latest.iter().map(move |g| (index, g.clone())));
    let recent = latest_games(latest, &ids, lists.recent)?;
    let wanted: Vec<&GameAt> = tops
        .iter()
        .flat_map(|(best, single)| best.iter().chain(single))
        .chain(recent.iter().map(|(_, game)| game))
        .collect();
    let found = read_games(data, &wanted, files)?;
    for (line, (best, single)) in moves.iter_mut().zip(&tops) {
        line.top_games = Some(
            best.iter()
                .map(|g| found.get(g))
                .collect::<Result<_, _>>()?,
        );
        line.game = single.as_ref().map(|g| found.get(g)).transpose()?;
    }
    if lists.recent == 0 {
        return Ok(None);
    }
    recent_of(&found, sums, &recent).map(Some)
}

/// Fills the first game of each move's history, read from
/// `games.parquet` in one scan.
fn add_first_games(
    data: &Data,
    sums: &[MoveSums],
    moves: &mut [MoveLine],
    files: &KeyedFiles,
) -> Result<(), ExploreError> {
    let ids = GameIds::of(data)?;
    let firsts: Vec<Option<GameAt>> = sums
        .iter()
        .map(|sum| sum.first.as_ref().map(|f| ids.place(&f.game)).transpose())
        .collect::<Result<_, _>>()?;
    let found = read_games(data, &firsts.iter().flatten().collect::<Vec<_>>(), files)?;
    for (line, first) in moves.iter_mut().zip(&firsts) {
        if let (Some(history), Some(first)) = (line.history.as_mut(), first) {
            history.first_game = Some(found.get(first)?);
        }
    }
    Ok(())
}

/// The recent games read, each with its move.
fn recent_of(
    found: &FoundGames,
    sums: &[MoveSums],
    recent: &[(usize, GameAt)],
) -> Result<Vec<RecentGame>, ExploreError> {
    recent
        .iter()
        .filter_map(|(index, game)| Some((sums.get(*index)?, game)))
        .map(|(sum, game)| {
            Ok(RecentGame {
                uci: sum.uci.clone(),
                san: sum.san.clone(),
                game: found.get(game)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::counts::{Counts, Ratings};

    #[test]
    fn a_move_line_reads_its_shares_and_averages_from_the_sums() {
        let line = MoveLine::from(&MoveSums {
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
            ..MoveSums::default()
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
        let none = MoveLine::from(&MoveSums::default());
        assert_eq!((none.games, none.white_percent), (0, 0.0));
    }
}
