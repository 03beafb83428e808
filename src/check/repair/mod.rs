//! The per-game path, notation repair (`clean --repair`, `import
//! --repair`): a game whose movetext is not SAN (long algebraic, UCI,
//! castling with zeros, figurines, localized piece letters, Chinese scoresheet notation, full-width forms, a
//! wrong origin square, reduced pawn captures `cd4`, captures without `x`,
//! en-passant marks, a move glued to the result, text after the result, a
//! word for mate or resigns) is read again token by token; a token is
//! accepted only when exactly one legal move fits it. Where a token fits no
//! move, the moves before it are kept for `--salvage`.

//!
//! Three rooms: `tokens` reads the movetext into repair's tokens (the
//! characters normalised, the import's lexer between), `candidates` lists
//! the legal moves one token can mean, and this file plays them in order.

mod candidates;
mod tokens;

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Move};

use crate::pgn::result::GameResult;
use candidates::candidates;
use tokens::{Token, tokenize};

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
            .unwrap_or_else(|| panic!("the position"));
        let error = repair(&pos, "Rh1-d1").err();
        assert_eq!(error.map(|e| e.ambiguous), Some(true));
    }
}
