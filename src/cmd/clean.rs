//! `pgnlake clean`: runs the clean pipeline and reports its accounting.

use std::process::ExitCode;

use crate::clean::{CleanOptions, run_clean};
use crate::cli::CleanArgs;
use crate::cmd::import::EXIT_TRUNCATED;
use crate::sink::summary::InputSummary;

pub fn run(args: CleanArgs) -> anyhow::Result<ExitCode> {
    let options = CleanOptions {
        inputs: args.inputs,
        output: args.output,
        rejects: args.rejects,
        threads: args.threads,
        quiet: args.quiet,
        fix_results: args.fix_results,
        report: args.report,
        repair: args.repair,
        dedupe: args.dedupe,
        duplicates: args.duplicates,
        memory_limit: args.memory_limit,
    };
    let summary = run_clean(&options)?;
    if !options.quiet {
        eprint!("{}", summary.to_text());
    }
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
    Ok(ExitCode::SUCCESS)
}
