//! Replay stage, unwinnability without search: pawns that can never move
//! again wall the board off, and a flood fill around those walls shows every
//! square each unit can ever stand on or attack. When none of the winner's
//! units can ever check the loser's king wherever it may walk, or only
//! bishops of one colour can and every such check leaves the king a square
//! of the other colour that nothing can cover, the position is dead for the
//! winner (the "semi-static" idea of CHA, Ambrona's unwinnability analyzer).
//!
//! Walls are pawns locked head to head (or against a king walled in on its
//! square, like a king in the corner behind an enemy pawn) and pairs of
//! pawns still closing on each other (their stretch of file nobody else
//! enters); pawns capture
//! only where an enemy unit other than the king may ever stand, so pawns
//! that meet only pawns of their own file never leave it.
//!
//! Every set here over-approximates what can happen (other units never
//! block), so a dead verdict is a proof; the walls and the capture squares
//! are the assumptions, and they are checked against those
//! over-approximations until all of them hold together (then the first
//! move to break one would have had to break it while all others held,
//! which the sets rule out).

use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use shakmaty::{Bitboard, Board, ByColor, Chess, Color, EnPassantMode, Position, Role, Square};

/// Proven: `winner` can never checkmate from `pos`, whatever both sides
/// play. False means "not proven", never "winnable".
pub(super) fn is_dead_for(pos: &Chess, winner: Color) -> bool {
    // An en passant capture available now is a pawn move the walls below
    // cannot see coming.
    if pos.ep_square(EnPassantMode::Legal).is_some() {
        return false;
    }
    let board = pos.board();
    let locks = locked_pawns(board);
    if locks.is_empty() {
        // Without walls every unit roams the whole board: nothing to prove
        // beyond what the material rule already says.
        return false;
    }
    let attacker = Reach::of(board, winner, &locks);
    let defender = Reach::of(board, !winner, &locks);
    let region = defender.king;
    if !attacker.checks.intersects(region) {
        return true;
    }
    bishops_alone_cannot_mate(board, winner, &locks, &attacker, &defender)
}

/// The pawns that wall the board off, found as the largest set that is
/// consistent with itself. Fixed pawns never move again: each is blocked by
/// another such pawn, no enemy unit can ever stand where it could capture,
/// and none can ever capture it. Closing pairs (see `Closing`) may still
/// step toward each other. Start from every pawn with a pawn in front and
/// every closing pair, drop those the reach of the other units (with the
/// rest as walls) contradicts, until nothing changes.
fn locked_pawns(board: &Board) -> Locks {
    let mut locks = Locks {
        fixed: blocked_in_front(board, board.pawns(), board.kings()),
        closing: closing_pairs(board),
        capturable: ByColor::new_with(|_| Bitboard::FULL),
        held_kings: board.kings(),
    };
    for _ in 0..MAX_ROUNDS {
        if locks.is_empty() {
            return locks;
        }
        let white = Reach::of(board, Color::White, &locks);
        let black = Reach::of(board, Color::Black, &locks);
        let capturable = ByColor {
            white: locks.standing(board, Color::Black, &black),
            black: locks.standing(board, Color::White, &white),
        };
        // Narrow where pawns capture first: a lock dropped on a looser
        // reach never comes back.
        if capturable != locks.capturable {
            locks.capturable = capturable;
            continue;
        }
        let kept = locks
            .fixed
            .into_iter()
            .filter(|&sq| match board.color_at(sq) {
                Some(Color::White) => stays(board, sq, Color::White, &black, &locks),
                Some(Color::Black) => stays(board, sq, Color::Black, &white, &locks),
                None => false,
            })
            .collect::<Bitboard>();
        let closing: Vec<Closing> = locks
            .closing
            .iter()
            .filter(|pair| pair.holds(board, &white, &black, &locks))
            .copied()
            .collect();
        let held_kings = held(board, Color::White, &white) | held(board, Color::Black, &black);
        let fixed = blocked_in_front(board, kept, held_kings);
        // Unchanged: every assumption holds given all the others, so the
        // first move that broke one would have had to break it alone.
        if fixed == locks.fixed && closing == locks.closing && held_kings == locks.held_kings {
            return locks;
        }
        locks.fixed = fixed;
        locks.closing = closing;
        locks.held_kings = held_kings;
    }
    Locks::none()
}

/// Rounds before `locked_pawns` gives up (none proven); measured, a
/// handful suffices.
const MAX_ROUNDS: usize = 32;

