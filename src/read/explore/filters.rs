//! Explorer, filters: what `explore --speed/--rating/--since/--until`
//! keep of a position's rows, parsed into the model's types (`TimeClass`,
//! `BandRange`, `Month`) and turned into tests on a row's dimensions
//! (`Bounds`).

use serde::Serialize;

use crate::error::ExploreError;
use crate::model::{BandRange, Month, MonthRange, TimeClass};
use crate::stats::dimensions::{Dimensions, OpeningPeriod};

/// What `explore` keeps of the tree: time classes, a range of rating
/// bands and a range of months, each inclusive; an empty filter keeps all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Filters {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub speed: Vec<TimeClass>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<BandRange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<Month>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<Month>,
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
        for name in speed.into_iter().flat_map(|list| list.split(',')) {
            let name = name.trim();
            let class = name.parse::<TimeClass>().map_err(|_| {
                let allowed = format!("time classes separated by commas ({})", TimeClass::names());
                bad_filter("--speed", name, &allowed)
            })?;
            if !filters.speed.contains(&class) {
                filters.speed.push(class);
            }
        }
        if let Some(range) = rating {
            let bands = range.parse::<BandRange>();
            filters.rating = Some(bands.map_err(|e| bad_filter("--rating", range, &e.allowed))?);
        }
        let month = |option, text: &str| {
            text.parse::<Month>()
                .map_err(|e| bad_filter(option, text, &e.allowed))
        };
        filters.since = since.map(|m| month("--since", m)).transpose()?;
        filters.until = until.map(|m| month("--until", m)).transpose()?;
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
            let names: Vec<&str> = self.speed.iter().map(|t| t.as_str()).collect();
            parts.push(format!("speed {}", names.join(",")));
        }
        if let Some(range) = self.rating {
            parts.push(format!("rating {range}"));
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
    /// with `period`.
    pub(crate) fn bounds(&self, period: OpeningPeriod) -> Result<Bounds, ExploreError> {
        let bands = self.rating.into_iter().collect();
        let months = (self.since, self.until, "--since/--until");
        Bounds::new(self.speed.clone(), bands, months, period)
    }
}

/// The filters as tests on a row's dimensions.
pub(crate) struct Bounds {
    speed: Vec<TimeClass>,
    /// A row's band is in one of them; none: every row, rated or not.
    bands: Vec<BandRange>,
    /// Open at both ends when no month filter is in force; else rows
    /// without a month are left out.
    months: MonthRange,
}

impl Bounds {
    /// Rows of any of `speed` (all when empty), of a band in any of
    /// `bands` (lichess's rating groups need not touch; all rows, rated or
    /// not, when empty) and of the months `since..=until`, in an import made
    /// with `period`: with `year`, months compare by their year. `months`
    /// names the options they came from (for the message refusing them).
    pub(crate) fn new(
        speed: Vec<TimeClass>,
        bands: Vec<BandRange>,
        (since, until, options): (Option<Month>, Option<Month>, &str),
        period: OpeningPeriod,
    ) -> Result<Bounds, ExploreError> {
        if period == OpeningPeriod::None && (since.is_some() || until.is_some()) {
            return Err(ExploreError::BadFilter {
                message: format!(
                    "{options}: this import has no months \
                     (it was made with --opening-period none)"
                ),
            });
        }
        // A row of a year-split import holds January of its year.
        let of_period = |m: Month| match period {
            OpeningPeriod::Year => m.january(),
            _ => m,
        };
        let months = MonthRange {
            since: since.map(of_period),
            until: until.map(of_period),
        };
        Ok(Bounds {
            speed,
            bands,
            months,
        })
    }

    /// Is `month` within the months kept (any month when none are set)?
    pub(crate) fn keeps_month(&self, month: Month) -> bool {
        self.months.is_open() || self.months.contains(month)
    }

    pub(crate) fn keeps(&self, dims: &Dimensions) -> bool {
        if !self.speed.is_empty() && !self.speed.contains(&dims.speed()) {
            return false;
        }
        if !self.bands.is_empty()
            && !dims
                .band()
                .is_some_and(|band| self.bands.iter().any(|range| range.contains(band)))
        {
            return false;
        }
        self.months.is_open()
            || dims
                .calendar_month()
                .is_some_and(|month| self.months.contains(month))
    }
}

fn bad_filter(option: &str, value: &str, allowed: &str) -> ExploreError {
    ExploreError::BadFilter {
        message: format!("{option} {value:?}: expected {allowed}"),
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
        assert_eq!(filters.speed, [TimeClass::Blitz, TimeClass::Bullet]);
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
        assert!(bounds.keeps(&game(TimeClass::Blitz, 2499, 2020, 1)));
        assert!(!bounds.keeps(&game(TimeClass::Blitz, 2500, 2020, 1)));
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
            let bad_rating = Filters::parse(None, Some(bad), None, None);
            assert!(
                matches!(bad_rating, Err(ExploreError::BadFilter { .. })),
                "{bad}"
            );
        }
    }
}
