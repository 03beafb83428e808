//! PGN stage, token audit: pgn-reader skips movetext tokens it does not
//! understand, so a game like `1. e4 Zz9 e5` would look clean. This scanner
//! walks a game's raw movetext and classifies every token, so that such games
//! are rejected with the token and its line. It also reads the termination
//! marker, including the common non-standard spellings (`1:0`, `½-½`, ...).
//! It reads tokens through [`super::lexer`], the one movetext lexer.

use shakmaty::san::SanPlus;

use crate::pgn::lexer::{Lexer, Token, TokenKind, is_common_san};
use crate::pgn::result::GameResult;

/// The kind of a movetext problem found by the scanner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenProblemKind {
    /// Not any kind of PGN token.
    Unknown,
    /// Shaped like SAN (`Nf9`, `e9`, `Qxi4`) but not valid SAN.
    UnparsableSan,
    /// A `{` comment that never closes.
    UnterminatedComment,
    /// Text after the termination marker.
    AfterResult,
    /// Text left over on a tag line (an unescaped quote, a missing `]`).
    TagLine,
}

/// The first problem token of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TokenProblem {
    pub kind: TokenProblemKind,
    pub token: String,
    pub line: u64,
    /// Ply of the mainline move the token stands before (1-based).
    pub ply: u32,
}

/// What the scanner learned about a game's movetext.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MovetextReport {
    /// Number of SAN tokens in the mainline (outside variations).
    pub mainline_moves: u32,
    /// The termination marker, normalised.
    pub marker: Option<GameResult>,
    pub problem: Option<TokenProblem>,
}

/// What the audit makes of a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    San(&'a [u8]),
    Result(GameResult),
    Open,
    Close,
    Unknown(&'a [u8], TokenProblemKind),
}

/// What the audit makes of a token; None for what it steps over
/// (comments, NAGs, move numbers, escapes). Inlined: it runs for every
/// token of the import.
#[inline(always)]
fn audit<'a>(token: &Token<'a>) -> Option<Tok<'a>> {
    let text = token.text;
    Some(match token.kind {
        TokenKind::San => Tok::San(text),
        TokenKind::Word => classify_word(text),
        TokenKind::Result(result) => Tok::Result(result),
        TokenKind::Open => Tok::Open,
        TokenKind::Close => Tok::Close,
        TokenKind::UnterminatedComment => Tok::Unknown(b"{", TokenProblemKind::UnterminatedComment),
        TokenKind::BadAnnotation => Tok::Unknown(text, TokenProblemKind::Unknown),
        // The audit has always named a stray `}` with an empty token.
        TokenKind::StrayBrace => Tok::Unknown(b"", TokenProblemKind::Unknown),
        TokenKind::MoveNumber
        | TokenKind::Comment
        | TokenKind::LineComment
        | TokenKind::Escape
        | TokenKind::Nag
        | TokenKind::Suffix => return None,
    })
}

/// Classifies a word that is no everyday SAN, move number or result
/// ([`kind_of_word`]): a move number glued to a move (`1.e4`), SAN, or a
/// problem.
fn classify_word(word: &[u8]) -> Tok<'_> {
    // Move numbers, possibly glued to the move: `12.`, `12...`, `1.e4`.
    let digits = word.iter().take_while(|c| c.is_ascii_digit()).count();
    let san = if digits > 0 && !word.starts_with(b"0-0") {
        let rest = &word[digits..];
        let dots = rest.iter().take_while(|&&c| c == b'.').count();
        match rest.get(dots..) {
            Some([]) | None => return Tok::San(b""),
            Some(after) if dots > 0 => after,
            Some(_) => word,
        }
    } else {
        word
    };
    if is_common_san(san) || SanPlus::from_ascii(san).is_ok() || is_zero_castling(san) {
        Tok::San(san)
    } else if looks_like_san(san) {
        Tok::Unknown(word, TokenProblemKind::UnparsableSan)
    } else {
        Tok::Unknown(word, TokenProblemKind::Unknown)
    }
}

/// `0-0` and `0-0-0`, which pgn-reader reads as castling.
fn is_zero_castling(word: &[u8]) -> bool {
    let body = word
        .strip_suffix(b"+")
        .or(word.strip_suffix(b"#"))
        .unwrap_or(word);
    body == b"0-0" || body == b"0-0-0"
}

