//! Explorer, filters: what `explore --speed/--rating/--since/--until`
//! keep of a position's rows, parsed from the options and turned into
//! tests on a row's dimensions (`Bounds`). Self-contained: the one place
//! that knows the filters' syntax.

use serde::Serialize;

use crate::error::ExploreError;
use crate::pgn::tags::{first_day_of_month, year_and_month};
use crate::pgn::time_control::TimeClass;
use crate::stats::dimensions::{
    Dimensions, HIGHEST_RATING_BAND, LOWEST_RATING_BAND, OpeningPeriod, RATING_BAND_WIDTH,
};

/// What `explore` keeps of the tree: time classes, a range of rating
/// bands and a range of months, each inclusive; an empty filter keeps all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Filters {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub speed: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<BandRange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<YearMonth>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<YearMonth>,
}

/// Rating bands by their lower bounds, both ends inclusive, either open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BandRange {
    pub from: Option<i32>,
    pub to: Option<i32>,
}

/// A month as `--since` and `--until` take it (`2020-01`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct YearMonth {
    pub year: i32,
    pub month: u32,
}

impl Serialize for YearMonth {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

impl std::fmt::Display for YearMonth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

impl Filters {
    /// The filters of `explore`'s options; a bad value is an error naming
    /// it and what is allowed.
    pub(crate) fn parse(
        speed: Option<&str>,
        rating: Option<&str>,
        since: Option<&str>,
        until: Option<&str>,
    ) -> Result<Filters, ExploreError> {
        let mut filters = Filters::default();
        if let Some(list) = speed {
            for name in list.split(',').map(str::trim) {
                let class = TimeClass::parse(name)
                    .ok_or_else(|| bad_filter("--speed", name, &speeds_allowed()))?;
                if !filters.speed.contains(&class.as_str()) {
                    filters.speed.push(class.as_str());
                }
            }
        }
        if let Some(range) = rating {
            filters.rating = Some(parse_bands(range)?);
        }
        filters.since = since.map(|m| parse_month("--since", m)).transpose()?;
        filters.until = until.map(|m| parse_month("--until", m)).transpose()?;
        if let (Some(since), Some(until)) = (filters.since, filters.until)
            && since > until
        {
            return Err(bad_filter(
                "--since",
                &since.to_string(),
                &format!("a month not after --until {until}"),
            ));
        }
        Ok(filters)
    }

    pub fn is_empty(&self) -> bool {
        *self == Filters::default()
    }

    /// The filters as the header shows them.
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.speed.is_empty() {
            parts.push(format!("speed {}", self.speed.join(",")));
        }
        if let Some(range) = self.rating {
            // An open end is written as nothing (`2200..`).
            let end = |b: Option<i32>| b.map(|b| b.to_string()).unwrap_or_default();
            parts.push(format!("rating {}..{}", end(range.from), end(range.to)));
        }
        if let Some(since) = self.since {
            parts.push(format!("since {since}"));
        }
        if let Some(until) = self.until {
            parts.push(format!("until {until}"));
        }
        parts.join(", ")
    }

    /// The filters as bounds on a table's key columns, for an import made
    /// with `period`: with `year`, months compare by their year.
    pub(crate) fn bounds(&self, period: OpeningPeriod) -> Result<Bounds, ExploreError> {
        if period == OpeningPeriod::None && (self.since.is_some() || self.until.is_some()) {
            return Err(ExploreError::BadFilter {
                message: "--since/--until: this import has no months \
                          (it was made with --opening-period none)"
                    .to_owned(),
            });
        }
        let day = |m: YearMonth| {
            let month = if period == OpeningPeriod::Year {
                1
            } else {
                m.month
            };
            i32::try_from(first_day_of_month(i64::from(m.year), i64::from(month))).ok()
        };
        Ok(Bounds {
            speed: self.speed.clone(),
            bands: self.rating,
            since: self.since.and_then(day),
            until: self.until.and_then(day),
            dated: self.since.is_some() || self.until.is_some(),
        })
    }
}

/// The filters as tests on a row's dimensions.
pub(crate) struct Bounds {
    speed: Vec<&'static str>,
    bands: Option<BandRange>,
    since: Option<i32>,
    until: Option<i32>,
    /// A month filter is in force: rows without a month are left out.
    dated: bool,
}

impl Bounds {
    pub(crate) fn keeps(&self, dims: &Dimensions) -> bool {
        if !self.speed.is_empty() && !self.speed.contains(&dims.time_class()) {
            return false;
        }
        if let Some(range) = self.bands {
            let Some(band) = dims.rating_band() else {
                return false;
            };
            if range.from.is_some_and(|f| band < f) || range.to.is_some_and(|t| band > t) {
                return false;
            }
        }
        if self.dated {
            let Some(month) = dims.month() else {
                return false;
            };
            if self.since.is_some_and(|s| month < s) || self.until.is_some_and(|u| month > u) {
                return false;
            }
        }
        true
    }
}

