//! PGN stage, framing on the workers: the reader thread only reads the text
//! and cuts it into chunks at places where a game starts whatever came
//! before; the workers frame the chunks (side jobs), and the reader numbers
//! their games in input order. The framing itself was the reader thread's
//! work, about 1 µs a lichess game, and the one serial step that grew with
//! the input's bytes (issue 38).
//!
//! A chunk ends before a `[Event "` line that follows an empty line (LF or
//! CRLF): the [`Framer`] ends the game before it in every state (in
//! movetext a blank line ends it; in a tag section a blank line then
//! `[Event ` starts a new game; an unterminated `{` comment is cut at a
//! blank line followed by a tag pair; a `;` or `%` line ends at its
//! newline), so a chunk always starts where the framer of the whole stream
//! would start a game, and framing the chunks apart gives the same games,
//! offsets, lines and ordinals as framing the stream in one go (the tests
//! compare both, byte by byte, at chunk sizes down to a few bytes).
//! A stretch of text without such a line longer than the largest chunk
//! (tags-only exports without `Event`, a game of many MiB) is framed on the
//! reader thread from the last cut on, as before.

use std::collections::VecDeque;
use std::io::{self, Cursor, Read};
use std::sync::Arc;
use std::time::Duration;

use crate::input::keep::{Cut, Keep};
use crate::jobs::{Deferred, JobPanicked, SideJob, SideJobSender};
use crate::pgn::framer::{Batch, Framer, MAX_GAME_BYTES, Resume, Truncation};
use crate::profile::Stage;

/// Where a chunk may end, after an empty line (`\n` or `\r\n` before it):
/// the chunk holds the empty line, the next one starts at the `[`.
const EVENT_LINE: &[u8] = b"\n[Event \"";
/// Bytes a chunk's buffer first holds, doubled as it fills.
const FIRST_READ: usize = 16 << 10;
/// Bytes of [`EVENT_LINE`] after the cut: the chunk's framer sees them, so
/// that it decides at the blank line exactly as the whole stream's does.
const LOOKAHEAD: usize = EVENT_LINE.len() - 1;

/// Sizes of a run's chunks and batches.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChunkSizes {
    /// Bytes read for a chunk before looking for its cut.
    pub chunk_bytes: usize,
    /// A chunk grows (doubling) up to this size while it holds no cut; past
    /// it, the rest of the input is framed on the reader thread.
    pub max_chunk_bytes: usize,
    /// A batch's limits, as [`Framer::fill_batch`] takes them.
    pub batch_bytes: usize,
    pub batch_games: usize,
}

impl ChunkSizes {
    /// Chunks of about one batch, up to 16 batches while they hold no cut
    /// (a game of several MiB): text that needs more (a game near
    /// [`MAX_GAME_BYTES`], a file without cuts) is rare, and framed on the
    /// reader thread in the memory it took before.
    pub(crate) fn for_batches(batch_bytes: usize, batch_games: usize) -> ChunkSizes {
        ChunkSizes {
            chunk_bytes: batch_bytes,
            max_chunk_bytes: (16 * batch_bytes).min(MAX_GAME_BYTES),
            batch_bytes,
            batch_games,
        }
    }
}

/// Where the workers' framing jobs go, and how many may be ahead.
#[derive(Clone)]
pub(crate) struct Workers {
    pub side_jobs: SideJobSender,
    pub chunks_ahead: usize,
    /// How long the reader leaves a chunk to the workers before it frames
    /// the chunk itself.
    pub patience: Duration,
}

impl Workers {
    /// No worker takes the jobs: the reader frames every chunk itself, at
    /// once (the tests and the `import` fuzz target).
    pub(crate) fn on_this_thread(chunks_ahead: usize) -> Workers {
        let (side_jobs, _) = crate::jobs::side_jobs();
        Workers {
            side_jobs,
            chunks_ahead,
            patience: Duration::ZERO,
        }
    }
}

/// How a chunk ends.
enum ChunkEnd {
    /// Before the `[` at this index (the [`LOOKAHEAD`] bytes after it are in
    /// the chunk's buffer).
    Cut(usize),
    /// At the end of the input.
    End,
    /// Where the input broke off, with the read error.
    Broken(String),
}

