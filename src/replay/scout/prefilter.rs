//! Replay stage, the search pre-filter: what a game's positions can hold,
//! summed up at import in 48 bytes (the games table's six
//! `squares_pawns`, `arrivals_*`, `material_*` and `imbalance_range`
//! columns), so that a
//! search replays only the games a query's conditions could match. Every
//! test here is a necessary condition: a game it rules out cannot match;
//! one it keeps may not.
//!
//! Pieces only stand on their start squares or on squares a move took
//! them to, so the squares each side ever occupied are its start squares
//! and its moves' arrivals; material changes only by captures, promotions
//! and drops, so its least and greatest counts come from the moves alone,
//! without a board.

#[cfg(test)]
use shakmaty::Square;
use shakmaty::{Bitboard, Board, ByColor, ByRole, CastlingSide, Color, Move, Role};

use super::query::Query;
use super::rules::{Imbalance, MaterialCount, Rule, ScoutMove};

/// The piece kinds whose counts are kept (a king is always one).
const COUNTED: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

/// What one side did over the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideFacts {
    /// Least and greatest count of each kind of `COUNTED`.
    pub min: [u8; 5],
    pub max: [u8; 5],
    /// Kinds this side captured (a bit per `COUNTED` kind).
    pub captured: u8,
    /// Castled king side (bit 0), queen side (bit 1).
    pub castled: u8,
}

impl SideFacts {
    /// Anything at all: for a variant whose material is not walked from
    /// the moves (explosions, pockets).
    const ANY: SideFacts = SideFacts {
        min: [0; 5],
        max: [15; 5],
        captured: 0b1_1111,
        castled: 0b11,
    };

    fn pack(&self) -> i64 {
        let mut bits = 0u64;
        for i in 0..5 {
            bits |= u64::from(self.min[i].min(15)) << (8 * i);
            bits |= u64::from(self.max[i].min(15)) << (8 * i + 4);
        }
        bits |= u64::from(self.captured & 0b1_1111) << 40;
        bits |= u64::from(self.castled & 0b11) << 45;
        bits as i64
    }

    fn unpack(value: i64) -> SideFacts {
        let bits = value as u64;
        let nibble = |shift: usize| ((bits >> shift) & 0xf) as u8;
        SideFacts {
            min: std::array::from_fn(|i| nibble(8 * i)),
            max: std::array::from_fn(|i| nibble(8 * i + 4)),
            captured: ((bits >> 40) & 0b1_1111) as u8,
            castled: ((bits >> 45) & 0b11) as u8,
        }
    }
}

/// A game's pre-filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prefilter {
    /// Squares a piece of each side stood on at some point.
    pub squares: ByColor<Bitboard>,
    /// Squares a pawn (of either side) stood on.
    pub pawns: Bitboard,
    /// Squares each side's moves went to.
    pub arrivals: ByColor<Bitboard>,
    pub sides: ByColor<SideFacts>,
    /// White's minus Black's pawns and non-pawn material (the `imbalance`
    /// rule's values): least and greatest over the game.
    pub pawn_diff: (i8, i8),
    pub non_pawn_diff: (i16, i16),
}

fn index(role: Role) -> Option<usize> {
    COUNTED.iter().position(|&r| r == role)
}

fn bit(role: Role) -> u8 {
    index(role).map_or(0, |i| 1 << i)
}

