//! Sink stage, output files: `clean`'s PGN, `export`'s PGN, `query`'s
//! results and `report`'s page go to stdout or to a file written under a
//! temporary name (registered for interrupts) and renamed only when
//! complete, so a failed run leaves no half-written file under the final
//! name. A symbolic link is followed to the file it names (the link stays a
//! link; its target, created when absent, gets the output); a device, fifo
//! or socket is written through, never replaced.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::staged::Staged;

/// How many links a chain may have before it is taken for a loop (as
/// Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// An output file: stdout, a file written under a temporary name and
/// renamed when complete, or a device or fifo written into as the output
/// goes; compressed by its suffix (`.zst`, `.gz`). Dropped unfinished (a
/// failed run), the temporary file is removed.
pub(crate) struct FileOutput {
    sink: Option<Sink>,
    /// The path as given (messages).
    path: PathBuf,
    /// The temporary file and the path it is renamed to when complete (the
    /// file a chain of links ends at), if the output is a file.
    tmp: Option<(PathBuf, PathBuf)>,
}

impl Drop for FileOutput {
    fn drop(&mut self) {
        if let Some((tmp, _)) = self.tmp.take() {
            self.sink = None;
            let _ = std::fs::remove_file(&tmp);
            crate::interrupt::unregister(&tmp);
        }
    }
}

enum Sink {
    Stdout(BufWriter<io::Stdout>),
    Plain(BufWriter<File>),
    Zstd(zstd::Encoder<'static, BufWriter<File>>),
    Gzip(flate2::write::GzEncoder<BufWriter<File>>),
}

/// Where an output path's bytes go.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Destination {
    /// `-`.
    Stdout,
    /// A file, written as `.NAME.tmp` beside this path (the end of the
    /// chain of links, existing or not) and renamed over it when complete.
    File(PathBuf),
    /// Something that is not a regular file (a device, a fifo, a socket):
    /// opened for writing and written into; never truncated or replaced.
    WriteThrough,
}

/// Where the output `path` goes: stdout, a file (the final target of its
/// links) or something written through. A directory is an error.
fn destination(path: &Path) -> io::Result<Destination> {
    if path == Path::new("-") {
        return Ok(Destination::Stdout);
    }
    // What the path names, links followed (as the kernel follows them:
    // `/dev/stdout` onto a pipe is a fifo here).
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            ));
        }
        Ok(metadata) if !metadata.is_file() => return Ok(Destination::WriteThrough),
        _ => {}
    }
    // A regular file, or nothing yet (a dangling link: its target is made).
    Ok(Destination::File(link_target(path)?))
}

/// The end of `path`'s chain of symbolic links, which need not exist;
/// `path` itself when it is not a link.
fn link_target(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let link = std::fs::read_link(&path)?;
                // A relative link is relative to the folder holding it.
                path = match path.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}

/// The folder the temporary file of an output at `path` goes to (that of
/// the file its links end at); `None` for stdout and for what is written
/// through.
pub(crate) fn temporary_folder(path: &Path) -> Option<PathBuf> {
    match destination(path) {
        Ok(Destination::File(target)) => Some(
            target
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf(),
        ),
        _ => None,
    }
}

/// The file an output at `path` ends up in (the end of its links), for a
/// writer that must write a file of its own (Parquet); `None` for stdout
/// and for what is written through, which such a writer fills from a
/// temporary file when it is complete.
pub(crate) fn file_target(path: &Path) -> io::Result<Option<PathBuf>> {
    Ok(match destination(path)? {
        Destination::File(target) => Some(target),
        Destination::Stdout | Destination::WriteThrough => None,
    })
}

/// The path an output's lock goes beside: the file its links end at;
/// `None` for stdout and for what is written through. A path that cannot
/// be an output (a folder: the lake's staging folders are locked so) is
/// its own.
pub(crate) fn lock_target(path: &Path) -> Option<PathBuf> {
    match destination(path) {
        Ok(Destination::File(target)) => Some(target),
        Ok(Destination::Stdout | Destination::WriteThrough) => None,
        Err(_) => Some(path.to_path_buf()),
    }
}

