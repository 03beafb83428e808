//! PGN stage, header: reads a framed game's tag pairs the way pgn-reader
//! 0.29 reads them (its `read_tags`, same pair boundaries, same bytes),
//! straight from the game's bytes. The import's one-pass parse reads the
//! header here and the movetext with the audit's lexer, instead of copying
//! every byte through pgn-reader's buffer and walking the movetext twice.

use pgn_reader::RawTag;

use crate::pgn::tag_line::{self, Met};

const BOM: &[u8] = b"\xef\xbb\xbf";

/// pgn-reader's words for a tag line it cannot hold.
pub(crate) const UNTERMINATED_TAG: &str = "unterminated tag";

/// Reads the header of `game`, handing each tag pair (name, raw value) to
/// `tag`. Returns where the movetext starts, None when the game holds no
/// token at all (whitespace and escape lines), or an error for a tag line
/// of `max_line` bytes or more (pgn-reader's lookahead: it cannot hold it).
///
/// The game's bytes end where the framer cut it; their end reads as the
/// line break the framer's separator puts there.
pub(crate) fn read_header(
    game: &[u8],
    max_line: usize,
    mut tag: impl FnMut(&[u8], RawTag<'_>),
) -> Result<Option<usize>, &'static str> {
    let mut cursor = Cursor { text: game, pos: 0 };
    if game.starts_with(BOM) {
        cursor.pos = BOM.len();
    }
    cursor.skip_whitespace(true);
    if cursor.pos >= game.len() {
        return Ok(None);
    }
    while cursor.peek() == Some(b'[') {
        cursor.pos += 1;
        let rest = cursor.rest();
        let pair = tag_line::pair(rest);
        let consumed = match pair.met {
            // pgn-reader consumes the line break that ends a pair without
            // value, and reads what follows as the pair's closing.
            Met::BareLineEnd => pair.end + 1,
            _ => pair.end,
        };
        if consumed >= max_line {
            return Err(UNTERMINATED_TAG);
        }
        if pair.met.has_value() {
            tag(&rest[pair.name], RawTag(&rest[pair.value]));
        }
        cursor.pos += consumed;
        cursor.skip_ket();
    }
    Ok(Some(cursor.pos))
}

/// A position in a game's bytes.
struct Cursor<'a> {
    text: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    /// The bytes from the position on; the position never passes the end
    /// (it moves by what the bytes hold).
    fn rest(&self) -> &[u8] {
        &self.text[self.pos..]
    }

    /// Steps over whitespace and, at the start of a line, `%` escape lines.
    fn skip_whitespace(&mut self, mut new_line: bool) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\n' => {
                    new_line = true;
                    self.pos += 1;
                }
                b'%' if new_line => {
                    // An escape line, to its line break and past it.
                    self.pos = (tag_line::line_end(self.text, self.pos) + 1).min(self.text.len());
                }
                _ => return,
            }
        }
    }

    /// Steps over what closes a tag line: spaces, then a `]` or the line
    /// break, then whitespace.
    fn skip_ket(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return self.skip_whitespace(false);
                }
                b'\n' => {
                    self.pos += 1;
                    return self.skip_whitespace(true);
                }
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Header = (Result<Option<usize>, &'static str>, Vec<(String, String)>);

    fn header(text: &str) -> Header {
        let mut tags = Vec::new();
        let end = read_header(text.as_bytes(), 100, |name, value| {
            tags.push((
                String::from_utf8_lossy(name).into_owned(),
                String::from_utf8_lossy(&value.decode()).into_owned(),
            ));
        });
        (end, tags)
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn reads_pairs_and_finds_the_movetext() {
        let text = "\u{feff}\n%escape\n[Event \"A \\\"B\\\"\"]\n[Site  \"x\"]\n\n1. e4 *";
        let (end, tags) = header(text);
        assert_eq!(end.ok().flatten().map(|at| &text[at..]), Some("1. e4 *"));
        assert_eq!(tags, pairs(&[("Event", "A \"B\""), ("Site ", "x")]));
    }

    #[test]
    fn a_broken_line_ends_its_value_where_pgn_reader_does() {
        // An unescaped quote ends the value; the rest of the line is movetext.
        let (end, tags) = header("[Event \"a\"b\"]\n[Site \"s\"]\n1. e4 *");
        assert_eq!(tags, pairs(&[("Event", "a")]));
        assert_eq!(end, Ok(Some(10)));
        // A value without its closing quote runs to the line's end.
        let (_, tags) = header("[Event \"open\n[Site \"s\"]\n1. e4 *");
        assert_eq!(tags, pairs(&[("Event", "open"), ("Site", "s")]));
        // A tag without a value is stepped over.
        let (_, tags) = header("[Event]\n[Site \"s\"]\n");
        assert_eq!(tags, pairs(&[("Site", "s")]));
        // The end of the bytes ends the line.
        let (end, tags) = header("[Event \"cut");
        assert_eq!((end, tags), (Ok(Some(11)), pairs(&[("Event", "cut")])));
    }

    #[test]
    fn nothing_but_whitespace_is_no_game_and_long_lines_are_errors() {
        assert_eq!(header(" \n%x\n\n").0, Ok(None));
        let long = format!("[Annotator \"{}\"]\n1. e4 *", "x".repeat(200));
        assert_eq!(header(&long).0, Err(UNTERMINATED_TAG));
    }
}
