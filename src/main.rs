//! Binary edge: parse the command line, run, map errors to exit codes
//! (0 success, 1 rejected games under --strict or a truncated input, 2 bad
//! usage or I/O, 130 interrupted by SIGINT/SIGTERM).

use std::process::ExitCode;

use clap::Parser;
use pgnlake::cli::Command;
use pgnlake::import::ImportError;
use pgnlake::interrupt;

/// Exit code for a bad path, an unwritable output or a failed read.
const EXIT_ERROR: u8 = 2;

fn main() -> ExitCode {
    let cli = pgnlake::cli::Cli::parse();
    let reads_games = matches!(cli.command, Command::Import(_) | Command::Clean(_));
    if reads_games {
        limit_polars_threads();
        if let Err(message) = interrupt::install() {
            eprintln!("pgnlake: {message}");
            return ExitCode::from(EXIT_ERROR);
        }
    }
    let code = match pgnlake::cmd::run(cli) {
        Ok(code) => code,
        Err(error) => {
            // Whatever a failed run left under a temporary name goes.
            interrupt::remove_temporaries();
            eprintln!("pgnlake: {}", one_line(&error));
            if matches!(
                error.downcast_ref::<ImportError>(),
                Some(ImportError::Interrupted(_))
            ) {
                ExitCode::from(interrupt::EXIT_INTERRUPTED)
            } else {
                ExitCode::from(EXIT_ERROR)
            }
        }
    };
    interrupt::finished();
    code
}

/// The error and its causes on one line, each cause once: a typed error
/// that already prints its source is not followed by it again.
fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
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
