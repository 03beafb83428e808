//! Lake: imports kept as Hive-style partitions of one growing dataset
//! (`LAKE/<table>/import=<NAME>/part-0.parquet`, the summary as
//! `LAKE/_imports/<NAME>.json`), so that each month's archive is added
//! without importing the others again and every engine reads them as one.
//!
//! An import is written whole into `LAKE/_staging/<NAME>/` (the folder an
//! ordinary `--out` import would write), then committed: each table's
//! partition folder is renamed into place (one rename per table, so a
//! reader of one table sees the partition whole or not at all; `--replace`
//! swaps the folders with `renameat2(RENAME_EXCHANGE)`), and its summary is
//! renamed into `_imports/` last. pgnlake reads only partitions with a
//! summary: a partition is committed by that one rename.

use std::ffi::CString;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::sink::schema::{self, Table};
use crate::sink::summary::{SUMMARY_FILE, Summary, SummaryError};

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
}

/// The committed imports of `lake`, by name.
pub fn partitions(lake: &Path) -> Result<Vec<Partition>, SummaryError> {
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
            let summary = Summary::read(&summary_path(lake, &name))?;
            Ok(Partition { name, summary })
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

/// The data file of `table` in the committed import `name`, if it has one
/// (`moves` only with `--moves`).
pub fn table_file(lake: &Path, table: &Table, name: &str) -> Option<PathBuf> {
    let file = partition_dir(lake, table, name).join(PART_FILE);
    file.is_file().then_some(file)
}

/// Each table's data files in the committed imports (import name, file),
/// in name order; tables no import has are left out.
pub fn table_files(
    lake: &Path,
) -> Result<Vec<(&'static Table, Vec<(String, PathBuf)>)>, SummaryError> {
    let names: Vec<String> = partitions(lake)?.into_iter().map(|p| p.name).collect();
    Ok(schema::TABLES
        .into_iter()
        .map(|table| {
            let files = names
                .iter()
                .filter_map(|name| Some((name.clone(), table_file(lake, table, name)?)))
                .collect::<Vec<_>>();
            (table, files)
        })
        .filter(|(_, files)| !files.is_empty())
        .collect())
}

/// Bytes of an import's data files.
pub fn partition_bytes(lake: &Path, name: &str) -> u64 {
    schema::TABLES
        .iter()
        .filter_map(|table| table_file(lake, table, name))
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
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Summary(#[from] SummaryError),
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
    fn of(summary: &Summary) -> Compatibility {
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
pub fn period_name(period: crate::stats::dimensions::OpeningPeriod) -> &'static str {
    use crate::stats::dimensions::OpeningPeriod;
    match period {
        OpeningPeriod::Month => "month",
        OpeningPeriod::Year => "year",
        OpeningPeriod::None => "none",
    }
}

/// An import on its way into a lake: written into its staging folder,
/// then committed.
#[derive(Debug)]
pub struct LakeImport {
    lake: PathBuf,
    name: String,
    staging: PathBuf,
    replace: bool,
}

impl LakeImport {
    /// Checks that `name` may be imported into `lake` with these options
    /// (refused: the name exists without `replace`; another import's
    /// options differ) and prepares its staging folder. The staging folder
    /// of the same name is the import's output folder, so its lock refuses
    /// a second run of the same name while the first runs.
    pub fn begin(
        lake: &Path,
        name: &str,
        replace: bool,
        options: &Compatibility,
    ) -> Result<LakeImport, LakeError> {
        for dir in [lake.join(IMPORTS_DIR), lake.join(STAGING_DIR)] {
            fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        }
        let exists = summary_path(lake, name).is_file();
        if exists && !replace {
            return Err(LakeError::Exists {
                lake: lake.to_path_buf(),
                name: name.to_owned(),
            });
        }
        for other in partitions(lake)? {
            let theirs = Compatibility::of(&other.summary);
            if other.name != name && theirs != *options {
                return Err(LakeError::Incompatible {
                    lake: lake.to_path_buf(),
                    other: other.name,
                    what: theirs.describe(),
                });
            }
        }
        Ok(LakeImport {
            lake: lake.to_path_buf(),
            name: name.to_owned(),
            staging: lake.join(STAGING_DIR).join(name),
            replace,
        })
    }

    /// The folder to import into (as `--out`).
    pub fn staging(&self) -> &Path {
        &self.staging
    }

    /// Moves the finished import into the lake: each table's partition,
    /// then its summary (the commit). Call it after the import's output
    /// lock is released. Partitions of tables this import did not write
    /// (`moves` without `--moves`) are removed on `--replace`.
    pub fn commit(self) -> Result<(), LakeError> {
        // Another run of the same name may have committed meanwhile.
        if !self.replace && summary_path(&self.lake, &self.name).is_file() {
            return Err(LakeError::Exists {
                lake: self.lake,
                name: self.name,
            });
        }
        let parts = self.staging.join("_parts");
        let old = self.staging.join("_old");
        for dir in [&parts, &old] {
            fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        for table in schema::TABLES {
            let target = partition_dir(&self.lake, table, &self.name);
            let written = self.staging.join(table.file_name());
            if written.is_file() {
                let part = parts.join(table.name);
                fs::create_dir_all(&part).map_err(io_error(&part))?;
                fs::rename(&written, part.join(PART_FILE)).map_err(io_error(&written))?;
                let table_dir = self.lake.join(table.name);
                fs::create_dir_all(&table_dir).map_err(io_error(&table_dir))?;
                if target.exists() {
                    exchange(&part, &target).map_err(io_error(&target))?;
                } else {
                    fs::rename(&part, &target).map_err(io_error(&target))?;
                }
            } else if self.replace && target.exists() {
                fs::rename(&target, old.join(table.name)).map_err(io_error(&target))?;
            }
        }
        let summary = summary_path(&self.lake, &self.name);
        let pending = self
            .lake
            .join(IMPORTS_DIR)
            .join(format!(".{}.json.tmp", self.name));
        fs::copy(self.staging.join(SUMMARY_FILE), &pending).map_err(io_error(&pending))?;
        fs::File::open(&pending)
            .and_then(|f| f.sync_all())
            .map_err(io_error(&pending))?;
        fs::rename(&pending, &summary).map_err(io_error(&summary))?;
        // What is left is the replaced partitions and the staging files.
        fs::remove_dir_all(&self.staging).map_err(io_error(&self.staging))
    }
}

/// Swaps two folders in one step (Linux `renameat2` with
/// `RENAME_EXCHANGE`): a reader sees one or the other, never neither.
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both are NUL-terminated paths that live across the call.
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Removes the import `name` from `lake`: its summary first (from then on
/// pgnlake does not read it), then its partitions; also the partitions an
/// import killed during its commit left without a summary. False: the lake
/// has nothing of that name.
pub fn remove(lake: &Path, name: &str) -> Result<bool, LakeError> {
    let summary = summary_path(lake, name);
    let partitions: Vec<(&Table, PathBuf)> = schema::TABLES
        .into_iter()
        .map(|table| (table, partition_dir(lake, table, name)))
        .filter(|(_, dir)| dir.exists())
        .collect();
    if !summary.is_file() && partitions.is_empty() {
        return Ok(false);
    }
    let trash = lake.join(STAGING_DIR).join(format!("{name}.removed"));
    fs::create_dir_all(&trash).map_err(io_error(&trash))?;
    if summary.is_file() {
        fs::rename(&summary, trash.join(SUMMARY_FILE)).map_err(io_error(&summary))?;
    }
    for (table, dir) in partitions {
        fs::rename(&dir, trash.join(table.name)).map_err(io_error(&dir))?;
    }
    fs::remove_dir_all(&trash).map_err(io_error(&trash))?;
    Ok(true)
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

    #[test]
    fn exchange_swaps_two_folders() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        fs::create_dir(&a).unwrap();
        fs::create_dir(&b).unwrap();
        fs::write(a.join("x"), "from a").unwrap();
        exchange(&a, &b).unwrap();
        assert_eq!(fs::read_to_string(b.join("x")).unwrap(), "from a");
        assert!(!a.join("x").exists());
    }
}
