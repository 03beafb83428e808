//! Replay stage, SAN resolution fast path. shakmaty's `San::to_move` builds
//! a full candidate list (a 2 KB array returned by value) for every move;
//! this resolves every move but castling and en passant with a few bitboard
//! operations, and defers everything else (including every error, so
//! messages and reasons stay shakmaty's) to it.

use shakmaty::attacks;
use shakmaty::san::San;
use shakmaty::{Bitboard, Chess, Color, Move, Position, Rank, Role, Square};

/// The unique legal move `san` denotes, or `None` to let shakmaty decide.
pub(crate) fn resolve_fast(pos: &Chess, san: &San) -> Option<Move> {
    let San::Normal {
        role,
        file,
        rank,
        capture,
        to,
        promotion,
    } = *san
    else {
        return None;
    };
    let turn = pos.turn();
    let board = pos.board();
    let us = board.by_color(turn);
    if us.contains(to) {
        return None;
    }
    let in_check = pos.checkers().any();
    if role == Role::Pawn && pos.maybe_ep_square() == Some(to) {
        return None;
    }
    let captured = board.role_at(to);
    if capture != captured.is_some() || !promotion_fits(role, to, turn, promotion) {
        return None;
    }
    let king = board.king_of(turn)?;
    let occupied = board.occupied();
    let mut from = match role {
        Role::Pawn if capture => attacks::pawn_attacks(!turn, to),
        Role::Pawn => pawn_push_origins(board.occupied(), to, turn),
        Role::Knight => attacks::knight_attacks(to),
        Role::Bishop => attacks::bishop_attacks(to, occupied),
        Role::Rook => attacks::rook_attacks(to, occupied),
        Role::Queen => attacks::queen_attacks(to, occupied),
        Role::King => attacks::king_attacks(to),
    } & us
        & board.by_role(role);
    if let Some(file) = file {
        from &= Bitboard::from_file(file);
    }
    if let Some(rank) = rank {
        from &= Bitboard::from_rank(rank);
    }
    let captured_square = Bitboard::from_square(to);
    let mut found = None;
    for from in from {
        if !leaves_king_safe(pos, role, from, to, king, in_check, captured_square) {
            continue;
        }
        if found.replace(from).is_some() {
            return None;
        }
    }
    let from = found?;
    Some(Move::Normal {
        role,
        from,
        capture: captured,
        to,
        promotion,
    })
}

/// `rank` as seen from `turn`'s side of the board.
fn relative(rank: Rank, turn: Color) -> Rank {
    match turn {
        Color::White => rank,
        Color::Black => rank.flip_vertical(),
    }
}

/// A quick "yes" to "does the side to move have a legal move?" for nearly
/// every final position: out of check, an unpinned knight, bishop, rook or
/// queen with a square to go to, or an unpinned pawn with an empty square
/// ahead. False means "ask shakmaty", not "no".
pub(crate) fn surely_has_legal_move(pos: &Chess) -> bool {
    let board = pos.board();
    let turn = pos.turn();
    let Some(king) = board.king_of(turn) else {
        return false;
    };
    if pos.checkers().any() {
        return false;
    }
    let us = board.by_color(turn);
    let occupied = board.occupied();
    let no_capture = Bitboard::EMPTY;
    let pieces = us & !board.kings();
    pieces.into_iter().any(|from| {
        let Some(piece) = board.piece_at(from) else {
            return false;
        };
        let targets = match piece.role {
            Role::Pawn => {
                let ahead = if turn == Color::White { 8 } else { -8 };
                from.offset(ahead)
                    .filter(|sq| !occupied.contains(*sq))
                    .map_or(Bitboard::EMPTY, Bitboard::from_square)
            }
            role => attacks::attacks(from, role.of(turn), occupied) & !us,
        };
        targets.any() && leaves_king_safe(pos, piece.role, from, from, king, false, no_capture)
    })
}

/// Would our king be safe after moving `from` → `to`? Out of check, most
/// moves are decided by a pin test; in check, and for the king, by looking
/// for attackers after the move (which also finds blocks and captures of
/// the checking piece).
fn leaves_king_safe(
    pos: &Chess,
    role: Role,
    from: Square,
    to: Square,
    king: Square,
    in_check: bool,
    captured_square: Bitboard,
) -> bool {
    let board = pos.board();
    let them = !pos.turn();
    if role != Role::King && !in_check {
        // Only a piece between the king and an enemy slider on the same
        // line can be pinned; without such a slider the move is safe.
        let line = attacks::ray(king, from);
        let sliders = if king.file() == from.file() || king.rank() == from.rank() {
            board.rooks_and_queens()
        } else {
            board.bishops_and_queens()
        };
        if (line & sliders & board.by_color(them) & !captured_square).is_empty() {
            return true;
        }
    }
    let after = (board.occupied() ^ Bitboard::from_square(from)) | captured_square;
    let target = if role == Role::King { to } else { king };
    (board.attacks_to(target, them, after) & !captured_square).is_empty()
}

