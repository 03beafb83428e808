//! Archivist mode, a rejected game read again (`clean --repair`): its tags
//! ([`crate::clean::tag_section`]), its FEN, its movetext through repair
//! ([`crate::clean::repair`]), replayed (or, with `--salvage`, cut before
//! the first token no legal move fits), and written back with each repair
//! reported.

use shakmaty::Position;
use shakmaty::san::SanPlus;

use crate::check::game_place;
use crate::clean::game::{Action, ActionKind, Item, Modes, clean_item, set_tag, settle_result};
use crate::clean::repair::{self, Repair, RepairClass};
use crate::clean::tag_section::{TagSection, read_tag_section};
use crate::pgn::encoding;
use crate::pgn::framer::{Batch, RawGame};
use crate::replay::audit::Declared;
use crate::replay::reject::RejectReason;
use crate::replay::{self, Replayer};
use crate::sink::pgn::{ExportGame, ExportMove};
use crate::sink::rows::RejectRow;

/// Reads a rejected game again through repair. Keeps the original
/// rejection when repair fails, unless the token fits several moves: then
/// the game is rejected as ambiguous. With `--salvage`, a game whose
/// movetext breaks off at a token no legal move fits keeps the moves before
/// it.
pub(super) fn repair_game(
    batch: &Batch,
    raw: &RawGame,
    replayer: &mut Replayer,
    modes: Modes,
    mut row: RejectRow,
) -> Result<Item, Box<RejectRow>> {
    let (text, repaired_encoding) = encoding::decode(batch.game_bytes(raw));
    let Some(TagSection {
        mut tags,
        repairs: tag_repairs,
        movetext,
    }) = read_tag_section(&text)
    else {
        return Err(Box::new(row));
    };
    let mut actions: Vec<Action> = tag_repairs.into_iter().map(Action::repaired).collect();
    let tag = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let fen = tag("FEN");
    let empty_fen = fen.as_deref().is_some_and(|f| f.trim().is_empty());
    let fen = fen.filter(|_| !empty_fen);
    let Ok(start) = replay::setup(tag("Variant").as_deref(), fen.as_deref()) else {
        return Err(Box::new(row));
    };
    if empty_fen {
        // The standard start: the tags that would say otherwise go.
        tags.retain(|(name, _)| name != "FEN" && name != "SetUp");
        actions.push(Action::repaired(Repair {
            class: RepairClass::EmptyFen,
            ply: None,
            detail: "empty FEN tag read as the standard start".into(),
        }));
    }
    if let Some(repair) = &start.fen_repaired {
        set_tag(&mut tags, "FEN", repair.fen.clone());
        actions.push(Action::repaired(Repair {
            class: RepairClass::ImpossibleFenRights,
            ply: None,
            detail: repair.detail.clone(),
        }));
    }
    let body = text.get(movetext..).unwrap_or_default();
    let (mut repaired, salvage) = match repair::repair(&start.pos, body) {
        Ok(repaired) => (repaired, None),
        Err(error) if error.ambiguous => {
            row.reason = RejectReason::AmbiguousMove;
            row.message = format!(
                "repair: {:?} at ply {} fits more than one legal move",
                error.token, error.ply
            );
            row.ply = Some(error.ply);
            row.token = Some(error.token);
            return Err(Box::new(row));
        }
        // A game whose FEN was lost must replay whole from the start.
        Err(error) if modes.salvage && !error.before.moves.is_empty() && !empty_fen => {
            let rest = body.get(error.offset..).unwrap_or_default().trim();
            let salvage = Salvage {
                ply: error.ply,
                token: error.token.clone(),
                rest: rest.to_owned(),
            };
            (error.before, Some(salvage))
        }
        Err(_) => return Err(Box::new(row)),
    };
    let start_pos = start.pos.clone();
    // Repair gave each move's SAN: replay, report and output use it.
    let sans: Vec<SanPlus> = repaired.moves.iter().map(|r| r.san).collect();
    let Ok(replayed) = replayer.replay(start, &sans) else {
        return Err(Box::new(row));
    };
    actions.extend(repaired.repairs.drain(..).map(Action::repaired));
    let declared = Declared {
        tag: tags
            .iter()
            .find(|(n, _)| n == "Result")
            .map(|(_, v)| v.as_str()),
        marker: repaired.marker,
    };
    let (result, original) = match &salvage {
        // A salvaged game is unfinished: never a result the board proves.
        Some(salvage) => {
            let was = declared
                .tag
                .map(str::to_owned)
                .or_else(|| declared.result().map(|r| r.as_str().to_owned()));
            actions.push(Action::repaired(Repair {
                class: RepairClass::Salvaged,
                ply: Some(salvage.ply),
                detail: format!(
                    "{} legal moves kept; {:?} at ply {} fits no legal move",
                    repaired.moves.len(),
                    salvage.token,
                    salvage.ply
                ),
            }));
            ("*", was.filter(|w| w != "*"))
        }
        None => settle_result(declared, &replayed, modes.fix_results, &mut actions),
    };
    if repaired_encoding {
        actions.push(Action::encoding_repaired());
    }
    if repaired.variations > 0 {
        actions.push(Action::new(
            ActionKind::VariationDropped,
            None,
            format!(
                "{} variation(s) of a repaired game dropped",
                repaired.variations
            ),
        ));
    }
    let mut moves: Vec<ExportMove> = repaired
        .moves
        .iter()
        .map(|r| ExportMove {
            san: r.san.to_string(),
            nags: r.nags.clone(),
            comments: r.comments.clone(),
            variations: Vec::new(),
        })
        .collect();
    if let (Some(salvage), Some(last)) = (&salvage, moves.last_mut()) {
        last.comments.push(salvage.rest.clone());
    }
    set_tag(&mut tags, "Result", result.to_owned());
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

/// Where a salvaged game broke off: the token no legal move fits, its ply,
/// and the movetext from it on (kept as a comment; the writer turns its
/// braces into parentheses).
struct Salvage {
    ply: u32,
    token: String,
    rest: String,
}
