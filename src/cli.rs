//! Command line: the subcommands and their options (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "pgnlake",
    version,
    about = "Verified chess archives as Parquet tables"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replay every game of PGN archives and write games, rejects and a summary.
    Import(ImportArgs),
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// PGN files (plain, .zst, .gz, .bz2), folders (searched recursively), or - for stdin.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Folder for games.parquet, rejects.parquet and summary.json.
    #[arg(long, short)]
    pub out: PathBuf,
    /// Worker threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// No progress bar and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Exit with code 1 when any game was rejected.
    #[arg(long)]
    pub strict: bool,
}
