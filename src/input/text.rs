//! Input stage, text check: after decompression a source must be PGN text.
//! A binary file read as PGN gives thousands of garbage games, so it is
//! refused up front; UTF-16 text (with a byte-order mark) is decoded to UTF-8.

use std::io::{self, Read};

use super::NotText;

/// Bytes looked at to decide whether a source is text.
pub(crate) const HEAD_BYTES: usize = 64 << 10;

/// Largest share of C0 control bytes (other than TAB, LF, FF, CR) that text
/// may hold, in percent.
const MAX_CONTROL_PERCENT: usize = 5;

/// Reads the first [`HEAD_BYTES`] of `inner` and returns a reader of the
/// whole text (UTF-16 decoded to UTF-8), or why it is not text.
pub(crate) fn check<'a, R: Read + 'a>(inner: R) -> Result<Box<dyn Read + 'a>, NotText> {
    let head = Prefixed::read_head(inner);
    match head.head.as_slice() {
        [0xff, 0xfe, ..] => check_decoded(Utf16Reader::new(head, false)),
        [0xfe, 0xff, ..] => check_decoded(Utf16Reader::new(head, true)),
        bytes => {
            classify(bytes)?;
            Ok(Box::new(head))
        }
    }
}

fn check_decoded<'a, R: Read + 'a>(decoded: R) -> Result<Box<dyn Read + 'a>, NotText> {
    let head = Prefixed::read_head(decoded);
    classify(&head.head)?;
    Ok(Box::new(head))
}

/// Is `head` the start of text? Names archive formats by their magic bytes.
pub(crate) fn classify(head: &[u8]) -> Result<(), NotText> {
    if let Some(name) = foreign_format(head) {
        return Err(NotText::Unsupported(name));
    }
    if is_binary(head) {
        return Err(NotText::Binary);
    }
    Ok(())
}

/// Archive and compression formats pgnlake does not read.
fn foreign_format(head: &[u8]) -> Option<&'static str> {
    match head {
        [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Some("xz"),
        [b'7', b'z', 0xbc, 0xaf, 0x27, 0x1c, ..] => Some("7z"),
        [b'R', b'a', b'r', b'!', 0x1a, 0x07, ..] => Some("rar"),
        head if is_zip(head) => Some("zip"),
        // A tar archive's first header: `ustar` at byte 257. Its NUL
        // padding around text would pass for a damaged PGN file.
        head if head.get(257..262) == Some(b"ustar") => Some("tar"),
        _ => None,
    }
}

/// A zip local header, or an empty archive's end record.
pub(crate) fn is_zip(head: &[u8]) -> bool {
    matches!(head, [b'P', b'K', 3, 4, ..] | [b'P', b'K', 5, 6, ..])
}

/// More than 5 % C0 control bytes other than TAB, LF, FF and CR (NUL
/// included), or a NUL byte in text that holds no tag pair and no move
/// number. A DOS end-of-file mark `^Z`, a stray escape or a stray NUL byte
/// stays text: the game it is in is rejected, as it would be further on
/// in the file. Random bytes (about 11 % control bytes) and UTF-16 without
/// a byte-order mark (a NUL every other byte) are binary.
fn is_binary(head: &[u8]) -> bool {
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0c | b'\r'))
        .count();
    if controls > FEW_CONTROLS && controls * 100 > head.len() * MAX_CONTROL_PERCENT {
        return true;
    }
    memchr::memchr(0, head).is_some() && !has_pgn_structure(head)
}

/// Control bytes that never make a head binary, however short it is: a
/// one-game file with a stray NUL is that game's reject, not a refusal.
const FEW_CONTROLS: usize = 4;

/// Does `text` hold a tag pair's start (`[Name "`) or a move number (`1.`
/// after a space or at a line's start, then a space or a move)?
fn has_pgn_structure(text: &[u8]) -> bool {
    let tag_pair = memchr::memchr_iter(b'[', text).any(|at| {
        let rest = text.get(at + 1..).unwrap_or_default();
        let name = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let after = rest.get(name..).unwrap_or_default();
        let spaces = after
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        rest.first().is_some_and(u8::is_ascii_alphabetic)
            && spaces > 0
            && after.get(spaces) == Some(&b'"')
    });
    tag_pair
        || memchr::memmem::find_iter(text, b"1.").any(|at| {
            let before = at.checked_sub(1).and_then(|i| text.get(i));
            let after = text.get(at + 2);
            before.is_none_or(|b| b.is_ascii_whitespace())
                && after.is_some_and(|b| b.is_ascii_whitespace() || b.is_ascii_alphabetic())
        })
}

/// The head already read, then the rest of the stream. A read error met
/// while reading the head comes after the head, so that the games before
/// a cut in the first 64 KiB are still read.
struct Prefixed<R> {
    head: Vec<u8>,
    pos: usize,
    error: Option<io::Error>,
    rest: R,
}

