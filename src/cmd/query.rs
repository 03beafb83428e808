//! `pgnlake query`: runs a SQL script over an import's tables and prints or
//! writes each result.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use polars::prelude::DataFrame;

use crate::cli::{QueryArgs, QueryFormat};
use crate::query::{QueryError, Statement, Tables, place, split_statements};
use crate::sink::output::FileOutput;
use crate::sink::results::{render_table, write_csv, write_json, write_parquet};

pub fn run(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let (origin, script) = read_script(&args)?;
    let statements = split_statements(&script);
    if statements.is_empty() {
        return Err(QueryError::Empty { origin }.into());
    }
    if args.format != QueryFormat::Table && statements.len() > 1 {
        bail!(
            "{origin}: holds {} statements, but --format {:?} writes one result; \
             use --format table, or one statement per file",
            statements.len(),
            args.format
        );
    }
    let mut tables = Tables::open(&args.data)?;
    let mut results = Vec::with_capacity(statements.len());
    for (index, statement) in statements.iter().enumerate() {
        results.push(tables.run(statement, &place(&origin, index, statement))?);
    }
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    if args.format == QueryFormat::Parquet && to_terminal {
        bail!("refusing to write Parquet to a terminal; pass -o FILE or redirect stdout");
    }
    // A file goes through a temporary name, renamed when complete.
    let mut output = FileOutput::create(args.output.as_deref().unwrap_or(Path::new("-")))?;
    emit(&args, &statements, &mut results, &mut output)
        .and_then(|()| output.flush().map_err(Into::into))
        .with_context(|| output.path().display().to_string())?;
    output.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// The script and where it came from (`FILE`, `-` or `-e`), for messages.
fn read_script(args: &QueryArgs) -> anyhow::Result<(String, String)> {
    if let Some(sql) = &args.execute {
        return Ok(("-e".to_owned(), sql.clone()));
    }
    let Some(path) = &args.file else {
        bail!("give a SQL file or -e SQL");
    };
    if path == Path::new("-") {
        let mut script = String::new();
        std::io::stdin()
            .read_to_string(&mut script)
            .context("stdin")?;
        return Ok(("-".to_owned(), script));
    }
    let script = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    Ok((path.display().to_string(), script))
}

/// Writes every result in the chosen format; tables are titled by their
/// statement's leading comment and separated by a blank line.
fn emit(
    args: &QueryArgs,
    statements: &[Statement],
    results: &mut [DataFrame],
    out: &mut dyn Write,
) -> anyhow::Result<()> {
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
