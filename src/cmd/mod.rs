//! Subcommands: one file each, wiring the library to the command line.

pub mod clean;
pub mod explore;
pub mod import;
pub mod query;

use std::process::ExitCode;

use crate::cli::{Cli, Command};

/// Runs the chosen subcommand and returns its exit code.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Import(args) => import::run(args),
        Command::Explore(args) => explore::run(args),
        Command::Clean(args) => clean::run(args),
        Command::Query(args) => query::run(args),
    }
}
