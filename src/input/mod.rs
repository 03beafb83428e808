//! Input stage: find the PGN sources named on the command line, open them and
//! undo their compression (detected from magic bytes, never from the suffix).

pub mod progress;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

/// Problems with the inputs themselves (not with the games inside them).
#[derive(Debug, Error)]
pub enum InputError {
    #[error("{path}: no such file or directory")]
    NotFound { path: PathBuf },
    #[error("{path}: folder holds no PGN files (*.pgn, *.pgn.zst, *.pgn.gz, *.pgn.bz2)")]
    NoPgnInFolder { path: PathBuf },
    #[error("{path}: cannot read: {source}")]
    Unreadable { path: PathBuf, source: io::Error },
}

/// One input to import: a file or standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputSource {
    Stdin,
    File(PathBuf),
}

impl InputSource {
    /// The name recorded in the tables (`source` column) and the summary.
    pub fn display_name(&self) -> String {
        match self {
            InputSource::Stdin => "-".to_string(),
            InputSource::File(p) => p.display().to_string(),
        }
    }

    /// Size on disk (compressed bytes), unknown for stdin.
    pub fn size(&self) -> Option<u64> {
        match self {
            InputSource::Stdin => None,
            InputSource::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
        }
    }
}

/// File names a folder walk picks up.
pub fn has_pgn_suffix(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    [".pgn", ".pgn.zst", ".pgn.gz", ".pgn.bz2"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

/// Expands the command-line inputs: files as given, folders recursively
/// (PGN suffixes only, sorted by path), `-` for stdin. Every file is opened
/// once here so that an unreadable input fails before any work starts.
pub fn discover(inputs: &[PathBuf]) -> Result<Vec<InputSource>, InputError> {
    let mut sources = Vec::new();
    for input in inputs {
        if input.as_os_str() == "-" {
            sources.push(InputSource::Stdin);
            continue;
        }
        let meta = std::fs::metadata(input).map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => InputError::NotFound {
                path: input.clone(),
            },
            _ => InputError::Unreadable {
                path: input.clone(),
                source,
            },
        })?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(input, &mut found)?;
            if found.is_empty() {
                return Err(InputError::NoPgnInFolder {
                    path: input.clone(),
                });
            }
            found.sort();
            sources.extend(found.into_iter().map(InputSource::File));
        } else {
            sources.push(InputSource::File(input.clone()));
        }
    }
    for source in &sources {
        if let InputSource::File(path) = source {
            let mut probe = [0u8; 1];
            File::open(path)
                .and_then(|mut f| f.read(&mut probe))
                .map_err(|source| InputError::Unreadable {
                    path: path.clone(),
                    source,
                })?;
        }
    }
    Ok(sources)
}

/// Collects PGN files below `dir`. Symlinked folders are followed once:
/// a folder reached again (a link loop) is skipped.
fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), InputError> {
    let mut visited = std::collections::HashSet::new();
    walk_once(dir, found, &mut visited)
}

fn walk_once(
    dir: &Path,
    found: &mut Vec<PathBuf>,
    visited: &mut std::collections::HashSet<PathBuf>,
) -> Result<(), InputError> {
    let unreadable = |source| InputError::Unreadable {
        path: dir.to_path_buf(),
        source,
    };
    let canonical = std::fs::canonicalize(dir).map_err(unreadable)?;
    if !visited.insert(canonical) {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir).map_err(unreadable)? {
        let path = entry.map_err(unreadable)?.path();
        if path.is_dir() {
            walk_once(&path, found, visited)?;
        } else if has_pgn_suffix(&path) {
            found.push(path);
        }
    }
    Ok(())
}

/// Compression of a stream, read from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Zstd,
    Gzip,
    Bzip2,
}

impl Compression {
    pub fn sniff(head: &[u8]) -> Compression {
        match head {
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [b'B', b'Z', b'h', ..] => Compression::Bzip2,
            _ => Compression::None,
        }
    }
}

