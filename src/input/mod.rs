//! Input stage: find the PGN sources named on the command line, open them and
//! undo their compression (detected from magic bytes, never from the suffix),
//! expand zip archives into their PGN entries, and refuse what is not text.

pub mod keep;
pub mod progress;
pub mod shard;
pub mod text;
pub mod zstd_frames;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

pub use zstd_frames::{FramesReader, Offload};

/// Problems with the inputs themselves (not with the games inside them).
#[derive(Debug, Error)]
pub enum InputError {
    #[error("{path}: no such file or directory")]
    NotFound { path: PathBuf },
    #[error("{path}: folder holds no PGN files (*.pgn, *.pgn.zst, *.pgn.gz, *.pgn.bz2, *.zip)")]
    NoPgnInFolder { path: PathBuf },
    #[error("{path}: zip archive holds no PGN entries (*.pgn)")]
    NoPgnInArchive { path: PathBuf },
    #[error("{path}: cannot read the zip archive: {source}")]
    BadArchive {
        path: PathBuf,
        source: zip::result::ZipError,
    },
    #[error(
        "-: a .zip archive cannot be read from standard input (it needs seeking): pass the file instead"
    )]
    ZipOnStdin,
    #[error("{path}: cannot read: {source}")]
    Unreadable { path: PathBuf, source: io::Error },
    /// Neither a known compression nor text: read as PGN it would be
    /// thousands of garbage games.
    #[error("{path}: not PGN text: {what}")]
    NotText { path: String, what: NotText },
}

/// What a source that is not PGN text turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotText {
    /// A compression pgnlake does not read, named by its magic bytes.
    Unsupported(&'static str),
    /// No known magic bytes, and binary content.
    Binary,
}

impl std::fmt::Display for NotText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotText::Unsupported(name) => write!(
                f,
                "{name} archive or compression, which pgnlake does not read (unpack it first)"
            ),
            NotText::Binary => f.write_str("unknown compression or binary file"),
        }
    }
}

/// One input to import: a file, standard input, or one PGN entry of a zip
/// archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputSource {
    Stdin,
    File(PathBuf),
    /// The `index`-th entry of a zip archive, `name` as stored there and
    /// `size` its compressed size.
    ZipEntry {
        archive: PathBuf,
        index: usize,
        name: String,
        size: u64,
    },
}

impl InputSource {
    /// The name recorded in the tables (`source` column) and the summary:
    /// an archive's entries are `archive.zip/entry.pgn`.
    pub(crate) fn display_name(&self) -> String {
        match self {
            InputSource::Stdin => "-".to_string(),
            InputSource::File(p) => p.display().to_string(),
            InputSource::ZipEntry { archive, name, .. } => entry_name(archive, name),
        }
    }

    /// Size on disk (compressed bytes), unknown for stdin.
    pub(crate) fn size(&self) -> Option<u64> {
        match self {
            InputSource::Stdin => None,
            InputSource::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            InputSource::ZipEntry { size, .. } => Some(*size),
        }
    }
}

/// How an archive entry is named in the tables and the summary.
fn entry_name(archive: &Path, name: &str) -> String {
    format!("{}/{name}", archive.display())
}

/// File names a folder walk picks up.
pub(crate) fn has_pgn_suffix(path: &Path) -> bool {
    has_suffix(path, &[".pgn", ".pgn.zst", ".pgn.gz", ".pgn.bz2", ".zip"])
}

fn has_suffix(path: &Path, suffixes: &[&str]) -> bool {
    // A path without a file name (`..`, `/`) has no suffix.
    path.file_name().is_some_and(|name| {
        let name = name.to_string_lossy().to_ascii_lowercase();
        suffixes.iter().any(|suffix| name.ends_with(suffix))
    })
}

/// The sources of a run, and the archive entries passed over because they
/// are not PGN (listed in the summary so that nothing goes unmentioned).
#[derive(Debug, Default)]
pub(crate) struct Discovered {
    pub sources: Vec<InputSource>,
    pub skipped_entries: Vec<String>,
}

