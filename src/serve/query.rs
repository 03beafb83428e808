//! Serve, a request's query string read into a typed query (the `model/`
//! types: speeds, rating groups, modes, months), as lila-openingexplorer
//! deserializes it: a list as `speeds=blitz,rapid` or the older
//! `speeds[]=blitz&speeds[]=rapid`, an empty value as absent, an unknown
//! parameter ignored, a bad value a 400 naming the parameter.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::de::{self, DeserializeOwned, IntoDeserializer};

use super::error::ApiError;

/// Characters a query string may hold at most (lichess's server refuses
/// far shorter URLs); a longer one is a 414, never read.
pub(crate) const MAX_QUERY_BYTES: usize = 16 * 1024;

/// The query string of a request as `T`.
#[derive(Debug, Clone)]
pub(crate) struct Lichess<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Lichess<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Ok(Lichess(parse(parts.uri.query())?))
    }
}

/// The id in a path (`/pgn/{id}`, `/game/{id}`): a path that does not
/// decode (`%ff`) is a 400 in JSON, as every error of the API (the game
/// page takes it as a `Result` and shows the 400 in its page).
#[derive(Debug, Clone)]
pub(crate) struct IdPath(pub String);

impl<S: Send + Sync> FromRequestParts<S> for IdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Path(id) =
            axum::extract::Path::<String>::from_request_parts(parts, state)
                .await
                .map_err(|e| {
                    ApiError::bad_request(format!("{}: {}", parts.uri.path(), e.body_text()))
                })?;
        Ok(IdPath(id))
    }
}

/// `query` (`a=1&b=x+y`: percent-decoded, `+` as a space, as HTML forms
/// and python's `requests` send it) as `T`.
pub(crate) fn parse<T: DeserializeOwned>(query: Option<&str>) -> Result<T, ApiError> {
    let query = query.unwrap_or("");
    if query.len() > MAX_QUERY_BYTES {
        return Err(ApiError::uri_too_long(format!(
            "the query string is {} bytes; at most {MAX_QUERY_BYTES} are read",
            query.len()
        )));
    }
    let pairs = serde_urlencoded::from_str::<Vec<(String, String)>>(query)
        .map_err(|e| ApiError::bad_request(format!("the query string is not readable: {e}")))?;
    // `name[]` is `name`; repeated values are one list (lila refuses a
    // repeated parameter: here a repeated single value is a bad value).
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    for (key, value) in pairs {
        if value.trim().is_empty() {
            continue;
        }
        let key = key.strip_suffix("[]").unwrap_or(&key).to_owned();
        values
            .entry(key)
            .and_modify(|v| {
                v.push(',');
                v.push_str(&value);
            })
            .or_insert(value);
    }
    let map = de::value::MapDeserializer::<_, de::value::Error>::new(
        values.into_iter().map(|(k, v)| (k, Value(v))),
    );
    serde_path_to_error::deserialize(map).map_err(|e| {
        let name = e.path().to_string();
        ApiError::bad_request(format!("{name}: {}", e.inner()))
    })
}

/// A parameter's value: a string, which a field may also take as an
/// `Option` (present).
struct Value(String);

impl<'de> IntoDeserializer<'de, de::value::Error> for Value {
    type Deserializer = Value;

    fn into_deserializer(self) -> Value {
        self
    }
}

impl<'de> de::Deserializer<'de> for Value {
    type Error = de::value::Error;

    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_string(self.0)
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_some(self)
    }

    /// A unit variant by its name (`color=white`).
    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(self.0.into_deserializer())
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

/// A comma-separated list (items trimmed, empty ones dropped; in their
/// order, repeated ones kept: `play` repeats moves).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct List<T>(pub Vec<T>);

impl<T> Default for List<T> {
    fn default() -> List<T> {
        List(Vec::new())
    }
}

impl<T: PartialEq + Clone> List<T> {
    /// Its items, each once, in the order first given.
    pub(crate) fn distinct(&self) -> Vec<T> {
        let mut items: Vec<T> = Vec::new();
        for item in &self.0 {
            if !items.contains(item) {
                items.push(item.clone());
            }
        }
        items
    }
}

impl<'de, T: DeserializeOwned> de::Deserialize<'de> for List<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<List<T>, D::Error> {
        let text = String::deserialize(d)?;
        let mut items = Vec::new();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let value = T::deserialize(item.into_deserializer())
                .map_err(|e: de::value::Error| de::Error::custom(e))?;
            items.push(value);
        }
        Ok(List(items))
    }
}

