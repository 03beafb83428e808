//! The per-game path, notation repair (`clean --repair`, `import
//! --repair`): a game whose movetext is not SAN (long algebraic, UCI,
//! castling with zeros, figurines, localized piece letters, Chinese scoresheet notation, full-width forms, a
//! wrong origin square, reduced pawn captures `cd4`, captures without `x`,
//! en-passant marks, a move glued to the result, text after the result, a
//! word for mate or resigns) is read again token by token; a token is
//! accepted only when exactly one legal move fits it. Where a token fits no
//! move, the moves before it are kept for `--salvage`.

use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingSide, Chess, File, Move, Position, Rank, Role, Square};

use std::iter::Peekable;

use crate::pgn::movetext::{Lexer, Token as LexedToken, TokenKind};
use crate::pgn::result::GameResult;

/// A game read through repair.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Repaired {
    /// The moves in order; NAGs and comments that followed each.
    pub moves: Vec<RepairedMove>,
    pub leading_comments: Vec<String>,
    /// The result marker, normalised, when the movetext has one.
    pub marker: Option<GameResult>,
    /// Variations met (not replayed by repair: they are dropped).
    pub variations: u32,
    /// Every repair made, in movetext order.
    pub repairs: Vec<Repair>,
}

/// One repair: its class, the ply it concerns, and what was written and
/// what it became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repair {
    pub class: RepairClass,
    pub ply: Option<u32>,
    pub detail: String,
}

/// The kinds of fault `--repair` mends, as the summaries count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RepairClass {
    /// Another notation: long algebraic, UCI, figurines, other languages.
    Notation,
    /// `cd4`, `cd`, `ed5` for `cxd4`, `exd5`.
    ReducedPawnCapture,
    /// `exd6ep`, `exd6 e.p.`.
    EnPassantMark,
    /// `Bc4` for `Bxc4`.
    CaptureWithoutX,
    /// `gxf41-0`.
    MoveGluedToResult,
    /// `1-0 n/a`, `1/2-1/2 (second result)`: kept as a comment.
    TextAfterResult,
    /// `mat`, `matt`, `resigns` among the moves: kept as a comment.
    MateOrResignWord,
    /// `[Event "The "Big" Open"]`.
    UnescapedQuotes,
    /// `[FEN ""]`: the standard start.
    EmptyFen,
    /// FEN castling rights or en-passant square the position cannot have.
    ImpossibleFenRights,
    /// The legal moves before an illegal one kept (`--salvage`).
    Salvaged,
}