impl Prefilter {
    /// The pre-filter of the game of `moves` from `start` (`turn` to
    /// move); `walk_material`: its material changes by captures,
    /// promotions and drops alone (not so in atomic, or with pockets).
    pub fn of_game(start: &Board, turn: Color, moves: &[Move], walk_material: bool) -> Prefilter {
        let mut squares = ByColor::new_with(|c| start.by_color(c));
        let mut pawns = start.pawns();
        let mut arrivals = ByColor::<Bitboard>::default();
        let counts_of = |c: Color| {
            let m = start.material_side(c);
            COUNTED.map(|r| *m.get(r))
        };
        let mut counts = ByColor::new_with(counts_of);
        let mut sides = ByColor::new_with(|c| SideFacts {
            min: counts[c],
            max: counts[c],
            captured: 0,
            castled: 0,
        });
        let diffs = |counts: &ByColor<[u8; 5]>| {
            let material = ByColor::new_with(|c| {
                let mut m = ByRole::<u8>::default();
                for (i, role) in COUNTED.iter().enumerate() {
                    *m.get_mut(*role) = counts[c][i];
                }
                m
            });
            Imbalance::of(&material)
        };
        let first = diffs(&counts);
        let mut pawn_diff = (first.pawns, first.pawns);
        let mut non_pawn_diff = (first.non_pawn, first.non_pawn);
        let mut color = turn;
        for m in moves {
            let mut changed = false;
            match *m {
                Move::Castle { king, rook } => {
                    let side = CastlingSide::from_king_side(king < rook);
                    let to =
                        Bitboard::from(side.king_to(color)) | Bitboard::from(side.rook_to(color));
                    arrivals[color] |= to;
                    squares[color] |= to;
                    sides[color].castled |= match side {
                        CastlingSide::KingSide => 1,
                        CastlingSide::QueenSide => 2,
                    };
                }
                _ => {
                    let to = m.to();
                    arrivals[color].add(to);
                    squares[color].add(to);
                    let lands = m.promotion().unwrap_or(m.role());
                    if lands == Role::Pawn {
                        pawns.add(to);
                    }
                    if let Some(captured) = m.capture() {
                        sides[color].captured |= bit(captured);
                        if let Some(i) = index(captured) {
                            counts[!color][i] = counts[!color][i].saturating_sub(1);
                            changed = true;
                        }
                    }
                    if let Some(promoted) = m.promotion() {
                        counts[color][0] = counts[color][0].saturating_sub(1);
                        if let Some(i) = index(promoted) {
                            counts[color][i] = counts[color][i].saturating_add(1);
                        }
                        changed = true;
                    }
                    if let Move::Put { role, .. } = *m
                        && let Some(i) = index(role)
                    {
                        counts[color][i] = counts[color][i].saturating_add(1);
                        changed = true;
                    }
                }
            }
            if changed {
                for c in Color::ALL {
                    for i in 0..5 {
                        sides[c].min[i] = sides[c].min[i].min(counts[c][i]);
                        sides[c].max[i] = sides[c].max[i].max(counts[c][i]);
                    }
                }
                let d = diffs(&counts);
                pawn_diff = (pawn_diff.0.min(d.pawns), pawn_diff.1.max(d.pawns));
                non_pawn_diff = (
                    non_pawn_diff.0.min(d.non_pawn),
                    non_pawn_diff.1.max(d.non_pawn),
                );
            }
            color = !color;
        }
        let clamp8 = |v: i32| v.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8;
        let clamp16 = |v: i32| v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        let mut filter = Prefilter {
            squares,
            pawns,
            arrivals,
            sides,
            pawn_diff: (clamp8(pawn_diff.0), clamp8(pawn_diff.1)),
            non_pawn_diff: (clamp16(non_pawn_diff.0), clamp16(non_pawn_diff.1)),
        };
        if !walk_material {
            for c in Color::ALL {
                filter.sides[c] = SideFacts {
                    castled: filter.sides[c].castled | SideFacts::ANY.castled,
                    ..SideFacts::ANY
                };
            }
            filter.pawn_diff = (i8::MIN, i8::MAX);
            filter.non_pawn_diff = (i16::MIN, i16::MAX);
        }
        filter
    }

    /// The six column values, in the order of the games table's
    /// `squares_pawns`, `arrivals_white`, `arrivals_black`,
    /// `material_white`, `material_black`, `imbalance_range` (a
    /// bitboard's 64 bits as the i64 Parquet keeps). The squares each side
    /// stood on are not stored: they are its start squares and arrivals.
    pub fn columns(&self) -> [i64; 6] {
        let range = (i64::from(self.pawn_diff.0) & 0xff)
            | (i64::from(self.pawn_diff.1) & 0xff) << 8
            | (i64::from(self.non_pawn_diff.0) & 0xffff) << 16
            | (i64::from(self.non_pawn_diff.1) & 0xffff) << 32;
        [
            u64::from(self.pawns) as i64,
            u64::from(self.arrivals.white) as i64,
            u64::from(self.arrivals.black) as i64,
            self.sides.white.pack(),
            self.sides.black.pack(),
            range,
        ]
    }

    /// The pre-filter of a game starting from `start`, from its columns.
    pub fn from_columns(values: [i64; 6], start: &Board) -> Prefilter {
        let board = |v: i64| Bitboard(v as u64);
        let range = values[5];
        let arrivals = ByColor {
            white: board(values[1]),
            black: board(values[2]),
        };
        Prefilter {
            squares: ByColor::new_with(|c| start.by_color(c) | arrivals[c]),
            pawns: board(values[0]),
            arrivals,
            sides: ByColor {
                white: SideFacts::unpack(values[3]),
                black: SideFacts::unpack(values[4]),
            },
            pawn_diff: (
                (range & 0xff) as u8 as i8,
                ((range >> 8) & 0xff) as u8 as i8,
            ),
            non_pawn_diff: (
                ((range >> 16) & 0xffff) as u16 as i16,
                ((range >> 32) & 0xffff) as u16 as i16,
            ),
        }
    }

    /// Could the game match `query`? Every condition must hold somewhere.
    pub fn permits(&self, query: &Query) -> bool {
        query
            .conditions
            .iter()
            .all(|c| c.rules.iter().all(|rule| self.may_hold(rule)))
    }

