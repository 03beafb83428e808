//! Archivist mode, what was done to a game: one row of the report (an
//! [`Action`] and its [`ActionKind`]), the words every other file of
//! `clean` reports in. It imports nothing else from `clean`.

use crate::check::repair::{Repair, RepairClass};

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
