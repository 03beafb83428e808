//! Replay stage, set-up: a game's start position from its `Variant` and
//! `FEN` tags (standard chess, a set-up position, Chess960).

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use crate::replay::reject::{RejectReason, Rejection};

/// Where a game starts.
#[derive(Debug, Clone)]
pub struct Start {
    pub pos: Chess,
    pub chess960: bool,
    /// The FEN tag, when the start is not the standard position.
    pub start_fen: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VariantKind {
    Standard,
    Chess960,
}

/// Reads the `Variant` tag: case-insensitive, spaces and dashes ignored.
fn variant_kind(tag: Option<&str>) -> Result<VariantKind, Rejection> {
    let Some(tag) = tag else {
        return Ok(VariantKind::Standard);
    };
    let key: String = tag
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect();
    match key.as_str() {
        "" | "standard" | "normal" | "fromposition" => Ok(VariantKind::Standard),
        "chess960" | "fischerandom" | "fischerrandom" | "frc" => Ok(VariantKind::Chess960),
        _ => Err(Rejection::new(
            RejectReason::UnsupportedVariant,
            format!("unsupported variant {tag:?}"),
        )),
    }
}

/// Builds the start position from the `Variant` and `FEN` tags.
pub fn setup(variant: Option<&str>, fen: Option<&str>) -> Result<Start, Rejection> {
    let declared_960 = variant_kind(variant)? == VariantKind::Chess960;
    let Some(fen_text) = fen else {
        return Ok(Start {
            pos: Chess::default(),
            chess960: declared_960,
            start_fen: None,
        });
    };
    let invalid = |why: String| {
        Rejection::new(
            RejectReason::InvalidFen,
            format!("invalid FEN {fen_text:?}: {why}"),
        )
    };
    let parsed = Fen::from_ascii(fen_text.trim().as_bytes()).map_err(|e| invalid(e.to_string()))?;
    let pos: Chess = parsed
        .clone()
        .into_position(CastlingMode::Chess960)
        .map_err(|e| invalid(e.to_string()))?;
    let chess960 = declared_960 || fen_needs_960(fen_text, &parsed);
    let start_fen = (pos != Chess::default()).then(|| fen_text.trim().to_string());
    Ok(Start {
        pos,
        chess960,
        start_fen,
    })
}

/// True when the FEN's castling field uses Shredder/X-FEN letters, or
/// names a castling rook that standard chess does not allow.
fn fen_needs_960(fen_text: &str, parsed: &Fen) -> bool {
    let castling_field = fen_text.split_whitespace().nth(2).unwrap_or("-");
    let letters = castling_field
        .chars()
        .any(|c| !matches!(c, 'K' | 'Q' | 'k' | 'q' | '-'));
    letters
        || parsed
            .clone()
            .into_position::<Chess>(CastlingMode::Standard)
            .is_err()
}