/// A chunk framed by a worker, numbered from 1 within the chunk.
struct Framed {
    batches: Vec<Batch>,
    /// The chunk's buffer, back for the next chunk.
    buffer: Vec<u8>,
    games: u64,
    newlines: u64,
    /// Bytes of the input the chunk stands for (up to its cut).
    consumed: u64,
    truncation: Option<Truncation>,
}

type FramingJob = Deferred<io::Result<Framed>>;

/// The text of the input's end that must be framed on the reader thread.
struct Rest<R> {
    /// Read but not framed yet, from a game's start.
    head: Vec<u8>,
    src: R,
}

enum Serial<R> {
    /// No stretch without a cut was too long.
    No,
    /// The rest, framed once the chunks before it are numbered.
    Waiting(Rest<R>),
    Framing(Box<Framer<ThenRest<R>>>),
}

/// Streams the batches of one input, framed on the workers, in input order.
pub(crate) struct ChunkedFramer<R> {
    src: Option<R>,
    workers: Workers,
    sizes: ChunkSizes,
    /// Read and not yet in a chunk: `buffer[..filled]`, starting at a game.
    buffer: Vec<u8>,
    filled: usize,
    spare_buffers: Vec<Vec<u8>>,
    in_flight: VecDeque<Arc<FramingJob>>,
    ready: VecDeque<Batch>,
    /// Where the next chunk to be numbered starts.
    offset: u64,
    line: u64,
    games: u64,
    bytes_read: u64,
    truncation: Option<Truncation>,
    serial: Serial<R>,
}

impl<R: Read> ChunkedFramer<R> {
    pub(crate) fn new(src: R, workers: Workers, sizes: ChunkSizes) -> Self {
        ChunkedFramer {
            src: Some(src),
            workers,
            sizes,
            buffer: Vec::new(),
            filled: 0,
            spare_buffers: Vec::new(),
            in_flight: VecDeque::new(),
            ready: VecDeque::new(),
            offset: 0,
            line: 1,
            games: 0,
            bytes_read: 0,
            truncation: None,
            serial: Serial::No,
        }
    }

    /// Where the input was cut short, once known (after the last batch).
    pub(crate) fn truncation(&self) -> Option<&Truncation> {
        match &self.serial {
            Serial::Framing(framer) => framer.truncation(),
            _ => self.truncation.as_ref(),
        }
    }

    /// Uncompressed bytes read from the source so far.
    pub(crate) fn bytes_read(&self) -> u64 {
        match &self.serial {
            Serial::Framing(framer) => framer.bytes_read(),
            _ => self.bytes_read,
        }
    }

    /// The next batch in input order, its games numbered from
    /// `next_game_id`; `spare` gives empty batches to fill. `None` once the
    /// input is done.
    pub(crate) fn next_batch(
        &mut self,
        next_game_id: &mut u64,
        spare: &mut dyn FnMut() -> Batch,
    ) -> io::Result<Option<Batch>> {
        loop {
            if let Some(batch) = self.ready.pop_front() {
                return Ok(Some(batch));
            }
            self.hand_out(spare)?;
            if let Some(job) = self.in_flight.pop_front() {
                let framed = job
                    .wait_patiently(self.workers.patience)
                    .map_err(|JobPanicked| io::Error::other("framing a chunk panicked"))??;
                self.number(framed, next_game_id);
                continue;
            }
            return self.next_serial_batch(next_game_id, spare);
        }
    }

    /// Reads chunks and hands them to the workers until enough are ahead.
    fn hand_out(&mut self, spare: &mut dyn FnMut() -> Batch) -> io::Result<()> {
        while self.in_flight.len() < self.workers.chunks_ahead.max(1) {
            let Some(end) = self.read_chunk() else {
                return Ok(());
            };
            let batch = spare();
            // No spare buffer yet: a new one, grown by `read_chunk`.
            let mut buffer = self.spare_buffers.pop().unwrap_or_default();
            // The text after the cut begins the next chunk.
            let (used, framed_len) = match end {
                ChunkEnd::Cut(cut) => (cut, cut + LOOKAHEAD),
                ChunkEnd::End | ChunkEnd::Broken(_) => (self.filled, self.filled),
            };
            let carry = &self.buffer[used..self.filled];
            fill_from(&mut buffer, carry);
            let carried = carry.len();
            let chunk = std::mem::replace(&mut self.buffer, buffer);
            self.filled = carried;
            let sizes = self.sizes;
            let job = Deferred::new(Stage::Framing, move || {
                frame_chunk(chunk, framed_len, end, batch, sizes)
            });
            let _ = self
                .workers
                .side_jobs
                .send(Arc::clone(&job) as Arc<dyn SideJob>);
            self.in_flight.push_back(job);
        }
        Ok(())
    }