impl RepairClass {
    pub fn as_str(self) -> &'static str {
        match self {
            RepairClass::Notation => "notation",
            RepairClass::ReducedPawnCapture => "reduced_pawn_capture",
            RepairClass::EnPassantMark => "en_passant_mark",
            RepairClass::CaptureWithoutX => "capture_without_x",
            RepairClass::MoveGluedToResult => "move_glued_to_result",
            RepairClass::TextAfterResult => "text_after_result",
            RepairClass::MateOrResignWord => "mate_or_resign_word",
            RepairClass::UnescapedQuotes => "unescaped_quotes",
            RepairClass::EmptyFen => "empty_fen",
            RepairClass::ImpossibleFenRights => "impossible_fen_rights",
            RepairClass::Salvaged => "salvaged",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepairedMove {
    pub m: Move,
    /// Its SAN, with `+` / `#`.
    pub san: SanPlus,
    /// The token as written, when it was not already the move's SAN.
    pub original: Option<String>,
    pub nags: Vec<u8>,
    pub comments: Vec<String>,
}

/// Why a repair failed: the token, its ply and where it starts in the
/// movetext, with the moves read before it (what `--salvage` keeps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepairError {
    pub ply: u32,
    pub token: String,
    pub ambiguous: bool,
    /// Byte offset of the token in the movetext.
    pub offset: usize,
    pub before: Repaired,
}

/// Reads `movetext` from `start`, repairing every token that is not SAN.
pub(crate) fn repair(start: &Chess, movetext: &str) -> Result<Repaired, Box<RepairError>> {
    let mut pos = start.clone();
    let mut out = Repaired::default();
    for (offset, token) in tokenize(movetext) {
        let ply = out.moves.len() as u32;
        match token {
            Token::Comment(c) => out.comment(c),
            Token::Nag(n) => {
                if let Some(m) = out.moves.last_mut() {
                    m.nags.push(n);
                }
            }
            Token::Variation => out.variations += 1,
            Token::Result(r) => out.marker = out.marker.or(Some(r)),
            Token::AfterResult(text) => {
                out.note(
                    RepairClass::TextAfterResult,
                    ply,
                    format!("{text:?} kept as a comment"),
                );
                out.comment(text);
            }
            Token::Word(word) => {
                out.note(
                    RepairClass::MateOrResignWord,
                    ply,
                    format!("{word:?} kept as a comment"),
                );
                out.comment(word);
            }
            Token::EnPassantMark(mark) => {
                let after_en_passant = out.moves.last().is_some_and(|m| m.m.is_en_passant());
                if !after_en_passant {
                    return Err(Box::new(RepairError {
                        ply: ply + 1,
                        token: mark,
                        ambiguous: false,
                        offset,
                        before: out,
                    }));
                }
                out.note(RepairClass::EnPassantMark, ply, format!("{mark:?} dropped"));
            }
            Token::Move { word, raw, glued } => {
                let ply = ply + 1;
                let found = candidates(&pos, &word);
                let (m, class) = match found.as_slice() {
                    [one] => *one,
                    _ => {
                        return Err(Box::new(RepairError {
                            ply,
                            token: word,
                            ambiguous: found.len() > 1,
                            offset,
                            before: out,
                        }));
                    }
                };
                let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
                let text = san.to_string();
                let plain = |s: &str| s.trim_end_matches(['+', '#']).to_owned();
                // `Rxf7++` (double check), `Qh7#+`: marks SAN does not write.
                let written = raw.trim();
                let marks = written.len() - written.trim_end_matches(['+', '#']).len();
                let original =
                    (plain(&raw) != plain(&text) || marks > 1).then(|| written.to_owned());
                // A token shakmaty reads as SAN but SAN would not write
                // (`c7c5`, an over-disambiguated `Nbd2`, `Rxf7++`) is still
                // rewritten, so it is reported too, as another notation.
                let class = if glued {
                    Some(RepairClass::MoveGluedToResult)
                } else {
                    original
                        .as_ref()
                        .map(|_| class.unwrap_or(RepairClass::Notation))
                };
                if let (Some(class), Some(original)) = (class, &original) {
                    out.note(class, ply, format!("{original} -> {text}"));
                }
                out.moves.push(RepairedMove {
                    m,
                    san,
                    original,
                    nags: Vec::new(),
                    comments: Vec::new(),
                });
            }
        }
    }
    Ok(out)
}

impl Repaired {
    /// A comment after the last move (before the first, when none).
    fn comment(&mut self, text: String) {
        match self.moves.last_mut() {
            Some(m) => m.comments.push(text),
            None => self.leading_comments.push(text),
        }
    }

    fn note(&mut self, class: RepairClass, ply: u32, detail: String) {
        self.repairs.push(Repair {
            class,
            ply: (ply > 0).then_some(ply),
            detail,
        });
    }
}

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

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
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

