//! The per-game path, notation repair: movetext as repair reads it. Each
//! character is normalised (full-width forms, figurines, Chinese piece
//! names to SAN's letters), the import's lexer reads the result, and the
//! words between its tokens are read as moves, each token with where it
//! starts in the text as written.

use std::iter::Peekable;

use crate::pgn::lexer::{Lexer, Token as LexedToken, TokenKind};
use crate::pgn::result::GameResult;

/// One character as SAN writes it: full-width forms to ASCII, the capture,
/// check and mate marks of Chinese texts to SAN's, Chinese piece names and
/// figurines to SAN letters; None for a pawn's name (SAN writes none).
fn normalize(c: char) -> Option<char> {
    let c = match c {
        // Full-width ASCII (！ to ～) and the ideographic space.
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{3000}' => ' ',
        _ => c,
    };
    Some(match c {
        '×' => 'x',
        '≠' => '#',
        '王' | '♔' | '♚' => 'K',
        '后' | '♕' | '♛' => 'Q',
        '车' | '♖' | '♜' => 'R',
        '象' | '♗' | '♝' => 'B',
        '马' | '♘' | '♞' => 'N',
        '兵' | '♙' | '♟' => return None,
        other => other,
    })
}

/// One of repair's tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    /// The move as SAN letters, as written, and whether the result was
    /// glued to it (`gxf41-0`).
    Move {
        word: String,
        raw: String,
        glued: bool,
    },
    Nag(u8),
    Comment(String),
    Variation,
    Result(GameResult),
    /// Text after the result marker, as written.
    AfterResult(String),
    /// A word for mate or resigns among the moves.
    Word(String),
    /// `ep` or `e.p.` after an en-passant capture.
    EnPassantMark(String),
}

/// Words for mate and resignation that scoresheets and old databases write
/// among the moves, in the languages whose piece letters are read.
const MATE_OR_RESIGN_WORDS: [&str; 18] = [
    "mate",
    "checkmate",
    "mat",
    "matt",
    "schachmatt",
    "mato",
    "jaquemate",
    "scaccomatto",
    "resigns",
    "resigned",
    "resign",
    "aufgegeben",
    "aufgabe",
    "abandon",
    "abandonne",
    "abandona",
    "abbandona",
    "сдался",
];

/// Movetext as repair reads it: each character normalised ([`normalize`];
/// a pawn's name dropped), with where each byte comes from in the text as
/// written, so that tokens are reported (and salvage cuts) as written.
struct Normalised<'a> {
    written: &'a str,
    text: String,
    /// For each byte of `text`, and for its end, the offset in `written`
    /// of the character it comes from.
    written_at: Vec<usize>,
}

impl<'a> Normalised<'a> {
    fn new(written: &'a str) -> Self {
        let mut text = String::with_capacity(written.len());
        let mut written_at = Vec::with_capacity(written.len() + 1);
        for (at, c) in written.char_indices() {
            if let Some(c) = normalize(c) {
                text.push(c);
                written_at.resize(text.len(), at);
            }
        }
        written_at.push(written.len());
        Normalised {
            written,
            text,
            written_at,
        }
    }

    /// Where byte `at` of the normalised text comes from in the written one.
    fn offset(&self, at: usize) -> usize {
        self.written_at
            .get(at)
            .copied()
            .unwrap_or(self.written.len())
    }

