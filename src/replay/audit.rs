//! Replay stage, result audit: compares the declared result (tag and
//! movetext marker) with what the final board proves.

use shakmaty::Color;

use super::{EndState, Replayed};
use crate::pgn::result::GameResult;

/// Exactly one verdict per game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ResultCheck {
    #[default]
    Consistent,
    ContradictsCheckmate,
    ContradictsStalemate,
    ContradictsInsufficient,
    /// A win declared for a side that cannot checkmate by any legal
    /// sequence, where material alone does not show it (FIDE 6.9), or a
    /// decisive result after a dead position (5.2.2).
    ContradictsUnwinnable,
    ContradictsAutomaticDraw,
    UnfinishedButDecided,
    TagMarkerMismatch,
    NonstandardResult,
    MissingResult,
    /// A variant's own rule decided the game otherwise (an exploded king,
    /// a third check, a king on the hill…).
    ContradictsVariantEnd,
}

impl ResultCheck {
    pub const ALL: [ResultCheck; 11] = [
        ResultCheck::Consistent,
        ResultCheck::ContradictsCheckmate,
        ResultCheck::ContradictsStalemate,
        ResultCheck::ContradictsInsufficient,
        ResultCheck::ContradictsUnwinnable,
        ResultCheck::ContradictsAutomaticDraw,
        ResultCheck::UnfinishedButDecided,
        ResultCheck::TagMarkerMismatch,
        ResultCheck::NonstandardResult,
        ResultCheck::MissingResult,
        ResultCheck::ContradictsVariantEnd,
    ];

    /// The value `as_str` writes (the `result_check` column's).
    pub fn parse(text: &str) -> Option<ResultCheck> {
        ResultCheck::ALL.into_iter().find(|c| c.as_str() == text)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ResultCheck::Consistent => "consistent",
            ResultCheck::ContradictsCheckmate => "contradicts_checkmate",
            ResultCheck::ContradictsStalemate => "contradicts_stalemate",
            ResultCheck::ContradictsInsufficient => "contradicts_insufficient",
            ResultCheck::ContradictsUnwinnable => "contradicts_unwinnable",
            ResultCheck::ContradictsAutomaticDraw => "contradicts_automatic_draw",
            ResultCheck::UnfinishedButDecided => "unfinished_but_decided",
            ResultCheck::TagMarkerMismatch => "tag_marker_mismatch",
            ResultCheck::NonstandardResult => "nonstandard_result",
            ResultCheck::MissingResult => "missing_result",
            ResultCheck::ContradictsVariantEnd => "contradicts_variant_end",
        }
    }
}

/// The declared result of a game: `Result` tag (raw) and movetext marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Declared<'a> {
    pub tag: Option<&'a str>,
    pub marker: Option<GameResult>,
}

impl Declared<'_> {
    /// The result the game claims: the tag when it is standard, else the marker.
    pub(crate) fn result(&self) -> Option<GameResult> {
        self.tag
            .and_then(|t| GameResult::from_marker(t.as_bytes()))
            .or(self.marker)
    }
}

