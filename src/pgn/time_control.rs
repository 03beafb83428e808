//! PGN stage, time control: the `TimeControl` tag read as a speed class
//! ([`TimeClass`], in `model/`) with lichess's rule, so games from every
//! site can be grouped alike.

use crate::model::TimeClass;

impl TimeClass {
    /// Reads a `TimeControl` tag value (PGN standard, section 9.6):
    /// `300+2` (base + increment), `600` (sudden death), `40/7200:3600`
    /// (moves / seconds, the first period counts), `*180` (sandclock);
    /// `-` (no clock), a period of a day or more per move, or text such as
    /// `1 in 3 days` are correspondence; `?`, empty and anything else are
    /// unknown.
    pub(crate) fn of_tag(tag: Option<&str>) -> TimeClass {
        let Some(text) = tag.map(str::trim) else {
            return TimeClass::Unknown;
        };
        // `1 day`, `3 Days` (no allocation: this runs for every game).
        let says_days = text
            .as_bytes()
            .windows(3)
            .any(|w| w.eq_ignore_ascii_case(b"day"));
        if text == "-" || says_days {
            return TimeClass::Correspondence;
        }
        // The first period counts.
        let first = text.split_once(':').map_or(text, |(first, _)| first);
        let first = first.strip_prefix('*').unwrap_or(first);
        let (moves, clock) = match first.split_once('/') {
            Some((moves, clock)) => (Some(moves), clock),
            None => (None, first),
        };
        let (base, increment) = match clock.split_once('+') {
            Some((base, increment)) => (base, increment),
            None => (clock, "0"),
        };
        let (Some(base), Some(increment)) = (seconds(base), seconds(increment)) else {
            return TimeClass::Unknown;
        };
        if let Some(moves) = moves {
            match moves.trim().parse::<u64>() {
                // One move per day or more: correspondence.
                Ok(n) if n > 0 && base / n >= 86_400 => return TimeClass::Correspondence,
                Ok(n) if n > 0 => {}
                _ => return TimeClass::Unknown,
            }
        }
        TimeClass::of_estimate(base.saturating_add(increment.saturating_mul(40)))
    }
}

/// The base time and increment of a `TimeControl` tag in whole seconds:
/// `300+2` → (300, 2), `600` (sudden death) → (600, 0). None for anything
/// else (`-`, `?`, several periods `40/7200:3600`, sandclock `*180`).
pub(crate) fn base_and_increment(tag: &str) -> Option<(u64, u64)> {
    let text = tag.trim();
    if text.contains(['/', ':', '*']) {
        return None;
    }
    let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
    Some((seconds(base)?, seconds(increment)?))
}

/// Whole seconds; lichess exports fractions of a minute as `15+0` already,
/// but some sites write `0.5+0`: fractions are rounded down.
fn seconds(text: &str) -> Option<u64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Ok(n) = text.parse::<u64>() {
        return Some(n);
    }
    text.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite() && *f >= 0.0)
        .map(|f| f as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_and_increment_of_simple_time_controls() {
        assert_eq!(base_and_increment("300+3"), Some((300, 3)));
        assert_eq!(base_and_increment(" 600 "), Some((600, 0)));
        assert_eq!(base_and_increment("15+0"), Some((15, 0)));
        for other in ["-", "?", "", "40/7200:3600", "*180", "1 in 3 days", "x+1"] {
            assert_eq!(base_and_increment(other), None, "{other}");
        }
    }

    fn class(tag: &str) -> &'static str {
        TimeClass::of_tag(Some(tag)).as_str()
    }

    #[test]
    fn every_boundary_of_the_lichess_rule() {
        assert_eq!(class("29"), "ultrabullet");
        assert_eq!(class("15+0"), "ultrabullet");
        assert_eq!(class("30"), "bullet");
        assert_eq!(class("60+1"), "bullet"); // 100 s
        assert_eq!(class("179"), "bullet");
        assert_eq!(class("180+0"), "blitz");
        assert_eq!(class("120+1"), "bullet"); // 160 s
        assert_eq!(class("120+2"), "blitz"); // 200 s
        assert_eq!(class("479"), "blitz");
        assert_eq!(class("480"), "rapid");
        assert_eq!(class("300+5"), "rapid"); // 500 s
        assert_eq!(class("1499"), "rapid");
        assert_eq!(class("1500"), "classical");
        assert_eq!(class("900+15"), "classical"); // 1500 s
        assert_eq!(class("21599"), "classical");
        assert_eq!(class("21600"), "correspondence");
    }

    #[test]
    fn other_forms() {
        assert_eq!(class("40/5400+30:1800+30"), "classical");
        assert_eq!(class("40/7200:3600"), "classical");
        assert_eq!(class("*180"), "blitz");
        assert_eq!(class("-"), "correspondence");
        assert_eq!(class("1 in 3 days"), "correspondence");
        assert_eq!(class("1/259200"), "correspondence");
        assert_eq!(class("1/86400"), "correspondence");
        assert_eq!(class("?"), "unknown");
        assert_eq!(class(""), "unknown");
        assert_eq!(class("blitz"), "unknown");
        assert_eq!(class("0/300"), "unknown");
        assert_eq!(TimeClass::of_tag(None), TimeClass::Unknown);
    }
}
