//! Replay stage, set-up: a game's start position from its `Variant` and
//! `FEN` tags (standard chess, a set-up position, Chess960, the lichess
//! variants with their pockets and check counters). A FEN whose
//! castling rights or en-passant square contradict its own (legal) position
//! is read without them, as python-chess does, and the repair is reported.

use shakmaty::fen::Fen;
use shakmaty::variant::VariantPosition;
use shakmaty::{CastlingMode, EnPassantMode, PositionError};

use crate::replay::reject::{RejectReason, Rejection};
use crate::replay::variant::VariantName;

/// Where a game starts.
#[derive(Debug, Clone)]
pub struct Start {
    /// `VariantPosition::Chess` for standard chess and Chess960.
    pub pos: VariantPosition,
    pub chess960: bool,
    /// The rules the game is played by, as its `Variant` tag names them.
    pub variant: VariantName,
    /// The FEN tag, when the start is not the standard position.
    pub start_fen: Option<String>,
    /// Castling rights or an en-passant square of the FEN tag that its
    /// position cannot have, dropped.
    pub fen_repaired: Option<FenRepair>,
}

/// A FEN tag read without what its position cannot have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenRepair {
    /// The FEN of the position as read.
    pub fen: String,
    /// What was dropped: `castling rights KQkq -> Kkq`, `en-passant square e6`.
    pub detail: String,
}

/// Reads the `Variant` tag: case-insensitive, spaces, dashes and
/// underscores ignored; no tag is standard chess. A variant nobody
/// implements here is the game's reject, with the tag's value.
pub fn variant_of(tag: Option<&str>) -> Result<VariantName, Rejection> {
    let Some(tag) = tag else {
        return Ok(VariantName::Standard);
    };
    VariantName::from_tag(tag).ok_or_else(|| {
        Rejection::new(
            RejectReason::UnsupportedVariant,
            format!("unsupported variant {tag:?}"),
        )
    })
}

/// Builds the start position from the `Variant` and `FEN` tags.
pub fn setup(variant_tag: Option<&str>, fen: Option<&str>) -> Result<Start, Rejection> {
    setup_variant(variant_of(variant_tag)?, fen)
}

/// [`setup`] for a `Variant` tag already read by [`variant_of`].
pub fn setup_variant(variant: VariantName, fen: Option<&str>) -> Result<Start, Rejection> {
    let rules = variant.rules();
    let Some(fen_text) = fen else {
        return Ok(Start {
            pos: VariantPosition::new(rules),
            chess960: variant == VariantName::Chess960,
            variant,
            start_fen: None,
            fen_repaired: None,
        });
    };
    let invalid = |why: String| {
        Rejection::new(
            RejectReason::InvalidFen,
            format!("invalid FEN {fen_text:?}: {why}"),
        )
    };
    let parsed = Fen::from_ascii(fen_text.trim().as_bytes()).map_err(|e| invalid(e.to_string()))?;
    let (pos, fen_repaired) = match VariantPosition::from_setup(
        rules,
        parsed.clone().into_setup(),
        CastlingMode::Chess960,
    ) {
        Ok(pos) => (pos, None),
        Err(error) => {
            let why = error.to_string();
            let pos = without_impossible_rights(error).ok_or_else(|| invalid(why))?;
            let repair = describe_repair(fen_text, &pos);
            (pos, Some(repair))
        }
    };
    let as_read = match &fen_repaired {
        Some(repair) => Fen::from_ascii(repair.fen.as_bytes()).unwrap_or(parsed),
        None => parsed,
    };
    let chess960 = variant == VariantName::Chess960 || fen_needs_960(fen_text, &as_read, &pos);
    // A standard game from a Chess960 position is a Chess960 game.
    let variant = match variant {
        VariantName::Standard if chess960 => VariantName::Chess960,
        other => other,
    };
    let start_fen = (pos != VariantPosition::new(rules)).then(|| fen_text.trim().to_string());
    Ok(Start {
        pos,
        chess960,
        variant,
        start_fen,
        fen_repaired,
    })
}

/// The position of a FEN that is legal but for castling rights or an
/// en-passant square it cannot have; none for anything else.
fn without_impossible_rights(error: PositionError<VariantPosition>) -> Option<VariantPosition> {
    error
        .ignore_invalid_castling_rights()
        .or_else(PositionError::ignore_invalid_ep_square)
        .ok()
}

/// The repaired FEN and what was dropped from `fen_text`.
fn describe_repair(fen_text: &str, pos: &VariantPosition) -> FenRepair {
    let fen = Fen::from_position(pos, EnPassantMode::Always).to_string();
    let field = |text: &str, n: usize| text.split_whitespace().nth(n).unwrap_or("-").to_owned();
    let mut dropped = Vec::new();
    let (castling_was, castling_now) = (field(fen_text, 2), field(&fen, 2));
    if castling_was != castling_now {
        dropped.push(format!("castling rights {castling_was} -> {castling_now}"));
    }
    let ep_was = field(fen_text, 3);
    if ep_was != field(&fen, 3) {
        dropped.push(format!("en-passant square {ep_was} dropped"));
    }
    FenRepair {
        fen,
        detail: dropped.join(", "),
    }
}

/// True when the FEN's castling field uses Shredder/X-FEN letters, or
/// names a castling rook that standard chess does not allow.
fn fen_needs_960(fen_text: &str, parsed: &Fen, pos: &VariantPosition) -> bool {
    let castling_field = fen_text.split_whitespace().nth(2).unwrap_or("-");
    let letters = castling_field
        .chars()
        .any(|c| !matches!(c, 'K' | 'Q' | 'k' | 'q' | '-'));
    letters
        || VariantPosition::from_setup(
            pos.variant(),
            parsed.clone().into_setup(),
            CastlingMode::Standard,
        )
        .is_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_castling_rights_and_en_passant_squares_are_dropped() {
        let odds = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w KQkq - 0 1";
        let start = setup(None, Some(odds)).unwrap_or_else(|e| panic!("{e:?}"));
        let repair = start.fen_repaired.unwrap_or_else(|| panic!("no repair"));
        assert_eq!(
            repair.fen,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w Kkq - 0 1"
        );
        assert_eq!(repair.detail, "castling rights KQkq -> Kkq");
        assert!(!start.chess960);
        assert_eq!(start.start_fen.as_deref(), Some(odds));

        let ep = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1";
        let start = setup(None, Some(ep)).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(start.pos, VariantPosition::default());
        assert_eq!(
            start.fen_repaired.map(|r| r.detail).as_deref(),
            Some("en-passant square e6 dropped")
        );
        // Both faults in one FEN: both dropped, both said.
        let both = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w KQkq e6 0 1";
        let start = setup(None, Some(both)).unwrap_or_else(|e| panic!("{e:?}"));
        let repair = start.fen_repaired.unwrap_or_else(|| panic!("no repair"));
        assert_eq!(
            repair.fen,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w Kkq - 0 1"
        );
        assert_eq!(
            repair.detail,
            "castling rights KQkq -> Kkq, en-passant square e6 dropped"
        );
        assert_eq!(start.start_fen.as_deref(), Some(both));
        // A position that is itself illegal is still rejected.
        assert!(setup(None, Some("8/8/8/8/8/8/8/8 w - - 0 1")).is_err());
        assert!(setup(None, Some(&format!("{odds}x"))).is_err());
        assert!(
            setup(
                None,
                Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
            )
            .is_ok_and(|s| s.fen_repaired.is_none())
        );
    }
}