/// Counts the raw (compressed) bytes pulled from a source, for the progress bar.
pub struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Opens a source and returns a reader of its decompressed bytes. `count`
/// receives the raw bytes consumed.
pub fn open(source: &InputSource, count: Arc<AtomicU64>) -> io::Result<Box<dyn Read + Send>> {
    let raw: Box<dyn Read + Send> = match source {
        InputSource::Stdin => Box::new(io::stdin()),
        InputSource::File(path) => Box::new(File::open(path)?),
    };
    decompress(CountingReader { inner: raw, count })
}

/// Wraps `raw` in the decoder its magic bytes call for.
pub fn decompress<R: Read + Send + 'static>(raw: R) -> io::Result<Box<dyn Read + Send>> {
    let mut buffered = BufReader::with_capacity(1 << 16, raw);
    let compression = Compression::sniff(buffered.fill_buf()?);
    Ok(match compression {
        Compression::None => Box::new(buffered),
        Compression::Zstd => Box::new(SmallReads(zstd::stream::read::Decoder::with_buffer(
            buffered,
        )?)),
        Compression::Gzip => Box::new(SmallReads(flate2::bufread::MultiGzDecoder::new(buffered))),
        Compression::Bzip2 => Box::new(SmallReads(bzip2::bufread::MultiBzDecoder::new(buffered))),
    })
}

/// Largest read asked of a decoder at once.
const DECODER_READ: usize = 64 << 10;

/// Asks a decoder for at most [`DECODER_READ`] bytes per read. A decoder
/// that meets the end of a truncated stream while filling a read returns
/// the error and drops what it decoded in that read; small reads keep that
/// loss under 64 KiB, so the games before a cut are read and counted.
struct SmallReads<R>(R);

impl<R: Read> Read for SmallReads<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let len = buf.len().min(DECODER_READ);
        self.0.read(buf.get_mut(..len).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn sniffs_magic_bytes() {
        assert_eq!(
            Compression::sniff(&[0x28, 0xb5, 0x2f, 0xfd, 0]),
            Compression::Zstd
        );
        assert_eq!(Compression::sniff(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(Compression::sniff(b"BZh91AY"), Compression::Bzip2);
        assert_eq!(Compression::sniff(b"[Event"), Compression::None);
        assert_eq!(Compression::sniff(b""), Compression::None);
    }

    fn roundtrip(compressed: Vec<u8>) -> String {
        let mut out = String::new();
        decompress(io::Cursor::new(compressed))
            .and_then(|mut r| r.read_to_string(&mut out))
            .map(|_| out)
            .unwrap_or_else(|e| panic!("decompress failed: {e}"))
    }

    #[test]
    fn decompresses_every_supported_format() {
        let text = b"1. e4 e5 *\n";
        let zst = zstd::encode_all(&text[..], 3).unwrap_or_default();
        assert_eq!(roundtrip(zst), "1. e4 e5 *\n");

        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text).ok();
        assert_eq!(roundtrip(gz.finish().unwrap_or_default()), "1. e4 e5 *\n");

        let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        bz.write_all(text).ok();
        assert_eq!(roundtrip(bz.finish().unwrap_or_default()), "1. e4 e5 *\n");
    }

    #[test]
    fn symlink_loops_are_walked_once() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).ok();
        std::fs::write(sub.join("a.pgn"), "1. e4 *").ok();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path(), sub.join("loop")).ok();
        let sources = discover(&[dir.path().to_path_buf()]).unwrap_or_default();
        assert_eq!(sources.len(), 1);
    }

    #[test]
    fn suffix_filter() {
        assert!(has_pgn_suffix(Path::new("a/b.PGN")));
        assert!(has_pgn_suffix(Path::new("x.pgn.zst")));
        assert!(!has_pgn_suffix(Path::new("x.txt")));
        assert!(!has_pgn_suffix(Path::new("x.zst")));
    }
}
