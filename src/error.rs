//! The run error: why a command could not run to the end, with the cause
//! kept as a real `source()` (bad games are data, never errors). Stages have
//! their own error types, wrapped here; the read commands' own failures
//! (`QueryError`, `ExploreError`) are defined here so that this module sits
//! below every command.

use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::input::InputError;
use crate::interrupt::Interrupted;
use crate::sink::lock::LockError;
use crate::sink::summary::SummaryError;

/// Any cause of a failed write: I/O, Parquet encoding, JSON.
pub(crate) type Cause = Box<dyn std::error::Error + Send + Sync>;

/// Why a run stopped.
#[derive(Debug, Error)]
pub enum Error {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{path}: read failed: {source}")]
    Read { path: String, source: io::Error },
    #[error("{}: cannot create output folder: {source}", .path.display())]
    OutputDir { path: PathBuf, source: io::Error },
    #[error("{}: cannot write: {source}", .path.display())]
    Write { path: PathBuf, source: Cause },
    #[error("{}: {source}", .path.display())]
    Locked { path: PathBuf, source: LockError },
    #[error("cannot start {threads} worker threads: {source}")]
    Threads {
        threads: usize,
        source: rayon::ThreadPoolBuildError,
    },
    /// A bug, not a problem with the input: said so, not hidden as an I/O
    /// error.
    #[error("the {0} thread panicked (a bug in pgnlake: please report it)")]
    Panicked(&'static str),
    /// Options that cannot work together or with these inputs.
    #[error("{0}")]
    Usage(String),
    /// A game that cannot be read or replayed (`novelty`'s game).
    #[error("{what}: {source}")]
    Game { what: String, source: Cause },
    /// The server could not listen or start (its cause kept).
    #[error("{what}: {source}")]
    Serve { what: String, source: io::Error },
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Explore(#[from] ExploreError),
    /// A search query that cannot be run (`search`, `export --search`).
    #[error(transparent)]
    Search(#[from] crate::replay::scout::BadQuery),
    #[error(transparent)]
    Summary(#[from] SummaryError),
    #[cfg(feature = "tables")]
    #[error(transparent)]
    Lake(#[from] crate::lake::LakeError),
}

impl Error {
    /// A write to `path` failed with `source`: for `map_err`.
    pub(crate) fn write<E: Into<Cause>>(path: &Path) -> impl Fn(E) -> Error + Copy + '_ {
        move |source| Error::Write {
            path: path.to_path_buf(),
            source: source.into(),
        }
    }

    /// Did the reader of our output go away (`pgnlake query … | head`)?
    /// That ends a run successfully and silently, as in ripgrep.
    pub(crate) fn is_broken_pipe(&self) -> bool {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(error) = cause {
            if let Some(io) = error.downcast_ref::<io::Error>()
                && io.kind() == io::ErrorKind::BrokenPipe
            {
                return true;
            }
            #[cfg(feature = "tables")]
            if let Some(polars::prelude::PolarsError::IO { error, .. }) =
                error.downcast_ref::<polars::prelude::PolarsError>()
                && error.kind() == io::ErrorKind::BrokenPipe
            {
                return true;
            }
            cause = error.source();
        }
        false
    }
}

/// Why `pgnlake query` could not answer.
#[derive(Debug, Error)]
pub enum QueryError {
    #[error("{}: no such folder (run `pgnlake import --out DIR` first, or pass --data)", .0.display())]
    MissingData(PathBuf),
    #[error("{}: no tables here (no *.parquet files)", .0.display())]
    NoTables(PathBuf),
    #[error("{}: {message}", .path.display())]
    Unreadable { path: PathBuf, message: String },
    #[error("{origin}: no SQL statement in it")]
    Empty { origin: String },
    #[error("{place}: table {table:?} does not exist in {} (tables: {})", .data.display(), .tables.join(", "))]
    MissingTable {
        place: String,
        table: String,
        data: PathBuf,
        tables: Vec<String>,
    },
    #[error("{place}: {message}")]
    Sql { place: String, message: String },
    /// The folder's summary is missing beside its tables, or damaged.
    #[error(transparent)]
    Summary(#[from] crate::sink::summary::SummaryError),
}

/// Why `pgnlake explore` could not show the position.
#[derive(Debug, Error)]
pub enum ExploreError {
    #[error("{token:?} at ply {ply} is not a legal move in {fen}")]
    IllegalMove {
        token: String,
        ply: usize,
        fen: String,
    },
    #[error("not a legal position: {fen:?} ({message})")]
    BadFen { fen: String, message: String },
    #[error("{}: no opening tree here (run `pgnlake import --out DIR` first)", .path.display())]
    MissingTable { path: PathBuf },
    #[error("{}: {message}", .path.display())]
    Table { path: PathBuf, message: String },
    #[error("{message}")]
    BadFilter { message: String },
    /// A game the opening tree cannot hold (another variant, a set-up
    /// start): it cannot be walked through the tree.
    #[error("{message}")]
    NotInTree { message: String },
    /// A game the opening tree names is not in the games table: the two
    /// disagree, and a list of top games would silently miss it.
    #[error("{}: no game {game}, though the opening tree names it", .path.display())]
    MissingGame { path: PathBuf, game: String },
    #[error(transparent)]
    Summary(#[from] SummaryError),
    #[cfg(feature = "tables")]
    #[error(transparent)]
    Lake(#[from] crate::lake::LakeError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_pipe_is_found_below_a_write_error() {
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        assert!(Error::write(Path::new("-"))(pipe).is_broken_pipe());
        let full = io::Error::from(io::ErrorKind::StorageFull);
        let error = Error::write(Path::new("a.pgn"))(full);
        assert!(!error.is_broken_pipe());
        assert_eq!(error.to_string(), "a.pgn: cannot write: no storage space");
    }
}
