//! Model, filter ranges: the rating bands and months a reader keeps of the
//! opening statistics (`explore --rating/--since/--until`, the explorer's
//! `ratings`, `since` and `until`), each inclusive at both ends and open at
//! either.

use std::str::FromStr;

use super::{Month, ParseError, RatingBand};

/// Rating bands from `from` to `to`, both inclusive, either open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct BandRange {
    pub from: Option<RatingBand>,
    pub to: Option<RatingBand>,
}

impl BandRange {
    pub fn contains(&self, band: RatingBand) -> bool {
        self.from.is_none_or(|f| band >= f) && self.to.is_none_or(|t| band <= t)
    }
}

impl std::fmt::Display for BandRange {
    /// As it is read: `2000..2400`, `2200..`, `..1600`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let end = |b: Option<RatingBand>| b.map(|b| b.to_string());
        write!(
            f,
            "{}..{}",
            end(self.from).as_deref().unwrap_or(""),
            end(self.to).as_deref().unwrap_or("")
        )
    }
}

impl FromStr for BandRange {
    type Err = ParseError;

    /// `2000..2400`, `2200..`, `..1600`, `2000` (one band); each end a
    /// band's lower bound, the first not above the second.
    fn from_str(text: &str) -> Result<BandRange, ParseError> {
        let bad = || ParseError {
            what: "rating range",
            text: text.to_owned(),
            allowed: format!(
                "bands FROM..TO, FROM.. or ..TO, each a band's lower bound ({}) \
                 (e.g. 2000..2400)",
                RatingBand::names()
            ),
        };
        let end = |end: &str| -> Result<Option<RatingBand>, ParseError> {
            let end = end.trim();
            if end.is_empty() {
                return Ok(None);
            }
            end.parse().map(Some).map_err(|_| bad())
        };
        let (from, to) = match text.split_once("..") {
            Some((from, to)) => (end(from)?, end(to)?),
            None => {
                let one = end(text)?.ok_or_else(bad)?;
                (Some(one), Some(one))
            }
        };
        match (from, to) {
            (Some(f), Some(t)) if f > t => Err(bad()),
            (None, None) => Err(bad()),
            _ => Ok(BandRange { from, to }),
        }
    }
}

/// Months from `since` to `until`, both inclusive, either open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MonthRange {
    pub since: Option<Month>,
    pub until: Option<Month>,
}

impl MonthRange {
    /// The range of two ends; an error when `since` is after `until`.
    pub fn new(since: Option<Month>, until: Option<Month>) -> Result<MonthRange, ParseError> {
        match (since, until) {
            (Some(s), Some(u)) if s > u => Err(ParseError {
                what: "month range",
                text: format!("{s}..{u}"),
                allowed: format!("a first month not after the last, {u}"),
            }),
            _ => Ok(MonthRange { since, until }),
        }
    }

    /// Neither end is set: every row is kept, with a month or not.
    pub fn is_open(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    pub fn contains(&self, month: Month) -> bool {
        self.since.is_none_or(|s| month >= s) && self.until.is_none_or(|u| month <= u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(text: &str) -> Option<(Option<i32>, Option<i32>)> {
        let r: BandRange = text.parse().ok()?;
        Some((
            r.from.map(RatingBand::lower_bound),
            r.to.map(RatingBand::lower_bound),
        ))
    }

    #[test]
    fn band_ranges_read_both_ends_either_open() {
        assert_eq!(range("2000..2400"), Some((Some(2000), Some(2400))));
        assert_eq!(range("2200.."), Some((Some(2200), None)));
        assert_eq!(range("..1600"), Some((None, Some(1600))));
        assert_eq!(range("2500"), Some((Some(2500), Some(2500))));
        for bad in [
            "..",
            "",
            "2300",
            "2400..2200",
            "abc",
            "2000..x",
            "2000...2200",
        ] {
            assert_eq!(range(bad), None, "{bad}");
        }
        let r: Option<BandRange> = "2000..".parse().ok();
        assert_eq!(r.map(|r| r.to_string()).as_deref(), Some("2000.."));
    }

    #[test]
    fn month_ranges_keep_their_ends() {
        let m = |t: &str| t.parse::<Month>().ok();
        let r = MonthRange::new(m("2020-01"), m("2020-03")).unwrap();
        assert!(r.contains(m("2020-03").unwrap()));
        assert!(!r.contains(m("2020-04").unwrap()));
        assert!(!r.is_open());
        assert!(MonthRange::new(m("2020-04"), m("2020-03")).is_err());
        assert!(MonthRange::default().is_open());
    }
}
