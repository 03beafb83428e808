//! Subcommands: one file each, wiring the library to the command line; and
//! the one place where a command's outcome becomes an exit code.

pub mod clean;
pub mod explore;
pub mod export;
pub mod import;
pub mod key;
pub mod lake;
pub mod merge;
pub mod novelty;
mod panic;
pub mod query;
pub mod report;
pub mod schema;
pub mod search;
pub mod serve;
pub mod unwinnable;

use std::process::ExitCode;

use crate::cli::{Cli, Command};
use crate::error::Error;
use crate::interrupt;
use crate::sink::summary::InputSummary;

pub use panic::install_hook as install_panic_hook;

/// How a command ended. `main` turns it into the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// The command ran to the end (rejected games do not fail a run; nor
    /// does a reader of stdout that went away).
    Success,
    /// `--strict`, and some game was rejected.
    Rejected,
    /// An input was cut short; its games before the cut are kept.
    Truncated,
    /// `explore`: the position has no moves in the tree.
    NotFound,
    /// Bad usage or I/O: one line on stderr names the path.
    Error,
    /// SIGINT or SIGTERM: nothing was written.
    Interrupted,
}

impl ExitStatus {
    pub(crate) fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Rejected | ExitStatus::Truncated | ExitStatus::NotFound => 1,
            ExitStatus::Error => 2,
            ExitStatus::Interrupted => interrupt::EXIT_INTERRUPTED,
        }
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> ExitCode {
        ExitCode::from(status.code())
    }
}

/// Raises the soft limit on open files to the hard one, as Go programs and
/// many servers do at start: the opening tree's end of run reads every
/// spill run at once (a large input at a small `--memory-limit` writes
/// hundreds or thousands) and `merge` every shard, and the soft limit is
/// often 1,024. Failing that, the limit stays as it was.
fn raise_open_file_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write `limit`.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// Writes `text` to stdout (a reader that went away is success; see
/// [`Error::is_broken_pipe`]).
pub(crate) fn print_stdout(text: &str) -> Result<(), Error> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let write_error = Error::write(std::path::Path::new("-"));
    out.write_all(text.as_bytes()).map_err(write_error)?;
    out.flush().map_err(write_error)
}

/// Runs the chosen subcommand: prints a failure as one line on stderr and
/// returns how it ended. A panic (a bug, here or in polars) is such a
/// failure too: see [`install_panic_hook`].
pub fn run(cli: Cli) -> ExitStatus {
    let what = command_name(&cli.command);
    panic::catch(what, || run_command(cli)).unwrap_or_else(|line| {
        interrupt::remove_temporaries();
        eprintln!("pgnlake: {line}");
        interrupt::finished();
        ExitStatus::Error
    })
}

/// The subcommand's name, for the line that reports a panic.
fn command_name(command: &Command) -> &'static str {
    match command {
        Command::Import(_) => "import",
        Command::Explore(_) => "explore",
        Command::Search(_) => "search",
        Command::Novelty(_) => "novelty",
        Command::Serve(_) => "serve",
        Command::Key(_) => "key",
        Command::Clean(_) => "clean",
        Command::Export(_) => "export",
        Command::Query(_) => "query",
        Command::Merge(_) => "merge",
        Command::Report(_) => "report",
        Command::Unwinnable(_) => "unwinnable",
        Command::Schema(_) => "schema",
        Command::Lake(_) => "lake",
    }
}

fn run_command(cli: Cli) -> ExitStatus {
    let reads_games = matches!(
        cli.command,
        Command::Import(_) | Command::Clean(_) | Command::Merge(_) | Command::Export(_)
    );
    if reads_games {
        limit_polars_threads();
        raise_open_file_limit();
    }
    // Commands that change files on disk stop cleanly on SIGINT/SIGTERM:
    // their temporaries removed, exit 130 (a lake's compaction, `query -o`
    // and `report -o` too).
    if (reads_games
        || matches!(
            cli.command,
            Command::Lake(_) | Command::Query(_) | Command::Report(_) | Command::Search(_)
        ))
        && let Err(message) = interrupt::install()
    {
        eprintln!("pgnlake: {message}");
        return ExitStatus::Error;
    }
    let result = match cli.command {
        Command::Import(args) => import::run(args),
        Command::Explore(args) => explore::run(args),
        Command::Search(args) => search::run(args),
        Command::Novelty(args) => novelty::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Key(args) => key::run(args),
        Command::Clean(args) => clean::run(args),
        Command::Export(args) => export::run(args),
        Command::Query(args) => query::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Report(args) => report::run(args),
        Command::Unwinnable(args) => unwinnable::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Lake(args) => lake::run(args),
    };
    let status = match result {
        Ok(status) => status,
        Err(error) => {
            // Whatever a failed run left under a temporary name goes.
            interrupt::remove_temporaries();
            failure(&error)
        }
    };
    interrupt::finished();
    status
}

/// The status of a failed run, its one line printed.
fn failure(error: &Error) -> ExitStatus {
    match error {
        // The reader of our output went away: done, as in ripgrep.
        error if error.is_broken_pipe() => ExitStatus::Success,
        Error::Interrupted(_) => {
            eprintln!("pgnlake: {error}");
            ExitStatus::Interrupted
        }
        // A thread of the run panicked: its message, which the panic hook
        // recorded instead of printing, goes on the line.
        Error::Panicked(_) => {
            match panic::latest() {
                Some(panic) => eprintln!("pgnlake: {}: {panic}", one_line(error)),
                None => eprintln!("pgnlake: {}", one_line(error)),
            }
            ExitStatus::Error
        }
        error => {
            eprintln!("pgnlake: {}", one_line(error));
            ExitStatus::Error
        }
    }
}

/// The error and its causes on one line, each cause once: a typed error
/// that already prints its source is not followed by it again.
fn one_line(error: &Error) -> String {
    let mut line = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(error) = cause {
        let text = error.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = error.source();
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

/// Prints one line per input that was cut short (whatever `--quiet` says:
/// it is an error, though its games are kept); `Truncated` if any was.
pub(crate) fn report_truncations(inputs: &[InputSummary]) -> Option<ExitStatus> {
    let messages: Vec<String> = inputs
        .iter()
        .filter_map(InputSummary::truncation_message)
        .collect();
    for message in &messages {
        eprintln!("pgnlake: {message}");
    }
    (!messages.is_empty()).then_some(ExitStatus::Truncated)
}

/// The filters of `explore`'s and `search`'s options; a bad value is an
/// error naming it and what is allowed.
fn filters(args: &crate::cli::FilterArgs) -> Result<crate::read::explore::Filters, Error> {
    Ok(crate::read::explore::Filters::parse(
        args.speed.as_deref(),
        args.rating.as_deref(),
        args.since.as_deref(),
        args.until.as_deref(),
    )?)
}
