//! Replay stage, rejects: why a game was not accepted. One enum, so that
//! every reject in every table and summary uses the same vocabulary.

use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::{CastlingSide, Position, Role};
use thiserror::Error;

use crate::replay::color_name;

/// The reason a game was rejected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Error)]
pub enum RejectReason {
    #[error("illegal move")]
    IllegalMove,
    #[error("ambiguous move")]
    AmbiguousMove,
    #[error("unparsable SAN")]
    UnparsableSan,
    #[error("unknown token")]
    UnknownToken,
    #[error("unterminated comment")]
    UnterminatedComment,
    #[error("malformed tag")]
    MalformedTag,
    #[error("invalid FEN")]
    InvalidFen,
    #[error("unsupported variant")]
    UnsupportedVariant,
    #[error("null move")]
    NullMove,
    #[error("garbage between games")]
    #[default]
    Garbage,
    #[error("oversized game")]
    OversizedGame,
    #[error("truncated input")]
    TruncatedInput,
}

impl RejectReason {
    pub const ALL: [RejectReason; 12] = [
        RejectReason::IllegalMove,
        RejectReason::AmbiguousMove,
        RejectReason::UnparsableSan,
        RejectReason::UnknownToken,
        RejectReason::UnterminatedComment,
        RejectReason::MalformedTag,
        RejectReason::InvalidFen,
        RejectReason::UnsupportedVariant,
        RejectReason::NullMove,
        RejectReason::Garbage,
        RejectReason::OversizedGame,
        RejectReason::TruncatedInput,
    ];

    /// The value stored in `rejects.parquet` and `summary.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            RejectReason::IllegalMove => "illegal_move",
            RejectReason::AmbiguousMove => "ambiguous_move",
            RejectReason::UnparsableSan => "unparsable_san",
            RejectReason::UnknownToken => "unknown_token",
            RejectReason::UnterminatedComment => "unterminated_comment",
            RejectReason::MalformedTag => "malformed_tag",
            RejectReason::InvalidFen => "invalid_fen",
            RejectReason::UnsupportedVariant => "unsupported_variant",
            RejectReason::NullMove => "null_move",
            RejectReason::Garbage => "garbage",
            RejectReason::OversizedGame => "oversized_game",
            RejectReason::TruncatedInput => "truncated_input",
        }
    }
}

/// A rejected game's problem: reason, human message and where it sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub reason: RejectReason,
    pub message: String,
    /// Ply of the offending move (1-based), when the problem has one.
    pub ply: Option<u32>,
    pub token: Option<String>,
    /// Line of the offending token, when known.
    pub token_line: Option<u64>,
}

impl Rejection {
    pub fn new(reason: RejectReason, message: impl Into<String>) -> Self {
        Rejection {
            reason,
            message: message.into(),
            ply: None,
            token: None,
            token_line: None,
        }
    }

    pub(crate) fn at(mut self, ply: u32, token: impl Into<String>) -> Self {
        self.ply = Some(ply);
        self.token = Some(token.into());
        self
    }
}

/// A rejection for a null move (`--`, `Z0`) in the mainline.
pub(super) fn null_move(san_plus: &SanPlus, ply: u32) -> Rejection {
    Rejection::new(
        RejectReason::NullMove,
        format!("null move {san_plus} at ply {ply}"),
    )
    .at(ply, san_plus.to_string())
}

/// A rejection for a SAN that does not give exactly one legal move.
pub(super) fn move_error(
    pos: &impl Position,
    san_plus: &SanPlus,
    error: SanError,
    ply: u32,
) -> Rejection {
    let side = color_name(pos.turn());
    let (reason, why) = match error {
        SanError::AmbiguousSan => (RejectReason::AmbiguousMove, ambiguity(pos, &san_plus.san)),
        _ => (RejectReason::IllegalMove, illegality(pos, &san_plus.san)),
    };
    let what = match reason {
        RejectReason::AmbiguousMove => "ambiguous move",
        _ => "illegal move",
    };
    Rejection::new(
        reason,
        format!("{what} {san_plus} at ply {ply} ({side} to move): {why}"),
    )
    .at(ply, san_plus.to_string())
}

pub(super) fn illegality(pos: &impl Position, san: &San) -> String {
    match *san {
        San::Normal { role, to, .. } => {
            if pos.our(role).is_empty() {
                format!("{} has no {}", color_name(pos.turn()), role_name(role))
            } else if pos.san_candidates(role, to).is_empty() {
                format!("no {} can reach {}", role_name(role), to)
            } else {
                format!("no legal {} move to {} matches", role_name(role), to)
            }
        }
        San::Put { role, to } => match pos.pockets() {
            None => format!("no piece can be dropped in this variant ({role:?}@{to})"),
            Some(pockets) if *pockets.get(pos.turn()).get(role) == 0 => {
                format!(
                    "{} has no {} in hand",
                    color_name(pos.turn()),
                    role_name(role)
                )
            }
            Some(_) => format!("a {} cannot be dropped on {}", role_name(role), to),
        },
        San::Castle(CastlingSide::KingSide) => "kingside castling is not legal here".into(),
        San::Castle(CastlingSide::QueenSide) => "queenside castling is not legal here".into(),
        _ => "not a legal move".into(),
    }
}

pub(super) fn ambiguity(pos: &impl Position, san: &San) -> String {
    match *san {
        San::Normal { role, to, .. } => format!(
            "{} {}s can reach {}",
            pos.san_candidates(role, to).len(),
            role_name(role),
            to
        ),
        _ => "several legal moves match".into(),
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}
