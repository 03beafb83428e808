//! Sink stage, summary: the run's accounting, printed to stderr and written
//! to `summary.json` beside the tables.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::pgn::annotations::AnnotationCounts;
use crate::replay::dead::UnwinnableCounts;
use crate::sink::staged::TableDigest;
use crate::stats::RunCounts;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputSummary {
    pub path: String,
    /// Size on disk (compressed), null for stdin.
    #[serde(deserialize_with = "Option::deserialize")]
    pub bytes: Option<u64>,
    /// Uncompressed bytes read.
    pub uncompressed_bytes: u64,
    pub games: u64,
    /// Set when the input was cut short: a read or decompression error, or
    /// a last game that breaks off. The games before the cut are counted.
    #[serde(deserialize_with = "Option::deserialize")]
    pub truncated: Option<crate::pgn::framer::Truncation>,
    /// A shard's part of the input (`--shard`); absent for a whole input
    /// (the one field, with `shard` and `merged_shards`, whose absence
    /// means something: every other field is required, an `Option` too,
    /// through `deserialize_with`, which turns serde's implicit default
    /// for a missing `Option` off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<InputPart>,
}

/// Which games of an input a shard kept: those whose first byte is at an
/// uncompressed offset in `start..end` (`end` null: to the end of the
/// input, and `uncompressed_bytes` is then the whole input's; `start` null:
/// the part's first frame was never reached, so it kept no game).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputPart {
    #[serde(deserialize_with = "Option::deserialize")]
    pub start: Option<u64>,
    #[serde(deserialize_with = "Option::deserialize")]
    pub end: Option<u64>,
}

impl From<&crate::input::shard::Keep> for InputPart {
    fn from(keep: &crate::input::shard::Keep) -> InputPart {
        let known = |offset: u64| (offset != u64::MAX).then_some(offset);
        InputPart {
            start: known(keep.start()),
            end: known(keep.end()),
        }
    }
}

impl InputSummary {
    /// The one-line error for a truncated input.
    pub(crate) fn truncation_message(&self) -> Option<String> {
        self.truncated.as_ref().map(|t| {
            format!(
                "{}: truncated at byte {} ({}); {} games read up to the cut are counted",
                self.path, t.offset, t.cause, self.games
            )
        })
    }
}

/// The lines naming the archive entries a run passed over (none when it
/// passed over none): the first ten, and how many more.
pub(crate) fn skipped_entries_text(skipped: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut out = String::new();
    if skipped.is_empty() {
        return out;
    }
    let _ = writeln!(out, "archive entries skipped (not PGN): {}", skipped.len());
    for name in skipped.iter().take(SHOWN) {
        let _ = writeln!(out, "  {name}");
    }
    if skipped.len() > SHOWN {
        let _ = writeln!(out, "  … and {} more", skipped.len() - SHOWN);
    }
    out
}

/// The summary's file name in an output folder.
pub(crate) const SUMMARY_FILE: &str = "summary.json";

/// The tool that writes `summary.json`, and its version.
pub(crate) const TOOL: &str = env!("CARGO_PKG_NAME");
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Who wrote a summary: read before the rest.
#[derive(Deserialize)]
struct Writer {
    tool: String,
    version: String,
}

/// Peak resident memory of this process so far (Linux `VmHWM`), in bytes.
pub(crate) fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    pub inputs: Vec<String>,
    pub out: String,
    pub threads: usize,
    pub strict: bool,
    pub quiet: bool,
    pub piece_values: PieceValueNames,
    /// `--moves`: the run wrote `moves.parquet`.
    pub moves: bool,
    /// `--unwinnable-nodes`: the dead-position search's budget.
    pub unwinnable_nodes: u64,
    /// `--repair`: rejected games were read again through repair.
    pub repair: bool,
}

/// How the opening tree was built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeSummary {
    pub plies: usize,
    /// `--opening-period`: how finely `month` splits the opening statistics.
    pub period: crate::stats::dimensions::OpeningPeriod,
    /// `--opening-min-games`: rows of fewer games are left out.
    pub min_games: u32,
    /// The lower bounds of the rating bands `rating_band` holds
    /// ([`crate::model::RatingBand::LOWER_BOUNDS`]): a table of other bands
    /// cannot be added to this version's, so its summary is refused.
    pub rating_bands: Vec<i32>,
    /// Rows of the whole tree, before `min_games`.
    pub rows: u64,
    /// Rows left out because of `min_games` (`rows` − rows written).
    pub rows_dropped: u64,
    pub memory_limit_bytes: u64,
    /// The most the workers' tree rows and their indexes held at once.
    pub peak_memory_bytes: u64,
    /// Run files written because the budget was reached.
    pub spill_runs: usize,
    /// Rows written to run files (each once per run it was in).
    pub spill_rows: u64,
    pub spill_bytes: u64,
}

