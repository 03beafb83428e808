//! PGN stage, framing: cuts a decompressed byte stream into games, recording
//! each game's byte offset and first line, so that workers can parse and
//! replay games in parallel and every reject can point at its place.
//!
//! The boundaries follow pgn-reader's own rules (a movetext ends at a blank
//! line or at a line starting with `[`, outside `{}` and `;` comments), with
//! two deliberate differences, both so that no game hides inside another:
//! - inside a header, a blank line followed by `[Event ` starts a new game,
//!   and so does a blank line followed by any tag pair once the header holds
//!   a `Result` tag, and an `[Event ` line once it holds both `Event` and
//!   `Result` (pgn-reader would merge a tags-only game with the next one;
//!   broadcast exports hold games that are only tags, not always starting
//!   with `Event`, and `cat` joins files without a blank line). A header
//!   with a blank line before its `Result` (ChessBase writes `[Event …]`,
//!   a blank line, then the other tags) or with `Event` after `Result` (as
//!   lichess studies order them) stays one game;
//! - a `{` comment still open at a blank line followed by a tag pair is cut
//!   there, so an unterminated comment loses one game, not the rest of the file.
//!
//! A game longer than [`MAX_GAME_BYTES`] is cut at that size, which keeps
//! memory bounded on pathological input; the worker rejects it.

use std::io::{self, Read};
use std::sync::Arc;

use crate::input::keep::Keep;
use crate::pgn::result::GameResult;
use crate::pgn::tag_line::{self, Met};

pub use super::batch::{Batch, RawGame};
pub(crate) use super::batch::{SEPARATOR, separator};

/// Longest game the framer keeps whole.
pub const MAX_GAME_BYTES: usize = 32 << 20;
const READ_CHUNK: usize = 1 << 20;
/// The first read of a framer: doubled while reads fill it, up to
/// [`READ_CHUNK`], so that a small input (a chunk, a zip entry of one game)
/// does not zero a whole read chunk.
const FIRST_READ: usize = 16 << 10;

/// Where and why an input ended before its end.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Truncation {
    /// Uncompressed bytes read before the cut.
    pub offset: u64,
    /// The read error, or that the input stops inside a game.
    pub cause: String,
}

/// One game found in the framer's buffer.
struct Frame {
    offset: u64,
    line: u64,
    range: std::ops::Range<usize>,
    oversized: bool,
    /// The game ended in its tag section (no movetext).
    tags_only: bool,
    truncated: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Skipping whitespace and `%` escape lines before a game.
    Between { line_start: bool },
    /// Inside the tag section.
    Tags { line_start: bool },
    /// Inside movetext, outside comments.
    Movetext,
    /// Inside a `{` comment.
    Comment,
    /// Inside a `;` comment or `%` escape line (runs to the newline).
    LineComment,
}

/// Where the scan stopped.
enum Step {
    /// The current game ends at this index (exclusive).
    GameEnd(usize),
    /// More bytes are needed to decide.
    NeedMore,
}

/// Where a framer starts in its input when it does not start at the input's
/// beginning: at a game's first byte, after `games` games and `line - 1`
/// newlines.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Resume {
    pub offset: u64,
    pub line: u64,
    pub games: u64,
}

/// Streams games out of a reader.
pub struct Framer<R> {
    src: R,
    buf: Vec<u8>,
    /// Bytes asked of the next read.
    read_size: usize,
    /// Scan position in `buf`.
    pos: usize,
    /// Start of the current game in `buf`, if one has begun.
    game_start: Option<usize>,
    game_line: u64,
    state: State,
    eof: bool,
    /// Stream offset of `buf[0]`.
    base_offset: u64,
    /// Line number at `pos`.
    line: u64,
    games_in_source: u64,
    max_game_bytes: usize,
    /// The read error that ended the input early, if one did.
    broken: Option<String>,
    /// Set when the input turned out to be cut short.
    truncation: Option<Truncation>,
    /// Games kept: those whose first byte is at an offset in this range
    /// (a shard's part of the input). The others are framed all the same,
    /// so that offsets, lines and ordinals are those of the whole input.
    keep: Arc<Keep>,
    /// A game at or past `keep.end` was reached: the part is done.
    past_part: bool,
    /// The current game's tag section holds a `Result` tag: a blank line
    /// then any tag pair starts the next game.
    tags_have_result: bool,
    /// It holds an `Event` tag too: a second `[Event ` line starts the next
    /// game.
    tags_have_event: bool,
    /// Off: the movetext is scanned step by step only (the tests compare).
    #[cfg(test)]
    skip_lines: bool,
}

impl<R: Read> Framer<R> {
    pub fn new(src: R) -> Self {
        Framer {
            src,
            buf: Vec::new(),
            read_size: FIRST_READ,
            pos: 0,
            game_start: None,
            game_line: 1,
            state: State::Between { line_start: true },
            eof: false,
            base_offset: 0,
            line: 1,
            games_in_source: 0,
            max_game_bytes: MAX_GAME_BYTES,
            broken: None,
            truncation: None,
            keep: Arc::new(Keep::whole()),
            past_part: false,
            tags_have_result: false,
            tags_have_event: false,
            #[cfg(test)]
            skip_lines: true,
        }
    }

