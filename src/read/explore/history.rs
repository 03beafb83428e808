//! Explorer, each move's history: its games month by month (white /
//! draws / black), its share of the position's games each month, and its
//! first and last month in the archive and its first game, from the
//! tree's rows as [`super::position::sum_rows`] sums them by month.

use std::collections::BTreeMap;

use serde::Serialize;

use super::top_games::TopGame;
use crate::model::Month;
use crate::stats::counts::Counts;

/// One move's months, from the position's first month with games kept to
/// its last (months without games of the move as zeros, as lila's
/// `history` runs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoveHistory {
    /// The first and last month with a game of the move (`YYYY-MM`).
    pub first_month: String,
    pub last_month: String,
    /// The first game of the first month: the least `game_id` of its
    /// rows (in a lake, the first import's), as the tree's rows name it.
    pub first_game: Option<TopGame>,
    pub months: Vec<MonthCounts>,
}

/// One month of a move's history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MonthCounts {
    pub month: String,
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// The move's games over the position's games that month, in percent
    /// (0 when the position had none).
    pub share: f64,
}

/// The history of a move whose rows summed by month are `by_month`, in a
/// position whose rows summed by month are `position`; None when no game
/// of the move has a month.
pub(crate) fn move_history(
    by_month: &BTreeMap<Month, Counts>,
    position: &BTreeMap<Month, Counts>,
) -> Option<MoveHistory> {
    let (first, last) = (by_month.keys().next()?, by_month.keys().next_back()?);
    // The position's months bound the move's (its rows are among them).
    let from = position.keys().next().map_or(*first, |m| (*m).min(*first));
    let to = position
        .keys()
        .next_back()
        .map_or(*last, |m| (*m).max(*last));
    let months = from
        .through(to)
        .map(|month| {
            let c = by_month.get(&month).copied().unwrap_or_default();
            let all = position.get(&month).map_or(0, |p| p.games);
            MonthCounts {
                month: month.to_string(),
                games: c.games,
                white: c.white_wins,
                draws: c.draws,
                black: c.black_wins,
                share: if all == 0 {
                    0.0
                } else {
                    100.0 * c.games as f64 / all as f64
                },
            }
        })
        .collect();
    Some(MoveHistory {
        first_month: first.to_string(),
        last_month: last.to_string(),
        first_game: None,
        months,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(text: &str) -> Month {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    fn counts(games: u64, white: u64, draws: u64, black: u64) -> Counts {
        Counts {
            games,
            white_wins: white,
            draws,
            black_wins: black,
        }
    }

    #[test]
    fn a_moves_history_runs_over_the_positions_months_with_its_share() {
        let position = BTreeMap::from([
            (m("2024-11"), counts(4, 2, 1, 1)),
            (m("2025-02"), counts(2, 1, 0, 1)),
        ]);
        let by_month = BTreeMap::from([(m("2025-02"), counts(1, 0, 0, 1))]);
        let h = move_history(&by_month, &position).unwrap_or_else(|| panic!("a history"));
        assert_eq!(
            (h.first_month.as_str(), h.last_month.as_str()),
            ("2025-02", "2025-02")
        );
        let months: Vec<(&str, u64, f64)> = h
            .months
            .iter()
            .map(|c| (c.month.as_str(), c.games, c.share))
            .collect();
        assert_eq!(
            months,
            vec![
                ("2024-11", 0, 0.0),
                ("2024-12", 0, 0.0),
                ("2025-01", 0, 0.0),
                ("2025-02", 1, 50.0)
            ]
        );
        assert_eq!(move_history(&BTreeMap::new(), &position), None);
    }
}
