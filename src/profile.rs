//! Stage profile for the benchmarks (`PGNLAKE_PROFILE=1`): the CPU time of
//! each stage of a run and the thread that runs it, so that the serial share
//! (work on one thread: the reader, the writer, the end-of-run merges) can be
//! read off a real run. Off by default, when each timer is one branch.
//!
//! Threads are timed by their own CPU clock, read once per batch or at the
//! thread's end; stages are split by a monotonic clock read around each step
//! (of a game, on the workers), kept per thread and added to the totals once
//! per batch. The profiled run is a separate run: its timers cost about 2 %.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A step of the import, in the order data flows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading the input and decompressing it (reader thread).
    ReadDecompress,
    /// Cutting the text into games and batches (workers, a chunk each; the
    /// reader thread for a shard's part, and the cuts between chunks).
    Framing,
    /// Parsing the game: the import's one pass over header and movetext,
    /// which audits the tokens too; pgn-reader's parse in `clean` (workers).
    Parse,
    /// The token audit's verdict; in `clean`, also its own walk over the
    /// movetext (workers).
    TokenAudit,
    /// Set-up, the replay loop, repetition, outcome (workers).
    Replay,
    /// Material, result audit, tags, aggregates: tree, lines, outcomes (workers).
    Statistics,
    /// Rows into table columns (workers).
    Rows,
    /// Row groups encoded and compressed as Parquet pages.
    Encode,
    /// Encoded row groups appended to the files (writer thread).
    Write,
    /// The aggregates merged and written after the last batch.
    FinalMerge,
}

const STAGES: [Stage; 10] = [
    Stage::ReadDecompress,
    Stage::Framing,
    Stage::Parse,
    Stage::TokenAudit,
    Stage::Replay,
    Stage::Statistics,
    Stage::Rows,
    Stage::Encode,
    Stage::Write,
    Stage::FinalMerge,
];

impl Stage {
    fn name(self) -> &'static str {
        match self {
            Stage::ReadDecompress => "read + decompress",
            Stage::Framing => "framing",
            Stage::Parse => "parse (one pass)",
            Stage::TokenAudit => "token audit",
            Stage::Replay => "replay",
            Stage::Statistics => "statistics",
            Stage::Rows => "rows → columns",
            Stage::Encode => "Parquet encode",
            Stage::Write => "write",
            Stage::FinalMerge => "final merges",
        }
    }
}

/// Which thread runs a share of the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Thread {
    Reader,
    Worker,
    Writer,
    /// After the pipeline: the merges of the aggregates.
    End,
}

const THREADS: [Thread; 4] = [Thread::Reader, Thread::Worker, Thread::Writer, Thread::End];

impl Thread {
    fn name(self) -> &'static str {
        match self {
            Thread::Reader => "reader",
            Thread::Worker => "workers",
            Thread::Writer => "writer",
            Thread::End => "end of run",
        }
    }

    /// Work on this thread is done by one thread whatever the core count.
    fn is_serial(self) -> bool {
        self != Thread::Worker
    }
}

static ENABLED: AtomicBool = AtomicBool::new(false);
/// Per stage and thread kind: nanoseconds (`stage * 4 + thread`).
static STAGE_NANOS: [AtomicU64; 40] = [const { AtomicU64::new(0) }; 40];
static THREAD_NANOS: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

/// Turns the profile on when `PGNLAKE_PROFILE` is set (to anything but 0).
pub(crate) fn enable_from_env() {
    let on = std::env::var_os("PGNLAKE_PROFILE").is_some_and(|v| v != "0");
    ENABLED.store(on, Ordering::Relaxed);
}

/// Turns the profile on for the rest of a test process (timers only,
/// nothing else depends on it).
#[cfg(test)]
pub(crate) fn enable_for_tests() {
    ENABLED.store(true, Ordering::Relaxed);
}

pub(crate) fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// A stage's place in [`STAGES`], which lists them in declaration order.
fn stage_index(stage: Stage) -> usize {
    stage as usize
}

/// A thread kind's place in [`THREADS`], which lists them in declaration
/// order.
fn thread_index(thread: Thread) -> usize {
    thread as usize
}

/// Adds `elapsed` to `stage`, run on `thread`.
pub(crate) fn add(stage: Stage, thread: Thread, elapsed: Duration) {
    if !enabled() {
        return;
    }
    let i = stage_index(stage) * THREADS.len() + thread_index(thread);
    let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
    if let Some(total) = STAGE_NANOS.get(i) {
        total.fetch_add(nanos, Ordering::Relaxed);
    }
}

