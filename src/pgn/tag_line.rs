//! PGN stage, tag lines: the one reader of a tag pair's bytes
//! (`[Name "value"]`), so that the framer, the header reader, the one-pass
//! lexer and the repair reader find the same names, the same values and the
//! same line ends. A pair is read as pgn-reader 0.29 reads it (its
//! `read_tags`): the value opens at the first `"` before any `]` or line
//! break, a backslash escapes the byte after it (whatever it is), and the
//! value closes at the first quote not escaped, or runs to the line break
//! or the end of the bytes.
//!
//! What surrounds the pairs stays with each reader, stated beside it: the
//! framer hands one line at a time (a line break is never escaped there)
//! and reads a value with unescaped quotes to the last `"]` of its line;
//! the header reader steps over escape lines as pgn-reader does, the lexer
//! reads them as tokens; the repair reader takes only well-formed names.
//! Byte slices and spans, no allocation: the framer and the lexer read
//! every tag line of an import here.

use std::ops::Range;

/// What ended the reading of a tag pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Met {
    /// The value's closing quote: the pair is whole.
    Quote,
    /// A line break before the value's closing quote (a missing quote):
    /// the value runs to the line's end.
    LineEnd,
    /// The end of the bytes before the value's closing quote: a line or a
    /// frame cut off there, or a value whose last byte is a backslash.
    End,
    /// A `]` before any quote: a pair without value.
    BareKet,
    /// A line break before any quote or `]`: a pair without value.
    BareLineEnd,
    /// The end of the bytes before any quote, `]` or line break.
    BareEnd,
}

impl Met {
    /// Whether the pair has a value (an opening quote was found).
    pub(crate) fn has_value(self) -> bool {
        matches!(self, Met::Quote | Met::LineEnd | Met::End)
    }
}

/// One tag pair, read from the byte after its `[`: spans in those bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pair {
    /// The name as pgn-reader reads it: the bytes from the `[` to the
    /// value's opening quote, less one space before the quote. Empty for a
    /// pair without value.
    pub name: Range<usize>,
    /// The raw value (escapes as written): from after the opening quote to
    /// the closing quote, the line break or the end. Empty (at `end`) for a
    /// pair without value.
    pub value: Range<usize>,
    pub met: Met,
    /// Where the reading stops: past the closing quote; at the line break
    /// or the end where a value without closing quote stops; past the `]`
    /// of a pair without value, at its line break, or at the end.
    pub end: usize,
}

/// Reads the tag pair whose `[` is just before `body`. The quote, `]` and
/// line break are found with memchr, not byte by byte (18 tag lines a
/// lichess game, on the reader thread and again in the one pass).
#[inline]
pub(crate) fn pair(body: &[u8]) -> Pair {
    let Some(open) = memchr::memchr3(b'"', b'\n', b']', body) else {
        return bare(body.len(), Met::BareEnd);
    };
    match body.get(open) {
        Some(b']') => return bare(open + 1, Met::BareKet),
        Some(b'\n') => return bare(open, Met::BareLineEnd),
        _ => {}
    }
    let name_end = match open.checked_sub(1) {
        Some(space) if body.get(space) == Some(&b' ') => space,
        _ => open,
    };
    let (value_end, met) = value_end(body, open + 1);
    let end = match met {
        Met::Quote => value_end + 1,
        _ => value_end,
    };
    Pair {
        name: 0..name_end,
        value: open + 1..value_end,
        met,
        end,
    }
}

fn bare(end: usize, met: Met) -> Pair {
    Pair {
        name: 0..0,
        value: end..end,
        met,
        end,
    }
}

/// Where a value that starts at `from` (just after its opening quote)
/// ends, and what ended it: its closing quote ([`Met::Quote`], at the
/// quote), a line break ([`Met::LineEnd`], at the break) or the end of
/// `bytes` ([`Met::End`]). A backslash escapes the byte after it, a quote,
/// a backslash or even a line break, as pgn-reader reads it.
#[inline]
pub(crate) fn value_end(bytes: &[u8], from: usize) -> (usize, Met) {
    let mut at = from;
    // Past the end (an escaping backslash as the last byte) reads as the
    // end: the value runs off the bytes.
    while let Some(tail) = bytes.get(at..) {
        let Some(delta) = memchr::memchr3(b'\\', b'"', b'\n', tail) else {
            break;
        };
        at += delta;
        match tail.get(delta) {
            Some(b'"') => return (at, Met::Quote),
            Some(b'\n') => return (at, Met::LineEnd),
            _ => at += 2,
        }
    }
    (bytes.len(), Met::End)
}

