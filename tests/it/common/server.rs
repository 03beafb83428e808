//! A `pgnlake serve` run for real on a free port, for the tests that talk
//! to the server as a client would (over HTTP, from another process), and
//! the plain HTTP/1.1 client they talk through.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::text;

/// A running `pgnlake serve`, killed when dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub address: String,
    /// `http://127.0.0.1:PORT`.
    url: String,
    stderr: PathBuf,
    _logs: tempfile::TempDir,
}

impl Server {
    /// `pgnlake serve --data DATA --listen 127.0.0.1:0 EXTRA…`, once it
    /// listens: the port is the one its first line names.
    pub fn start(data: &Path, extra: &[&str]) -> Server {
        let logs = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let stderr = logs.path().join("stderr");
        let log = std::fs::File::create(&stderr).unwrap_or_else(|e| panic!("{e}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
            .args(["serve", "--data", &text(data), "--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("pgnlake serve: {e}"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let mut first = String::new();
        BufReader::new(stdout)
            .read_line(&mut first)
            .unwrap_or_else(|e| panic!("{e}"));
        let address = first
            .trim()
            .strip_prefix("pgnlake serve: listening on http://")
            .and_then(|rest| rest.strip_suffix('/'))
            .unwrap_or_else(|| {
                let err = std::fs::read_to_string(&stderr).unwrap_or_default();
                panic!("pgnlake serve printed {first:?}; stderr: {err}")
            })
            .to_owned();
        Server {
            child,
            url: format!("http://{address}"),
            address,
            stderr,
            _logs: logs,
        }
    }

    /// `http://127.0.0.1:PORT`, without a final `/`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `GET path` with `headers`: the status, the response's headers
    /// (lowercased names) and the body (chunks joined).
    pub fn get_with(&self, path: &str, headers: &[&str]) -> (u16, String, String) {
        http_get(&self.address, path, headers)
    }

    /// `GET path`: the status and the body.
    pub fn get(&self, path: &str) -> (u16, String) {
        let (status, _, body) = self.get_with(path, &[]);
        (status, body)
    }

    /// `GET path`, which must answer 200: its headers and body.
    pub fn ok(&self, path: &str) -> (String, String) {
        let (status, head, body) = self.get_with(path, &[]);
        assert_eq!(status, 200, "GET {path}: {body}");
        (head, body)
    }

    /// `GET path`, which must answer 200 with JSON.
    pub fn json(&self, path: &str) -> Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: {e}: {body}"))
    }

    /// SIGTERM, then the exit status.
    pub fn stop(mut self) -> std::process::ExitStatus {
        // SAFETY: kill only sends a signal to our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        self.child.wait().unwrap_or_else(|e| panic!("{e}"))
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `GET path` with `headers` on a connection of its own (closed after):
/// the status, the response's headers (lowercased names) and the body
/// (chunks joined).
pub fn http_get(address: &str, path: &str, headers: &[&str]) -> (u16, String, String) {
    let mut stream = TcpStream::connect(address).unwrap_or_else(|e| panic!("{e}"));
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap_or_else(|e| panic!("{e}"));
    let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{extra}\r\n",
        address
    );
    stream
        .write_all(request.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .unwrap_or_else(|e| panic!("{e}"));
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let head = head.to_ascii_lowercase();
    let body = match head.contains("transfer-encoding: chunked") {
        true => unchunk(body),
        false => body.to_owned(),
    };
    (status, head, body)
}

/// A chunked body's chunks, joined.
fn unchunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || after.len() < size {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    out
}
