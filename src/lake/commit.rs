//! Lake, the commit: an import written into `_staging/NAME/` becomes part
//! of the lake by steps that can each be redone, so that a run killed at
//! any point (kill -9, power cut) is finished by the next command on the
//! lake, or was never visible.
//!
//! 1. Each table file moves into `_staging/NAME/_parts/<table>/`, with a
//!    `_commit` file holding this commit's id.
//! 2. `_staging/NAME/COMMIT` is written (the id; the staged files synced
//!    first, the record whole or not at all: see [`super::record`]): from
//!    here on the import will be committed, by this run or the next.
//! 3. Each `_parts/<table>` folder is renamed to `<table>/import=NAME`, or
//!    swapped with it in one step (`--replace`); a folder whose `_commit`
//!    is already this id is done.
//! 4. The summary is renamed into `_imports/NAME.json`: pgnlake reads the
//!    import from then on.
//! 5. `_staging/NAME` (and with it the replaced partitions) is deleted.
//!
//! Before step 2 a killed run leaves only its staging folder, which the
//! next run of the same name replaces; from step 2 on, [`recover`] redoes
//! steps 3 to 5 (every lake command calls it first).

use std::ffi::CString;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::compact::{self, LAYOUT_DIR};
use super::lock::LakeLock;
use super::record;
use super::verify;
use super::{
    Compatibility, IMPORTS_DIR, LakeError, STAGING_DIR, io_error, listed, partition_dir,
    summary_path,
};
use crate::sink::lock::OutputLock;
use crate::sink::schema;
use crate::sink::summary::{SUMMARY_FILE, Summary};

/// The file that marks a staging folder as committing, holding its id.
const COMMIT_FILE: &str = "COMMIT";
/// The id of the commit that wrote a partition folder.
const COMMIT_ID_FILE: &str = "_commit";
/// Where a staging folder keeps its tables' partition folders.
const PARTS_DIR: &str = "_parts";
/// Where a replacing commit puts the replaced import's tables that it
/// did not write, until its staging folder is deleted.
const OLD_DIR: &str = "_old";
/// Suffix of a removed import's folder in `_staging/` until it is deleted.
const REMOVED_SUFFIX: &str = ".removed";

/// An import on its way into a lake: written into its staging folder,
/// then committed.
#[derive(Debug)]
pub struct LakeImport {
    lake: PathBuf,
    name: String,
    staging: PathBuf,
    replace: bool,
    /// `_staging/.NAME.lock`, held from the start of the import to the end
    /// of its commit: a second run of the same name is refused, and
    /// [`recover`] leaves the staging folder alone.
    lock: OutputLock,
}

