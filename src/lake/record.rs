//! Lake, commit records: the small files whose presence and content decide
//! what a killed run left behind (a staging folder's `COMMIT`, a partition's
//! `_commit`, a swapped table folder's `_layout`, the compacted imports'
//! list). A record is written whole or not at all: under a temporary name,
//! synced, renamed into place, its folder synced; so a kill or a full disk
//! at any point leaves either no record or the whole one. A record also
//! carries its own check, a last line with its body's length and CRC-32
//! (`pgnlake-record len=N crc32=HEX`): a record cut short, altered or
//! copied in part by a damaged disk or by hand fails it and is no record,
//! even where what is left would still parse.

use std::ffi::CString;
use std::fs;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use super::{LakeError, io_error};

/// A commit's id: unique enough to tell this commit's partition folders
/// from those it replaces (process id and the time in nanoseconds).
pub(super) fn new_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{nanos}", std::process::id())
}

/// Is `text` an id [`new_id`] makes (digits, `-`, digits)?
fn is_id(text: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    text.split_once('-')
        .is_some_and(|(pid, nanos)| digits(pid) && digits(nanos))
}

/// The first word of a record's check line.
const CHECK_PREFIX: &str = "pgnlake-record ";

/// `body` with its check line (see the module).
fn sealed(body: &str) -> String {
    format!(
        "{body}\n{CHECK_PREFIX}len={} crc32={:08x}\n",
        body.len(),
        crc32fast::hash(body.as_bytes())
    )
}

/// The body of a sealed record, if its check line is there and holds.
pub(super) fn unsealed(text: &str) -> Option<&str> {
    let text = text.strip_suffix('\n')?;
    let (body, check) = text.rsplit_once('\n')?;
    let fields = check.strip_prefix(CHECK_PREFIX)?;
    let (len, crc) = fields.split_once(' ')?;
    let len: usize = len.strip_prefix("len=")?.parse().ok()?;
    let crc = u32::from_str_radix(crc.strip_prefix("crc32=")?, 16).ok()?;
    (len == body.len() && crc == crc32fast::hash(body.as_bytes())).then_some(body)
}

/// The body of the record at `path`: None when the file is missing,
/// unreadable, or fails its check (an empty, cut or damaged record is no
/// record).
pub(super) fn read(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    unsealed(&text).map(str::to_owned)
}

/// The id recorded at `path`: None when there is no record (see [`read`])
/// or it holds no id.
pub(super) fn read_id(path: &Path) -> Option<String> {
    read(path).filter(|text| is_id(text))
}

/// `path`'s temporary name while it is written: hidden (`.`), so that no
/// reader takes it for data, and in the same folder, so that the rename is
/// atomic.
fn temporary(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "record".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp"))
}

/// Writes the record `path`, `text` and its check, whole or not at all
/// (see the module). On an error the temporary file is removed and `path`
/// is as it was.
pub(super) fn write(path: &Path, text: &str) -> Result<(), LakeError> {
    let tmp = temporary(path);
    let text = sealed(text);
    let written: io::Result<()> = (|| {
        let mut file = fs::File::create(&tmp)?;
        // A kill here leaves an empty temporary file: no record.
        step();
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    if let Err(source) = written {
        let _ = fs::remove_file(&tmp);
        return Err(LakeError::Io {
            path: path.to_path_buf(),
            source,
        });
    }
    fs::rename(&tmp, path).map_err(io_error(path))?;
    sync_parent(path)
}

/// Syncs the folder holding `path`, so that a rename or a new entry in it
/// survives a power cut.
pub(super) fn sync_parent(path: &Path) -> Result<(), LakeError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    sync_dir(dir)
}

/// Syncs the folder `dir` itself (its entries).
pub(super) fn sync_dir(dir: &Path) -> Result<(), LakeError> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_error(dir))
}

/// Syncs every file below `dir` and the folders themselves: what a commit
/// record will point to is on disk before the record is.
pub(super) fn sync_tree(dir: &Path) -> Result<(), LakeError> {
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let path = entry.map_err(io_error(dir))?.path();
        if path.is_dir() {
            sync_tree(&path)?;
        } else {
            fs::File::open(&path)
                .and_then(|f| f.sync_all())
                .map_err(io_error(&path))?;
        }
    }
    sync_dir(dir)
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

/// Steps of the lake's changes this process has done: after each rename
/// of a commit, removal or compaction, and between creating and writing
/// each record.
static STEPS: AtomicU32 = AtomicU32::new(0);

/// For the fault tests only: `PGNLAKE_LAKE_CRASH_AFTER=N` aborts the
/// process at the Nth step (as kill -9 would stop it: no cleanup at all);
/// `PGNLAKE_LAKE_STALL_AT=N` sleeps 2 s there (a moment for a signal).
static TEST_HOOKS: OnceLock<(Option<u32>, Option<u32>)> = OnceLock::new();

/// One step of a lake change done (see [`STEPS`]).
pub(super) fn step() {
    let (crash, stall) = TEST_HOOKS.get_or_init(|| {
        let number = |name: &str| std::env::var(name).ok().and_then(|n| n.parse().ok());
        (
            number("PGNLAKE_LAKE_CRASH_AFTER"),
            number("PGNLAKE_LAKE_STALL_AT"),
        )
    });
    let done = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
    if *crash == Some(done) {
        std::process::abort();
    }
    if *stall == Some(done) {
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_recognised_and_damaged_records_are_none() {
        let id = new_id();
        assert!(is_id(&id), "{id}");
        for bad in ["", "-", "12-", "-34", "12 34", "12-34\n", "x-1"] {
            assert!(!is_id(bad), "{bad:?}");
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("COMMIT");
        assert_eq!(read_id(&path), None);
        fs::write(&path, "").unwrap();
        assert_eq!(read_id(&path), None);
        write(&path, &id).unwrap();
        assert_eq!(read_id(&path).as_deref(), Some(id.as_str()));
        // An id cut short that still reads as one, with or without the
        // check line, is no record; so is a bare id (no check) or a check
        // of another body.
        let sealed_text = fs::read_to_string(&path).unwrap();
        let cut = &id[..id.len() - 3];
        assert!(is_id(cut), "{cut}");
        let (_, check) = sealed_text.split_once('\n').unwrap();
        for damaged in [
            format!("{cut}\n{check}"),
            cut.to_owned(),
            id.clone(),
            sealed_text[..sealed_text.len() - 1].to_owned(),
            sealed_text.replacen(&id[..1], "9", 1),
        ] {
            if damaged == sealed_text {
                continue;
            }
            fs::write(&path, &damaged).unwrap();
            assert_eq!(read_id(&path), None, "{damaged:?}");
        }
        fs::write(&path, &sealed_text).unwrap();
        assert_eq!(read_id(&path).as_deref(), Some(id.as_str()));
        // Nothing else is left in the folder: the temporary name is gone.
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["COMMIT"]);
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

    #[test]
    fn a_failed_write_leaves_the_record_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-folder").join("COMMIT");
        assert!(write(&path, "1-2").is_err());
        assert!(!path.exists());
    }
}
