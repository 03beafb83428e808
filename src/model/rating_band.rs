//! Model, rating band: the band of the two players' average rating a game
//! is counted under in the opening statistics (the `rating_band` column),
//! chosen so that each of lichess's rating groups is a union of bands while
//! master-level play keeps its detail.

use std::fmt;
use std::str::FromStr;

use super::ParseError;

/// A band by its index in [`RatingBand::LOWER_BOUNDS`]: the averages from
/// its lower bound to the next band's, the first standing for every
/// average below 1000 and the last for 2800 and above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RatingBand(u8);

impl RatingBand {
    /// The bands' lower bounds, as the column writes them. lichess groups
    /// games at 0 (below 1000), 1000, 1200, …, 2000, 2200 (2200–2499) and
    /// 2500 (2500 and above): 200-wide bands up to 2200, then 2400 and
    /// 100-wide bands from 2500 make each group a union of bands
    /// ([`super::RatingGroup::bands`]).
    pub const LOWER_BOUNDS: [i32; 13] = [
        800, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2400, 2500, 2600, 2700, 2800,
    ];

    /// Every band, lowest first.
    pub fn all() -> impl Iterator<Item = RatingBand> {
        (0..RatingBand::LOWER_BOUNDS.len() as u8).map(RatingBand)
    }

    /// The band of an average rating.
    pub fn of_average(average: i64) -> RatingBand {
        let above = RatingBand::LOWER_BOUNDS
            .iter()
            .filter(|&&lower| i64::from(lower) <= average)
            .count();
        // Below the second bound is the first band (below 1000).
        RatingBand(above.saturating_sub(1) as u8)
    }

    /// The band of two players' average rating; None unless both ratings
    /// are positive (a game without both has no band).
    pub fn of_players(white_elo: Option<i32>, black_elo: Option<i32>) -> Option<RatingBand> {
        let (white, black) = (white_elo.filter(|&e| e > 0)?, black_elo.filter(|&e| e > 0)?);
        Some(RatingBand::of_average(
            (i64::from(white) + i64::from(black)) / 2,
        ))
    }

    /// The column's value: the band's lower bound.
    pub fn lower_bound(self) -> i32 {
        RatingBand::LOWER_BOUNDS[usize::from(self.0)]
    }

    /// The first average above the band; None for the last band.
    pub fn upper_bound(self) -> Option<i32> {
        RatingBand::LOWER_BOUNDS
            .get(usize::from(self.0) + 1)
            .copied()
    }

    /// The band whose lower bound a column holds; None for any other value
    /// (a table of other bands).
    pub fn from_column(lower_bound: i32) -> Option<RatingBand> {
        let index = RatingBand::LOWER_BOUNDS
            .iter()
            .position(|&b| b == lower_bound)?;
        Some(RatingBand(index as u8))
    }

    /// The code a packed key keeps: the index + 1, never 0 (0 is a key's
    /// "no band").
    pub(crate) fn code(self) -> u8 {
        self.0 + 1
    }

    /// The band of its [`RatingBand::code`]; None for 0 or a code no band
    /// has.
    pub(crate) fn from_code(code: u8) -> Option<RatingBand> {
        let index = code.checked_sub(1)?;
        (usize::from(index) < RatingBand::LOWER_BOUNDS.len()).then_some(RatingBand(index))
    }

    /// The bounds, comma-separated, for a message saying what is allowed.
    pub fn names() -> String {
        let names: Vec<String> = RatingBand::all().map(|b| b.to_string()).collect();
        names.join(", ")
    }
}

impl fmt::Display for RatingBand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.lower_bound())
    }
}

impl FromStr for RatingBand {
    type Err = ParseError;

    /// A band's lower bound (`2500`).
    fn from_str(text: &str) -> Result<RatingBand, ParseError> {
        text.trim()
            .parse::<i32>()
            .ok()
            .and_then(RatingBand::from_column)
            .ok_or_else(|| ParseError {
                what: "rating band",
                text: text.to_owned(),
                allowed: format!("a band's lower bound ({})", RatingBand::names()),
            })
    }
}

impl serde::Serialize for RatingBand {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i32(self.lower_bound())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band(white: i32, black: i32) -> Option<i32> {
        RatingBand::of_players(Some(white), Some(black)).map(RatingBand::lower_bound)
    }

    #[test]
    fn bands_follow_the_average_and_clamp_at_both_ends() {
        assert_eq!(band(2000, 2399), Some(2000));
        assert_eq!(band(2000, 2401), Some(2200));
        assert_eq!(band(2400, 2599), Some(2400));
        assert_eq!(band(2500, 2500), Some(2500));
        assert_eq!(band(2690, 2710), Some(2700));
        assert_eq!(band(600, 700), Some(800));
        assert_eq!(band(999, 999), Some(800));
        assert_eq!(band(1000, 1001), Some(1000));
        assert_eq!(band(3000, 2900), Some(2800));
        assert_eq!(RatingBand::of_players(Some(1500), None), None);
        assert_eq!(RatingBand::of_players(Some(0), Some(1500)), None);
        assert_eq!(RatingBand::of_players(Some(-5), Some(1500)), None);
    }

    #[test]
    fn columns_codes_and_text_round_trip() {
        for b in RatingBand::all() {
            assert_eq!(RatingBand::from_column(b.lower_bound()), Some(b));
            assert_eq!(RatingBand::from_code(b.code()), Some(b));
            assert_eq!(b.to_string().parse::<RatingBand>(), Ok(b));
            assert_eq!(RatingBand::of_average(i64::from(b.lower_bound())), b);
            if let Some(upper) = b.upper_bound() {
                assert_eq!(RatingBand::of_average(i64::from(upper) - 1), b);
            }
        }
        assert_eq!(RatingBand::from_code(0), None);
        assert_eq!(RatingBand::from_code(14), None);
        assert_eq!(RatingBand::from_column(2300), None);
        assert!("2300".parse::<RatingBand>().is_err());
    }
}