/// Past the spaces, tabs and carriage returns from `from` on: where a
/// tag's closing `]` would be.
#[inline]
pub(crate) fn skip_blanks(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(b' ' | b'\t' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// Is the tag pair at the start of `line` (at its `[`) named `name`
/// (`Event` of `[Event "`)? Compared in place: the framer asks this of
/// every tag line, and spelling out the name first cost more than the
/// rest of the line.
#[inline]
pub(crate) fn is_named(line: &[u8], name: &[u8]) -> bool {
    let after = name.len() + 1;
    line.get(1..after) == Some(name) && !line.get(after).is_some_and(|&b| is_name_byte(b))
}

/// Length of the run of name bytes (ASCII letters, digits, `_`) that
/// `bytes` starts with: a tag name as PGN spells it.
pub(crate) fn name_len(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|&&b| is_name_byte(b)).count()
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The end of the last `"]` on `line` (after the `]`), if any: where a
/// value with unescaped quotes inside (`[Event "The "Big" Open"]`) ends
/// when read as one value.
pub(crate) fn last_quote_ket(line: &[u8]) -> Option<usize> {
    memchr::memmem::rfind(line, b"\"]").map(|at| at + 2)
}

/// Where the line that starts at `from` ends: at its line break, or at the
/// end of `bytes` (an escape line, `%` at a line's start, runs to there).
pub(crate) fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| memchr::memchr(b'\n', rest))
        .map_or(bytes.len(), |at| from + at)
}

