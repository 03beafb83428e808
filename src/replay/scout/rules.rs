//! Replay stage, search rules: what one rule of a query tests at one
//! position of a game (the position, the move played from it, the game's
//! declared result), as docs/search.md says.

use shakmaty::{
    Bitboard, Board, ByColor, ByRole, CastlingSide, Color, EnPassantMode, File, Move, Piece,
    Position, Rank, Role, Square,
};

/// One rule of a condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// The game's declared result is one of these.
    Result(Vec<ResultCode>),
    /// The final position is mate or stalemate.
    ResultType(ResultType),
    /// Any of these patterns is on the board.
    SubFen(Vec<SubFen>),
    /// The material is exactly one of these.
    Material(Vec<MaterialCount>),
    /// White's minus Black's material is one of these.
    Imbalance(Vec<Imbalance>),
    /// The move played from the position is one of these.
    Move(Vec<ScoutMove>),
    /// There is a move from the position and it captures nothing.
    Quiet,
    /// The move played captures a piece of one of these kinds.
    Captured(Vec<Role>),
    /// The move played moves a piece of one of these kinds.
    Moved(Vec<Role>),
    SideToMove(Color),
    Pass,
    /// The position is one of these (pgnlake's rule).
    Fen(Vec<PositionKey>),
}

/// A game's declared result, as a query names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultCode {
    WhiteWins,
    BlackWins,
    Draw,
    /// `*`, or no result declared.
    Unknown,
}

impl ResultCode {
    pub fn parse(text: &str) -> Option<ResultCode> {
        Some(match text {
            "1-0" => ResultCode::WhiteWins,
            "0-1" => ResultCode::BlackWins,
            "1/2-1/2" => ResultCode::Draw,
            "*" => ResultCode::Unknown,
            _ => return None,
        })
    }

    /// The `declared_result` column's value (null: none declared).
    pub fn of_declared(declared: Option<&str>) -> ResultCode {
        declared
            .and_then(ResultCode::parse)
            .unwrap_or(ResultCode::Unknown)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultType {
    Mate,
    Stalemate,
}

/// A sub-FEN: the squares each kind of piece must stand on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubFen {
    /// By piece (colour and kind); empty bitboards for kinds not named.
    pieces: ByColor<ByRole<Bitboard>>,
}

impl SubFen {
    pub fn of(board: &Board) -> SubFen {
        SubFen {
            pieces: ByColor::new_with(|color| {
                ByRole::new_with(|role| board.by_piece(Piece { color, role }))
            }),
        }
    }

    /// Every piece of the pattern stands on its square.
    pub fn holds(&self, board: &Board) -> bool {
        self.pieces.iter().zip(Color::ALL).all(|(roles, color)| {
            roles.iter().zip(Role::ALL).all(|(&squares, role)| {
                squares.is_empty() || board.by_piece(Piece { color, role }).is_superset(squares)
            })
        })
    }

    /// The pattern's pieces, by colour and kind.
    pub fn pieces(&self) -> &ByColor<ByRole<Bitboard>> {
        &self.pieces
    }
}

/// Exact material: the count of each piece, by colour and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaterialCount(pub ByColor<ByRole<u8>>);

impl MaterialCount {
    pub fn of(material: ByColor<ByRole<u8>>) -> MaterialCount {
        MaterialCount(material)
    }

    /// Pieces on the board, both colours, kings included.
    pub fn pieces(&self) -> usize {
        self.0
            .iter()
            .flat_map(|side| side.iter())
            .map(|&n| usize::from(n))
            .sum()
    }
}

/// Stockfish's middle-game piece values at scoutfish's version, which its
/// `imbalance` rule compares.
const NON_PAWN_VALUES: ByRole<i32> = ByRole {
    pawn: 0,
    knight: 753,
    bishop: 826,
    rook: 1285,
    queen: 2513,
    king: 0,
};

/// White's minus Black's non-pawn material and pawns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Imbalance {
    pub non_pawn: i32,
    pub pawns: i32,
}

impl Imbalance {
    pub fn of(material: &ByColor<ByRole<u8>>) -> Imbalance {
        let side = |m: &ByRole<u8>| {
            let non_pawn: i32 = m
                .iter()
                .zip(NON_PAWN_VALUES.iter())
                .map(|(&count, &value)| i32::from(count) * value)
                .sum();
            (non_pawn, i32::from(m.pawn))
        };
        let (white, black) = (side(&material.white), side(&material.black));
        Imbalance {
            non_pawn: white.0 - black.0,
            pawns: white.1 - black.1,
        }
    }
}

