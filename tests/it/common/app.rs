//! The server in process: a router over test data, asked through
//! `tower::ServiceExt::oneshot` (no socket, no port), as axum's examples
//! test their handlers.

use std::path::{Path, PathBuf};
use std::process::Command;

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use tower::ServiceExt;

/// A router over an import's folder or a lake, with a runtime to ask it.
pub struct App {
    router: axum::Router,
    runtime: tokio::runtime::Runtime,
}

/// An answer: status, headers, body as text.
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {} {}", self.status, self.body))
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

impl App {
    pub fn over(data: &Path) -> App {
        App::with(data, |_| {})
    }

    /// Over `data`, with `options` changed by `change` (`--cors`,
    /// `--masters`).
    pub fn with(data: &Path, change: impl FnOnce(&mut pgnlake::serve::ServeOptions)) -> App {
        let listen = "127.0.0.1:0".parse().unwrap_or_else(|e| panic!("{e}"));
        let mut options = pgnlake::serve::ServeOptions::new(data.to_path_buf(), listen);
        options.log_requests = false;
        change(&mut options);
        let router = pgnlake::serve::app(&options).unwrap_or_else(|e| panic!("{e}"));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        App { router, runtime }
    }

    pub fn get(&self, uri: &str) -> Answer {
        self.request(Method::GET, uri, &[])
    }

    /// `GET uri`, expecting 200 and JSON.
    pub fn json(&self, uri: &str) -> serde_json::Value {
        let answer = self.get(uri);
        assert_eq!(answer.status, StatusCode::OK, "GET {uri}: {}", answer.body);
        answer.json()
    }

    pub fn request(&self, method: Method, uri: &str, headers: &[(&str, &str)]) -> Answer {
        self.send(method, uri, headers, Body::empty())
    }

    /// `POST uri` with `body`.
    pub fn post(&self, uri: &str, body: &str) -> Answer {
        self.send(Method::POST, uri, &[], Body::from(body.to_owned()))
    }

    fn send(&self, method: Method, uri: &str, headers: &[(&str, &str)], body: Body) -> Answer {
        let mut request = Request::builder().method(method).uri(uri);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(body).unwrap_or_else(|e| panic!("{uri}: {e}"));
        self.runtime.block_on(async {
            let response = self
                .router
                .clone()
                .oneshot(request)
                .await
                .unwrap_or_else(|e| match e {});
            let (parts, body) = response.into_parts();
            let bytes = axum::body::to_bytes(body, usize::MAX)
                .await
                .unwrap_or_else(|e| panic!("{uri}: {e}"));
            Answer {
                status: parts.status,
                headers: parts.headers,
                body: String::from_utf8_lossy(&bytes).into_owned(),
            }
        })
    }
}

/// `pgnlake import INPUTS --out OUT -q`, which must succeed.
pub fn import_to(inputs: &[PathBuf], out: &Path) {
    let output = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .arg("import")
        .args(inputs)
        .arg("--out")
        .arg(out)
        .arg("-q")
        .output()
        .unwrap_or_else(|e| panic!("pgnlake: {e}"));
    assert!(
        output.status.success(),
        "pgnlake import: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}