/// SAN shape: optional piece letter, optional disambiguation, optional
/// capture, a letter-digit destination, optional promotion and check.
fn looks_like_san(word: &[u8]) -> bool {
    let mut rest = word;
    if let [b'K' | b'Q' | b'R' | b'B' | b'N' | b'P', tail @ ..] = rest {
        rest = tail;
    }
    while let [c, tail @ ..] = rest {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'x' || *c == b':' {
            rest = tail;
        } else {
            break;
        }
    }
    // Promotion, also without `=` (`d1Q`), which shakmaty does not accept.
    match rest {
        [b'=', p, tail @ ..] | [p, tail @ ..] if p.is_ascii_uppercase() => rest = tail,
        _ => {}
    }
    if let [b'+' | b'#', tail @ ..] = rest {
        rest = tail;
    }
    let body = &word[..word.len() - rest.len()];
    rest.is_empty()
        && body.iter().any(|c| c.is_ascii_lowercase())
        && body.iter().any(|c| c.is_ascii_digit())
}

/// Bytes of an offending token kept in its [`TokenProblem`].
pub(crate) const MAX_TOKEN_BYTES: usize = 1024;

/// Scans a whole game (the audit alone).
pub(crate) fn scan(game: &[u8], first_line: u64) -> MovetextReport {
    scan_into(game, first_line, &mut AuditOnly).report
}

/// What a walk over the movetext does with the mainline's tokens besides
/// auditing them: nothing for the audit alone ([`scan`]); the one-pass
/// parse of the import hands them to its visitor, so that the movetext is
/// walked once.
pub(crate) trait Mainline {
    /// Whether comments and NAGs are wanted (the lexer then returns them).
    const NOTES: bool;
    /// A mainline move (`text` is SAN the audit accepted); false when it
    /// is not a move after all.
    fn san(&mut self, text: &[u8]) -> bool;
    /// A NAG or a move suffix (`!` is 1, as pgn-reader reads them) after a
    /// mainline move or before the first.
    fn nag(&mut self, nag: u8);
    /// A comment of the mainline, without its braces.
    fn comment(&mut self, text: &[u8]);
}

/// The audit alone.
struct AuditOnly;

impl Mainline for AuditOnly {
    const NOTES: bool = false;
    fn san(&mut self, _: &[u8]) -> bool {
        true
    }
    fn nag(&mut self, _: u8) {}
    fn comment(&mut self, _: &[u8]) {}
}

/// What a walk over a game's tokens found.
pub(crate) struct Scanned {
    pub report: MovetextReport,
    /// Where the lexer's movetext starts (after its skip of the tag lines).
    pub movetext_start: usize,
    /// Where pgn-reader would stop reading that movetext: after a line
    /// break, outside comments, followed by a blank line or a tag line
    /// (None when no such break is in the game's bytes).
    pub stops_at: Option<usize>,
}

/// Scans a whole game, handing its mainline to `mainline`.
pub(crate) fn scan_into<M: Mainline>(game: &[u8], first_line: u64, mainline: &mut M) -> Scanned {
    let mut tokens = Lexer::game(game, first_line);
    tokens.all_tokens = M::NOTES;
    let movetext_start = tokens.pos;
    let (report, depth) = audit_movetext(&mut tokens, mainline);
    if report.problem.is_some() {
        // The game is rejected; its reason still depends on the rest: a
        // frame without tags is text between games only if pgn-reader
        // finds no move in it either, and a frame it would read as two
        // games has a malformed tag section.
        hand_rest(&mut tokens, depth, mainline);
    }
    Scanned {
        report,
        movetext_start,
        stops_at: tokens.first_break,
    }
}

/// Hands the mainline moves after a problem to `mainline`.
fn hand_rest<M: Mainline>(tokens: &mut Lexer<'_>, mut depth: usize, mainline: &mut M) {
    while let Some(token) = tokens.next_token() {
        match audit(&token) {
            Some(Tok::Open) => depth += 1,
            Some(Tok::Close) => depth = depth.saturating_sub(1),
            Some(Tok::San(san)) if depth == 0 && !san.is_empty() => {
                mainline.san(san);
            }
            _ => {}
        }
    }
}

