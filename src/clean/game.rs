//! Archivist mode, one game: checked on the path `import` shares
//! ([`crate::check`]), its result settled (`--fix-results`), written back as
//! export PGN, or read again through notation repair (`--repair`) before it
//! is rejected, and marked as a duplicate when the first pass found it one.

use crate::check::repair::{Repair, RepairClass};
use crate::check::reread::repairable;
use crate::check::{self, CheckedGame, check_game, game_place};
use crate::clean::dedupe::{DedupeMode, DupFacts, mark_duplicate};
use crate::clean::duplicate_pass::Losers;
use crate::clean::enrich::{Enrich, Facts, SplitBy, add_tags, strip};
use crate::clean::export::export_game;
use crate::clean::repaired_game::repair_game;
use crate::pgn::framer::{Batch, RawGame};
use crate::pgn::result::GameResult;
use crate::pgn::visitor::{BatchParser, Comments};
use crate::replay::audit::Declared;
use crate::replay::dead::DEFAULT_NODES;
use crate::replay::variant::VariantName;
use crate::replay::{Replayed, Replayer};
use crate::sink::pgn::{ExportGame, write_game};
use crate::sink::rows::{Place, RejectRow};

/// One game's fate, in input order, with what was done to it.
pub(super) enum Item {
    Clean {
        text: String,
        place: Place,
        actions: Vec<Action>,
        variations: u32,
        /// Only in the first pass of `--dedupe`.
        facts: Option<DupFacts>,
        /// The file of `--split-by eco|year|event` it goes to.
        split_key: Option<String>,
    },
    Duplicate {
        text: String,
        place: Place,
        kept: String,
    },
    Rejected {
        raw: Vec<u8>,
        row: Box<RejectRow>,
    },
}

/// One row of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    pub kind: ActionKind,
    pub ply: Option<u32>,
    pub detail: String,
    /// The class of a repair (`move_repaired`, `tag_repaired`,
    /// `fen_repaired`, `salvaged`).
    pub repair: Option<RepairClass>,
}

impl Action {
    pub(super) fn new(kind: ActionKind, ply: Option<u32>, detail: String) -> Action {
        Action {
            kind,
            ply,
            detail,
            repair: None,
        }
    }

    /// Tags or comments read as Windows-1252 (not UTF-8) and transcoded.
    pub(super) fn encoding_repaired() -> Action {
        Action::new(
            ActionKind::EncodingRepaired,
            None,
            "Windows-1252 text transcoded to UTF-8".into(),
        )
    }

    /// A repair, reported under the kind its class belongs to.
    pub(super) fn repaired(repair: Repair) -> Action {
        let kind = match repair.class {
            RepairClass::UnescapedQuotes => ActionKind::TagRepaired,
            RepairClass::EmptyFen | RepairClass::ImpossibleFenRights => ActionKind::FenRepaired,
            RepairClass::Salvaged => ActionKind::Salvaged,
            _ => ActionKind::MoveRepaired,
        };
        Action {
            kind,
            ply: repair.ply,
            detail: repair.detail,
            repair: Some(repair.class),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    Reject,
    ResultFixed,
    EncodingRepaired,
    VariationDropped,
    MoveRepaired,
    TagRepaired,
    FenRepaired,
    Salvaged,
    Duplicate,
    /// `--add-tags`: the game's tag says otherwise (kept).
    TagDisagrees,
    /// `--add-tags --overwrite-tags`: the game's tag said otherwise.
    TagReplaced,
}

impl ActionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Reject => "reject",
            ActionKind::ResultFixed => "result_fixed",
            ActionKind::EncodingRepaired => "encoding_repaired",
            ActionKind::VariationDropped => "variation_dropped",
            ActionKind::MoveRepaired => "move_repaired",
            ActionKind::TagRepaired => "tag_repaired",
            ActionKind::FenRepaired => "fen_repaired",
            ActionKind::Salvaged => "salvaged",
            ActionKind::Duplicate => "duplicate",
            ActionKind::TagDisagrees => "tag_disagrees",
            ActionKind::TagReplaced => "tag_replaced",
        }
    }
}

