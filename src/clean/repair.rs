//! Archivist mode, notation repair (`clean --repair`): a game whose movetext
//! is not SAN (long algebraic, UCI, castling with zeros, figurines,
//! localized piece letters, Chinese scoresheet notation, full-width forms, a
//! wrong origin square) is read again token by token; a token is accepted
//! only when exactly one legal move fits it.

use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingSide, Chess, Move, Position, Role, Square};

use crate::pgn::result::GameResult;

/// A game read through repair.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Repaired {
    /// The moves in order; NAGs and comments that followed each.
    pub moves: Vec<RepairedMove>,
    pub leading_comments: Vec<String>,
    /// The result marker, normalised, when the movetext has one.
    pub marker: Option<GameResult>,
    /// Variations met (not replayed by repair: they are dropped).
    pub variations: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairedMove {
    pub m: Move,
    /// Its SAN, with `+` / `#`.
    pub san: SanPlus,
    /// The token as written, when it was not already the move's SAN.
    pub original: Option<String>,
    pub nags: Vec<u8>,
    pub comments: Vec<String>,
}

/// Why a repair failed: the token and its ply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairError {
    pub ply: u32,
    pub token: String,
    pub ambiguous: bool,
}

/// Reads `movetext` from `start`, repairing every token that is not SAN.
pub fn repair(start: &Chess, movetext: &str) -> Result<Repaired, RepairError> {
    let mut pos = start.clone();
    let mut out = Repaired::default();
    for token in tokenize(movetext) {
        match token {
            Token::Comment(c) => match out.moves.last_mut() {
                Some(m) => m.comments.push(c),
                None => out.leading_comments.push(c),
            },
            Token::Nag(n) => {
                if let Some(m) = out.moves.last_mut() {
                    m.nags.push(n);
                }
            }
            Token::Variation => out.variations += 1,
            Token::Result(r) => out.marker = Some(r),
            Token::Move(word, raw) => {
                let ply = out.moves.len() as u32 + 1;
                let error = |ambiguous| RepairError {
                    ply,
                    token: word.clone(),
                    ambiguous,
                };
                let m = match candidates(&pos, &word).as_slice() {
                    [one] => *one,
                    [] => return Err(error(false)),
                    _ => return Err(error(true)),
                };
                let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
                let text = san.to_string();
                let plain = |s: &str| s.trim_end_matches(['+', '#']).to_owned();
                let original = (plain(&raw) != plain(&text)).then(|| raw.trim().to_owned());
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
    /// The move as SAN letters, and as written.
    Move(String, String),
    Nag(u8),
    Comment(String),
    Variation,
    Result(GameResult),
}

/// Splits normalised movetext into moves, NAGs, comments, variations and
/// the result. A piece letter followed by spaces and a square is one move
/// (`Q h7`), and a check mark ends a move (`h7+Kf7`).
fn tokenize(text: &str) -> Vec<Token> {
    // Each character normalised, beside the one written.
    let pairs: Vec<(char, char)> = text
        .chars()
        .map(|c| (normalize(c).unwrap_or('\u{0}'), c))
        .collect();
    let chars: Vec<char> = pairs.iter().map(|p| p.0).collect();
    let raw: Vec<char> = pairs.iter().map(|p| p.1).collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '{' => {
                let end = (i..chars.len())
                    .find(|&j| chars[j] == '}')
                    .unwrap_or(chars.len());
                let body: String = chars.get(i + 1..end).unwrap_or_default().iter().collect();
                tokens.push(Token::Comment(
                    body.split_whitespace().collect::<Vec<_>>().join(" "),
                ));
                i = end + 1;
            }
            ';' => {
                while chars.get(i).is_some_and(|&c| c != '\n') {
                    i += 1;
                }
            }
            '(' => {
                let mut depth = 0;
                while let Some(&c) = chars.get(i) {
                    depth += i32::from(c == '(') - i32::from(c == ')');
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                tokens.push(Token::Variation);
            }
            '$' => {
                let digits: String = chars[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                i += 1 + digits.len();
                if let Ok(n) = digits.parse() {
                    tokens.push(Token::Nag(n));
                }
            }
            '!' | '?' => {
                let marks: String = chars[i..]
                    .iter()
                    .take_while(|c| matches!(c, '!' | '?'))
                    .collect();
                i += marks.chars().count();
                let nag = match marks.as_str() {
                    "!" => Some(1),
                    "?" => Some(2),
                    "!!" => Some(3),
                    "??" => Some(4),
                    "!?" => Some(5),
                    "?!" => Some(6),
                    _ => None,
                };
                tokens.extend(nag.map(Token::Nag));
            }
            c if c.is_whitespace() || c == '+' || c == '#' || c == '.' || c == '\u{0}' => i += 1,
            _ => {
                let (word, next) = read_word(&chars, i);
                let written: String = raw.get(i..next).unwrap_or_default().iter().collect();
                i = next.max(i + 1);
                if let Some(token) = classify(&word, &written) {
                    tokens.push(token);
                }
            }
        }
    }
    tokens
}

/// A move-like word from `start`: letters, digits and `-x:=/`, a space
/// allowed after a leading piece letter, ended by a check mark (kept).
fn read_word(chars: &[char], start: usize) -> (String, usize) {
    let mut word = String::new();
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        if c == '\u{0}' {
            // A pawn's name: nothing in SAN.
            i += 1;
        } else if c.is_alphanumeric() || matches!(c, '-' | 'x' | ':' | '=' | '/' | '*' | '½') {
            word.push(c);
            i += 1;
        } else if c.is_whitespace()
            && word.chars().count() <= 2
            && word.chars().all(char::is_uppercase)
            && !word.is_empty()
        {
            // `Q h7`, `Кр e1`: the square follows the piece after a space.
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

fn classify(word: &str, written: &str) -> Option<Token> {
    let bare = word.trim_end_matches(['+', '#']);
    if bare.is_empty() {
        return None;
    }
    match bare {
        "1-0" | "1:0" => return Some(Token::Result(GameResult::WhiteWins)),
        "0-1" | "0:1" => return Some(Token::Result(GameResult::BlackWins)),
        "1/2-1/2" | "½-½" | "1/2" | "1/2:1/2" => return Some(Token::Result(GameResult::Draw)),
        "*" => return Some(Token::Result(GameResult::Unfinished)),
        _ => {}
    }
    // A move number glued to nothing (`12`), or `12.` already split.
    if bare.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(Token::Move(word.to_owned(), written.to_owned()))
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

/// Every legal move the token can mean, without repeats. Valid SAN that is
/// legal wins outright; otherwise every notation is tried.
fn candidates(pos: &Chess, word: &str) -> Vec<Move> {
    let bare = word.trim_end_matches(['+', '#']);
    if let Some(m) = san_move(pos, bare) {
        return vec![m];
    }
    let mut found = Vec::new();
    let mut add = |m: Move| {
        if !found.contains(&m) {
            found.push(m);
        }
    };
    if let Some(m) = castle(pos, bare) {
        add(m);
    }
    // `：` (read as `:`) marks a capture as `x` does.
    if bare.contains(':')
        && let Some(m) = san_move(pos, &bare.replace(':', "x"))
    {
        add(m);
    }
    for language in LANGUAGES {
        for translated in translate(bare, language) {
            if let Some(m) = san_move(pos, &translated) {
                add(m);
            }
            // A promotion written without `=` (`d1Q`, `exd8D`).
            if let Some(m) = with_promotion_sign(&translated).and_then(|t| san_move(pos, &t)) {
                add(m);
            }
            for m in long_algebraic(pos, &translated) {
                add(m);
            }
        }
    }
    found
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

    fn sans(start: &Chess, text: &str) -> Result<String, RepairError> {
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