/// The piece values used for the material columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceValueNames {
    pub pawn: i32,
    pub knight: i32,
    pub bishop: i32,
    pub rook: i32,
    pub queen: i32,
}

impl From<crate::replay::material::PieceValues> for PieceValueNames {
    fn from(values: crate::replay::material::PieceValues) -> Self {
        let [pawn, knight, bishop, rook, queen] = values.0;
        PieceValueNames {
            pawn,
            knight,
            bishop,
            rook,
            queen,
        }
    }
}

/// The run's accounting: `summary.json`. Read back by `merge`, `report` and
/// `explore` as this type (see [`Summary::read`]): a field missing, renamed
/// or unknown, or another version's summary, is refused rather than read
/// as zero.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    /// `pgnlake`.
    pub tool: String,
    /// The pgnlake version that wrote the summary.
    pub version: String,
    pub options: Options,
    pub inputs: Vec<InputSummary>,
    /// Archive entries passed over because they are not PGN
    /// (`archive.zip/readme.txt`).
    pub skipped_entries: Vec<String>,
    pub games_read: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub balanced: bool,
    pub rejected_by_reason: BTreeMap<String, u64>,
    pub end_states: BTreeMap<String, u64>,
    pub result_checks: BTreeMap<String, u64>,
    /// Values read from the comments of accepted games (clocks, move
    /// times, evaluations) and those that did not parse (left null); with
    /// `--moves` only: without it an import reads only the comments the
    /// games columns need (the last few of each game).
    #[serde(deserialize_with = "Option::deserialize")]
    pub annotations: Option<AnnotationCounts>,
    /// Who can still checkmate in the final positions (standard rules):
    /// answers per side, and those left null (undetermined, not asked).
    pub unwinnability: UnwinnableCounts,
    /// `--repair`: accepted games that needed it (counted in `accepted`),
    /// and its repairs by kind (a game may need several).
    pub repaired: u64,
    pub repairs: BTreeMap<String, u64>,
    pub elapsed_seconds: f64,
    pub games_per_second: f64,
    /// Rows of each table file written.
    pub tables: BTreeMap<String, u64>,
    /// Each table's content as written (its bytes and CRC-32): what binds
    /// the table files to this summary (`lake --add` refuses a file that
    /// does not give it). Required, as every field: a summary written
    /// before it was kept is refused, naming it.
    pub table_digests: BTreeMap<String, TableDigest>,
    pub opening_tree: TreeSummary,
    /// Inputs cut short (see `inputs[].truncated`).
    pub truncated_inputs: u64,
    /// Peak resident memory of the run, in bytes (Linux; null elsewhere).
    #[serde(deserialize_with = "Option::deserialize")]
    pub peak_rss_bytes: Option<u64>,
    /// `--shard K/N`: this run imported one shard of its inputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::input::shard::Shard>,
    /// `pgnlake merge`: the number of shards put together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_shards: Option<usize>,
}

/// A sum that may have overflowed, as a refusal shows it.
fn shown(sum: Option<u64>) -> String {
    sum.map_or_else(|| "more than 2^64".to_owned(), |n| n.to_string())
}

/// The rating bands a summary's tables use, when they are not this
/// version's: an import from before 200-wide bands became lichess's groups'
/// unions has no `rating_bands` (its bands split 2400–2599).
fn other_bands(summary: &serde_json::Value) -> Option<String> {
    let ours = crate::model::RatingBand::LOWER_BOUNDS;
    let found = summary.get("opening_tree")?;
    match found.get("rating_bands") {
        None => {
            Some("missing field `rating_bands`: the bands before it, 800 to 2800 by 200".to_owned())
        }
        Some(bands) if *bands == serde_json::json!(ours) => None,
        Some(bands) => Some(format!("opening_tree.rating_bands {bands}")),
    }
}

/// Why a `summary.json` could not be read as this version's [`Summary`].
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    #[error("{path}: cannot read ({source})")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "{path}: written by {tool} {version}; this is pgnlake {ours}: read it with {tool} {version}, or import again"
    )]
    OtherVersion {
        path: String,
        tool: String,
        version: String,
        ours: &'static str,
    },
    /// A lake's import whose summary lists a table whose partition is gone.
    #[error(
        "{path}: missing, but import {name} lists its {table} table; restore it, or remove the import (pgnlake lake LAKE --remove {name})"
    )]
    MissingPartition {
        path: String,
        name: String,
        table: &'static str,
    },
    /// An import made before the rating bands were changed (lichess's
    /// groups as unions of bands): its rows cannot be summed with ours.
    #[error(
        "{path}: made with other rating bands ({found}); this pgnlake's are {ours}: import it again"
    )]
    OtherBands {
        path: String,
        found: String,
        ours: String,
    },
    /// A folder with pgnlake's tables and no summary: a run cut short
    /// between its tables and its summary, or tables put there by hand.
    #[error(
        "{path}: tables without summary.json: not a finished import (a run cut short?); import again"
    )]
    Unfinished { path: String },
    #[error("{path}: {what}: the summary does not add up (edited or damaged?)")]
    Inconsistent { path: String, what: String },
    #[error("{path}: not a summary.json of pgnlake {ours} ({source})")]
    Malformed {
        path: String,
        ours: &'static str,
        source: serde_json::Error,
    },
}

