//! Serve, the explorer page's own reading of its query string: the
//! values as the user typed them, echoed back into the page's boxes and
//! links (a FEN that is not one stays in its box to be fixed). The API's
//! answers read typed queries (`query`); the page reads those too, for
//! what it asks the API.

/// A bad parameter: the message of the 400 answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadRequest(pub String);

impl BadRequest {
    pub(crate) fn new(message: impl Into<String>) -> BadRequest {
        BadRequest(message.into())
    }
}

/// The parameters of a query string, in their order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Params {
    pairs: Vec<(String, String)>,
}

/// Characters a query string may hold at most (lichess's server refuses
/// far shorter URLs); a longer one is a 400, never read.
pub(crate) const MAX_QUERY_BYTES: usize = 16 * 1024;

impl Params {
    /// The parameters of `query` (`a=1&b=x+y`, percent-decoded, `+` as a
    /// space, as HTML forms and python's `requests` send it).
    pub(crate) fn parse(query: Option<&str>) -> Result<Params, BadRequest> {
        let query = query.unwrap_or("");
        if query.len() > MAX_QUERY_BYTES {
            return Err(BadRequest::new(format!(
                "the query string is {} bytes; at most {MAX_QUERY_BYTES} are read",
                query.len()
            )));
        }
        let pairs = serde_urlencoded::from_str::<Vec<(String, String)>>(query)
            .map_err(|e| BadRequest::new(format!("the query string is not readable: {e}")))?;
        Ok(Params { pairs })
    }

    /// The last value of `name` (None: absent or empty, as lichess reads
    /// an empty value).
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
            .filter(|value| !value.trim().is_empty())
    }

    /// Every item of list `name`: `name=a,b`, `name[]=a&name[]=b`, or both;
    /// items trimmed, empty ones dropped.
    pub(crate) fn list(&self, name: &str) -> Vec<&str> {
        let bracketed = format!("{name}[]");
        self.pairs
            .iter()
            .filter(|(key, _)| *key == name || *key == bracketed)
            .flat_map(|(_, value)| value.split(','))
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .collect()
    }

    /// `name` as a count: `default` when absent, at most `max` (a larger
    /// value is taken as `max`, as lichess caps it).
    pub(crate) fn count(
        &self,
        name: &str,
        default: usize,
        max: usize,
    ) -> Result<usize, BadRequest> {
        let Some(text) = self.get(name) else {
            return Ok(default);
        };
        let n = text.trim().parse::<u64>().map_err(|_| {
            BadRequest::new(format!("{name}={text:?}: expected a count from 0 to {max}"))
        })?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX).min(max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(query: &str) -> Params {
        Params::parse(Some(query)).unwrap_or_else(|e| panic!("{}", e.0))
    }

    #[test]
    fn lists_come_comma_separated_or_bracketed_and_values_decoded() {
        let p = params("speeds=blitz%2Crapid&speeds[]=bullet&fen=8%2F8+w+-+-&x=&history=True");
        assert_eq!(p.list("speeds"), ["blitz", "rapid", "bullet"]);
        assert_eq!(p.get("fen"), Some("8/8 w - -"));
        assert_eq!(p.get("x"), None);
        assert!(p.list("ratings").is_empty());
    }

    #[test]
    fn counts_are_capped_and_bad_values_named() {
        let p = params("moves=99&topGames=abc&recentGames=2");
        assert_eq!(p.count("moves", 12, 30), Ok(30));
        assert_eq!(p.count("recentGames", 4, 4), Ok(2));
        assert_eq!(p.count("absent", 4, 4), Ok(4));
        assert_eq!(
            p.count("topGames", 4, 4),
            Err(BadRequest::new(
                "topGames=\"abc\": expected a count from 0 to 4"
            ))
        );
        let long = "a".repeat(MAX_QUERY_BYTES + 1);
        assert!(Params::parse(Some(&long)).is_err());
    }
}
