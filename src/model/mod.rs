//! Model: the dimensions the opening statistics are kept by (speed, month,
//! rating band) and the ranges a reader filters them with, one type per
//! file with its parsing, display and column encoding, as
//! lila-openingexplorer keeps them in its `model/`. Every stage and command
//! spells a dimension through these types; this folder uses nothing else of
//! the crate.

pub(crate) mod calendar;
pub mod mode;
pub mod month;
pub mod range;
pub mod rating_band;
pub mod rating_group;
pub mod time_class;

pub use mode::Mode;
pub use month::Month;
pub use range::{BandRange, MonthRange};
pub use rating_band::RatingBand;
pub use rating_group::RatingGroup;
pub use time_class::TimeClass;

/// A dimension's text that is not one of its values: `what` names the
/// dimension, `allowed` says what would be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub what: &'static str,
    pub text: String,
    pub allowed: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {:?} is not one: expected {}",
            self.what, self.text, self.allowed
        )
    }
}

impl std::error::Error for ParseError {}

/// A dimension deserialized from its text by its `FromStr` (a request's
/// parameter), the parse error as serde's message.
pub(crate) fn from_text<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: std::str::FromStr<Err = ParseError>,
{
    let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
    text.parse().map_err(serde::de::Error::custom)
}
