//! Serve, search (`/search?q=<json>` or `/search?fen=<FEN>`): the games of
//! the data matching a scoutfish query or reaching a position at any move,
//! with their statistics and the first of them, as `pgnlake search` finds
//! them (a scan of the games table, on the readers' threads).

use std::sync::Arc;

use axum::Json;
use axum::extract::State as Shared;
use serde::{Deserialize, Serialize};

use super::blocking;
use super::error::ApiError;
use super::query::Lichess;
use super::state::State;
use crate::error::Error;
use crate::read::explore::Filters;
use crate::read::search::{SearchOptions, SearchStats, search as scan};
use crate::replay::scout::Query;

/// Games listed when `games` is not given, and at most.
const GAMES: usize = 10;
const MAX_GAMES: usize = 100;

/// `/search`'s query string.
#[derive(Debug, Deserialize)]
pub(crate) struct SearchParams {
    /// scoutfish's JSON query.
    q: Option<String>,
    /// One exact position (the explorer page's link).
    fen: Option<String>,
    /// `explore`'s filters, as its options spell them.
    speed: Option<String>,
    rating: Option<String>,
    since: Option<String>,
    until: Option<String>,
    /// How many of the matching games to list (10; at most 100).
    games: Option<String>,
}

/// One game listed.
#[derive(Debug, Serialize)]
struct Found {
    #[serde(skip_serializing_if = "String::is_empty")]
    import: String,
    id: i64,
    ply: Vec<u32>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Answer {
    /// Games searched (the filters' games) and games matching.
    searched: u64,
    matched: u64,
    stats: SearchStats,
    games: Vec<Found>,
}

pub(crate) async fn search(
    Shared(state): Shared<Arc<State>>,
    Lichess(params): Lichess<SearchParams>,
) -> Result<Json<Answer>, ApiError> {
    let query = match (&params.q, &params.fen) {
        (Some(q), None) => Query::parse(q),
        (None, Some(fen)) if !fen.trim_start().starts_with('{') => Query::parse(fen),
        (None, Some(_)) => {
            return Err(ApiError::bad_request(
                "fen= takes a FEN; a JSON query goes in q=",
            ));
        }
        (Some(_), Some(_)) => return Err(ApiError::bad_request("give q= or fen=, not both")),
        (None, None) => {
            return Err(ApiError::bad_request(
                "give q= (scoutfish's JSON query) or fen= (one position)",
            ));
        }
    }
    .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let filters = Filters::parse(
        params.speed.as_deref(),
        params.rating.as_deref(),
        params.since.as_deref(),
        params.until.as_deref(),
    )?;
    let listed = match params.games.as_deref().map(str::trim) {
        None | Some("") => GAMES,
        Some(text) => text.parse::<usize>().map_err(|_| {
            ApiError::bad_request(format!(
                "games={text:?}: expected a count from 0 to {MAX_GAMES}"
            ))
        })?,
    }
    .min(MAX_GAMES);
    let answer = blocking(&state, move |s| {
        let mut games = Vec::new();
        let options = SearchOptions {
            data: &s.data,
            query: &query,
            filters: &filters,
            threads: 0,
            progress: &|_| {},
        };
        let searched = scan(&options, |found| {
            if games.len() < listed {
                games.push(Found {
                    import: found.import.clone(),
                    id: found.game_id,
                    ply: found.plies.clone(),
                });
            }
            Ok(())
        })
        .map_err(api_error)?;
        Ok(Answer {
            searched: searched.games_searched,
            matched: searched.matched,
            stats: searched.stats,
            games,
        })
    })
    .await?;
    Ok(Json(answer))
}

/// A search's error: the request's fault is a 400, the tables' a 500.
fn api_error(error: Error) -> ApiError {
    match error {
        Error::Explore(e) => e.into(),
        Error::Search(e) => ApiError::bad_request(e.to_string()),
        Error::Summary(e) => e.into(),
        other => ApiError::internal(other.to_string()),
    }
}
