//! The per-game path, notation repair: every legal move one token can
//! mean (valid SAN first; then a capture without `x`, a reduced pawn
//! capture, castling with zeros, piece letters of other languages, a
//! promotion without `=`, long algebraic and UCI, a wrong origin square),
//! each with the class of fault it mends.

use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingSide, Chess, File, Move, Position, Rank, Role, Square};

use super::RepairClass;

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
pub(super) fn candidates(pos: &Chess, word: &str) -> Vec<(Move, Option<RepairClass>)> {
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

    fn read(pos: &Chess, word: &str) -> Vec<(String, Option<&'static str>)> {
        candidates(pos, word)
            .into_iter()
            .map(|(m, class)| {
                let san = San::from_move(pos, m).to_string();
                (san, class.map(RepairClass::as_str))
            })
            .collect()
    }

    #[test]
    fn valid_san_wins_outright() {
        let start = Chess::default();
        assert_eq!(read(&start, "e4"), vec![("e4".to_owned(), None)]);
        assert_eq!(read(&start, "Nf3+"), vec![("Nf3".to_owned(), None)]);
    }

    #[test]
    fn every_reading_of_another_notation_is_tried() {
        let start = Chess::default();
        let notation = Some("notation");
        assert_eq!(read(&start, "g1f3"), vec![("Nf3".to_owned(), notation)]);
        assert_eq!(read(&start, "Sf3"), vec![("Nf3".to_owned(), notation)]);
        assert_eq!(read(&start, "e2-e4"), vec![("e4".to_owned(), notation)]);
        assert!(read(&start, "Qe8").is_empty());
    }

    #[test]
    fn small_readings() {
        assert_eq!(with_promotion_sign("d1Q").as_deref(), Some("d1=Q"));
        assert_eq!(with_promotion_sign("Nd1"), None);
        assert_eq!(translate("Sf3", LANGUAGES[0]), vec!["Nf3".to_owned()]);
        assert_eq!(
            translate("e8D", LANGUAGES[0]),
            vec!["e8Q".to_owned(), "e8D".to_owned()]
        );
    }
}
