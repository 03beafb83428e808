//! PGN stage: frame the byte stream into games, parse each game (the header
//! as pgn-reader reads it, the movetext in the audit's one walk; `clean`'s
//! notes with pgn-reader itself), and audit its movetext tokens.

pub mod annotations;
pub mod batch;
pub mod bytes;
pub mod chunked;
pub mod encoding;
pub mod framer;
pub mod header;
pub mod lexer;
pub mod movetext;
pub mod result;
pub mod tag_line;
pub mod tags;
pub mod time_control;
pub mod visitor;

/// A string inside a row's text buffer (start and end byte).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// The string in `text`, the buffer the span was taken in.
    pub(crate) fn of(self, text: &str) -> &str {
        &text[self.start as usize..self.end as usize]
    }
}