/// Pawns that wall the board off.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Locks {
    /// Pawns that never move again.
    fixed: Bitboard,
    /// Pairs of pawns that may only step toward each other.
    closing: Vec<Closing>,
    /// Squares where each side's pawns may ever capture: where the enemy's
    /// units other than the king may ever stand. A pawn that can never
    /// leave its file is as good as a wall for the other files.
    capturable: ByColor<Bitboard>,
    /// Kings that can never leave their square: a pawn they stand in front
    /// of is blocked for good.
    held_kings: Bitboard,
}

impl Locks {
    fn none() -> Locks {
        Locks {
            fixed: Bitboard::EMPTY,
            closing: Vec::new(),
            capturable: ByColor::new_with(|_| Bitboard::FULL),
            held_kings: Bitboard::EMPTY,
        }
    }

    /// Squares the units of `color` other than the king may ever stand on,
    /// `reach` being theirs.
    fn standing(&self, board: &Board, color: Color, reach: &Reach) -> Bitboard {
        reach.occupiable | (self.fixed & board.by_color(color)) | self.closing_range(color)
    }

    fn is_empty(&self) -> bool {
        self.fixed.is_empty() && self.closing.is_empty()
    }

    /// Squares no other unit ever stands on nor passes through.
    fn walls(&self) -> Bitboard {
        self.closing
            .iter()
            .fold(self.fixed, |acc, pair| acc | pair.segment)
    }

    /// Squares the pawns of `color` in closing pairs may ever stand on.
    fn closing_range(&self, color: Color) -> Bitboard {
        self.closing
            .iter()
            .fold(Bitboard::EMPTY, |acc, pair| acc | pair.range(color))
    }

    /// Squares the pawns of `color` in closing pairs may ever attack.
    fn closing_attacks(&self, color: Color) -> Bitboard {
        self.closing
            .iter()
            .fold(Bitboard::EMPTY, |acc, pair| acc | pair.attacks(color))
    }
}

/// A white pawn below a black one on the same file, only empty squares
/// between them: while no other unit can ever enter those squares and
/// neither pawn can ever capture, the two only step toward each other until
/// they lock, so the whole stretch is a wall, like a locked pair, though
/// the pawns in it may still move (CHA's vectors have many such pawns, one
/// or two steps from their lock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Closing {
    white: Square,
    black: Square,
    /// Every square from one pawn to the other, both included.
    segment: Bitboard,
}

impl Closing {
    /// Squares the pawn of `color` may stand on: the stretch, short of the
    /// other pawn's square.
    fn range(&self, color: Color) -> Bitboard {
        let other = match color {
            Color::White => self.black,
            Color::Black => self.white,
        };
        self.segment.without(other)
    }

    fn attacks(&self, color: Color) -> Bitboard {
        self.range(color)
            .into_iter()
            .fold(Bitboard::EMPTY, |acc, sq| acc | pawn_attacks(color, sq))
    }

    /// Nothing can ever enter the stretch (capturing a pawn in it, or
    /// standing between them), and neither pawn can ever capture: no enemy
    /// unit, fixed pawn or closing pawn can ever stand where it attacks.
    fn holds(&self, board: &Board, white: &Reach, black: &Reach, locks: &Locks) -> bool {
        let entered = white.occupiable | white.king | black.occupiable | black.king;
        let captures = |color: Color, enemy: &Reach| {
            // Not the enemy king: a pawn never captures it, and a closing
            // pawn's checks (the king may step next to it) change nothing.
            let targets = enemy.occupiable
                | (locks.fixed & board.by_color(!color))
                | locks.closing_range(!color);
            self.attacks(color).intersects(targets)
        };
        !self.segment.intersects(entered)
            && !captures(Color::White, black)
            && !captures(Color::Black, white)
    }
}

/// Every white pawn with a black pawn above it on its file and only empty
/// squares (one at least) between them.
fn closing_pairs(board: &Board) -> Vec<Closing> {
    let mut pairs = Vec::new();
    for white in board.pawns() & board.white() {
        let mut segment = Bitboard::from_square(white);
        let mut sq = white;
        while let Some(up) = sq.offset(8) {
            segment.add(up);
            if board.occupied().contains(up) {
                let black_pawn = (board.pawns() & board.black()).contains(up);
                let gap = segment.count() > 2;
                if black_pawn && gap {
                    pairs.push(Closing {
                        white,
                        black: up,
                        segment,
                    });
                }
                break;
            }
            sq = up;
        }
    }
    pairs
}

