//! Statistics stage, the opening tree's row spelled: the position an edge
//! leaves as EPD, the move in SAN and the key of the position it leads to,
//! for the rows written with two games or more (a row of one game names
//! its game instead). Made from the position of the row's witness game.

use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::{Chess, Color, EnPassantMode, Move, Position, Square};

/// A position as the squares taken (a little-endian bitboard), then one
/// nibble per piece in square order (1–6 white pawn to king, 9–14 black;
/// at most 32 pieces, as in any game from the standard start, the only
/// games in the tree), then side to move and castling rights, then the
/// en-passant square + 1 (0: none). Written straight out as EPD, and as is
/// to run files. Ordered as its 26 bytes are, field after field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Board {
    pub(super) occupied: [u8; 8],
    pub(super) pieces: [u8; 16],
    pub(super) flags: u8,
    pub(super) ep: u8,
}

const TURN_WHITE: u8 = 1;
const CASTLING: [(Square, u8, u8); 4] = [
    (Square::H1, 2, b'K'),
    (Square::A1, 4, b'Q'),
    (Square::H8, 8, b'k'),
    (Square::A8, 16, b'q'),
];

/// Letters by nibble code; `.` for unused codes.
const PIECE_LETTERS: &[u8; 16] = b".PNBRQK..pnbrqk.";

impl Board {
    pub(super) fn of(pos: &Chess) -> Board {
        let pieces = pos.board();
        let occupied = pieces.occupied();
        let mut board = Board {
            occupied: u64::from(occupied).to_le_bytes(),
            pieces: [0; 16],
            flags: 0,
            ep: 0,
        };
        for (index, square) in occupied.into_iter().enumerate() {
            // A position from the standard start has at most 32 pieces.
            if let (Some(piece), Some(byte)) =
                (pieces.piece_at(square), board.pieces.get_mut(index / 2))
            {
                let code = piece.role as u8 | if piece.color == Color::Black { 8 } else { 0 };
                *byte |= code << (4 * (index % 2));
            }
        }
        let rights = pos.castles().castling_rights();
        let mut flags = if pos.turn() == Color::White {
            TURN_WHITE
        } else {
            0
        };
        for (corner, bit, _) in CASTLING {
            if rights.contains(corner) {
                flags |= bit;
            }
        }
        board.flags = flags;
        board.ep = pos
            .ep_square(EnPassantMode::Legal)
            .map_or(0, |sq| u8::from(sq) + 1);
        board
    }

    /// The position as EPD (en passant only when legal). Any bytes spell
    /// some ASCII text (a run file's are read back as they were written).
    pub(super) fn write_epd(&self, out: &mut String) {
        // Built as bytes in a buffer long enough for any EPD (at most 64
        // squares, 7 slashes and 13 more bytes) and appended once: this
        // runs for every position of the tree.
        let mut text = Text::default();
        let occupied = u64::from_le_bytes(self.occupied);
        let pieces = u128::from_le_bytes(self.pieces);
        for rank in (0..8u32).rev() {
            // Pieces are in square order: this rank's come after those of
            // the ranks below.
            let mut index = (occupied & ((1u64 << (8 * rank)) - 1)).count_ones();
            let mut row = (occupied >> (8 * rank)) as u8;
            // From one occupied square to the next, not square by square.
            let mut file = 0u32;
            while row != 0 {
                let next = row.trailing_zeros();
                if next > file {
                    text.push(b'0' + (next - file) as u8);
                }
                let code = (pieces >> (4 * (index & 31))) as usize & 15;
                text.push(PIECE_LETTERS[code]);
                index += 1;
                file = next + 1;
                row &= row - 1;
            }
            if file < 8 {
                text.push(b'0' + (8 - file) as u8);
            }
            if rank > 0 {
                text.push(b'/');
            }
        }
        text.push(b' ');
        text.push(if self.flags & TURN_WHITE != 0 {
            b'w'
        } else {
            b'b'
        });
        text.push(b' ');
        let mut any = false;
        for (_, bit, letter) in CASTLING {
            if self.flags & bit != 0 {
                text.push(letter);
                any = true;
            }
        }
        if !any {
            text.push(b'-');
        }
        text.push(b' ');
        match self.ep.checked_sub(1) {
            Some(square) if square < 64 => {
                text.push(b'a' + square % 8);
                text.push(b'1' + square / 8);
            }
            _ => text.push(b'-'),
        }
        out.push_str(text.as_str());
    }
}

/// An EPD being written: ASCII bytes in a buffer that holds any EPD.
struct Text {
    bytes: [u8; 96],
    len: usize,
}

impl Default for Text {
    fn default() -> Self {
        Text {
            bytes: [0; 96],
            len: 0,
        }
    }
}

