//! Archivist mode, a game's last steps on both of its paths (checked as the
//! import checks it, or read again through repair): its result settled
//! (`--fix-results`), a tag set where it stands, and its text written with
//! what the first pass of `--dedupe` keys it by.

use crate::clean::action::{Action, ActionKind};
use crate::clean::dedupe::{DedupeMode, DupFacts};
use crate::clean::enrich::strip;
use crate::clean::item::{Item, Modes};
use crate::pgn::result::GameResult;
use crate::replay::Replayed;
use crate::replay::audit::Declared;
use crate::sink::pgn::{ExportGame, write_game};
use crate::sink::rows::Place;

/// A game to write: its export text (stripped as `--strip` asks), and what
/// the first pass of `--dedupe` keys it by.
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
