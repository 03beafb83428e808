//! A panic, a bug in pgnlake or in a dependency (polars), ends a command
//! as any failure does: one line on stderr, exit code 2, the run's
//! temporary files removed. The hook ([`install_hook`], set by the binary
//! only: the tests' own panics stay as Rust prints them) records each
//! panic's message and place instead of printing them with a backtrace
//! note; [`catch`] runs the command, and a panic that reaches it, on this
//! thread or re-raised here from a pool's thread (rayon's, polars'), is
//! turned into that line. With `RUST_BACKTRACE` set, Rust's own report is
//! printed as well.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::{Mutex, PoisonError};

/// The latest panics, (message, place if Rust gave one), the oldest
/// dropped first: the
/// one that reaches [`catch`] is found by its message (several threads
/// may panic; polars catches some panics of its own).
static RECENT: Mutex<Vec<(String, Option<String>)>> = Mutex::new(Vec::new());
const KEPT: usize = 16;

/// Records panics instead of printing them (unless `RUST_BACKTRACE` asks
/// for Rust's report).
pub fn install_hook() {
    let default = panic::take_hook();
    let verbose = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
    panic::set_hook(Box::new(move |info| {
        record(info);
        if verbose {
            default(info);
        }
    }));
}

fn record(info: &PanicHookInfo<'_>) {
    let message = message_of(info.payload());
    let place = info
        .location()
        .map(|l| short_place(l.file(), l.line(), l.column()));
    let mut recent = RECENT.lock().unwrap_or_else(PoisonError::into_inner);
    if recent.len() >= KEPT {
        recent.remove(0);
    }
    recent.push((message, place));
}

/// Runs `command`; a panic that reaches here comes back as the line that
/// reports it: `internal error in WHAT: MESSAGE (PLACE; …)`.
pub(super) fn catch<T>(what: &str, command: impl FnOnce() -> T) -> Result<T, String> {
    panic::catch_unwind(AssertUnwindSafe(command)).map_err(|payload| {
        let message = message_of(&*payload);
        let place = match place_of(&message) {
            Some(place) => format!("at {place}; "),
            None => String::new(),
        };
        one_line(&format!(
            "internal error in {what}: {message} ({place}a bug: please report it)"
        ))
    })
}

/// The latest panic recorded, as `MESSAGE (PLACE)`: what a thread that
/// pgnlake caught as [`crate::error::Error::Panicked`] said.
pub(super) fn latest() -> Option<String> {
    let recent = RECENT.lock().unwrap_or_else(PoisonError::into_inner);
    let (message, place) = recent.last()?;
    Some(one_line(&match place {
        Some(place) => format!("{message} (at {place})"),
        None => message.clone(),
    }))
}

/// The place of the latest recorded panic with this message, if one was
/// recorded with a place.
fn place_of(message: &str) -> Option<String> {
    let recent = RECENT.lock().unwrap_or_else(PoisonError::into_inner);
    recent
        .iter()
        .rev()
        .find(|(m, _)| m == message)
        .and_then(|(_, place)| place.clone())
}

fn message_of(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// `file:line:column`, a dependency's file from its crate's folder
/// (`polars-plan-0.55.2/src/…`, not the cargo registry's path).
fn short_place(file: &str, line: u32, column: u32) -> String {
    let file = file
        .split_once("/registry/src/")
        .and_then(|(_, rest)| rest.split_once('/'))
        .map_or(file, |(_, in_crate)| in_crate);
    format!("{file}:{line}:{column}")
}

/// polars' messages can span lines (a plan): one line, each line's text
/// kept.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_one_line() {
        let line = catch::<()>("query", || panic!("bad\n  plan")).unwrap_err();
        assert!(
            line.starts_with("internal error in query: bad plan ("),
            "{line}"
        );
        assert!(!line.contains('\n'), "{line}");
        assert_eq!(catch("query", || 7), Ok(7));
        assert_eq!(
            short_place(
                "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/polars-plan-0.55.2/src/a.rs",
                3,
                4
            ),
            "polars-plan-0.55.2/src/a.rs:3:4"
        );
        assert_eq!(short_place("src/x.rs", 1, 2), "src/x.rs:1:2");
    }

    /// polars evaluates a frame's expressions on its own thread pool: a
    /// panic there is raised again on the caller's thread, and caught.
    #[test]
    fn a_panic_on_polars_threads_reaches_the_catch() {
        use polars::prelude::*;
        let boom = |name: &str| {
            col(name).map(
                |_| -> PolarsResult<Column> { panic!("boom in polars") },
                |_, field| Ok(field.clone()),
            )
        };
        let frame = df!("a" => [1, 2], "b" => [3, 4], "c" => [5, 6], "d" => [7, 8])
            .map(DataFrame::lazy)
            .unwrap_or_else(|e| panic!("{e}"));
        let exprs = ["a", "b", "c", "d"].map(boom);
        let line = catch("query", || frame.select(exprs).collect()).unwrap_err();
        assert!(
            line.starts_with("internal error in query: boom in polars"),
            "{line}"
        );
    }
}
