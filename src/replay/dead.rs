//! Replay stage, dead positions: who can still checkmate in a game's final
//! position, and since which ply nobody could (FIDE 5.2.2 ends the game
//! there; 6.9 makes a flag fall a draw when the opponent cannot mate). The
//! verdicts come from [`super::unwinnable`]; this module decides which
//! positions of a game are worth asking, so that an import of millions of
//! games pays for the question only where the answer can be "dead".

use shakmaty::{Bitboard, ByColor, Chess, Color, Move, Position};

use super::EndState;
use super::unwinnable::{Verdict, can_mate};

/// Default `--unwinnable-nodes`: the search budget per side of each
/// position the cheap test flags. None: the static stage alone proves every
/// dead position of the corpus (27 on pgnmentor, the same as with 2,000
/// nodes) for +0.8 % instructions per game, while 2,000 nodes of search
/// cost 1.9 times the CPU and only add helpmates (`true` answers).
pub const DEFAULT_NODES: u64 = 0;

/// Per side, whether it can still checkmate: `Some(false)` proven
/// unwinnable, `Some(true)` a helpmate exists, `None` undetermined.
pub(crate) type CanMate = ByColor<Option<bool>>;

/// How many side-positions were answered which way, summed over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnwinnableCounts {
    /// A helpmate was found (or the final position is the side's mate).
    pub winnable: u64,
    /// Proven: the side cannot mate by any sequence of legal moves.
    pub unwinnable: u64,
    /// Asked, but the node budget ran out first.
    pub undetermined: u64,
    /// Not asked: the cheap test saw no sign that the side might be unable
    /// to mate (the column is null, as for `undetermined`).
    pub not_asked: u64,
}

impl UnwinnableCounts {
    /// Counts one game's two answers; `asked` says, per side, whether the
    /// procedure was run at all.
    pub(crate) fn add(&mut self, can_mate: CanMate, asked: ByColor<bool>) {
        for (answer, asked) in [(can_mate.white, asked.white), (can_mate.black, asked.black)] {
            match answer {
                Some(true) => self.winnable += 1,
                Some(false) => self.unwinnable += 1,
                None if asked => self.undetermined += 1,
                None => self.not_asked += 1,
            }
        }
    }
}

impl std::ops::AddAssign<&UnwinnableCounts> for UnwinnableCounts {
    fn add_assign(&mut self, other: &UnwinnableCounts) {
        self.winnable += other.winnable;
        self.unwinnable += other.unwinnable;
        self.undetermined += other.undetermined;
        self.not_asked += other.not_asked;
    }
}

/// What the final position says about both sides, and whether each was
/// asked (for the counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FinalVerdicts {
    pub can_mate: CanMate,
    pub asked: ByColor<bool>,
}

impl FinalVerdicts {
    /// Neither side can mate: the position is dead.
    pub(crate) fn dead(&self) -> bool {
        self.can_mate.white == Some(false) && self.can_mate.black == Some(false)
    }
}

/// Both sides' verdicts on the final position of a standard-rules game
/// that ended in `end_state`.
pub(crate) fn final_verdicts(pos: &Chess, end_state: EndState, nodes: u64) -> FinalVerdicts {
    let answered = |can_mate: CanMate| FinalVerdicts {
        can_mate,
        asked: ByColor::new_with(|_| true),
    };
    match end_state {
        EndState::Checkmate => {
            let winner = !pos.turn();
            answered(ByColor::new_with(|side| Some(side == winner)))
        }
        // No move is left to anyone: nobody mates.
        EndState::Stalemate => answered(ByColor::new_with(|_| Some(false))),
        _ => {
            let answers = ByColor::new_with(|side| side_answer(pos, side, nodes));
            FinalVerdicts {
                can_mate: answers.map(|(_, can_mate)| can_mate),
                asked: answers.map(|(asked, _)| asked),
            }
        }
    }
}

/// One side's verdict, and whether it was asked at all: the material rule
/// first (a few bitboard operations), then, when the cheap test flags the
/// position, the procedure.
fn side_answer(pos: &Chess, side: Color, nodes: u64) -> (bool, Option<bool>) {
    if pos.has_insufficient_material(side) {
        return (true, Some(false));
    }
    if !worth_asking(pos, side) {
        return (false, None);
    }
    let answer = match can_mate(pos, side, nodes) {
        Verdict::Winnable(_) => Some(true),
        Verdict::Unwinnable => Some(false),
        Verdict::Undetermined => None,
    };
    (true, answer)
}