impl SummaryError {
    /// The file was not there (an output folder without a summary).
    pub(crate) fn is_missing(&self) -> bool {
        matches!(self, SummaryError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

impl Summary {
    /// The summary of an import of no games from `inputs`, written to
    /// `out`: a fixture for the readers' and merge's unit tests.
    #[cfg(test)]
    pub(crate) fn of_nothing(out: &str, inputs: Vec<InputSummary>) -> Summary {
        let options = Options {
            inputs: inputs.iter().map(|i| i.path.clone()).collect(),
            out: out.to_owned(),
            threads: 1,
            strict: false,
            quiet: true,
            piece_values: crate::replay::material::PieceValues::default().into(),
            moves: false,
            unwinnable_nodes: 0,
            repair: false,
        };
        let tree = TreeSummary {
            plies: 20,
            period: crate::stats::dimensions::OpeningPeriod::Month,
            min_games: 1,
            rating_bands: crate::model::RatingBand::LOWER_BOUNDS.to_vec(),
            rows: 0,
            rows_dropped: 0,
            memory_limit_bytes: 0,
            peak_memory_bytes: 0,
            spill_runs: 0,
            spill_rows: 0,
            spill_bytes: 0,
        };
        let counts = RunCounts::default();
        Summary::new(options, inputs, &counts, 0.0, BTreeMap::new(), tree)
    }

    pub fn new(
        options: Options,
        inputs: Vec<InputSummary>,
        counts: &RunCounts,
        elapsed_seconds: f64,
        tables: BTreeMap<&'static str, u64>,
        opening_tree: TreeSummary,
    ) -> Summary {
        // Every game framed from the inputs came out accepted or rejected.
        let framed: u64 = inputs.iter().map(|i| i.games).sum();
        let balanced = counts.balanced() && framed == counts.read;
        debug_assert!(balanced, "framed {framed}, counted {counts:?}");
        let truncated_inputs = inputs.iter().filter(|i| i.truncated.is_some()).count() as u64;
        let annotations = options.moves.then_some(counts.annotations);
        let named = |map: BTreeMap<&'static str, u64>| {
            map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
        };
        Summary {
            tool: TOOL.to_owned(),
            version: VERSION.to_owned(),
            options,
            inputs,
            skipped_entries: Vec::new(),
            games_read: counts.read,
            accepted: counts.accepted,
            rejected: counts.rejected,
            balanced,
            rejected_by_reason: named(counts.rejected_by_reason()),
            end_states: named(counts.end_states()),
            result_checks: named(counts.result_checks()),
            annotations,
            unwinnability: counts.unwinnable,
            repaired: counts.repaired,
            repairs: named(counts.repairs.clone()),
            elapsed_seconds,
            games_per_second: if elapsed_seconds > 0.0 {
                counts.read as f64 / elapsed_seconds
            } else {
                0.0
            },
            tables: named(tables),
            table_digests: BTreeMap::new(),
            opening_tree,
            truncated_inputs,
            peak_rss_bytes: peak_rss_bytes(),
            shard: None,
            merged_shards: None,
        }
    }

    /// Reads `path` as a summary of this version of pgnlake: another
    /// version's (older or newer) is refused naming both versions, and a
    /// field missing, mistyped or unknown is refused naming it.
    pub fn read(path: &Path) -> Result<Summary, SummaryError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| SummaryError::Io {
            path: shown.clone(),
            source,
        })?;
        let malformed = |source| SummaryError::Malformed {
            path: shown.clone(),
            ours: VERSION,
            source,
        };
        let value: serde_json::Value = serde_json::from_str(&text).map_err(malformed)?;
        // The writer first: another version's fields are not ours to judge.
        let writer = Writer::deserialize(&value).map_err(malformed)?;
        if writer.tool != TOOL || writer.version != VERSION {
            return Err(SummaryError::OtherVersion {
                path: shown,
                tool: writer.tool,
                version: writer.version,
                ours: VERSION,
            });
        }
        if let Some(found) = other_bands(&value) {
            return Err(SummaryError::OtherBands {
                path: shown,
                found,
                ours: crate::model::RatingBand::names(),
            });
        }
        let summary = Summary::deserialize(value).map_err(malformed)?;
        match summary.inconsistency() {
            Some(what) => Err(SummaryError::Inconsistent { path: shown, what }),
            None => Ok(summary),
        }
    }