    /// A framer of the input from a game's first byte on, `src` reading
    /// from there.
    pub(crate) fn resuming(src: R, at: Resume) -> Self {
        let mut framer = Framer::new(src);
        framer.base_offset = at.offset;
        framer.line = at.line;
        framer.games_in_source = at.games;
        framer
    }

    /// Keeps only the games that start at an uncompressed offset in `keep`
    /// and stops reading at the first game past it. The games before it
    /// are framed (not parsed), so offsets, lines and `game_index` stay
    /// those of the whole input; a cut at any offset gives every game to
    /// exactly one part, because the framing does not depend on the cut.
    pub(crate) fn keeping(mut self, keep: Arc<Keep>) -> Self {
        self.keep = keep;
        self
    }

    /// A smaller cut-off than [`MAX_GAME_BYTES`], for tests.
    #[cfg(test)]
    pub(crate) fn with_max_game_bytes(mut self, bytes: usize) -> Self {
        self.max_game_bytes = bytes;
        self
    }

    /// Where the input was cut short, once known (after the last game).
    pub(crate) fn truncation(&self) -> Option<&Truncation> {
        self.truncation.as_ref()
    }

    /// Uncompressed bytes read from the source so far.
    pub(crate) fn bytes_read(&self) -> u64 {
        self.base_offset + self.buf.len() as u64
    }

    /// Games framed so far, kept or not (the last `game_index`).
    pub(crate) fn games_in_source(&self) -> u64 {
        self.games_in_source
    }

    /// The line the scan has reached: 1 + the newlines framed so far.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// The next batch, `spare()` filled as [`Framer::fill_batch`] fills it;
    /// `None` once the source is exhausted.
    pub(crate) fn next_batch(
        &mut self,
        next_game_id: &mut u64,
        spare: &mut dyn FnMut() -> Batch,
        max_bytes: usize,
        max_games: usize,
    ) -> io::Result<Option<Batch>> {
        let mut batch = spare();
        let more = self.fill_batch(&mut batch, next_game_id, max_bytes, max_games)?;
        Ok(more.then_some(batch))
    }

    /// Fills `batch` with games until it holds `max_bytes` or `max_games`, or
    /// the source ends. Returns false when the source is exhausted and the
    /// batch got nothing.
    pub fn fill_batch(
        &mut self,
        batch: &mut Batch,
        next_game_id: &mut u64,
        max_bytes: usize,
        max_games: usize,
    ) -> io::Result<bool> {
        while batch.data.len() < max_bytes && batch.games.len() < max_games && !self.past_part {
            match self.next_game()? {
                Some(Frame { offset, .. }) if offset < self.keep.start() => {
                    self.games_in_source += 1;
                }
                Some(Frame { offset, .. }) if offset >= self.keep.end() => {
                    self.past_part = true;
                }
                Some(Frame {
                    offset,
                    line,
                    range,
                    oversized,
                    tags_only,
                    truncated,
                }) => {
                    let bytes = &self.buf[range];
                    let start = batch.data.len();
                    batch.data.extend_from_slice(bytes);
                    let end = batch.data.len();
                    batch.data.extend_from_slice(separator(tags_only));
                    self.games_in_source += 1;
                    batch.games.push(RawGame {
                        game_id: *next_game_id,
                        source: batch.source,
                        game_index: self.games_in_source,
                        offset,
                        line,
                        start,
                        end,
                        oversized,
                        tags_only,
                        truncated,
                    });
                    *next_game_id += 1;
                }
                None => break,
            }
        }
        if !batch.games.is_empty() {
            // pgn-reader asks for a full token's worth of lookahead before
            // every token; near the end of its input it would shift its
            // buffer on each one. Blank padding keeps the lookahead satisfied.
            let padded = batch.data.len() + crate::pgn::visitor::READER_LOOKAHEAD;
            batch.data.resize(padded, b'\n');
        }
        Ok(!batch.games.is_empty())
    }

    /// Finds the next game in `buf`.
    fn next_game(&mut self) -> io::Result<Option<Frame>> {
        loop {
            let step = self.scan();
            let end = match step {
                // A game that ends past the limit is cut at the limit, as
                // it would have been had the bytes come in smaller reads.
                Step::GameEnd(end) => match self.game_start {
                    Some(start) if end - start > self.max_game_bytes => {
                        Some((self.cut_at_limit(start), true))
                    }
                    _ => Some((end, false)),
                },
                Step::NeedMore if self.eof && self.oversized().is_none() => {
                    let end = self.buf.len();
                    self.pos = end;
                    if self.game_start.is_none() {
                        self.note_break_between_games();
                    }
                    self.game_start.map(|_| (end, false))
                }
                Step::NeedMore => {
                    if let Some(start) = self.oversized() {
                        Some((self.cut_at_limit(start), true))
                    } else {
                        self.refill()?;
                        continue;
                    }
                }
            };
            let Some((end, oversized)) = end else {
                return Ok(None);
            };
            let Some(start) = self.game_start.take() else {
                return Ok(None);
            };
            let tags_only = matches!(self.state, State::Tags { .. });
            let truncated =
                self.eof && end == self.buf.len() && self.cut_inside(start..end, tags_only);
            self.state = State::Between { line_start: true };
            if oversized {
                // Resume mid-line after a cut.
                self.state = State::Between { line_start: false };
            }
            return Ok(Some(Frame {
                offset: self.base_offset + start as u64,
                line: self.game_line,
                range: start..end,
                oversized,
                tags_only,
                truncated,
            }));
        }
    }

