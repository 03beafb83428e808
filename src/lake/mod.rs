//! Lake: imports kept as Hive-style partitions of one growing dataset
//! (`LAKE/<table>/import=<NAME>/part-0.parquet`, the summary as
//! `LAKE/_imports/<NAME>.json`), so that each month's archive is added
//! without importing the others again and every engine reads them as one.
//!
//! An import is written whole into `LAKE/_staging/<NAME>/` (the folder an
//! ordinary `--out` import would write), then committed by the steps of
//! the `commit` module: each table's partition folder renamed into place
//! (or swapped in, with `--replace`), the summary renamed into `_imports/`
//! last. pgnlake reads only imports with a summary, and every reader and
//! lake command first finishes a commit that a killed run left half-way.

mod commit;
mod compact;
mod game_ids;
mod journal;
mod lock;
mod record;
mod recovery;
mod verify;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub use commit::{LakeImport, remove};
pub use compact::Compaction;
pub use game_ids::{game_offsets, import_of_game};
pub use journal::{COMPACTED, covered, covered_path};
pub use lock::LakeLock;
pub use recovery::{read_lock, recover};
pub use verify::{Listing, check_folder_listing, listing_mismatch};

use crate::sink::schema::{self, Table};
use crate::sink::summary::{Summary, SummaryError};

/// The folder of the committed imports' summaries.
pub const IMPORTS_DIR: &str = "_imports";
/// Where imports are written before they are committed.
const STAGING_DIR: &str = "_staging";
/// The Hive partition column: the import's name.
pub const PARTITION_COLUMN: &str = "import";
/// A partition's one data file.
const PART_FILE: &str = "part-0.parquet";
/// Longest import name (a folder name on every file system).
const MAX_NAME_BYTES: usize = 200;

/// Is `dir` a lake (rather than one import's folder)?
pub fn is_lake(dir: &Path) -> bool {
    dir.join(IMPORTS_DIR).is_dir()
}

/// `--out DIR` must not be a lake: its tables would sit beside the lake's
/// partitions, and readers would see one set or the other.
pub fn check_not_lake(out: &Path) -> Result<(), LakeError> {
    match is_lake(out) {
        true => Err(LakeError::IsLake {
            dir: out.to_path_buf(),
        }),
        false => Ok(()),
    }
}

/// `--into LAKE` must not be an import's folder (`--out`), for the same
/// reason.
fn check_not_import_folder(lake: &Path) -> Result<(), LakeError> {
    let summary = lake.join(crate::sink::summary::SUMMARY_FILE);
    let tables = schema::TABLES
        .iter()
        .any(|table| lake.join(table.file_name()).is_file());
    match summary.is_file() || tables {
        true => Err(LakeError::IsImportFolder {
            dir: lake.to_path_buf(),
        }),
        false => Ok(()),
    }
}

/// Why `name` cannot name an import: letters, digits, `.`, `_`, `-` only,
/// not starting with `.` or `_` (hidden from readers), at most 200 bytes.
pub fn check_name(name: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if name.is_empty() || name.len() > MAX_NAME_BYTES {
        return Err(format!(
            "import name {name:?}: give 1 to {MAX_NAME_BYTES} characters"
        ));
    }
    if name.starts_with(['.', '_']) || !name.chars().all(allowed) {
        return Err(format!(
            "import name {name:?}: use letters, digits, '.', '_' and '-' only, not starting with '.' or '_'"
        ));
    }
    Ok(())
}

/// The default import name: the first input's file name without its
/// extensions (`lichess_db_standard_rated_2024-05.pgn.zst` →
/// `lichess_db_standard_rated_2024-05`).
pub fn default_name(first_input: &Path) -> Option<String> {
    let file = first_input.file_name()?.to_str()?;
    let stem = file.split('.').next().unwrap_or(file);
    (!stem.is_empty() && stem != "-").then(|| stem.to_owned())
}

/// One committed import of a lake.
#[derive(Debug)]
pub struct Partition {
    pub name: String,
    pub summary: Summary,
    /// When the import finished (its summary's modification time: the
    /// commit renames it unchanged), in seconds since 1970.
    pub committed: Option<u64>,
}

/// The committed imports of `lake`, by name, each checked to have the
/// partition of every table its summary lists (a statistics table's in the
/// compacted partition if it is compacted): a reader or a compaction never
/// skips a listed import's rows silently.
pub fn partitions(lake: &Path) -> Result<Vec<Partition>, SummaryError> {
    let listed = listed(lake)?;
    let covered = journal::read_covered(lake).map_err(|(path, source)| SummaryError::Io {
        path: path.display().to_string(),
        source,
    })?;
    for partition in &listed {
        check_partitions(lake, partition, &covered)?;
    }
    Ok(listed)
}

