//! Reading, search statistics: how the games a search lists ended, in all
//! and by speed, rating band and month, counted as the opening tree
//! counts a position's games; sums that merge with `+=`.

use std::collections::BTreeMap;
use std::ops::AddAssign;

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::model::{Month, RatingBand, TimeClass};
use crate::pgn::result::GameResult;
use crate::stats::counts::Counts;
use crate::stats::dimensions::Dimensions;

/// The results of the games listed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchStats {
    pub total: Counts,
    pub by_speed: BTreeMap<TimeClass, Counts>,
    /// None: a game without both ratings.
    pub by_band: BTreeMap<Option<RatingBand>, Counts>,
    /// None: a game without a month.
    pub by_month: BTreeMap<Option<Month>, Counts>,
}

impl SearchStats {
    pub(crate) fn add_game(&mut self, dims: &Dimensions, result: Option<GameResult>) {
        self.total.add_game(result);
        self.by_speed
            .entry(dims.speed())
            .or_default()
            .add_game(result);
        self.by_band
            .entry(dims.band())
            .or_default()
            .add_game(result);
        self.by_month
            .entry(dims.calendar_month())
            .or_default()
            .add_game(result);
    }

    /// As a text table: one line for all, then one per speed, band and month.
    pub fn to_table(&self) -> String {
        let mut out = String::from("games  white  draws  black  of\n");
        let mut line = |counts: &Counts, label: String| {
            out.push_str(&format!(
                "{:>5}  {:>5}  {:>5}  {:>5}  {label}\n",
                counts.games, counts.white_wins, counts.draws, counts.black_wins
            ));
        };
        line(&self.total, "all".into());
        for (speed, counts) in &self.by_speed {
            line(counts, format!("speed {}", speed.as_str()));
        }
        for (band, counts) in &self.by_band {
            line(counts, format!("band {}", label(band)));
        }
        for (month, counts) in &self.by_month {
            line(counts, format!("month {}", label(month)));
        }
        out
    }
}

fn label<T: std::fmt::Display>(value: &Option<T>) -> String {
    value.as_ref().map_or_else(|| "-".to_owned(), T::to_string)
}

impl AddAssign<&SearchStats> for SearchStats {
    fn add_assign(&mut self, other: &SearchStats) {
        self.total += other.total;
        for (k, v) in &other.by_speed {
            *self.by_speed.entry(*k).or_default() += *v;
        }
        for (k, v) in &other.by_band {
            *self.by_band.entry(*k).or_default() += *v;
        }
        for (k, v) in &other.by_month {
            *self.by_month.entry(*k).or_default() += *v;
        }
    }
}

/// Counts as JSON: `{"games": …, "white": …, "draws": …, "black": …}`,
/// the lichess explorer's names.
struct Json<'a>(&'a Counts);

impl Serialize for Json<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("games", &self.0.games)?;
        map.serialize_entry("white", &self.0.white_wins)?;
        map.serialize_entry("draws", &self.0.draws)?;
        map.serialize_entry("black", &self.0.black_wins)?;
        map.end()
    }
}

/// A map of counts keyed by the label (`-` for none).
struct Keyed<'a, K>(&'a BTreeMap<K, Counts>, fn(&K) -> String);

impl<K> Serialize for Keyed<'_, K> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, counts) in self.0 {
            map.serialize_entry(&(self.1)(key), &Json(counts))?;
        }
        map.end()
    }
}

impl Serialize for SearchStats {
    /// `{"total": {...}, "by_speed": {"blitz": {...}}, "by_band": {"1600":
    /// {...}, "-": {...}}, "by_month": {"2025-05": {...}}}`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("total", &Json(&self.total))?;
        map.serialize_entry(
            "by_speed",
            &Keyed(&self.by_speed, |s: &TimeClass| s.as_str().to_owned()),
        )?;
        map.serialize_entry(
            "by_band",
            &Keyed(&self.by_band, |b: &Option<RatingBand>| label(b)),
        )?;
        map.serialize_entry(
            "by_month",
            &Keyed(&self.by_month, |m: &Option<Month>| label(m)),
        )?;
        map.end()
    }
}