/// The pawns of `candidates` whose square ahead holds a pawn of
/// `candidates` or a king of `held_kings` (a king walled in on its square,
/// often by the very pawn it blocks, as in a corner behind its own pawn).
fn blocked_in_front(board: &Board, candidates: Bitboard, held_kings: Bitboard) -> Bitboard {
    let ahead = candidates | held_kings;
    let white = board.white() & candidates & ahead.shift(-8);
    let black = board.black() & candidates & ahead.shift(8);
    white | black
}

/// The king of `color` as a wall: `reach` (its side's) shows it can never
/// leave its square.
fn held(board: &Board, color: Color, reach: &Reach) -> Bitboard {
    match board.king_of(color) {
        Some(sq) if reach.king == Bitboard::from_square(sq) => reach.king,
        _ => Bitboard::EMPTY,
    }
}

/// The fixed pawn of `color` on `sq` keeps its square: the enemy can never
/// stand where it captures nor step onto it.
fn stays(board: &Board, sq: Square, color: Color, enemy: &Reach, locks: &Locks) -> bool {
    let enemy_pawns = locks.fixed & board.by_color(!color) | locks.closing_range(!color);
    let targets = enemy.occupiable | enemy.king | enemy_pawns;
    !pawn_attacks(color, sq).intersects(targets)
        && !enemy.occupiable.contains(sq)
        && !enemy.king.contains(sq)
}

/// What the units of one side can ever do, with the fixed pawns as walls.
struct Reach {
    /// Squares the king can ever stand on.
    king: Bitboard,
    /// Squares some other unit (promoted ones included) can ever stand on.
    occupiable: Bitboard,
    /// Squares some unit other than the king can ever attack.
    checks: Bitboard,
    /// The part of `checks` that units other than bishops attack.
    checks_without_bishops: Bitboard,
    /// A pawn of this side may promote.
    promotes: bool,
}

impl Reach {
    fn of(board: &Board, color: Color, locks: &Locks) -> Reach {
        let ours = board.by_color(color);
        let walls = Walls::new(board, color, locks);
        let fixed = locks.walls();
        let king = board
            .king_of(color)
            .map_or(Bitboard::EMPTY, |sq| walls.king_flood(sq));
        let movable = ours & !fixed;
        let knights = walls.flood(movable & board.knights(), Role::Knight);
        let bishops = walls.flood(movable & board.bishops(), Role::Bishop);
        let rooks = walls.flood(movable & board.rooks(), Role::Rook);
        let queens = walls.flood(movable & board.queens(), Role::Queen);
        let pawns = walls.pawn_flood(movable & board.pawns());
        let promotion_squares =
            pawns & Bitboard::from_rank(color.relative_rank(shakmaty::Rank::Eighth));
        let promotes = promotion_squares.any();
        let (promoted, promoted_checks) = if promotes {
            let promoted = walls.flood(promotion_squares, Role::Queen)
                | walls.flood(promotion_squares, Role::Knight);
            (promoted, Bitboard::FULL)
        } else {
            (Bitboard::EMPTY, Bitboard::EMPTY)
        };
        let fixed_pawn_checks = (locks.fixed & ours)
            .into_iter()
            .fold(locks.closing_attacks(color), |acc, sq| {
                acc | pawn_attacks(color, sq)
            });
        let checks_without_bishops = walls.attacks(knights, Role::Knight)
            | walls.attacks(rooks, Role::Rook)
            | walls.attacks(queens, Role::Queen)
            | walls.pawn_attacks(pawns)
            | fixed_pawn_checks
            | promoted_checks;
        Reach {
            king,
            occupiable: knights | bishops | rooks | queens | pawns | promoted,
            checks: checks_without_bishops | walls.attacks(bishops, Role::Bishop),
            checks_without_bishops,
            promotes,
        }
    }
}

/// The locked pawns seen from one side: its own fixed pawns cannot be
/// entered, the enemy's can (a capture) but not passed, the stretches of
/// closing pairs can be entered (which disproves them) but not passed, and
/// its king never stands where an enemy fixed pawn attacks.
struct Walls {
    color: Color,
    /// Fixed pawns and closing stretches: nothing passes them.
    fixed: Bitboard,
    /// Fixed pawns only: they also stop a pawn's step forward.
    pawns: Bitboard,
    /// Where this side's pawns may capture.
    capturable: Bitboard,
    enterable: Bitboard,
    king_enterable: Bitboard,
}

