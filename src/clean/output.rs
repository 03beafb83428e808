//! Archivist mode, the ordered writer: each batch's games, in input order,
//! to the clean output, the rejects and the duplicates files and the report,
//! counted into the run's summary as they go.

use std::io::Write as _;
use std::path::Path;

use crate::clean::game::{Action, ActionKind, Item};
use crate::clean::options::CleanSummary;
use crate::clean::report::ReportWriter;
use crate::error::Error;
use crate::pipeline;
use crate::sink::output::FileOutput;

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

/// Flushes `output` and gives the file its final name.
pub(super) fn finish(output: FileOutput) -> Result<(), Error> {
    let path = output.path().to_path_buf();
    output.finish().map_err(Error::write(&path))
}

/// Writes the outputs in input order and keeps the accounting.
pub(super) struct CleanConsumer {
    pub(super) summary: CleanSummary,
    pub(super) output: FileOutput,
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
                    emit(&mut self.output, text.as_bytes())?;
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
