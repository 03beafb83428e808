//! Model, month: the month a game is counted under in the opening
//! statistics (its `UTCDate`, else its `Date`), written in tables as the
//! month's first day and read as `YYYY-MM`.

use std::fmt;
use std::str::FromStr;

use super::ParseError;
use super::calendar::{civil_from_days, first_day_of_month};

/// A month of a year (1–12) of the years a table can keep (0 to
/// [`Month::LAST_YEAR`], as its code is two bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month {
    year: u16,
    month: u8,
}

impl Month {
    /// The last year a month's code holds (year × 12 + month in 16 bits).
    pub const LAST_YEAR: u16 = 5460;

    /// The month (1–12) of a year; None outside years 0 to
    /// [`Month::LAST_YEAR`] or for a month that is none.
    pub fn new(year: i64, month: i64) -> Option<Month> {
        let year = u16::try_from(year)
            .ok()
            .filter(|&y| y <= Month::LAST_YEAR)?;
        let month = u8::try_from(month).ok().filter(|m| (1..=12).contains(m))?;
        Some(Month { year, month })
    }

    pub fn year(self) -> i64 {
        i64::from(self.year)
    }

    /// 1–12.
    pub fn month(self) -> i64 {
        i64::from(self.month)
    }

    /// The month after (None past the last a key can hold).
    pub fn next(self) -> Option<Month> {
        match self.month() {
            12 => Month::new(self.year() + 1, 1),
            m => Month::new(self.year(), m + 1),
        }
    }

    /// Every month from this one to `last`, both included (none when
    /// `last` is earlier).
    pub fn through(self, last: Month) -> impl Iterator<Item = Month> {
        std::iter::successors(Some(self), |m| m.next()).take_while(move |m| *m <= last)
    }

    /// January of the month's year (`--opening-period year` counts a game
    /// under it).
    pub fn january(self) -> Month {
        Month { month: 1, ..self }
    }

    /// The code a packed key keeps: year × 12 + month, never 0 (0 is a
    /// key's "no month").
    pub(crate) fn code(self) -> u16 {
        // At most 5460 × 12 + 12 = 65,532 (`new` bounds the year).
        self.year * 12 + u16::from(self.month)
    }

    /// The month of its [`Month::code`]; None for 0 or a code no month has.
    pub(crate) fn from_code(code: u16) -> Option<Month> {
        let index = code.checked_sub(1)?;
        Some(Month {
            year: index / 12,
            month: u8::try_from(index % 12 + 1).ok()?,
        })
    }

    /// The column's value: days since 1970-01-01 of the month's first day.
    pub fn first_day(self) -> i32 {
        // Years 0 to 5460 lie within 1.3 million days of 1970: an i32.
        first_day_of_month(self.year(), self.month()) as i32
    }

    /// The month a day (days since 1970-01-01) falls in; None outside the
    /// years a month can be.
    pub fn of_day(days: i32) -> Option<Month> {
        let (year, month, _) = civil_from_days(i64::from(days));
        Month::new(year, month)
    }

    /// The month a column's value stands for: the first day of a month,
    /// and nothing else (a table whose month is another day is damaged).
    pub fn from_column(days: i32) -> Option<Month> {
        Month::of_day(days).filter(|m| m.first_day() == days)
    }
}

impl fmt::Display for Month {
    /// `YYYY-MM`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

impl FromStr for Month {
    type Err = ParseError;

    /// `YYYY-MM` (`2020-01`), four digits and two.
    fn from_str(text: &str) -> Result<Month, ParseError> {
        let bad = || ParseError {
            what: "month",
            text: text.to_owned(),
            allowed: "a month as YYYY-MM (e.g. 2020-01)".to_owned(),
        };
        let (year, month) = text.trim().split_once('-').ok_or_else(bad)?;
        let digits = |s: &str, n: usize| {
            (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<i64>().ok())
                .flatten()
        };
        let (year, month) = (
            digits(year, 4).ok_or_else(bad)?,
            digits(month, 2).ok_or_else(bad)?,
        );
        Month::new(year, month).ok_or_else(bad)
    }
}

impl Month {
    /// A month as lila's explorer reads `since` and `until`: `YYYY-MM` or
    /// `YYYY/MM`, the month padded or not, a year of 4 to 7 digits.
    pub fn parse_lila(text: &str) -> Result<Month, ParseError> {
        let parsed = text.trim().split_once(['-', '/']).and_then(|(y, m)| {
            let year = y.parse().ok().filter(|_| (4..=7).contains(&y.len()))?;
            Month::new(year, m.parse().ok()?)
        });
        parsed.ok_or_else(|| ParseError {
            what: "month",
            text: text.to_owned(),
            allowed: "a month as YYYY-MM (e.g. 2020-01)".to_owned(),
        })
    }
}

/// A request's month is read as lila reads it (see [`Month::parse_lila`]).
impl<'de> serde::Deserialize<'de> for Month {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Month, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Month::parse_lila(&text).map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for Month {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_codes_and_days_round_trip() {
        let may = "2025-05".parse::<Month>().ok();
        assert_eq!(may, Month::new(2025, 5));
        let Some(may) = may else { return };
        assert_eq!(may.to_string(), "2025-05");
        assert_eq!(may.first_day(), 20_209);
        assert_eq!(Month::from_column(20_209), Some(may));
        assert_eq!(Month::from_column(20_210), None);
        assert_eq!(Month::of_day(20_210), Some(may));
        assert_eq!(Month::from_code(may.code()), Some(may));
        assert_eq!(may.january().to_string(), "2025-01");
        assert_eq!(Month::from_code(0), None);
        let first = Month::new(0, 1);
        assert_eq!(first.map(Month::code), Some(1));
        let last = Month::new(5460, 12);
        assert_eq!(last.and_then(|m| Month::from_code(m.code())), last);
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in [
            "2025-5",
            "25-05",
            "2025-13",
            "2025-00",
            "2025",
            "2025-05-01",
            "abcd-ef",
            "",
        ] {
            assert!(bad.parse::<Month>().is_err(), "{bad}");
        }
        assert_eq!(Month::new(5461, 1), None);
        assert_eq!(Month::new(-1, 1), None);
        assert!(Month::new(1999, 12) < Month::new(2000, 1));
    }
}
