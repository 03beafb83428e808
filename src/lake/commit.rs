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
//! next run of the same name replaces; from step 2 on, recovery redoes
//! steps 3 to 5 (every lake command calls it first).

use std::fs;
use std::path::{Path, PathBuf};

use super::compact;
use super::journal::{
    COMMIT_FILE, COMMIT_ID_FILE, OLD_DIR, PARTS_DIR, REMOVED_SUFFIX, STAGED_ID_FILE, finish_commit,
    move_partitions, remove_lock_file,
};
use super::lock::LakeLock;
use super::record;
use super::recovery::{recover, recover_held, recover_one};
use super::verify;
use super::{
    Compatibility, IMPORTS_DIR, LakeError, STAGING_DIR, io_error, listed, partition_dir,
    summary_path,
};
use crate::sink::lock::OutputLock;
use crate::sink::schema;
use crate::sink::summary::{SUMMARY_FILE, Summary};

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
    /// recovery leaves the staging folder alone.
    _lock: OutputLock,
    /// Set once committed: dropped before, the import's staging folder
    /// goes (see the `Drop`).
    committed: bool,
}

/// An import that failed before its commit record leaves the lake as it
/// was and nothing in `_staging/` (a kill leaves it to the next command);
/// one past its record is finished by the next command.
impl Drop for LakeImport {
    fn drop(&mut self) {
        let past_record = record::read_id(&self.staging.join(COMMIT_FILE)).is_some();
        if !self.committed && !past_record {
            // Best effort: the next command on the lake clears what stays.
            let _ = fs::remove_dir_all(&self.staging);
        }
        if self.committed || !past_record {
            remove_lock_file(&self.staging);
        }
    }
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
        let lock =
            OutputLock::for_file(&staging).map_err(super::lock_refused(lake, name.to_owned()))?;
        recover(lake)?;
        // A killed run of this name: finished, or cleared, before this one.
        recover_one(lake, name, &staging)?;
        // From here on, a refusal drops the import: its lock file goes.
        let import = LakeImport {
            lake: lake.to_path_buf(),
            name: name.to_owned(),
            staging,
            replace,
            _lock: lock,
            committed: false,
        };
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
        Ok(import)
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
                // A link is copied (its target's bytes, as checked), not
                // linked: the lake keeps no link to a file outside it.
                let is_link = fs::symlink_metadata(&file).is_ok_and(|m| m.is_symlink());
                if is_link || fs::hard_link(&file, &to).is_err() {
                    fs::copy(&file, &to).map_err(io_error(&file))?;
                }
            }
        }
        Ok(())
    }

    /// Moves the finished import into the lake (see the module's steps).
    /// Partitions of tables this import did not write (`moves` without
    /// `--moves`) are removed on `--replace`.
    pub fn commit(mut self) -> Result<(), LakeError> {
        // Another run of the same name may have committed meanwhile.
        if !self.replace && summary_path(&self.lake, &self.name).is_file() {
            return Err(LakeError::Exists {
                lake: self.lake.clone(),
                name: self.name.clone(),
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
        fs::create_dir_all(&parts).map_err(io_error(&parts))?;
        record::write(&parts.join(STAGED_ID_FILE), &id)?;
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
        finish_commit(&self.lake, &self.name, &self.staging, &id).map_err(|e| {
            LakeError::Unfinished {
                lake: self.lake.clone(),
                source: Box::new(e),
            }
        })?;
        self.committed = true;
        Ok(())
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
