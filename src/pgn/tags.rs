//! PGN stage, tag values with a meaning beyond their text: the lichess game
//! id in a `Site` URL, the rating changes lichess writes and the UTC time a
//! game started (`UTCDate` + `UTCTime`) and the month of a date, read once so
//! that analysts filter on columns instead of parsing `extra_tags`.

use crate::model::calendar::days_from_civil;

/// The 8-character game id of a lichess game URL
/// (`https://lichess.org/ENPo6ReH`, also with `/black` or `#12` after it).
pub(crate) fn lichess_id(site: &str) -> Option<&str> {
    let rest = site
        .trim()
        .strip_prefix("https://lichess.org/")
        .or_else(|| site.trim().strip_prefix("http://lichess.org/"))?;
    let (id, after) = rest.split_at_checked(8)?;
    let boundary = after.is_empty() || after.starts_with(['/', '#', '?']);
    (id.bytes().all(|b| b.is_ascii_alphanumeric()) && boundary).then_some(id)
}

/// `+8`, `-5`, `0`: a rating change (`WhiteRatingDiff`, `BlackRatingDiff`).
pub(crate) fn rating_diff(value: &str) -> Option<i32> {
    let value = value.trim();
    let digits = value.strip_prefix('+').unwrap_or(value);
    if digits.is_empty() || digits.starts_with('+') {
        return None;
    }
    digits.parse().ok()
}

/// Milliseconds since 1970-01-01 00:00 UTC of a `UTCDate` (`2025.05.01`)
/// and `UTCTime` (`00:00:06`) pair; None unless both are complete and valid
/// (`2025.05.??`, `25:00:00`, February 30th).
pub(crate) fn utc_timestamp_ms(date: &str, time: &str) -> Option<i64> {
    let mut day = date.trim().split(['.', '-']);
    let (year, month, mday) = (day.next()?, day.next()?, day.next()?);
    if day.next().is_some() || year.len() != 4 || month.len() != 2 || mday.len() != 2 {
        return None;
    }
    let (year, month, mday) = (number(year)?, number(month)?, number(mday)?);
    if !(1..=12).contains(&month) || mday < 1 || mday > days_in_month(year, month) {
        return None;
    }
    let mut clock = time.trim().split(':');
    let (hour, minute, second) = (clock.next()?, clock.next()?, clock.next()?);
    if clock.next().is_some() || [hour, minute, second].iter().any(|p| p.len() != 2) {
        return None;
    }
    let (hour, minute, second) = (number(hour)?, number(minute)?, number(second)?);
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let days = days_from_civil(year, month, mday);
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000)
}

/// The year and, when it is there, the month of a PGN date (`2025.05.01`,
/// `2025.05.??` and `2025-05-01` give May 2025; `1999.??.??` gives 1999
/// only); None without a four-digit year.
pub(crate) fn year_and_month(date: &str) -> Option<(i64, Option<i64>)> {
    let mut parts = date.trim().split(['.', '-']);
    let year = parts.next().filter(|y| y.len() == 4).and_then(number)?;
    let month = parts
        .next()
        .filter(|m| m.len() == 2)
        .and_then(number)
        .filter(|m| (1..=12).contains(m));
    Some((year, month))
}

/// A game's year and month as the tables keep them: from its `UTCDate`,
/// else from its `Date` (`games.month`, the tree's month).
pub(crate) fn date_year_and_month(
    utc_date: Option<&str>,
    date: Option<&str>,
) -> Option<(i64, Option<i64>)> {
    utc_date
        .and_then(year_and_month)
        .or_else(|| date.and_then(year_and_month))
}

/// Digits only (no sign, no spaces).
fn number(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_and_months_of_pgn_dates() {
        assert_eq!(year_and_month("2025.05.01"), Some((2025, Some(5))));
        assert_eq!(year_and_month("2025-12-??"), Some((2025, Some(12))));
        assert_eq!(year_and_month("1999.??.??"), Some((1999, None)));
        assert_eq!(year_and_month("1999.13.01"), Some((1999, None)));
        assert_eq!(year_and_month("1999"), Some((1999, None)));
        assert_eq!(year_and_month("????.05.01"), None);
        assert_eq!(year_and_month("99.05.01"), None);
    }

    #[test]
    fn utc_timestamps_from_lichess_tags() {
        assert_eq!(utc_timestamp_ms("1970.01.01", "00:00:00"), Some(0));
        // date -u -d '2025-05-01 00:00:06' +%s
        assert_eq!(
            utc_timestamp_ms("2025.05.01", "00:00:06"),
            Some(1_746_057_606_000)
        );
        assert_eq!(
            utc_timestamp_ms("2000.02.29", "23:59:59"),
            Some(951_868_799_000)
        );
        assert_eq!(utc_timestamp_ms("1969.12.31", "23:59:59"), Some(-1000));
        for (date, time) in [
            ("2025.05.??", "00:00:06"),
            ("2025.02.29", "00:00:00"),
            ("2025.05.01", "24:00:00"),
            ("2025.05.01", "0:00:06"),
            ("2025.5.1", "00:00:06"),
            ("2025.05.01", ""),
            ("????.??.??", "??:??:??"),
            ("2025.05.01.01", "00:00:06"),
        ] {
            assert_eq!(utc_timestamp_ms(date, time), None, "{date} {time}");
        }
    }

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
