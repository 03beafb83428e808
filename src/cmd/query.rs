//! `pgnlake query`: runs a SQL script over an import's tables and prints or
//! writes each result.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;

use polars::prelude::DataFrame;

use crate::cli::{QueryArgs, QueryFormat, ScriptArgs};
use crate::cmd::ExitStatus;
use crate::error::{Cause, Error};
use crate::read::query::{
    QueryError, Statement, Tables, move_san_warning, place, split_statements,
};
use crate::sink::output::FileOutput;
use crate::sink::results::{render_table, write_csv, write_json, write_parquet};

pub fn run(args: QueryArgs) -> Result<ExitStatus, Error> {
    let (origin, script) = read_script(&args.script)?;
    let statements = split_statements(&script);
    if statements.is_empty() {
        return Err(QueryError::Empty { origin }.into());
    }
    if args.format != QueryFormat::Table && statements.len() > 1 {
        return Err(Error::Usage(format!(
            "{origin}: holds {} statements, but --format {:?} writes one result; \
             use --format table, or one statement per file",
            statements.len(),
            args.format
        )));
    }
    let mut tables = Tables::open(&args.data)?;
    let mut results = Vec::with_capacity(statements.len());
    for (index, statement) in statements.iter().enumerate() {
        let place = place(&origin, index, statement);
        // The query runs as written (its answer may be what was meant),
        // but the likely mistake is named before its rows are printed.
        if let Some(warning) = move_san_warning(&statement.sql) {
            eprintln!("pgnlake: warning: {place}: {warning}");
        }
        results.push(tables.run(statement, &place)?);
    }
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    if args.format == QueryFormat::Parquet && to_terminal {
        return Err(Error::Usage(
            "refusing to write Parquet to a terminal; pass -o FILE or redirect stdout".into(),
        ));
    }
    // A file goes through a temporary name, renamed when complete.
    let path = args.output.as_deref().unwrap_or(Path::new("-"));
    let mut output = FileOutput::create(path).map_err(Error::write(path))?;
    emit(&args, &statements, &mut results, &mut output)
        .and_then(|()| output.flush().map_err(Into::into))
        .map_err(Error::write(path))?;
    output.finish().map_err(Error::write(path))?;
    Ok(ExitStatus::Success)
}

/// The script and where it came from (`FILE`, `-` or `-e`), for messages.
pub(super) fn read_script(script: &ScriptArgs) -> Result<(String, String), Error> {
    if let Some(sql) = &script.execute {
        return Ok(("-e".to_owned(), sql.clone()));
    }
    let Some(path) = &script.file else {
        return Err(Error::Usage("give a SQL file or -e SQL".into()));
    };
    if path == Path::new("-") {
        let mut script = String::new();
        std::io::stdin()
            .read_to_string(&mut script)
            .map_err(|source| Error::Read {
                path: "-".into(),
                source,
            })?;
        return Ok(("-".to_owned(), script));
    }
    let script = std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.display().to_string(),
        source,
    })?;
    Ok((path.display().to_string(), script))
}

/// Writes every result in the chosen format; tables are titled by their
/// statement's leading comment and separated by a blank line.
fn emit(
    args: &QueryArgs,
    statements: &[Statement],
    results: &mut [DataFrame],
    out: &mut dyn Write,
) -> Result<(), Cause> {
    for (index, (statement, frame)) in statements.iter().zip(results.iter_mut()).enumerate() {
        match args.format {
            QueryFormat::Table => {
                if index > 0 {
                    writeln!(out)?;
                }
                for line in &statement.title {
                    writeln!(out, "{line}")?;
                }
                out.write_all(render_table(frame, args.limit).as_bytes())?;
            }
            QueryFormat::Csv => write_csv(frame, out)?,
            QueryFormat::Json => write_json(frame, out)?,
            QueryFormat::Parquet => write_parquet(frame, out)?,
        }
    }
    Ok(())
}