/// The audit's walk over the tokens, up to the first problem; the depth of
/// variations it stopped in.
fn audit_movetext<M: Mainline>(
    tokens: &mut Lexer<'_>,
    mainline: &mut M,
) -> (MovetextReport, usize) {
    let mut report = MovetextReport::default();
    let mut depth = 0usize;
    let problem = |kind, token: &[u8], line, ply| TokenProblem {
        kind,
        // The head is enough to name it; a token can be megabytes long.
        token: crate::pgn::encoding::decode(token.get(..MAX_TOKEN_BYTES).unwrap_or(token)).0,
        line,
        ply,
    };
    while let Some(token) = tokens.next_token() {
        let Some(tok) = audit(&token) else {
            if M::NOTES && depth == 0 {
                hand_note(&token, mainline);
            }
            continue;
        };
        let line = token.line;
        let ply = report.mainline_moves + 1;
        if report.marker.is_some() {
            // Anything after the termination marker does not belong to the game.
            let text = match tok {
                Tok::San(b"") => continue,
                Tok::San(s) | Tok::Unknown(s, _) => s,
                Tok::Result(_) => b"(second result)".as_slice(),
                Tok::Open => b"(",
                Tok::Close => b")",
            };
            report.problem = Some(problem(TokenProblemKind::AfterResult, text, line, ply));
            return (report, depth);
        }
        match tok {
            Tok::San(b"") => {}
            Tok::San(s) if depth == 0 => {
                if !mainline.san(s) {
                    report.problem = Some(problem(TokenProblemKind::UnparsableSan, s, line, ply));
                    return (report, depth);
                }
                report.mainline_moves += 1;
            }
            Tok::San(_) => {}
            Tok::Open => depth += 1,
            Tok::Close if depth == 0 => {
                report.problem = Some(problem(TokenProblemKind::Unknown, b")", line, ply));
                return (report, depth);
            }
            Tok::Close => depth -= 1,
            Tok::Result(r) if depth == 0 => report.marker = Some(r),
            Tok::Result(_) => {}
            Tok::Unknown(s, kind) => {
                let kind = if tokens.last_tag_line == Some(line) {
                    TokenProblemKind::TagLine
                } else {
                    kind
                };
                report.problem = Some(problem(kind, s, line, ply));
                return (report, depth);
            }
        }
    }
    if depth > 0 {
        let ply = report.mainline_moves + 1;
        report.problem = Some(problem(TokenProblemKind::Unknown, b"(", tokens.line, ply));
    }
    (report, depth)
}

/// Hands a mainline comment, NAG or suffix to `mainline`, as pgn-reader
/// reads them: a NAG over 255 is no NAG.
fn hand_note<M: Mainline>(token: &Token<'_>, mainline: &mut M) {
    let text = token.text;
    match token.kind {
        TokenKind::Comment => {
            // A comment token holds both its braces.
            let inner = &text[1..text.len() - 1];
            mainline.comment(inner);
        }
        TokenKind::Nag => {
            // After the `$`.
            let digits = &text[1..];
            let value = digits.iter().try_fold(0u8, |n, &d| {
                n.checked_mul(10)?.checked_add(d.wrapping_sub(b'0'))
            });
            if let Some(nag) = value {
                mainline.nag(nag);
            }
        }
        TokenKind::Suffix => mainline.nag(match text {
            b"!" => 1,
            b"?" => 2,
            b"!!" => 3,
            b"??" => 4,
            b"!?" => 5,
            _ => 6,
        }),
        _ => {}
    }
}

/// A SAN token the audit accepted, as pgn-reader reads it: `0-0` and
/// `0-0-0` are castling, with a check or mate suffix, and digits before a
/// move are a move number (`1h5` is `h5`, not a pawn from the first rank).
pub(crate) fn parse_san(text: &[u8]) -> Option<SanPlus> {
    if is_zero_castling(text) {
        let suffix = match text.last() {
            Some(b'+') => Some(shakmaty::san::Suffix::Check),
            Some(b'#') => Some(shakmaty::san::Suffix::Checkmate),
            _ => None,
        };
        let side = if text.starts_with(b"0-0-0") {
            shakmaty::CastlingSide::QueenSide
        } else {
            shakmaty::CastlingSide::KingSide
        };
        return Some(SanPlus {
            san: shakmaty::san::San::Castle(side),
            suffix,
        });
    }
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    SanPlus::from_ascii(&text[digits..]).ok()
}

