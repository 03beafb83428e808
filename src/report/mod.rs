//! Report (`pgnlake report`): an import's statistics as charts a person
//! reads at a glance, in one self-contained HTML file. `data` reads the
//! numbers from the aggregate tables, `charts` draws them with plotters,
//! `blocks` holds a section's parts, `openings` writes the openings'
//! sections and `page` the others and lays them all out.

mod blocks;
pub mod charts;
pub mod data;
mod openings;
pub mod page;

use std::io::Write as _;
use std::path::Path;

use crate::error::{Error, QueryError};
use crate::sink::output::FileOutput;

/// What `pgnlake report` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReportSummary {
    /// Sections with a chart (the others say why they are empty).
    pub charts: usize,
    pub bytes: usize,
}

/// Writes the report of the import in `data` to `out` (`-`: stdout).
pub(crate) fn write_report(data: &Path, out: &Path) -> Result<ReportSummary, Error> {
    if !data.is_dir() {
        return Err(QueryError::MissingData(data.to_path_buf()).into());
    }
    let numbers = data::read(data).map_err(|e| QueryError::Unreadable {
        path: e.path,
        message: e.message,
    })?;
    let html = page::render(&numbers, &data.display().to_string()).map_err(|message| {
        QueryError::Unreadable {
            path: data.to_path_buf(),
            message: format!("cannot draw the report: {message}"),
        }
    })?;
    write_file(out, html.as_bytes())?;
    Ok(ReportSummary {
        charts: html.matches("<svg").count(),
        bytes: html.len(),
    })
}

/// Writes `bytes` to `out` (`-`: stdout) through the outputs' one writer:
/// a temporary name, registered for removal if interrupted, renamed when
/// complete.
fn write_file(out: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut output = FileOutput::create(out).map_err(Error::write(out))?;
    output
        .write_all(bytes)
        .and_then(|()| output.flush())
        .map_err(Error::write(out))?;
    output.finish().map_err(Error::write(out))
}
