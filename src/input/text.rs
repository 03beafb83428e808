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
        _ => None,
    }
}

/// A zip local header, or an empty archive's end record.
pub(crate) fn is_zip(head: &[u8]) -> bool {
    matches!(head, [b'P', b'K', 3, 4, ..] | [b'P', b'K', 5, 6, ..])
}

/// A NUL byte, or more than 5 % C0 control bytes other than TAB, LF, FF
/// and CR. (A DOS end-of-file mark `^Z` or a stray escape stays text.)
fn is_binary(head: &[u8]) -> bool {
    if memchr::memchr(0, head).is_some() {
        return true;
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0c | b'\r'))
        .count();
    controls * 100 > head.len() * MAX_CONTROL_PERCENT
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
        let mut head = vec![0; HEAD_BYTES];
        let mut len = 0;
        let mut error = None;
        while len < head.len() {
            match rest.read(&mut head[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        head.truncate(len);
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
        assert_eq!(read_all(b"[Event \0]".to_vec()), Err(NotText::Binary));
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