/// What `clean` may change.
#[derive(Debug, Clone, Copy)]
pub(super) struct Modes {
    pub(super) fix_results: bool,
    pub(super) repair: bool,
    /// Keep the legal moves before an illegal one (`--salvage`).
    pub(super) salvage: bool,
    /// The first pass of `--dedupe`: what to learn of each game (nothing
    /// otherwise, so a plain run does not hash every game).
    pub(super) dedupe: DedupeMode,
    /// Tags added, parts stripped.
    pub(super) enrich: Enrich,
    /// `--split-by`.
    pub(super) split_by: Option<SplitBy>,
}

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
        Item::Clean { text, place, .. } if losers.contains_key(&place.game_id) => {
            let kept = losers.get(&place.game_id).cloned().unwrap_or_default();
            Item::Duplicate {
                text: mark_duplicate(&text, &kept),
                place,
                kept,
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
    let split_key = enrich_tags(&mut export.tags, &facts, modes, &mut actions);
    let capacity = game.tag_text.len() + 16 * game.sans.len() + 64;
    let item = clean_item(
        export,
        capacity,
        game_place(batch, raw),
        (actions, split_key),
        game.variations,
        modes,
    );
    parser.recycle(game);
    Ok(item)
}

/// A game to write: its export text, and what the first pass of `--dedupe`
/// keys it by.
/// `--add-tags` on a game's tags; its `--split-by` key.
pub(super) fn enrich_tags(
    tags: &mut Vec<(String, String)>,
    facts: &Facts<'_>,
    modes: Modes,
    actions: &mut Vec<Action>,
) -> Option<String> {
    // The key from the game's own tags, as read.
    let key = modes.split_by.and_then(|by| by.key_of(tags, facts));
    if modes.enrich.adds_any() {
        add_tags(tags, facts, modes.enrich, actions);
    }
    key
}

pub(super) fn clean_item(
    mut export: ExportGame,
    capacity: usize,
    place: Place,
    (actions, split_key): (Vec<Action>, Option<String>),
    variations: u32,
    modes: Modes,
) -> Item {
    let facts = (modes.dedupe != DedupeMode::None)
        .then(|| DupFacts::of(&export, modes.dedupe == DedupeMode::Contained));
    strip(&mut export, modes.enrich);
    let mut text = String::with_capacity(capacity);
    write_game(&export, &mut text);
    Item::Clean {
        text,
        place,
        actions,
        variations,
        facts,
        split_key,
    }
}

/// What proves the result: an automatic draw before the last move, else
/// the final position's state.
fn proof_of(replayed: &Replayed) -> &'static str {
    match replayed.automatic_end {
        Some(end)
            if replayed
                .automatic_end_ply
                .is_some_and(|ply| ply < replayed.plies) =>
        {
            end.as_str()
        }
        _ => replayed.end_state.as_str(),
    }
}

/// The result to write: the declared one (as the audit reads it), or with
/// `--fix-results` the one the board proves (reported, the old tag value
/// returned for `OriginalResult`).
pub(super) fn settle_result(
    declared: Declared<'_>,
    replayed: &Replayed,
    fix_results: bool,
    actions: &mut Vec<Action>,
) -> (&'static str, Option<String>) {
    let declared_text = declared.result().unwrap_or(GameResult::Unfinished).as_str();
    match replayed.result_by_rule {
        Some(proven) if fix_results && proven.as_str() != declared_text => {
            let was = declared.tag.unwrap_or(declared_text).to_owned();
            actions.push(Action::new(
                ActionKind::ResultFixed,
                Some(replayed.plies),
                format!("{was} -> {} ({})", proven.as_str(), proof_of(replayed)),
            ));
            (proven.as_str(), Some(was))
        }
        _ => (declared_text, None),
    }
}

/// Sets tag `name` to `value` where it stands.
pub(super) fn set_tag(tags: &mut [(String, String)], name: &str, value: String) {
    if let Some(tag) = tags.iter_mut().find(|(n, _)| n == name) {
        tag.1 = value;
    }
}
