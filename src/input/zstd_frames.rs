//! Input stage, zstd frames in parallel: a multi-frame `.zst` (lichess's
//! pzstd layout, or frames written one after another) is cut at its frame
//! boundaries, found from the frame and block headers without decompressing,
//! and each frame is decompressed as a side job on the workers while the
//! reader frames the text of the ones before it, in order.
//!
//! Memory stays bounded whatever the frames claim: a few frames are in
//! flight, each at most [`MAX_COMPRESSED_FRAME_BYTES`] compressed, and
//! decompressed into at most [`MAX_FRAME_BYTES`] (pzstd writes no content size, so a frame is
//! decompressed up to that cap). A frame that claims more, or holds more, or
//! is larger compressed (a single-frame file as `zstd` writes it) streams on
//! the reader as before, and so does everything after a frame that is larger
//! compressed. A frame cut short (a truncated file) streams too, so every
//! byte before the cut is read.

use std::collections::VecDeque;
use std::io::{self, BufRead, Cursor, Read};
use std::sync::Arc;
use std::time::Duration;

use super::keep::Keep;
use crate::jobs::{Deferred, JobPanicked, SideJob, SideJobSender};
use crate::profile::Stage;

/// Largest frame text decompressed apart.
pub const MAX_FRAME_BYTES: u64 = 64 << 20;
/// Largest compressed frame decompressed apart (pzstd's frames are a few
/// MiB): a larger one streams, after at most this much was read ahead.
pub const MAX_COMPRESSED_FRAME_BYTES: u64 = 16 << 20;

const ZSTD_MAGIC: u32 = 0xFD2F_B528;

/// How long the reader leaves a frame to the workers (they take side jobs
/// between batches) before it decompresses the frame itself.
const PATIENCE: Duration = Duration::from_millis(200);

/// What the reader hands the workers: where, and how many frames ahead.
#[derive(Clone)]
pub struct Offload {
    pub side_jobs: SideJobSender,
    pub frames_ahead: usize,
    /// A shard's bounds tied to frames (`--shard`): told where each frame's
    /// text begins.
    pub keep: Option<Arc<Keep>>,
}

/// A frame's text, or its compressed bytes back when it holds more than
/// [`MAX_FRAME_BYTES`] (the reader streams it).
enum FrameText {
    Text(Vec<u8>),
    TooLarge(Compressed),
}

type Decompressed = Deferred<io::Result<FrameText>>;

/// Starts a streaming decoder over compressed bytes (the caller's, with its
/// read-size limit).
pub(crate) type StreamDecoder<'a> = fn(Box<dyn Read + 'a>) -> io::Result<Box<dyn Read + 'a>>;

/// The next piece of a zstd stream.
enum Piece {
    /// A whole frame, with its content size when the header gives one.
    Frame {
        bytes: Compressed,
        content_size: Option<u64>,
    },
    /// What was read of a frame that must stream (no content size, too big,
    /// or cut short): it and the rest of the source go to a streaming decoder.
    Stream(Compressed),
    End,
}

/// Reads a zstd stream, frames decompressed on the workers in order.
pub struct FramesReader<'a, R: BufRead> {
    source: Option<R>,
    offload: Offload,
    /// Frames handed out, with the compressed offset each starts at.
    in_flight: VecDeque<(u64, Arc<Decompressed>)>,
    /// Compressed bytes taken from the source so far.
    compressed: u64,
    /// Text bytes handed out so far.
    text: u64,
    /// The text being read: a frame's, or a too-large frame streaming.
    current: Box<dyn Read + 'a>,
    /// The streaming decoder of the rest, once a frame had to stream.
    tail: Option<Box<dyn Read + 'a>>,
    /// Starts the streaming decoder (the `SmallReads` wrapper of the caller).
    stream: StreamDecoder<'a>,
}