/// Pawns promote exactly on the last rank, to a knight, bishop, rook or queen.
fn promotion_fits(role: Role, to: Square, turn: Color, promotion: Option<Role>) -> bool {
    let last_rank = to.rank() == relative(Rank::Eighth, turn);
    match (role, promotion) {
        (Role::Pawn, None) => !last_rank,
        (Role::Pawn, Some(p)) => {
            last_rank && matches!(p, Role::Knight | Role::Bishop | Role::Rook | Role::Queen)
        }
        (_, p) => p.is_none(),
    }
}

/// Squares a pawn of `turn` could push to `to` from: one step back, or two
/// from its start rank over an empty square.
fn pawn_push_origins(occupied: Bitboard, to: Square, turn: Color) -> Bitboard {
    let back = if turn == Color::White { -8 } else { 8 };
    let Some(one) = to.offset(back) else {
        return Bitboard::EMPTY;
    };
    if occupied.contains(one) {
        return Bitboard::from_square(one);
    }
    match to.offset(2 * back) {
        Some(two) if to.rank() == relative(Rank::Fourth, turn) => Bitboard::from_square(two),
        _ => Bitboard::EMPTY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::SanPlus;
    use shakmaty::{CastlingMode, fen::Fen};

    /// Every legal move of `pos`, written as SAN and parsed back: the fast
    /// path must find the same move shakmaty finds, or defer.
    fn agrees_on_all_moves(pos: &Chess) {
        for m in pos.legal_moves() {
            let san = San::from_move(pos, m);
            if let Some(fast) = resolve_fast(pos, &san) {
                assert_eq!(
                    Ok(fast),
                    san.to_move(pos),
                    "{san} in {}",
                    Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
                );
            }
        }
    }

    #[test]
    fn agrees_with_shakmaty_on_tricky_positions() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // Pinned knight, two rooks that can reach the same square.
            "4k3/8/8/8/4r3/8/4N3/R3K2R w KQ - 0 1",
            // Promotions with and without capture.
            "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1",
            // Pinned pawn on a diagonal, double pushes.
            "4k3/8/8/b7/8/8/3P4/4K3 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ] {
            let pos: Chess = Fen::from_ascii(fen.as_bytes())
                .ok()
                .and_then(|f| f.into_position(CastlingMode::Standard).ok())
                .unwrap_or_else(|| panic!("bad test FEN {fen}"));
            agrees_on_all_moves(&pos);
        }
    }

    #[test]
    fn agrees_with_shakmaty_along_random_games() {
        crate::replay::random_walk(0x2545_f491_4f6c_dd1d, 150, 200, agrees_on_all_moves);
    }

    #[test]
    fn never_accepts_what_shakmaty_rejects() {
        use shakmaty::Square;
        crate::replay::random_walk(0x5555_aaaa_1234_8765, 30, 100, |pos| {
            for role in [
                Role::Pawn,
                Role::Knight,
                Role::Bishop,
                Role::Rook,
                Role::Queen,
                Role::King,
            ] {
                for to in Square::ALL {
                    for capture in [false, true] {
                        let san = San::Normal {
                            role,
                            file: None,
                            rank: None,
                            capture,
                            to,
                            promotion: None,
                        };
                        if let Some(fast) = resolve_fast(pos, &san) {
                            assert_eq!(Ok(fast), san.to_move(pos), "{san}");
                        }
                    }
                }
            }
        });
    }

    #[test]
    fn quick_yes_is_never_wrong() {
        let mut yes = 0;
        crate::replay::random_walk(0x0bad_cafe_dead_beef, 100, 200, |pos| {
            if surely_has_legal_move(pos) {
                yes += 1;
                assert!(!pos.legal_moves().is_empty());
            }
        });
        assert!(yes > 1000, "the quick answer should usually be available");
        for fen in [
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "k7/P7/K7/8/8/8/8/8 b - - 0 1",
        ] {
            let pos: Chess = Fen::from_ascii(fen.as_bytes())
                .ok()
                .and_then(|f| f.into_position(CastlingMode::Standard).ok())
                .unwrap_or_else(|| panic!("{fen}"));
            assert!(!surely_has_legal_move(&pos), "{fen}");
        }
    }

    #[test]
    fn defers_instead_of_guessing() {
        let pos = Chess::default();
        for text in ["e5", "Nf4", "Ke2", "exd4", "Nd2", "Bb5"] {
            let san = SanPlus::from_ascii(text.as_bytes()).map(|s| s.san);
            assert_eq!(
                san.ok().and_then(|s| resolve_fast(&pos, &s)),
                None,
                "{text}"
            );
        }
    }
}