    /// Cuts the current game at exactly the size limit, not wherever the
    /// last read ended, so that the pieces do not depend on read sizes. The
    /// scan stopped before or after the cut (a newline waiting for
    /// lookahead is not counted yet): the lines up to the cut are counted.
    /// Returns the cut.
    fn cut_at_limit(&mut self, start: usize) -> usize {
        let end = (start + self.max_game_bytes).min(self.buf.len());
        let lines = |range: std::ops::Range<usize>| {
            memchr::memchr_iter(b'\n', &self.buf[range]).count() as u64
        };
        if self.pos <= end {
            self.line += lines(self.pos..end);
        } else {
            self.line -= lines(end..self.pos);
        }
        self.pos = end;
        end
    }

    /// The start of the current game, when it has reached the size limit.
    fn oversized(&self) -> Option<usize> {
        self.game_start
            .filter(|&start| self.buf.len() - start > self.max_game_bytes)
    }

    /// Is the last game of an input that ends in `game` cut off? Yes when
    /// the input broke off or stops mid-line, and the game does not end
    /// with a termination marker (a complete game that merely lacks the
    /// final newline is not cut, nor is a tags-only game whose last tag is
    /// complete).
    fn cut_inside(&mut self, range: std::ops::Range<usize>, tags_only: bool) -> bool {
        let game = &self.buf[range];
        let stops_mid_line = !game.ends_with(b"\n");
        let complete_tags = tags_only && game.trim_ascii_end().ends_with(b"]");
        if (self.broken.is_none() && (!stops_mid_line || complete_tags)) || ends_with_marker(game) {
            self.note_break_between_games();
            return false;
        }
        self.truncation = Some(Truncation {
            offset: self.bytes_read(),
            cause: self
                .broken
                .clone()
                .unwrap_or_else(|| "the input ends inside a game".to_owned()),
        });
        true
    }

    /// A read error after the last complete game still truncates the input.
    fn note_break_between_games(&mut self) {
        if let Some(cause) = &self.broken {
            self.truncation = Some(Truncation {
                offset: self.bytes_read(),
                cause: cause.clone(),
            });
        }
    }

    /// Drops consumed bytes and reads more.
    fn refill(&mut self) -> io::Result<()> {
        let keep = self.game_start.unwrap_or(self.pos);
        if keep > 0 {
            self.buf.drain(..keep);
            self.base_offset += keep as u64;
            self.pos -= keep;
            if let Some(start) = self.game_start.as_mut() {
                *start -= keep;
            }
        }
        let old_len = self.buf.len();
        self.buf.resize(old_len + self.read_size, 0);
        let n = loop {
            match self.src.read(&mut self.buf[old_len..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // The input breaks off here: what came before is
                    // framed as usual, and the cut is reported.
                    self.buf.truncate(old_len);
                    self.broken = Some(e.to_string());
                    self.eof = true;
                    return Ok(());
                }
            }
        };
        if n == self.read_size {
            self.read_size = (2 * n).min(READ_CHUNK);
        }
        self.buf.truncate(old_len + n);
        if n == 0 {
            self.eof = true;
        }
        Ok(())
    }