/// Expands the command-line inputs: files as given, folders recursively
/// (PGN suffixes and `.zip` only, sorted by path), zip archives into their
/// `.pgn` entries in archive order, `-` for stdin. Every source is opened
/// and its first 64 KiB checked here, so that an unreadable input or one
/// that is not text fails before any work starts.
pub(crate) fn discover(inputs: &[PathBuf]) -> Result<Discovered, InputError> {
    let mut files = Vec::new();
    let mut discovered = Discovered::default();
    for input in inputs {
        if input.as_os_str() == "-" {
            files.push((InputSource::Stdin, true));
            continue;
        }
        let meta = std::fs::metadata(input).map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => InputError::NotFound {
                path: input.clone(),
            },
            _ => unreadable(input)(source),
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
            files.extend(found.into_iter().map(|p| (InputSource::File(p), false)));
        } else {
            files.push((InputSource::File(input.clone()), true));
        }
    }
    for (source, named) in files {
        match source {
            InputSource::File(path) if is_zip(&path)? => {
                expand_zip(&path, named, &mut discovered)?;
            }
            source => discovered.sources.push(source),
        }
    }
    let mut opener = Opener::new(Arc::default());
    for source in &discovered.sources {
        if *source != InputSource::Stdin {
            opener.with_reader(source, |_| Ok::<(), InputError>(()))?;
        }
    }
    Ok(discovered)
}

fn unreadable(path: &Path) -> impl Fn(io::Error) -> InputError + '_ {
    |source| InputError::Unreadable {
        path: path.to_path_buf(),
        source,
    }
}

/// Is the file a zip archive? (Read from the magic bytes, like the
/// compressions.)
fn is_zip(path: &Path) -> Result<bool, InputError> {
    let mut magic = Vec::with_capacity(4);
    File::open(path)
        .and_then(|f| f.take(4).read_to_end(&mut magic))
        .map_err(unreadable(path))?;
    Ok(text::is_zip(&magic))
}