    /// The written text of normalised bytes `start..end` (`start <= end`):
    /// each offset is where a character starts in the written text (or its
    /// end), so the slice is whole characters.
    fn written(&self, start: usize, end: usize) -> &'a str {
        &self.written[self.offset(start)..self.offset(end)]
    }

    /// The normalised text of bytes `start..end`: the bounds are the
    /// lexer's (its tokens start and end at ASCII bytes: whitespace and
    /// PGN's one-byte tokens), or where a result marker starts, so they
    /// fall between characters.
    fn text(&self, start: usize, end: usize) -> &str {
        &self.text[start..end]
    }

    /// The written text from normalised byte `start` on, its whitespace
    /// collapsed: what follows the result marker.
    fn rest(&self, start: usize) -> String {
        let rest = &self.written[self.offset(start)..];
        rest.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// Reads movetext into repair's tokens, each with the byte offset (in the
/// text as written) where it starts. The lexer of the import's token audit
/// ([`Lexer`]) reads the normalised text: comments, variations, NAGs, move
/// numbers and result markers are its tokens, so that repair and the
/// import agree on them; the words between are read as moves
/// ([`read_group`]). After the result marker, comments are read as such
/// and any other text, to the end, is one [`Token::AfterResult`].
pub(super) fn tokenize(written: &str) -> Vec<(usize, Token)> {
    let norm = Normalised::new(written);
    let mut lexer = Lexer::movetext(norm.text.as_bytes(), 1).peekable();
    let mut reading = Reading {
        norm: &norm,
        tokens: Vec::new(),
        depth: 0,
        after_result: false,
        done: false,
    };
    while let Some(token) = lexer.next() {
        let word = matches!(
            token.kind,
            TokenKind::San | TokenKind::Word | TokenKind::MoveNumber
        );
        if word && reading.depth == 0 && !reading.after_result {
            let end = group_end(&norm, &token, &mut lexer);
            reading.group(token.start, end);
        } else {
            reading.token(&token);
        }
        if reading.done {
            break;
        }
    }
    reading.tokens
}

/// Repair's tokens as they are read, and where reading stands.
struct Reading<'n, 'a> {
    norm: &'n Normalised<'a>,
    tokens: Vec<(usize, Token)>,
    /// Depth in variations, which are dropped: inside one, only its
    /// parentheses count.
    depth: u32,
    after_result: bool,
    /// The text after the result is read: nothing more is.
    done: bool,
}

impl Reading<'_, '_> {
    fn push(&mut self, start: usize, token: Token) {
        self.after_result |= matches!(token, Token::Result(_));
        self.tokens.push((self.norm.offset(start), token));
    }

    /// A lexer token other than a word to read as moves.
    fn token(&mut self, token: &LexedToken<'_>) {
        let start = token.start;
        match token.kind {
            TokenKind::Open if self.depth > 0 => self.depth += 1,
            TokenKind::Close if self.depth > 0 => self.depth -= 1,
            _ if self.depth > 0 => {}
            TokenKind::Comment | TokenKind::UnterminatedComment => {
                self.push(start, Token::Comment(comment_body(token.text)));
            }
            _ if self.after_result => self.text_after_result(start),
            TokenKind::Open => {
                self.depth = 1;
                self.push(start, Token::Variation);
            }
            TokenKind::Result(result) => self.push(start, Token::Result(result)),
            TokenKind::Nag | TokenKind::Suffix => {
                if let Some(nag) = nag(token.text) {
                    self.push(start, Token::Nag(nag));
                }
            }
            TokenKind::BadAnnotation => self.bad_annotation(token),
            // As the import reads them, and no moves: a stray `)` or `}`,
            // `;` and `%` comments.
            _ => {}
        }
    }

    /// `$` glued to more (`$1x`): its number, then the rest read as
    /// moves, so that no text is dropped unread; `$` alone and `!!!` are
    /// no NAG.
    fn bad_annotation(&mut self, token: &LexedToken<'_>) {
        let Some(after_dollar) = token.text.strip_prefix(b"$") else {
            return;
        };
        let digits = after_dollar
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        // `$` and the digits after it: ASCII, within the token.
        let number = &token.text[..1 + digits];
        if let Some(nag) = nag(number) {
            self.push(token.start, Token::Nag(nag));
        }
        self.group(token.start + number.len(), token.start + token.text.len());
    }

    fn text_after_result(&mut self, start: usize) {
        let rest = self.norm.rest(start);
        self.push(start, Token::AfterResult(rest));
        self.done = true;
    }

    /// A group of words (normalised bytes `start..end`) read as moves.
    fn group(&mut self, start: usize, end: usize) {
        for (at, token_end, token) in read_group(self.norm, start, end) {
            let result = matches!(token, Token::Result(_));
            self.push(at, token);
            if result && token_end < end {
                self.text_after_result(token_end);
                return;
            }
        }
    }
}

/// Where the group of words that starts with `first` ends: the words
/// glued to it (`1.e4`, `e.p.`), and the word after a lone piece letter
/// and whitespace (`Q h7`, `马 c3`), which is one move.
fn group_end(
    norm: &Normalised<'_>,
    first: &LexedToken<'_>,
    lexer: &mut Peekable<Lexer<'_>>,
) -> usize {
    let start = first.start;
    let mut end = first.start + first.text.len();
    while let Some(next) = lexer.peek() {
        let word = matches!(
            next.kind,
            TokenKind::San | TokenKind::Word | TokenKind::MoveNumber
        );
        let joined = next.start == end || ends_with_piece_letter(norm.text(start, end));
        if !word || !joined {
            break;
        }
        end = next.start + next.text.len();
        lexer.next();
    }
    end
}

/// Does `group` end with a piece letter alone (one or two capitals), to
/// be read with the square after the whitespace that follows?
fn ends_with_piece_letter(group: &str) -> bool {
    let chars: Vec<char> = group.chars().collect();
    let mut i = 0;
    let mut last = (String::new(), 0);
    while let Some(&c) = chars.get(i) {
        if is_word_char(c) && !starts_en_passant_mark(&chars, i) {
            last = read_word(&chars, i);
            i = last.1.max(i + 1);
        } else {
            i += 1;
        }
    }
    let (word, end) = last;
    end == chars.len() && joins_square(&word)
}

/// A piece letter that the square after whitespace completes (`Q h7`).
fn joins_square(word: &str) -> bool {
    !word.is_empty() && word.chars().count() <= 2 && word.chars().all(char::is_uppercase)
}

/// The body of a `{` comment, its whitespace collapsed.
fn comment_body(text: &[u8]) -> String {
    let body = text.strip_prefix(b"{").unwrap_or(text);
    let body = body.strip_suffix(b"}").unwrap_or(body);
    let body = String::from_utf8_lossy(body);
    body.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The NAG of `$12` or of a move suffix (`!`, `?!`).
fn nag(text: &[u8]) -> Option<u8> {
    match text {
        b"!" => Some(1),
        b"?" => Some(2),
        b"!!" => Some(3),
        b"??" => Some(4),
        b"!?" => Some(5),
        b"?!" => Some(6),
        [b'$', digits @ ..] => std::str::from_utf8(digits).ok()?.parse().ok(),
        _ => None,
    }
}

/// The moves of a group of words (normalised bytes `start..end`), each
/// with its start and end: a result glued to the last move (`gxf41-0`,
/// `gxf41–0`) is split off it, as [`GameResult::suffix_of`] reads it.
fn read_group(norm: &Normalised<'_>, start: usize, end: usize) -> Vec<(usize, usize, Token)> {
    let text = norm.text(start, end);
    let Some((at, result)) = GameResult::suffix_of(text.as_bytes()).filter(|(at, _)| {
        text.get(..*at)
            .is_some_and(|m| m.chars().any(char::is_alphabetic))
    }) else {
        return read_words(norm, start, end);
    };
    let mut read = read_words(norm, start, start + at);
    if let Some((from, to, Token::Move { raw, glued, .. })) = read.last_mut()
        && *to == start + at
    {
        *glued = true;
        *raw = norm.written(*from, end).trim().to_owned();
    }
    read.push((start + at, end, Token::Result(result)));
    read
}

/// The moves of normalised bytes `start..end` with no result glued:
/// characters SAN has no use for (`.`, `,`) separate them, a check mark
/// ends one (`h7+Kf7`), `e.p.` is a mark of its own.
fn read_words(norm: &Normalised<'_>, start: usize, end: usize) -> Vec<(usize, usize, Token)> {
    let text = norm.text(start, end);
    let chars: Vec<char> = text.chars().collect();
    let mut offsets: Vec<usize> = text.char_indices().map(|(at, _)| start + at).collect();
    offsets.push(end);
    let at = |i: usize| offsets.get(i).copied().unwrap_or(end);
    let mut read = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if starts_en_passant_mark(&chars, i) {
            read.push((at(i), at(i + 4), Token::EnPassantMark("e.p.".into())));
            i += 4;
        } else if is_word_char(c) {
            let (word, next) = read_word(&chars, i);
            let written = norm.written(at(i), at(next));
            read.extend(
                classify(&word, written)
                    .into_iter()
                    .map(|token| (at(i), at(next), token)),
            );
            i = next.max(i + 1);
        } else {
            i += 1;
        }
    }
    read
}

/// Characters a move is written with.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | 'x' | ':' | '=' | '/' | '*' | '½')
}