/// The tags of a game read without pgn-reader, for rejects that pgn-reader
/// could not parse (an unterminated comment would make it read on): one
/// tag a line, its value as written (escapes kept), a line whose name is
/// not followed by a quote skipped.
pub(crate) fn quick_tags(game: &[u8]) -> Vec<(String, String)> {
    let mut tags = Vec::new();
    for line in game.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        let Some(body) = line.strip_prefix(b"[") else {
            if line.is_empty() || line.starts_with(b"%") {
                continue;
            }
            break;
        };
        let name_len = body
            .iter()
            .take_while(|b| !b.is_ascii_whitespace() && **b != b'"')
            .count();
        let (name, rest) = body.split_at(name_len);
        let Some(value) = rest.trim_ascii_start().strip_prefix(b"\"") else {
            continue;
        };
        let (end, met) = value_end(value, 0);
        let raw = &value[..end];
        let raw = match met {
            Met::Quote => raw,
            // A value cut off after an escaped quote (`"a\"` at the line's
            // end) has always lost that quote here.
            _ => raw.strip_suffix(b"\"").unwrap_or(raw),
        };
        tags.push((
            super::encoding::decode(name).0,
            super::encoding::decode(raw).0,
        ));
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Name, value and what follows, as text, for the pair after `[`.
    fn read(line: &[u8]) -> (String, String, Met, String) {
        let body = line.strip_prefix(b"[").unwrap_or(line);
        let pair = pair(body);
        let text = |range: Range<usize>| String::from_utf8_lossy(&body[range]).into_owned();
        (
            text(pair.name.clone()),
            text(pair.value.clone()),
            pair.met,
            text(pair.end..body.len()),
        )
    }

    fn owned(name: &str, value: &str, met: Met, rest: &str) -> (String, String, Met, String) {
        (name.into(), value.into(), met, rest.into())
    }

    #[test]
    fn a_whole_pair_and_what_follows_it() {
        assert_eq!(
            read(b"[Event \"Open\"] [Site \"x\"]"),
            owned("Event", "Open", Met::Quote, "] [Site \"x\"]")
        );
        // One space before the quote is not the name's; more are.
        assert_eq!(read(b"[A  \"v\"]").0, "A ");
        assert_eq!(read(b"[A\"v\"]").0, "A");
    }

    #[test]
    fn backslash_escapes_the_next_byte() {
        assert_eq!(
            read(b"[Event \"A \\\"B\\\" \\\\\"]\n"),
            owned("Event", "A \\\"B\\\" \\\\", Met::Quote, "]\n")
        );
        // Even a line break: the value goes on on the next line.
        assert_eq!(
            read(b"[Event \"a\\\nb\"]"),
            owned("Event", "a\\\nb", Met::Quote, "]")
        );
    }

    #[test]
    fn unescaped_quotes_end_the_value_at_the_first() {
        let line = b"[Event \"The \"Big\" Open\"]";
        assert_eq!(
            read(line),
            owned("Event", "The ", Met::Quote, "Big\" Open\"]")
        );
        assert_eq!(last_quote_ket(line), Some(line.len()));
        assert_eq!(last_quote_ket(b"[Event]"), None);
    }

    #[test]
    fn a_missing_quote_runs_to_the_line_end_or_the_end() {
        assert_eq!(
            read(b"[Event \"open\r\n[Site \"s\"]"),
            owned("Event", "open\r", Met::LineEnd, "\n[Site \"s\"]")
        );
        assert_eq!(read(b"[Event \"cut"), owned("Event", "cut", Met::End, ""));
        // An escaping backslash as the last byte runs off the end too.
        assert_eq!(
            read(b"[Event \"cut\\"),
            owned("Event", "cut\\", Met::End, "")
        );
    }

    #[test]
    fn pairs_without_value() {
        assert_eq!(
            read(b"[Event] 1. e4"),
            owned("", "", Met::BareKet, " 1. e4")
        );
        assert_eq!(read(b"[Event\n]"), owned("", "", Met::BareLineEnd, "\n]"));
        assert_eq!(read(b"[Event"), owned("", "", Met::BareEnd, ""));
        // A `]` before the quote leaves the quote to what follows.
        assert_eq!(read(b"[A] \"x\"").3, " \"x\"");
        assert!(!Met::BareKet.has_value() && Met::End.has_value());
    }

    #[test]
    fn crlf_lines_keep_their_carriage_return_out_of_the_value() {
        let line = b"[Site \"x\" \r]\r\n";
        let pair = pair(&line[1..]);
        assert_eq!(
            (pair.met, &line[1..][pair.value.clone()]),
            (Met::Quote, &b"x"[..])
        );
        assert_eq!(
            line[1..].get(skip_blanks(&line[1..], pair.end)),
            Some(&b']')
        );
        assert_eq!(line_end(line, 0), line.len() - 1);
        assert_eq!(line_end(b"%esc", 0), 4);
    }

    #[test]
    fn bytes_that_are_no_utf8_are_value_bytes() {
        assert_eq!(
            read(b"[White \"M\xfcller \xff\\\xfe\"]"),
            owned("White", "M\u{fffd}ller \u{fffd}\\\u{fffd}", Met::Quote, "]")
        );
    }

    #[test]
    fn names_are_compared_in_place() {
        assert!(is_named(b"[Event \"x\"]", b"Event"));
        assert!(is_named(b"[Event", b"Event"));
        assert!(!is_named(b"[EventDate \"x\"]", b"Event"));
        assert!(!is_named(b"[Even", b"Event"));
        assert_eq!(name_len(b"Event_2 \"x\""), 7);
        assert_eq!(name_len(b"\"x\""), 0);
    }

    proptest::proptest! {
        /// The memchr reading agrees with pgn-reader's byte by byte one,
        /// wherever the bytes end.
        #[test]
        fn reads_as_byte_by_byte(pieces in proptest::collection::vec(0usize..10, 0..24)) {
            const PIECES: [&[u8]; 10] = [
                b"[", b"]", b"\"", b"\\", b" ", b"\r", b"\n", b"Event", b"x", b"\xff",
            ];
            let body: Vec<u8> = pieces.iter().flat_map(|&i| PIECES[i].iter().copied()).collect();
            proptest::prop_assert_eq!(pair(&body), pair_stepwise(&body), "{:?}", body);
        }
    }

    /// pgn-reader's reading, byte by byte: the reference.
    fn pair_stepwise(body: &[u8]) -> Pair {
        let Some(open) = body.iter().position(|&c| matches!(c, b'"' | b']' | b'\n')) else {
            return bare(body.len(), Met::BareEnd);
        };
        match body[open] {
            b']' => return bare(open + 1, Met::BareKet),
            b'\n' => return bare(open, Met::BareLineEnd),
            _ => {}
        }
        let name_end = if open > 0 && body[open - 1] == b' ' {
            open - 1
        } else {
            open
        };
        let mut i = open + 1;
        let (end, met) = loop {
            match body.get(i) {
                None => break (body.len(), Met::End),
                Some(b'\\') => i += 2,
                Some(b'"') => break (i, Met::Quote),
                Some(b'\n') => break (i, Met::LineEnd),
                Some(_) => i += 1,
            }
        };
        Pair {
            name: 0..name_end,
            value: open + 1..end,
            met,
            end: end + usize::from(met == Met::Quote),
        }
    }
}