    /// Why the summary's counts do not add up, if they do not: a summary
    /// edited or damaged is refused, not trusted (every game read is
    /// accepted or rejected, the inputs' games are the games read, and the
    /// games and rejects tables have a row for each).
    fn inconsistency(&self) -> Option<String> {
        // Sums past 2^64 are damage too (None), never an overflow.
        let total = |counts: &BTreeMap<String, u64>| {
            counts.values().try_fold(0u64, |sum, n| sum.checked_add(*n))
        };
        let framed = self
            .inputs
            .iter()
            .try_fold(0u64, |sum, input| sum.checked_add(input.games));
        let by_reason = total(&self.rejected_by_reason);
        // Every accepted game ends in one end state and gets one result
        // check.
        let (end_states, result_checks) = (total(&self.end_states), total(&self.result_checks));
        let rows = |table: &str| self.tables.get(table).copied();
        let checks = [
            (
                self.accepted.checked_add(self.rejected) == Some(self.games_read),
                format!(
                    "games_read {} is not accepted {} + rejected {}",
                    self.games_read, self.accepted, self.rejected
                ),
            ),
            (
                framed == Some(self.games_read),
                format!(
                    "the inputs' games add up to {}, games_read is {}",
                    shown(framed),
                    self.games_read
                ),
            ),
            (
                by_reason == Some(self.rejected),
                format!(
                    "rejected_by_reason adds up to {}, rejected is {}",
                    shown(by_reason),
                    self.rejected
                ),
            ),
            (
                end_states == Some(self.accepted),
                format!(
                    "end_states adds up to {}, accepted is {}",
                    shown(end_states),
                    self.accepted
                ),
            ),
            (
                result_checks == Some(self.accepted),
                format!(
                    "result_checks adds up to {}, accepted is {}",
                    shown(result_checks),
                    self.accepted
                ),
            ),
            (
                rows("games.parquet").is_none_or(|n| n == self.accepted),
                format!(
                    "tables lists {:?} games rows, accepted is {}",
                    rows("games.parquet"),
                    self.accepted
                ),
            ),
            (
                self.table_digests.keys().eq(self.tables.keys()),
                format!(
                    "table_digests lists {:?}, tables lists {:?}",
                    self.table_digests.keys().collect::<Vec<_>>(),
                    self.tables.keys().collect::<Vec<_>>()
                ),
            ),
            (
                rows("rejects.parquet").is_none_or(|n| n == self.rejected),
                format!(
                    "tables lists {:?} rejects rows, rejected is {}",
                    rows("rejects.parquet"),
                    self.rejected
                ),
            ),
        ];
        checks
            .into_iter()
            .find(|(holds, _)| !holds)
            .map(|(_, what)| what)
    }

    /// The human summary printed to stderr at the end of a run.
    pub(crate) fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "games read {} = accepted {} + rejected {}{}",
            self.games_read,
            self.accepted,
            self.rejected,
            if self.balanced { "" } else { "  (MISMATCH)" }
        );
        let section = |out: &mut String, title: &str, map: &BTreeMap<String, u64>| {
            if !map.is_empty() {
                let _ = writeln!(out, "{title}:");
                for (name, n) in map {
                    let _ = writeln!(out, "  {name:<28} {n}");
                }
            }
        };
        section(&mut out, "rejected by reason", &self.rejected_by_reason);
        if self.options.repair {
            let _ = writeln!(
                out,
                "repaired (--repair, counted as accepted): {}",
                self.repaired
            );
        }
        section(&mut out, "repairs", &self.repairs);
        section(&mut out, "end states", &self.end_states);
        section(&mut out, "result checks", &self.result_checks);
        out.push_str(&skipped_entries_text(&self.skipped_entries));
        if let Some(a) = self
            .annotations
            .filter(|a| *a != AnnotationCounts::default())
        {
            let _ = writeln!(
                out,
                "annotations: {} clocks, {} move times, {} evaluations, {} malformed (left null)",
                a.clocks, a.move_times, a.evals, a.malformed
            );
        }
        let u = &self.unwinnability;
        if *u != UnwinnableCounts::default() {
            let _ = writeln!(
                out,
                "can mate (final positions, per side): {} yes, {} no, {} undetermined, {} not asked",
                u.winnable, u.unwinnable, u.undetermined, u.not_asked
            );
        }
        let _ = writeln!(
            out,
            "elapsed {:.2} s, {:.0} games/s{}",
            self.elapsed_seconds,
            self.games_per_second,
            self.peak_rss_bytes
                .map(|b| format!(", peak memory {} MiB", b >> 20))
                // Not measured (no /proc): nothing to print.
                .unwrap_or_default()
        );
        out
    }
}
