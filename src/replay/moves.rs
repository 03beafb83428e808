//! Replay stage, per-move facts: each mainline ply of a replayed game as the
//! moves table sees it (SAN as regenerated, UCI, piece, capture, check,
//! promotion, material after the move), for `import --moves`. Only games
//! that replayed are walked again, so this never meets an illegal move.

use shakmaty::san::{SanPlus, Suffix};
use shakmaty::uci::UciMove;
use shakmaty::variant::VariantPosition;
use shakmaty::{CastlingMode, Color, Move, Position, Role};

use crate::replay::material::PieceValues;
use crate::replay::variant::material_of;

/// One mainline move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveFacts {
    /// 1-based.
    pub ply: u32,
    /// The move number as PGN writes it (`12` for `12.` and `12...`).
    pub move_number: u32,
    pub mover: Color,
    pub san: SanPlus,
    pub uci: UciMove,
    pub piece: Role,
    pub is_capture: bool,
    pub promotion: Option<Role>,
    /// White − black in `piece_values` after the move.
    pub material_diff: i32,
}

impl MoveFacts {
    pub(crate) fn is_check(&self) -> bool {
        self.san.suffix.is_some()
    }

    pub(crate) fn is_checkmate(&self) -> bool {
        self.san.suffix == Some(Suffix::Checkmate)
    }
}

/// Walks `moves` (a game that replayed) from `start`, handing each move's
/// facts to `each`.
pub(crate) fn for_each_move(
    start: &VariantPosition,
    moves: &[Move],
    chess960: bool,
    values: &PieceValues,
    each: impl FnMut(MoveFacts),
) {
    let mode = CastlingMode::from_chess960(chess960);
    match start {
        // Standard chess on its own (faster) position, the material from
        // the captures.
        VariantPosition::Chess(chess) => walk(chess.clone(), moves, mode, values, false, each),
        // Variants: the material counted on the position after each move
        // (explosions, pieces in hand).
        variant => walk(variant.clone(), moves, mode, values, true, each),
    }
}

/// [`for_each_move`] on one kind of position.
fn walk<P: Position>(
    mut pos: P,
    moves: &[Move],
    mode: CastlingMode,
    values: &PieceValues,
    recount: bool,
    mut each: impl FnMut(MoveFacts),
) {
    let mut material = material_of(&pos);
    for (index, &m) in moves.iter().enumerate() {
        let mover = pos.turn();
        let move_number = pos.fullmoves().get();
        if !recount {
            material.play(&m, mover);
        }
        let uci = m.to_uci(mode);
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
        if recount {
            material = material_of(&pos);
        }
        each(MoveFacts {
            ply: u32::try_from(index + 1).unwrap_or(u32::MAX),
            move_number,
            mover,
            uci,
            piece: m.role(),
            is_capture: m.is_capture(),
            promotion: m.promotion(),
            material_diff: material.diff(values),
            san,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{Replayer, setup};

    fn facts_of(sans: &str) -> Vec<MoveFacts> {
        let sans: Vec<SanPlus> = sans
            .split_whitespace()
            .map(|s| s.parse().expect("test SAN"))
            .collect();
        let mut replayer = Replayer::default();
        let start = setup(None, None).expect("standard start");
        let pos = start.pos.clone();
        replayer.replay(start, &sans).expect("legal test game");
        let mut out = Vec::new();
        for_each_move(
            &pos,
            replayer.moves(),
            false,
            &PieceValues::default(),
            |f| out.push(f),
        );
        out
    }

    #[test]
    fn facts_of_each_ply() {
        let facts = facts_of("e4 d5 exd5 Qxd5 Nc3 Qe5+ Be2 Qxe2+ Ncxe2");
        let row = |i: usize| facts.get(i).copied().expect("ply");
        assert_eq!(facts.len(), 9);
        assert_eq!(row(0).uci.to_string(), "e2e4");
        assert_eq!(
            (row(1).ply, row(1).move_number, row(1).mover),
            (2, 1, Color::Black)
        );
        assert_eq!(
            (row(2).san.to_string(), row(2).is_capture),
            ("exd5".into(), true)
        );
        assert_eq!(row(2).material_diff, 1);
        assert_eq!(row(3).material_diff, 0);
        assert_eq!(
            (row(5).san.to_string(), row(5).is_check()),
            ("Qe5+".into(), true)
        );
        assert_eq!((row(5).piece, row(5).move_number), (Role::Queen, 3));
        assert_eq!(row(7).material_diff, -3);
        assert_eq!(
            (row(8).san.to_string(), row(8).material_diff),
            ("Ncxe2".into(), 6)
        );
    }

    #[test]
    fn promotions_and_mates() {
        let facts = facts_of("f3 e5 g4 Qh4#");
        let mate = facts.last().copied().expect("ply");
        assert!(mate.is_checkmate());
        assert_eq!(mate.san.to_string(), "Qh4#");
        let facts = facts_of("h4 g5 hxg5 h6 gxh6 Nf6 h7 Ng8 hxg8=Q");
        let promotion = facts.last().copied().expect("ply");
        assert_eq!(promotion.promotion, Some(Role::Queen));
        assert_eq!(promotion.uci.to_string(), "h7g8q");
        assert_eq!(promotion.material_diff, 2 + 3 + 8);
    }
}