/// Does `e.p.` start at `i`?
fn starts_en_passant_mark(chars: &[char], i: usize) -> bool {
    chars.get(i..i + 4) == Some(&['e', '.', 'p', '.'])
}

/// A move-like word from `start`: letters, digits and `-x:=/`, a space
/// allowed after a leading piece letter, ended by a check mark (kept) or
/// an `e.p.` mark.
fn read_word(chars: &[char], start: usize) -> (String, usize) {
    let mut word = String::new();
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        if !word.is_empty() && starts_en_passant_mark(chars, i) {
            break;
        } else if is_word_char(c) {
            word.push(c);
            i += 1;
        } else if c.is_whitespace() && joins_square(&word) {
            // `Q h7`, `马 c3`: the square follows the piece after a space.
            i += 1;
        } else {
            break;
        }
        if word.chars().count() > 12 {
            break;
        }
    }
    // A check or mate mark right after the move belongs to it.
    while let Some(&c) = chars.get(i) {
        if c == '+' || c == '#' {
            word.push(c);
            i += 1;
        } else {
            break;
        }
    }
    (word, i)
}

/// What a word is: a result, a move (or a move and an `ep` mark), a word
/// for mate or resigns, or nothing (a move number).
fn classify(word: &str, written: &str) -> Vec<Token> {
    let bare = word.trim_end_matches(['+', '#']);
    if bare.is_empty() {
        return Vec::new();
    }
    if let Some(result) = GameResult::from_marker(bare.as_bytes()) {
        return vec![Token::Result(result)];
    }
    // A move number glued to nothing (`12`), or `12.` already split.
    if bare.chars().all(|c| c.is_ascii_digit()) {
        return Vec::new();
    }
    if MATE_OR_RESIGN_WORDS.contains(&bare.to_lowercase().as_str()) {
        return vec![Token::Word(written.trim().to_owned())];
    }
    if bare == "ep" {
        return vec![Token::EnPassantMark(written.trim().to_owned())];
    }
    // `exd6ep`: the mark glued to the capture.
    if let Some(mv) = bare.strip_suffix("ep")
        && mv.ends_with(|c: char| c.is_ascii_digit())
    {
        let mark = Token::EnPassantMark("ep".into());
        let written = written.trim().strip_suffix("ep").unwrap_or(written);
        return vec![
            Token::Move {
                word: mv.to_owned(),
                raw: written.to_owned(),
                glued: false,
            },
            mark,
        ];
    }
    vec![Token::Move {
        word: word.to_owned(),
        raw: written.to_owned(),
        glued: false,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(word: &str, raw: &str) -> Token {
        Token::Move {
            word: word.into(),
            raw: raw.into(),
            glued: false,
        }
    }

    #[test]
    fn tokens_start_where_they_are_written() {
        let text = "1. e4 {a  note} $1 (1. d4) ｅ５ 1-0 n/a";
        assert_eq!(
            tokenize(text),
            vec![
                (3, moves("e4", "e4")),
                (6, Token::Comment("a note".into())),
                (16, Token::Nag(1)),
                (19, Token::Variation),
                (27, moves("e5", "ｅ５")),
                (34, Token::Result(GameResult::WhiteWins)),
                (38, Token::AfterResult("n/a".into())),
            ]
        );
    }

    #[test]
    fn a_piece_letter_and_its_square_are_one_move() {
        assert_eq!(tokenize("Q h7"), vec![(0, moves("Qh7", "Q h7"))]);
        assert_eq!(
            tokenize("exd6ep"),
            vec![
                (0, moves("exd6", "exd6")),
                (0, Token::EnPassantMark("ep".into()))
            ]
        );
    }

    #[test]
    fn normalised_text_keeps_where_it_was_written() {
        let norm = Normalised::new("♘f3 兵e4");
        assert_eq!(norm.text, "Nf3 e4");
        assert_eq!(norm.written(0, 3), "♘f3");
        // A pawn's name is dropped: the move starts at its square.
        assert_eq!(norm.written(4, 6), "e4");
        assert_eq!(norm.rest(3), "兵e4");
    }
}