/// Adds a thread's CPU time (from [`thread_cpu`]) to its kind.
pub(crate) fn add_thread(thread: Thread, cpu: Duration) {
    if enabled() {
        let nanos = u64::try_from(cpu.as_nanos()).unwrap_or(u64::MAX);
        THREAD_NANOS[thread_index(thread)].fetch_add(nanos, Ordering::Relaxed);
    }
}

/// The CPU time the calling thread has used so far (zero where the
/// platform has no per-thread clock).
pub(crate) fn thread_cpu() -> Duration {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes one timespec through a valid pointer.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
        // A clock that fails (or reads negative) is no clock.
        if ok && let (Ok(secs), Ok(nanos)) = (u64::try_from(ts.tv_sec), u32::try_from(ts.tv_nsec)) {
            return Duration::new(secs, nanos);
        }
    }
    Duration::ZERO
}

/// Runs `work` on this thread, its CPU counted to `thread` and its
/// pending stage times flushed (one batch, one side job, one output).
/// Worker CPU also counts as a worker part, so that a job the end-of-run
/// thread runs while it waits is not counted to it a second time.
pub(crate) fn on_thread<T>(thread: Thread, work: impl FnOnce() -> T) -> T {
    let cpu = enabled().then(thread_cpu);
    let done = work();
    if let Some(cpu) = cpu {
        let used = thread_cpu().saturating_sub(cpu);
        add_thread(thread, used);
        flush(thread);
        if thread == Thread::Worker {
            add_worker_part(used);
        }
    }
    done
}

thread_local! {
    /// CPU this thread spent in [`worker_part`]s since it last asked.
    static WORKER_PARTS: std::cell::Cell<Duration> = const { std::cell::Cell::new(Duration::ZERO) };
}

/// Runs one part of a parallel step of the end of run (a rayon task, such
/// as sorting one worker's tree): its CPU counts to the workers and to
/// `stage` on whichever thread of the pool runs it, so that the part the
/// end-of-run thread runs itself is not counted as serial.
pub(crate) fn worker_part<T>(stage: Stage, work: impl FnOnce() -> T) -> T {
    let cpu = enabled().then(thread_cpu);
    let done = work();
    if let Some(cpu) = cpu {
        count_worker_part(stage, thread_cpu().saturating_sub(cpu));
    }
    done
}

/// `used` CPU of a parallel step run on this thread: to the workers, to
/// `stage`, and as a worker part.
fn count_worker_part(stage: Stage, used: Duration) {
    add_thread(Thread::Worker, used);
    add(stage, Thread::Worker, used);
    add_worker_part(used);
}

fn add_worker_part(used: Duration) {
    WORKER_PARTS.with(|parts| parts.set(parts.get() + used));
}

/// Runs `work`, which may run pending jobs of the pool here (a thread that
/// helps while it waits): what of its CPU those jobs did not count already
/// (pieces of a parallel iterator) counts to the workers and to `stage`,
/// and as a worker part.
pub(crate) fn helping<T>(stage: Stage, work: impl FnOnce() -> T) -> T {
    let Some(cpu) = enabled().then(thread_cpu) else {
        return work();
    };
    let counted = WORKER_PARTS.with(std::cell::Cell::get);
    let done = work();
    let used = thread_cpu().saturating_sub(cpu);
    let inside = WORKER_PARTS
        .with(std::cell::Cell::get)
        .saturating_sub(counted);
    count_worker_part(stage, used.saturating_sub(inside));
    done
}

/// The CPU this thread spent in [`worker_part`]s since the last call.
pub(crate) fn take_worker_parts() -> Duration {
    WORKER_PARTS.with(|parts| parts.replace(Duration::ZERO))
}

/// A stopwatch that does nothing when the profile is off.
pub(crate) struct Timer(Option<Instant>);

impl Timer {
    pub(crate) fn start() -> Timer {
        Timer(enabled().then(Instant::now))
    }

    /// The time since the start (or the last lap), and restarts.
    fn lap(&mut self) -> Duration {
        match &mut self.0 {
            Some(start) => {
                let now = Instant::now();
                let lap = now - *start;
                *start = now;
                lap
            }
            None => Duration::ZERO,
        }
    }
}

thread_local! {
    /// This thread's stage times since its last flush.
    static PENDING: std::cell::Cell<[Duration; 10]> = const { std::cell::Cell::new([Duration::ZERO; 10]) };
}

