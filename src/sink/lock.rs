//! Sink stage, output locks: two runs writing the same output at once would
//! interleave their temporary files and renames. Each run holds an advisory
//! lock (`flock`) on a lock file beside its output for as long as it runs;
//! a second run finds it held and refuses. The kernel drops the lock when
//! the process ends, however it ends, so a crash leaves no stale lock (the
//! file stays; it is empty and harmless).

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

/// A held output lock; released when dropped.
#[derive(Debug)]
pub(crate) struct OutputLock {
    /// None for an output written through (a device, a fifo): no lock
    /// file is made beside it.
    _file: Option<File>,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("another pgnlake run is writing here (it holds {}); wait for it to end or choose another output", .0.display())]
    Busy(PathBuf),
    #[error("cannot lock {}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
}

impl OutputLock {
    /// Takes the lock at `path` (created if missing) without waiting.
    pub(crate) fn acquire(path: &Path) -> Result<OutputLock, LockError> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| LockError::Io {
                path: path.to_path_buf(),
                source: e,
            })?;
        match file.try_lock() {
            Ok(()) => Ok(OutputLock { _file: Some(file) }),
            Err(TryLockError::WouldBlock) => Err(LockError::Busy(path.to_path_buf())),
            Err(TryLockError::Error(e)) => Err(LockError::Io {
                path: path.to_path_buf(),
                source: e,
            }),
        }
    }

    /// The lock file's name in an output folder.
    pub(crate) const FOLDER_FILE: &str = ".pgnlake.lock";

    /// The lock of an output folder: `DIR/.pgnlake.lock`.
    pub(crate) fn for_folder(dir: &Path) -> Result<OutputLock, LockError> {
        Self::acquire(&dir.join(Self::FOLDER_FILE))
    }

    /// The lock of an output file: `.NAME.lock` beside it (beside the file
    /// its links end at; none for a device or fifo, which is written
    /// through, not renamed over).
    pub(crate) fn for_file(path: &Path) -> Result<OutputLock, LockError> {
        // Output files exist with the tables only (`sink::output`).
        #[cfg(feature = "tables")]
        let path = match crate::sink::output::lock_target(path) {
            Some(target) => target,
            None => return Ok(OutputLock { _file: None }),
        };
        let name = path
            .file_name()
            .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        Self::acquire(&path.with_file_name(format!(".{name}.lock")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let first = OutputLock::for_folder(dir.path());
        assert!(first.is_ok());
        let second = OutputLock::for_folder(dir.path());
        assert!(matches!(second, Err(LockError::Busy(_))), "{second:?}");
        drop(first);
        assert!(OutputLock::for_folder(dir.path()).is_ok());
    }
}
