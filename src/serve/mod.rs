//! Serve, `pgnlake serve`: the lichess opening explorer's HTTP API
//! (`/lichess`, `/masters`, `/masters/pgn/{id}`, `/player`) and an
//! explorer page for people (`/`), over an import's folder or a lake, on
//! axum and tokio.
//!
//! Read-only, and never a file named by a request: every answer comes from
//! the folders given at start. A lake's summaries are kept until its
//! folder changes (a commit or compaction is seen at once), and the
//! tables' footers stay in memory (`read::keyed`): one answer reads the
//! pages of its position and of its games, nothing else. The reading runs
//! on tokio's blocking threads, `--readers` at a time, granted in order;
//! the connections are async, so a slow or vanished client holds no
//! reader, and bounded: a head must come within `--header-timeout`, and
//! past `--max-connections` a new one is refused (`listen`).
//!
//! The rooms: `listen` accepts the connections, `query` reads a query
//! string into typed queries as lila does, `error` is the one error path,
//! `api` answers `/lichess` and `/masters` in lila-openingexplorer's JSON,
//! `player` streams `/player`'s NDJSON, `pgn` the games as PGN, `page` the
//! HTML.

mod api;
mod error;
mod games;
mod guard;
mod listen;
mod novelty;
mod page;
mod params;
mod pgn;
mod player;
mod query;
mod search;
mod state;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{Method, StatusCode, Uri};
use axum::response::IntoResponse;
use axum::routing::get;
use tower_http::cors::{Any, CorsLayer};
use tower_http::timeout::RequestBodyTimeoutLayer;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};

pub(crate) use self::error::ApiError;
use self::state::State;
use crate::error::Error;

/// How long a client has to send a request's body.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a stop waits for answers under way (a `/player` stream
/// included) before the server exits anyway.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// A URI longer than this is a 414 (the query string's own limit is
/// `query::MAX_QUERY_BYTES`; hyper refuses past 64 KiB itself).
const MAX_URI_BYTES: usize = 20 * 1024;

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
    /// The threads answering connections (tokio's workers).
    pub threads: usize,
    /// Readers of the tables at once: answers beyond wait their turn, in
    /// order. `/player` streams read on `threads` threads of their own,
    /// at a lower priority.
    pub readers: usize,
    /// Connections open at once; one more is answered 503 and closed.
    pub max_connections: usize,
    /// How long a client has to send a request's head; an idle keep-alive
    /// connection is closed after it too.
    pub header_timeout: Duration,
    /// One line on stderr per request (method, path, status, latency).
    pub log_requests: bool,
}

impl ServeOptions {
    /// The defaults for `data`: one thread per core, four readers per
    /// thread (measured: reads wait on the disk's pages too, so one per
    /// core answered a fifth fewer requests a second), connections up to
    /// what the file limit leaves.
    pub fn new(data: PathBuf, listen: SocketAddr) -> ServeOptions {
        let threads = std::thread::available_parallelism().map_or(2, usize::from);
        ServeOptions {
            data,
            masters: None,
            listen,
            cors: false,
            quiet: false,
            threads,
            readers: 4 * threads,
            max_connections: listen::default_max_connections(),
            header_timeout: Duration::from_secs(10),
            log_requests: true,
        }
    }
}

/// Serves until SIGINT or SIGTERM (then Ok: the only way it ends well).
pub fn serve(options: &ServeOptions) -> Result<(), Error> {
    if options.log_requests {
        // Another subscriber already set (a test's) is kept.
        let _ = tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_max_level(tracing::Level::INFO)
            .with_target(false)
            .try_init();
    }
    let state = Arc::new(State::open(options)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(options.threads.max(1))
        .max_blocking_threads(2 * options.readers.max(1) + 4)
        .thread_name("pgnlake-serve")
        .enable_all()
        .build()
        .map_err(|source| Error::Serve {
            what: "cannot start the server's threads".into(),
            source,
        })?;
    runtime.block_on(listen::run(state, options))
}

/// The server's routes and layers over `options`' folders, checked as
/// `serve` checks them: for answering requests in process (tests).
pub fn app(options: &ServeOptions) -> Result<Router, Error> {
    Ok(router(Arc::new(State::open(options)?), options.cors))
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
        .route("/search", get(search::search))
        .route("/novelty", get(novelty::of_game).post(novelty::of_pgn))
        .route("/health", get(|| async { "ok\n" }))
        .route(guard::TOO_LONG_PATH, axum::routing::any(uri_too_long))
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
        .with_state(state)
        .layer(axum::middleware::map_request(refuse_long_uri))
        .layer(RequestBodyTimeoutLayer::new(BODY_TIMEOUT));
    let app = match cors {
        true => app.layer(
            CorsLayer::new()
                .allow_origin(Any)
                .allow_methods([Method::GET, Method::HEAD]),
        ),
        false => app,
    };
    // Outermost: every answer logged, the layers' own included.
    app.layer(
        TraceLayer::new_for_http()
            .make_span_with(DefaultMakeSpan::new().level(tracing::Level::INFO))
            .on_response(
                DefaultOnResponse::new()
                    .level(tracing::Level::INFO)
                    .latency_unit(tower_http::LatencyUnit::Micros),
            ),
    )
}

/// A URI past `MAX_URI_BYTES`: a 414 in JSON, never routed.
async fn refuse_long_uri(
    request: axum::extract::Request,
) -> Result<axum::extract::Request, ApiError> {
    let length = request.uri().to_string().len();
    if length > MAX_URI_BYTES {
        return Err(ApiError::uri_too_long(format!(
            "the URI is {length} bytes; at most {MAX_URI_BYTES} are read"
        )));
    }
    Ok(request)
}

/// A request line `guard` found too long (its URI is not known here).
async fn uri_too_long() -> ApiError {
    ApiError::uri_too_long(format!(
        "the request line is over {} bytes; at most {MAX_URI_BYTES} of URI are read",
        guard::MAX_LINE
    ))
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::not_found(format!("no such page: {}", uri.path()))
}

async fn method_not_allowed(method: Method, uri: Uri) -> impl IntoResponse {
    let error = ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{method} {}: only GET and HEAD are answered", uri.path()),
    );
    ([(axum::http::header::ALLOW, "GET, HEAD")], error)
}

/// Runs `work` on a blocking thread, when a reader is free (readers are
/// granted in the order asked; `/player` streams have their own).
pub(crate) async fn blocking<T: Send + 'static>(
    state: &Arc<State>,
    work: impl FnOnce(&State) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = state.reader().await?;
    let state = state.clone();
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work(&state)
    })
    .await?
}
