//! PGN stage, tag values with a meaning beyond their text: the lichess game
//! id in a `Site` URL and the rating changes lichess writes, read once so
//! that analysts filter on columns instead of parsing `extra_tags`.

/// The 8-character game id of a lichess game URL
/// (`https://lichess.org/ENPo6ReH`, also with `/black` or `#12` after it).
pub fn lichess_id(site: &str) -> Option<&str> {
    let rest = site
        .trim()
        .strip_prefix("https://lichess.org/")
        .or_else(|| site.trim().strip_prefix("http://lichess.org/"))?;
    let id = rest.get(..8)?;
    let after = rest.get(8..).unwrap_or_default();
    let boundary = after.is_empty() || after.starts_with(['/', '#', '?']);
    (id.bytes().all(|b| b.is_ascii_alphanumeric()) && boundary).then_some(id)
}

/// `+8`, `-5`, `0`: a rating change (`WhiteRatingDiff`, `BlackRatingDiff`).
pub fn rating_diff(value: &str) -> Option<i32> {
    let value = value.trim();
    let digits = value.strip_prefix('+').unwrap_or(value);
    if digits.is_empty() || digits.starts_with('+') {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_ids_come_from_game_urls_only() {
        assert_eq!(lichess_id("https://lichess.org/ENPo6ReH"), Some("ENPo6ReH"));
        assert_eq!(
            lichess_id("https://lichess.org/ENPo6ReH/black"),
            Some("ENPo6ReH")
        );
        assert_eq!(
            lichess_id("https://lichess.org/ENPo6ReH#12"),
            Some("ENPo6ReH")
        );
        for other in [
            "https://lichess.org/study/abcdefgh12",
            "https://lichess.org/ENPo6",
            "https://lichess.org/ENPo6ReHx",
            "Prague CZE",
            "https://www.chess.com/game/live/123",
            "",
        ] {
            assert_eq!(lichess_id(other), None, "{other}");
        }
    }

    #[test]
    fn rating_diffs_are_signed_integers() {
        assert_eq!(rating_diff("+8"), Some(8));
        assert_eq!(rating_diff("-5"), Some(-5));
        assert_eq!(rating_diff("0"), Some(0));
        for other in ["", "?", "++1", "+", "x"] {
            assert_eq!(rating_diff(other), None, "{other}");
        }
    }
}