/// The cheap test: could `side` be unable to mate in a way the material
/// rule does not see? Only when the pawn structure can hold pieces back:
/// there are pawns and none of them can advance (the square in front of
/// each is taken: an enemy pawn head to head, or a piece, as a king
/// cornered in front of a pawn), and `side` has no queen (with one, a dead
/// position needs a chain without a gap, which real games hardly ever
/// leave). Positions that fail it are not asked (null): this keeps the
/// question's cost on a whole import to a few bitboard operations per game.
pub(crate) fn worth_asking(pos: &Chess, side: Color) -> bool {
    let board = pos.board();
    let occupied = board.occupied();
    let white = board.pawns() & board.white();
    let black = board.pawns() & board.black();
    let white_fronts = Bitboard(white.0 << 8);
    let black_fronts = Bitboard(black.0 >> 8);
    !board.pawns().is_empty()
        && (white_fronts & !occupied).is_empty()
        && (black_fronts & !occupied).is_empty()
        && (board.queens() & board.by_color(side)).is_empty()
}

/// Whether `pos` is dead: neither side can mate, by the material rule or
/// proven by the procedure.
fn is_dead(pos: &Chess, nodes: u64) -> bool {
    [Color::White, Color::Black]
        .into_iter()
        .all(|side| side_answer(pos, side, nodes).1 == Some(false))
}

/// The first ply whose position was dead, for a game whose final position
/// (after `moves` from `start`) is, and which kind of dead position it was
/// there (insufficient material, or one only the procedure shows). Every
/// position reachable from a dead one is dead, so the plies split in two:
/// a binary search asks about log2(plies) of them. A position the budget
/// cannot settle counts as not dead, so the answer is the first ply found
/// dead, never one that was not.
pub(crate) fn first_dead(start: &Chess, moves: &[Move], nodes: u64) -> (u32, EndState) {
    let position_at = |ply: usize| {
        let mut pos = start.clone();
        for &m in moves.iter().take(ply) {
            pos.play_unchecked(m);
        }
        pos
    };
    // Invariant: dead at `high`; not shown dead at `low`.
    let (mut low, mut high) = (0usize, moves.len());
    if is_dead(start, nodes) {
        high = 0;
    }
    while high > low + 1 {
        let middle = low + (high - low) / 2;
        if is_dead(&position_at(middle), nodes) {
            high = middle;
        } else {
            low = middle;
        }
    }
    let kind = if position_at(high).is_insufficient_material() {
        EndState::InsufficientMaterial
    } else {
        EndState::DeadPosition
    };
    (u32::try_from(high).unwrap_or(u32::MAX), kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn position(fen: &str) -> Chess {
        crate::replay::test_position(fen)
    }

    #[test]
    fn the_cheap_test_asks_only_behind_locked_pawns() {
        // Locked pawns, bishops: worth asking for both.
        let locked = position("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1");
        assert!(worth_asking(&locked, Color::White));
        assert!(worth_asking(&locked, Color::Black));
        // A pawn that can still advance: not asked.
        let open = position("2b1k3/8/8/1p1p1p2/1P1P1P1P/8/8/2B1K3 w - - 0 1");
        assert!(!worth_asking(&open, Color::White));
        // The start position.
        assert!(!worth_asking(&Chess::default(), Color::White));
        // A pawn held by the king cornered in front of it.
        let cornered = position("7k/6pP/6P1/5K2/8/8/8/8 w - - 1 67");
        assert!(worth_asking(&cornered, Color::White));
        // No pawns: the material rule says all there is to say cheaply.
        assert!(!worth_asking(
            &position("8/8/8/4k3/8/8/3RK3/8 w - - 0 1"),
            Color::White
        ));
    }

    #[test]
    fn final_verdicts_of_ended_games() {
        let mate = position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        let v = final_verdicts(&mate, EndState::Checkmate, 0);
        assert_eq!(
            (v.can_mate.white, v.can_mate.black),
            (Some(false), Some(true))
        );
        let lone_king = position("8/8/8/4k3/8/8/8/4KQ2 w - - 0 1");
        let v = final_verdicts(&lone_king, EndState::None, 0);
        assert_eq!((v.can_mate.white, v.can_mate.black), (None, Some(false)));
        assert!(!v.dead());
        let mut counts = UnwinnableCounts::default();
        counts.add(v.can_mate, v.asked);
        assert_eq!((counts.unwinnable, counts.not_asked), (1, 1));
    }

    #[test]
    fn the_first_dead_ply_is_found_by_bisection() {
        // The rook takes the knight and the king takes the rook: bare
        // kings after ply 4, two more moves played.
        let start = position("8/8/8/4k3/3n4/8/8/4K2R w - - 0 1");
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for san in ["Rh4", "Kd5", "Rxd4+", "Kxd4", "Kd2", "Ke4"] {
            let m = san
                .parse::<San>()
                .ok()
                .and_then(|s| s.to_move(&pos).ok())
                .unwrap_or_else(|| panic!("{san}"));
            pos.play_unchecked(m);
            moves.push(m);
        }
        // Bare kings after 4 plies (…Kxd3).
        assert_eq!(
            first_dead(&start, &moves, 0),
            (4, EndState::InsufficientMaterial)
        );
    }
}