impl Walls {
    fn new(board: &Board, color: Color, locks: &Locks) -> Walls {
        let enterable = !(locks.fixed & board.by_color(color));
        let enemy_pawn_attacks = (locks.fixed & board.by_color(!color))
            .into_iter()
            .fold(Bitboard::EMPTY, |acc, sq| acc | pawn_attacks(!color, sq));
        // A king that never moves guards its neighbours for good too.
        let held_enemy_king = (locks.held_kings & board.by_color(!color))
            .into_iter()
            .fold(Bitboard::EMPTY, |acc, sq| acc | king_attacks(sq));
        Walls {
            color,
            fixed: locks.walls(),
            pawns: locks.fixed,
            capturable: *locks.capturable.get(color),
            enterable,
            king_enterable: enterable & !enemy_pawn_attacks & !held_enemy_king,
        }
    }

    /// Squares a piece of `role` reaches from `start`, one move at a time.
    fn flood(&self, start: Bitboard, role: Role) -> Bitboard {
        self.spread(start, self.enterable, |sq| self.moves(sq, role))
    }

    fn king_flood(&self, start: Square) -> Bitboard {
        self.spread(
            Bitboard::from_square(start),
            self.king_enterable,
            king_attacks,
        )
    }

    /// Pawns step forward onto empty squares (a fixed pawn stops them, a
    /// closing stretch is entered, which disproves it) and diagonally onto
    /// anything but their own walls (a capture).
    fn pawn_flood(&self, start: Bitboard) -> Bitboard {
        let forward = match self.color {
            Color::White => 8,
            Color::Black => -8,
        };
        let fixed = self.pawns;
        let color = self.color;
        let capturable = self.capturable;
        self.spread(start, self.enterable, |sq| {
            Bitboard::from_square(sq).shift(forward) & !fixed | pawn_attacks(color, sq) & capturable
        })
    }

    /// Breadth-first closure of `start` under `step`, never continuing from
    /// a wall (a unit that captured a fixed pawn disproves the walls anyway).
    fn spread(
        &self,
        start: Bitboard,
        enterable: Bitboard,
        step: impl Fn(Square) -> Bitboard,
    ) -> Bitboard {
        let mut reached = start;
        let mut frontier = start;
        while frontier.any() {
            let next = (frontier & !self.fixed)
                .into_iter()
                .fold(Bitboard::EMPTY, |acc, sq| acc | step(sq));
            frontier = next & enterable & !reached;
            reached |= frontier;
        }
        reached
    }

    fn moves(&self, sq: Square, role: Role) -> Bitboard {
        match role {
            Role::Knight => knight_attacks(sq),
            Role::Bishop => bishop_attacks(sq, self.fixed),
            Role::Rook => rook_attacks(sq, self.fixed),
            Role::Queen => bishop_attacks(sq, self.fixed) | rook_attacks(sq, self.fixed),
            Role::King => king_attacks(sq),
            Role::Pawn => pawn_attacks(self.color, sq),
        }
    }

    /// Every square a piece of `role` attacks from some square of `from`.
    fn attacks(&self, from: Bitboard, role: Role) -> Bitboard {
        (from & !self.fixed)
            .into_iter()
            .fold(Bitboard::EMPTY, |acc, sq| acc | self.moves(sq, role))
    }

    fn pawn_attacks(&self, from: Bitboard) -> Bitboard {
        self.attacks(from, Role::Pawn)
    }
}

/// Only bishops of one colour can ever check the loser's king: a mate on a
/// square `s` then needs every neighbour of `s` of the other colour that the
/// king could step to be held by a loser's unit or covered by the winner's
/// king (nothing else of the winner's ever attacks the king's region). True
/// when no square of the region allows that.
fn bishops_alone_cannot_mate(
    board: &Board,
    winner: Color,
    locks: &Locks,
    attacker: &Reach,
    defender: &Reach,
) -> bool {
    let region = defender.king;
    if attacker.promotes || defender.promotes || attacker.checks_without_bishops.intersects(region)
    {
        return false;
    }
    let checked = attacker.checks & region;
    let other_colour = if checked.is_subset(Bitboard::LIGHT_SQUARES) {
        Bitboard::DARK_SQUARES
    } else if checked.is_subset(Bitboard::DARK_SQUARES) {
        Bitboard::LIGHT_SQUARES
    } else {
        return false;
    };
    let covered_by_king = attacker
        .king
        .into_iter()
        .fold(Bitboard::EMPTY, |acc, sq| acc | king_attacks(sq));
    let blockers = unit_reaches(board, !winner, locks);
    checked.into_iter().all(|s| {
        let escapes = king_attacks(s) & region & other_colour & !covered_by_king;
        escapes.any() && !can_be_filled(escapes, &blockers)
    })
}