impl FileOutput {
    /// Errors are the I/O errors themselves: the caller names the path.
    pub(crate) fn create(path: &Path) -> io::Result<FileOutput> {
        let (file, tmp) = match destination(path)? {
            Destination::Stdout => {
                return Ok(FileOutput {
                    sink: Some(Sink::Stdout(BufWriter::new(io::stdout()))),
                    path: path.to_path_buf(),
                    tmp: None,
                });
            }
            // No truncation (a device refuses it) and no creation: it is
            // there, and stays what it is.
            Destination::WriteThrough => (OpenOptions::new().write(true).open(path)?, None),
            Destination::File(target) => {
                let name = target.file_name().map(|n| n.to_string_lossy().into_owned());
                let tmp =
                    target.with_file_name(format!(".{}.tmp", name.as_deref().unwrap_or("out")));
                let file = File::create(&tmp)?;
                crate::interrupt::register(&tmp);
                (file, Some((tmp, target)))
            }
        };
        let file = BufWriter::with_capacity(1 << 16, file);
        // Compressed by the name given (a link's own name, not its target's);
        // a path without a file name (`..`) has no extension: written plain.
        let lower = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let sink = if lower.ends_with(".zst") {
            Sink::Zstd(zstd::Encoder::new(file, 3)?)
        } else if lower.ends_with(".gz") {
            Sink::Gzip(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::default(),
            ))
        } else {
            Sink::Plain(file)
        };
        Ok(FileOutput {
            sink: Some(sink),
            path: path.to_path_buf(),
            tmp,
        })
    }

    /// The path as given (`-` for stdout).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn is_stdout(&self) -> bool {
        matches!(self.sink, Some(Sink::Stdout(_)))
    }

    /// Flushes, closes and moves the file to its final name (written
    /// through: flushes, and a device's refusal, such as a full disk, is
    /// the error).
    pub fn finish(self) -> io::Result<()> {
        match self.close()? {
            Some(staged) => staged.commit(),
            None => Ok(()),
        }
    }

    /// Flushes and closes the output: what is written through (stdout, a
    /// device, a fifo) is then written, a device's refusal the error; a
    /// file waits under its temporary name for the commit to rename it
    /// (the `Staged` returned).
    pub(crate) fn close(mut self) -> io::Result<Option<Staged>> {
        let result = match self.sink.take() {
            Some(Sink::Stdout(mut w)) => w.flush(),
            Some(Sink::Plain(w)) => close(w),
            Some(Sink::Zstd(w)) => w.finish().and_then(close),
            Some(Sink::Gzip(w)) => w.finish().and_then(close),
            None => Ok(()),
        };
        let staged = self
            .tmp
            .take()
            .map(|(tmp, target)| Staged::new(tmp, target));
        result?;
        Ok(staged)
    }
}

/// Writes out the last buffer: a device's refusal of it (a full disk) is
/// the error.
fn close(mut writer: BufWriter<File>) -> io::Result<()> {
    writer.flush()
}

/// Lets any writer (CSV, JSON, Parquet) stream into the output.
impl Write for FileOutput {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Some(Sink::Stdout(w)) => w.write(bytes),
            Some(Sink::Plain(w)) => w.write(bytes),
            Some(Sink::Zstd(w)) => w.write(bytes),
            Some(Sink::Gzip(w)) => w.write(bytes),
            None => Ok(bytes.len()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Some(Sink::Stdout(w)) => w.flush(),
            Some(Sink::Plain(w)) => w.flush(),
            Some(Sink::Zstd(w)) => w.flush(),
            Some(Sink::Gzip(w)) => w.flush(),
            None => Ok(()),
        }
    }
}