/// Line and text of the mainline SAN token for `ply` (1-based), to locate
/// illegal moves found during replay.
pub(crate) fn locate_mainline_ply(game: &[u8], first_line: u64, ply: u32) -> Option<(u64, String)> {
    let mut depth = 0usize;
    let mut seen = 0u32;
    for token in Lexer::game(game, first_line).moves_and_problems() {
        let line = token.line;
        match audit(&token) {
            None => {}
            Some(Tok::Open) => depth += 1,
            Some(Tok::Close) => depth = depth.saturating_sub(1),
            Some(Tok::San(s)) if depth == 0 && !s.is_empty() => {
                seen += 1;
                if seen == ply {
                    return Some((line, String::from_utf8_lossy(s).into_owned()));
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::tag_line::quick_tags;

    fn problem(text: &str) -> Option<(TokenProblemKind, String, u64, u32)> {
        scan(text.as_bytes(), 1)
            .problem
            .map(|p| (p.kind, p.token, p.line, p.ply))
    }

    #[test]
    fn clean_movetext_has_no_problem() {
        let text = "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 $1 e5!? 2.Nf3 {a (b} (2. d4 exd4) 2... Nc6?? ; c\n% esc\n3. Bb5 a6 1-0\n";
        let report = scan(text.as_bytes(), 1);
        assert_eq!(report.problem, None);
        assert_eq!(report.mainline_moves, 6);
        assert_eq!(report.marker, Some(GameResult::WhiteWins));
    }

    #[test]
    fn unknown_tokens_are_found_with_line_and_ply() {
        assert_eq!(
            problem("1. e4 Zz9 e5 2. Nf3 *"),
            Some((TokenProblemKind::Unknown, "Zz9".into(), 1, 2))
        );
        assert_eq!(
            problem("[A \"b\"]\n\n1. e4 e5\n2. e2-e4 *"),
            Some((TokenProblemKind::Unknown, "e2-e4".into(), 4, 3))
        );
        assert_eq!(
            problem("1. e4 马f6 *"),
            Some((TokenProblemKind::Unknown, "马f6".into(), 1, 2))
        );
        assert_eq!(
            problem("1. e4 Nf9 *"),
            Some((TokenProblemKind::UnparsableSan, "Nf9".into(), 1, 2))
        );
        assert_eq!(
            problem("1. e4 d5 2. exd5 c6 51.d6Q *").map(|p| (p.0, p.1)),
            Some((TokenProblemKind::UnparsableSan, "d6Q".into()))
        );
        assert_eq!(problem("1. e4 $x *").map(|p| p.1), Some("$x".into()));
        assert_eq!(problem("1. e4 e5 ) *").map(|p| p.1), Some(")".into()));
        assert_eq!(
            problem("1. e4 e5 1-0 Nf3").map(|p| (p.0, p.1)),
            Some((TokenProblemKind::AfterResult, "Nf3".into()))
        );
        assert_eq!(
            problem("1. e4 {never closed").map(|p| p.0),
            Some(TokenProblemKind::UnterminatedComment)
        );
    }

    #[test]
    fn tag_section_ends_where_pgn_reader_ends_it() {
        let text = "[Event \"a\\\"b\"]<br />[Site \"x\"]\n1. e4 *";
        assert_eq!(problem(text).map(|p| p.1), Some("<br".into()));
        let report = scan(b"[A \"1\"] [B \"2\"]\n[C \"]\"]\n\n1. e4 e5 *", 1);
        assert_eq!((report.problem, report.mainline_moves), (None, 2));
        assert_eq!(
            problem("[White \"\"So\"\"]\n1. e4 *").map(|p| p.1),
            Some("So\"\"]".into())
        );
    }

    #[test]
    fn quick_tags_read_simple_headers() {
        let tags = quick_tags(b"[Event \"A \\\"b\\\"\"]\n[White \"M\xfcller\"]\n\n1. e4 { open");
        assert_eq!(
            tags,
            vec![
                ("Event".to_string(), "A \\\"b\\\"".to_string()),
                ("White".to_string(), "Müller".to_string())
            ]
        );
    }

    #[test]
    fn nonstandard_markers_and_null_moves() {
        assert_eq!(scan(b"1. e4 1:0", 1).marker, Some(GameResult::WhiteWins));
        assert_eq!(
            scan("1. e4 ½-½".as_bytes(), 1).marker,
            Some(GameResult::Draw)
        );
        assert_eq!(scan(b"1. e4 0.5-0.5", 1).marker, Some(GameResult::Draw));
        assert_eq!(scan(b"1. e4 -- 2. Nf3 Z0 *", 1).problem, None);
        assert_eq!(scan(b"1. O-O 0-0-0 *", 1).mainline_moves, 2);
    }

    #[test]
    fn en_dash_markers_are_results() {
        // Issue 34: one list of spellings, GameResult's, for every reader.
        for (marker, result) in [
            ("1\u{2013}0", GameResult::WhiteWins),
            ("0\u{2013}1", GameResult::BlackWins),
            ("\u{bd}\u{2013}\u{bd}", GameResult::Draw),
            ("0.5-0.5", GameResult::Draw),
        ] {
            let report = scan(format!("1. e4 e5 {marker}").as_bytes(), 1);
            assert_eq!((report.marker, report.problem), (Some(result), None));
        }
    }

    #[test]
    fn the_lexer_names_every_token_with_its_place() {
        let text = "1. e4 {a\nb} e5!? $1 (1... c5) 2.Nf3 ; c\n%esc\nZz9 $x } 0.5-0.5 *";
        let tokens: Vec<(TokenKind, &str, usize, u64)> = Lexer::movetext(text.as_bytes(), 1)
            .map(|t| {
                (
                    t.kind,
                    std::str::from_utf8(t.text).unwrap_or("?"),
                    t.start,
                    t.line,
                )
            })
            .collect();
        use TokenKind::*;
        let draw = Result(GameResult::Draw);
        assert_eq!(
            tokens,
            vec![
                (MoveNumber, "1.", 0, 1),
                (San, "e4", 3, 1),
                (Comment, "{a\nb}", 6, 1),
                (San, "e5", 12, 2),
                (Suffix, "!?", 14, 2),
                (Nag, "$1", 17, 2),
                (Open, "(", 20, 2),
                (MoveNumber, "1...", 21, 2),
                (San, "c5", 26, 2),
                (Close, ")", 28, 2),
                (MoveNumber, "2.", 30, 2),
                (San, "Nf3", 32, 2),
                (LineComment, "; c", 36, 2),
                (Escape, "%esc", 40, 3),
                (Word, "Zz9", 45, 4),
                (BadAnnotation, "$x", 49, 4),
                (StrayBrace, "}", 52, 4),
                (draw, "0.5-0.5", 54, 4),
                (Result(GameResult::Unfinished), "*", 62, 4),
            ]
        );
        let unterminated = Lexer::movetext(b"e4 {open", 1).last().map(|t| t.kind);
        assert_eq!(unterminated, Some(UnterminatedComment));
    }

    #[test]
    fn common_san_fast_path_agrees_with_shakmaty() {
        for word in [
            "e4", "exd5", "e8=Q", "exd8=N+", "Nf3", "Nbd7", "R1a3", "Qh4e1#", "Kxe2", "O-O",
            "O-O-O+", "Bxf7+",
        ] {
            assert!(is_common_san(word.as_bytes()), "{word}");
            assert!(SanPlus::from_ascii(word.as_bytes()).is_ok(), "{word}");
        }
        for word in [
            "e9", "i4", "Nf3Nf3", "Zz9", "e2-e4", "Kxe", "x", "e8=K", "O-O-O-O", "",
        ] {
            assert!(!is_common_san(word.as_bytes()), "{word}");
        }
    }

    #[test]
    fn locates_a_mainline_ply() {
        let text = b"1. e4 (1. d4 d5) e5\n2. Nf3 *";
        assert_eq!(
            locate_mainline_ply(text, 10, 3),
            Some((11, "Nf3".to_string()))
        );
    }
}
