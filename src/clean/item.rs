//! Archivist mode, the vocabulary of a run: what `clean` may change
//! ([`Modes`]), one game's fate ([`Item`]) and the duplicates the first
//! pass of `--dedupe` found ([`Losers`]). It imports only the words it is
//! made of (the report's actions, the duplicate keys, what `--add-tags`
//! and `--split-by` ask), never the steps that use it.

use std::collections::HashMap;

use crate::clean::action::Action;
use crate::clean::dedupe::{DedupeMode, DupFacts};
use crate::clean::enrich::{Enrich, SplitBy};
use crate::sink::rows::{Place, RejectRow};

/// The duplicates found: game number → the kept game's position.
pub(super) type Losers = HashMap<u64, String>;

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
