//! Interrupts: what SIGINT and SIGTERM do to a run. The first signal asks
//! the run to stop: the reader stops framing, the consumer stops taking
//! batches, and the command abandons its outputs (temporary files removed,
//! nothing renamed) and exits 130. Should the run not get there within
//! [`GRACE`] (a read blocked on a stalled pipe, a long final merge), the
//! signal thread removes every registered temporary file itself and exits
//! 130. A second signal does the same at once.
//!
//! The one section a signal never cuts is the commit, where finished files
//! are renamed to their final names: the signal thread waits for it, and a
//! run that committed exits normally. So an interrupted run leaves either
//! every output or none under its final name.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a run has to wind down by itself after the first signal.
pub const GRACE: Duration = Duration::from_millis(500);

/// The exit code of an interrupted run (128 + SIGINT, as shells report it).
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static FINISHED: AtomicBool = AtomicBool::new(false);
/// True once the run has committed; held during the commit.
static COMMITTED: Mutex<bool> = Mutex::new(false);
/// Temporary files and folders to remove when the run is cut short.
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The run was interrupted by a signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("interrupted by a signal: no output was written")]
pub struct Interrupted;

/// Installs the SIGINT/SIGTERM handler (once per process).
pub(crate) fn install() -> Result<(), String> {
    ctrlc::set_handler(on_signal).map_err(|e| format!("cannot handle signals: {e}"))
}

/// Has a signal asked the run to stop?
pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// `Err(Interrupted)` once a signal came.
pub(crate) fn check() -> Result<(), Interrupted> {
    if interrupted() {
        Err(Interrupted)
    } else {
        Ok(())
    }
}

/// The command is done (whatever the outcome) and exits by itself.
pub(crate) fn finished() {
    FINISHED.store(true, Ordering::SeqCst);
}

/// Runs `rename_all`, the step that puts outputs under their final names,
/// unless a signal came first. A signal during it waits for it to end.
pub(crate) fn commit<T, E: From<Interrupted>>(
    rename_all: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let mut committed = COMMITTED.lock().unwrap_or_else(|e| e.into_inner());
    check()?;
    let result = rename_all();
    *committed = result.is_ok();
    if result.is_ok() && interrupted() {
        eprintln!(
            "pgnlake: a signal came during the commit, which is never cut: \
             the run finished and its outputs are in place"
        );
    }
    result
}

/// Remembers a temporary file or folder, to be removed if the run is cut
/// short before it finishes with it.
pub(crate) fn register(path: &Path) {
    if let Ok(mut paths) = TEMPORARIES.lock() {
        paths.push(path.to_path_buf());
    }
}

/// Forgets a temporary path (renamed or removed by its owner).
pub(crate) fn unregister(path: &Path) {
    if let Ok(mut paths) = TEMPORARIES.lock() {
        paths.retain(|p| p != path);
    }
}

/// Removes every temporary path still registered: what a failed run left.
pub(crate) fn remove_temporaries() {
    // A list poisoned by a panic elsewhere still names what to remove.
    let mut registered = TEMPORARIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let paths = std::mem::take(&mut *registered);
    drop(registered);
    paths.iter().for_each(|path| remove(path));
}

/// Removes a temporary file, or a folder with what is in it.
fn remove(path: &Path) {
    if path.is_dir() {
        let _ = std::fs::remove_dir_all(path);
    } else {
        let _ = std::fs::remove_file(path);
    }
}

/// Removes the temporary files and folders registered under `dir` (a
/// failed run's, before it removes the folder it made).
pub(crate) fn remove_temporaries_under(dir: &Path) {
    let mut registered = TEMPORARIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (under, others): (Vec<PathBuf>, Vec<PathBuf>) = std::mem::take(&mut *registered)
        .into_iter()
        .partition(|p| p.starts_with(dir) && p != dir);
    *registered = others;
    drop(registered);
    under.iter().for_each(|path| remove(path));
}

fn on_signal() {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        force_exit();
        return;
    }
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline {
        if FINISHED.load(Ordering::SeqCst) {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    force_exit();
}

/// Removes the temporaries and exits 130, unless the run has committed
/// (then it finishes normally).
fn force_exit() {
    let committed = COMMITTED.lock().unwrap_or_else(|e| e.into_inner());
    if *committed || FINISHED.load(Ordering::SeqCst) {
        return;
    }
    remove_temporaries();
    eprintln!("pgnlake: {Interrupted}");
    // The lock stays held: no commit can start after this.
    std::process::exit(i32::from(EXIT_INTERRUPTED));
}
