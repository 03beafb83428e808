//! Statistics stage, the opening tree's row in a run file: one record per
//! row, 63 bytes for a row of one game (nearly every row of a tree of
//! online games), 126 otherwise. Written when a worker's table spills and
//! read back when its partition is gathered.

use super::board::{BOARD_BYTES, Board, SAN_BYTES, SanText};
use super::edge::{Edge, EdgeKey, EdgeStats, NO_YEAR, OneGame, Tally};
use crate::stats::counts::{Counts, Ratings};
use crate::stats::dimensions::{self, Dimensions};
use crate::stats::spill::Fields;

/// Header bits of a run-file record.
const ONE_GAME: u8 = 1;
/// The SAN as 8 bytes (never so far: SAN is at most 7).
const WIDE: u8 = 2;
const RESULT_SHIFT: u8 = 2;
/// A one-game row's ply in one byte.
const SHORT_PLY: u8 = 16;
/// SAN with its suffix is at most 7 bytes (`Qa1xb2#`, `exd8=Q+`).
const SHORT_SAN_BYTES: usize = 7;
/// The longest record: a row of many games with an 8-byte SAN (four
/// counts and two rating sums and counts of 8 bytes, three u16).
pub(super) const RECORD_MAX_BYTES: usize =
    1 + 8 + 2 + dimensions::ENCODED_BYTES + 8 + BOARD_BYTES + SAN_BYTES + 8 * 8 + 3 * 2;

impl Edge {
    /// Appends the row as a run-file record: 63 bytes for a row of one
    /// game (nearly every row of a tree of online games), 126 otherwise.
    pub(crate) fn encode(&self, key: &EdgeKey, out: &mut Vec<u8>) {
        let san = self.san.bytes();
        let short_san = san[SHORT_SAN_BYTES] == 0;
        let short_ply = u8::try_from(self.ply()).ok().filter(|&p| p != u8::MAX);
        let mut header = 0u8;
        if let Tally::One(game) = &self.tally {
            header |= ONE_GAME | game.result << RESULT_SHIFT;
            if short_ply.is_some() {
                header |= SHORT_PLY;
            }
        }
        if !short_san {
            header |= WIDE;
        }
        out.reserve(RECORD_MAX_BYTES);
        out.push(header);
        out.extend_from_slice(&key.position.to_le_bytes());
        out.extend_from_slice(&key.mv.to_le_bytes());
        key.dims.encode(out);
        out.extend_from_slice(&self.next.to_le_bytes());
        let board = &self.board;
        out.extend_from_slice(&board.occupied);
        out.extend_from_slice(&board.pieces);
        out.extend_from_slice(&[board.flags, board.ep]);
        if short_san {
            out.extend_from_slice(&san[..SHORT_SAN_BYTES]);
        } else {
            out.extend_from_slice(san);
        }
        match &self.tally {
            Tally::One(game) => {
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
            }
        }
    }

    /// Reads one record from the front of `bytes`; the rest after it. None
    /// when the record is cut short or its SAN is not ASCII.
    pub(crate) fn decode(bytes: &[u8]) -> Option<((EdgeKey, Edge), &[u8])> {
        let (&header, rest) = bytes.split_first()?;
        let mut input = Fields(rest);
        let key = EdgeKey {
            position: input.u64()?,
            mv: input.u16()?,
            dims: Dimensions::decode(&mut input)?,
        };
        let next = input.u64()?;
        let board = Board {
            occupied: input.bytes::<8>()?,
            pieces: input.bytes::<16>()?,
            flags: input.bytes::<1>()?[0],
            ep: input.bytes::<1>()?[0],
        };
        let san = if header & WIDE != 0 {
            input.bytes::<SAN_BYTES>()?
        } else {
            let mut san = [0u8; SAN_BYTES];
            for (to, from) in san.iter_mut().zip(input.bytes::<SHORT_SAN_BYTES>()?) {
                *to = from;
            }
            san
        };
        let san = SanText::from_bytes(san)?;
        let year = |y: u16| (y != NO_YEAR).then_some(y);
        let tally = if header & ONE_GAME != 0 {
            let ply = if header & SHORT_PLY != 0 {
                u16::from(input.bytes::<1>()?[0])
            } else {
                input.u16()?
            };
            Tally::One(OneGame {
                result: (header >> RESULT_SHIFT) & 3,
                white_elo: input.u16()?,
                black_elo: input.u16()?,
                year: input.u16()?,
                ply,
            })
        } else {
            Tally::from_stats(EdgeStats {
                results: Counts::decode(&mut input)?,
                elo: Ratings::decode(&mut input)?,
                first_year: year(input.u16()?),
                last_year: year(input.u16()?),
                ply: input.u16()?,
            })
        };
        Some((
            (
                key,
                Edge {
                    tally,
                    next,
                    board,
                    san,
                },
            ),
            input.rest(),
        ))
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
        let key = EdgeKey {
            position: 9,
            mv: 4,
            dims: Dimensions::default(),
        };
        let mut record = Vec::new();
        edge.encode(&key, &mut record);
        assert_eq!(record.len(), RECORD_MAX_BYTES - 1);
        let ((read_key, read), rest) = Edge::decode(&record).unwrap_or_else(|| panic!("decode"));
        assert!(rest.is_empty());
        assert_eq!((read_key, read), (key, edge));
    }

    #[test]
    fn a_san_of_eight_bytes_is_written_wide() {
        let edge = Edge {
            san: SanText::from_bytes(*b"Qa1xb2+!").unwrap_or_else(|| panic!("ASCII")),
            ..Edge::made_up(9, 1, 3, 2020)
        };
        let key = EdgeKey {
            position: 7,
            mv: 3,
            dims: Dimensions::default(),
        };
        let mut bytes = Vec::new();
        edge.encode(&key, &mut bytes);
        assert_eq!(bytes.len(), 64);
        assert_eq!(Edge::decode(&bytes), Some(((key, edge), &[][..])));
    }

    #[test]
    fn a_record_whose_san_is_not_ascii_is_refused() {
        let key = EdgeKey {
            position: 7,
            mv: 3,
            dims: Dimensions::default(),
        };
        let mut bytes = Vec::new();
        Edge::made_up(9, 1, 3, 2020).encode(&key, &mut bytes);
        assert!(Edge::decode(&bytes).is_some());
        // The SAN follows the header, key, dimensions, next key and board.
        let san_at = 1 + 8 + 2 + dimensions::ENCODED_BYTES + 8 + BOARD_BYTES;
        bytes[san_at] = 0xC3;
        assert_eq!(Edge::decode(&bytes), None);
    }
}