/// A value read by its `FromStr` (a count, a year), the message saying
/// what was expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Text<T, E: Expected>(pub T, PhantomData<E>);

/// What a [`Text`] expects, for its message.
pub(crate) trait Expected {
    const WHAT: &'static str;
}

/// A count: `0`, `12` (a number past the cap is taken as the cap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ACount;
impl Expected for ACount {
    const WHAT: &'static str = "a count (0 or more)";
}
pub(crate) type Count = Text<u64, ACount>;

/// A year: `1990`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AYear;
impl Expected for AYear {
    const WHAT: &'static str = "a year";
}
pub(crate) type Year = Text<u16, AYear>;

impl<'de, T: FromStr, E: Expected> de::Deserialize<'de> for Text<T, E> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Text<T, E>, D::Error> {
        let text = String::deserialize(d)?;
        text.trim()
            .parse()
            .map(|v| Text(v, PhantomData))
            .map_err(|_| de::Error::custom(format!("{text:?}: expected {}", E::WHAT)))
    }
}

impl Count {
    /// `count` (absent: `default`), at most `max`, as lichess caps it.
    pub(crate) fn capped(count: Option<Count>, default: usize, max: usize) -> usize {
        match count {
            None => default,
            Some(Text(n, _)) => usize::try_from(n).unwrap_or(usize::MAX).min(max),
        }
    }
}

/// A boolean as lila reads one: `true`/`false`, `1`/`0`, `yes`/`no`,
/// `on`/`off`, in any case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Flag(pub bool);

impl<'de> de::Deserialize<'de> for Flag {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Flag, D::Error> {
        let text = String::deserialize(d)?;
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(Flag(true)),
            "false" | "0" | "no" | "off" => Ok(Flag(false)),
            _ => Err(de::Error::custom(format!(
                "{text:?}: expected true or false"
            ))),
        }
    }
}

impl fmt::Display for Flag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Month, RatingGroup, TimeClass};

    #[derive(Debug, serde::Deserialize)]
    struct Asked {
        #[serde(default)]
        speeds: List<TimeClass>,
        #[serde(default)]
        ratings: List<RatingGroup>,
        fen: Option<String>,
        x: Option<String>,
        history: Option<Flag>,
        since: Option<Month>,
        moves: Option<Count>,
    }

    fn asked(query: &str) -> Result<Asked, String> {
        parse::<Asked>(Some(query)).map_err(|e| e.message().to_owned())
    }

    #[test]
    fn lists_come_comma_separated_or_bracketed_and_values_decoded() {
        let a = asked(
            "speeds=blitz%2Crapid&speeds[]=bullet&speeds=blitz&fen=8%2F8+w+-+-&x=&history=True&other=1",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            a.speeds.distinct(),
            [TimeClass::Blitz, TimeClass::Rapid, TimeClass::Bullet]
        );
        assert_eq!(a.fen.as_deref(), Some("8/8 w - -"));
        assert_eq!(a.x, None);
        assert_eq!(a.history, Some(Flag(true)));
        assert!(a.ratings.0.is_empty());
        assert_eq!(a.moves, None);
    }

    #[test]
    fn a_bad_value_names_its_parameter() {
        let ratings = asked("ratings=1500,abc").err();
        assert!(
            ratings
                .as_deref()
                .is_some_and(|m| m.starts_with("ratings: ")),
            "{ratings:?}"
        );
        let speeds = asked("speeds=fast").err();
        assert!(
            speeds
                .as_deref()
                .is_some_and(|m| m.starts_with("speeds: ") && m.contains("fast")),
            "{speeds:?}"
        );
        assert_eq!(
            asked("moves=-1").err().as_deref(),
            Some("moves: \"-1\": expected a count (0 or more)")
        );
        assert!(asked("history=maybe").is_err());
        assert!(asked("since=2020").is_err());
        let a = asked("since=2020-1&ratings=1500,2500,2800").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.since.map(|m| m.to_string()).as_deref(), Some("2020-01"));
        assert_eq!(a.ratings.distinct().len(), 2);
        let long = "a".repeat(MAX_QUERY_BYTES + 1);
        let too_long = parse::<Asked>(Some(&long)).err().map(|e| e.status());
        assert_eq!(too_long, Some(axum::http::StatusCode::URI_TOO_LONG));
    }

    #[test]
    fn counts_are_capped() {
        assert_eq!(Count::capped(Some(Text(99, PhantomData)), 12, 30), 30);
        assert_eq!(Count::capped(None, 12, 30), 12);
    }
}