    /// Runs the state machine from `pos` until a game ends or bytes run out.
    fn scan(&mut self) -> Step {
        loop {
            let Some(&byte) = self.buf.get(self.pos) else {
                return Step::NeedMore;
            };
            match self.state {
                State::Between { line_start } => match byte {
                    b'\n' => self.advance_newline(State::Between { line_start: true }),
                    b' ' | b'\t' | b'\r' => {
                        self.pos += 1;
                        self.state = State::Between { line_start: false };
                    }
                    b'%' if line_start => {
                        self.state = State::LineComment;
                        self.game_start = None;
                    }
                    0xef if self.buf.get(self.pos..self.pos + 3) == Some(b"\xef\xbb\xbf") => {
                        self.pos += 3;
                    }
                    0xef if self.buf.len() - self.pos < 3 && !self.eof => return Step::NeedMore,
                    _ => {
                        self.game_start = Some(self.pos);
                        self.game_line = self.line;
                        self.tags_have_result = false;
                        self.tags_have_event = false;
                        self.state = if byte == b'[' {
                            State::Tags { line_start: true }
                        } else {
                            State::Movetext
                        };
                    }
                },
                State::Tags { line_start } => match byte {
                    b'[' if line_start => {
                        // One tag, read as pgn-reader reads it: up to the closing
                        // quote and `]`. What follows on the line is another tag
                        // or the start of the movetext.
                        let rest = &self.buf[self.pos..];
                        let Some(eol) = memchr::memchr(b'\n', rest) else {
                            if self.eof {
                                self.pos = self.buf.len();
                                continue;
                            }
                            return Step::NeedMore;
                        };
                        let line = &rest[..eol];
                        if tag_line::is_named(line, b"Event") {
                            // Two tags-only games joined without a blank line.
                            if self.tags_have_event && self.tags_have_result {
                                return Step::GameEnd(self.pos);
                            }
                            self.tags_have_event = true;
                        } else if tag_line::is_named(line, b"Result") {
                            self.tags_have_result = true;
                        }
                        self.pos += tag_len(line);
                        self.state = State::Tags { line_start: true };
                    }
                    b'\n' => {
                        // A blank line then `[Event `, or any tag pair after
                        // a `Result` tag, starts a new game.
                        let rest = &self.buf[self.pos..];
                        let next_game = if self.tags_have_result {
                            blank_line_then_tag(rest)
                        } else {
                            blank_line_then(rest, b"[Event ")
                        };
                        match next_game {
                            Lookahead::Yes(_) => {
                                let end = self.pos + 1;
                                self.advance_newline(State::Tags { line_start: true });
                                return Step::GameEnd(end);
                            }
                            Lookahead::Unknown if !self.eof => return Step::NeedMore,
                            _ => self.advance_newline(State::Tags { line_start: true }),
                        }
                    }
                    b' ' | b'\t' | b'\r' => self.pos += 1,
                    b'%' if line_start => {
                        // pgn-reader skips escape lines between tags.
                        match memchr::memchr(b'\n', &self.buf[self.pos..]) {
                            Some(i) => self.pos += i,
                            None if self.eof => self.pos = self.buf.len(),
                            None => return Step::NeedMore,
                        }
                    }
                    _ if line_start => self.state = State::Movetext,
                    _ => self.pos += 1,
                },
                State::Movetext => {
                    let rest = &self.buf[self.pos..];
                    let Some(i) = memchr::memchr3(b'\n', b'{', b';', rest) else {
                        self.pos = self.buf.len();
                        return Step::NeedMore;
                    };
                    self.pos += i;
                    match rest[i] {
                        b'{' => {
                            self.pos += 1;
                            self.state = State::Comment;
                            self.skip_to_line_end();
                        }
                        b';' => self.state = State::LineComment,
                        _ => {
                            // A newline: the game ends before a blank line or a `[`.
                            let after = self.buf.get(self.pos + 1..self.pos + 3);
                            let ends = match after {
                                Some([b'\n', _]) | Some([b'[', _]) | Some([b'\r', b'\n']) => {
                                    Some(true)
                                }
                                Some(_) => Some(false),
                                None if self.eof => {
                                    Some(matches!(self.buf.get(self.pos + 1), Some(b'\n' | b'[')))
                                }
                                None => None,
                            };
                            match ends {
                                None => return Step::NeedMore,
                                Some(true) => {
                                    let end = self.pos + 1;
                                    self.advance_newline(State::Between { line_start: true });
                                    return Step::GameEnd(end);
                                }
                                Some(false) => {
                                    if self.buf.get(self.pos + 1) == Some(&b'%') {
                                        self.advance_newline(State::LineComment);
                                    } else {
                                        self.advance_newline(State::Movetext);
                                    }
                                }
                            }
                        }
                    }
                }
                State::Comment => {
                    let rest = &self.buf[self.pos..];
                    let Some(i) = memchr::memchr2(b'}', b'\n', rest) else {
                        self.pos = self.buf.len();
                        return Step::NeedMore;
                    };
                    self.pos += i;
                    if rest[i] == b'}' {
                        self.pos += 1;
                        self.state = State::Movetext;
                        continue;
                    }
                    match blank_line_then_tag(&self.buf[self.pos..]) {
                        Lookahead::Yes(_) => {
                            // Unterminated comment: cut the game here.
                            let end = self.pos + 1;
                            self.advance_newline(State::Between { line_start: true });
                            return Step::GameEnd(end);
                        }
                        Lookahead::Unknown if !self.eof => return Step::NeedMore,
                        _ => self.advance_newline(State::Comment),
                    }
                }
                State::LineComment => {
                    let rest = &self.buf[self.pos..];
                    match memchr::memchr(b'\n', rest) {
                        Some(i) => {
                            self.pos += i;
                            self.state = if self.game_start.is_some() {
                                State::Movetext
                            } else {
                                State::Between { line_start: false }
                            };
                        }
                        None => {
                            self.pos = self.buf.len();
                            return Step::NeedMore;
                        }
                    }
                }
            }
        }
    }

