//! Serve, the one error path: every handler returns `Result<_, ApiError>`
//! and uses `?`; the `From` conversions keep an error's kind (a bad
//! request 400, what is not there 404, a table that cannot be read 500),
//! and the answer is `{"error": ...}` with its status, logged once, where
//! the response is made, when it is the server's fault.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::error::ExploreError;
use crate::export::{GameError, GameErrorKind};
use crate::read::keyed::KeyedError;
use crate::sink::columns::ColumnError;
use crate::sink::summary::SummaryError;

/// The error's cause, kept for `source()` and the log.
type Cause = Box<dyn std::error::Error + Send + Sync>;

/// An answer that is not the one asked for.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    message: String,
    source: Option<Cause>,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    pub(crate) fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    pub(crate) fn uri_too_long(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::URI_TOO_LONG, message)
    }

    /// A failure of the server's reading: a 500 (logged when answered).
    pub(crate) fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// A 500 from `source`, its message the source's.
    fn broken(source: impl std::error::Error + Send + Sync + 'static) -> ApiError {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: source.to_string(),
            source: Some(Box::new(source)),
        }
    }

    pub(crate) fn status(&self) -> StatusCode {
        self.status
    }

    pub(crate) fn message(&self) -> &str {
        &self.message
    }

    /// Its status and message (for a page that shows it).
    pub(crate) fn parts(self) -> (StatusCode, String) {
        (self.status, self.message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApiError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// A filter or position the tables cannot answer is the request's fault;
/// a table that cannot be read is the server's.
impl From<ExploreError> for ApiError {
    fn from(e: ExploreError) -> ApiError {
        match e {
            ExploreError::BadFilter { message } => ApiError::bad_request(message),
            ExploreError::BadFen { .. }
            | ExploreError::IllegalMove { .. }
            | ExploreError::NotInTree { .. } => ApiError::bad_request(e.to_string()),
            other => ApiError::broken(other),
        }
    }
}

/// An id that names no game here is a 404 (as lila answers an unknown
/// id); a game that is there but cannot be read again a 500.
impl From<GameError> for ApiError {
    fn from(e: GameError) -> ApiError {
        match e.kind() {
            GameErrorKind::Missing | GameErrorKind::BadId => ApiError::not_found(e.to_string()),
            GameErrorKind::Broken => ApiError::broken(e),
        }
    }
}

impl From<SummaryError> for ApiError {
    fn from(e: SummaryError) -> ApiError {
        ApiError::broken(e)
    }
}

impl From<ColumnError> for ApiError {
    fn from(e: ColumnError) -> ApiError {
        ApiError::broken(e)
    }
}

impl From<KeyedError> for ApiError {
    fn from(e: KeyedError) -> ApiError {
        ApiError::from(ExploreError::from(e))
    }
}

impl From<polars::prelude::PolarsError> for ApiError {
    fn from(e: polars::prelude::PolarsError) -> ApiError {
        ApiError::broken(e)
    }
}

impl From<tokio::task::JoinError> for ApiError {
    fn from(e: tokio::task::JoinError) -> ApiError {
        ApiError::broken(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            // The request's own line (method, path, status, latency)
            // comes from the trace layer; this says why.
            tracing::error!(status = self.status.as_u16(), error = %self.message, "pgnlake serve");
        }
        let body = serde_json::json!({ "error": self.message });
        (self.status, axum::Json(body)).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_keeps_its_status() {
        let filter = ApiError::from(ExploreError::BadFilter {
            message: "since/until".into(),
        });
        assert_eq!(filter.status(), StatusCode::BAD_REQUEST);
        let fen = ApiError::from(ExploreError::BadFen {
            fen: "x".into(),
            message: "bad".into(),
        });
        assert_eq!(fen.status(), StatusCode::BAD_REQUEST);
        let table = ApiError::from(ExploreError::Table {
            path: "games.parquet".into(),
            message: "damaged".into(),
        });
        assert_eq!(table.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(std::error::Error::source(&table).is_some());
        assert_eq!(table.message(), "games.parquet: damaged");
    }
}
