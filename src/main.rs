//! Binary edge: parse the command line, run, and exit with the code of how
//! the run ended (see [`pgnlake::cmd::ExitStatus`]); a panic is reported as
//! one line, exit code 2 (see [`pgnlake::cmd::install_panic_hook`]).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = pgnlake::cli::Cli::parse();
    pgnlake::cmd::install_panic_hook();
    ExitCode::from(pgnlake::cmd::run(cli))
}