    /// Inside a comment that began on this line: jumps to the end of the
    /// line, in the state the line ends in, when all of it is in the buffer
    /// and it has no `;`. Comments do not nest and a `{` inside one is
    /// text, so the line ends inside a comment exactly when its last brace
    /// is `{` (or it has none); three passes at memory speed instead of two
    /// steps per comment (lichess writes every move's clock in one, on one
    /// line). A `;` (a comment to the end of the line, or text) or a line
    /// not read yet is left to the step by step scan; so is a line without
    /// comments, which that scan crosses in one step.
    fn skip_to_line_end(&mut self) {
        #[cfg(test)]
        if !self.skip_lines {
            return;
        }
        let rest = &self.buf[self.pos..];
        let Some(eol) = memchr::memchr(b'\n', rest) else {
            return;
        };
        let line = &rest[..eol];
        if memchr::memchr(b';', line).is_some() {
            return;
        }
        match memchr::memrchr2(b'{', b'}', line).and_then(|i| line.get(i)) {
            Some(b'}') => self.state = State::Movetext,
            _ => self.state = State::Comment,
        }
        self.pos += eol;
    }

    /// Steps over the newline at `pos` and enters `next`.
    fn advance_newline(&mut self, next: State) {
        self.pos += 1;
        self.line += 1;
        self.state = next;
    }
}

/// Bytes of one tag at the start of `line` (at its `[`; the line holds no
/// line break, so a backslash never escapes one here), read by
/// [`tag_line::pair`]: name, quoted value, spaces and the closing `]`. A
/// value with unescaped quotes inside (`[Event "The "Big" Open"]`, where
/// the closing quote is not followed by `]`) runs to the last `"]` of the
/// line, as `clean --repair` reads it.
#[inline]
fn tag_len(line: &[u8]) -> usize {
    // The caller found the `[` at the line's start.
    let pair = tag_line::pair(&line[1..]);
    match pair.met {
        Met::Quote => after_value(line, 1 + pair.value.end),
        // No closing quote (the value runs to the line's end), or no value.
        _ => 1 + pair.end,
    }
}

/// The end of a tag whose value's closing quote is at `quote`: past spaces
/// and the `]`, or to the last `"]` of the line when other text follows
/// the quote.
fn after_value(line: &[u8], quote: usize) -> usize {
    let i = tag_line::skip_blanks(line, (quote + 1).min(line.len()));
    if line.get(i) == Some(&b']') {
        return i + 1;
    }
    match tag_line::last_quote_ket(line) {
        Some(end) if end > i => end,
        _ => i,
    }
}

enum Lookahead {
    Yes(usize),
    No,
    Unknown,
}

/// Does `rest` (starting at a newline) continue with a blank line and then `needle`?
fn blank_line_then(rest: &[u8], needle: &[u8]) -> Lookahead {
    let mut i = 1;
    // Skip `\r` and spaces on the (supposedly) empty line.
    while let Some(b' ' | b'\t' | b'\r') = rest.get(i) {
        i += 1;
    }
    match rest.get(i) {
        None => return Lookahead::Unknown,
        Some(b'\n') => i += 1,
        Some(_) => return Lookahead::No,
    }
    match rest.get(i..i + needle.len()) {
        Some(s) if s == needle => Lookahead::Yes(i),
        Some(_) => Lookahead::No,
        None if needle.starts_with(&rest[i..]) => Lookahead::Unknown,
        None => Lookahead::No,
    }
}

/// Does `rest` (at a newline) continue with a blank line and a tag pair
/// (`[Name "`)? Used to end an unterminated comment.
fn blank_line_then_tag(rest: &[u8]) -> Lookahead {
    let i = match blank_line_then(rest, b"[") {
        Lookahead::Yes(i) => i + 1,
        other => return other,
    };
    let name_len = tag_line::name_len(&rest[i..]);
    match rest.get(i + name_len..i + name_len + 2) {
        // The name, or what follows it, is not read yet (a read that ended
        // right after the `[` made an unterminated comment run on).
        None => Lookahead::Unknown,
        _ if name_len == 0 => Lookahead::No,
        Some(b" \"") => Lookahead::Yes(i),
        Some(_) => Lookahead::No,
    }
}

