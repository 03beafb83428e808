//! Statistics stage, opening lines: results, ratings and lengths per named
//! opening. The table of names is fixed and small, so this is a plain array
//! indexed by name, merged element by element.

use std::ops::AddAssign;

use super::counts::{Counts, Ratings};
use super::tree::GameFacts;

/// Sums and counts of the games of one named opening.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LineStats {
    pub results: Counts,
    pub elo: Ratings,
    pub plies_sum: u64,
    /// White Elo − black Elo, over games where both are known.
    pub elo_diff_sum: i64,
    pub elo_diff_count: u64,
}

impl LineStats {
    pub(crate) fn average_plies(&self) -> Option<f64> {
        let games = self.results.games;
        (games > 0).then(|| self.plies_sum as f64 / games as f64)
    }

    pub(crate) fn average_elo_diff(&self) -> Option<f64> {
        (self.elo_diff_count > 0).then(|| self.elo_diff_sum as f64 / self.elo_diff_count as f64)
    }

    fn add_game(&mut self, game: &GameFacts, plies: u32) {
        self.results.add_game(game.result);
        self.elo.add_game(game.white_elo, game.black_elo);
        if let (Some(white), Some(black)) = (game.white_elo, game.black_elo) {
            self.elo_diff_sum += i64::from(white) - i64::from(black);
            self.elo_diff_count += 1;
        }
        self.plies_sum += u64::from(plies);
    }
}

impl AddAssign<&LineStats> for LineStats {
    fn add_assign(&mut self, other: &LineStats) {
        self.results += &other.results;
        self.elo += &other.elo;
        self.plies_sum += other.plies_sum;
        self.elo_diff_sum += other.elo_diff_sum;
        self.elo_diff_count += other.elo_diff_count;
    }
}

/// Stats per named opening, indexed like the opening index's names
/// (`OpeningMatch::name_id`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpeningLines {
    lines: Vec<LineStats>,
}

impl OpeningLines {
    pub(crate) fn add_game(&mut self, name_id: u16, game: &GameFacts, plies: u32) {
        if let Some(line) = self.line_mut(name_id) {
            line.add_game(game, plies);
        }
    }

    fn line_mut(&mut self, name_id: u16) -> Option<&mut LineStats> {
        let index = usize::from(name_id);
        if self.lines.len() <= index {
            self.lines.resize(index + 1, LineStats::default());
        }
        self.lines.get_mut(index)
    }

    /// Adds an opening's row read back from a table (`merge`).
    pub(crate) fn add_line(&mut self, name_id: u16, stats: &LineStats) {
        if let Some(line) = self.line_mut(name_id) {
            *line += stats;
        }
    }

    /// (name id, stats) of every opening with at least one game.
    pub(crate) fn played(&self) -> impl Iterator<Item = (u16, &LineStats)> {
        self.lines
            .iter()
            .enumerate()
            .filter(|(_, line)| line.results.games > 0)
            .map(|(id, line)| (id as u16, line))
    }
}

impl AddAssign<&OpeningLines> for OpeningLines {
    fn add_assign(&mut self, other: &OpeningLines) {
        if self.lines.len() < other.lines.len() {
            self.lines.resize(other.lines.len(), LineStats::default());
        }
        for (mine, theirs) in self.lines.iter_mut().zip(&other.lines) {
            *mine += theirs;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::result::GameResult;

    #[test]
    fn merging_in_any_grouping_gives_the_same_stats() {
        let game = |result, white, black| GameFacts {
            result,
            white_elo: white,
            black_elo: black,
            year: None,
        };
        let mut a = OpeningLines::default();
        a.add_game(
            3,
            &game(Some(GameResult::WhiteWins), Some(2400), Some(2300)),
            40,
        );
        let mut b = OpeningLines::default();
        b.add_game(3, &game(Some(GameResult::Draw), Some(2000), None), 60);
        b.add_game(7, &game(None, None, None), 10);
        let mut c = OpeningLines::default();
        c.add_game(
            3,
            &game(Some(GameResult::Unfinished), Some(2100), Some(2200)),
            20,
        );

        let mut left = a.clone();
        left += &b;
        left += &c;
        let mut right = b.clone();
        right += &c;
        let mut right_total = a.clone();
        right_total += &right;
        assert_eq!(left, right_total);

        let played: Vec<_> = left.played().collect();
        assert_eq!(played.len(), 2);
        let (id, line) = played[0];
        assert_eq!(id, 3);
        let r = &line.results;
        assert_eq!(
            (r.games, r.white_wins, r.draws, r.unfinished()),
            (3, 1, 1, 1)
        );
        assert_eq!(r.white_score(), Some(0.75));
        assert_eq!(r.draw_rate(), Some(0.5));
        assert_eq!(line.average_plies(), Some(40.0));
        assert_eq!(line.average_elo_diff(), Some(0.0));
        assert_eq!((line.elo.white_sum, line.elo.white_count), (6500, 3));
    }
}
