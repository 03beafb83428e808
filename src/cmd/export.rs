//! `pgnlake export`: the games a query selects, written as PGN.

use crate::cli::ExportArgs;
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::export::{ExportOptions, Selection, run_export};
use crate::read::query::{QueryError, place, split_statements};

pub fn run(args: ExportArgs) -> Result<ExitStatus, Error> {
    let selection = match &args.search {
        Some(query) => Selection::Search(super::search::read_query(query)?),
        None => sql_selection(&args)?,
    };
    let options = ExportOptions {
        selection,
        data: args.data,
        output: args.output,
        fix_results: args.fix_results,
        repair: args.repair,
        threads: args.threads,
        quiet: args.quiet,
    };
    let summary = run_export(&options)?;
    for problem in &summary.problems {
        eprintln!("pgnlake: {problem}");
    }
    if !options.quiet {
        eprintln!(
            "exported {} of {} selected games; {} sources read, each once ({} bytes)",
            summary.written, summary.selected, summary.sources_read, summary.bytes_read
        );
    }
    Ok(match summary.problems.is_empty() {
        true => ExitStatus::Success,
        false => ExitStatus::NotFound,
    })
}

/// The one SQL statement that selects the games.
fn sql_selection(args: &ExportArgs) -> Result<Selection, Error> {
    let (origin, script) = super::query::read_script(&args.script)?;
    let statements = split_statements(&script);
    let statement = match statements.as_slice() {
        [] => return Err(QueryError::Empty { origin }.into()),
        [one] => one.clone(),
        more => {
            return Err(Error::Usage(format!(
                "{origin}: holds {} statements; export takes one query that selects the games",
                more.len()
            )));
        }
    };
    Ok(Selection::Sql {
        place: place(&origin, 0, &statement),
        statement,
    })
}
