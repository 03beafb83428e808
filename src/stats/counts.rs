//! Statistics stage, the one counter of games and their counted results
//! (white wins, draws, black wins; the rest unfinished): what the opening
//! tree, the opening lines, the results and material tables and the report
//! all count. u64 throughout: the whole lichess database alone plays 1.e4
//! in billions of games, past `u32::MAX`.

use std::ops::AddAssign;

use super::spill::Fields;
use crate::pgn::result::GameResult;

/// Games and their counted results; `unfinished` is the rest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub games: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
}

impl Counts {
    /// One game with `result` (None or `*`: unfinished).
    pub(crate) fn add_game(&mut self, result: Option<GameResult>) {
        self.games += 1;
        match result {
            Some(GameResult::WhiteWins) => self.white_wins += 1,
            Some(GameResult::Draw) => self.draws += 1,
            Some(GameResult::BlackWins) => self.black_wins += 1,
            Some(GameResult::Unfinished) | None => {}
        }
    }

    /// Games with a counted result.
    pub(crate) fn finished(&self) -> u64 {
        self.white_wins + self.draws + self.black_wins
    }

    /// Games without one (`*`, or no result at all).
    pub(crate) fn unfinished(&self) -> u64 {
        self.games.saturating_sub(self.finished())
    }

    /// White's score over finished games: (wins + draws / 2) / finished.
    pub(crate) fn white_score(&self) -> Option<f64> {
        let finished = self.finished();
        (finished > 0).then(|| (self.white_wins as f64 + self.draws as f64 / 2.0) / finished as f64)
    }

    /// Draws over finished games.
    pub(crate) fn draw_rate(&self) -> Option<f64> {
        let finished = self.finished();
        (finished > 0).then(|| self.draws as f64 / finished as f64)
    }
}

impl Counts {
    /// Appends the four counts to a run-file record (32 bytes).
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        for n in [self.games, self.white_wins, self.draws, self.black_wins] {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }

    pub(crate) fn decode(fields: &mut Fields<'_>) -> Option<Counts> {
        Some(Counts {
            games: fields.u64()?,
            white_wins: fields.u64()?,
            draws: fields.u64()?,
            black_wins: fields.u64()?,
        })
    }
}

impl AddAssign<&Counts> for Counts {
    fn add_assign(&mut self, other: &Counts) {
        self.games += other.games;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.black_wins += other.black_wins;
    }
}

impl AddAssign for Counts {
    fn add_assign(&mut self, other: Counts) {
        *self += &other;
    }
}

/// Sums and counts of the players' known ratings (an average is a sum over
/// a count, computed by whoever reads them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Ratings {
    pub white_sum: u64,
    pub white_count: u64,
    pub black_sum: u64,
    pub black_count: u64,
}

impl Ratings {
    /// One game's ratings, those known.
    pub(crate) fn add_game(&mut self, white: Option<u32>, black: Option<u32>) {
        if let Some(elo) = white {
            self.white_sum += u64::from(elo);
            self.white_count += 1;
        }
        if let Some(elo) = black {
            self.black_sum += u64::from(elo);
            self.black_count += 1;
        }
    }
}

impl Ratings {
    /// Appends the sums and counts to a run-file record (32 bytes).
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        for n in [
            self.white_sum,
            self.white_count,
            self.black_sum,
            self.black_count,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }

    pub(crate) fn decode(fields: &mut Fields<'_>) -> Option<Ratings> {
        Some(Ratings {
            white_sum: fields.u64()?,
            white_count: fields.u64()?,
            black_sum: fields.u64()?,
            black_count: fields.u64()?,
        })
    }
}

impl AddAssign<&Ratings> for Ratings {
    fn add_assign(&mut self, other: &Ratings) {
        self.white_sum += other.white_sum;
        self.white_count += other.white_count;
        self.black_sum += other.black_sum;
        self.black_count += other.black_count;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_past_u32_max() {
        let big = u64::from(u32::MAX);
        let mut total = Counts {
            games: big,
            white_wins: big - 2,
            draws: 1,
            black_wins: 0,
        };
        total += Counts {
            games: 3,
            white_wins: 1,
            draws: 1,
            black_wins: 1,
        };
        assert_eq!(total.games, big + 3);
        assert_eq!(total.white_wins, big - 1);
        assert_eq!(total.unfinished(), 1);
        assert_eq!(total.finished(), big + 2);
    }

    #[test]
    fn scores_are_over_finished_games() {
        let mut counts = Counts::default();
        assert_eq!(counts.white_score(), None);
        for result in [
            Some(GameResult::WhiteWins),
            Some(GameResult::Draw),
            Some(GameResult::Unfinished),
            None,
        ] {
            counts.add_game(result);
        }
        assert_eq!(counts.games, 4);
        assert_eq!(counts.unfinished(), 2);
        assert_eq!(counts.white_score(), Some(0.75));
        assert_eq!(counts.draw_rate(), Some(0.5));
    }
}
