//! A `pgnlake serve` run for real on a free port, for the tests that talk
//! to the server as a client would (over HTTP, from another process).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::text;

/// A running `pgnlake serve`, killed when dropped.
pub struct Server {
    child: Child,
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
        let url = first
            .trim()
            .strip_prefix("pgnlake serve: listening on ")
            .map(|url| url.trim_end_matches('/').to_owned())
            .unwrap_or_else(|| {
                let err = std::fs::read_to_string(&stderr).unwrap_or_default();
                panic!("pgnlake serve printed {first:?}; stderr: {err}")
            });
        Server {
            child,
            url,
            stderr,
            _logs: logs,
        }
    }

    /// `http://127.0.0.1:PORT`, without a final `/`.
    pub fn url(&self) -> &str {
        &self.url
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
