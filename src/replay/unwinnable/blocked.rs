//! Replay stage, unwinnability without search: pawns that can never move
//! again wall the board off, and a flood fill around those walls shows every
//! square each unit can ever stand on or attack. When none of the winner's
//! units can ever check the loser's king wherever it may walk, or only
//! bishops of one colour can and every such check leaves the king a square
//! of the other colour that nothing can cover, the position is dead for the
//! winner (the "semi-static" idea of CHA, Ambrona's unwinnability analyzer).
//!
//! Every set here over-approximates what can happen (other units never
//! block, captures are always possible), so a dead verdict is a proof; the
//! fixed pawns are the one assumption, and they are checked against those
//! over-approximations until the assumption holds for all of them.

use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use shakmaty::{Bitboard, Board, Chess, Color, EnPassantMode, Position, Role, Square};

/// Proven: `winner` can never checkmate from `pos`, whatever both sides
/// play. False means "not proven", never "winnable".
pub(super) fn is_dead_for(pos: &Chess, winner: Color) -> bool {
    // An en passant capture available now is a pawn move the walls below
    // cannot see coming.
    if pos.ep_square(EnPassantMode::Legal).is_some() {
        return false;
    }
    let board = pos.board();
    let fixed = fixed_pawns(board);
    if fixed.is_empty() {
        // Without walls every unit roams the whole board: nothing to prove
        // beyond what the material rule already says.
        return false;
    }
    let attacker = Reach::of(board, winner, fixed);
    let defender = Reach::of(board, !winner, fixed);
    let region = defender.king;
    if !attacker.checks.intersects(region) {
        return true;
    }
    bishops_alone_cannot_mate(board, winner, fixed, &attacker, &defender)
}

/// The pawns that can never move again: each is blocked by another such
/// pawn, no enemy unit can ever stand where it could capture, and none can
/// ever capture it. Found as the largest set that is consistent with itself:
/// start from every pawn with a pawn in front, drop those the reach of the
/// other units (with the rest as walls) contradicts, until nothing changes.
pub(super) fn fixed_pawns(board: &Board) -> Bitboard {
    let mut fixed = blocked_in_front(board, board.pawns());
    while fixed.any() {
        let white = Reach::of(board, Color::White, fixed);
        let black = Reach::of(board, Color::Black, fixed);
        let kept = fixed
            .into_iter()
            .filter(|&sq| match board.color_at(sq) {
                Some(Color::White) => stays(board, sq, Color::White, &black, fixed),
                Some(Color::Black) => stays(board, sq, Color::Black, &white, fixed),
                None => false,
            })
            .collect::<Bitboard>();
        let kept = blocked_in_front(board, kept);
        if kept == fixed {
            break;
        }
        fixed = kept;
    }
    fixed
}

/// The pawns of `candidates` whose square ahead holds a pawn of `candidates`.
fn blocked_in_front(board: &Board, candidates: Bitboard) -> Bitboard {
    let white = board.white() & candidates & candidates.shift(-8);
    let black = board.black() & candidates & candidates.shift(8);
    white | black
}

/// The fixed pawn of `color` on `sq` keeps its square: the enemy can never
/// stand where it captures nor step onto it.
fn stays(board: &Board, sq: Square, color: Color, enemy: &Reach, fixed: Bitboard) -> bool {
    let enemy_fixed = fixed & board.by_color(!color);
    let targets = enemy.occupiable | enemy.king | enemy_fixed;
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
    fn of(board: &Board, color: Color, fixed: Bitboard) -> Reach {
        let ours = board.by_color(color);
        let walls = Walls::new(board, color, fixed);
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
        let fixed_pawn_checks = (fixed & ours)
            .into_iter()
            .fold(Bitboard::EMPTY, |acc, sq| acc | pawn_attacks(color, sq));
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

/// The fixed pawns seen from one side: its own cannot be entered, the
/// enemy's can (a capture) but not passed, and its king never stands where
/// an enemy fixed pawn attacks.
struct Walls {
    color: Color,
    fixed: Bitboard,
    enterable: Bitboard,
    king_enterable: Bitboard,
}

impl Walls {
    fn new(board: &Board, color: Color, fixed: Bitboard) -> Walls {
        let enterable = !(fixed & board.by_color(color));
        let enemy_pawn_attacks = (fixed & board.by_color(!color))
            .into_iter()
            .fold(Bitboard::EMPTY, |acc, sq| acc | pawn_attacks(!color, sq));
        Walls {
            color,
            fixed,
            enterable,
            king_enterable: enterable & !enemy_pawn_attacks,
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

    /// Pawns step forward onto empty squares (a wall stops them) and
    /// diagonally onto anything but their own walls (a capture).
    fn pawn_flood(&self, start: Bitboard) -> Bitboard {
        let forward = match self.color {
            Color::White => 8,
            Color::Black => -8,
        };
        let fixed = self.fixed;
        let color = self.color;
        self.spread(start, self.enterable, |sq| {
            Bitboard::from_square(sq).shift(forward) & !fixed | pawn_attacks(color, sq)
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
    fixed: Bitboard,
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
    let blockers = unit_reaches(board, !winner, fixed);
    checked.into_iter().all(|s| {
        let escapes = king_attacks(s) & region & other_colour & !covered_by_king;
        escapes.any() && !can_be_filled(escapes, &blockers)
    })
}

/// The squares each movable non-king unit of `color` can ever stand on.
fn unit_reaches(board: &Board, color: Color, fixed: Bitboard) -> Vec<Bitboard> {
    let walls = Walls::new(board, color, fixed);
    let units = board.by_color(color) & !fixed & !board.kings();
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
