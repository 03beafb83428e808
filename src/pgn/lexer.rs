//! PGN stage, movetext lexer: the one reader of movetext tokens. It walks
//! a game's bytes (its tag section skipped as pgn-reader skips it) or a
//! movetext alone and tells each token's kind, so that the token audit
//! ([`super::movetext`]) and `clean --repair` agree on what a comment, a
//! variation, a NAG, a move number and a result marker are.

use crate::pgn::bytes;
use crate::pgn::result::GameResult;
use crate::pgn::tag_line;

/// What a movetext token is. Every path that reads movetext tokens (this
/// audit, `clean --repair`) reads them here, so that they agree on what a
/// comment, a variation, a NAG, a move number and a result marker are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// A word in one of the everyday SAN forms (`e4`, `Nbd7`, `O-O`).
    San,
    /// Any other word (a run of bytes up to whitespace or a one-byte PGN
    /// token; a `.` ends one that does not start with a digit): SAN the
    /// fast path does not know, a move number glued to a move (`1.Кf3`),
    /// another notation, or text.
    Word,
    /// `12.`, `12...`, the `1.` of `1.e4`, a run of dots.
    MoveNumber,
    /// A termination marker, as [`GameResult::from_marker`] reads it.
    Result(GameResult),
    /// `{...}`.
    Comment,
    /// A `{` that never closes: the token runs to the end.
    UnterminatedComment,
    /// `;` to the end of the line.
    LineComment,
    /// A line starting with `%`.
    Escape,
    /// `$` and digits.
    Nag,
    /// `!`, `?`, `!!`, `??`, `!?`, `?!`.
    Suffix,
    /// `$` without digits or glued to more (`$x`, `$1a`), three or more
    /// `!` and `?`.
    BadAnnotation,
    /// A `}` outside any comment.
    StrayBrace,
    /// `(`.
    Open,
    /// `)`.
    Close,
}

/// One movetext token: its kind, its bytes (a comment with its braces),
/// where they start in the lexed bytes, and the line they start on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    pub kind: TokenKind,
    pub text: &'a [u8],
    pub start: usize,
    pub line: u64,
}

/// The movetext lexer: walks the tokens of one game's bytes (tag lines
/// skipped) or of a movetext alone.
pub(crate) struct Lexer<'a> {
    text: &'a [u8],
    pub(super) pos: usize,
    pub(super) line: u64,
    line_start: bool,
    /// Line of the last tag read, to tell a broken tag line from movetext.
    pub(super) last_tag_line: Option<u64>,
    /// Whether move numbers, comments, NAGs and escapes are tokens too;
    /// the audit steps over them inside the lexer, on the import's hot path.
    pub(super) all_tokens: bool,
    /// Past the tag section: a line break can end the movetext.
    in_movetext: bool,
    /// Where pgn-reader would stop reading the movetext: just after the
    /// first line break, outside comments, that is followed by a blank line
    /// or a `[` (see [`movetext_end`]).
    pub(super) first_break: Option<usize>,
}

/// Bytes that end a word: whitespace and the one-byte PGN tokens.
const DELIMITERS: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b" \t\n\r{}();$!?*";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

fn is_delimiter(b: u8) -> bool {
    DELIMITERS[usize::from(b)]
}

impl<'a> Lexer<'a> {
    /// The tokens of a whole game, from its first line (`first_line`); the
    /// tag section is skipped the way pgn-reader reads it.
    pub(crate) fn game(game: &'a [u8], first_line: u64) -> Self {
        let mut lexer = Self::movetext(game, first_line);
        lexer.in_movetext = false;
        lexer.skip_tag_lines();
        lexer.in_movetext = true;
        lexer
    }

    /// The tokens of movetext that starts a line (no tag section).
    pub(crate) fn movetext(movetext: &'a [u8], first_line: u64) -> Self {
        Lexer {
            text: movetext,
            pos: 0,
            line: first_line,
            line_start: true,
            last_tag_line: None,
            all_tokens: true,
            in_movetext: true,
            first_break: None,
        }
    }

    /// Where the next token is looked for; for [`Lexer::game`], before the
    /// first, where its tag section ends.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// Only the tokens the audit reads: no move numbers, comments, NAGs or
    /// escapes.
    pub(super) fn moves_and_problems(mut self) -> Self {
        self.all_tokens = false;
        self
    }