/// A move as `white-move` and `black-move` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoutMove {
    /// A piece of `role` to `to`, from `file` and `rank` when given.
    Piece {
        color: Color,
        role: Role,
        to: Square,
        file: Option<File>,
        rank: Option<Rank>,
    },
    Castle {
        color: Color,
        side: CastlingSide,
    },
    /// A drop (crazyhouse).
    Put {
        color: Color,
        role: Role,
        to: Square,
    },
}

impl ScoutMove {
    /// `m`, played by `turn`, is this move.
    pub fn is(&self, m: &Move, turn: Color) -> bool {
        match *self {
            ScoutMove::Piece {
                color,
                role,
                to,
                file,
                rank,
            } => {
                color == turn
                    && !m.is_castle()
                    && m.role() == role
                    && m.to() == to
                    && m.from().is_some_and(|from| {
                        file.is_none_or(|f| from.file() == f)
                            && rank.is_none_or(|r| from.rank() == r)
                    })
            }
            ScoutMove::Castle { color, side } => color == turn && m.castling_side() == Some(side),
            ScoutMove::Put { color, role, to } => {
                color == turn && matches!(*m, Move::Put { role: r, to: t } if r == role && t == to)
            }
        }
    }
}

/// A position as the opening tree's `position_key` tells positions apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionKey {
    pub board: Board,
    pub turn: Color,
    pub castling: Bitboard,
    pub en_passant: Option<Square>,
}

impl PositionKey {
    pub fn holds(&self, pos: &impl Position) -> bool {
        pos.board() == &self.board
            && pos.turn() == self.turn
            && pos.castles().castling_rights() == self.castling
            && pos.ep_square(EnPassantMode::Legal) == self.en_passant
    }
}

/// What a rule is tested on: one position of a game.
pub struct At<'a, P> {
    pub pos: &'a P,
    /// The move played from it; None at the final position.
    pub next: Option<&'a Move>,
    pub result: ResultCode,
}

/// Whether a rule holds, or whether the game can match at all (`result`
/// depends on the game alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    Fails,
    NeverInThisGame,
}

impl Rule {
    /// Tested on the move played from the position (or on there being
    /// none), not on the position alone.
    pub fn reads_the_move(&self) -> bool {
        matches!(
            self,
            Rule::Move(_) | Rule::Quiet | Rule::Captured(_) | Rule::Moved(_) | Rule::ResultType(_)
        )
    }

    pub fn test<P: Position>(&self, at: &At<'_, P>) -> Verdict {
        let holds = match self {
            Rule::Result(codes) => {
                return match codes.contains(&at.result) {
                    true => Verdict::Holds,
                    false => Verdict::NeverInThisGame,
                };
            }
            Rule::ResultType(kind) => {
                at.next.is_none()
                    && at.pos.legal_moves().is_empty()
                    && at.pos.checkers().any() == (*kind == ResultType::Mate)
            }
            Rule::SubFen(patterns) => patterns.iter().any(|p| p.holds(at.pos.board())),
            Rule::Material(counts) => {
                // Most positions have another number of pieces: one count
                // rules them out before the twelve.
                let pieces = at.pos.board().occupied().count();
                counts.iter().any(|c| c.pieces() == pieces)
                    && counts.contains(&MaterialCount(at.pos.board().material()))
            }
            Rule::Imbalance(wanted) => {
                let here = Imbalance::of(&at.pos.board().material());
                wanted.contains(&here)
            }
            Rule::Move(moves) => at
                .next
                .is_some_and(|m| moves.iter().any(|s| s.is(m, at.pos.turn()))),
            Rule::Quiet => at.next.is_some_and(|m| !m.is_capture()),
            Rule::Captured(roles) => at
                .next
                .and_then(|m| m.capture())
                .is_some_and(|role| roles.contains(&role)),
            Rule::Moved(roles) => at.next.is_some_and(|m| roles.contains(&m.role())),
            Rule::SideToMove(color) => at.pos.turn() == *color,
            Rule::Pass => true,
            Rule::Fen(keys) => keys.iter().any(|k| k.holds(at.pos)),
        };
        match holds {
            true => Verdict::Holds,
            false => Verdict::Fails,
        }
    }
}
