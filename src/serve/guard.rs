//! Serve, a connection's bytes on their way to hyper, with each request
//! line held until it ends: one longer than `MAX_LINE` is replaced by a
//! request for `TOO_LONG_PATH`, which the router answers as a 414 in JSON.
//! hyper itself answers a URI past 64 KiB with an empty 414, and every
//! error of the API is JSON.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A request line longer than this is not handed on.
pub(crate) const MAX_LINE: usize = 32 * 1024;

/// The path a too-long request line becomes.
pub(crate) const TOO_LONG_PATH: &str = "/.pgnlake/uri-too-long";

/// Where in a request the bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Before or in a request line (held in `line`).
    RequestLine,
    /// In the header lines: `length` bytes since the last line feed (an
    /// empty line ends the head).
    Head { length: usize },
    /// Dropping the rest of a too-long request line.
    Skipping,
}

/// `inner` with its request lines checked.
pub(crate) struct HeadGuard<S> {
    inner: S,
    place: Place,
    line: Vec<u8>,
    ready: Vec<u8>,
    given: usize,
}

impl<S> HeadGuard<S> {
    pub(crate) fn new(inner: S) -> HeadGuard<S> {
        HeadGuard {
            inner,
            place: Place::RequestLine,
            line: Vec::new(),
            ready: Vec::new(),
            given: 0,
        }
    }

    /// Takes `bytes` read from the client.
    fn take(&mut self, bytes: &[u8]) {
        for &b in bytes {
            match self.place {
                Place::RequestLine => {
                    self.line.push(b);
                    if b == b'\n' {
                        // An empty line before a request is allowed
                        // (RFC 9112 2.2): still before the request line.
                        let empty = self.line.iter().all(|&c| c == b'\r' || c == b'\n');
                        self.ready.append(&mut self.line);
                        if !empty {
                            self.place = Place::Head { length: 0 };
                        }
                    } else if self.line.len() > MAX_LINE {
                        self.line.clear();
                        let line = format!("GET {TOO_LONG_PATH} HTTP/1.1\r\n");
                        self.ready.extend_from_slice(line.as_bytes());
                        self.place = Place::Skipping;
                    }
                }
                Place::Skipping => {
                    if b == b'\n' {
                        self.place = Place::Head { length: 0 };
                    }
                }
                Place::Head { length } => {
                    self.ready.push(b);
                    self.place = match b {
                        b'\n' if length == 0 => Place::RequestLine,
                        b'\n' => Place::Head { length: 0 },
                        b'\r' => Place::Head { length },
                        _ => Place::Head { length: length + 1 },
                    };
                }
            }
        }
    }

    /// Hands on what is ready; false when nothing is.
    fn give(&mut self, buf: &mut ReadBuf<'_>) -> bool {
        let ready = &self.ready[self.given..];
        if ready.is_empty() {
            return false;
        }
        let n = ready.len().min(buf.remaining());
        buf.put_slice(&ready[..n]);
        self.given += n;
        if self.given == self.ready.len() {
            self.ready.clear();
            self.given = 0;
        }
        true
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for HeadGuard<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.give(buf) {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 8192];
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    // The end: what is held goes on as it is.
                    this.ready.append(&mut this.line);
                    this.give(buf);
                    return Poll::Ready(Ok(()));
                }
                Poll::Ready(Ok(())) => {
                    let filled = read.filled().to_vec();
                    this.take(&filled);
                }
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for HeadGuard<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(input: &[u8]) -> Vec<u8> {
        let mut guard = HeadGuard::new(());
        // In pieces, as a socket gives them.
        for piece in input.chunks(1000) {
            guard.take(piece);
        }
        let mut out = guard.ready;
        out.append(&mut guard.line);
        out
    }

    #[test]
    fn short_request_lines_pass_unchanged() {
        let two = b"GET /lichess?play=e2e4 HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\n\r\n";
        assert_eq!(through(two), two.to_vec());
        let early = b"\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n";
        assert_eq!(through(early), early.to_vec());
    }

    #[test]
    fn a_too_long_request_line_becomes_the_414_path_on_any_request_of_a_connection() {
        let long = format!(
            "GET /lichess?play={} HTTP/1.1\r\nHost: x\r\n\r\n",
            "e".repeat(70_000)
        );
        let input = format!("GET /health HTTP/1.1\r\nHost: x\r\n\r\n{long}");
        let out = String::from_utf8(through(input.as_bytes())).unwrap_or_default();
        assert_eq!(
            out,
            format!(
                "GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET {TOO_LONG_PATH} HTTP/1.1\r\nHost: x\r\n\r\n"
            )
        );
    }
}
