//! Archivist mode, a rejected game read again (`clean --repair`): its tags
//! ([`crate::clean::tag_section`]), its FEN, its movetext through repair
//! ([`crate::clean::repair`]), replayed (or, with `--salvage`, cut before
//! the first token no legal move fits), and written back with each repair
//! reported.

use shakmaty::san::SanPlus;
use shakmaty::variant::VariantPosition;
use shakmaty::{Chess, Position};

use crate::check::game_place;
use crate::clean::enrich::Facts;
use crate::clean::game::{
    Action, ActionKind, Item, Modes, clean_item, enrich_tags, set_tag, settle_result,
};
use crate::clean::repair::{self, Repair, RepairClass, Repaired};
use crate::clean::tag_section::{TagSection, read_tag_section};
use crate::pgn::encoding;
use crate::pgn::framer::{Batch, RawGame};
use crate::pgn::result::GameResult;
use crate::replay::audit::Declared;
use crate::replay::reject::RejectReason;
use crate::replay::{self, Replayer, Start};
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
    row: RejectRow,
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
    let Some((start, empty_fen)) = start_of(&mut tags, &mut actions) else {
        return Err(Box::new(row));
    };
    let body = text.get(movetext..).unwrap_or_default();
    let salvage = modes.salvage && !empty_fen;
    // Repair reads standard chess (and Chess960) only.
    let VariantPosition::Chess(chess) = &start.pos else {
        return Err(Box::new(row));
    };
    let (mut repaired, salvaged) = match read_moves(chess, body, salvage) {
        Ok(read) => read,
        Err(ambiguous) => return Err(Box::new(rejected_as(row, ambiguous))),
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
    let (result, original) = match &salvaged {
        Some(salvaged) => salvaged_result(declared, salvaged, &repaired, &mut actions),
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
    set_tag(&mut tags, "Result", result.to_owned());
    if let Some(was) = original {
        tags.push(("OriginalResult".into(), was));
    }
    let standard_start = !tags.iter().any(|(n, _)| n == "FEN");
    let facts = Facts::new(&replayed, replayer.keys(), standard_start);
    let split_key = enrich_tags(&mut tags, &facts, modes, &mut actions);
    let export = ExportGame {
        tags,
        moves: export_moves(&repaired, salvaged.as_ref()),
        leading_comments: repaired.leading_comments,
        first_move_number: start_pos.fullmoves().get(),
        white_first: start_pos.turn().is_white(),
        result: result.to_owned(),
    };
    Ok(clean_item(
        export,
        text.len() + 64,
        game_place(batch, raw),
        (actions, split_key),
        repaired.variations,
        modes,
    ))
}

/// The start position from the `Variant` and `FEN` tags: an empty `FEN`
/// is the standard start (its tags dropped), a FEN's impossible rights are
/// dropped (the tag rewritten); each repair reported. Also whether the FEN
/// was empty. None when the tags name no position pgnlake can play.
fn start_of(tags: &mut Vec<(String, String)>, actions: &mut Vec<Action>) -> Option<(Start, bool)> {
    let tag = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let fen = tag("FEN");
    let empty_fen = fen.as_deref().is_some_and(|f| f.trim().is_empty());
    let fen = fen.filter(|_| !empty_fen);
    let start = replay::setup(tag("Variant").as_deref(), fen.as_deref()).ok()?;
    if empty_fen {
        tags.retain(|(name, _)| name != "FEN" && name != "SetUp");
        actions.push(Action::repaired(Repair {
            class: RepairClass::EmptyFen,
            ply: None,
            detail: "empty FEN tag read as the standard start".into(),
        }));
    }
    if let Some(repair) = &start.fen_repaired {
        set_tag(tags, "FEN", repair.fen.clone());
        actions.push(Action::repaired(Repair {
            class: RepairClass::ImpossibleFenRights,
            ply: None,
            detail: repair.detail.clone(),
        }));
    }
    Some((start, empty_fen))
}

/// The movetext through repair; with `salvage`, the moves before a token
/// no legal move fits (when there are some). A failure is the token that
/// fits several moves, if that is why.
fn read_moves(start: &Chess, body: &str, salvage: bool) -> Result<ReadMoves, Option<Ambiguous>> {
    match repair::repair(start, body) {
        Ok(repaired) => Ok((repaired, None)),
        Err(error) if error.ambiguous => Err(Some(Ambiguous {
            token: error.token,
            ply: error.ply,
        })),
        Err(error) if salvage && !error.before.moves.is_empty() => {
            let salvaged = Salvage {
                ply: error.ply,
                token: error.token,
                rest: body
                    .get(error.offset..)
                    .unwrap_or_default()
                    .trim()
                    .to_owned(),
            };
            Ok((error.before, Some(salvaged)))
        }
        Err(_) => Err(None),
    }
}

/// The game's reject row: as first rejected, or `ambiguous_move` when a
/// token fits several moves.
fn rejected_as(mut row: RejectRow, ambiguous: Option<Ambiguous>) -> RejectRow {
    if let Some(Ambiguous { token, ply }) = ambiguous {
        row.reason = RejectReason::AmbiguousMove;
        row.message = format!("repair: {token:?} at ply {ply} fits more than one legal move");
        row.ply = Some(ply);
        row.token = Some(token);
    }
    row
}

/// A salvaged game is unfinished: `*`, never a result the board proves,
/// with the declared one kept for `OriginalResult` (unless it was `*`).
fn salvaged_result(
    declared: Declared<'_>,
    salvaged: &Salvage,
    repaired: &Repaired,
    actions: &mut Vec<Action>,
) -> (&'static str, Option<String>) {
    let was = declared
        .tag
        .map(str::to_owned)
        .or_else(|| declared.result().map(|r| r.as_str().to_owned()));
    actions.push(Action::repaired(Repair {
        class: RepairClass::Salvaged,
        ply: Some(salvaged.ply),
        detail: format!(
            "{} legal moves kept; {:?} at ply {} fits no legal move",
            repaired.moves.len(),
            salvaged.token,
            salvaged.ply
        ),
    }));
    let unfinished = GameResult::Unfinished.as_str();
    (unfinished, was.filter(|w| w != unfinished))
}

/// The moves to write, a salvaged game's rest of movetext as a comment
/// after its last move.
fn export_moves(repaired: &Repaired, salvaged: Option<&Salvage>) -> Vec<ExportMove> {
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
    if let (Some(salvaged), Some(last)) = (salvaged, moves.last_mut()) {
        last.comments.push(salvaged.rest.clone());
    }
    moves
}

/// The moves read, and where a salvaged game broke off.
type ReadMoves = (Repaired, Option<Salvage>);

/// A token that fits more than one legal move, and its ply.
struct Ambiguous {
    token: String,
    ply: u32,
}

/// Where a salvaged game broke off: the token no legal move fits, its ply,
/// and the movetext from it on (kept as a comment; the writer turns its
/// braces into parentheses).
struct Salvage {
    ply: u32,
    token: String,
    rest: String,
}
