//! Archivist mode, the ordered writer: each batch's games, in input order,
//! to the clean output, the rejects and the duplicates files and the report,
//! counted into the run's summary as they go.

use std::io::Write as _;
use std::path::Path;

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use crate::clean::action::{Action, ActionKind};
use crate::clean::enrich::SplitBy;
use crate::clean::item::Item;
use crate::clean::options::CleanSummary;
use crate::clean::report::ReportWriter;
use crate::error::Error;
use crate::pipeline;
use crate::sink::output::FileOutput;
use crate::sink::staged::Staged;

/// Opens an output file (`-` is stdout).
pub(super) fn create(path: &Path) -> Result<FileOutput, Error> {
    FileOutput::create(path).map_err(Error::write(path))
}

/// Writes `bytes` to `output`.
fn emit(output: &mut FileOutput, bytes: &[u8]) -> Result<(), Error> {
    output
        .write_all(bytes)
        .map_err(|e| Error::write(output.path())(e))
}

/// Flushes and closes `output`: a file waits for the commit.
pub(super) fn close(output: FileOutput) -> Result<Option<Staged>, Error> {
    let path = output.path().to_path_buf();
    output.close().map_err(Error::write(&path))
}

/// The clean output: one file, or (`--split-by`) one per key or chunk,
/// each created when its first game comes and renamed into place at the
/// end with the others.
pub(super) enum Outputs {
    One(Box<FileOutput>),
    Split {
        /// `OUT`: the files are `OUT-KEY` with its extensions.
        base: std::path::PathBuf,
        by: SplitBy,
        files: BTreeMap<String, FileOutput>,
        /// Games written, for `--split-by N`.
        written: u64,
    },
}

impl Outputs {
    pub(super) fn new(path: &Path, split_by: Option<SplitBy>) -> Result<Outputs, Error> {
        Ok(match split_by {
            None => Outputs::One(Box::new(create(path)?)),
            Some(by) => Outputs::Split {
                base: path.to_path_buf(),
                by,
                files: BTreeMap::new(),
                written: 0,
            },
        })
    }

    pub(super) fn is_stdout(&self) -> bool {
        matches!(self, Outputs::One(output) if output.is_stdout())
    }

    fn write(&mut self, text: &[u8], key: Option<&str>) -> Result<(), Error> {
        match self {
            Outputs::One(output) => emit(output, text),
            Outputs::Split {
                base,
                by,
                files,
                written,
            } => {
                let key = match (*by, key) {
                    (SplitBy::Games(n), _) => (*written / n + 1).to_string(),
                    (_, key) => key.unwrap_or("unknown").to_owned(),
                };
                *written += 1;
                let output = match files.entry(key) {
                    Entry::Occupied(file) => file.into_mut(),
                    Entry::Vacant(file) => {
                        let output = create(&split_path(base, file.key()))?;
                        file.insert(output)
                    }
                };
                emit(output, text)
            }
        }
    }

    /// Every file closed, waiting for the commit (see `sink::staged`);
    /// the files written.
    pub(super) fn close(self) -> Result<(Vec<Staged>, Vec<std::path::PathBuf>), Error> {
        let outputs: Vec<FileOutput> = match self {
            Outputs::One(output) => vec![*output],
            Outputs::Split { files, .. } => files.into_values().collect(),
        };
        let mut staged = Vec::with_capacity(outputs.len());
        let mut paths = Vec::with_capacity(outputs.len());
        for output in outputs {
            paths.push(output.path().to_path_buf());
            staged.extend(close(output)?);
        }
        Ok((staged, paths))
    }
}

/// `dir/name.pgn.zst` and `B90` → `dir/name-B90.pgn.zst`.
fn split_path(base: &Path, key: &str) -> std::path::PathBuf {
    let file = base
        .file_name()
        .map_or_else(|| "clean".into(), |n| n.to_string_lossy().into_owned());
    let (stem, extensions) = match file.find('.') {
        Some(0) | None => (file.as_str(), ""),
        Some(at) => file.split_at(at),
    };
    base.with_file_name(format!("{stem}-{key}{extensions}"))
}

