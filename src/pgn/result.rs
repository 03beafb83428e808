//! PGN stage, results: the declared result of a game, normalised from the
//! many ways PGN files write it. The one place that knows the spellings of
//! a result marker: the token audit, the framer and `clean --repair` all
//! ask here.

/// A game result as written in PGN, normalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    Unfinished,
}

impl GameResult {
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unfinished => "*",
        }
    }

    /// Normalises a result as written in a tag or as a movetext marker:
    /// `1-0`, `1:0`; `0-1`, `0:1`; `1/2-1/2`, `1/2`, `½-½`, `0.5-0.5`,
    /// `1/2:1/2`; `*`. En and em dashes count as dashes.
    pub(crate) fn from_marker(text: &[u8]) -> Option<GameResult> {
        // Fast path: every token of every game passes through here.
        match text.trim_ascii() {
            b"1-0" | b"1:0" => Some(GameResult::WhiteWins),
            b"0-1" | b"0:1" => Some(GameResult::BlackWins),
            b"1/2-1/2" | b"1/2" | b"0.5-0.5" | b"1/2:1/2" => Some(GameResult::Draw),
            b"*" => Some(GameResult::Unfinished),
            ascii if ascii.is_ascii() => None,
            other => Self::from_unicode_marker(other),
        }
    }

    /// The result marker `text` ends with, glued to what precedes it or not
    /// (`gxf41-0`, `Nc6 1–0`, `e4*`), and the byte offset where it starts:
    /// `*` or a two-sided spelling of [`GameResult::from_marker`]. A lone
    /// `1/2` or `½` is not taken: it may be the first half of a marker cut
    /// short (`1/2-1/2` broken off by the end of an input).
    pub(crate) fn suffix_of(text: &[u8]) -> Option<(usize, GameResult)> {
        let text = text.trim_ascii_end();
        // The longest spelling, `1/2–1/2`, is 9 bytes; the longest suffix
        // that reads as a marker wins (`1/2-1/2`, not `/2-1/2`).
        let shortest = text.len().saturating_sub(MAX_MARKER_BYTES);
        (shortest..text.len()).find_map(|at| {
            let suffix = text.get(at..)?;
            let result = Self::from_marker(suffix)?;
            let two_sided = result == GameResult::Unfinished || has_separator(suffix);
            // `from_marker` trims: a suffix starts on the marker itself.
            let on_marker = suffix.first().is_some_and(|b| !b.is_ascii_whitespace());
            (two_sided && on_marker).then_some((at, result))
        })
    }

    /// `½-½`, `½`, and results written with en or em dashes.
    fn from_unicode_marker(text: &[u8]) -> Option<GameResult> {
        let text = std::str::from_utf8(text).ok()?.trim();
        let text = text
            .replace(['\u{2013}', '\u{2014}'], "-")
            .replace('½', "1/2");
        match text.as_str() {
            "1/2-1/2" | "1/2" | "1/2:1/2" => Some(GameResult::Draw),
            ascii if ascii.is_ascii() => Self::from_marker(ascii.as_bytes()),
            _ => None,
        }
    }
}

/// Bytes of the longest marker spelling, `1/2–1/2` (an en dash is 3 bytes).
const MAX_MARKER_BYTES: usize = 9;

/// Does a marker spelling separate its two sides (`-`, `:`, en or em dash)?
fn has_separator(marker: &[u8]) -> bool {
    let dash = |w: &[u8]| w == "\u{2013}".as_bytes() || w == "\u{2014}".as_bytes();
    marker.iter().any(|&b| b == b'-' || b == b':') || marker.windows(3).any(dash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_known_spellings() {
        for (text, expected) in [
            ("1-0", GameResult::WhiteWins),
            ("1:0", GameResult::WhiteWins),
            ("0:1", GameResult::BlackWins),
            ("1/2", GameResult::Draw),
            ("½-½", GameResult::Draw),
            ("0.5-0.5", GameResult::Draw),
            ("1\u{2013}0", GameResult::WhiteWins),
            (" * ", GameResult::Unfinished),
        ] {
            assert_eq!(
                GameResult::from_marker(text.as_bytes()),
                Some(expected),
                "{text}"
            );
        }
        assert_eq!(GameResult::from_marker(b"?"), None);
        assert_eq!(GameResult::from_marker(b""), None);
    }

    #[test]
    fn a_marker_at_the_end_glued_or_not() {
        let suffix = |text: &str| GameResult::suffix_of(text.as_bytes());
        assert_eq!(suffix("gxf41-0"), Some((4, GameResult::WhiteWins)));
        assert_eq!(suffix("Nc6 1/2-1/2\n"), Some((4, GameResult::Draw)));
        assert_eq!(suffix("e4 0.5-0.5"), Some((3, GameResult::Draw)));
        assert_eq!(
            suffix("Nf3\u{bd}\u{2013}\u{bd}"),
            Some((3, GameResult::Draw))
        );
        assert_eq!(suffix("Nc6 0\u{2013}1"), Some((4, GameResult::BlackWins)));
        assert_eq!(suffix("Ra10:1"), Some((3, GameResult::BlackWins)));
        assert_eq!(suffix("e4*"), Some((2, GameResult::Unfinished)));
        // Half a marker, or no marker.
        assert_eq!(suffix("Nc6 1/2"), None);
        assert_eq!(suffix("Nc6 \u{bd}"), None);
        assert_eq!(suffix("Nc6 1/2-1/"), None);
        assert_eq!(suffix("Nf3"), None);
        assert_eq!(suffix(""), None);
    }
}
