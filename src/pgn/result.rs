//! PGN stage, results: the declared result of a game, normalised from the
//! many ways PGN files write it.

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
}