/// Writes the outputs in input order and keeps the accounting.
pub(super) struct CleanConsumer {
    pub(super) summary: CleanSummary,
    pub(super) output: Outputs,
    pub(super) rejects: Option<FileOutput>,
    pub(super) duplicates: Option<FileOutput>,
    pub(super) report: Option<ReportWriter>,
    pub(super) sources: Vec<String>,
}

impl pipeline::Consumer<Vec<Item>> for CleanConsumer {
    fn consume(&mut self, items: Vec<Item>) -> Result<(), Error> {
        for item in items {
            self.summary.games_read += 1;
            match item {
                Item::Clean {
                    text,
                    place,
                    actions,
                    variations,
                    split_key,
                    ..
                } => {
                    self.summary.clean += 1;
                    self.summary.variations += u64::from(variations);
                    if actions.iter().any(|a| a.repair.is_some()) {
                        self.summary.games_repaired += 1;
                    }
                    for action in &actions {
                        match action.kind {
                            ActionKind::ResultFixed => self.summary.results_fixed += 1,
                            ActionKind::EncodingRepaired => self.summary.encoding_repaired += 1,
                            ActionKind::VariationDropped => self.summary.variations_dropped += 1,
                            ActionKind::MoveRepaired => self.summary.moves_repaired += 1,
                            ActionKind::TagDisagrees | ActionKind::TagReplaced => {
                                // The detail reads `TAG: …` (see `add_tags`).
                                let detail = action.detail.as_str();
                                let tag = detail.split_once(':').map_or(detail, |(tag, _)| tag);
                                *self
                                    .summary
                                    .tags_disagreeing
                                    .entry(tag.to_owned())
                                    .or_default() += 1;
                                if action.kind == ActionKind::TagReplaced {
                                    self.summary.tags_replaced += 1;
                                }
                            }
                            ActionKind::TagRepaired
                            | ActionKind::FenRepaired
                            | ActionKind::Salvaged
                            | ActionKind::Reject
                            | ActionKind::Duplicate => {}
                        }
                        if let Some(class) = action.repair {
                            *self.summary.repairs.entry(class.as_str()).or_default() += 1;
                        }
                    }
                    self.output.write(text.as_bytes(), split_key.as_deref())?;
                    if let Some(report) = &mut self.report {
                        for action in actions {
                            report.push(&place, &self.sources, action)?;
                        }
                    }
                }
                Item::Duplicate { text, place, kept } => {
                    self.summary.duplicates += 1;
                    if let Some(duplicates) = &mut self.duplicates {
                        emit(duplicates, text.as_bytes())?;
                    }
                    if let Some(report) = &mut self.report {
                        let action = Action::new(
                            ActionKind::Duplicate,
                            None,
                            format!("duplicate of {kept}"),
                        );
                        report.push(&place, &self.sources, action)?;
                    }
                }
                Item::Rejected { raw, row } => {
                    self.summary.rejected += 1;
                    *self
                        .summary
                        .rejected_by_reason
                        .entry(row.reason.as_str())
                        .or_default() += 1;
                    if let Some(rejects) = &mut self.rejects {
                        // The game's bytes as read, then a blank line to
                        // keep the games apart.
                        emit(rejects, &raw)?;
                        let separator: &[u8] = if raw.ends_with(b"\n") { b"\n" } else { b"\n\n" };
                        emit(rejects, separator)?;
                    }
                    if let Some(report) = &mut self.report {
                        let action = Action::new(
                            ActionKind::Reject,
                            row.ply,
                            format!("{}: {}", row.reason.as_str(), row.message),
                        );
                        report.push(&row.place, &self.sources, action)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn games(&self) -> u64 {
        self.summary.games_read
    }
}
