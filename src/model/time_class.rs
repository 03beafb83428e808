//! Model, speed: lichess's speed classes, which a game's `TimeControl`
//! tag is read as (`pgn::time_control`) and the opening statistics are
//! kept by (the `time_class` column).

use std::fmt;
use std::str::FromStr;

use super::ParseError;

/// lichess's speed classes, in their order (ultrabullet first); `Unknown`
/// for a game whose clock cannot be read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimeClass {
    UltraBullet,
    Bullet,
    Blitz,
    Rapid,
    Classical,
    Correspondence,
    #[default]
    Unknown,
}

impl TimeClass {
    /// Every class in its order; a class's index is its `as u8`.
    pub const ALL: [TimeClass; 7] = [
        TimeClass::UltraBullet,
        TimeClass::Bullet,
        TimeClass::Blitz,
        TimeClass::Rapid,
        TimeClass::Classical,
        TimeClass::Correspondence,
        TimeClass::Unknown,
    ];

    /// The class of its name (`blitz`), as tables write it.
    pub(crate) fn parse(name: &str) -> Option<TimeClass> {
        TimeClass::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// The class of its code (`TimeClass as u8`); None for a code that is
    /// none.
    pub(crate) fn from_code(code: u8) -> Option<TimeClass> {
        TimeClass::ALL.get(usize::from(code)).copied()
    }

    /// The name tables and the explorer's `speeds` parameter use.
    pub fn as_str(self) -> &'static str {
        match self {
            TimeClass::UltraBullet => "ultrabullet",
            TimeClass::Bullet => "bullet",
            TimeClass::Blitz => "blitz",
            TimeClass::Rapid => "rapid",
            TimeClass::Classical => "classical",
            TimeClass::Correspondence => "correspondence",
            TimeClass::Unknown => "unknown",
        }
    }

    /// lichess's name of the class (`ultraBullet`), as the explorer's API
    /// writes a game's speed; None for `unknown`, which lichess has not.
    pub fn lichess_name(self) -> Option<&'static str> {
        Some(match self {
            TimeClass::UltraBullet => "ultraBullet",
            TimeClass::Bullet => "bullet",
            TimeClass::Blitz => "blitz",
            TimeClass::Rapid => "rapid",
            TimeClass::Classical => "classical",
            TimeClass::Correspondence => "correspondence",
            TimeClass::Unknown => return None,
        })
    }

    /// The class a `speeds` item names: lichess's name or pgnlake's.
    pub fn of_any_name(name: &str) -> Option<TimeClass> {
        TimeClass::ALL
            .into_iter()
            .find(|&class| class.lichess_name() == Some(name) || class.as_str() == name)
    }

    /// lila's best score of the speed (`Speed::highscore`), by which its
    /// top games rank (an unknown speed ranks last).
    pub fn lichess_high_score(self) -> i32 {
        match self {
            TimeClass::UltraBullet => 2644,
            TimeClass::Bullet => 3352,
            TimeClass::Blitz => 2974,
            TimeClass::Rapid => 2949,
            TimeClass::Classical => 2533,
            TimeClass::Correspondence => 4000,
            TimeClass::Unknown => 10_000,
        }
    }

    /// Every name, comma-separated, for a message saying what is allowed.
    pub fn names() -> String {
        let names: Vec<&str> = TimeClass::ALL.iter().map(|t| t.as_str()).collect();
        names.join(", ")
    }

    /// The class of an estimated duration in seconds: base + 40 × increment
    /// (lichess: under 30 s ultrabullet, 180 s bullet, 480 s blitz, 1500 s
    /// rapid, 6 h classical; longer is correspondence).
    pub(crate) fn of_estimate(seconds: u64) -> TimeClass {
        match seconds {
            0..30 => TimeClass::UltraBullet,
            30..180 => TimeClass::Bullet,
            180..480 => TimeClass::Blitz,
            480..1500 => TimeClass::Rapid,
            1500..21600 => TimeClass::Classical,
            _ => TimeClass::Correspondence,
        }
    }
}

impl fmt::Display for TimeClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for TimeClass {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl FromStr for TimeClass {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<TimeClass, ParseError> {
        TimeClass::parse(text).ok_or_else(|| ParseError {
            what: "speed",
            text: text.to_owned(),
            allowed: TimeClass::names(),
        })
    }
}

/// A request's speed: lichess's name (`ultraBullet`) or pgnlake's.
impl<'de> serde::Deserialize<'de> for TimeClass {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TimeClass, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        TimeClass::of_any_name(text.trim()).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{text:?} is not a speed (ultraBullet, bullet, blitz, rapid, classical, correspondence)"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_round_trip() {
        for (code, class) in TimeClass::ALL.into_iter().enumerate() {
            assert_eq!(class as usize, code);
            assert_eq!(TimeClass::from_code(class as u8), Some(class));
            assert_eq!(class.to_string().parse::<TimeClass>(), Ok(class));
        }
        assert_eq!(TimeClass::from_code(7), None);
        let err = "fast".parse::<TimeClass>().err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "speed \"fast\" is not one: expected ultrabullet, bullet, blitz, rapid, \
                 classical, correspondence, unknown"
            )
        );
    }

    #[test]
    fn lichess_names_are_read_beside_pgnlakes() {
        assert_eq!(
            TimeClass::of_any_name("ultraBullet"),
            Some(TimeClass::UltraBullet)
        );
        assert_eq!(
            TimeClass::of_any_name("ultrabullet"),
            Some(TimeClass::UltraBullet)
        );
        assert_eq!(TimeClass::of_any_name("unknown"), Some(TimeClass::Unknown));
        assert_eq!(TimeClass::of_any_name("fast"), None);
        assert_eq!(TimeClass::Unknown.lichess_name(), None);
    }

    #[test]
    fn the_lichess_boundaries() {
        assert_eq!(TimeClass::of_estimate(29), TimeClass::UltraBullet);
        assert_eq!(TimeClass::of_estimate(30), TimeClass::Bullet);
        assert_eq!(TimeClass::of_estimate(480), TimeClass::Rapid);
        assert_eq!(TimeClass::of_estimate(21_600), TimeClass::Correspondence);
    }
}