    /// Skips the tag section the way pgn-reader reads it: a tag ends at its
    /// closing quote and `]`; anything else after it on the line is movetext.
    fn skip_tag_lines(&mut self) {
        loop {
            self.skip_whitespace();
            if self.text.get(self.pos) != Some(&b'[') {
                return;
            }
            self.last_tag_line = Some(self.line);
            // What follows a tag on its line is not at a line's start: a
            // `%` there is no escape (as for pgn-reader).
            self.line_start = false;
            self.pos += 1;
            let pair = tag_line::pair(&self.text[self.pos..]);
            self.pos += pair.end;
            if pair.met.has_value() {
                self.pos = tag_line::skip_blanks(self.text, self.pos);
                if self.text.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                }
            }
            // Without value, a `]` is consumed; a line break is left for
            // the line count.
        }
    }

    /// The bytes from the position on. The position never passes the end:
    /// it moves by what the bytes hold.
    #[inline(always)]
    fn rest(&self) -> &'a [u8] {
        &self.text[self.pos..]
    }

    fn skip_to_newline(&mut self) {
        let rest = self.rest();
        self.pos += memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    }

    /// Steps over whitespace, counting lines; stops at anything else,
    /// including a `%` that starts a line (an escape, read as a token).
    fn skip_whitespace(&mut self) {
        while let Some(&b) = self.text.get(self.pos) {
            match b {
                b' ' | b'\t' | b'\r' => {}
                b'\n' => {
                    self.line += 1;
                    self.line_start = true;
                    if self.in_movetext && self.first_break.is_none() {
                        let after = &self.text[self.pos + 1..];
                        self.first_break = movetext_end(after).map(|at| self.pos + 1 + at);
                    }
                }
                _ => return,
            }
            self.pos += 1;
        }
    }

    /// The next token, or None at the end.
    pub(super) fn next_token(&mut self) -> Option<Token<'a>> {
        loop {
            let token = self.lex()?;
            if self.all_tokens || !token.kind.is_trivia() {
                return Some(token);
            }
        }
    }

    /// Reads the token at the current position.
    #[inline(always)]
    fn lex(&mut self) -> Option<Token<'a>> {
        self.skip_whitespace();
        let &b = self.text.get(self.pos)?;
        let at_line_start = std::mem::replace(&mut self.line_start, false);
        let (start, line) = (self.pos, self.line);
        let kind = match b {
            b'%' if at_line_start => {
                self.skip_to_newline();
                TokenKind::Escape
            }
            b'{' => self.comment(),
            b';' => {
                self.skip_to_newline();
                TokenKind::LineComment
            }
            b'(' | b')' | b'*' | b'}' => {
                self.pos += 1;
                match b {
                    b'(' => TokenKind::Open,
                    b')' => TokenKind::Close,
                    b'*' => TokenKind::Result(GameResult::Unfinished),
                    _ => TokenKind::StrayBrace,
                }
            }
            b'$' => {
                self.pos += 1;
                let digits = self.take_while(|c| c.is_ascii_digit());
                if digits == 0 || !self.at_delimiter() {
                    self.take_while(|c| !is_delimiter(c));
                    TokenKind::BadAnnotation
                } else {
                    TokenKind::Nag
                }
            }
            b'!' | b'?' => match self.take_while(|c| c == b'!' || c == b'?') {
                1 | 2 => TokenKind::Suffix,
                _ => TokenKind::BadAnnotation,
            },
            b'.' => {
                self.take_while(|c| c == b'.');
                TokenKind::MoveNumber
            }
            b'0'..=b'9' if self.skip_move_number() => TokenKind::MoveNumber,
            _ => {
                // Like pgn-reader, a `.` ends a move (`e4.`), but not a
                // move number or result (`1.e4`, `0.5-0.5`).
                let len = if b.is_ascii_digit() {
                    self.take_while(|c| !is_delimiter(c))
                } else {
                    self.take_while(|c| !is_delimiter(c) && c != b'.')
                };
                kind_of_word(&self.text[start..start + len])
            }
        };
        let text = &self.text[start..self.pos];
        Some(Token {
            kind,
            text,
            start,
            line,
        })
    }

    /// Steps over a `{` comment, counting its lines. Most comments are
    /// short (a lichess clock is 16 bytes): see [`bytes::find_byte`].
    fn comment(&mut self) -> TokenKind {
        let rest = self.rest();
        match bytes::find_byte(b'}', rest) {
            Some(i) => {
                self.line += bytes::count_newlines(&rest[..i]);
                self.pos += i + 1;
                TokenKind::Comment
            }
            None => {
                self.pos = self.text.len();
                TokenKind::UnterminatedComment
            }
        }
    }

    /// Steps over a move number (`12.`, `12...`, the `1.` of `1.e4`) and
    /// returns true; leaves anything else (`1-0`, `0.5-0.5`) for the word path.
    fn skip_move_number(&mut self) -> bool {
        let rest = self.rest();
        let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        let dots = rest[digits..].iter().take_while(|&&c| c == b'.').count();
        let ends_here = match rest.get(digits + dots) {
            None => true,
            Some(&c) => is_delimiter(c) || (dots > 0 && c.is_ascii_alphabetic()),
        };
        if ends_here {
            self.pos += digits + dots;
        }
        ends_here
    }

    fn take_while(&mut self, pred: impl Fn(u8) -> bool) -> usize {
        let rest = self.rest();
        let n = rest.iter().position(|&c| !pred(c)).unwrap_or(rest.len());
        self.pos += n;
        n
    }

    fn at_delimiter(&self) -> bool {
        self.text.get(self.pos).is_none_or(|&c| is_delimiter(c))
    }
}