fn bad_filter(option: &str, value: &str, allowed: &str) -> ExploreError {
    ExploreError::BadFilter {
        message: format!("{option} {value:?}: expected {allowed}"),
    }
}

fn speeds_allowed() -> String {
    let names: Vec<&str> = TimeClass::ALL.iter().map(|t| t.as_str()).collect();
    format!("time classes separated by commas ({})", names.join(", "))
}

/// `2000..2400`, `2200..`, `..1600`, `2000` (one band).
fn parse_bands(text: &str) -> Result<BandRange, ExploreError> {
    let allowed = format!(
        "bands FROM..TO, FROM.. or ..TO, each a multiple of {RATING_BAND_WIDTH} \
         from {LOWEST_RATING_BAND} to {HIGHEST_RATING_BAND} (e.g. 2000..2400)"
    );
    let bad = || bad_filter("--rating", text, &allowed);
    let band = |end: &str| -> Result<Option<i32>, ExploreError> {
        let end = end.trim();
        if end.is_empty() {
            return Ok(None);
        }
        let band: i32 = end.parse().map_err(|_| bad())?;
        let valid = (LOWEST_RATING_BAND..=HIGHEST_RATING_BAND).contains(&band)
            && band % RATING_BAND_WIDTH == 0;
        if valid { Ok(Some(band)) } else { Err(bad()) }
    };
    let (from, to) = match text.split_once("..") {
        Some((from, to)) => (band(from)?, band(to)?),
        None => {
            let one = band(text)?.ok_or_else(bad)?;
            (Some(one), Some(one))
        }
    };
    match (from, to) {
        (Some(f), Some(t)) if f > t => Err(bad()),
        (None, None) => Err(bad()),
        _ => Ok(BandRange { from, to }),
    }
}

/// `YYYY-MM`.
fn parse_month(option: &str, text: &str) -> Result<YearMonth, ExploreError> {
    let bad = || bad_filter(option, text, "a month as YYYY-MM (e.g. 2020-01)");
    // A PGN date's year and month, and nothing after them.
    match (text.trim().len(), year_and_month(text)) {
        (7, Some((year, Some(month)))) => Ok(YearMonth {
            year: i32::try_from(year).map_err(|_| bad())?,
            month: u32::try_from(month).map_err(|_| bad())?,
        }),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_read_bands_months_and_speeds_and_keep_rows_by_them() {
        let filters = Filters::parse(
            Some("blitz, bullet,blitz"),
            Some("2000..2400"),
            Some("2020-01"),
            None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(filters.speed, ["blitz", "bullet"]);
        assert_eq!(
            filters.describe(),
            "speed blitz,bullet, rating 2000..2400, since 2020-01"
        );
        let bounds = filters
            .bounds(OpeningPeriod::Month)
            .unwrap_or_else(|e| panic!("{e}"));
        let game = |tc, elo, year, month| {
            Dimensions::of(
                tc,
                Some(elo),
                Some(elo),
                Some((year, Some(month))),
                OpeningPeriod::Month,
            )
        };
        assert!(bounds.keeps(&game(TimeClass::Blitz, 2599, 2020, 1)));
        assert!(!bounds.keeps(&game(TimeClass::Blitz, 2600, 2020, 1)));
        assert!(!bounds.keeps(&game(TimeClass::Blitz, 1999, 2020, 1)));
        assert!(!bounds.keeps(&game(TimeClass::Blitz, 2000, 2019, 12)));
        assert!(!bounds.keeps(&game(TimeClass::Rapid, 2000, 2021, 1)));
        assert!(!bounds.keeps(&Dimensions::default()));
        // By year: 2020-06 keeps the rows of 2020 (dated January 1st).
        let by_year = Filters::parse(None, None, Some("2020-06"), Some("2020-06"))
            .and_then(|f| f.bounds(OpeningPeriod::Year))
            .unwrap_or_else(|e| panic!("{e}"));
        let of_year = |year| {
            Dimensions::of(
                TimeClass::Blitz,
                None,
                None,
                Some((year, None)),
                OpeningPeriod::Year,
            )
        };
        assert!(by_year.keeps(&of_year(2020)));
        assert!(!by_year.keeps(&of_year(2021)));
        let no_months = Filters::parse(None, None, Some("2020-06"), None)
            .and_then(|f| f.bounds(OpeningPeriod::None));
        assert!(matches!(no_months, Err(ExploreError::BadFilter { .. })));
        for bad in ["2000..1800", "2100..", "..", "3000", "abc"] {
            assert!(parse_bands(bad).is_err(), "{bad}");
        }
        let open = parse_bands("..1600").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((open.from, open.to), (None, Some(1600)));
    }
}
