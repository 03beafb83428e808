//! Subcommands: one file each, wiring the library to the command line.

pub mod clean;
pub mod explore;
pub mod import;
pub mod query;

use std::process::ExitCode;

use crate::cli::{Cli, Command};
use crate::sink::summary::InputSummary;

/// Exit code when an input was cut short (its games before the cut are kept).
pub const EXIT_TRUNCATED: u8 = 1;

/// Runs the chosen subcommand and returns its exit code.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Import(args) => import::run(args),
        Command::Explore(args) => explore::run(args),
        Command::Clean(args) => clean::run(args),
        Command::Query(args) => query::run(args),
    }
}

/// Prints one line per input that was cut short (whatever `--quiet` says:
/// it is an error, though its games are kept) and returns the exit code
/// for them, if any.
pub fn report_truncations(inputs: &[InputSummary]) -> Option<ExitCode> {
    let messages: Vec<String> = inputs
        .iter()
        .filter_map(InputSummary::truncation_message)
        .collect();
    for message in &messages {
        eprintln!("pgnlake: {message}");
    }
    (!messages.is_empty()).then(|| ExitCode::from(EXIT_TRUNCATED))
}
