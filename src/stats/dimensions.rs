//! Statistics stage, the opening statistics' dimensions: the speed, rating
//! band and month a game is counted under in `openings` and
//! `opening_lines`, so that a researcher can filter the tree as the lichess
//! opening explorer does (its tree is kept per speed, rating group and
//! month too).

use serde::{Deserialize, Serialize};

use super::spill::Fields;
use crate::model::{Month, RatingBand, TimeClass};

/// How finely the opening statistics are split by date
/// (`--opening-period`): archives that span centuries want years.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum OpeningPeriod {
    /// `month` is the first day of the game's month.
    #[default]
    Month,
    /// `month` is January 1st of the game's year.
    Year,
    /// `month` is null in every row.
    None,
}

/// The key columns a game adds to: its speed, its rating band and its
/// month, packed. Ordered as the tables are sorted within a (position,
/// move) or an opening: by speed (ultrabullet first, `unknown` last), then
/// band, then month, nulls first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Dimensions {
    time_class: TimeClass,
    /// [`RatingBand::code`]; 0 for null.
    rating_band: u8,
    /// [`Month::code`]; `NO_MONTH` for null. Two bytes, so that a tree row
    /// stays 48 bytes.
    month: u16,
}

const NO_MONTH: u16 = 0;
const NO_BAND: u8 = 0;

/// Bytes of a packed [`Dimensions`] in a run-file record.
pub(crate) const ENCODED_BYTES: usize = 4;

impl Default for Dimensions {
    /// `unknown` speed, no band, no month.
    fn default() -> Self {
        Dimensions {
            time_class: TimeClass::Unknown,
            rating_band: NO_BAND,
            month: NO_MONTH,
        }
    }
}

impl Dimensions {
    /// The dimensions as one number in their order (speed, band, month):
    /// a part of a sort key that compares as one integer.
    pub(crate) fn sort_bits(self) -> u32 {
        u32::from(self.time_class as u8) << 24
            | u32::from(self.rating_band) << 16
            | u32::from(self.month)
    }

    /// A game's dimensions: `date` is the year and month of its `UTCDate`,
    /// else of its `Date`.
    pub(crate) fn of(
        time_class: TimeClass,
        white_elo: Option<i32>,
        black_elo: Option<i32>,
        date: Option<(i64, Option<i64>)>,
        period: OpeningPeriod,
    ) -> Dimensions {
        let month = match (period, date) {
            (OpeningPeriod::Month, Some((year, Some(month)))) => Month::new(year, month),
            (OpeningPeriod::Year, Some((year, _))) => Month::new(year, 1),
            _ => None,
        };
        Dimensions {
            time_class,
            rating_band: RatingBand::of_players(white_elo, black_elo)
                .map_or(NO_BAND, RatingBand::code),
            month: month.map_or(NO_MONTH, Month::code),
        }
    }

    /// The dimensions of a row read back from a table (`merge`); None when
    /// the speed is not one pgnlake writes, the band is not a band or the
    /// month is not a month's first day.
    pub(crate) fn from_row(
        time_class: &str,
        rating_band: Option<i32>,
        month: Option<i32>,
    ) -> Option<Dimensions> {
        let rating_band = match rating_band {
            None => NO_BAND,
            Some(lower) => RatingBand::from_column(lower)?.code(),
        };
        let month = match month {
            None => NO_MONTH,
            Some(days) => Month::from_column(days)?.code(),
        };
        Some(Dimensions {
            time_class: TimeClass::parse(time_class)?,
            rating_band,
            month,
        })
    }

    pub(crate) fn speed(&self) -> TimeClass {
        self.time_class
    }

