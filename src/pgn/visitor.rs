//! PGN stage, parsing: a pgn-reader visitor that turns one framed game into
//! its tags (decoded, Windows-1252 fallback) and mainline SAN moves. The
//! reader is reused across the games of a batch so its buffer is allocated
//! once per batch, not once per game.

use std::cell::Cell;
use std::io::{self, Read};
use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};

use crate::pgn::encoding;

/// Longest tag line and comment pgn-reader keeps whole. Real files (TCEC's
/// 1 KB engine comments, lichess study tags) exceed the 255-byte default.
pub const SUPPORTED_TAG_LINE: usize = 1 << 16;
pub const SUPPORTED_COMMENT: usize = 1 << 16;

/// A game as pgn-reader saw it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ParsedGame {
    /// Tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// Mainline moves (variations skipped).
    pub sans: Vec<SanPlus>,
    /// Some tag was not UTF-8 and was decoded as Windows-1252.
    pub encoding_repaired: bool,
}

impl ParsedGame {
    /// First value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Collect;

impl Visitor for Collect {
    type Tags = ParsedGame;
    type Movetext = ParsedGame;
    type Output = ParsedGame;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(ParsedGame::default())
    }

    fn tag(
        &mut self,
        game: &mut ParsedGame,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        let (name, name_repaired) = encoding::decode(name);
        let (value, value_repaired) = encoding::decode(&value.decode());
        game.encoding_repaired |= name_repaired | value_repaired;
        game.tags.push((name, value));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, game: ParsedGame) -> ControlFlow<Self::Output, ParsedGame> {
        ControlFlow::Continue(game)
    }

    fn san(&mut self, game: &mut ParsedGame, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        game.sans.push(san_plus);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, game: ParsedGame) -> Self::Output {
        game
    }
}

/// The bytes of the current game, fed to a long-lived pgn-reader.
struct Feed<'a> {
    data: &'a [u8],
    range: Cell<(usize, usize)>,
}

impl Read for &Feed<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let (start, end) = self.range.get();
        let chunk = self.data.get(start..end).unwrap_or_default();
        let n = chunk.len().min(out.len());
        out[..n].copy_from_slice(&chunk[..n]);
        self.range.set((start + n, end));
        Ok(n)
    }
}

/// How pgn-reader read one framed game.
#[derive(Debug)]
pub enum ParseOutcome {
    Game(ParsedGame),
    /// pgn-reader reported a syntax error (unterminated comment or tag).
    SyntaxError(String),
    /// pgn-reader found more than one game in the frame.
    Split(usize),
}

/// Parses the games of one batch buffer, one frame at a time.
pub struct BatchParser<'a> {
    feed: &'a FeedHolder<'a>,
    reader: Reader<&'a Feed<'a>>,
}

/// Owns the feed so that the reader can borrow it.
pub struct FeedHolder<'a>(Feed<'a>);

impl<'a> FeedHolder<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        FeedHolder(Feed {
            data,
            range: Cell::new((0, 0)),
        })
    }
}

fn new_reader<'a>(feed: &'a Feed<'a>) -> Reader<&'a Feed<'a>> {
    Reader::build(feed)
        .set_supported_tag_line_length(SUPPORTED_TAG_LINE)
        .set_supported_comment_length(SUPPORTED_COMMENT)
        .finish()
}

impl<'a> BatchParser<'a> {
    pub fn new(feed: &'a FeedHolder<'a>) -> Self {
        BatchParser {
            feed,
            reader: new_reader(&feed.0),
        }
    }

    /// Parses `data[start..end]` as one game.
    pub fn parse(&mut self, start: usize, end: usize) -> ParseOutcome {
        self.feed.0.range.set((start, end));
        let first = self.reader.read_game(&mut Collect);
        let outcome = match first {
            Ok(Some(game)) => {
                let mut extra = 0;
                loop {
                    match self.reader.read_game(&mut Collect) {
                        Ok(Some(_)) => extra += 1,
                        Ok(None) => break,
                        Err(_) => {
                            extra += 1;
                            self.reset();
                            break;
                        }
                    }
                }
                if extra == 0 {
                    ParseOutcome::Game(game)
                } else {
                    ParseOutcome::Split(extra + 1)
                }
            }
            Ok(None) => ParseOutcome::Game(ParsedGame::default()),
            Err(e) => {
                self.reset();
                ParseOutcome::SyntaxError(e.to_string())
            }
        };
        outcome
    }

    /// A fresh reader after an error, so no state leaks into the next game.
    fn reset(&mut self) {
        self.feed.0.range.set((0, 0));
        self.reader = new_reader(&self.feed.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_one(text: &[u8]) -> ParseOutcome {
        let holder = FeedHolder::new(text);
        let mut parser = BatchParser::new(&holder);
        parser.parse(0, text.len())
    }

    #[test]
    fn collects_tags_and_mainline() {
        let text = b"[White \"M\xfcller\"]\n[Black \"B\"]\n\n1. e4 (1. d4) e5 {c} 2. Nf3 *\n";
        let ParseOutcome::Game(game) = parse_one(text) else {
            panic!("expected a game");
        };
        assert_eq!(game.tag("White"), Some("Müller"));
        assert!(game.encoding_repaired);
        let sans: Vec<String> = game.sans.iter().map(|s| s.to_string()).collect();
        assert_eq!(sans, vec!["e4", "e5", "Nf3"]);
    }

    #[test]
    fn reuses_the_reader_across_frames() {
        let text = b"1. e4 *\n1. d4 d5 *\n";
        let holder = FeedHolder::new(text);
        let mut parser = BatchParser::new(&holder);
        let a = parser.parse(0, 8);
        let b = parser.parse(8, text.len());
        match (a, b) {
            (ParseOutcome::Game(a), ParseOutcome::Game(b)) => {
                assert_eq!(a.sans.len(), 1);
                assert_eq!(b.sans.len(), 2);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn long_comments_and_tags_survive() {
        let long = "x".repeat(5000);
        let text = format!("[Annotator \"{long}\"]\n\n1. e4 {{{long}}} e5 *\n");
        let ParseOutcome::Game(game) = parse_one(text.as_bytes()) else {
            panic!("expected a game");
        };
        assert_eq!(game.tag("Annotator").map(str::len), Some(5000));
        assert_eq!(game.sans.len(), 2);
    }

    #[test]
    fn unterminated_comment_is_a_syntax_error() {
        assert!(matches!(
            parse_one(b"1. e4 { never closed"),
            ParseOutcome::SyntaxError(_)
        ));
    }
}
