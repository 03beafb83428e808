//! Serve, a game as PGN (`/masters/pgn/{id}`, `/pgn/{id}`): re-read from
//! its source and written exactly as `pgnlake export` writes it (the
//! import's offset and hash checked), through export's one-game path
//! (its `games` row read by key, the game read at its offset), so a link
//! from the explorer gives the game as the archive holds it, comments and
//! all, in a folder or a lake, compacted or not.

use std::sync::Arc;

use axum::extract::State as Shared;
use axum::http::header;
use axum::response::IntoResponse;

use super::blocking;
use super::error::ApiError;
use super::query::IdPath;
use super::state::State;
use crate::export::game_pgn_at;

pub(crate) async fn masters_pgn(
    Shared(state): Shared<Arc<State>>,
    IdPath(id): IdPath,
) -> Result<impl IntoResponse, ApiError> {
    answer(state, id, true).await
}

pub(crate) async fn data_pgn(
    Shared(state): Shared<Arc<State>>,
    IdPath(id): IdPath,
) -> Result<impl IntoResponse, ApiError> {
    answer(state, id, false).await
}

async fn answer(
    state: Arc<State>,
    id: String,
    masters: bool,
) -> Result<impl IntoResponse, ApiError> {
    let pgn = blocking(&state, move |s| {
        let dir = if masters { &s.masters } else { &s.data };
        game_pgn(s, dir, &id)
    })
    .await?;
    // lila's type for its API; the page's link shows the text in the
    // browser (which would download `x-chess-pgn`).
    let kind = match masters {
        true => "application/x-chess-pgn; charset=utf-8",
        false => "text/plain; charset=utf-8",
    };
    Ok(([(header::CONTENT_TYPE, kind)], pgn))
}

/// The PGN of game `id` of the data in `dir`, with the server's footers.
pub(crate) fn game_pgn(state: &State, dir: &std::path::Path, id: &str) -> Result<String, ApiError> {
    Ok(game_pgn_at(dir, id, &state.files)?)
}
