//! Model, rating group: lichess's explorer groups of average ratings (0,
//! 1000, 1200, …, 2200, 2500), which the `ratings` parameter of the
//! explorer's API names and which pgnlake's rating bands add up to.

use std::fmt;
use std::str::FromStr;

use super::{BandRange, ParseError, RatingBand};

/// One of lichess's rating groups: the averages from its lower bound to
/// the next group's (the last open above).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RatingGroup(i32);

impl RatingGroup {
    /// The groups' lower bounds, in their order (lila's `RatingGroup`).
    const BOUNDS: [i32; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

    /// Every group, lowest first.
    pub fn all() -> impl Iterator<Item = RatingGroup> {
        RatingGroup::BOUNDS.into_iter().map(RatingGroup)
    }

    /// The group whose lower bound is `bound` (None for a value that is
    /// no group's bound).
    pub fn of_bound(bound: i32) -> Option<RatingGroup> {
        RatingGroup::BOUNDS
            .contains(&bound)
            .then_some(RatingGroup(bound))
    }

    /// The group `rating` falls in, as lila reads a `ratings` item
    /// (`1500` is the group 1400; below 1000 the group 0).
    pub fn of_rating(rating: i32) -> RatingGroup {
        RatingGroup::all()
            .filter(|g| g.0 <= rating)
            .last()
            .unwrap_or(RatingGroup(0))
    }

    /// The group a band falls in, by the band's lower bound (a band lies
    /// in one group: the groups are unions of bands).
    pub fn of_band(band: RatingBand) -> RatingGroup {
        RatingGroup::of_rating(band.lower_bound())
    }

    pub fn lower_bound(self) -> i32 {
        self.0
    }

    /// The bands the group is made of.
    pub fn bands(self) -> BandRange {
        let from = RatingBand::of_average(i64::from(self.0));
        let next = RatingGroup::BOUNDS.iter().find(|&&b| b > self.0);
        let to = next.map(|&next| RatingBand::of_average(i64::from(next) - 1));
        BandRange {
            from: Some(from),
            to,
        }
    }

    /// Every group, comma-separated, for a message saying what is allowed.
    pub fn names() -> String {
        let names: Vec<String> = RatingGroup::all().map(|g| g.to_string()).collect();
        names.join(", ")
    }
}

impl fmt::Display for RatingGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for RatingGroup {
    type Err = ParseError;

    /// A rating from 0 to 4000, taken as the group it falls in.
    fn from_str(text: &str) -> Result<RatingGroup, ParseError> {
        let rating = text.trim().parse::<i32>().ok();
        rating
            .filter(|r| (0..=4000).contains(r))
            .map(RatingGroup::of_rating)
            .ok_or_else(|| ParseError {
                what: "rating",
                text: text.to_owned(),
                allowed: format!(
                    "a rating from 0 to 4000 (lichess's groups: {})",
                    RatingGroup::names()
                ),
            })
    }
}

impl<'de> serde::Deserialize<'de> for RatingGroup {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RatingGroup, D::Error> {
        super::from_text(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratings_fall_in_lilas_groups() {
        let group = |t: &str| t.parse::<RatingGroup>().ok().map(RatingGroup::lower_bound);
        assert_eq!(group("1500"), Some(1400));
        assert_eq!(group("0"), Some(0));
        assert_eq!(group("999"), Some(0));
        assert_eq!(group("2800"), Some(2500));
        assert_eq!(group("abc"), None);
        assert_eq!(group("-1"), None);
        assert_eq!(RatingGroup::of_bound(2400), None);
        let band =
            |low| RatingBand::from_column(low).map(|b| RatingGroup::of_band(b).lower_bound());
        assert_eq!(band(800), Some(0));
        assert_eq!(band(2400), Some(2200));
        assert_eq!(band(2800), Some(2500));
    }

    #[test]
    fn each_group_is_a_union_of_bands() {
        let bands = |g: i32| -> Option<Vec<i32>> {
            let r = RatingGroup::of_bound(g)?.bands();
            Some(
                RatingBand::all()
                    .filter(|b| r.contains(*b))
                    .map(RatingBand::lower_bound)
                    .collect(),
            )
        };
        assert_eq!(bands(0), Some(vec![800]));
        assert_eq!(bands(1600), Some(vec![1600]));
        assert_eq!(bands(2200), Some(vec![2200, 2400]));
        assert_eq!(bands(2500), Some(vec![2500, 2600, 2700, 2800]));
        // Every average falls in exactly the group lichess puts it in.
        for average in (0..3200).step_by(50) {
            let band = RatingBand::of_average(average);
            let ours: Vec<RatingGroup> = RatingGroup::all()
                .filter(|g| g.bands().contains(band))
                .collect();
            assert_eq!(ours, [RatingGroup::of_rating(average as i32)], "{average}");
        }
    }
}