/// Audits the declared result against the board. Order of checks: missing,
/// non-standard, tag/marker mismatch, then the board (checkmate, stalemate,
/// dead position, automatic draw, lone-king wins), then `*` on a finished board.
pub(crate) fn check(declared: Declared<'_>, replayed: &Replayed) -> ResultCheck {
    let tag = declared.tag.map(|t| GameResult::from_marker(t.as_bytes()));
    let result = match (tag, declared.marker) {
        (None, None) => return ResultCheck::MissingResult,
        (Some(None), _) => return ResultCheck::NonstandardResult,
        (Some(Some(t)), Some(m)) if t != m => return ResultCheck::TagMarkerMismatch,
        (Some(Some(t)), _) => t,
        (None, Some(m)) => m,
    };
    let proven = replayed.result_by_rule;
    if result == GameResult::Unfinished {
        return match proven {
            Some(_) => ResultCheck::UnfinishedButDecided,
            None => ResultCheck::Consistent,
        };
    }
    let contradicted = proven.is_some_and(|p| p != result);
    let automatic_first = replayed
        .automatic_end_ply
        .is_some_and(|ply| ply < replayed.plies);
    if contradicted {
        // The rule that ended the game first: an automatic end before the
        // last move, else the final position's state.
        let ended_by = match replayed.automatic_end {
            Some(end) if automatic_first => end,
            _ => replayed.end_state,
        };
        return match ended_by {
            EndState::Checkmate => ResultCheck::ContradictsCheckmate,
            EndState::Stalemate => ResultCheck::ContradictsStalemate,
            EndState::InsufficientMaterial => ResultCheck::ContradictsInsufficient,
            EndState::DeadPosition => ResultCheck::ContradictsUnwinnable,
            EndState::VariantWin | EndState::VariantLoss | EndState::VariantDraw => {
                ResultCheck::ContradictsVariantEnd
            }
            _ => ResultCheck::ContradictsAutomaticDraw,
        };
    }
    let decided_by_board = matches!(
        replayed.end_state,
        EndState::Checkmate | EndState::VariantWin | EndState::VariantLoss
    );
    let winner = match result {
        GameResult::WhiteWins => Some(Color::White),
        GameResult::BlackWins => Some(Color::Black),
        _ => None,
    };
    if let Some(winner) = winner
        && !decided_by_board
    {
        let insufficient = match winner {
            Color::White => replayed.white_insufficient,
            Color::Black => replayed.black_insufficient,
        };
        if insufficient {
            return ResultCheck::ContradictsInsufficient;
        }
        if *replayed.can_mate.get(winner) == Some(false) {
            return ResultCheck::ContradictsUnwinnable;
        }
    }
    ResultCheck::Consistent
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{replay, setup};
    use pgn_reader::SanPlus;

    fn replayed(fen: Option<&str>, moves: &str) -> Replayed {
        let sans: Vec<SanPlus> = moves
            .split_whitespace()
            .filter_map(|t| SanPlus::from_ascii(t.as_bytes()).ok())
            .collect();
        let start = setup(None, fen).unwrap_or_else(|e| panic!("{e:?}"));
        replay(start, &sans).unwrap_or_else(|e| panic!("{e:?}"))
    }

    fn verdict(tag: Option<&str>, marker: Option<GameResult>, r: &Replayed) -> ResultCheck {
        check(Declared { tag, marker }, r)
    }

    #[test]
    fn verdicts() {
        let mate = replayed(None, "f3 e5 g4 Qh4#");
        let black = Some(GameResult::BlackWins);
        assert_eq!(verdict(Some("0-1"), black, &mate), ResultCheck::Consistent);
        assert_eq!(
            verdict(Some("1-0"), None, &mate),
            ResultCheck::ContradictsCheckmate
        );
        assert_eq!(
            verdict(Some("*"), None, &mate),
            ResultCheck::UnfinishedButDecided
        );
        assert_eq!(
            verdict(Some("1-0"), black, &mate),
            ResultCheck::TagMarkerMismatch
        );
        assert_eq!(
            verdict(Some("?"), black, &mate),
            ResultCheck::NonstandardResult
        );
        assert_eq!(verdict(None, None, &mate), ResultCheck::MissingResult);
        assert_eq!(verdict(None, black, &mate), ResultCheck::Consistent);

        // White has a queen, Black a lone king: Black cannot win on time.
        let lone_king = replayed(Some("8/8/8/4k3/8/8/8/4KQ2 w - - 0 1"), "Qf2");
        assert_eq!(
            verdict(Some("0-1"), None, &lone_king),
            ResultCheck::ContradictsInsufficient
        );
        assert_eq!(
            verdict(Some("1-0"), None, &lone_king),
            ResultCheck::Consistent
        );
    }
}
