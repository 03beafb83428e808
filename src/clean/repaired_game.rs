//! Archivist mode, a rejected game read again (`clean --repair`): its
//! movetext through notation repair ([`crate::clean::repair`]), replayed,
//! and written back with each repaired move reported.

use shakmaty::Position;
use shakmaty::san::SanPlus;

use crate::check::game_place;
use crate::clean::game::{Action, ActionKind, Item, Modes, clean_item, settle_result};
use crate::clean::repair;
use crate::pgn::encoding;
use crate::pgn::framer::{Batch, RawGame};
use crate::pgn::movetext;
use crate::replay::audit::Declared;
use crate::replay::reject::RejectReason;
use crate::replay::{self, Replayer};
use crate::sink::pgn::{ExportGame, ExportMove};
use crate::sink::rows::RejectRow;

/// Reads a rejected game again through notation repair. Keeps the
/// original rejection when repair fails, unless the token fits several
/// moves: then the game is rejected as ambiguous.
pub(super) fn repair_game(
    batch: &Batch,
    raw: &RawGame,
    replayer: &mut Replayer,
    modes: Modes,
    mut row: RejectRow,
) -> Result<Item, Box<RejectRow>> {
    let (text, repaired_encoding) = encoding::decode(batch.game_bytes(raw));
    let tags: Vec<(String, String)> = movetext::quick_tags(text.as_bytes())
        .into_iter()
        .map(|(name, value)| (name, value.replace(r#"\""#, "\"").replace(r"\\", r"\")))
        .collect();
    let tag = |name: &str| {
        tags.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let Ok(start) = replay::setup(tag("Variant"), tag("FEN")) else {
        return Err(Box::new(row));
    };
    let body = movetext_of(&text);
    let repaired = match repair::repair(&start.pos, body) {
        Ok(repaired) => repaired,
        Err(error) => {
            if error.ambiguous {
                row.reason = RejectReason::AmbiguousMove;
                row.message = format!(
                    "repair: {:?} at ply {} fits more than one legal move",
                    error.token, error.ply
                );
                row.ply = Some(error.ply);
                row.token = Some(error.token);
            }
            return Err(Box::new(row));
        }
    };
    let start_pos = start.pos.clone();
    // Repair gave each move's SAN: replay, report and output use it.
    let sans: Vec<SanPlus> = repaired.moves.iter().map(|r| r.san).collect();
    let Ok(replayed) = replayer.replay(start, &sans) else {
        return Err(Box::new(row));
    };
    let san_text: Vec<String> = sans.iter().map(ToString::to_string).collect();
    let mut actions = Vec::new();
    for (index, (r, san)) in repaired.moves.iter().zip(&san_text).enumerate() {
        if let Some(original) = &r.original {
            actions.push(Action {
                kind: ActionKind::MoveRepaired,
                ply: Some(index as u32 + 1),
                detail: format!("{original} -> {san}"),
            });
        }
    }
    let declared = Declared {
        tag: tag("Result"),
        marker: repaired.marker,
    };
    let (result, original) = settle_result(declared, &replayed, modes.fix_results, &mut actions);
    if repaired_encoding {
        actions.push(Action::encoding_repaired());
    }
    if repaired.variations > 0 {
        actions.push(Action {
            kind: ActionKind::VariationDropped,
            ply: None,
            detail: format!(
                "{} variation(s) of a repaired game dropped",
                repaired.variations
            ),
        });
    }
    let moves = repaired
        .moves
        .iter()
        .zip(san_text)
        .map(|(r, san)| ExportMove {
            san,
            nags: r.nags.clone(),
            comments: r.comments.clone(),
            variations: Vec::new(),
        })
        .collect();
    let mut tags: Vec<(String, String)> = tags
        .into_iter()
        .map(|(name, value)| {
            if name == "Result" {
                (name, result.to_owned())
            } else {
                (name, value)
            }
        })
        .collect();
    if let Some(was) = original {
        tags.push(("OriginalResult".into(), was));
    }
    let export = ExportGame {
        tags,
        leading_comments: repaired.leading_comments,
        moves,
        first_move_number: start_pos.fullmoves().get(),
        white_first: start_pos.turn().is_white(),
        result: result.to_owned(),
    };
    Ok(clean_item(
        &export,
        text.len() + 64,
        game_place(batch, raw),
        actions,
        repaired.variations,
        modes,
    ))
}

/// The movetext of a game's text: what follows its tag lines.
fn movetext_of(text: &str) -> &str {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('[') {
            offset += line.len();
        } else {
            break;
        }
    }
    text.get(offset..).unwrap_or_default()
}
