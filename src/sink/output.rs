//! Sink stage, output files: `clean`'s PGN and `query`'s results go to
//! stdout or to a file written under a temporary name (registered for
//! interrupts) and renamed only when complete, so a failed run leaves no
//! half-written file under the final name.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// An output file: stdout, or a file written under a temporary name and
/// renamed when complete, compressed by its suffix (`.zst`, `.gz`). Dropped
/// unfinished (a failed run), the temporary file is removed.
pub(crate) struct FileOutput {
    sink: Option<Sink>,
    path: PathBuf,
    tmp: Option<PathBuf>,
}

impl Drop for FileOutput {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
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

impl FileOutput {
    /// Errors are the I/O errors themselves: the caller names the path.
    pub(crate) fn create(path: &Path) -> io::Result<FileOutput> {
        if path == Path::new("-") {
            return Ok(FileOutput {
                sink: Some(Sink::Stdout(BufWriter::new(io::stdout()))),
                path: path.to_path_buf(),
                tmp: None,
            });
        }
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let tmp = path.with_file_name(format!(".{}.tmp", name.as_deref().unwrap_or("out")));
        let file = BufWriter::with_capacity(1 << 16, File::create(&tmp)?);
        crate::interrupt::register(&tmp);
        let lower = name.unwrap_or_default().to_ascii_lowercase();
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
            tmp: Some(tmp),
        })
    }

    /// The final path (`-` for stdout).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn is_stdout(&self) -> bool {
        matches!(self.sink, Some(Sink::Stdout(_)))
    }

    /// Flushes, closes and moves the file to its final name.
    pub fn finish(mut self) -> io::Result<()> {
        let result = match self.sink.take() {
            Some(Sink::Stdout(mut w)) => w.flush(),
            Some(Sink::Plain(mut w)) => w.flush(),
            Some(Sink::Zstd(w)) => w.finish().and_then(|mut f| f.flush()),
            Some(Sink::Gzip(w)) => w.finish().and_then(|mut f| f.flush()),
            None => Ok(()),
        };
        result?;
        if let Some(tmp) = self.tmp.take() {
            std::fs::rename(&tmp, &self.path)?;
            crate::interrupt::unregister(&tmp);
        }
        Ok(())
    }
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
