//! Serve, the connections: accepted by hand on hyper (as axum's
//! serve-with-hyper example does) so that each is bounded: its request
//! head must come within `header_timeout` (an idle keep-alive connection
//! too), and past `max_connections` open at once a new connection is
//! answered 503 in JSON and closed, never queued, so the file limit is
//! never reached. A stop (SIGINT, SIGTERM) lets answers under way finish
//! for `STOP_GRACE`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

use super::guard::HeadGuard;
use super::state::State;
use super::{STOP_GRACE, ServeOptions, router};
use crate::error::Error;

/// File descriptors kept for other than connections: the tables' files
/// `read::keyed` keeps open, the readers', the runtime's.
const OTHER_FILES: u64 = 640;

/// Connections at once by default: what the file limit leaves, at most
/// 4,096 (each holds its buffers), at least 16.
pub(crate) fn default_max_connections() -> usize {
    let limit = open_file_limit().unwrap_or(1024);
    let room = limit.saturating_sub(OTHER_FILES).clamp(16, 4096);
    usize::try_from(room).unwrap_or(4096)
}

/// The soft limit on open files, raised to the hard one first (as servers
/// do: the soft default of 1,024 is a relic).
fn open_file_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit write or read only the struct given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max.min(1 << 20),
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit.rlim_cur = raised.rlim_cur;
            }
        }
    }
    Some(limit.rlim_cur)
}

/// Serves until a stop signal.
pub(crate) async fn run(state: Arc<State>, options: &ServeOptions) -> Result<(), Error> {
    let listen_error = |source| Error::Serve {
        what: format!("{}: cannot listen", options.listen),
        source,
    };
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .map_err(listen_error)?;
    let address = listener.local_addr().map_err(listen_error)?;
    if !options.quiet {
        // The line scripts and tests wait for (with the port a `:0` got).
        say(&format!("pgnlake serve: listening on http://{address}/"));
    }
    let app = router(state, options.cors);
    let open = Arc::new(Semaphore::new(options.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(options.header_timeout);
    let closed = Arc::new(AtomicUsize::new(0));
    tokio::spawn(give_back_memory(closed.clone()));
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of files or memory for a moment (or a connection
                // reset before it was accepted): wait, as hyper's examples
                // do, rather than spin.
                tracing::warn!(error = %e, "pgnlake serve: accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = open.clone().try_acquire_owned() else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let io = TokioIo::new(HeadGuard::new(stream));
        let connection = graceful.watch(http.serve_connection(io, service));
        let closed = closed.clone();
        tokio::spawn(async move {
            // A client that went away or timed out: nothing to say.
            let _ = connection.await;
            drop(permit);
            closed.fetch_add(1, Ordering::Relaxed);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(STOP_GRACE) => {}
    }
    if !options.quiet {
        say("pgnlake serve: stopped");
    }
    Ok(())
}

/// Gives the memory of closed connections back to the system: glibc's
/// allocator keeps what many connections freed in its arenas, so without
/// a trim the server's RSS stayed up after a wave of clients left
/// (measured: 39 MiB at rest, 97 MiB after three waves of 3,000 half-open
/// connections had closed).
async fn give_back_memory(closed: Arc<AtomicUsize>) {
    let mut interval = tokio::time::interval(Duration::from_secs(2));
    loop {
        interval.tick().await;
        if closed.load(Ordering::Relaxed) >= TRIM_AFTER {
            closed.store(0, Ordering::Relaxed);
            trim();
        }
    }
}

/// Connections closed since the last trim that are worth one.
const TRIM_AFTER: usize = 64;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: malloc_trim only returns free memory of the allocator's.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}

/// A connection past the cap: one 503 in JSON, then closed.
async fn refuse(mut stream: TcpStream) {
    let body = r#"{"error":"too many connections: try again in a moment"}"#;
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let write = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), write).await;
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