/// Where pgn-reader stops in `after`, the bytes after a line break of the
/// movetext, when they end it: at a blank line or a tag line (it has read
/// a `\r` of a CRLF blank line).
fn movetext_end(after: &[u8]) -> Option<usize> {
    match after {
        [b'[' | b'\n', ..] => Some(0),
        [b'\r', b'\n', ..] => Some(1),
        _ => None,
    }
}

/// Where pgn-reader stops reading a movetext that starts at `from` (its
/// `skip_movetext`), as [`Scanned::stops_at`] tells it: for games whose
/// tag section the lexer reads differently (a broken tag line, an escape
/// line after the tags).
pub(crate) fn movetext_stop(text: &[u8], from: usize) -> Option<usize> {
    let mut pos = from;
    while let Some(&b) = text.get(pos) {
        pos += 1;
        // `pos` is just past a byte of `text`.
        let rest = &text[pos..];
        match b {
            b'{' => pos += memchr::memchr(b'}', rest)? + 1,
            b';' => pos += memchr::memchr(b'\n', rest).unwrap_or(rest.len()),
            b'\n' if rest.first() == Some(&b'%') => {
                pos += memchr::memchr(b'\n', rest).unwrap_or(rest.len());
            }
            b'\n' => {
                if let Some(at) = movetext_end(rest) {
                    return Some(pos + at);
                }
            }
            _ => {}
        }
    }
    None
}

impl TokenKind {
    /// What the audit steps over: neither a move nor a problem.
    pub(super) fn is_trivia(self) -> bool {
        matches!(
            self,
            TokenKind::MoveNumber
                | TokenKind::Comment
                | TokenKind::LineComment
                | TokenKind::Escape
                | TokenKind::Nag
                | TokenKind::Suffix
        )
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        self.next_token()
    }
}

/// The kind of a word: everyday SAN, a move number, a result, or another
/// word. Results are recognised here, by [`GameResult::from_marker`], for
/// every reader of tokens.
fn kind_of_word(word: &[u8]) -> TokenKind {
    // The two everyday cases first: a plain move and a move number.
    if is_common_san(word) {
        return TokenKind::San;
    }
    if is_move_number(word) {
        return TokenKind::MoveNumber;
    }
    // Results have a dash, slash or colon, or are non-ASCII (`½-½`).
    let may_be_result = word
        .iter()
        .any(|&b| matches!(b, b'-' | b'/' | b':') || !b.is_ascii());
    match may_be_result
        .then(|| GameResult::from_marker(word))
        .flatten()
    {
        Some(result) => TokenKind::Result(result),
        None => TokenKind::Word,
    }
}

/// The everyday SAN forms (`e4`, `exd5`, `e8=Q+`, `Nbd7`, `R1xa5#`, `O-O`),
/// checked without building a `San`: most tokens of most games take this
/// path. Anything else goes to shakmaty's parser. pgn-reader's own parse
/// of the mainline must agree in number of moves, which the caller checks.
pub(super) fn is_common_san(word: &[u8]) -> bool {
    let body = match word {
        [rest @ .., b'+' | b'#'] => rest,
        _ => word,
    };
    let is_file = |c: &u8| (b'a'..=b'h').contains(c);
    let is_rank = |c: &u8| (b'1'..=b'8').contains(c);
    let is_square = |f: &u8, r: &u8| is_file(f) && is_rank(r);
    let is_promotion = |p: &u8| matches!(p, b'Q' | b'R' | b'B' | b'N');
    match body {
        b"O-O" | b"O-O-O" => true,
        [b'K' | b'Q' | b'R' | b'B' | b'N', rest @ ..] => {
            let rest = match rest {
                [head @ .., b'x', f, r] | [head @ .., f, r] if is_square(f, r) => head,
                _ => return false,
            };
            match rest {
                [] => true,
                [d] => is_file(d) || is_rank(d),
                [f, r] => is_square(f, r),
                _ => false,
            }
        }
        [f, r] => is_square(f, r),
        [f, r, b'=', p] => is_square(f, r) && is_promotion(p),
        [a, b'x', f, r] => is_file(a) && is_square(f, r),
        [a, b'x', f, r, b'=', p] => is_file(a) && is_square(f, r) && is_promotion(p),
        _ => false,
    }
}

/// `12`, `12.`, `12...`: digits, then only dots.
fn is_move_number(word: &[u8]) -> bool {
    let digits = word.iter().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && word.iter().skip(digits).all(|&c| c == b'.')
}
