//! Replay stage, draw reasons: why a drawn game was a draw, by the rule the
//! board shows, so that each draw rule can be counted.

use super::{EndState, Replayed};
use crate::pgn::result::GameResult;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DrawReason {
    Stalemate,
    InsufficientMaterial,
    /// Neither side could mate though material alone does not show it.
    DeadPosition,
    FivefoldRepetition,
    SeventyfiveMoves,
    ThreefoldRepetition,
    FiftyMoves,
    PerpetualCheck,
    AgreementOrOther,
    /// Racing Kings: both kings reached the eighth rank.
    VariantDraw,
}

impl DrawReason {
    pub const ALL: [DrawReason; 10] = [
        DrawReason::Stalemate,
        DrawReason::InsufficientMaterial,
        DrawReason::DeadPosition,
        DrawReason::FivefoldRepetition,
        DrawReason::SeventyfiveMoves,
        DrawReason::ThreefoldRepetition,
        DrawReason::FiftyMoves,
        DrawReason::PerpetualCheck,
        DrawReason::AgreementOrOther,
        DrawReason::VariantDraw,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DrawReason::Stalemate => "stalemate",
            DrawReason::InsufficientMaterial => "insufficient_material",
            DrawReason::DeadPosition => "dead_position",
            DrawReason::FivefoldRepetition => "fivefold_repetition",
            DrawReason::SeventyfiveMoves => "seventyfive_moves",
            DrawReason::ThreefoldRepetition => "threefold_repetition",
            DrawReason::FiftyMoves => "fifty_moves",
            DrawReason::PerpetualCheck => "perpetual_check",
            DrawReason::AgreementOrOther => "agreement_or_other",
            DrawReason::VariantDraw => "variant_draw",
        }
    }
}

/// The reason of a game whose counted result is a draw (None otherwise).
/// First the rules that end a game by themselves (a fivefold repetition or
/// the 75-move rule before the last move, then stalemate, a dead position,
/// fivefold, 75 moves at the end), then the claimable ones at the end (a
/// perpetual check before a plain threefold repetition, then the 50-move
/// rule); anything else is an agreement or an outside cause.
pub(crate) fn draw_reason(counted: Option<GameResult>, game: &Replayed) -> Option<DrawReason> {
    if counted != Some(GameResult::Draw) {
        return None;
    }
    let before_end = game
        .automatic_end_ply
        .is_some_and(|ply| ply < game.plies)
        .then_some(game.automatic_end)
        .flatten();
    Some(match before_end.unwrap_or(game.end_state) {
        EndState::Stalemate => DrawReason::Stalemate,
        EndState::InsufficientMaterial => DrawReason::InsufficientMaterial,
        EndState::DeadPosition => DrawReason::DeadPosition,
        EndState::FivefoldRepetition => DrawReason::FivefoldRepetition,
        EndState::SeventyfiveMoves => DrawReason::SeventyfiveMoves,
        EndState::VariantDraw => DrawReason::VariantDraw,
        EndState::Checkmate | EndState::None | EndState::VariantWin | EndState::VariantLoss => {
            if game.perpetual_check {
                DrawReason::PerpetualCheck
            } else if game.threefold_final {
                DrawReason::ThreefoldRepetition
            } else if game.fifty_final {
                DrawReason::FiftyMoves
            } else {
                DrawReason::AgreementOrOther
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(game: Replayed) -> Option<&'static str> {
        draw_reason(Some(GameResult::Draw), &game).map(DrawReason::as_str)
    }

    #[test]
    fn reasons_in_order() {
        let base = Replayed {
            plies: 100,
            ..Replayed::default()
        };
        assert_eq!(reason(base.clone()), Some("agreement_or_other"));
        let stalemate = Replayed {
            end_state: EndState::Stalemate,
            ..base.clone()
        };
        assert_eq!(reason(stalemate), Some("stalemate"));
        let perpetual = Replayed {
            threefold_final: true,
            perpetual_check: true,
            fifty_final: true,
            ..base.clone()
        };
        assert_eq!(reason(perpetual), Some("perpetual_check"));
        let threefold = Replayed {
            threefold_final: true,
            fifty_final: true,
            ..base.clone()
        };
        assert_eq!(reason(threefold), Some("threefold_repetition"));
        let fifty = Replayed {
            fifty_final: true,
            ..base.clone()
        };
        assert_eq!(reason(fifty), Some("fifty_moves"));
        // A 75-move draw reached before the last move wins over the rest.
        let early = Replayed {
            automatic_end_ply: Some(90),
            automatic_end: Some(EndState::SeventyfiveMoves),
            threefold_final: true,
            ..base.clone()
        };
        assert_eq!(reason(early), Some("seventyfive_moves"));
        assert_eq!(draw_reason(Some(GameResult::WhiteWins), &base), None);
        assert_eq!(draw_reason(None, &base), None);
    }
}
