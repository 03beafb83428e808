//! `pgnlake import`: runs the import pipeline and reports the summary.

use std::process::ExitCode;

use crate::cli::ImportArgs;
use crate::cmd::report_truncations;
use crate::import::{ImportOptions, run_import};

/// Exit code when `--strict` is given and some game was rejected.
pub const EXIT_REJECTED: u8 = 1;

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
    if let Some(code) = report_truncations(&summary.inputs) {
        return Ok(code);
    }
    if options.strict && summary.rejected > 0 {
        return Ok(ExitCode::from(EXIT_REJECTED));
    }
    Ok(ExitCode::SUCCESS)
}
