//! Lake, recovery: what killed runs left is finished (a commit or swap past
//! its `COMMIT` record) or cleared (one before it), under the lake's lock;
//! every lake command does it first, and a reader before it reads, so
//! that what it reads is one committed state.

use std::fs;
use std::path::{Path, PathBuf};

use super::journal::{
    self, COMMIT_FILE, LAYOUT_DIR, REMOVED_SUFFIX, commits_import, finish_commit, move_partitions,
    remove_lock_file,
};
use super::lock::LakeLock;
use super::record;
use super::{LakeError, STAGING_DIR, io_error, summary_path};
use crate::sink::lock::OutputLock;

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
    recover_layout(lake, lock)?;
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
pub(super) fn recover_one(lake: &Path, name: &str, staging: &Path) -> Result<(), LakeError> {
    if !staging.exists() {
        return Ok(());
    }
    // A `COMMIT` that is missing, empty or damaged is no commit; nor is
    // one whose id no staged or placed table of this import carries (a
    // record copied from another commit).
    let commit = staging.join(COMMIT_FILE);
    if let Some(id) = record::read_id(&commit).filter(|id| commits_import(lake, name, staging, id))
    {
        return finish_commit(lake, name, staging, &id);
    }
    // A damaged record: the commit went on if a table moved (which
    // needs a whole record), else it never was.
    if commit.exists()
        && let Some(id) = journal::begun_with_damaged_record(lake, name, staging)?
    {
        return finish_commit(lake, name, staging, &id);
    }
    fs::remove_dir_all(staging).map_err(io_error(staging))
}

/// Finishes the swap a killed run left journalled, or clears it if it was
/// killed before its `COMMIT`. The lake's lock is held.
pub(super) fn recover_layout(lake: &Path, _lock: &LakeLock) -> Result<(), LakeError> {
    let journal_dir = lake.join(STAGING_DIR).join(LAYOUT_DIR);
    if journal_dir.exists() {
        // A `COMMIT` that is missing, empty or damaged is no commit,
        // unless the swap had begun (which needs a whole record).
        let commit = journal_dir.join(COMMIT_FILE);
        let id = match record::read_id(&commit) {
            Some(id) => Some(id),
            None if commit.exists() => journal::swap_begun_with_damaged_record(lake, &journal_dir)?,
            None => None,
        };
        match id {
            Some(id) => return journal::finish_swap(lake, &journal_dir, &id),
            None => fs::remove_dir_all(&journal_dir).map_err(io_error(&journal_dir))?,
        }
    }
    journal::drop_uncovered(lake)
}

/// The lock to read `lake`: shared, taken where no killed run has left a
/// commit, a swap or a removal past its record (such a state is finished
/// first, with the lake's lock held exclusively, when this user can write
/// the lake). Holding it changes nothing. None: the lake has no lock this
/// user can open (a read-only lake without one), and is read as it is: no
/// one changes it.
pub fn read_lock(lake: &Path) -> Option<LakeLock> {
    for _ in 0..3 {
        let shared = LakeLock::shared(lake)?;
        if !pending(lake) {
            return Some(shared);
        }
        drop(shared);
        // Without waiting: another holder (a reader of this process too)
        // may hold the lock as long as it reads. A lake this user cannot
        // write is read as it is: what is left half done stays for a
        // command that can, which reports any failure.
        let Some(lock) = LakeLock::try_exclusive(lake) else {
            break;
        };
        if recover_held(lake, &lock).is_err() {
            break;
        }
    }
    LakeLock::shared(lake)
}

/// Has a killed run left something past its record, which a reader would
/// see half done: a commit's staging folder with its `COMMIT`, a swap's
/// journal with its `COMMIT`, a removal's folder? (A staging folder
/// without a record changes nothing a reader reads.)
fn pending(lake: &Path) -> bool {
    let Ok(entries) = fs::read_dir(lake.join(STAGING_DIR)) else {
        return false;
    };
    entries.flatten().map(|e| e.path()).any(|dir| {
        let removal = dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(REMOVED_SUFFIX));
        // A `COMMIT` that fails its check may still be a commit begun
        // (see `journal::begun_with_damaged_record`): recovery decides.
        dir.is_dir() && (removal || dir.join(COMMIT_FILE).exists())
    })
}