    /// The speed's name, as the `time_class` column holds it.
    pub(crate) fn time_class(&self) -> &'static str {
        self.time_class.as_str()
    }

    pub(crate) fn band(&self) -> Option<RatingBand> {
        // Codes are made by `RatingBand::code` or checked by `decode`.
        RatingBand::from_code(self.rating_band)
    }

    /// The `rating_band` column's value.
    pub(crate) fn rating_band(&self) -> Option<i32> {
        self.band().map(RatingBand::lower_bound)
    }

    pub(crate) fn calendar_month(&self) -> Option<Month> {
        Month::from_code(self.month)
    }

    /// The `month` column's value: days since 1970-01-01 of the first day
    /// of the period.
    pub(crate) fn month(&self) -> Option<i32> {
        self.calendar_month().map(Month::first_day)
    }

    /// Appends the [`ENCODED_BYTES`] of a run-file record.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.push(self.time_class as u8);
        out.push(self.rating_band);
        out.extend_from_slice(&self.month.to_le_bytes());
    }

    /// The dimensions of a run-file record; None when a code is none (a
    /// damaged run file).
    pub(crate) fn decode(fields: &mut Fields<'_>) -> Option<Dimensions> {
        let [time_class, rating_band] = fields.bytes::<2>()?;
        let month = fields.u16()?;
        let band_ok = rating_band == NO_BAND || RatingBand::from_code(rating_band).is_some();
        let month_ok = month == NO_MONTH || Month::from_code(month).is_some();
        (band_ok && month_ok).then_some(())?;
        Some(Dimensions {
            time_class: TimeClass::from_code(time_class)?,
            rating_band,
            month,
        })
    }

    /// A mix of the fields for the tree's index (not a hash on its own).
    pub(crate) fn mix(&self) -> u64 {
        u64::from(self.time_class as u8) << 8
            | u64::from(self.rating_band)
            | u64::from(self.month) << 16
    }
}

#[cfg(test)]
impl Dimensions {
    /// One of a few made-up dimensions, by `n`.
    pub(crate) fn made_up(n: u64) -> Dimensions {
        Dimensions {
            time_class: TimeClass::ALL[(n % 7) as usize],
            rating_band: (n % 3) as u8 * 5,
            month: if n.is_multiple_of(2) {
                NO_MONTH
            } else {
                n as u16
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_period_coarsens_the_month() {
        let of = |date, period| {
            Dimensions::of(TimeClass::Blitz, Some(1500), Some(1700), date, period).month()
        };
        assert_eq!(
            of(Some((2025, Some(5))), OpeningPeriod::Month),
            Some(20_209)
        );
        assert_eq!(of(Some((2025, None)), OpeningPeriod::Month), None);
        assert_eq!(of(Some((2025, None)), OpeningPeriod::Year), Some(20_089));
        assert_eq!(of(Some((2025, Some(5))), OpeningPeriod::Year), Some(20_089));
        assert_eq!(of(Some((2025, Some(5))), OpeningPeriod::None), None);
        assert_eq!(of(None, OpeningPeriod::Year), None);
    }

    #[test]
    fn dimensions_round_trip_through_rows_and_records() {
        let game = Dimensions::of(
            TimeClass::Rapid,
            Some(2210),
            Some(2190),
            Some((1999, Some(12))),
            OpeningPeriod::Month,
        );
        assert_eq!(
            (game.time_class(), game.rating_band(), game.month()),
            ("rapid", Some(2200), Some(10_926))
        );
        let read = Dimensions::from_row(game.time_class(), game.rating_band(), game.month());
        assert_eq!(read, Some(game));
        assert_eq!(Dimensions::from_row("rapid", Some(2250), None), None);
        assert_eq!(Dimensions::from_row("rapid", Some(2300), None), None);
        assert_eq!(Dimensions::from_row("rapid", None, Some(10_927)), None);
        assert_eq!(
            Dimensions::from_row("rapid", Some(2500), None).and_then(|d| d.rating_band()),
            Some(2500)
        );
        assert_eq!(Dimensions::from_row("fast", None, None), None);
        for dims in [game, Dimensions::default()] {
            let mut bytes = Vec::new();
            dims.encode(&mut bytes);
            assert_eq!(bytes.len(), ENCODED_BYTES);
            assert_eq!(Dimensions::decode(&mut Fields(&bytes)), Some(dims));
        }
    }

    #[test]
    fn rows_sort_by_speed_then_band_then_month_nulls_first() {
        let dims =
            |tc, elo: Option<i32>, date| Dimensions::of(tc, elo, elo, date, OpeningPeriod::Month);
        let mut all = [
            dims(TimeClass::Unknown, None, None),
            dims(TimeClass::Blitz, Some(2000), Some((2020, Some(1)))),
            dims(TimeClass::Blitz, Some(2000), None),
            dims(TimeClass::Blitz, None, Some((2020, Some(1)))),
            dims(TimeClass::Bullet, Some(2900), Some((2019, Some(1)))),
        ];
        all.sort();
        let seen: Vec<_> = all
            .iter()
            .map(|d| (d.time_class(), d.rating_band(), d.month()))
            .collect();
        assert_eq!(
            seen,
            vec![
                ("bullet", Some(2800), Some(17_897)),
                ("blitz", None, Some(18_262)),
                ("blitz", Some(2000), None),
                ("blitz", Some(2000), Some(18_262)),
                ("unknown", None, None),
            ]
        );
    }
}