    /// Reads until the buffer holds a chunk and says where it ends; `None`
    /// when the input is done, or its rest goes to the reader thread.
    fn read_chunk(&mut self) -> Option<ChunkEnd> {
        let mut target = self.sizes.chunk_bytes.max(EVENT_LINE.len() + 2);
        loop {
            let src = self.src.as_mut()?;
            // Read exactly up to the target, so that where the chunk is cut
            // does not depend on how much each read returns.
            while self.filled < target {
                if self.buffer.len() == self.filled {
                    // Grown as the text comes, not zeroed to the target at
                    // once: a small input (a zip entry of one game) takes
                    // a small buffer.
                    let grown = (2 * self.filled).max(FIRST_READ).min(target);
                    self.buffer.resize(grown, 0);
                }
                let end = self.buffer.len().min(target);
                let room = &mut self.buffer[self.filled..end];
                match src.read(room) {
                    Ok(0) => {
                        self.src = None;
                        return (self.filled > 0).then_some(ChunkEnd::End);
                    }
                    Ok(n) => {
                        self.filled += n;
                        self.bytes_read += n as u64;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.src = None;
                        return Some(ChunkEnd::Broken(e.to_string()));
                    }
                }
            }
            let text = &self.buffer[..self.filled];
            if let Some(cut) = last_cut(text) {
                return Some(ChunkEnd::Cut(cut));
            }
            if target >= self.sizes.max_chunk_bytes {
                // No cut in the largest chunk: the rest is framed serially.
                let mut head = std::mem::take(&mut self.buffer);
                head.truncate(self.filled);
                self.filled = 0;
                if let Some(src) = self.src.take() {
                    self.serial = Serial::Waiting(Rest { head, src });
                }
                return None;
            }
            target = (target * 2).min(self.sizes.max_chunk_bytes);
        }
    }

    /// Numbers a framed chunk's games after those before it, and queues its
    /// batches.
    fn number(&mut self, framed: Framed, next_game_id: &mut u64) {
        for mut batch in framed.batches {
            for game in &mut batch.games {
                game.game_id = *next_game_id;
                *next_game_id += 1;
                game.game_index += self.games;
                game.offset += self.offset;
                game.line += self.line - 1;
            }
            self.ready.push_back(batch);
        }
        if let Some(mut truncation) = framed.truncation {
            truncation.offset += self.offset;
            self.truncation = Some(truncation);
        }
        self.games += framed.games;
        self.line += framed.newlines;
        self.offset += framed.consumed;
        if self.buffer_is_reusable(&framed.buffer) {
            self.spare_buffers.push(framed.buffer);
        }
    }

    fn buffer_is_reusable(&self, buffer: &[u8]) -> bool {
        buffer.len() <= self.sizes.chunk_bytes
            && self.spare_buffers.len() < self.workers.chunks_ahead
    }

    /// The next batch of the rest framed on the reader thread, if any.
    fn next_serial_batch(
        &mut self,
        next_game_id: &mut u64,
        spare: &mut dyn FnMut() -> Batch,
    ) -> io::Result<Option<Batch>> {
        self.serial = match std::mem::replace(&mut self.serial, Serial::No) {
            Serial::Waiting(Rest { head, src }) => {
                let resume = Resume {
                    offset: self.offset,
                    line: self.line,
                    games: self.games,
                };
                let rest = ThenRest {
                    head,
                    read: 0,
                    rest: src,
                };
                Serial::Framing(Box::new(Framer::resuming(rest, resume)))
            }
            other => other,
        };
        let Serial::Framing(framer) = &mut self.serial else {
            return Ok(None);
        };
        framer.next_batch(
            next_game_id,
            spare,
            self.sizes.batch_bytes,
            self.sizes.batch_games,
        )
    }
}