    /// Could `rule` hold at some position of the game?
    fn may_hold(&self, rule: &Rule) -> bool {
        match rule {
            Rule::SubFen(patterns) => patterns.iter().any(|p| self.may_have(p.pieces())),
            Rule::Fen(keys) => keys.iter().any(|k| {
                let m = k.board.material();
                self.may_have(&ByColor::new_with(|c| {
                    ByRole::new_with(|r| k.board.by_piece(shakmaty::Piece { color: c, role: r }))
                })) && self.may_count(&MaterialCount(m))
            }),
            Rule::Material(counts) => counts.iter().any(|m| self.may_count(m)),
            Rule::Imbalance(wanted) => wanted.iter().any(|i| {
                let pawns = i32::from(self.pawn_diff.0)..=i32::from(self.pawn_diff.1);
                let npm = i32::from(self.non_pawn_diff.0)..=i32::from(self.non_pawn_diff.1);
                pawns.contains(&i.pawns) && npm.contains(&i.non_pawn)
            }),
            Rule::Move(moves) => moves.iter().any(|m| match *m {
                ScoutMove::Piece { color, to, .. } | ScoutMove::Put { color, to, .. } => {
                    self.arrivals[color].contains(to)
                }
                ScoutMove::Castle { color, side } => {
                    let wanted = match side {
                        CastlingSide::KingSide => 1,
                        CastlingSide::QueenSide => 2,
                    };
                    self.sides[color].castled & wanted != 0
                }
            }),
            Rule::Captured(roles) => {
                let wanted = roles.iter().fold(0, |bits, &r| bits | bit(r));
                (self.sides.white.captured | self.sides.black.captured) & wanted != 0
            }
            Rule::Result(_)
            | Rule::ResultType(_)
            | Rule::Quiet
            | Rule::Moved(_)
            | Rule::SideToMove(_)
            | Rule::Pass => true,
        }
    }

    /// Every piece of the pattern on a square its side (and for a pawn, a
    /// pawn) stood on, and no more of a kind than the side ever had.
    fn may_have(&self, pieces: &ByColor<ByRole<Bitboard>>) -> bool {
        Color::ALL.into_iter().all(|c| {
            let side = &pieces[c];
            let all = side.iter().fold(Bitboard::EMPTY, |a, &b| a | b);
            self.squares[c].is_superset(all)
                && self.pawns.is_superset(side.pawn)
                && COUNTED
                    .iter()
                    .enumerate()
                    .all(|(i, &r)| side.get(r).count() <= usize::from(self.sides[c].max[i]))
        })
    }

    /// Each count within the side's least and greatest.
    fn may_count(&self, m: &MaterialCount) -> bool {
        Color::ALL.into_iter().all(|c| {
            COUNTED.iter().enumerate().all(|(i, &r)| {
                let n = *m.0[c].get(r);
                self.sides[c].min[i] <= n && n <= self.sides[c].max[i]
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::uci::UciMove;
    use shakmaty::{Chess, Position};

    use super::*;

    fn square(name: &str) -> Square {
        name.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    fn game(uci: &str) -> (Prefilter, Chess) {
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for token in uci.split_whitespace() {
            let m = UciMove::from_ascii(token.as_bytes())
                .map(|u| u.to_move(&pos).unwrap_or_else(|e| panic!("{e}")))
                .unwrap_or_else(|e| panic!("{e}"));
            moves.push(m);
            pos.play_unchecked(m);
        }
        (
            Prefilter::of_game(Chess::default().board(), Color::White, &moves, true),
            pos,
        )
    }

    #[test]
    fn columns_round_trip_and_rule_out_what_never_happened() {
        let (filter, _) = game("e2e4 d7d5 e4d5 d8d5 b1c3 d5a5 g1f3 c8g4 f1e2 b8c6 e1g1");
        let start = Chess::default();
        assert_eq!(
            Prefilter::from_columns(filter.columns(), start.board()),
            filter
        );
        assert!(filter.arrivals.white.contains(square("g1")));
        assert_eq!(filter.sides.white.castled, 1);
        assert_eq!(filter.sides.white.min[0], 7);
        let q = |text: &str| Query::parse(text).unwrap_or_else(|e| panic!("{e}"));
        assert!(filter.permits(&q(r#"{"white-move": "O-O"}"#)));
        assert!(!filter.permits(&q(r#"{"white-move": "O-O-O"}"#)));
        assert!(!filter.permits(&q(r#"{"material": "KRPKR"}"#)));
        assert!(filter.permits(&q(r#"{"imbalance": "Pv"}"#)));
        assert!(!filter.permits(&q(r#"{"imbalance": "vP"}"#)));
        assert!(filter.permits(&q(r#"{"sub-fen": "8/8/8/q7/8/2N5/8/8"}"#)));
        assert!(!filter.permits(&q(r#"{"sub-fen": "8/8/8/8/8/8/8/q7"}"#)));
        assert!(!filter.permits(&q(r#"{"captured": "N"}"#)));
        assert!(filter.permits(&q(r#"{"captured": "P"}"#)));
    }
}