/// Adds the time since `timer`'s last lap to `stage`, kept on this thread
/// until [`flush`] (once per batch).
pub(crate) fn lap(timer: &mut Timer, stage: Stage) {
    if timer.0.is_some() {
        let elapsed = timer.lap();
        PENDING.with(|pending| {
            let mut times = pending.get();
            if let Some(slot) = times.get_mut(stage_index(stage)) {
                *slot += elapsed;
            }
            pending.set(times);
        });
    }
}

/// Adds this thread's pending stage times to the totals, as run on
/// `thread`; returns their sum.
pub(crate) fn flush(thread: Thread) -> Duration {
    if !enabled() {
        return Duration::ZERO;
    }
    let times = PENDING.with(|pending| pending.replace([Duration::ZERO; 10]));
    for (stage, elapsed) in STAGES.iter().zip(times) {
        if !elapsed.is_zero() {
            add(*stage, thread, elapsed);
        }
    }
    times.iter().sum()
}

/// The profile of the run so far, per game, as a table; empty when off.
/// Each thread kind's stage times are scaled to its CPU clock (wall-clock
/// splits count time a thread was preempted; its CPU clock does not).
pub(crate) fn report(games: u64) -> String {
    if !enabled() || games == 0 {
        return String::new();
    }
    let load = |i: usize| STAGE_NANOS.get(i).map_or(0, |n| n.load(Ordering::Relaxed)) as f64;
    let thread_cpu: Vec<f64> = THREAD_NANOS
        .iter()
        .map(|n| n.load(Ordering::Relaxed) as f64)
        .collect();
    let scale: Vec<f64> = (0..THREADS.len())
        .map(|t| {
            let staged: f64 = (0..STAGES.len()).map(|s| load(s * THREADS.len() + t)).sum();
            let cpu = thread_cpu.get(t).copied().unwrap_or(0.0);
            if staged > 0.0 && cpu > 0.0 {
                cpu / staged
            } else {
                1.0
            }
        })
        .collect();
    let per_game = |nanos: f64| nanos / 1e3 / games as f64;
    let mut out = String::from("stage profile, CPU µs per game:\n");
    for (s, stage) in STAGES.iter().enumerate() {
        let mut total = 0.0;
        let mut on = Vec::new();
        for (t, thread) in THREADS.iter().enumerate() {
            let nanos = load(s * THREADS.len() + t) * scale.get(t).copied().unwrap_or(1.0);
            if nanos > 0.0 {
                total += nanos;
                on.push(format!("{} {:.2}", thread.name(), per_game(nanos)));
            }
        }
        let _ = writeln!(
            out,
            "  {:<20} {:>7.2}  {}",
            stage.name(),
            per_game(total),
            on.join(", ")
        );
    }
    let total: f64 = thread_cpu.iter().sum();
    let mut serial = 0.0;
    for (thread, cpu) in THREADS.iter().zip(&thread_cpu) {
        if thread.is_serial() {
            serial += cpu;
        }
        let _ = writeln!(
            out,
            "  thread {:<13} {:>7.2}",
            thread.name(),
            per_game(*cpu)
        );
    }
    let share = serial / total.max(1.0);
    let _ = writeln!(
        out,
        "  total {:.2} µs/game; serial share {:.1} % (Amdahl: ×{:.1} at 16 cores, ×{:.1} at 64)",
        per_game(total),
        share * 100.0,
        1.0 / (share + (1.0 - share) / 16.0),
        1.0 / (share + (1.0 - share) / 64.0),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_hold_stages_and_threads_at_their_index() {
        for (i, stage) in STAGES.into_iter().enumerate() {
            assert_eq!(stage_index(stage), i, "{stage:?}");
        }
        for (i, thread) in THREADS.into_iter().enumerate() {
            assert_eq!(thread_index(thread), i, "{thread:?}");
        }
    }

    #[test]
    fn a_worker_part_is_taken_once_by_the_thread_that_ran_it() {
        enable_for_tests();
        take_worker_parts();
        let sum = worker_part(Stage::FinalMerge, || {
            (0..std::hint::black_box(3_000_000u64)).fold(0u64, |a, b| a.wrapping_add(b * b))
        });
        std::hint::black_box(sum);
        assert!(take_worker_parts() > Duration::ZERO);
        assert_eq!(take_worker_parts(), Duration::ZERO);
        // Another thread's parts are that thread's to take.
        let other = std::thread::spawn(|| {
            worker_part(Stage::FinalMerge, || std::hint::black_box(1));
        });
        assert!(other.join().is_ok());
        assert_eq!(take_worker_parts(), Duration::ZERO);
    }
}
