//! Statistics stage, the opening statistics' dimensions: the speed, rating
//! band and month a game is counted under in `openings` and
//! `opening_lines`, so that a researcher can filter the tree as the lichess
//! opening explorer does (its tree is kept per speed, rating group and
//! month too).

use serde::{Deserialize, Serialize};

use super::spill::Fields;
use crate::pgn::tags::{civil_from_days, first_day_of_month};
use crate::pgn::time_control::TimeClass;

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

/// Width of a rating band.
pub const RATING_BAND_WIDTH: i32 = 200;
/// The lowest band: it stands for every average below 1000.
pub const LOWEST_RATING_BAND: i32 = 800;
/// The highest band: it stands for 2800 and above.
pub const HIGHEST_RATING_BAND: i32 = 2800;

/// The band of two players' average rating: `floor(average / 200) * 200`,
/// clamped to 800..=2800; None unless both ratings are positive.
pub(crate) fn rating_band(white_elo: Option<i32>, black_elo: Option<i32>) -> Option<i32> {
    let (white, black) = (white_elo.filter(|&e| e > 0)?, black_elo.filter(|&e| e > 0)?);
    let average = (i64::from(white) + i64::from(black)) / 2;
    let band = average / i64::from(RATING_BAND_WIDTH) * i64::from(RATING_BAND_WIDTH);
    let clamped = band.clamp(
        i64::from(LOWEST_RATING_BAND),
        i64::from(HIGHEST_RATING_BAND),
    );
    i32::try_from(clamped).ok()
}

/// The key columns a game adds to: its speed, its rating band and its
/// month, packed. Ordered as the tables are sorted within a (position,
/// move) or an opening: by speed (ultrabullet first, `unknown` last), then
/// band, then month, nulls first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Dimensions {
    /// `TimeClass as u8`.
    time_class: u8,
    /// The band / 200 (4..=14); 0 for null.
    rating_band: u8,
    /// year × 12 + month − 1, + 1 (years 0 to 5460); `NO_MONTH` for null.
    /// Two bytes, so that a tree row stays 80 bytes.
    month: u16,
}

const NO_MONTH: u16 = 0;

/// Bytes of a packed [`Dimensions`] in a run-file record.
pub(crate) const ENCODED_BYTES: usize = 4;

/// The code of a month (1–12) of a year; none outside years 0 to 5460.
fn month_code(year: i64, month: i64) -> Option<u16> {
    // year × 12 + (month − 1), + 1 for the null code.
    u16::try_from(year.checked_mul(12)? + month)
        .ok()
        .filter(|_| year >= 0 && (1..=12).contains(&month))
}

impl Default for Dimensions {
    /// `unknown` speed, no band, no month.
    fn default() -> Self {
        Dimensions {
            time_class: TimeClass::Unknown as u8,
            rating_band: 0,
            month: NO_MONTH,
        }
    }
}

impl Dimensions {
    /// The dimensions as one number in their order (speed, band, month):
    /// a part of a sort key that compares as one integer.
    pub(crate) fn sort_bits(self) -> u32 {
        u32::from(self.time_class) << 24 | u32::from(self.rating_band) << 16 | u32::from(self.month)
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
            (OpeningPeriod::Month, Some((year, Some(month)))) => month_code(year, month),
            (OpeningPeriod::Year, Some((year, _))) => month_code(year, 1),
            _ => None,
        };
        Dimensions {
            time_class: time_class as u8,
            rating_band: band_code(rating_band(white_elo, black_elo)),
            month: month.unwrap_or(NO_MONTH),
        }
    }

    /// The dimensions of a row read back from a table (`merge`); None when
    /// the speed is not one pgnlake writes or the band is not a band.
    pub(crate) fn from_row(
        time_class: &str,
        rating_band: Option<i32>,
        month: Option<i32>,
    ) -> Option<Dimensions> {
        let time_class = TimeClass::parse(time_class)?;
        let band = match rating_band {
            None => 0,
            Some(band) => {
                let valid = (LOWEST_RATING_BAND..=HIGHEST_RATING_BAND).contains(&band)
                    && band % RATING_BAND_WIDTH == 0;
                if !valid {
                    return None;
                }
                band_code(Some(band))
            }
        };
        let month = match month {
            None => NO_MONTH,
            Some(days) => {
                let (year, month, _) = civil_from_days(i64::from(days));
                month_code(year, month)?
            }
        };
        Some(Dimensions {
            time_class: time_class as u8,
            rating_band: band,
            month,
        })
    }

    pub(crate) fn time_class(&self) -> &'static str {
        TimeClass::ALL
            .get(usize::from(self.time_class))
            .copied()
            .unwrap_or_default()
            .as_str()
    }

    pub(crate) fn rating_band(&self) -> Option<i32> {
        (self.rating_band != 0).then(|| i32::from(self.rating_band) * RATING_BAND_WIDTH)
    }

    /// Days since 1970-01-01 of the first day of the period.
    pub(crate) fn month(&self) -> Option<i32> {
        let code = i64::from(self.month.checked_sub(1)?);
        i32::try_from(first_day_of_month(code / 12, code % 12 + 1)).ok()
    }

    /// Appends the [`ENCODED_BYTES`] of a run-file record.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.push(self.time_class);
        out.push(self.rating_band);
        out.extend_from_slice(&self.month.to_le_bytes());
    }

    pub(crate) fn decode(fields: &mut Fields<'_>) -> Option<Dimensions> {
        let [time_class, rating_band] = fields.bytes::<2>()?;
        Some(Dimensions {
            time_class,
            rating_band,
            month: fields.u16()?,
        })
    }

    /// A mix of the fields for the tree's index (not a hash on its own).
    pub(crate) fn mix(&self) -> u64 {
        u64::from(self.time_class) << 8 | u64::from(self.rating_band) | u64::from(self.month) << 16
    }
}

#[cfg(test)]
impl Dimensions {
    /// One of a few made-up dimensions, by `n`.
    pub(crate) fn made_up(n: u64) -> Dimensions {
        Dimensions {
            time_class: (n % 7) as u8,
            rating_band: (n % 3) as u8 * 5,
            month: if n.is_multiple_of(2) {
                NO_MONTH
            } else {
                n as u16
            },
        }
    }
}

fn band_code(band: Option<i32>) -> u8 {
    band.and_then(|b| u8::try_from(b / RATING_BAND_WIDTH).ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_follow_the_average_and_clamp_at_both_ends() {
        assert_eq!(rating_band(Some(2000), Some(2399)), Some(2000));
        assert_eq!(rating_band(Some(2000), Some(2401)), Some(2200));
        assert_eq!(rating_band(Some(600), Some(700)), Some(800));
        assert_eq!(rating_band(Some(3000), Some(2900)), Some(2800));
        assert_eq!(rating_band(Some(1500), None), None);
        assert_eq!(rating_band(Some(0), Some(1500)), None);
        assert_eq!(rating_band(Some(-5), Some(1500)), None);
    }

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
