//! Statistics stage, the opening tree's row in a run file: one record per
//! row, 27 to 30 bytes for a row of one game (nearly every row of a tree of
//! online games), more for a row of many. Written when a worker's table
//! spills and read back when its partition is gathered. No text: rows are
//! spelled when written ([`super::Spelling`]).

use super::edge::{Edge, EdgeKey, EdgeStats, NO_YEAR, OneGame, Tally};
use crate::stats::counts::{Counts, Ratings};
use crate::stats::dimensions::{self, Dimensions};
use crate::stats::spill::Fields;

/// Header bits of a run-file record.
const ONE_GAME: u8 = 1;
/// A row of many games with a top game.
const HAS_TOP: u8 = 2;
const RESULT_SHIFT: u8 = 2;
/// A one-game row's ply in one byte.
const SHORT_PLY: u8 = 16;
/// The longest record: a row of many games (four counts and two rating
/// sums and counts of 8 bytes, three u16, the witness, top, first and
/// latest).
pub(super) const RECORD_MAX_BYTES: usize =
    1 + 8 + 2 + dimensions::ENCODED_BYTES + 8 * 8 + 3 * 2 + 8 + 16 + 8 + 8;

impl Edge {
    /// Appends the row as a run-file record.
    pub(crate) fn encode(&self, key: &EdgeKey, out: &mut Vec<u8>) {
        let short_ply = u8::try_from(self.ply()).ok().filter(|&p| p != u8::MAX);
        let mut header = 0u8;
        match &self.tally {
            Tally::One(game) => {
                header |= ONE_GAME | game.result << RESULT_SHIFT;
                if short_ply.is_some() {
                    header |= SHORT_PLY;
                }
            }
            Tally::Many(s) if s.top.is_some() => header |= HAS_TOP,
            Tally::Many(_) => {}
        }
        out.reserve(RECORD_MAX_BYTES);
        out.push(header);
        out.extend_from_slice(&key.position.to_le_bytes());
        out.extend_from_slice(&key.mv.to_le_bytes());
        key.dims.encode(out);
        match &self.tally {
            Tally::One(game) => {
                out.extend_from_slice(&game.game_id.to_le_bytes());
                match short_ply {
                    Some(ply) => out.push(ply),
                    None => out.extend_from_slice(&game.ply.to_le_bytes()),
                }
                for n in [game.white_elo, game.black_elo, game.year] {
                    out.extend_from_slice(&n.to_le_bytes());
                }
            }
            Tally::Many(s) => {
                s.results.encode(out);
                s.elo.encode(out);
                // A year unknown is written as NO_YEAR.
                for n in [
                    s.first_year.unwrap_or(NO_YEAR),
                    s.last_year.unwrap_or(NO_YEAR),
                    s.ply,
                ] {
                    out.extend_from_slice(&n.to_le_bytes());
                }
                out.extend_from_slice(&s.game_id.to_le_bytes());
                if let Some((sum, id)) = s.top {
                    out.extend_from_slice(&sum.to_le_bytes());
                    out.extend_from_slice(&id.to_le_bytes());
                }
                out.extend_from_slice(&s.first.to_le_bytes());
                out.extend_from_slice(&s.last.to_le_bytes());
            }
        }
    }

    /// Reads one record from the front of `bytes`; the rest after it. None
    /// when the record is cut short.
    pub(crate) fn decode(bytes: &[u8]) -> Option<((EdgeKey, Edge), &[u8])> {
        let (&header, rest) = bytes.split_first()?;
        let mut input = Fields(rest);
        let key = EdgeKey {
            position: input.u64()?,
            mv: input.u16()?,
            dims: Dimensions::decode(&mut input)?,
        };
        let year = |y: u16| (y != NO_YEAR).then_some(y);
        let tally = if header & ONE_GAME != 0 {
            let game_id = input.u64()?;
            let ply = if header & SHORT_PLY != 0 {
                u16::from(input.bytes::<1>()?[0])
            } else {
                input.u16()?
            };
            Tally::One(OneGame {
                game_id,
                result: (header >> RESULT_SHIFT) & 3,
                white_elo: input.u16()?,
                black_elo: input.u16()?,
                year: input.u16()?,
                ply,
            })
        } else {
            let results = Counts::decode(&mut input)?;
            let elo = Ratings::decode(&mut input)?;
            let (first_year, last_year) = (year(input.u16()?), year(input.u16()?));
            let ply = input.u16()?;
            let game_id = input.u64()?;
            let top = if header & HAS_TOP != 0 {
                Some((input.u64()?, input.u64()?))
            } else {
                None
            };
            Tally::from_stats(EdgeStats {
                results,
                elo,
                first_year,
                last_year,
                ply,
                game_id,
                top,
                first: input.u64()?,
                last: input.u64()?,
            })
        };
        Some(((key, Edge { tally }), input.rest()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_past_u32_max_games_survives_a_run_file() {
        let big = u64::from(u32::MAX);
        let mut edge = Edge::made_up(7, big, 3, 2020);
        edge.combine(Edge::made_up(7, 5, 2, 2021));
        edge.add_game(
            &crate::stats::tree_row::GameFacts {
                game_id: 11,
                white_elo: Some(3000),
                black_elo: Some(2900),
                ..Default::default()
            },
            9,
        );
        let key = EdgeKey {
            position: 9,
            mv: 4,
            dims: Dimensions::default(),
        };
        let mut record = Vec::new();
        edge.encode(&key, &mut record);
        assert_eq!(record.len(), RECORD_MAX_BYTES);
        let ((read_key, read), rest) = Edge::decode(&record).unwrap_or_else(|| panic!("decode"));
        assert!(rest.is_empty());
        assert_eq!((read_key, read.stats()), (key, edge.stats()));
        assert_eq!(read.stats().top, Some((5900, 11)));
        for cut in 0..record.len() {
            assert_eq!(Edge::decode(&record[..cut]), None, "{cut}");
        }
    }
}
