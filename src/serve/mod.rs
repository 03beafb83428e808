//! Serve, `pgnlake serve`: the lichess opening explorer's HTTP API
//! (`/lichess`, `/masters`, `/masters/pgn/{id}`, `/player`) and an
//! explorer page for people (`/`), over an import's folder or a lake, on
//! axum and tokio.
//!
//! Read-only, and never a file named by a request: every answer comes from
//! the folders given at start. Each request opens the data anew (a lake's
//! commits and compactions are seen at once, its lock held shared for
//! the milliseconds of one answer), while the tables' footers stay in
//! memory (`read::keyed`): one answer reads the row groups of its position
//! and of its games, nothing else. The reading runs on tokio's blocking
//! threads, at most `READERS` at a time (measured: fewer, one per core,
//! answered a fifth fewer requests a second, as reads wait on the disk's
//! pages too), `/player` streams on their own few; the connections are
//! async, so a slow or vanished client holds no reader.
//!
//! The rooms: `params` reads a query string as lichess does, `api` answers
//! `/lichess` and `/masters` in lila-openingexplorer's JSON, `player`
//! streams `/player`'s NDJSON, `pgn` the games as PGN, `page` the HTML.

mod api;
mod games;
mod page;
mod params;
mod pgn;
mod player;
mod state;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use self::state::State;
use crate::error::Error;

/// `/player` streams read at once, beside the other answers' readers
/// (one per core): a long stream never holds up `/lichess`.
const PLAYER_READERS: usize = 2;

/// Readers of the tables at once for the other answers; more requests
/// wait their turn asynchronously.
const READERS: usize = 8;

/// How long a stop waits for answers under way (a `/player` stream
/// included) before the server exits anyway.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// What `pgnlake serve` was asked to do.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The import's folder or lake `/lichess`, `/player` and the page read.
    pub data: PathBuf,
    /// What `/masters` reads (`data` when None).
    pub masters: Option<PathBuf>,
    pub listen: SocketAddr,
    /// Send `Access-Control-Allow-Origin: *`, for pages of other origins.
    pub cors: bool,
    /// Print the address and stop lines (off for tests that read stdout).
    pub quiet: bool,
}

/// Serves until SIGINT or SIGTERM (then Ok: the only way it ends well).
pub fn serve(options: &ServeOptions) -> Result<(), Error> {
    let state = Arc::new(State::open(options)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(READERS + PLAYER_READERS + 4)
        .thread_name("pgnlake-serve")
        .enable_all()
        .build()
        .map_err(|e| Error::Usage(format!("cannot start the server's threads: {e}")))?;
    runtime.block_on(run(state, options))
}

async fn run(state: Arc<State>, options: &ServeOptions) -> Result<(), Error> {
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .map_err(|e| Error::Usage(format!("{}: cannot listen: {e}", options.listen)))?;
    let address = listener
        .local_addr()
        .map_err(|e| Error::Usage(format!("{}: cannot listen: {e}", options.listen)))?;
    if !options.quiet {
        // The line scripts and tests wait for (with the port a `:0` got).
        say(&format!("pgnlake serve: listening on http://{address}/"));
    }
    let app = router(state, options.cors);
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stopping = {
        let mut stop_rx = stop_rx.clone();
        async move {
            let _ = stop_rx.wait_for(|stop| *stop).await;
        }
    };
    let server = axum::serve(listener, app).with_graceful_shutdown(stopping);
    let signals = async move {
        stop_signal().await;
        let _ = stop_tx.send(true);
        tokio::time::sleep(STOP_GRACE).await;
    };
    tokio::select! {
        result = server => result.map_err(|e| Error::Usage(format!("the server stopped: {e}")))?,
        () = signals => {}
    }
    if !options.quiet {
        say("pgnlake serve: stopped");
    }
    Ok(())
}

/// A line on stdout; a reader that went away (a script that read the
/// address and closed the pipe) changes nothing.
fn say(line: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
}

/// SIGINT or SIGTERM.
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut interrupt), Ok(mut terminate)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        // No handler: the default action (exit) stays.
        return std::future::pending().await;
    };
    tokio::select! {
        _ = interrupt.recv() => {}
        _ = terminate.recv() => {}
    }
}

fn router(state: Arc<State>, cors: bool) -> Router {
    let app = Router::new()
        .route("/", get(page::index))
        .route("/game/{id}", get(page::game))
        .route("/lichess", get(api::lichess))
        .route("/lichess/history", get(api::lichess_history))
        .route("/masters", get(api::masters))
        .route("/masters/pgn/{id}", get(pgn::masters_pgn))
        // lila-openingexplorer's own path, which clients (berserk) use.
        .route("/master/pgn/{id}", get(pgn::masters_pgn))
        .route("/pgn/{id}", get(pgn::data_pgn))
        .route("/player", get(player::player))
        .route("/health", get(|| async { "ok\n" }))
        .fallback(not_found)
        .with_state(state);
    match cors {
        true => app.layer(axum::middleware::map_response(allow_any_origin)),
        false => app,
    }
}

async fn allow_any_origin(mut response: Response) -> Response {
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

async fn not_found(uri: axum::http::Uri) -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!("no such page: {}", uri.path()),
    )
    .into_response()
}

/// An answer that is not the one asked for: 400 for a bad request, 404
/// for what is not there, 500 for a table that cannot be read (said in
/// one line on stderr too), as `{"error": ...}`.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// Its status and message (for a page that shows it).
    pub(crate) fn parts(self) -> (StatusCode, String) {
        (self.status, self.message)
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// A failure of the server's reading: logged, and a 500.
    pub(crate) fn internal(message: impl Into<String>) -> ApiError {
        let message = message.into();
        eprintln!("pgnlake serve: {message}");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl From<params::BadRequest> for ApiError {
    fn from(e: params::BadRequest) -> ApiError {
        ApiError::bad_request(e.0)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message });
        (self.status, axum::Json(body)).into_response()
    }
}

/// A permit of `readers`, when one is free.
pub(crate) async fn reader(
    readers: &Arc<tokio::sync::Semaphore>,
) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
    readers
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| ApiError::internal("the server is stopping"))
}

/// Runs `work` on a blocking thread, when a reader is free.
pub(crate) async fn blocking<T: Send + 'static>(
    state: &Arc<State>,
    work: impl FnOnce(&State) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = reader(&state.readers).await?;
    let state = state.clone();
    let joined = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work(&state)
    })
    .await;
    joined.unwrap_or_else(|e| Err(ApiError::internal(format!("a reader failed: {e}"))))
}
