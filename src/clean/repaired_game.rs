//! Archivist mode, a rejected game read again (`clean --repair`): its tags,
//! FEN and movetext as [`crate::check::reread`] reads them, replayed (or,
//! with `--salvage`, cut before the first token no legal move fits), and
//! written back with each repair reported.

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Position};

use crate::check::game_place;
use crate::check::repair::{self, Repair, RepairClass, Repaired};
use crate::check::reread::{self, Reread, rejected_as_ambiguous, reread};
use crate::clean::action::{Action, ActionKind};
use crate::clean::enrich::{Facts, enrich_tags};
use crate::clean::item::{Item, Modes};
use crate::clean::settle::{clean_item, set_tag, settle_result};
use crate::pgn::framer::{Batch, RawGame};
use crate::pgn::result::GameResult;
use crate::replay::Replayer;
use crate::replay::audit::Declared;
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
    let Some(reread) = reread(batch.game_bytes(raw)) else {
        return Err(Box::new(row));
    };
    let salvage = modes.salvage && !reread.empty_fen;
    // Repair reads standard chess (and Chess960) only.
    let Some(chess) = reread.chess() else {
        return Err(Box::new(row));
    };
    let (mut repaired, salvaged) = match read_moves(chess, reread.body(), salvage) {
        Ok(read) => read,
        Err(ambiguous) => return Err(Box::new(rejected_as(row, ambiguous))),
    };
    let Reread {
        mut tags,
        repairs,
        start,
        encoding_repaired,
        ..
    } = reread;
    let mut actions: Vec<Action> = repairs.into_iter().map(Action::repaired).collect();
    if let Some(repair) = &start.fen_repaired {
        set_tag(&mut tags, "FEN", repair.fen.clone());
        actions.push(Action::repaired(Repair {
            class: RepairClass::ImpossibleFenRights,
            ply: None,
            detail: repair.detail.clone(),
        }));
    }
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
    if encoding_repaired {
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
    let split_key = enrich_tags(
        &mut tags,
        &facts,
        (modes.enrich, modes.split_by),
        &mut actions,
    );
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
        batch.game_bytes(raw).len() + 64,
        game_place(raw),
        (actions, split_key),
        repaired.variations,
        modes,
    ))
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
                // Repair reports where a token starts in `body`.
                rest: body[error.offset..].trim().to_owned(),
            };
            Ok((error.before, Some(salvaged)))
        }
        Err(_) => Err(None),
    }
}

/// The game's reject row: as first rejected, or `ambiguous_move` when a
/// token fits several moves.
fn rejected_as(row: RejectRow, ambiguous: Option<Ambiguous>) -> RejectRow {
    match ambiguous {
        Some(Ambiguous { token, ply }) => rejected_as_ambiguous(row, token, ply),
        None => row,
    }
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
    let mut moves = reread::export_moves(repaired);
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