/// Does `game` end with a termination marker (`1-0`, `0:1`, `1/2-1/2`,
/// `½–½`, `*`, any spelling [`GameResult`] reads, glued or not)? Trailing
/// whitespace is ignored.
fn ends_with_marker(game: &[u8]) -> bool {
    GameResult::suffix_of(game).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The batch of one input's text, its games of source `source`.
    fn batch_of(text: &str, source: u32, next_id: &mut u64) -> Batch {
        let mut batch = Batch {
            source,
            ..Batch::default()
        };
        let filled = Framer::new(text.as_bytes()).fill_batch(&mut batch, next_id, 1 << 20, 100);
        assert!(matches!(filled, Ok(true)));
        batch
    }

    /// Batches of several inputs joined: every game keeps its source, place
    /// and bytes; the padding between them goes, and the last batch's stays.
    #[test]
    fn appended_batches_keep_each_games_source_and_bytes() {
        let mut id = 0;
        let mut joined = batch_of("[Event \"a\"]\n\n1. e4 *\n", 0, &mut id);
        let mut tags_only = batch_of("[Event \"b\"]\n[Result \"*\"]\n", 1, &mut id);
        let mut two = batch_of("1. d4 *\n\n1. c4 *", 2, &mut id);
        let expected: Vec<_> = [&joined, &tags_only, &two]
            .iter()
            .flat_map(|batch| {
                let bytes = |g: &RawGame| batch.game_bytes(g).to_vec();
                batch.games.iter().map(move |g| (g.clone(), bytes(g)))
            })
            .map(|(g, bytes)| (g.source, g.game_id, g.game_index, g.offset, bytes))
            .collect();
        joined.append(&mut tags_only);
        joined.append(&mut two);
        assert!(tags_only.games.is_empty() && tags_only.data.is_empty());
        assert!(joined.spans_sources());
        let got: Vec<_> = joined
            .games
            .iter()
            .map(|g| {
                let bytes = joined.game_bytes(g).to_vec();
                (g.source, g.game_id, g.game_index, g.offset, bytes)
            })
            .collect();
        assert_eq!(got, expected);
        let padding = crate::pgn::visitor::READER_LOOKAHEAD;
        let text = String::from_utf8_lossy(&joined.data[..joined.data.len() - padding]);
        assert_eq!(
            text,
            "[Event \"a\"]\n\n1. e4 *\n\n\n[Event \"b\"]\n[Result \"*\"]\n\n*\n\n1. d4 *\n\n\n1. c4 *\n\n"
        );
        assert!(
            joined.data[joined.data.len() - padding..]
                .iter()
                .all(|&b| b == b'\n')
        );
        // An empty batch takes the source of what joins it.
        let mut empty = Batch::default();
        empty.append(&mut joined);
        assert_eq!(empty.source, 0);
        assert!(!Batch::default().spans_sources());
    }

    fn frame_all<R: Read>(src: R, max_games: usize) -> Vec<(u64, u64, String)> {
        games_of(Framer::new(src), max_games)
    }

    /// Every game `framer` frames: offset, line and text.
    fn games_of<R: Read>(mut framer: Framer<R>, max_games: usize) -> Vec<(u64, u64, String)> {
        let mut id = 0;
        let mut out = Vec::new();
        loop {
            let mut batch = Batch::default();
            if !framer
                .fill_batch(&mut batch, &mut id, usize::MAX, max_games)
                .unwrap_or(false)
            {
                return out;
            }
            for g in &batch.games {
                let text = String::from_utf8_lossy(batch.game_bytes(g)).into_owned();
                out.push((g.offset, g.line, text));
            }
        }
    }

    fn frame(text: &str) -> Vec<(u64, u64, String)> {
        frame_all(text.as_bytes(), usize::MAX)
    }

    /// The games of `text` as the step-by-step scan alone frames them.
    fn frame_stepwise(text: &str, read_size: usize) -> Vec<(u64, u64, String)> {
        let mut framer = Framer::new(Trickle(text.as_bytes(), read_size));
        framer.skip_lines = false;
        games_of(framer, usize::MAX)
    }

    /// `tag_len` as it was read byte by byte: the reference for the
    /// memchr version.
    fn tag_len_stepwise(line: &[u8]) -> usize {
        let Some(open) = line.iter().position(|&c| matches!(c, b'"' | b']')) else {
            return line.len();
        };
        if line.get(open) == Some(&b']') {
            return open + 1;
        }
        let mut i = open + 1;
        while let Some(&c) = line.get(i) {
            match c {
                b'\\' => i += 2,
                b'"' => break,
                _ => i += 1,
            }
        }
        after_value(line, i)
    }

    /// The tag's name spelled out, as the framer used to compare it.
    fn tag_name_stepwise(line: &[u8]) -> &[u8] {
        let body = &line[1..];
        let len = body
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        &body[..len]
    }

    proptest::proptest! {
        #[test]
        fn tag_lines_are_read_as_byte_by_byte(
            pieces in proptest::collection::vec(0usize..10, 0..24),
        ) {
            const PIECES: [&[u8]; 10] = [
                b"[", b"]", b"\"", b"\\", b" ", b"\r", b"Event", b"Result", b"x", b"_",
            ];
            // The framer reads a tag line from its `[`.
            let line: Vec<u8> = std::iter::once(b'[')
                .chain(pieces.iter().flat_map(|&i| PIECES[i].iter().copied()))
                .collect();
            proptest::prop_assert_eq!(tag_len(&line), tag_len_stepwise(&line), "{:?}", line);
            for name in [&b"Event"[..], b"Result"] {
                proptest::prop_assert_eq!(
                    tag_line::is_named(&line, name),
                    tag_name_stepwise(&line) == name,
                    "{:?}",
                    line
                );
            }
        }

        /// Jumping over whole movetext lines (issue 38) frames every text
        /// as the step-by-step scan does: braces nested or stray, `;`
        /// comments, blank lines and tags inside comments, whatever the
        /// read sizes.
        #[test]
        fn skipping_lines_frames_as_the_stepwise_scan(
            pieces in proptest::collection::vec(0usize..12, 0..60),
            read_size in 1usize..64,
        ) {
            const PIECES: [&str; 12] = [
                "{", "}", ";", "\n", "\n\n", "[Event \"x\"]\n", "[Result \"*\"]\n",
                "e4 ", "{ [%clk 0:01:00] } ", "1-0", "%", " ",
            ];
            let text: String = pieces.iter().filter_map(|&i| PIECES.get(i)).copied().collect();
            let games = games_of(Framer::new(Trickle(text.as_bytes(), read_size)), usize::MAX);
            proptest::prop_assert_eq!(games, frame_stepwise(&text, read_size), "{:?}", text);
        }
    }

    #[test]
    fn splits_at_blank_lines_and_tags() {
        let games =
            frame("[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n1. d4 *\n[Event \"c\"]\n*");
        assert_eq!(
            games,
            vec![
                (0, 1, "[Event \"a\"]\n\n1. e4 e5 *\n".to_string()),
                (25, 5, "[Event \"b\"]\n1. d4 *\n".to_string()),
                (45, 7, "[Event \"c\"]\n*".to_string()),
            ]
        );
    }

    #[test]
    fn comments_hide_boundaries() {
        let games = frame("1. e4 { a\n\n[b] } e5 ; x {\n2. Nf3 *\n\n1. d4 *\n");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].1, 6);
        assert_eq!(games[1].2, "1. d4 *\n");
    }

    #[test]
    fn unterminated_comment_is_cut_at_next_header() {
        let games = frame("[Event \"a\"]\n1. e4 { oops\n\n[Event \"b\"]\n1. d4 *\n");
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].2, "[Event \"a\"]\n1. e4 { oops\n");
        assert_eq!(games[1].2, "[Event \"b\"]\n1. d4 *\n");
    }

    #[test]
    fn tags_only_game_is_not_merged_with_the_next() {
        let games = frame("[Event \"a\"]\n[Result \"*\"]\n\n[Event \"b\"]\n1. d4 *\n");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].0, 26);
    }

    /// Regression (issue 18): a broadcast export's tags-only games whose
    /// first tag is not `Event` merged into one game, reported as cut.
    #[test]
    fn tags_only_games_start_with_any_tag() {
        let text = "[Event \"a\"]\n[Result \"*\"]\n\n[Round \"1.2\"]\n[White \"x\"]\n[Result \"*\"]\n\n\
                    [White \"y\"]\n[Event \"b\"]\n[Result \"*\"]\n[Event \"c\"]\n[Result \"*\"]";
        let games = frame(text);
        let texts: Vec<&str> = games.iter().map(|g| g.2.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "[Event \"a\"]\n[Result \"*\"]\n",
                "[Round \"1.2\"]\n[White \"x\"]\n[Result \"*\"]\n",
                "[White \"y\"]\n[Event \"b\"]\n[Result \"*\"]\n",
                "[Event \"c\"]\n[Result \"*\"]",
            ]
        );
        let lines: Vec<u64> = games.iter().map(|g| g.1).collect();
        assert_eq!(lines, vec![1, 4, 8, 11]);
        // The last game lacks a final newline but its tag is complete.
        let mut framer = Framer::new(text.as_bytes());
        let mut id = 0;
        while framer
            .fill_batch(&mut Batch::default(), &mut id, usize::MAX, 1)
            .unwrap_or(false)
        {}
        assert_eq!(framer.truncation(), None);
    }

    #[test]
    fn a_second_event_before_the_result_stays_in_the_game() {
        let games = frame("[Event \"a\"]\n[Event \"b\"]\n[Result \"*\"]\n\n1. e4 *\n");
        assert_eq!(games.len(), 1);
        // lichess studies write `Result` before `Event`.
        let games = frame("[White \"a\"]\n[Result \"*\"]\n[Event \"b\"]\n\n1. e4 *\n");
        assert_eq!(games.len(), 1);
    }

    /// ChessBase writes a blank line after the `Event` tag: before the
    /// `Result` tag, a blank line then a tag pair other than `Event` stays
    /// in the header (python-chess's `chessbase-empty-line.pgn`).
    #[test]
    fn a_blank_line_inside_a_header_before_its_result_stays_in_the_game() {
        let games = frame("[Event \"a\"]\n\n[Date \"2017\"]\n[Result \"0-1\"]\n\n1. e4 0-1\n");
        assert_eq!(games.len(), 1);
    }

    #[test]
    fn a_comment_with_a_blank_line_and_a_bracketed_line_is_kept() {
        let text = "[Event \"a\"]\n\n1. e4 {see\n\n[the game below]\n} e5 *\n";
        assert_eq!(frame(text).len(), 1);
    }

    #[test]
    fn unescaped_quotes_stay_in_their_tag() {
        let text = "[Event \"The \"Big\" Open\"]\n[White \"\"Learning with fun\"\"]\n\n1. e4 *\n";
        let games = frame(text);
        assert_eq!(games.len(), 1);
        let line = b"[Event \"The \"Big\" Open\"]";
        assert_eq!(tag_len(line), line.len());
        assert_eq!(tag_len(b"[W \"x\"] [B \"y\"]"), 7);
    }

    #[test]
    fn text_after_a_tag_is_movetext() {
        let games = frame("[Result \"1-0\"] e4 1-0\n[Result \"0-1\"] [W \"x]\"] e4 0-1\n");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].2, "[Result \"0-1\"] [W \"x]\"] e4 0-1\n");
    }

    #[test]
    fn endless_comment_is_cut_and_flagged() {
        let text = format!(
            "[Event \"a\"]\n1. e4 {{ {}\n[Event \"b\"]\n1. d4 *\n",
            "x".repeat(5 << 20)
        );
        let mut framer = Framer::new(text.as_bytes()).with_max_game_bytes(1 << 20);
        let mut batch = Batch::default();
        let mut id = 0;
        let more = framer
            .fill_batch(&mut batch, &mut id, usize::MAX, 1)
            .unwrap_or(false);
        assert!(more);
        assert_eq!(batch.games.first().map(|g| g.oversized), Some(true));
        // The rest of the input is still framed, game by game, to the end.
        let mut frames = 1;
        loop {
            let mut batch = Batch::default();
            if !framer
                .fill_batch(&mut batch, &mut id, usize::MAX, 1)
                .unwrap_or(false)
            {
                break;
            }
            frames += batch.games.len();
        }
        assert!(frames >= 2, "{frames}");
    }

    /// Hands out at most `n` bytes per read, like a pipe.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            let (head, tail) = self.0.split_at(n);
            buf[..n].copy_from_slice(head);
            self.0 = tail;
            Ok(n)
        }
    }

    /// Regression: an oversized game was cut wherever the last read ended,
    /// so a pipe and a file framed it differently (31 or 32 pieces of a
    /// 1 GiB comment).
    #[test]
    fn oversized_cuts_do_not_depend_on_read_sizes() {
        let text = format!(
            "[Event \"a\"]\n1. e4 {{ {}\n[Event \"b\"]\n1. d4 *\n",
            "x\n".repeat(3 << 20)
        );
        let frames_with = |read_size: usize| {
            let mut framer =
                Framer::new(Trickle(text.as_bytes(), read_size)).with_max_game_bytes(1 << 20);
            let mut id = 0;
            let mut frames = Vec::new();
            loop {
                let mut batch = Batch::default();
                if !framer
                    .fill_batch(&mut batch, &mut id, usize::MAX, 1)
                    .unwrap_or(false)
                {
                    return frames;
                }
                for g in &batch.games {
                    frames.push((g.offset, g.line, g.end - g.start, g.oversized));
                }
            }
        };
        let whole = frames_with(usize::MAX);
        assert_eq!(whole.first(), Some(&(0, 1, 1 << 20, true)));
        // Every piece's line is its offset's line.
        for &(offset, line, _, _) in &whole {
            let before = &text.as_bytes()[..offset as usize];
            assert_eq!(line, 1 + memchr::memchr_iter(b'\n', before).count() as u64);
        }
        assert_eq!(frames_with(65_536), whole);
        assert_eq!(frames_with(1000), whole);
    }

    /// Regression (found by the chunked framing's proptest): a read that
    /// ended right after the `[` of a blank line then `[Event "` inside an
    /// unterminated comment read as "no tag pair", and the comment ran on
    /// over the next game; with reads of 1 or 2 bytes (a pipe) the game was
    /// merged, with larger ones cut.
    #[test]
    fn a_tag_after_a_blank_line_in_a_comment_does_not_depend_on_read_sizes() {
        let text = "[Event \"a\"]\n\r\n{ oops [Result \"*\"]\n{\n\n[Event \"b\"]\n";
        let whole = frame(text);
        assert_eq!(whole.len(), 2);
        assert_eq!(whole[1].2, "[Event \"b\"]\n");
        for read_size in 1..8 {
            assert_eq!(
                frame_all(Trickle(text.as_bytes(), read_size), 1),
                whole,
                "{read_size}"
            );
        }
    }

    #[test]
    fn escape_lines_bom_and_crlf() {
        let games = frame(
            "\u{feff}% header\r\n[Event \"a\"]\r\n\r\n1. e4 *\r\n\r\n[Event \"b\"]\r\n1. d4 *",
        );
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].1, 2);
        assert_eq!(games[1].1, 6);
    }

    #[test]
    fn small_reads_give_the_same_games() {
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(out.len()).min(3);
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let text = "[Event \"a\"]\n\n1. e4 {c\n\nd} e5 *\n\n[Event \"b\"]\n1. d4 *\n";
        let games = frame_all(Trickle(text.as_bytes()), 1);
        assert_eq!(games, frame(text));
        let offsets: Vec<u64> = games.iter().map(|g| g.0).collect();
        assert_eq!(offsets, vec![0, 32]);
    }
}