impl<'a, R: BufRead + 'a> FramesReader<'a, R> {
    pub fn new(source: R, offload: Offload, stream: StreamDecoder<'a>) -> Self {
        FramesReader {
            source: Some(source),
            offload,
            in_flight: VecDeque::new(),
            compressed: 0,
            text: 0,
            current: Box::new(io::empty()),
            tail: None,
            stream,
        }
    }

    /// Reads frames and hands them out until enough are in flight.
    fn fill(&mut self) -> io::Result<()> {
        while self.in_flight.len() < self.offload.frames_ahead.max(1) {
            let Some(source) = self.source.as_mut() else {
                return Ok(());
            };
            let (skipped, piece) = next_piece(source)?;
            let start = self.compressed + skipped;
            match piece {
                Piece::Frame {
                    bytes,
                    content_size,
                } => {
                    self.compressed = start + bytes.len as u64;
                    let job = Deferred::new(Stage::ReadDecompress, move || {
                        decompress_frame(bytes, content_size)
                    });
                    let _ = self
                        .offload
                        .side_jobs
                        .send(Arc::clone(&job) as Arc<dyn SideJob>);
                    self.in_flight.push_back((start, job));
                }
                Piece::Stream(head) => {
                    if let Some(rest) = self.source.take() {
                        let chained: Box<dyn Read + 'a> = Box::new(head.chain(rest));
                        self.tail = Some((self.stream)(chained)?);
                    }
                }
                Piece::End => self.source = None,
            }
        }
        Ok(())
    }
}

impl<'a, R: BufRead + 'a> Read for FramesReader<'a, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.current.read(buf)?;
            if n > 0 || buf.is_empty() {
                self.text += n as u64;
                return Ok(n);
            }
            self.fill()?;
            match self.in_flight.pop_front() {
                Some((start, job)) => {
                    if let Some(keep) = &self.offload.keep {
                        keep.frame_reached(start, self.text);
                    }
                    let text = job
                        .wait_patiently(PATIENCE)
                        .map_err(|JobPanicked| io::Error::other("zstd decompression panicked"))??;
                    self.current = match text {
                        FrameText::Text(text) => Box::new(Cursor::new(text)),
                        FrameText::TooLarge(bytes) => (self.stream)(Box::new(bytes))?,
                    };
                }
                None => {
                    return match &mut self.tail {
                        Some(tail) => tail.read(buf),
                        None => Ok(0),
                    };
                }
            }
        }
    }
}

/// Decompresses one frame, into at most [`MAX_FRAME_BYTES`].
fn decompress_frame(bytes: Compressed, content_size: Option<u64>) -> io::Result<FrameText> {
    // A hint only: a size past `usize` (never past the frame limit, which
    // was checked) would reserve nothing up front.
    let capacity = content_size.map_or(1 << 20, |n| usize::try_from(n).unwrap_or(0));
    let mut text = Vec::with_capacity(capacity);
    let decoder = zstd::stream::read::Decoder::new(bytes.reader())?;
    decoder.take(MAX_FRAME_BYTES + 1).read_to_end(&mut text)?;
    if text.len() as u64 > MAX_FRAME_BYTES {
        return Ok(FrameText::TooLarge(bytes));
    }
    Ok(FrameText::Text(text))
}

/// Whether a zstd stream starts with two frames that decompress apart (the
/// layout `--shard` can cut at frame starts).
pub(crate) fn starts_with_frames(mut source: impl BufRead) -> bool {
    let mut frames = 0;
    while frames < 2 {
        match next_piece(&mut source) {
            Ok((_, Piece::Frame { .. })) => frames += 1,
            _ => return false,
        }
    }
    true
}

/// Reads the next frame (skipping skippable frames), or the start of one
/// that must stream; with the bytes of the skippable frames before it.
fn next_piece(source: &mut impl BufRead) -> io::Result<(u64, Piece)> {
    let mut skipped = 0u64;
    loop {
        let mut head = Compressed::default();
        let magic = match head.field(source, 4)? {
            Some(bytes) => u32_le(&bytes),
            None if head.len == 0 => return Ok((skipped, Piece::End)),
            None => return Ok((skipped, Piece::Stream(head))),
        };
        if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
            // A skippable frame (pzstd's size hints): skip it.
            let Some(len) = head.field(source, 4)? else {
                return Ok((skipped, Piece::Stream(head)));
            };
            let len = u64::from(u32_le(&len));
            let passed = io::copy(&mut source.by_ref().take(len), &mut io::sink())?;
            if passed < len {
                // Cut inside it: the streaming decoder reports the truncation.
                return Ok((skipped, Piece::Stream(head)));
            }
            skipped += 8 + len;
            continue;
        }
        if magic != ZSTD_MAGIC {
            // Not a frame: the streaming decoder says what is wrong.
            return Ok((skipped, Piece::Stream(head)));
        }
        return Ok((skipped, read_frame(source, head)?));
    }
}