/// The squares each movable non-king unit of `color` can ever stand on.
fn unit_reaches(board: &Board, color: Color, locks: &Locks) -> Vec<Bitboard> {
    let walls = Walls::new(board, color, locks);
    let units = board.by_color(color) & !locks.walls() & !board.kings();
    units
        .into_iter()
        .map(|sq| {
            let start = Bitboard::from_square(sq);
            match board.role_at(sq) {
                Some(Role::Pawn) => walls.pawn_flood(start),
                Some(role) => walls.flood(start, role),
                None => Bitboard::EMPTY,
            }
        })
        .collect()
}

/// Each square of `squares` could hold its own unit (a necessary condition
/// only: every square has a candidate, and there are enough candidates).
fn can_be_filled(squares: Bitboard, units: &[Bitboard]) -> bool {
    let candidates = units.iter().filter(|r| r.intersects(squares)).count();
    squares
        .into_iter()
        .all(|sq| units.iter().any(|r| r.contains(sq)))
        && candidates >= squares.count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Chess {
        crate::replay::test_position(fen)
    }

    fn dead_for_both(fen: &str) -> bool {
        let pos = position(fen);
        is_dead_for(&pos, Color::White) && is_dead_for(&pos, Color::Black)
    }

    #[test]
    fn pawns_closing_on_each_other_wall_the_board() {
        // a4 and a6 are a step from their lock, a5 out of every unit's
        // reach (CHA's vectors).
        let fen = "k7/1p6/pPp5/2P1p3/Pp1pP1p1/1P1P2P1/8/3K4 w - - 0 1";
        assert!(dead_for_both(fen), "{fen}");
        let locks = locked_pawns(position(fen).board());
        assert!(locks.closing.iter().any(|pair| pair.white == Square::A4));
    }

    #[test]
    fn a_closing_pair_a_unit_can_step_between_is_no_wall() {
        // As above, with a knight that can jump to a5.
        let fen = "k7/1p6/pPp5/2P1p3/Pp1pP1p1/1P1P2P1/8/3K2N1 w - - 0 1";
        let pos = position(fen);
        assert!(!is_dead_for(&pos, Color::White), "{fen}");
        assert!(locked_pawns(pos.board()).closing.is_empty());
    }

    #[test]
    fn pawns_confined_to_their_files_capture_nothing() {
        // Only kings and pawns: a pawn could only ever capture a pawn that
        // left its file, which none can do first, so the chains hold.
        for fen in [
            "8/2p5/7p/k1p2p1P/1pP2Pp1/1P1K2P1/8/8 b - - 0 1",
            "8/8/5pk1/p6p/P1p2p1P/2P2P2/4K3/8 w - - 0 1",
            "3k4/p2p2p1/P2P2P1/8/8/P2P4/P2P2P1/3K4 w - - 0 1",
        ] {
            assert!(dead_for_both(fen), "{fen}");
        }
        let pos = position("3k4/p2p2p1/P2P2P1/8/8/P2P4/P2P2P1/3K4 w - - 0 1");
        let locks = locked_pawns(pos.board());
        assert!(
            locks
                .capturable
                .white
                .is_disjoint(Bitboard::from_file(shakmaty::File::B))
        );
    }

    #[test]
    fn a_piece_pawns_can_capture_breaks_the_confinement() {
        // As above, with a black knight the white pawns may capture, then
        // leave their files.
        let fen = "3k4/p2p2p1/P2P2P1/8/8/P2P4/P2P2P1/3K3n w - - 0 1";
        assert!(!dead_for_both(fen), "{fen}");
    }

    #[test]
    fn a_king_walled_in_behind_an_enemy_pawn_blocks_it_for_good() {
        // The white king never leaves a1 (a2 is guarded by b3, b1 by a2,
        // b2 is its own pawn), so a2 never moves, and Black's light
        // bishops never check a1. White can still mate (Kh8, Bg8, Bh7,
        // Bf6), which the static stage must not deny.
        let pos = position("k7/1b6/2b5/8/8/1pB5/pP6/K7 w - - 0 1");
        assert!(is_dead_for(&pos, Color::Black));
        assert!(!is_dead_for(&pos, Color::White));
    }

    #[test]
    fn a_king_that_can_take_the_pawn_in_front_is_not_walled_in() {
        // Without b3 nothing guards a2: the king takes it and walks out.
        let pos = position("k7/1b6/2b5/8/8/2B5/pP6/K7 w - - 0 1");
        assert!(!is_dead_for(&pos, Color::Black));
        assert!(locked_pawns(pos.board()).held_kings.is_empty());
    }
}
