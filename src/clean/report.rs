//! Archivist mode, the report (`clean --report`): one Parquet row per action
//! taken on a game, written in row groups in input order.

use std::path::{Path, PathBuf};

use polars::prelude::{DataFrame, PolarsResult};

use crate::check::repair::RepairClass;
use crate::clean::action::Action;
use crate::error::Error;
use crate::sink::output::{FileOutput, file_target};
use crate::sink::parquet::{ROW_GROUP_ROWS, TableWriter, col, table_frame, table_schema};
use crate::sink::rows::Place;
use crate::sink::schema::clean_report;
use crate::sink::staged::Staged;

/// The report table, written in row groups as the run goes; removed when
/// dropped unfinished. Written where `-o` would write (see
/// `sink::output`): a link's target gets it and the link stays; a device,
/// fifo or stdout gets the finished file's bytes, written through, from a
/// temporary folder.
pub(super) struct ReportWriter {
    table: Option<TableWriter>,
    path: PathBuf,
    rows: Vec<(Place, String, Action)>,
    /// The temporary folder of a report written through.
    through: Option<tempfile::TempDir>,
}

impl Drop for ReportWriter {
    fn drop(&mut self) {
        if let Some(table) = self.table.take() {
            let _ = table.abandon();
        }
    }
}

impl ReportWriter {
    pub(super) fn create(path: &Path) -> Result<ReportWriter, Error> {
        let schema = table_schema(&clean_report::TABLE);
        let target = file_target(path).map_err(Error::write(path))?;
        let (at, through) = match target {
            Some(target) => (target, None),
            None => {
                let dir = tempfile::tempdir().map_err(Error::write(path))?;
                crate::interrupt::register(dir.path());
                (dir.path().join("report.parquet"), Some(dir))
            }
        };
        let table = TableWriter::create_at(&at, &schema).map_err(Error::write(path))?;
        Ok(ReportWriter {
            table: Some(table),
            path: path.to_path_buf(),
            rows: Vec::new(),
            through,
        })
    }

    pub(super) fn push(
        &mut self,
        place: &Place,
        sources: &[String],
        action: Action,
    ) -> Result<(), Error> {
        // A game's source is one of the run's inputs.
        let source = sources[place.source as usize].clone();
        self.rows.push((place.clone(), source, action));
        if self.rows.len() >= ROW_GROUP_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Error> {
        let frame = report_frame(&self.rows).map_err(Error::write(&self.path))?;
        if let Some(table) = &mut self.table {
            table.write(&frame).map_err(Error::write(&self.path))?;
        }
        self.rows.clear();
        Ok(())
    }

    /// Writes the rest and closes the table: a file waits for the commit
    /// (the `Staged`), what is written through is written now; rows
    /// written.
    pub(super) fn close(mut self) -> Result<(Option<Staged>, u64), Error> {
        self.flush()?;
        let Some(table) = self.table.take() else {
            return Ok((None, 0));
        };
        let (staged, rows) = table.close().map_err(Error::write(&self.path))?;
        if self.through.is_none() {
            return Ok((Some(staged), rows));
        }
        let mut output = FileOutput::create(&self.path).map_err(Error::write(&self.path))?;
        let copied = std::fs::File::open(staged.path())
            .and_then(|mut file| std::io::copy(&mut file, &mut output))
            .and_then(|_| output.finish());
        copied.map_err(Error::write(&self.path))?;
        Ok((None, rows))
    }
}

/// The rows as the `clean_report` table.
fn report_frame(rows: &[(Place, String, Action)]) -> PolarsResult<DataFrame> {
    let columns = vec![
        col(
            clean_report::ACTION,
            rows.iter().map(|r| r.2.kind.as_str()).collect::<Vec<_>>(),
        ),
        col(
            clean_report::SOURCE,
            rows.iter().map(|r| r.1.as_str()).collect::<Vec<_>>(),
        ),
        col(
            clean_report::GAME_INDEX,
            rows.iter().map(|r| r.0.game_index).collect::<Vec<u64>>(),
        ),
        col(
            clean_report::OFFSET,
            rows.iter().map(|r| r.0.offset).collect::<Vec<u64>>(),
        ),
        col(
            clean_report::LINE,
            rows.iter().map(|r| r.0.line).collect::<Vec<u64>>(),
        ),
        col(
            clean_report::PLY,
            rows.iter().map(|r| r.2.ply).collect::<Vec<Option<u32>>>(),
        ),
        col(
            clean_report::DETAIL,
            rows.iter().map(|r| r.2.detail.as_str()).collect::<Vec<_>>(),
        ),
        col(
            clean_report::REPAIR,
            rows.iter()
                .map(|r| r.2.repair.map(RepairClass::as_str))
                .collect::<Vec<Option<&str>>>(),
        ),
    ];
    table_frame(&clean_report::TABLE, rows.len(), columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_has_the_declared_schema() -> PolarsResult<()> {
        let frame = report_frame(&[])?;
        assert_eq!(frame.schema().as_ref(), &table_schema(&clean_report::TABLE));
        Ok(())
    }
}