/// The rest of a zstd frame whose magic is in `head`: its header, blocks and
/// checksum, when its content size (if given) is at most [`MAX_FRAME_BYTES`]
/// and it is at most [`MAX_COMPRESSED_FRAME_BYTES`] long.
fn read_frame(source: &mut impl BufRead, mut head: Compressed) -> io::Result<Piece> {
    let Some(descriptor) = head.field(source, 1)? else {
        return Ok(Piece::Stream(head));
    };
    // `field` gives exactly the bytes asked for.
    let descriptor = descriptor[0];
    let single_segment = descriptor & 0x20 != 0;
    let has_checksum = descriptor & 0x04 != 0;
    let window_bytes = usize::from(!single_segment);
    let dictionary_bytes = [0, 1, 2, 4][usize::from(descriptor & 3)];
    let size_bytes = match descriptor >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let Some(fields) = head.field(source, window_bytes + dictionary_bytes + size_bytes)? else {
        return Ok(Piece::Stream(head));
    };
    let size_field = &fields[window_bytes + dictionary_bytes..];
    let mut content_size = size_field
        .iter()
        .rev()
        .fold(0u64, |acc, &byte| acc << 8 | u64::from(byte));
    if size_bytes == 2 {
        content_size += 256;
    }
    let content_size = (size_bytes > 0).then_some(content_size);
    if content_size.is_some_and(|n| n > MAX_FRAME_BYTES) {
        return Ok(Piece::Stream(head));
    }
    loop {
        let Some(header) = head.field(source, 3)? else {
            return Ok(Piece::Stream(head));
        };
        let block = header
            .iter()
            .rev()
            .fold(0u32, |acc, &byte| acc << 8 | u32::from(byte));
        let last = block & 1 != 0;
        let size = match (block >> 1) & 3 {
            1 => 1, // RLE: one byte, repeated
            3 => return Ok(Piece::Stream(head)),
            _ => (block >> 3) as usize,
        };
        if head.append(source, size)? < size || head.len as u64 > MAX_COMPRESSED_FRAME_BYTES {
            return Ok(Piece::Stream(head));
        }
        if last {
            break;
        }
    }
    if has_checksum && head.field(source, 4)?.is_none() {
        return Ok(Piece::Stream(head));
    }
    Ok(Piece::Frame {
        bytes: head,
        content_size,
    })
}

/// Compressed bytes read ahead, in pieces of at most [`PIECE_BYTES`]: read
/// as a stream they are freed piece by piece, so a large frame that streams
/// does not hold its read-ahead for the rest of the run.
#[derive(Default)]
struct Compressed {
    pieces: VecDeque<Vec<u8>>,
    /// Bytes read into the pieces.
    len: usize,
    /// Bytes of the first piece already streamed.
    consumed: usize,
}

const PIECE_BYTES: usize = 1 << 20;

impl Compressed {
    /// Appends up to `n` bytes of `source`; how many there were.
    fn append(&mut self, source: &mut impl BufRead, n: usize) -> io::Result<usize> {
        let mut left = n;
        while left > 0 {
            if self.pieces.back().is_none_or(|p| p.len() >= PIECE_BYTES) {
                self.pieces
                    .push_back(Vec::with_capacity(left.min(PIECE_BYTES)));
            }
            let Some(piece) = self.pieces.back_mut() else {
                break;
            };
            let want = left.min(PIECE_BYTES - piece.len());
            let got = source.by_ref().take(want as u64).read_to_end(piece)?;
            self.len += got;
            left -= got;
            if got < want {
                break;
            }
        }
        Ok(n - left)
    }

    /// Reads a header field of `n` bytes (kept with the frame); `None` when
    /// the source ends first.
    fn field(&mut self, source: &mut impl BufRead, n: usize) -> io::Result<Option<Vec<u8>>> {
        let mut field = Vec::with_capacity(n);
        source.by_ref().take(n as u64).read_to_end(&mut field)?;
        let mut bytes = &field[..];
        self.append(&mut bytes, field.len())?;
        Ok((field.len() == n).then_some(field))
    }

    /// The bytes, read without consuming them.
    fn reader(&self) -> impl Read + '_ {
        self.pieces.iter().fold(
            Box::new(io::empty()) as Box<dyn Read + '_>,
            |chain, next| Box::new(chain.chain(next.as_slice())),
        )
    }
}

impl Read for Compressed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while let Some(front) = self.pieces.front() {
            // `consumed` never passes the front piece's end.
            let rest = &front[self.consumed..];
            if rest.is_empty() {
                self.pieces.pop_front();
                self.consumed = 0;
                continue;
            }
            let n = rest.len().min(buf.len());
            if let (Some(out), Some(from)) = (buf.get_mut(..n), rest.get(..n)) {
                out.copy_from_slice(from);
            }
            self.consumed += n;
            return Ok(n);
        }
        Ok(0)
    }
}

