//! Serve, where a game leaves the archive (`/novelty?game=ID`, or PGN
//! posted to `/novelty`): the game walked through the tree as `pgnlake
//! novelty` walks it, each ply with the games that reached its position
//! and those of earlier months, the novelty and the first rare ply.

use std::sync::Arc;

use axum::Json;
use axum::extract::State as Shared;
use serde::Deserialize;

use super::blocking;
use super::error::ApiError;
use super::query::{Count, Lichess};
use super::state::State;
use crate::model::Month;
use crate::read::explore::Filters;
use crate::read::novelty::{DEFAULT_RARE, Novelty, NoveltyOptions, novelty_in};
use crate::replay::steps::{GameSteps, game_steps};

/// `/novelty`'s query string: `explore`'s filters as its options spell
/// them (as `/search` takes them), and `novelty`'s own.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct NoveltyParams {
    /// A game of the data (`17`, `IMPORT:17` in a lake); with GET only.
    game: Option<String>,
    speed: Option<String>,
    rating: Option<String>,
    since: Option<String>,
    until: Option<String>,
    /// Earlier games are those of months before this one.
    before: Option<Month>,
    /// A position fewer earlier games reached is rare (10).
    rare: Option<Count>,
}

impl NoveltyParams {
    fn options(&self) -> Result<NoveltyOptions, ApiError> {
        let filters = Filters::parse(
            self.speed.as_deref(),
            self.rating.as_deref(),
            self.since.as_deref(),
            self.until.as_deref(),
        )?;
        Ok(NoveltyOptions {
            filters,
            before: self.before,
            rare: self.rare.as_ref().map_or(DEFAULT_RARE, |n| n.0),
        })
    }
}

/// `GET /novelty?game=ID`: a game of the data.
pub(crate) async fn of_game(
    Shared(state): Shared<Arc<State>>,
    Lichess(params): Lichess<NoveltyParams>,
) -> Result<Json<Novelty>, ApiError> {
    let options = params.options()?;
    let id = params
        .game
        .ok_or_else(|| ApiError::bad_request("give game= (a game's id), or POST its PGN"))?;
    let answer = blocking(&state, move |s| {
        let steps = data_game_steps(s, &id)?;
        walk(s, &steps, &options)
    })
    .await?;
    Ok(Json(answer))
}

/// `POST /novelty` with one game's PGN as the body.
pub(crate) async fn of_pgn(
    Shared(state): Shared<Arc<State>>,
    Lichess(params): Lichess<NoveltyParams>,
    body: String,
) -> Result<Json<Novelty>, ApiError> {
    if params.game.is_some() {
        return Err(ApiError::bad_request(
            "game= is for GET: POST the game's PGN without it",
        ));
    }
    let options = params.options()?;
    let steps = game_steps(&body).map_err(|e| ApiError::bad_request(format!("the PGN: {e}")))?;
    let answer = blocking(&state, move |s| walk(s, &steps, &options)).await?;
    Ok(Json(answer))
}

/// The steps of game `id` of the data, as the game page reads them.
pub(crate) fn data_game_steps(state: &State, id: &str) -> Result<GameSteps, ApiError> {
    let pgn = super::pgn::game_pgn(state, &state.data, id)?;
    // The game export wrote replays as the import replayed it: a game
    // that does not is a table or source at odds with the import.
    game_steps(&pgn).map_err(|e| ApiError::internal(format!("game {id}: {e}")))
}

/// `steps` walked through the data's tree.
pub(crate) fn walk(
    state: &State,
    steps: &GameSteps,
    options: &NoveltyOptions,
) -> Result<Novelty, ApiError> {
    let data = state.data_at(&state.data)?;
    Ok(novelty_in(&data, steps, options, &state.files)?)
}
