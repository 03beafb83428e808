//! Lake, its lock: the folders a reader lists must not change under it.
//! Every change to a lake's table folders (a commit's renames, a removal,
//! a compaction's swaps) holds `_staging/.lake.lock` exclusively, for
//! milliseconds; pgnlake's readers hold it shared while they read, so a
//! change waits for them and they never find a file gone mid-read. Taking
//! a lock changes nothing in the lake.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use super::{LakeError, STAGING_DIR, io_error};

/// A held lock of a lake (shared or exclusive); released when dropped.
#[derive(Debug)]
pub struct LakeLock {
    _file: File,
}

/// The lock's file, in `_staging/`.
const LOCK_FILE: &str = ".lake.lock";

fn lock_path(lake: &Path) -> PathBuf {
    lake.join(STAGING_DIR).join(LOCK_FILE)
}

fn open_lock_file(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
}

impl LakeLock {
    pub(super) fn is_lock_file(path: &Path) -> bool {
        path.file_name().is_some_and(|name| name == LOCK_FILE)
    }

    /// The lock to change the lake's folders, waiting for readers and
    /// other changes to end.
    pub(crate) fn exclusive(lake: &Path) -> Result<LakeLock, LakeError> {
        let dir = lake.join(STAGING_DIR);
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        let path = lock_path(lake);
        let file = open_lock_file(&path).map_err(io_error(&path))?;
        file.lock().map_err(io_error(&path))?;
        Ok(LakeLock { _file: file })
    }

    /// [`LakeLock::exclusive`] if no one holds the lock now; None if
    /// someone does, or it cannot be taken (a read-only lake).
    pub(super) fn try_exclusive(lake: &Path) -> Option<LakeLock> {
        let file = open_lock_file(&lock_path(lake)).ok()?;
        file.try_lock().ok()?;
        Some(LakeLock { _file: file })
    }

    /// The lock to read the lake, shared: changes wait for it, and it
    /// changes nothing (`recovery::read_lock` finishes what killed runs
    /// left before taking it). None: no lock file this user can open.
    pub(crate) fn shared(lake: &Path) -> Option<LakeLock> {
        let path = lock_path(lake);
        let file = open_lock_file(&path).or_else(|_| File::open(&path)).ok()?;
        file.lock_shared().ok()?;
        Some(LakeLock { _file: file })
    }
}