/// The start of the last `[Event "` line of `text` after an empty line.
fn last_cut(text: &[u8]) -> Option<usize> {
    memchr::memmem::rfind_iter(text, EVENT_LINE).find_map(|at| {
        let before = text.get(..at)?;
        (before.ends_with(b"\n") || before.ends_with(b"\n\r")).then_some(at + 1)
    })
}

/// Copies `carry` to the start of `buffer`. A buffer used before keeps its
/// length, so is not zeroed again; [`ChunkedFramer::read_chunk`] grows it
/// as the text comes.
fn fill_from(buffer: &mut Vec<u8>, carry: &[u8]) {
    if buffer.len() < carry.len() {
        buffer.resize(carry.len(), 0);
    }
    if let Some(front) = buffer.get_mut(..carry.len()) {
        front.copy_from_slice(carry);
    }
}

/// Frames one chunk, `chunk[..len]`, its games numbered from 1 (a worker's
/// side job).
fn frame_chunk(
    chunk: Vec<u8>,
    len: usize,
    end: ChunkEnd,
    first: Batch,
    sizes: ChunkSizes,
) -> io::Result<Framed> {
    // A cut leaves its lookahead in the chunk: `len` is within it.
    let text = &chunk[..len];
    let (keep, consumed, at_end, broken) = match end {
        // The game starting at the cut belongs to the next chunk.
        ChunkEnd::Cut(cut) => (Cut::Text(0..cut as u64).keep(), cut, false, None),
        ChunkEnd::End => (Keep::whole(), len, true, None),
        ChunkEnd::Broken(cause) => (Keep::whole(), len, true, Some(cause)),
    };
    let mut framer =
        Framer::new(Cursor::new(text).chain(BreaksOff(broken))).keeping(Arc::new(keep));
    let source = first.source;
    let mut batch = first;
    let mut batches = Vec::new();
    let mut game_id = 0;
    while framer.fill_batch(
        &mut batch,
        &mut game_id,
        sizes.batch_bytes,
        sizes.batch_games,
    )? {
        let next = Batch {
            source,
            ..Batch::default()
        };
        batches.push(std::mem::replace(&mut batch, next));
    }
    let truncation = if at_end {
        framer.truncation().cloned()
    } else {
        None
    };
    // Framed to its end: past a cut only the `[Event "` line's start, which
    // holds no newline, so these are the chunk's newlines up to the cut.
    let newlines = framer.line() - 1;
    let games = framer.games_in_source();
    Ok(Framed {
        batches,
        buffer: chunk,
        games,
        newlines,
        consumed: consumed as u64,
        truncation,
    })
}

/// The text read for a chunk, then the rest of the input; the chunk's
/// bytes are freed once read (the framer holds what it still needs).
pub(crate) struct ThenRest<R> {
    head: Vec<u8>,
    read: usize,
    rest: R,
}

impl<R: Read> Read for ThenRest<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let unread = &self.head[self.read..];
        if unread.is_empty() {
            self.head = Vec::new();
            self.read = 0;
            return self.rest.read(buf);
        }
        let n = unread.len().min(buf.len());
        buf[..n].copy_from_slice(&unread[..n]);
        self.read += n;
        Ok(n)
    }
}

/// The end of a chunk's text: the end of the input, or the read error that
/// cut it short, as the framer of the whole stream met it.
struct BreaksOff(Option<String>);

impl Read for BreaksOff {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match &self.0 {
            Some(cause) => Err(io::Error::other(cause.clone())),
            None => Ok(0),
        }
    }
}

/// What framing says of an input: each game's source, ids and place
/// (`game_id`, `game_index`, offset, line), bytes and flags (oversized,
/// tags-only, truncated); where the input was cut short; the bytes read.
/// Framing in chunks must say what framing the whole stream says: the tests
/// and the `import` fuzz target compare both.
#[derive(Debug, PartialEq)]
pub(crate) struct Framing {
    pub games: Vec<FramedGame>,
    pub truncation: Option<Truncation>,
    pub bytes_read: u64,
}

/// A framed game, as [`Framing`] lists it.
type FramedGame = (u32, [u64; 4], Vec<u8>, [bool; 3]);