impl LakeImport {
    /// Checks that `name` may be imported into `lake` with these options
    /// (refused: the name exists without `replace`; another import's
    /// options differ) and prepares its staging folder. The staging folder
    /// is the import's output folder, so its lock refuses a second run of
    /// the same name while the first runs.
    pub fn begin(
        lake: &Path,
        name: &str,
        replace: bool,
        options: &Compatibility,
    ) -> Result<LakeImport, LakeError> {
        super::check_not_import_folder(lake)?;
        for dir in [lake.join(IMPORTS_DIR), lake.join(STAGING_DIR)] {
            fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        }
        let staging = lake.join(STAGING_DIR).join(name);
        let lock = OutputLock::for_file(&staging).map_err(|_| LakeError::Busy {
            lake: lake.to_path_buf(),
            name: name.to_owned(),
        })?;
        recover(lake)?;
        // A killed run of this name: finished, or cleared, before this one.
        recover_one(lake, name, &staging)?;
        if summary_path(lake, name).is_file() && !replace {
            return Err(LakeError::Exists {
                lake: lake.to_path_buf(),
                name: name.to_owned(),
            });
        }
        for other in listed(lake)? {
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
            staging,
            replace,
            lock,
        })
    }

    /// The folder to import into (as `--out`).
    pub fn staging(&self) -> &Path {
        &self.staging
    }

    /// Stages a finished import's folder `dir` (its summary and tables:
    /// pgnlake's `TABLE.parquet` files, or `TABLE/` folders of part files
    /// as the Spark job writes them), hard-linked where the file system
    /// allows it, else copied: `dir` is left as it is. Refused, naming the
    /// file, unless every table `summary` lists is there, reads as Parquet
    /// with its columns and has the rows it says (the caller holds `dir`'s
    /// lock, so no run changes it meanwhile).
    pub fn stage_folder(&self, dir: &Path, summary: &Summary) -> Result<(), LakeError> {
        verify::check_folder(dir, summary)?;
        fs::create_dir_all(&self.staging).map_err(io_error(&self.staging))?;
        let summary = dir.join(SUMMARY_FILE);
        let staged = self.staging.join(SUMMARY_FILE);
        fs::copy(&summary, &staged).map_err(io_error(&summary))?;
        for table in schema::TABLES {
            for (file, name) in verify::folder_files(dir, table) {
                let to = match file.parent() == Some(dir) {
                    true => self.staging.join(table.file_name()),
                    false => {
                        let folder = self.staging.join(table.name);
                        fs::create_dir_all(&folder).map_err(io_error(&folder))?;
                        folder.join(&name)
                    }
                };
                if fs::hard_link(&file, &to).is_err() {
                    fs::copy(&file, &to).map_err(io_error(&file))?;
                }
            }
        }
        Ok(())
    }

    /// Moves the finished import into the lake (see the module's steps).
    /// Partitions of tables this import did not write (`moves` without
    /// `--moves`) are removed on `--replace`.
    pub fn commit(self) -> Result<(), LakeError> {
        // Another run of the same name may have committed meanwhile.
        if !self.replace && summary_path(&self.lake, &self.name).is_file() {
            return Err(LakeError::Exists {
                lake: self.lake,
                name: self.name,
            });
        }
        let lock = LakeLock::exclusive(&self.lake)?;
        recover_held(&self.lake, &lock)?;
        if self.replace {
            // The import it replaces was compacted: the others' statistics
            // go back to their own partitions first.
            compact::uncover(&self.lake, &self.name, &lock)?;
        }
        let id = record::new_id();
        let parts = self.staging.join(PARTS_DIR);
        for table in schema::TABLES {
            let files = verify::folder_files(&self.staging, table);
            if files.is_empty() {
                continue;
            }
            let part = parts.join(table.name);
            fs::create_dir_all(&part).map_err(io_error(&part))?;
            for (file, name) in files {
                fs::rename(&file, part.join(name)).map_err(io_error(&file))?;
            }
            record::write(&part.join(COMMIT_ID_FILE), &id)?;
        }
        record::step();
        // Whatever the steps after the record need (folders) is made
        // before it, so that a full disk fails the commit before it, not
        // after; and what the record commits is on disk before it is.
        fs::create_dir_all(self.staging.join(OLD_DIR)).map_err(io_error(&self.staging))?;
        for table in schema::TABLES
            .iter()
            .filter(|t| parts.join(t.name).is_dir())
        {
            let table_dir = self.lake.join(table.name);
            fs::create_dir_all(&table_dir).map_err(io_error(&table_dir))?;
        }
        record::sync_tree(&self.staging)?;
        record::write(&self.staging.join(COMMIT_FILE), &id)?;
        finish(&self.lake, &self.name, &self.staging, &id).map_err(|e| LakeError::Unfinished {
            lake: self.lake.clone(),
            source: Box::new(e),
        })?;
        remove_lock_file(&self.staging);
        drop(self.lock);
        Ok(())
    }
}

/// The id of the commit that wrote the partition folder `dir`.
pub(super) fn commit_id_of(dir: &Path) -> Option<String> {
    record::read_id(&dir.join(COMMIT_ID_FILE))
}

/// Steps 3 to 5 of the commit `id` of import `name` staged in `staging`;
/// each step is skipped when done, so this finishes a commit that a killed
/// run left half-way.
fn finish(lake: &Path, name: &str, staging: &Path, id: &str) -> Result<(), LakeError> {
    let parts = staging.join(PARTS_DIR);
    let old = staging.join(OLD_DIR);
    fs::create_dir_all(&old).map_err(io_error(&old))?;
    for table in schema::TABLES {
        let target = partition_dir(lake, table, name);
        let part = parts.join(table.name);
        let staged = commit_id_of(&part).as_deref() == Some(id);
        if staged {
            let table_dir = lake.join(table.name);
            fs::create_dir_all(&table_dir).map_err(io_error(&table_dir))?;
            if target.exists() {
                exchange(&part, &target).map_err(io_error(&target))?;
            } else {
                fs::rename(&part, &target).map_err(io_error(&target))?;
            }
            record::sync_parent(&target)?;
            record::step();
        } else if target.exists() && commit_id_of(&target).as_deref() != Some(id) {
            // The replaced import's table that this one did not write.
            fs::rename(&target, old.join(table.name)).map_err(io_error(&target))?;
            record::sync_parent(&target)?;
            record::step();
        }
    }
    let staged_summary = staging.join(SUMMARY_FILE);
    if staged_summary.is_file() {
        let summary = summary_path(lake, name);
        fs::rename(&staged_summary, &summary).map_err(io_error(&summary))?;
        record::sync_parent(&summary)?;
        record::step();
    }
    fs::remove_dir_all(staging).map_err(io_error(staging))
}

/// Finishes what killed runs left in `lake`: commits that reached their
/// `COMMIT` file are completed, imports killed before it are cleared,
/// removals and compactions are completed. Staging folders of runs still
/// going (locked) are left alone.
pub fn recover(lake: &Path) -> Result<(), LakeError> {
    if !lake.join(STAGING_DIR).is_dir() {
        return Ok(());
    }
    let lock = LakeLock::exclusive(lake)?;
    recover_held(lake, &lock)
}

