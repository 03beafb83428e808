//! Sink stage, finished files waiting for the commit: every output of a
//! run (tables, summary, `clean`'s files and report, `export`'s PGN) is
//! written and closed under a temporary name first, where a full disk or a
//! refusing device is found, and only when all of them are finished are
//! they renamed, one after another, in the commit. So a run that fails
//! leaves every output as it was. Also a table's content digest, which
//! binds the tables to the summary that lists them.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A finished file under its temporary name; renamed over `target` by
/// [`Staged::commit`], removed if dropped before.
#[derive(Debug)]
pub(crate) struct Staged {
    tmp: Option<PathBuf>,
    target: PathBuf,
}

impl Staged {
    /// `tmp` (registered for interrupts by whoever created it) is to
    /// become `target`.
    pub(crate) fn new(tmp: PathBuf, target: PathBuf) -> Staged {
        Staged {
            tmp: Some(tmp),
            target,
        }
    }

    /// The temporary file, complete.
    pub(crate) fn path(&self) -> &Path {
        self.tmp.as_deref().unwrap_or(&self.target)
    }

    /// The final name.
    pub(crate) fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the file to its final name; never over what is not a
    /// regular file (a device or fifo that appeared there since the start:
    /// it is left as it is and the rename is the error).
    pub(crate) fn commit(mut self) -> io::Result<()> {
        let Some(tmp) = self.tmp.take() else {
            return Ok(());
        };
        if let Ok(metadata) = std::fs::symlink_metadata(&self.target)
            && !metadata.is_file()
        {
            self.tmp = Some(tmp);
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} is no longer a regular file; not replaced",
                    self.target.display()
                ),
            ));
        }
        std::fs::rename(&tmp, &self.target)?;
        crate::interrupt::unregister(&tmp);
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(&tmp);
            crate::interrupt::unregister(&tmp);
        }
    }
}

/// A table's content as its summary records it: the bytes of its files,
/// in order, and their CRC-32. `lake --add` takes a table only when its
/// files give the summary's digest, so that another import's file (a copy
/// or a link) with the same row count is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableDigest {
    pub bytes: u64,
    /// Lower-case hexadecimal, 8 digits.
    #[serde(with = "crc_hex")]
    pub crc32: u32,
}

impl std::fmt::Display for TableDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes, CRC-32 {:08x}", self.bytes, self.crc32)
    }
}

/// The digest of `files` read one after the other (links followed).
pub fn digest_files<P: AsRef<Path>>(files: &[P]) -> io::Result<TableDigest> {
    let mut hasher = crc32fast::Hasher::new();
    let mut bytes = 0u64;
    let mut buffer = vec![0u8; 1 << 20];
    for path in files {
        let mut file = File::open(path.as_ref())?;
        loop {
            let n = match file.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            hasher.update(&buffer[..n]);
            bytes += n as u64;
        }
    }
    Ok(TableDigest {
        bytes,
        crc32: hasher.finalize(),
    })
}

mod crc_hex {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(crc: &u32, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format!("{crc:08x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text.len() != 8 {
            return Err(serde::de::Error::custom(format!(
                "crc32 {text:?}: not 8 hexadecimal digits"
            )));
        }
        u32::from_str_radix(&text, 16).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_staged_file_is_renamed_on_commit_and_removed_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let (tmp, target) = (dir.path().join(".t.tmp"), dir.path().join("t"));
        std::fs::write(&tmp, "new").unwrap();
        std::fs::write(&target, "old").unwrap();
        drop(Staged::new(tmp.clone(), target.clone()));
        assert!(!tmp.exists());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        std::fs::write(&tmp, "new").unwrap();
        Staged::new(tmp.clone(), target.clone()).commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    }

    #[test]
    fn the_digest_of_parts_is_the_digest_of_the_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, whole) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("w"),
        );
        std::fs::write(&a, "hello ").unwrap();
        std::fs::write(&b, "world").unwrap();
        std::fs::write(&whole, "hello world").unwrap();
        let digest = digest_files(&[&whole]).unwrap();
        assert_eq!(digest_files(&[&a, &b]).unwrap(), digest);
        assert_eq!(digest.bytes, 11);
        assert_eq!(digest.crc32, crc32fast::hash(b"hello world"));
        let json = serde_json::to_string(&digest).unwrap();
        assert_eq!(
            json,
            format!("{{\"bytes\":11,\"crc32\":\"{:08x}\"}}", digest.crc32)
        );
        assert_eq!(serde_json::from_str::<TableDigest>(&json).unwrap(), digest);
    }
}