impl Framing {
    /// Batches are of this source, numbered from this game id: a batch
    /// that lost either shows.
    const SOURCE: u32 = 7;
    const FIRST_ID: u64 = 100;

    /// The stream framed in one go on this thread: the reference.
    pub(crate) fn whole(src: impl Read, batch_games: usize) -> Framing {
        let mut framer = Framer::new(src);
        let mut games = Vec::new();
        let mut id = Self::FIRST_ID;
        while let Ok(Some(batch)) =
            framer.next_batch(&mut id, &mut Self::spare, usize::MAX, batch_games)
        {
            Self::add(&batch, &mut games);
        }
        Framing {
            games,
            truncation: framer.truncation().cloned(),
            bytes_read: framer.bytes_read(),
        }
    }

    /// The stream framed in chunks, by `workers`.
    pub(crate) fn in_chunks(src: impl Read, sizes: ChunkSizes, workers: Workers) -> Framing {
        let mut framer = ChunkedFramer::new(src, workers, sizes);
        let mut games = Vec::new();
        let mut id = Self::FIRST_ID;
        while let Ok(Some(batch)) = framer.next_batch(&mut id, &mut Self::spare) {
            Self::add(&batch, &mut games);
        }
        Framing {
            games,
            truncation: framer.truncation().cloned(),
            bytes_read: framer.bytes_read(),
        }
    }

    fn spare() -> Batch {
        Batch {
            source: Self::SOURCE,
            ..Batch::default()
        }
    }

    fn add(batch: &Batch, games: &mut Vec<FramedGame>) {
        for g in &batch.games {
            let place = [g.game_id, g.game_index, g.offset, g.line];
            let flags = [g.oversized, g.tags_only, g.truncated];
            let bytes = batch.game_bytes(g).to_vec();
            games.push((batch.source, place, bytes, flags));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::side_jobs;

    fn chunked(src: impl Read, sizes: ChunkSizes, workers: Workers) -> Framing {
        let framing = Framing::in_chunks(src, sizes, workers);
        for (source, ..) in &framing.games {
            assert_eq!(*source, Framing::SOURCE);
        }
        framing
    }

    /// Jobs left to the reader itself (no workers in these tests).
    fn no_workers() -> Workers {
        Workers::on_this_thread(3)
    }

    fn sizes(chunk_bytes: usize, max_chunk_bytes: usize, batch_games: usize) -> ChunkSizes {
        ChunkSizes {
            chunk_bytes,
            max_chunk_bytes,
            batch_bytes: usize::MAX,
            batch_games,
        }
    }

    /// Hands out at most `n` bytes per read, then the error if any.
    struct Trickle<'a>(&'a [u8], usize, Option<&'static str>);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty()
                && let Some(cause) = self.2
            {
                return Err(io::Error::other(cause));
            }
            let n = self.1.min(buf.len()).min(self.0.len());
            let (head, tail) = self.0.split_at(n);
            buf[..n].copy_from_slice(head);
            self.0 = tail;
            Ok(n)
        }
    }

    const LICHESS: &str = "[Event \"Rated Blitz game\"]\n[Site \"https://lichess.org/a\"]\n\
        [Result \"1-0\"]\n\n1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:00] } 1-0\n\n";

    #[test]
    fn chunks_frame_as_the_whole_stream() {
        let lf = LICHESS.repeat(50);
        // pgnmentor's files are CRLF.
        let crlf = lf.replace('\n', "\r\n");
        for text in [lf, crlf] {
            let reference = Framing::whole(text.as_bytes(), 7);
            assert_eq!(reference.games.len(), 50);
            for chunk_bytes in [1, 11, 100, 150, 333, 4096, 1 << 20] {
                let sizes = sizes(chunk_bytes, 1 << 20, 7);
                let framed = chunked(Trickle(text.as_bytes(), 97, None), sizes, no_workers());
                assert_eq!(framed, reference, "chunks of {chunk_bytes} bytes");
            }
        }
    }