impl Text {
    fn push(&mut self, byte: u8) {
        // The longest EPD (64 pieces, whatever a run file holds) is 81
        // bytes: the buffer never fills.
        self.bytes[self.len] = byte;
        self.len += 1;
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).expect("an EPD is built of ASCII bytes alone")
    }
}

/// A row's text: the position it leaves, its move, the next position's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spelling {
    board: Board,
    san: SanText,
    /// [`crate::replay::openings::position_key`] after the move.
    pub next: u64,
}

impl Spelling {
    /// The legal move `m` from `pos`.
    pub(crate) fn of(pos: &Chess, m: Move) -> Spelling {
        let mut after = pos.clone();
        after.play_unchecked(m);
        Spelling {
            board: Board::of(pos),
            san: SanText::of(pos, m),
            next: crate::replay::openings::position_key(&after),
        }
    }

    /// The position as EPD (en passant only when legal).
    pub(crate) fn write_epd(&self, out: &mut String) {
        self.board.write_epd(out);
    }

    /// The move in SAN with `+` / `#`.
    pub(crate) fn san(&self) -> &str {
        self.san.as_str()
    }

    /// Whether two spellings leave the same position.
    pub(crate) fn same_position(&self, other: &Spelling) -> bool {
        self.board == other.board
    }
}

/// The longest SAN with suffix is 7 bytes (`Qa1xb2#`, `exd8=Q+`).
pub(super) const SAN_BYTES: usize = 8;

/// A move in SAN with its `+` / `#`: ASCII, padded with NULs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct SanText([u8; SAN_BYTES]);

impl SanText {
    pub(super) fn of(pos: &Chess, m: Move) -> SanText {
        let mut text = Vec::with_capacity(SAN_BYTES);
        san_plus(pos, m).append_ascii_to(&mut text);
        let mut san = [0u8; SAN_BYTES];
        for (slot, byte) in san.iter_mut().zip(text) {
            *slot = byte;
        }
        SanText(san)
    }

    pub(super) fn as_str(&self) -> &str {
        // No NUL: the SAN takes all eight bytes.
        let len = self.0.iter().position(|&b| b == 0).unwrap_or(SAN_BYTES);
        std::str::from_utf8(&self.0[..len])
            .expect("SAN text is ASCII: spelled by shakmaty or checked when read")
    }
}

/// The SAN of the legal move `m`, as `SanPlus::from_move` gives it, for a
/// fraction of its cost: that asks the position after the move for its
/// outcome, which generates every legal move there, while only a position
/// in check can be checkmate. This runs for every new row of the tree.
fn san_plus(pos: &Chess, m: Move) -> SanPlus {
    let san = San::from_move(pos, m);
    let mut after = pos.clone();
    after.play_unchecked(m);
    let suffix = if !after.checkers().any() {
        None
    } else if after.legal_moves().is_empty() {
        Some(Suffix::Checkmate)
    } else {
        Some(Suffix::Check)
    };
    SanPlus { san, suffix }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Epd;

    #[test]
    fn hand_written_epd_and_san_agree_with_shakmaty() {
        let mut checked = 0;
        crate::replay::random_walk(7, 60, 100, |pos| {
            let mut epd = String::new();
            Board::of(pos).write_epd(&mut epd);
            assert_eq!(
                epd,
                Epd::from_position(pos, EnPassantMode::Legal).to_string()
            );
            for m in pos.legal_moves() {
                assert_eq!(
                    SanText::of(pos, m).as_str(),
                    SanPlus::from_move(pos.clone(), m).to_string()
                );
                checked += 1;
            }
        });
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn a_mating_move_is_spelled_with_its_mark() {
        let mut pos = Chess::default();
        for san in ["f3", "e5", "g4"] {
            let m = san
                .parse::<San>()
                .ok()
                .and_then(|san| san.to_move(&pos).ok())
                .unwrap_or_else(|| panic!("{san}"));
            pos.play_unchecked(m);
        }
        let spelled = |san: &str| {
            San::from_ascii(san.as_bytes())
                .ok()
                .and_then(|san| san.to_move(&pos).ok())
                .map(|m| SanText::of(&pos, m).as_str().to_owned())
        };
        assert_eq!(spelled("Qh4").as_deref(), Some("Qh4#"));
        assert_eq!(spelled("Bb4").as_deref(), Some("Bb4"));
    }

    #[test]
    fn any_board_bytes_spell_an_epd() {
        let board = Board {
            occupied: [0xFF; 8],
            pieces: [0xFF; 16],
            flags: 0xFF,
            ep: 0xFF,
        };
        let mut epd = String::new();
        board.write_epd(&mut epd);
        assert_eq!(epd.len(), 64 + 7 + 9);
    }
}