impl<R: Read> Prefixed<R> {
    fn read_head(mut rest: R) -> Self {
        // Grown as bytes come (`read_to_end` retries interrupted reads and
        // keeps what it read before an error): a small input takes a small
        // buffer, not 64 KiB zeroed, whatever the number of inputs.
        let mut head = Vec::new();
        let error = rest
            .by_ref()
            .take(HEAD_BYTES as u64)
            .read_to_end(&mut head)
            .err();
        Prefixed {
            head,
            pos: 0,
            error,
            rest,
        }
    }
}

/// Copies what is left of `pending` after `pos` into `buf` and advances
/// `pos`; `None` when nothing is left.
fn copy_pending(pending: &[u8], pos: &mut usize, buf: &mut [u8]) -> Option<usize> {
    let left = pending.get(*pos..).filter(|left| !left.is_empty())?;
    let n = left.len().min(buf.len());
    buf.get_mut(..n)?.copy_from_slice(left.get(..n)?);
    *pos += n;
    Some(n)
}

impl<R: Read> Read for Prefixed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(n) = copy_pending(&self.head, &mut self.pos, buf) {
            return Ok(n);
        }
        if self.head.capacity() > 0 {
            // Read past: its memory goes back.
            self.head = Vec::new();
            self.pos = 0;
        }
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        self.rest.read(buf)
    }
}

/// Decodes UTF-16 (little- or big-endian) to UTF-8. The byte-order mark is
/// dropped; unpaired surrogates and an odd last byte become U+FFFD, as a
/// text editor shows them.
struct Utf16Reader<R> {
    inner: R,
    big_endian: bool,
    /// Raw bytes not decoded yet: an odd byte or a high surrogate waiting
    /// for its pair.
    pending: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    at_start: bool,
    eof: bool,
}

impl<R: Read> Utf16Reader<R> {
    fn new(inner: R, big_endian: bool) -> Self {
        Utf16Reader {
            inner,
            big_endian,
            pending: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            at_start: true,
            eof: false,
        }
    }

    /// One UTF-16 code unit from a pair of bytes.
    fn unit(&self, pair: [u8; 2]) -> u16 {
        let bytes = pair;
        if self.big_endian {
            u16::from_be_bytes(bytes)
        } else {
            u16::from_le_bytes(bytes)
        }
    }

    /// Decodes what `pending` holds, keeping a trailing half unit or high
    /// surrogate unless the input has ended.
    fn decode_pending(&mut self) {
        let mut units: Vec<u16> = self
            .pending
            .chunks_exact(2)
            .map(|p| self.unit([p[0], p[1]]))
            .collect();
        let mut keep = self.pending.len() % 2;
        if !self.eof && units.last().is_some_and(|u| (0xd800..0xdc00).contains(u)) {
            units.pop();
            keep += 2;
        }
        if self.at_start && units.first() == Some(&0xfeff) {
            units.remove(0);
        }
        if !units.is_empty() || self.eof {
            self.at_start = false;
        }
        let mut text: String = char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect();
        if self.eof && keep > 0 {
            text.push(char::REPLACEMENT_CHARACTER);
            keep = 0;
        }
        self.out = text.into_bytes();
        self.out_pos = 0;
        let consumed = self.pending.len() - keep;
        self.pending.drain(..consumed);
    }
}

impl<R: Read> Read for Utf16Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(n) = copy_pending(&self.out, &mut self.out_pos, buf) {
                return Ok(n);
            }
            if self.eof {
                return Ok(0);
            }
            let mut chunk = [0u8; 16 << 10];
            let n = match self.inner.read(&mut chunk) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                self.eof = true;
            }
            self.pending.extend_from_slice(&chunk[..n]);
            self.decode_pending();
        }
    }
}

