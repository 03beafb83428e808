//! Archivist mode, one game: checked on the path `import` shares
//! ([`crate::check`]), its result settled (`--fix-results`), written back as
//! export PGN, or read again through notation repair (`--repair`) before it
//! is rejected (`repaired_game`), and marked as a duplicate
//! when the first pass found it one.

use crate::check::repair::{Repair, RepairClass};
use crate::check::reread::repairable;
use crate::check::{self, CheckedGame, check_game, game_place};
use crate::clean::action::Action;
use crate::clean::dedupe::{DedupeMode, mark_duplicate};
use crate::clean::enrich::{Enrich, Facts, enrich_tags};
use crate::clean::export::export_game;
use crate::clean::item::{Item, Losers, Modes};
use crate::clean::repaired_game::repair_game;
use crate::clean::settle::{clean_item, set_tag, settle_result};
use crate::pgn::framer::{Batch, RawGame};
use crate::pgn::visitor::{BatchParser, Comments};
use crate::replay::Replayer;
use crate::replay::audit::Declared;
use crate::replay::dead::DEFAULT_NODES;
use crate::replay::variant::VariantName;
use crate::sink::rows::RejectRow;

/// Every game of a batch, in order: clean, repaired, rejected, or (second
/// pass of `--dedupe`) a duplicate.
pub(super) fn clean_batch(batch: &Batch, modes: Modes, losers: &Losers) -> Vec<Item> {
    let mut items = Vec::with_capacity(batch.games.len());
    check::for_each_game(
        batch,
        Comments::Notes,
        DEFAULT_NODES,
        |raw, next, parser, replayer| {
            let item = match clean_game(batch, raw, next, parser, replayer, modes) {
                Ok(item) => item,
                Err(row) if modes.repair && repairable(row.reason) => {
                    repair_game(batch, raw, replayer, modes, *row)
                        .unwrap_or_else(|row| rejected(batch, raw, row))
                }
                Err(row) => rejected(batch, raw, row),
            };
            items.push(marked_if_duplicate(item, losers));
        },
    );
    items
}

/// The games of `batch` as `clean` writes them, for `export`: each game's
/// offset, and its text, or why `clean` rejects it.
pub fn clean_texts(
    batch: &Batch,
    fix_results: bool,
    repair: bool,
) -> Vec<(u64, Result<String, String>)> {
    let modes = Modes {
        fix_results,
        repair,
        salvage: false,
        dedupe: DedupeMode::None,
        enrich: Enrich::default(),
        split_by: None,
    };
    clean_batch(batch, modes, &Losers::new())
        .into_iter()
        .map(|item| match item {
            Item::Clean { text, place, .. } | Item::Duplicate { text, place, .. } => {
                (place.offset, Ok(text))
            }
            Item::Rejected { row, .. } => (
                row.place.offset,
                Err(format!("{}: {}", row.reason.as_str(), row.message)),
            ),
        })
        .collect()
}

fn rejected(batch: &Batch, raw: &RawGame, row: Box<RejectRow>) -> Item {
    Item::Rejected {
        raw: batch.game_bytes(raw).to_vec(),
        row,
    }
}

fn marked_if_duplicate(item: Item, losers: &Losers) -> Item {
    match item {
        Item::Clean { text, place, .. } if let Some(kept) = losers.get(&place.game_id) => {
            Item::Duplicate {
                text: mark_duplicate(&text, kept),
                place,
                kept: kept.clone(),
            }
        }
        other => other,
    }
}

fn clean_game(
    batch: &Batch,
    raw: &RawGame,
    next: usize,
    parser: &mut BatchParser<'_>,
    replayer: &mut Replayer,
    modes: Modes,
) -> Result<Item, Box<RejectRow>> {
    let CheckedGame {
        game,
        report,
        start: start_pos,
        start_fen,
        variant,
        fen_repaired,
        replayed,
        ..
    } = check_game(batch, raw, next, parser, replayer)?;
    // As the import names a game's opening: standard chess from the start.
    let standard_start = start_fen.is_none() && variant == VariantName::Standard;
    let declared = Declared {
        tag: game.text(game.result),
        marker: report.marker,
    };
    let mut actions = Vec::new();
    let (result, original) = settle_result(declared, &replayed, modes.fix_results, &mut actions);
    if game.encoding_repaired {
        actions.push(Action::encoding_repaired());
    }
    let mut export = export_game(&game, start_pos, replayer.moves(), result, &mut actions);
    if let Some(was) = original {
        export.tags.push(("OriginalResult".into(), was));
    }
    if let Some(repair) = fen_repaired {
        // The FEN as read: without what its position cannot have.
        set_tag(&mut export.tags, "FEN", repair.fen);
        actions.push(Action::repaired(Repair {
            class: RepairClass::ImpossibleFenRights,
            ply: None,
            detail: repair.detail,
        }));
    }
    let facts = Facts::new(&replayed, replayer.keys(), standard_start);
    let split_key = enrich_tags(
        &mut export.tags,
        &facts,
        (modes.enrich, modes.split_by),
        &mut actions,
    );
    let capacity = game.tag_text.len() + 16 * game.sans.len() + 64;
    let item = clean_item(
        export,
        capacity,
        game_place(raw),
        (actions, split_key),
        game.variations,
        modes,
    );
    parser.recycle(game);
    Ok(item)
}
