//! `pgnlake import`: runs the import pipeline and reports the summary.

use std::process::ExitCode;

use crate::cli::ImportArgs;
use crate::import::{ImportOptions, run_import};
use crate::sink::summary::InputSummary;

/// Exit code when `--strict` is given and some game was rejected.
pub const EXIT_REJECTED: u8 = 1;

/// Exit code when an input was cut short (its games before the cut are kept).
pub const EXIT_TRUNCATED: u8 = 1;

pub fn run(args: ImportArgs) -> anyhow::Result<ExitCode> {
    let options = ImportOptions {
        inputs: args.inputs,
        out: args.out,
        threads: args.threads,
        quiet: args.quiet,
        strict: args.strict,
        opening_plies: args.opening_plies,
        memory_limit: args.memory_limit,
        piece_values: args.piece_values,
    };
    let summary = run_import(&options)?;
    if !options.quiet {
        eprint!("{}", summary.to_text());
    }
    // A cut input is an error whatever --quiet says; its games are kept.
    let truncations: Vec<String> = summary
        .inputs
        .iter()
        .filter_map(InputSummary::truncation_message)
        .collect();
    for message in &truncations {
        eprintln!("pgnlake: {message}");
    }
    if !truncations.is_empty() {
        return Ok(ExitCode::from(EXIT_TRUNCATED));
    }
    if options.strict && summary.rejected > 0 {
        return Ok(ExitCode::from(EXIT_REJECTED));
    }
    Ok(ExitCode::SUCCESS)
}