/// `text` as UTF-16 with its byte-order mark: the inverse of the decoding
/// here, for tests and fixtures.
pub fn encode_utf16(text: &str, big_endian: bool) -> Vec<u8> {
    let mut bytes = if big_endian {
        vec![0xfe, 0xff]
    } else {
        vec![0xff, 0xfe]
    };
    for unit in text.encode_utf16() {
        bytes.extend(if big_endian {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        });
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: Vec<u8>) -> Result<Vec<u8>, NotText> {
        let mut out = Vec::new();
        check(io::Cursor::new(bytes))?
            .read_to_end(&mut out)
            .map_err(|_| NotText::Binary)?;
        Ok(out)
    }

    #[test]
    fn text_passes_through_unchanged() {
        let text = b"[Event \"x\"]\r\n\x0c\t1. e4 *\n\x1a".to_vec();
        assert_eq!(read_all(text.clone()), Ok(text));
        assert_eq!(read_all(Vec::new()), Ok(Vec::new()));
    }

    #[test]
    fn binary_and_archives_are_refused() {
        assert_eq!(read_all(b"\0\0\0\0".to_vec()), Err(NotText::Binary));
        assert_eq!(read_all(b"x \0 y".to_vec()), Err(NotText::Binary));
        let mut controls = vec![b'a'; 94];
        controls.extend([0x01; 6]);
        assert_eq!(read_all(controls.clone()), Err(NotText::Binary));
        controls.truncate(99);
        controls.insert(0, b'a');
        assert_eq!(
            read_all(controls.clone()),
            Ok(controls),
            "exactly 5 % is text"
        );
        let xz = b"\xfd7zXZ\0\0\x04".to_vec();
        assert_eq!(read_all(xz), Err(NotText::Unsupported("xz")));
        let sevenz = b"7z\xbc\xaf\x27\x1c\0\x04".to_vec();
        assert_eq!(read_all(sevenz), Err(NotText::Unsupported("7z")));
        let rar = b"Rar!\x1a\x07\x01\0".to_vec();
        assert_eq!(read_all(rar), Err(NotText::Unsupported("rar")));
    }

    const GAME: &str = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n\n";

    /// A NUL byte, or a block of them, in PGN text costs the game it is in
    /// (read further on), never the file.
    #[test]
    fn nul_bytes_in_pgn_text_stay_text() {
        let games = GAME.repeat(3000);
        for at in [0, 1, 30, 1000, 70_000] {
            let mut text = games.clone().into_bytes();
            text.insert(at, 0);
            assert_eq!(read_all(text.clone()), Ok(text), "a NUL at {at}");
        }
        // A few NULs in every game of the head: still under 5 %.
        let mut scattered = Vec::new();
        for _ in 0..2000 {
            scattered.extend(GAME.replace("e5", "e5\0\0").into_bytes());
        }
        assert_eq!(read_all(scattered.clone()), Ok(scattered), "2 NULs a game");
        // A tag line and a block of NULs, 55 % of the head: binary.
        let mut block = b"[Event \"x\"]\n".to_vec();
        block.extend([0; 16]);
        assert_eq!(read_all(block), Err(NotText::Binary));
        // A one-game file, and movetext without tags.
        for text in ["[Event \"\0\"]\n\n1. e4 *\n", "1. e4\0 e5 *\n"] {
            let text = text.as_bytes().to_vec();
            assert_eq!(read_all(text.clone()), Ok(text.clone()), "{text:?}");
        }
    }

    /// Random bytes, UTF-16 without its byte-order mark, NULs only, and
    /// NULs around text with no PGN in it are binary; a tar archive is named.
    #[test]
    fn binary_is_told_from_text_with_nul_bytes() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let random: Vec<u8> = (0..HEAD_BYTES)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 32) as u8
            })
            .collect();
        assert_eq!(read_all(random), Err(NotText::Binary));
        let utf16: Vec<u8> = GAME
            .repeat(100)
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(read_all(utf16.clone()), Err(NotText::Binary));
        assert_eq!(read_all(utf16[1..].to_vec()), Err(NotText::Binary), "BE");
        assert_eq!(read_all(vec![0; HEAD_BYTES]), Err(NotText::Binary));
        let mut padded = b"SQLite format 3".to_vec();
        padded.extend([0; 4000]);
        padded.extend(b"CREATE TABLE games (id INTEGER)".repeat(20));
        assert_eq!(read_all(padded), Err(NotText::Binary));
        let mut tar = b"games.pgn".to_vec();
        tar.resize(257, 0);
        tar.extend(b"ustar\x0000");
        tar.resize(512, 0);
        tar.extend(GAME.as_bytes());
        assert_eq!(read_all(tar), Err(NotText::Unsupported("tar")));
    }

    #[test]
    fn pgn_structure_is_a_tag_pair_or_a_move_number() {
        assert!(has_pgn_structure(b"[Event \"x\"]"));
        assert!(has_pgn_structure(b"x\n[White_Elo  \"2000\"]"));
        assert!(has_pgn_structure(b"1. e4"));
        assert!(has_pgn_structure(b"{c} 1.e4"));
        assert!(!has_pgn_structure(b"[1 \"x\"] [Event\"x\"] [ \"x\"]"));
        assert!(!has_pgn_structure(b"version 1.0 21.5 [x"));
        assert!(!has_pgn_structure(b""));
    }

    #[test]
    fn utf16_is_decoded_across_chunk_boundaries() {
        // Long enough to cross the 16 KiB chunks and the 64 KiB head, with
        // a surrogate pair and non-ASCII letters at every offset.
        let text = "[White \"Müller, 𝕏\"]\n1. e4 e5 *\n\n".repeat(5000);
        for big_endian in [false, true] {
            let decoded = read_all(encode_utf16(&text, big_endian));
            assert_eq!(decoded, Ok(text.clone().into_bytes()));
        }
    }

    #[test]
    fn broken_utf16_becomes_replacement_characters() {
        let mut bytes = encode_utf16("a", false);
        bytes.extend([0x00, 0xd8]); // a lone high surrogate
        bytes.push(b'b'); // an odd last byte
        assert_eq!(read_all(bytes), Ok("a\u{fffd}\u{fffd}".as_bytes().to_vec()));
    }
}
