//! Statistics stage, opening lines: results, ratings and lengths per named
//! opening and per speed, rating band and month of the games. Keyed like the
//! results table, in a map that spills past its budget (names × dimensions
//! grow with the months an archive spans).

use std::ops::AddAssign;

use super::counts::{Counts, Ratings};
use super::dimensions::Dimensions;
use super::spill::{BoundedMap, Codec, Fields, SpillDir};
use super::tree_row::GameFacts;

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

/// The key of an `opening_lines` row: the opening (its id in the opening
/// index, whose names are sorted by ECO, then name) and the dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct LineKey {
    pub name_id: u16,
    pub dims: Dimensions,
}

/// How `opening_lines` entries spill and merge.
pub(crate) struct LinesCodec;

impl Codec for LinesCodec {
    type Key = LineKey;
    type Value = LineStats;

    fn encode(key: &LineKey, value: &LineStats, out: &mut Vec<u8>) {
        out.extend_from_slice(&key.name_id.to_le_bytes());
        key.dims.encode(out);
        value.results.encode(out);
        value.elo.encode(out);
        for n in [
            value.plies_sum,
            value.elo_diff_sum.cast_unsigned(),
            value.elo_diff_count,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }

    fn decode(bytes: &[u8]) -> Option<(LineKey, LineStats)> {
        let mut fields = Fields(bytes);
        let key = LineKey {
            name_id: fields.u16()?,
            dims: Dimensions::decode(&mut fields)?,
        };
        let stats = LineStats {
            results: Counts::decode(&mut fields)?,
            elo: Ratings::decode(&mut fields)?,
            plies_sum: fields.u64()?,
            elo_diff_sum: fields.u64()?.cast_signed(),
            elo_diff_count: fields.u64()?,
        };
        Some((key, stats))
    }

    fn combine(into: &mut LineStats, from: LineStats) {
        *into += &from;
    }
}

/// A worker's stats per named opening and dimensions, within a budget.
pub struct OpeningLines<'s> {
    map: BoundedMap<'s, LinesCodec>,
}

impl<'s> OpeningLines<'s> {
    pub fn new(budget: usize, spill: &'s SpillDir) -> Self {
        OpeningLines {
            map: BoundedMap::new(budget, spill),
        }
    }

    pub(crate) fn add_game(&mut self, name_id: u16, game: &GameFacts, plies: u32) {
        let key = LineKey {
            name_id,
            dims: game.dims,
        };
        self.map
            .upsert(key, LineStats::default, |line| line.add_game(game, plies));
    }

    /// The entries left in memory, sorted; the first spill error.
    pub(crate) fn finish(self) -> std::io::Result<Vec<(LineKey, LineStats)>> {
        self.map.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TimeClass;
    use crate::pgn::result::GameResult;
    use crate::stats::dimensions::OpeningPeriod;
    use crate::stats::spill;

    fn game(
        result: Option<GameResult>,
        white: Option<u32>,
        black: Option<u32>,
        time_class: TimeClass,
    ) -> GameFacts {
        let elo = |e: Option<u32>| e.and_then(|e| i32::try_from(e).ok());
        GameFacts {
            game_id: 0,
            result,
            white_elo: white,
            black_elo: black,
            year: None,
            dims: Dimensions::of(
                time_class,
                elo(white),
                elo(black),
                None,
                OpeningPeriod::Month,
            ),
        }
    }

    /// Lines added by workers with a tiny budget (so they spill), merged.
    fn lines(workers: &[Vec<(u16, GameFacts, u32)>], budget: usize) -> Vec<(LineKey, LineStats)> {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let spill_dir = SpillDir::new(dir.path().join("lines"));
        let mut parts = Vec::new();
        for games in workers {
            let mut part = OpeningLines::new(budget, &spill_dir);
            for (id, game, plies) in games {
                part.add_game(*id, game, *plies);
            }
            parts.push(part.finish().unwrap_or_else(|e| panic!("{e}")));
        }
        spill::merge::<LinesCodec>(&spill_dir, parts)
            .unwrap_or_else(|e| panic!("{e}"))
            .collect::<std::io::Result<Vec<_>>>()
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn lines_add_up_per_opening_and_dimensions_in_any_grouping() {
        let games = vec![
            (
                3,
                game(
                    Some(GameResult::WhiteWins),
                    Some(2400),
                    Some(2300),
                    TimeClass::Blitz,
                ),
                40,
            ),
            (
                3,
                game(Some(GameResult::Draw), Some(2000), None, TimeClass::Blitz),
                60,
            ),
            (7, game(None, None, None, TimeClass::Unknown), 10),
            (
                3,
                game(
                    Some(GameResult::Unfinished),
                    Some(2100),
                    Some(2200),
                    TimeClass::Blitz,
                ),
                20,
            ),
            (
                3,
                game(
                    Some(GameResult::Draw),
                    Some(2400),
                    Some(2300),
                    TimeClass::Blitz,
                ),
                30,
            ),
        ];
        let one = lines(std::slice::from_ref(&games), 1 << 20);
        let split = lines(
            &[games[..2].to_vec(), games[2..].to_vec()],
            // Room for a handful of entries: the workers spill.
            256,
        );
        assert_eq!(one, split);
        let seen: Vec<_> = one
            .iter()
            .map(|(k, l)| {
                (
                    k.name_id,
                    k.dims.time_class(),
                    k.dims.rating_band(),
                    l.results.games,
                )
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                (3, "blitz", None, 1),
                (3, "blitz", Some(2000), 1),
                (3, "blitz", Some(2200), 2),
                (7, "unknown", None, 1),
            ]
        );
        let (_, top) = one[2];
        let r = &top.results;
        assert_eq!((r.white_wins, r.draws, r.unfinished()), (1, 1, 0));
        assert_eq!(r.white_score(), Some(0.75));
        assert_eq!(top.average_plies(), Some(35.0));
        assert_eq!(top.average_elo_diff(), Some(100.0));
        assert_eq!((top.elo.white_sum, top.elo.white_count), (4800, 2));
        for (key, stats) in &one {
            let mut bytes = Vec::new();
            LinesCodec::encode(key, stats, &mut bytes);
            assert_eq!(LinesCodec::decode(&bytes), Some((*key, *stats)));
        }
    }
}
