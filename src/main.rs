//! Binary edge: parse the command line, run, and exit with the code of how
//! the run ended (see [`pgnlake::cmd::ExitStatus`]).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    ExitCode::from(pgnlake::cmd::run(pgnlake::cli::Cli::parse()))
}