/// Has `partition` a folder with data files for every table its summary
/// lists, and none of a table it does not list? A compacted import's
/// statistics are in the compacted partition.
fn check_partitions(
    lake: &Path,
    partition: &Partition,
    covered: &[String],
) -> Result<(), SummaryError> {
    let compacted = covered.contains(&partition.name);
    let holder = |table: &Table| match compacted && table.is_aggregate() {
        true => COMPACTED,
        false => partition.name.as_str(),
    };
    let listed = |table: &Table| partition.summary.tables.contains_key(&table.file_name());
    // The compacted partition holds other imports' rows too: it stands for
    // a table this import lists, never as a file of one it does not.
    let files = |table: &'static Table| match listed(table) || holder(table) != COMPACTED {
        true => table_files(lake, table, holder(table)),
        false => Vec::new(),
    };
    match listing_mismatch(&partition.summary, files) {
        None => Ok(()),
        Some(Listing::Missing { table }) => Err(SummaryError::MissingPartition {
            path: partition_dir(lake, table, holder(table))
                .display()
                .to_string(),
            name: partition.name.clone(),
            table: table.name,
        }),
        Some(unlisted) => Err(SummaryError::Inconsistent {
            path: summary_path(lake, &partition.name).display().to_string(),
            what: unlisted.describe(),
        }),
    }
}

/// The committed imports of `lake`, by name, as their summaries list them
/// (not checked against the partitions: for listing and removing them).
pub fn listed(lake: &Path) -> Result<Vec<Partition>, SummaryError> {
    let dir = lake.join(IMPORTS_DIR);
    let entries = fs::read_dir(&dir).map_err(|source| SummaryError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let file = e.file_name().to_str()?.to_owned();
            let name = file.strip_suffix(".json")?;
            check_name(name).ok().map(|()| name.to_owned())
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let path = summary_path(lake, &name);
            let summary = Summary::read(&path)?;
            let committed = fs::metadata(&path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_secs());
            Ok(Partition {
                name,
                summary,
                committed,
            })
        })
        .collect()
}

fn summary_path(lake: &Path, name: &str) -> PathBuf {
    lake.join(IMPORTS_DIR).join(format!("{name}.json"))
}

fn partition_dir(lake: &Path, table: &Table, name: &str) -> PathBuf {
    lake.join(table.name)
        .join(format!("{PARTITION_COLUMN}={name}"))
}

/// The data files of `table` in the import `name`, in name order: the
/// one `part-0.parquet` pgnlake writes, or the part files of a folder
/// another engine wrote (`lake --add` of the Spark job's output). Empty
/// when the import has no such table (`moves` only with `--moves`).
pub fn table_files(lake: &Path, table: &Table, name: &str) -> Vec<PathBuf> {
    part_files(&partition_dir(lake, table, name))
}

/// The Parquet files of a folder, in name order; hidden files (`.`, `_`)
/// are not data, as for every Hive reader.
pub fn part_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with(['.', '_']) && name.ends_with(".parquet")
        })
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// A table's data files: (import name, file), in name order.
pub type ImportFiles = Vec<(String, PathBuf)>;

/// `table`'s data files in the committed imports `names` (those that
/// wrote it), in the order of `names`; a statistics table's compacted
/// partition first (compacted imports have no partition of their own).
pub fn import_files(lake: &Path, table: &Table, names: &[String]) -> ImportFiles {
    let compacted = table
        .is_aggregate()
        .then(|| COMPACTED.to_owned())
        .into_iter();
    compacted
        .chain(names.iter().cloned())
        .flat_map(|name| {
            table_files(lake, table, &name)
                .into_iter()
                .map(move |file| (name.clone(), file))
        })
        .collect()
}

/// Bytes of an import's data files.
pub fn partition_bytes(lake: &Path, name: &str) -> u64 {
    schema::TABLES
        .iter()
        .flat_map(|table| table_files(lake, table, name))
        .filter_map(|file| fs::metadata(file).ok())
        .map(|m| m.len())
        .sum()
}