    /// The written text of normalised bytes `start..end`.
    fn written(&self, start: usize, end: usize) -> &'a str {
        let (start, end) = (self.offset(start), self.offset(end));
        self.written.get(start..end).unwrap_or_default()
    }

    /// The written text from normalised byte `start` on, its whitespace
    /// collapsed: what follows the result marker.
    fn rest(&self, start: usize) -> String {
        let rest = self.written.get(self.offset(start)..).unwrap_or_default();
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
fn tokenize(written: &str) -> Vec<(usize, Token)> {
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
            let end = group_end(&norm.text, &token, &mut lexer);
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
        let number = token.text.get(..1 + digits).unwrap_or_default();
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
fn group_end(text: &str, first: &LexedToken<'_>, lexer: &mut Peekable<Lexer<'_>>) -> usize {
    let start = first.start;
    let mut end = first.start + first.text.len();
    while let Some(next) = lexer.peek() {
        let word = matches!(
            next.kind,
            TokenKind::San | TokenKind::Word | TokenKind::MoveNumber
        );
        let joined = next.start == end || ends_with_piece_letter(text.get(start..end));
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
fn ends_with_piece_letter(group: Option<&str>) -> bool {
    let chars: Vec<char> = group.unwrap_or_default().chars().collect();
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
    let text = norm.text.get(start..end).unwrap_or_default();
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
    let text = norm.text.get(start..end).unwrap_or_default();
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

/// Piece letters of the languages read, to SAN's.
const LANGUAGES: [&[(&str, char)]; 5] = [
    // German
    &[("K", 'K'), ("D", 'Q'), ("T", 'R'), ("L", 'B'), ("S", 'N')],
    // French
    &[("R", 'K'), ("D", 'Q'), ("T", 'R'), ("F", 'B'), ("C", 'N')],
    // Spanish and Italian
    &[("R", 'K'), ("D", 'Q'), ("T", 'R'), ("A", 'B'), ("C", 'N')],
    // Russian
    &[("Кр", 'K'), ("Ф", 'Q'), ("Л", 'R'), ("С", 'B'), ("К", 'N')],
    // English, for long algebraic and UCI
    &[("K", 'K'), ("Q", 'Q'), ("R", 'R'), ("B", 'B'), ("N", 'N')],
];

/// Every legal move the token can mean, without repeats, each with the
/// class of fault read (none for valid SAN). Valid SAN that is legal wins
/// outright; otherwise every reading is tried.
fn candidates(pos: &Chess, word: &str) -> Vec<(Move, Option<RepairClass>)> {
    let bare = word.trim_end_matches(['+', '#']);
    if let Some(m) = san_move(pos, bare) {
        return vec![(m, None)];
    }
    let mut found: Vec<(Move, Option<RepairClass>)> = Vec::new();
    let mut add = |m: Move, class: RepairClass| {
        if !found.iter().any(|(seen, _)| *seen == m) {
            found.push((m, Some(class)));
        }
    };
    for m in capture_without_x(pos, bare) {
        add(m, RepairClass::CaptureWithoutX);
    }
    for m in reduced_pawn_capture(pos, bare) {
        add(m, RepairClass::ReducedPawnCapture);
    }
    if let Some(m) = castle(pos, bare) {
        add(m, RepairClass::Notation);
    }
    // `：` (read as `:`) marks a capture as `x` does.
    if bare.contains(':')
        && let Some(m) = san_move(pos, &bare.replace(':', "x"))
    {
        add(m, RepairClass::Notation);
    }
    for language in LANGUAGES {
        for translated in translate(bare, language) {
            if let Some(m) = san_move(pos, &translated) {
                add(m, RepairClass::Notation);
            }
            // A promotion written without `=` (`d1Q`, `exd8D`).
            if let Some(m) = with_promotion_sign(&translated).and_then(|t| san_move(pos, &t)) {
                add(m, RepairClass::Notation);
            }
            for m in long_algebraic(pos, &translated) {
                add(m, RepairClass::Notation);
            }
        }
    }
    found
}

/// `Bc4` for `Bxc4`: a piece move written without `x` to a square an
/// enemy piece holds, read as the capture. Every legal capture the token
/// fits is returned (not only a unique one), so that `Nd5` with two knights
/// able to take on d5 is reported as ambiguous, not as illegal.
fn capture_without_x(pos: &Chess, text: &str) -> Vec<Move> {
    let Ok(mut as_capture) = text.parse::<San>() else {
        return Vec::new();
    };
    match &mut as_capture {
        San::Normal { role, capture, .. } if *role != Role::Pawn && !*capture => *capture = true,
        _ => return Vec::new(),
    }
    pos.legal_moves()
        .into_iter()
        .filter(|m| as_capture.matches(*m))
        .collect()
}

/// `cd4`, `cd`, `ed5`, `dc4` (a pawn capture written as the two files and
/// perhaps the rank): every legal pawn capture from the first file to the
/// second (and that rank).
fn reduced_pawn_capture(pos: &Chess, text: &str) -> Vec<Move> {
    let mut chars = text.chars();
    let (Some(from), Some(to), rank, None) = (
        chars.next().and_then(File::from_char),
        chars.next().and_then(File::from_char),
        chars.next(),
        chars.next(),
    ) else {
        return Vec::new();
    };
    let rank = match rank {
        Some(c) => match Rank::from_char(c) {
            Some(rank) => Some(rank),
            None => return Vec::new(),
        },
        None => None,
    };
    if from.distance(to) != 1 {
        return Vec::new();
    }
    pos.legal_moves()
        .into_iter()
        .filter(|m| {
            m.role() == Role::Pawn
                && m.is_capture()
                && m.promotion().is_none()
                && m.from().is_some_and(|sq| sq.file() == from)
                && m.to().file() == to
                && rank.is_none_or(|r| m.to().rank() == r)
        })
        .collect()
}

/// `d1Q` → `d1=Q`, when the token is a pawn move ending in a piece letter.
fn with_promotion_sign(text: &str) -> Option<String> {
    let last = text.chars().last()?;
    let first = text.chars().next()?;
    if text.contains('=') || !matches!(last, 'Q' | 'R' | 'B' | 'N') || !first.is_ascii_lowercase() {
        return None;
    }
    Some(format!("{}={last}", &text[..text.len() - 1]))
}

fn san_move(pos: &Chess, text: &str) -> Option<Move> {
    let san: San = text.parse().ok()?;
    san.to_move(pos).ok()
}

/// `0-0`, `O-O`, `OO`, `0-0-0`, `O-O-O`, `OOO`.
fn castle(pos: &Chess, text: &str) -> Option<Move> {
    let letters: String = text
        .chars()
        .filter(|&c| c != '-')
        .map(|c| if c == '0' { 'O' } else { c })
        .collect();
    let side = match letters.as_str() {
        "OO" => CastlingSide::KingSide,
        "OOO" => CastlingSide::QueenSide,
        _ => return None,
    };
    San::Castle(side).to_move(pos).ok()
}

/// The token with a leading piece name (and a promotion piece) of
/// `language` written as SAN's letter; nothing when it has no such name.
fn translate(text: &str, language: &[(&str, char)]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, letter) in language {
        if let Some(rest) = text.strip_prefix(name) {
            out.push(format!("{letter}{rest}"));
        }
    }
    // A pawn move may end with a localized promotion piece.
    if let Some(c) = text.chars().next().filter(char::is_ascii_lowercase) {
        let _ = c;
        for (name, letter) in language {
            if let Some(rest) = text.strip_suffix(name) {
                out.push(format!("{rest}{letter}"));
            }
        }
        out.push(text.to_owned());
    }
    out
}

/// `e2-e4`, `Ng1-f3`, `Ng1xf3`, `Nf3:e5`, `e7-e8=Q`, `e2e4`, `e7e8q`: the
/// legal move from the origin to the destination; when no legal move
/// starts on that origin, the legal moves of the same piece to the same
/// destination (a wrong origin square).
fn long_algebraic(pos: &Chess, text: &str) -> Vec<Move> {
    let (role, rest) = match text.chars().next() {
        Some(c @ ('K' | 'Q' | 'R' | 'B' | 'N')) => {
            (Role::from_char(c.to_ascii_lowercase()), &text[1..])
        }
        Some('P') => (Some(Role::Pawn), &text[1..]),
        _ => (None, text),
    };
    let squares: String = rest
        .chars()
        .filter(|c| !matches!(c, '-' | 'x' | ':' | '='))
        .collect();
    let (Some(from), Some(to)) = (
        squares.get(0..2).and_then(|s| s.parse::<Square>().ok()),
        squares.get(2..4).and_then(|s| s.parse::<Square>().ok()),
    ) else {
        return Vec::new();
    };
    let promotion = squares
        .get(4..)
        .and_then(|p| p.chars().next())
        .and_then(|c| Role::from_char(c.to_ascii_lowercase()));
    let uci = UciMove::Normal {
        from,
        to,
        promotion,
    };
    // The named piece must be the one on the origin square.
    if let Ok(m) = uci.to_move(pos)
        && role.is_none_or(|r| r == m.role())
    {
        return vec![m];
    }
    // Castling written as the king's move.
    let plain = UciMove::Normal {
        from,
        to,
        promotion: None,
    };
    if let Ok(m) = plain.to_move(pos)
        && m.is_castle()
    {
        return vec![m];
    }
    let Some(role) = role.or_else(|| pos.board().role_at(from)) else {
        return Vec::new();
    };
    pos.legal_moves()
        .into_iter()
        .filter(|m| m.role() == role && m.to() == to && m.promotion() == promotion)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sans(start: &Chess, text: &str) -> Result<String, Box<RepairError>> {
        let repaired = repair(start, text)?;
        let out: Vec<String> = repaired.moves.iter().map(|m| m.san.to_string()).collect();
        Ok(out.join(" "))
    }

    #[test]
    fn every_notation_listed() {
        let start = Chess::default();
        let cases: [(&str, Option<&str>); 13] = [
            ("e2-e4 e7-e5 Ng1-f3 Nb8-c6", Some("e4 e5 Nf3 Nc6")),
            ("e2e4 e7e5 g1f3", Some("e4 e5 Nf3")),
            (
                "e4 e5 Nf3 Nc6 Bc4 Bc5 0-0",
                Some("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O"),
            ),
            (
                "e4 e5 Nf3 Nc6 Bc4 Bc5 OO",
                Some("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O"),
            ),
            ("e4 e5 ♘f3 ♞c6", Some("e4 e5 Nf3 Nc6")),
            (
                "e4 e5 Sf3 Sc6 Lc4 Lc5 De2",
                Some("e4 e5 Nf3 Nc6 Bc4 Bc5 Qe2"),
            ),
            ("e4 e5 Cf3 Cc6 Fc4", Some("e4 e5 Nf3 Nc6 Bc4")),
            ("e4 e5 Cf3 Cc6 Ac4", Some("e4 e5 Nf3 Nc6 Bc4")),
            ("e4 e5 Кf3 Кc6 Сc4 Фf6", Some("e4 e5 Nf3 Nc6 Bc4 Qf6")),
            ("ｅ４ ｅ５ 马ｆ３", Some("e4 e5 Nf3")),
            ("e4 d5 e：d5 后：d5", Some("e4 d5 exd5 Qxd5")),
            ("e4 e5 Kg1-f3", None),
            (
                "h4 g5 hxg5 h6 gxh6 Nf6 h7 Ng8 hxg8D",
                Some("h4 g5 hxg5 h6 gxh6 Nf6 h7 Ng8 hxg8=Q"),
            ),
        ];
        for (text, expected) in cases {
            let got = sans(&start, text).ok();
            assert_eq!(got.as_deref(), expected, "{text}");
        }
    }

    #[test]
    fn a_rewritten_token_that_parses_as_san_is_reported() {
        // shakmaty reads `c7c5` as a pawn move from c7: SAN writes `c5`.
        let start = Chess::default();
        assert_eq!(
            classes(&start, "1. e2e4 c7c5 2. g1f3"),
            vec![
                ("notation", Some(1), "e2e4 -> e4".to_owned()),
                ("notation", Some(2), "c7c5 -> c5".to_owned()),
                ("notation", Some(3), "g1f3 -> Nf3".to_owned()),
            ]
        );
    }

    /// Regression: `Rxf7++` (a double check, as old books write it) was
    /// rewritten `Rxf7+` without a word, and `import --repair` accepted
    /// the game with no repair named. A single `+` or `#`, even where SAN
    /// writes none, is not a repair (the strict path reads it).
    #[test]
    fn a_doubled_check_mark_is_reported() {
        let start = Chess::default();
        assert_eq!(
            classes(&start, "1. e4 f6 2. d4 g5 3. Qh5## 1-0"),
            vec![("notation", Some(5), "Qh5## -> Qh5#".to_owned())]
        );
        assert_eq!(
            classes(&start, "1. e4 f6 2. d4 g5 3. Qh5+# 1-0"),
            vec![("notation", Some(5), "Qh5+# -> Qh5#".to_owned())]
        );
        assert!(classes(&start, "1. e4 e5 2. Nf3+ 1-0").is_empty());
    }

    fn classes(start: &Chess, text: &str) -> Vec<(&'static str, Option<u32>, String)> {
        let repaired = repair(start, text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        repaired
            .repairs
            .into_iter()
            .map(|r| (r.class.as_str(), r.ply, r.detail))
            .collect()
    }

    #[test]
    fn reduced_pawn_captures_and_en_passant_marks() {
        let start = Chess::default();
        let text = "1. e4 d5 2. ed Qxd5 3. Nc3 Qa5 4. d4 c5 5. Nf3 cd4 6. Nxd4 e5";
        assert_eq!(
            sans(&start, text).ok().as_deref(),
            Some("e4 d5 exd5 Qxd5 Nc3 Qa5 d4 c5 Nf3 cxd4 Nxd4 e5")
        );
        assert_eq!(
            classes(&start, text),
            vec![
                ("reduced_pawn_capture", Some(3), "ed -> exd5".to_owned()),
                ("reduced_pawn_capture", Some(10), "cd4 -> cxd4".to_owned()),
            ]
        );
        let text = "1. e4 Nf6 2. e5 d5 3. exd6ep e5 4. d4 Ng8 5. dxe5 f5 6. exf6 e.p. *";
        assert_eq!(
            sans(&start, text).ok().as_deref(),
            Some("e4 Nf6 e5 d5 exd6 e5 d4 Ng8 dxe5 f5 exf6")
        );
        let found = classes(&start, text);
        assert_eq!(
            found,
            vec![
                ("en_passant_mark", Some(5), "\"ep\" dropped".to_owned()),
                ("en_passant_mark", Some(11), "\"e.p.\" dropped".to_owned()),
            ]
        );
        // The file pair with the destination rank, for either side.
        let text = "1. e4 d5 2. ed5 Nf6 3. d4 Nxd5 4. c4 Nb4 5. d5 c5 6. dc6 bc6";
        assert_eq!(
            sans(&start, text).ok().as_deref(),
            Some("e4 d5 exd5 Nf6 d4 Nxd5 c4 Nb4 d5 c5 dxc6 bxc6")
        );
        let text = "1. d4 d5 2. c4 dc4 3. e3 b5 4. a4 c6 5. ab5 cb5";
        assert_eq!(
            sans(&start, text).ok().as_deref(),
            Some("d4 d5 c4 dxc4 e3 b5 a4 c6 axb5 cxb5")
        );
        assert_eq!(
            classes(&start, text),
            vec![
                ("reduced_pawn_capture", Some(4), "dc4 -> dxc4".to_owned()),
                ("reduced_pawn_capture", Some(9), "ab5 -> axb5".to_owned()),
                ("reduced_pawn_capture", Some(10), "cb5 -> cxb5".to_owned()),
            ]
        );
        // Both the e4 and the c4 pawn take d5: `ed` names one.
        let pos = fen("4k3/8/8/3p4/2P1P3/8/8/4K3 w - - 0 1");
        assert!(repair(&pos, "ed").is_ok());
        // An `e.p.` after a move that is no en-passant capture is no repair.
        assert!(repair(&start, "1. e4 e.p. e5").is_err());
        // Two c-pawns that can both take towards the d-file: `cd` is not
        // guessed, `cd4` is exact.
        let pos = fen("4k3/8/3n4/2P5/3p4/2P5/8/4K3 w - - 0 1");
        assert!(repair(&pos, "cd").is_err_and(|e| e.ambiguous));
        assert!(repair(&pos, "cd4").is_ok());
        assert!(repair(&pos, "cd5").is_err_and(|e| !e.ambiguous));
    }

    fn fen(text: &str) -> Chess {
        text.parse::<shakmaty::fen::Fen>()
            .ok()
            .and_then(|f| f.into_position(shakmaty::CastlingMode::Standard).ok())
            .unwrap_or_else(|| panic!("{text}"))
    }

    #[test]
    fn piece_captures_without_x() {
        let start = Chess::default();
        let text = "1. d4 d5 2. c4 dxc4 3. e3 Nf6 4. Bc4 e6";
        assert_eq!(
            sans(&start, text).ok().as_deref(),
            Some("d4 d5 c4 dxc4 e3 Nf6 Bxc4 e6")
        );
        assert_eq!(
            classes(&start, text),
            vec![("capture_without_x", Some(7), "Bc4 -> Bxc4".to_owned())]
        );
        // Knights on b4 and f4 can both take the pawn on d5: `Nd5` fits two
        // captures and is not guessed; `Nbd5` names one.
        let pos = fen("4k3/8/8/3p4/1N3N2/8/8/4K3 w - - 0 1");
        let error = repair(&pos, "Nd5").err();
        assert_eq!(
            error.map(|e| (e.ply, e.token, e.ambiguous)),
            Some((1, "Nd5".to_owned(), true))
        );
        assert_eq!(sans(&pos, "Nbd5").ok().as_deref(), Some("Nbxd5"));
        assert_eq!(
            classes(&pos, "Nbd5"),
            vec![("capture_without_x", Some(1), "Nbd5 -> Nbxd5".to_owned())]
        );
    }

    #[test]
    fn results_glued_text_after_the_result_and_words_for_mate() {
        let start = Chess::default();
        let repaired =
            repair(&start, "1. e4 f5 2. g3 f4 3. gxf41-0").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(repaired.marker, Some(GameResult::WhiteWins));
        assert_eq!(repaired.moves.len(), 5);
        assert_eq!(
            classes(&start, "1. e4 f5 2. g3 f4 3. gxf41-0"),
            vec![(
                "move_glued_to_result",
                Some(5),
                "gxf41-0 -> gxf4".to_owned()
            )]
        );
        let text = "1. e4 e5 2. Nf3 Nc6 1/2-1/2 (second result)";
        let repaired = repair(&start, text).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(repaired.variations, 0);
        assert_eq!(
            repaired.moves.last().map(|m| m.comments.clone()),
            Some(vec!["(second result)".to_owned()])
        );
        assert_eq!(
            classes(&start, "1. e4 e5 1-0 n/a"),
            vec![(
                "text_after_result",
                Some(2),
                "\"n/a\" kept as a comment".to_owned()
            )]
        );
        assert_eq!(
            classes(&start, "1. e4 e5 1-0 bad"),
            vec![(
                "text_after_result",
                Some(2),
                "\"bad\" kept as a comment".to_owned()
            )]
        );
        // A comment after the result stays a comment, and is no repair.
        assert!(classes(&start, "1. e4 e5 1-0 {fine}").is_empty());
        let text = "1. f3 e5 2. g4 Qh4 matt 0-1";
        let repaired = repair(&start, text).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(repaired.marker, Some(GameResult::BlackWins));
        assert_eq!(
            classes(&start, text),
            vec![(
                "mate_or_resign_word",
                Some(4),
                "\"matt\" kept as a comment".to_owned()
            )]
        );
        assert_eq!(
            classes(&start, "1. e4 e5 2. Nf3 d6 3. d4 Resigns 1-0").len(),
            1
        );
    }

    /// Issue 34: repair and the import's token audit read result markers
    /// alike: before, repair failed on `0.5-0.5` and `½–½` and did not see
    /// `1–0` or `0–1` (en dashes) at all.
    #[test]
    fn repair_and_the_audit_agree_on_result_markers() {
        let start = Chess::default();
        for marker in [
            "0.5-0.5",
            "1\u{2013}0",
            "0\u{2013}1",
            "\u{bd}\u{2013}\u{bd}",
            "\u{bd}-\u{bd}",
            "1:0",
            "1/2",
            "1-0",
            "*",
        ] {
            let san = format!("1. e4 e5 2. Nf3 Nc6 {marker}");
            let audit = crate::pgn::movetext::scan(san.as_bytes(), 1).marker;
            assert!(audit.is_some(), "{marker}");
            for text in [san, format!("1. e2-e4 e7-e5 2. Ng1-f3 Nb8-c6 {marker}")] {
                let repaired = repair(&start, &text).map(|r| r.marker);
                assert_eq!(repaired.ok(), Some(audit), "{text}");
            }
        }
        // Glued to the last move, with an en dash too.
        for text in [
            "1. e4 f5 2. g3 f4 3. gxf41\u{2013}0",
            "1. e4 f5 2. g3 f4 3. gxf41:0",
        ] {
            let repaired = repair(&start, text).unwrap_or_else(|e| panic!("{e:?}"));
            assert_eq!(repaired.marker, Some(GameResult::WhiteWins), "{text}");
            assert_eq!(repaired.moves.len(), 5, "{text}");
        }
    }

    #[test]
    fn comments_and_variations_are_read_as_the_import_reads_them() {
        let start = Chess::default();
        // A `)` inside a comment of a variation does not end it.
        let text = "1. e4 (1. d4 {a ) b} d5) e5 $1 2. Nf3 *";
        let repaired = repair(&start, text).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!((repaired.moves.len(), repaired.variations), (3, 1));
        assert_eq!(repaired.moves.get(1).map(|m| m.nags.clone()), Some(vec![1]));
        // `$1x`: the NAG, then `x`, which no move fits.
        let text = "1. e4 e5 $1x 2. Nf3 *";
        assert_eq!(
            repair(&start, text).err().map(|e| e.token),
            Some("x".into())
        );
        // A `%` escape line is no movetext; `e4*` is a move and a result.
        let text = "1. e4\n% note\ne5 2. Nf3*";
        let repaired = repair(&start, text).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(repaired.moves.len(), 3);
        assert_eq!(repaired.marker, Some(GameResult::Unfinished));
        // A pawn's name in a comment is dropped, not written as a NUL.
        let text = "1. e4 {兵} e5 *";
        let repaired = repair(&start, text).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            repaired.moves.first().map(|m| m.comments.clone()),
            Some(vec![String::new()])
        );
    }

    #[test]
    fn a_failed_repair_keeps_the_moves_before_it() {
        let start = Chess::default();
        let text = "1. e4 e5 2. Nf3 Nc6 3. Qe8 Nf6 1-0";
        let error = repair(&start, text)
            .err()
            .unwrap_or_else(|| panic!("repaired"));
        assert_eq!((error.ply, error.token.as_str()), (5, "Qe8"));
        assert_eq!(text.get(error.offset..), Some("Qe8 Nf6 1-0"));
        assert_eq!(error.before.moves.len(), 4);
    }

    #[test]
    fn a_token_that_fits_two_moves_is_not_guessed() {
        // A rook "from h1" (empty) to d1: the rooks on a1 and f1 both fit.
        let pos: Chess = "4k3/8/8/8/8/8/8/R3KR2 w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .ok()
            .and_then(|f| f.into_position(shakmaty::CastlingMode::Standard).ok())
            .unwrap_or_default();
        let error = repair(&pos, "Rh1-d1").err();
        assert_eq!(error.map(|e| e.ambiguous), Some(true));
    }
}