fn u32_le(bytes: &[u8]) -> u32 {
    let mut word = [0u8; 4];
    if let Some(b) = bytes.get(..4) {
        word.copy_from_slice(b);
    }
    u32::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::side_jobs;

    /// Reads `compressed` through a FramesReader whose side jobs a helper
    /// thread runs; the text read and the error that ended it, if any.
    fn read_all(compressed: Vec<u8>) -> (Vec<u8>, Option<io::Error>) {
        let (tx, rx) = side_jobs();
        let helper = std::thread::spawn(move || {
            for job in rx {
                job.run();
            }
        });
        let stream: StreamDecoder<'static> = |r| Ok(Box::new(zstd::stream::read::Decoder::new(r)?));
        let offload = Offload {
            side_jobs: tx,
            frames_ahead: 3,
            keep: None,
        };
        let mut reader =
            FramesReader::new(io::BufReader::new(Cursor::new(compressed)), offload, stream);
        let mut text = Vec::new();
        let mut buf = [0u8; 1000];
        let error = loop {
            match reader.read(&mut buf) {
                Ok(0) => break None,
                Ok(n) => text.extend_from_slice(&buf[..n]),
                Err(e) => break Some(e),
            }
        };
        drop(reader);
        helper.join().unwrap_or_else(|_| panic!("helper"));
        (text, error)
    }

    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| format!("{i}. e4 e5\n"))
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn sized_unsized_and_skippable_frames_read_in_order() {
        let plain = text(30_000);
        let mut compressed = Vec::new();
        for (i, piece) in plain.chunks(50_000).enumerate() {
            if i % 3 == 0 {
                // pzstd's size hint before the frame.
                compressed.extend([0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4]);
            }
            let frame = match i % 2 {
                // bulk writes the content size; the stream encoder does not.
                0 => zstd::bulk::compress(piece, 3),
                _ => zstd::encode_all(piece, 3),
            };
            compressed.extend(frame.unwrap_or_else(|e| panic!("{e}")));
        }
        let (read, error) = read_all(compressed);
        assert!(error.is_none(), "{error:?}");
        assert_eq!(read, plain);
    }

    #[test]
    fn a_frame_cut_short_gives_every_byte_before_the_cut_then_an_error() {
        let plain = text(20_000);
        let mut compressed = Vec::new();
        let mut first_frame_text = 0;
        for (i, piece) in plain.chunks(100_000).enumerate() {
            compressed.extend(zstd::encode_all(piece, 3).unwrap_or_else(|e| panic!("{e}")));
            if i == 0 {
                first_frame_text = piece.len();
            }
        }
        let cut = compressed.len() / 2;
        compressed.truncate(cut);
        let (read, error) = read_all(compressed);
        assert!(error.is_some(), "a cut frame must end in an error");
        assert!(read.len() >= first_frame_text, "{} bytes read", read.len());
        assert_eq!(read, &plain[..read.len()]);
    }

    #[test]
    fn read_ahead_is_freed_piece_by_piece_as_it_streams() {
        let data: Vec<u8> = (0..3 * PIECE_BYTES + 10).map(|i| (i % 251) as u8).collect();
        let mut compressed = Compressed::default();
        let appended = compressed
            .append(&mut &data[..], data.len())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(appended, data.len());
        assert_eq!(compressed.pieces.len(), 4);
        let mut again = Vec::new();
        compressed
            .reader()
            .read_to_end(&mut again)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(again, data, "reading without consuming");
        let mut first = vec![0u8; PIECE_BYTES + 5];
        compressed
            .read_exact(&mut first)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(compressed.pieces.len(), 3, "the first piece is freed");
        let mut rest = Vec::new();
        compressed
            .read_to_end(&mut rest)
            .unwrap_or_else(|e| panic!("{e}"));
        first.extend(rest);
        assert_eq!(first, data);
        assert!(compressed.pieces.is_empty());
    }

    #[test]
    fn bytes_that_are_no_frame_reach_the_streaming_decoder() {
        let mut compressed =
            zstd::bulk::compress(b"1. e4 *\n", 3).unwrap_or_else(|e| panic!("{e}"));
        compressed.extend(b"not zstd at all");
        let (read, error) = read_all(compressed);
        assert_eq!(read, b"1. e4 *\n");
        assert!(error.is_some());
    }
}
