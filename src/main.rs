//! Binary edge: parse the command line, run, map errors to exit codes
//! (0 success, 1 rejected games under --strict, 2 bad usage or I/O).

use std::process::ExitCode;

use clap::Parser;

/// Exit code for a bad path, an unwritable output or a failed read.
const EXIT_ERROR: u8 = 2;

fn main() -> ExitCode {
    let cli = pgnlake::cli::Cli::parse();
    if !matches!(cli.command, pgnlake::cli::Command::Query(_)) {
        limit_polars_threads();
    }
    match pgnlake::cmd::run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("pgnlake: {error:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// polars keeps its own thread pool beside rayon's global one. The import
/// uses polars only on its writer thread, so one polars thread is enough and
/// keeps the cores for the replay workers. A value the user set wins.
/// `query` is all polars, so it keeps polars' default of every core.
fn limit_polars_threads() {
    if std::env::var_os("POLARS_MAX_THREADS").is_none() {
        // SAFETY: called before any other thread exists.
        unsafe { std::env::set_var("POLARS_MAX_THREADS", "1") };
    }
}
