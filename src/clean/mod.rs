//! Archivist mode, `pgnlake clean`: every accepted game written back as
//! standard PGN, every rejected game set aside byte for byte, duplicates
//! found and wrong results fixed with provenance.
//!
//! `run` drives it: `duplicate_pass` (first pass of `--dedupe`), then one
//! ordered pass where `game` settles each game (`export` writes it back,
//! `repaired_game` reads a rejected one again through `repair`, both end in
//! `settle`), and `output` writes the files and the `report` in input
//! order; `options` holds what was asked and what was done. The words they
//! share sit below them all and import none of them: `action` (a report
//! row) and `item` (what may change, one game's fate). The notation repair
//! and the duplicate keys need no tables (the fuzz targets build them
//! alone).

pub mod dedupe;

#[cfg(feature = "tables")]
mod action;
#[cfg(feature = "tables")]
mod duplicate_pass;
#[cfg(feature = "tables")]
pub mod enrich;
#[cfg(feature = "tables")]
mod export;
#[cfg(feature = "tables")]
mod game;
#[cfg(feature = "tables")]
mod item;
#[cfg(feature = "tables")]
mod options;
#[cfg(feature = "tables")]
mod output;
#[cfg(feature = "tables")]
mod repaired_game;
#[cfg(feature = "tables")]
mod report;
#[cfg(feature = "tables")]
mod run;
#[cfg(feature = "tables")]
mod settle;

#[cfg(feature = "tables")]
pub use action::{Action, ActionKind};
#[cfg(feature = "tables")]
pub use game::clean_texts;
#[cfg(feature = "tables")]
pub use options::{CleanOptions, CleanSummary};
#[cfg(feature = "tables")]
pub use run::run_clean;
