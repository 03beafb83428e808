//! Model, mode: a lichess game's mode, rated or casual, as its `Event`
//! tag says (`Rated Blitz game`) and the `modes` parameter of `/player`
//! names it.

use std::fmt;
use std::str::FromStr;

use super::ParseError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Rated,
    Casual,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::Rated, Mode::Casual];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Rated => "rated",
            Mode::Casual => "casual",
        }
    }

    /// The mode lichess's `Event` says (`Rated Blitz game`, `Casual
    /// Rapid game`); None when the event does not say (an OTB event).
    pub fn of_event(event: Option<&str>) -> Option<Mode> {
        let event = event?.to_ascii_lowercase();
        Mode::ALL
            .into_iter()
            .find(|m| event.starts_with(&format!("{} ", m.as_str())))
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Mode {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Mode, ParseError> {
        Mode::ALL
            .into_iter()
            .find(|m| m.as_str() == text.trim())
            .ok_or_else(|| ParseError {
                what: "mode",
                text: text.to_owned(),
                allowed: "rated, casual".to_owned(),
            })
    }
}

impl serde::Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Mode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Mode, D::Error> {
        super::from_text(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_come_from_lichess_events() {
        assert_eq!(Mode::of_event(Some("Rated Blitz game")), Some(Mode::Rated));
        assert_eq!(
            Mode::of_event(Some("Casual Rapid game")),
            Some(Mode::Casual)
        );
        assert_eq!(Mode::of_event(Some("Wijk aan Zee")), None);
        assert_eq!(Mode::of_event(None), None);
        assert_eq!("casual".parse::<Mode>(), Ok(Mode::Casual));
        assert!("fast".parse::<Mode>().is_err());
    }
}