    #[test]
    fn cuts_are_before_an_event_line_after_an_empty_line() {
        assert_eq!(last_cut(b"1-0\n\n[Event \"a\"]\n"), Some(5));
        assert_eq!(last_cut(b"1-0\r\n\r\n[Event \"a\"]\r\n"), Some(7));
        assert_eq!(last_cut(b"x\n\n[Event \"a\"]\n\n[Event \"b"), Some(16));
        // Not after an empty line, or not an `Event` tag.
        assert_eq!(last_cut(b"1-0\n[Event \"a\"]\n"), None);
        assert_eq!(last_cut(b"1-0\n \n[Event \"a\"]\n"), None);
        assert_eq!(last_cut(b"1-0\n\n[Eventful \"a\"]\n"), None);
    }

    /// Workers on other threads frame the chunks; the batches come in order.
    #[test]
    fn workers_frame_the_chunks_in_order() {
        let text = LICHESS.repeat(400);
        let (side_jobs, jobs) = side_jobs();
        let workers: Vec<_> = (0..3)
            .map(|_| {
                let jobs = jobs.clone();
                std::thread::spawn(move || {
                    for job in jobs {
                        job.run();
                    }
                })
            })
            .collect();
        let framed = chunked(
            text.as_bytes(),
            sizes(1000, 1 << 20, 5),
            Workers {
                side_jobs,
                chunks_ahead: 4,
                patience: Duration::from_secs(5),
            },
        );
        for worker in workers {
            assert!(worker.join().is_ok());
        }
        assert_eq!(framed, Framing::whole(text.as_bytes(), 5));
    }

    /// A stretch without a cut longer than the largest chunk goes to the
    /// reader thread: games without `Event`, and a file with cuts only at
    /// its start.
    #[test]
    fn text_without_cuts_is_framed_on_the_reader_thread() {
        let no_event = LICHESS
            .replace("[Event \"Rated Blitz game\"]\n", "")
            .repeat(20);
        let mixed = format!("{}{}", LICHESS.repeat(5), no_event);
        for text in [no_event, mixed] {
            let framed = chunked(
                Trickle(text.as_bytes(), 5, None),
                sizes(64, 256, 3),
                no_workers(),
            );
            assert_eq!(framed, Framing::whole(text.as_bytes(), 3));
        }
    }

    #[test]
    fn a_read_error_truncates_as_in_the_whole_stream() {
        let text = format!("{}[Event \"cut\"]\n\n1. e4 {{ [%clk", LICHESS.repeat(9));
        for chunk_bytes in [10, 200, 1 << 16] {
            let framed = chunked(
                Trickle(text.as_bytes(), 64, Some("disk on fire")),
                sizes(chunk_bytes, 1 << 16, 4),
                no_workers(),
            );
            let reference = Framing::whole(Trickle(text.as_bytes(), 64, Some("disk on fire")), 4);
            assert_eq!(
                reference.truncation.as_ref().map(|t| t.cause.as_str()),
                Some("disk on fire")
            );
            assert_eq!(framed, reference);
        }
    }

    proptest::proptest! {
        /// Any text, any chunk and read sizes: the games of the whole
        /// stream, with their offsets, lines, ordinals, flags and the
        /// input's truncation.
        #[test]
        fn chunked_framing_is_the_whole_streams(
            pieces in proptest::collection::vec(0usize..18, 0..80),
            chunk_bytes in 1usize..200,
            grow in 1usize..4,
            read_size in 1usize..100,
            batch_games in 1usize..5,
            broken in proptest::bool::ANY,
        ) {
            const PIECES: [&str; 18] = [
                "{", "}", ";", "\n", "\n\n", "[Event \"x\"]\n", "[Result \"*\"]\n",
                "e4 ", "{ [%clk 0:01:00] } ", "1-0", "%", " ", "\r\n", "\u{feff}",
                "[Site \"y\"]", "\n\n[Event \"z\"]\n", "\r\n\r\n[Event \"w\"]\r\n", "\r",
            ];
            let text: String = pieces.iter().filter_map(|&i| PIECES.get(i)).copied().collect();
            let cause = broken.then_some("broken pipe");
            let sizes = sizes(chunk_bytes, chunk_bytes << grow, batch_games);
            let framed = chunked(Trickle(text.as_bytes(), read_size, cause), sizes, no_workers());
            let reference = Framing::whole(Trickle(text.as_bytes(), read_size, cause), batch_games);
            proptest::prop_assert_eq!(framed, reference, "{:?}", text);
        }
    }
}