/// [`recover`], the lake's lock held.
pub(super) fn recover_held(lake: &Path, lock: &LakeLock) -> Result<(), LakeError> {
    let staging = lake.join(STAGING_DIR);
    compact::recover_layout(lake, lock)?;
    let Ok(entries) = fs::read_dir(&staging) else {
        return Ok(());
    };
    let (mut dirs, files): (Vec<PathBuf>, Vec<PathBuf>) = entries
        .flatten()
        .map(|e| e.path())
        .partition(|p| p.is_dir());
    dirs.sort();
    // Lock files of runs that died before making their staging folder
    // (not the lake's own lock, held now).
    for file in files.into_iter().filter(|f| !LakeLock::is_lock_file(f)) {
        let staging = file
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix('.')?.strip_suffix(".lock"))
            .map(|name| file.with_file_name(name));
        if let Some(staging) = staging
            && !staging.exists()
            && OutputLock::for_file(&staging).is_ok()
        {
            remove_lock_file(&staging);
        }
    }
    for dir in dirs {
        let Some(file_name) = dir.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            continue;
        };
        if file_name == LAYOUT_DIR {
            continue;
        }
        if let Some(name) = file_name.strip_suffix(REMOVED_SUFFIX) {
            // Partitions a killed removal left behind go too, unless the
            // name has been imported again since.
            if !summary_path(lake, name).is_file() {
                move_partitions(lake, name, &dir)?;
            }
            fs::remove_dir_all(&dir).map_err(io_error(&dir))?;
            continue;
        }
        // A run holding the lock is importing or committing it now.
        let Ok(_lock) = OutputLock::for_file(&dir) else {
            continue;
        };
        recover_one(lake, &file_name, &dir)?;
        remove_lock_file(&dir);
    }
    Ok(())
}

/// The staging folder of import `name`, its run gone: its commit finished
/// if it reached its `COMMIT` file, else the folder removed.
fn recover_one(lake: &Path, name: &str, staging: &Path) -> Result<(), LakeError> {
    if !staging.exists() {
        return Ok(());
    }
    // A `COMMIT` that is missing, empty or damaged is no commit.
    match record::read_id(&staging.join(COMMIT_FILE)) {
        Some(id) => finish(lake, name, staging, &id),
        None => fs::remove_dir_all(staging).map_err(io_error(staging)),
    }
}

/// The lock file of a staging folder, once its work is done (it is only
/// ever created again by the next run of that name).
pub(super) fn remove_lock_file(staging: &Path) {
    if let Some(name) = staging.file_name() {
        let mut file = std::ffi::OsString::from(".");
        file.push(name);
        file.push(".lock");
        let _ = fs::remove_file(staging.with_file_name(file));
    }
}

/// Swaps two folders in one step (Linux `renameat2` with
/// `RENAME_EXCHANGE`): a reader sees one or the other, never neither.
pub(super) fn exchange(a: &Path, b: &Path) -> io::Result<()> {
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
/// pgnlake does not read it), then its partitions, all moved into one
/// folder of `_staging/` that is deleted last (or by the next command, if
/// this one is killed); also the partitions an import killed during its
/// commit left without a summary. False: the lake has nothing of that name.
pub fn remove(lake: &Path, name: &str) -> Result<bool, LakeError> {
    let lock = LakeLock::exclusive(lake)?;
    recover_held(lake, &lock)?;
    compact::uncover(lake, name, &lock)?;
    let summary = summary_path(lake, name);
    let any_partition = schema::TABLES
        .into_iter()
        .any(|table| partition_dir(lake, table, name).exists());
    if !summary.is_file() && !any_partition {
        return Ok(false);
    }
    let trash = lake
        .join(STAGING_DIR)
        .join(format!("{name}{REMOVED_SUFFIX}"));
    fs::create_dir_all(&trash).map_err(io_error(&trash))?;
    if summary.is_file() {
        fs::rename(&summary, trash.join(SUMMARY_FILE)).map_err(io_error(&summary))?;
        record::sync_parent(&summary)?;
        record::step();
    }
    move_partitions(lake, name, &trash)?;
    fs::remove_dir_all(&trash).map_err(io_error(&trash))?;
    Ok(true)
}

/// Moves every partition folder of import `name` into `trash`.
fn move_partitions(lake: &Path, name: &str, trash: &Path) -> Result<(), LakeError> {
    for table in schema::TABLES {
        let dir = partition_dir(lake, table, name);
        if dir.exists() {
            let to = trash.join(table.name);
            if to.exists() {
                fs::remove_dir_all(&to).map_err(io_error(&to))?;
            }
            fs::rename(&dir, &to).map_err(io_error(&dir))?;
            record::step();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
