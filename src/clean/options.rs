//! Archivist mode, what a `clean` run is asked (options) and what it did
//! (the summary, `read = clean + rejected + duplicates`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use crate::clean::dedupe::DedupeMode;
use crate::sink::summary::{InputSummary, skipped_entries_text};

/// What `pgnlake clean` was asked to do.
#[derive(Debug, Clone)]
pub struct CleanOptions {
    pub inputs: Vec<PathBuf>,
    /// The clean PGN; `-` for stdout. `.zst` and `.gz` compress.
    pub output: PathBuf,
    /// Where rejected games go, byte for byte.
    pub rejects: Option<PathBuf>,
    pub threads: usize,
    pub quiet: bool,
    /// Set the result the board proves, keeping the old one in
    /// `OriginalResult`.
    pub fix_results: bool,
    /// A Parquet table with one row per action taken.
    pub report: Option<PathBuf>,
    /// Read notations other than SAN before rejecting a game.
    pub repair: bool,
    /// Keep the legal moves before an illegal one (`--salvage`).
    pub salvage: bool,
    /// Which games count as duplicates.
    pub dedupe: DedupeMode,
    /// Where duplicates go, each tagged with the kept game's position.
    pub duplicates: Option<PathBuf>,
    /// Memory for the duplicate search before it spills to disk.
    pub memory_limit: u64,
    /// Tags added (`--add-tags`, `--overwrite-tags`), parts stripped
    /// (`--strip`).
    pub enrich: crate::clean::enrich::Enrich,
    /// One file per ECO, year, event or N games (`--split-by`).
    pub split_by: Option<crate::clean::enrich::SplitBy>,
}

/// The accounting of a clean run: `read = clean + rejected + duplicates`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CleanSummary {
    pub games_read: u64,
    pub clean: u64,
    pub rejected: u64,
    pub duplicates: u64,
    pub rejected_by_reason: BTreeMap<&'static str, u64>,
    /// Games with a tag or comment decoded as Windows-1252.
    pub encoding_repaired: u64,
    /// Variations read (nested ones included).
    pub variations: u64,
    /// Illegal variations turned into comments.
    pub variations_dropped: u64,
    /// Results set to what the board proves (`--fix-results`).
    pub results_fixed: u64,
    /// Rows written to the report.
    pub report_rows: u64,
    /// Games accepted after repair (salvaged ones too), and the moves
    /// repaired.
    pub games_repaired: u64,
    pub moves_repaired: u64,
    /// `--add-tags`: games whose own tag disagreed with pgnlake's, by tag
    /// (kept, or replaced with `--overwrite-tags`).
    pub tags_disagreeing: BTreeMap<String, u64>,
    pub tags_replaced: u64,
    /// Repairs by class (`reduced_pawn_capture`, `unescaped_quotes`,
    /// `salvaged`, …; see [`crate::check::repair::RepairClass`]).
    pub repairs: BTreeMap<&'static str, u64>,
    /// What was read from each input, with any truncation.
    pub inputs: Vec<InputSummary>,
    /// The clean files written (one, or one per `--split-by` key).
    pub outputs: Vec<PathBuf>,
    /// Archive entries passed over because they are not PGN.
    pub skipped_entries: Vec<String>,
    /// `games_read = clean + rejected + duplicates`, and every game framed
    /// from the inputs was read.
    pub balanced: bool,
}

impl CleanSummary {
    pub(crate) fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "games read {} = clean {} + rejected {} + duplicates {}{}",
            self.games_read,
            self.clean,
            self.rejected,
            self.duplicates,
            if self.balanced { "" } else { "  (MISMATCH)" }
        );
        if !self.rejected_by_reason.is_empty() {
            let _ = writeln!(out, "rejected by reason:");
            for (reason, n) in &self.rejected_by_reason {
                let _ = writeln!(out, "  {reason:<28} {n}");
            }
        }
        let _ = writeln!(
            out,
            "transcoded to UTF-8          {}",
            self.encoding_repaired
        );
        let _ = writeln!(
            out,
            "variations {} (illegal ones turned into comments: {})",
            self.variations, self.variations_dropped
        );
        let _ = writeln!(out, "results fixed                {}", self.results_fixed);
        let _ = writeln!(
            out,
            "moves repaired               {} (games repaired: {})",
            self.moves_repaired, self.games_repaired
        );
        if !self.tags_disagreeing.is_empty() {
            let _ = writeln!(
                out,
                "tags disagreeing with pgnlake's (replaced: {}):",
                self.tags_replaced
            );
            for (tag, n) in &self.tags_disagreeing {
                let _ = writeln!(out, "  {tag:<28} {n}");
            }
        }
        if !self.repairs.is_empty() {
            let _ = writeln!(out, "repairs by class:");
            for (class, n) in &self.repairs {
                let _ = writeln!(out, "  {class:<28} {n}");
            }
        }
        out.push_str(&skipped_entries_text(&self.skipped_entries));
        out
    }
}
