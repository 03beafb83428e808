//! Replay stage, notation: the FEN of a final position and moves in UCI,
//! written byte by byte because they run for every game and every ply.

use shakmaty::fen::Fen;
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, File, Move, Position, Rank, Square,
};

/// The FEN of `pos` (en passant square only when a capture is legal).
/// Written by hand for standard castling rights, the case of nearly every
/// game, since shakmaty's `Display` goes through `fmt` one char at a time;
/// Chess960 and unusual rights use shakmaty's writer.
pub(super) fn fen_of(pos: &Chess, chess960: bool) -> String {
    let rights = pos.castles().castling_rights();
    let corners = [Square::H1, Square::A1, Square::H8, Square::A8];
    let standard = corners
        .iter()
        .fold(rights, |rest, &sq| rest & !Bitboard::from_square(sq))
        .is_empty();
    if chess960 || !standard {
        return Fen::from_position(pos, EnPassantMode::Legal).to_string();
    }
    let mut out = Vec::with_capacity(96);
    let board = pos.board();
    let occupied = board.occupied();
    for rank in (0..8u32).rev() {
        let mut empty = 0u8;
        for file in 0..8u32 {
            let square = Square::from_coords(File::new(file), Rank::new(rank));
            let piece = if occupied.contains(square) {
                board.piece_at(square)
            } else {
                None
            };
            match piece {
                Some(piece) => {
                    if empty > 0 {
                        out.push(b'0' + empty);
                        empty = 0;
                    }
                    out.push(piece.char() as u8);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            out.push(b'0' + empty);
        }
        if rank > 0 {
            out.push(b'/');
        }
    }
    out.extend_from_slice(if pos.turn() == Color::White {
        b" w "
    } else {
        b" b "
    });
    let before = out.len();
    for (sq, letter) in corners.into_iter().zip(*b"KQkq") {
        if rights.contains(sq) {
            out.push(letter);
        }
    }
    if out.len() == before {
        out.push(b'-');
    }
    out.push(b' ');
    match pos.ep_square(EnPassantMode::Legal) {
        Some(sq) => {
            out.push(sq.file().char() as u8);
            out.push(sq.rank().char() as u8);
        }
        None => out.push(b'-'),
    }
    let counters = format!(" {} {}", pos.halfmoves(), pos.fullmoves());
    out.extend_from_slice(counters.as_bytes());
    // Only ASCII was pushed (a hot path: no second check or copy).
    String::from_utf8(out).unwrap_or_default()
}

/// Appends a move in UCI notation, byte by byte: this runs for every ply
/// of every game, and `fmt` costs several times more.
pub(super) fn push_uci(out: &mut Vec<u8>, m: Move, mode: CastlingMode) {
    let square = |sq: Square| [sq.file().char() as u8, sq.rank().char() as u8];
    match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => {
            let ([f1, r1], [f2, r2]) = (square(from), square(to));
            match promotion {
                Some(role) => out.extend_from_slice(&[f1, r1, f2, r2, role.char() as u8]),
                None => out.extend_from_slice(&[f1, r1, f2, r2]),
            }
        }
        Move::EnPassant { from, to } => {
            let ([f1, r1], [f2, r2]) = (square(from), square(to));
            out.extend_from_slice(&[f1, r1, f2, r2]);
        }
        other => other.to_uci(mode).append_ascii_to(out),
    }
}
