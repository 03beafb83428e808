//! Serve, a game as PGN (`/masters/pgn/{id}`, `/pgn/{id}`): re-read from
//! its source and written exactly as `pgnlake export` writes it (the
//! import's offset and hash checked), so a link from the explorer gives
//! the game as the archive holds it, comments and all.

use std::sync::Arc;

use axum::extract::{Path, State as Shared};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::games::GameRef;
use super::state::State;
use super::{ApiError, blocking};
use crate::export::{ExportOptions, run_export};
use crate::read::query::split_statements;
use crate::read::source::Data;

pub(crate) async fn masters_pgn(
    Shared(state): Shared<Arc<State>>,
    Path(id): Path<String>,
) -> Response {
    answer(&state, id, true).await
}

pub(crate) async fn data_pgn(
    Shared(state): Shared<Arc<State>>,
    Path(id): Path<String>,
) -> Response {
    answer(&state, id, false).await
}

async fn answer(state: &Arc<State>, id: String, masters: bool) -> Response {
    let pgn = blocking(state, move |s| {
        let dir = if masters { &s.masters } else { &s.data };
        game_pgn(dir, &id)
    })
    .await;
    // lila's type for its API; the page's link shows the text in the
    // browser (which would download `x-chess-pgn`).
    let kind = match masters {
        true => "application/x-chess-pgn; charset=utf-8",
        false => "text/plain; charset=utf-8",
    };
    match pgn {
        Ok(text) => ([(header::CONTENT_TYPE, kind)], text).into_response(),
        Err(e) => e.into_response(),
    }
}

/// The PGN of game `id` of the data in `dir`.
pub(crate) fn game_pgn(dir: &std::path::Path, id: &str) -> Result<String, ApiError> {
    let data = Data::open(dir).map_err(|e| ApiError::internal(e.to_string()))?;
    let game = GameRef::parse(id, data.is_lake()).ok_or_else(|| {
        let form = if data.is_lake() {
            "IMPORT:GAME_ID"
        } else {
            "GAME_ID"
        };
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("{id:?} is not a game id here ({form})"),
        )
    })?;
    // The import's name is letters, digits, `.`, `_` and `-` (checked in
    // parsing): nothing to quote.
    let sql = match &game.import {
        Some(import) => format!(
            "SELECT game_id FROM games WHERE import = '{import}' AND game_id = {}",
            game.id
        ),
        None => format!("SELECT game_id FROM games WHERE game_id = {}", game.id),
    };
    let statement = split_statements(&sql)
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::internal("no statement"))?;
    let spill = tempfile::Builder::new()
        .prefix(".pgnlake-serve-")
        .suffix(".pgn")
        .tempfile()
        .map_err(|e| ApiError::internal(format!("cannot make a temporary file: {e}")))?;
    let options = ExportOptions {
        data: dir.to_path_buf(),
        statement,
        place: format!("game {id}"),
        output: spill.path().to_path_buf(),
        fix_results: false,
        repair: false,
        threads: 1,
        quiet: true,
    };
    let summary = run_export(&options).map_err(|e| ApiError::internal(e.to_string()))?;
    if summary.selected == 0 {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no game {id}"),
        ));
    }
    if summary.written == 0 {
        let why = summary.problems.join("; ");
        return Err(ApiError::internal(format!(
            "game {id} could not be re-read: {why}"
        )));
    }
    std::fs::read_to_string(spill.path())
        .map_err(|e| ApiError::internal(format!("{}: {e}", spill.path().display())))
}