/// Adds the `.pgn` entries of a zip archive (case-insensitive, in archive
/// order) to the sources and the other files to the skipped entries. An
/// archive named on the command line must hold at least one PGN entry.
fn expand_zip(path: &Path, named: bool, discovered: &mut Discovered) -> Result<(), InputError> {
    let bad_archive = |source| InputError::BadArchive {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(unreadable(path))?;
    let archive = zip::ZipArchive::new(BufReader::new(file)).map_err(bad_archive)?;
    let before = discovered.sources.len();
    for index in 0..archive.len() {
        let entry = archive.by_index_data(index).map_err(bad_archive)?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().map_or_else(
            |_| String::from_utf8_lossy(entry.name_raw()).into_owned(),
            |name| name.into_owned(),
        );
        if has_suffix(Path::new(&name), &[".pgn"]) {
            discovered.sources.push(InputSource::ZipEntry {
                archive: path.to_path_buf(),
                index,
                size: entry.compressed_size(),
                name,
            });
        } else {
            discovered.skipped_entries.push(entry_name(path, &name));
        }
    }
    if named && discovered.sources.len() == before {
        return Err(InputError::NoPgnInArchive {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// Collects PGN files and zip archives below `dir`. Symlinked folders are
/// followed once: a folder reached again (a link loop) is skipped.
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
pub(crate) enum Compression {
    None,
    Zstd,
    Gzip,
    Bzip2,
}

impl Compression {
    pub(crate) fn sniff(head: &[u8]) -> Compression {
        match head {
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            // A skippable frame (0x184D2A50..=0x184D2A5F, little-endian):
            // pzstd starts its files, and every frame, with one. The
            // decoder skips them wherever they are.
            [0x50..=0x5f, 0x2a, 0x4d, 0x18, ..] => Compression::Zstd,
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [b'B', b'Z', b'h', ..] => Compression::Bzip2,
            _ => Compression::None,
        }
    }
}

/// Counts the raw (compressed) bytes pulled from a source, for the progress bar.
pub(crate) struct CountingReader<R> {
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

/// A zip archive is read by seeking to its entries.
impl<R: Seek> Seek for CountingReader<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

type OpenArchive = zip::ZipArchive<BufReader<CountingReader<File>>>;

/// Opens sources one after the other. The zip archive last opened stays
/// open for its next entry: an archive's entries are read in a row, and its
/// directory is read once, not once per entry.
pub(crate) struct Opener {
    count: Arc<AtomicU64>,
    archive: Option<(PathBuf, OpenArchive)>,
    offload: Option<Offload>,
}

impl Opener {
    /// `count` receives the raw bytes read, for the progress bar.
    pub fn new(count: Arc<AtomicU64>) -> Opener {
        Opener {
            count,
            archive: None,
            offload: None,
        }
    }

    /// A shard's bounds tied to zstd frames, for the next source opened.
    pub(crate) fn keeping(&mut self, keep: Option<Arc<shard::Keep>>) {
        if let Some(offload) = self.offload.as_mut() {
            offload.keep = keep;
        }
    }

    /// Decompresses the frames of multi-frame `.zst` inputs on the workers.
    pub(crate) fn offloading(mut self, offload: Offload) -> Opener {
        self.offload = Some(offload);
        self
    }

    /// Opens `source` and hands `read` a reader of its text: decompressed,
    /// and UTF-16 decoded to UTF-8. A source that is not text is refused
    /// before `read` sees a byte; a read error later on reaches `read` (a
    /// truncated input).
    pub(crate) fn with_reader<T, E: From<InputError>>(
        &mut self,
        source: &InputSource,
        read: impl FnOnce(&mut dyn Read) -> Result<T, E>,
    ) -> Result<T, E> {
        let count = Arc::clone(&self.count);
        let offload = self.offload.clone();
        match source {
            InputSource::Stdin => {
                let stdin = CountingReader {
                    inner: io::stdin(),
                    count,
                };
                read_text(source, stdin, offload.clone(), read)
            }
            InputSource::File(path) => {
                let file = File::open(path).map_err(unreadable(path))?;
                read_text(
                    source,
                    CountingReader { inner: file, count },
                    offload.clone(),
                    read,
                )
            }
            InputSource::ZipEntry { archive, index, .. } => {
                let zip = self.archive(archive)?;
                match zip.by_index(*index) {
                    Ok(entry) => read_text(source, entry, offload, read),
                    // A damaged entry is a truncated input, as a damaged .gz is.
                    Err(e) => read_text(source, Failed(Some(io::Error::other(e))), None, read),
                }
            }
        }
    }

    /// The archive at `path`, opened unless it is the one open already.
    fn archive(&mut self, path: &Path) -> Result<&mut OpenArchive, InputError> {
        if let Some((open, archive)) = self.archive.take()
            && open == path
        {
            return Ok(&mut self.archive.insert((open, archive)).1);
        }
        let file = File::open(path).map_err(unreadable(path))?;
        let counted = BufReader::new(CountingReader {
            inner: file,
            count: Arc::clone(&self.count),
        });
        let archive = zip::ZipArchive::new(counted).map_err(|source| InputError::BadArchive {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(&mut self.archive.insert((path.to_path_buf(), archive)).1)
    }
}

fn read_text<T, E: From<InputError>>(
    source: &InputSource,
    raw: impl Read,
    offload: Option<Offload>,
    read: impl FnOnce(&mut dyn Read) -> Result<T, E>,
) -> Result<T, E> {
    let mut text =
        text::check(decompress_with(raw, offload)).map_err(|what| match (source, what) {
            (InputSource::Stdin, NotText::Unsupported("zip")) => InputError::ZipOnStdin,
            (_, what) => InputError::NotText {
                path: source.display_name(),
                what,
            },
        })?;
    read(&mut text)
}

/// Wraps `raw` in the decoder its magic bytes call for. A read error on
/// the first bytes is kept for the first read, like any later one.
pub fn decompress<'a, R: Read + 'a>(raw: R) -> Box<dyn Read + 'a> {
    decompress_with(raw, None)
}

/// As [`decompress`]; with `offload`, the frames of a multi-frame `.zst`
/// decompress on the workers ([`zstd_frames`]).
pub(crate) fn decompress_with<'a, R: Read + 'a>(
    raw: R,
    offload: Option<Offload>,
) -> Box<dyn Read + 'a> {
    let mut buffered = BufReader::with_capacity(1 << 16, raw);
    let compression = match buffered.fill_buf() {
        Ok(head) => Compression::sniff(head),
        Err(e) => return Box::new(Failed(Some(e))),
    };
    match compression {
        Compression::None => Box::new(buffered),
        Compression::Zstd => match offload {
            Some(offload) => Box::new(FramesReader::new(buffered, offload, stream_zstd)),
            None => match zstd::stream::read::Decoder::with_buffer(buffered) {
                Ok(decoder) => Box::new(SmallReads(decoder)),
                Err(e) => Box::new(Failed(Some(e))),
            },
        },
        Compression::Gzip => Box::new(SmallReads(flate2::bufread::MultiGzDecoder::new(buffered))),
        Compression::Bzip2 => Box::new(SmallReads(bzip2::bufread::MultiBzDecoder::new(buffered))),
    }
}

/// The streaming zstd decoder, for what [`FramesReader`] does not cut.
fn stream_zstd<'a>(compressed: Box<dyn Read + 'a>) -> io::Result<Box<dyn Read + 'a>> {
    Ok(Box::new(SmallReads(zstd::stream::read::Decoder::new(
        compressed,
    )?)))
}

/// A source that fails on its first read and is empty after.
struct Failed(Option<io::Error>);

impl Read for Failed {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        self.0.take().map_or(Ok(0), Err)
    }
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
        self.0.read(&mut buf[..len])
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
        for nibble in 0x50..=0x5f {
            let skippable = [nibble, 0x2a, 0x4d, 0x18, 4, 0, 0, 0];
            assert_eq!(Compression::sniff(&skippable), Compression::Zstd);
        }
        assert_eq!(
            Compression::sniff(&[0x60, 0x2a, 0x4d, 0x18]),
            Compression::None
        );
        assert_eq!(Compression::sniff(b""), Compression::None);
    }

    fn roundtrip(compressed: Vec<u8>) -> String {
        let mut out = String::new();
        decompress(io::Cursor::new(compressed))
            .read_to_string(&mut out)
            .map(|_| out)
            .unwrap_or_else(|e| panic!("decompress failed: {e}"))
    }

    #[test]
    fn decompresses_every_supported_format() {
        let text = b"1. e4 e5 *\n";
        let zst = zstd::encode_all(&text[..], 3).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(roundtrip(zst), "1. e4 e5 *\n");

        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text).ok();
        let gz = gz.finish().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(roundtrip(gz), "1. e4 e5 *\n");

        let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        bz.write_all(text).ok();
        let bz = bz.finish().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(roundtrip(bz), "1. e4 e5 *\n");
    }

    /// A skippable frame as pzstd writes one before each frame: magic,
    /// length 4, and the compressed size of the frame that follows.
    pub(crate) fn pzstd_layout(chunks: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in chunks {
            let frame = zstd::encode_all(*chunk, 3).unwrap_or_else(|e| panic!("{e}"));
            out.extend([0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0]);
            out.extend((frame.len() as u32).to_le_bytes());
            out.extend(frame);
        }
        out
    }

    #[test]
    fn pzstd_layout_reads_across_frames() {
        let text = pzstd_layout(&[b"1. e4 e5 *\n", b"\n1. d4 d5 *\n"]);
        assert_eq!(roundtrip(text), "1. e4 e5 *\n\n1. d4 d5 *\n");
    }

    #[test]
    fn symlink_loops_are_walked_once() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).ok();
        std::fs::write(sub.join("a.pgn"), "1. e4 *").ok();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path(), sub.join("loop")).ok();
        let found = discover(&[dir.path().to_path_buf()]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found.sources.len(), 1);
    }

    #[test]
    fn suffix_filter() {
        assert!(has_pgn_suffix(Path::new("a/b.PGN")));
        assert!(has_pgn_suffix(Path::new("x.pgn.zst")));
        assert!(!has_pgn_suffix(Path::new("x.txt")));
        assert!(!has_pgn_suffix(Path::new("x.zst")));
        assert!(has_pgn_suffix(Path::new("twic1599g.ZIP")));
    }
}
