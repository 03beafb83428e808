//! Archivist mode, the report (`clean --report`): one Parquet row per action
//! taken on a game, written in row groups in input order.

use std::path::{Path, PathBuf};

use polars::prelude::{DataFrame, PolarsResult};

use crate::check::repair::RepairClass;
use crate::clean::action::Action;
use crate::error::Error;
use crate::sink::parquet::{ROW_GROUP_ROWS, TableWriter, col, table_frame, table_schema};
use crate::sink::rows::Place;
use crate::sink::schema::clean_report;

/// The report table, written in row groups as the run goes; removed when
/// dropped unfinished.
pub(super) struct ReportWriter {
    table: Option<TableWriter>,
    path: PathBuf,
    rows: Vec<(Place, String, Action)>,
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
        let table = TableWriter::create_at(path, &schema).map_err(Error::write(path))?;
        Ok(ReportWriter {
            table: Some(table),
            path: path.to_path_buf(),
            rows: Vec::new(),
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

    /// Writes the rest and renames the table; rows written.
    pub(super) fn finish(mut self) -> Result<u64, Error> {
        self.flush()?;
        match self.table.take() {
            Some(table) => table.finish().map_err(Error::write(&self.path)),
            None => Ok(0),
        }
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