/// Why an import cannot go into a lake.
#[derive(Debug, thiserror::Error)]
pub enum LakeError {
    #[error(
        "{}: import {name} exists; give --replace to replace it, or another --name",
        .lake.display()
    )]
    Exists { lake: PathBuf, name: String },
    #[error(
        "{}: import {other} was imported with {what}; this import's differ: \
         a lake's imports must agree to be summed",
        .lake.display()
    )]
    Incompatible {
        lake: PathBuf,
        other: String,
        what: String,
    },
    #[error(
        "{}: import {name} is being written by another run; wait for it, or give another --name",
        .lake.display()
    )]
    Busy { lake: PathBuf, name: String },
    #[error(
        "{}: the lake changed while it was compacted ({what}); run --compact again",
        .lake.display()
    )]
    Changed { lake: PathBuf, what: String },
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "{}: a lake (it has {IMPORTS_DIR}/); import into it with --into, or give another --out folder",
        .dir.display()
    )]
    IsLake { dir: PathBuf },
    #[error(
        "{}: an import's folder (summary.json or tables), not a lake; give another folder to --into",
        .dir.display()
    )]
    IsImportFolder { dir: PathBuf },
    /// A commit past its record whose last steps failed: the next command
    /// on the lake finishes it.
    #[error(
        "{}: committed, but not finished ({source}); the next pgnlake command on the lake finishes it",
        .lake.display()
    )]
    Unfinished {
        lake: PathBuf,
        source: Box<LakeError>,
    },
    #[error(
        "{}: a damaged commit record, and its commit may have begun to move tables: \
         nothing was changed; put back the id its tables' `_commit` records hold, \
         or remove the import's staging folder by hand",
        .path.display()
    )]
    DamagedRecord { path: PathBuf },
    #[error("{}: {what}: not added", .path.display())]
    Damaged { path: PathBuf, what: String },
    /// `_compacted/imports.json` names an import the lake does not list:
    /// the compacted tree's game ids cannot be placed.
    #[error(
        "{}: import {name} is compacted but has no summary in {IMPORTS_DIR}/",
        .lake.display()
    )]
    CompactedUnlisted { lake: PathBuf, name: String },
    #[error(transparent)]
    Summary(#[from] SummaryError),
}

impl LakeError {
    /// The lake cannot be written by this user (a read-only file system,
    /// or no permission): readers read it as it is.
    pub fn is_read_only(&self) -> bool {
        matches!(self, LakeError::Io { source, .. } if matches!(
            source.kind(),
            io::ErrorKind::ReadOnlyFilesystem | io::ErrorKind::PermissionDenied
        ))
    }
}

/// A lake run's lock refused: held by another run (`Busy`), or not
/// taken at all (a read-only file system, no permission), named as such.
fn lock_refused(
    lake: &Path,
    name: String,
) -> impl FnOnce(crate::sink::lock::LockError) -> LakeError + '_ {
    move |error| match error {
        crate::sink::lock::LockError::Busy(_) => LakeError::Busy {
            lake: lake.to_path_buf(),
            name,
        },
        crate::sink::lock::LockError::Io { path, source } => LakeError::Io { path, source },
    }
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> LakeError + '_ {
    move |source| LakeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The options an import's tables depend on, which every import of a
/// lake must share for its aggregates to be summed.
#[derive(Debug, Clone, PartialEq)]
pub struct Compatibility {
    pub opening_plies: usize,
    pub opening_period: crate::stats::dimensions::OpeningPeriod,
    pub piece_values: crate::sink::summary::PieceValueNames,
}

impl Compatibility {
    /// What an import's summary says it was imported with.
    pub fn of(summary: &Summary) -> Compatibility {
        Compatibility {
            opening_plies: summary.opening_tree.plies,
            opening_period: summary.opening_tree.period,
            piece_values: summary.options.piece_values,
        }
    }

    fn describe(&self) -> String {
        let v = &self.piece_values;
        format!(
            "--opening-plies {} --opening-period {} --piece-values {},{},{},{},{}",
            self.opening_plies,
            period_name(self.opening_period),
            v.pawn,
            v.knight,
            v.bishop,
            v.rook,
            v.queen
        )
    }
}

/// `--opening-period`'s value as written on the command line.
pub fn period_name(period: crate::stats::dimensions::OpeningPeriod) -> String {
    // As clap spells the value (the enum derives `ValueEnum`); only a
    // skipped variant has none, and none is skipped.
    clap::ValueEnum::to_possible_value(&period)
        .map(|value| value.get_name().to_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe_folder_names() {
        assert!(check_name("lichess_db_standard_rated_2024-05").is_ok());
        assert!(check_name("twic1599").is_ok());
        for bad in ["", ".hidden", "_imports", "a/b", "..", "a b", "é"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        assert!(check_name(&"a".repeat(201)).is_err());
    }

    #[test]
    fn the_default_name_is_the_first_input_without_extensions() {
        let name = |p: &str| default_name(Path::new(p));
        assert_eq!(
            name("/data/lichess_db_standard_rated_2024-05.pgn.zst").as_deref(),
            Some("lichess_db_standard_rated_2024-05")
        );
        assert_eq!(name("sample-data").as_deref(), Some("sample-data"));
        assert_eq!(name("-"), None);
    }
}
