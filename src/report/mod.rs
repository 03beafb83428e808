//! Report (`pgnlake report`): an import's statistics as charts a person
//! reads at a glance, in one self-contained HTML file. `data` reads the
//! numbers from the aggregate tables, `charts` draws them with plotters,
//! `page` lays the sections out.

pub mod charts;
pub mod data;
pub mod page;

use std::path::Path;

use crate::error::{Error, QueryError};

/// What `pgnlake report` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportSummary {
    /// Sections with a chart (the others say why they are empty).
    pub charts: usize,
    pub bytes: usize,
}

/// Writes the report of the import in `data` to `out` (`-`: stdout).
pub fn write_report(data: &Path, out: &Path) -> Result<ReportSummary, Error> {
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

/// Writes `bytes` to `out` through a temporary name, or to stdout.
fn write_file(out: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write as _;
    if out == Path::new("-") {
        let mut stdout = std::io::stdout().lock();
        return stdout
            .write_all(bytes)
            .and_then(|()| stdout.flush())
            .map_err(Error::write(out));
    }
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report.html".into());
    let temporary = out.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&temporary, bytes)
        .and_then(|()| std::fs::rename(&temporary, out))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            Error::write(out)(e)
        })
}
