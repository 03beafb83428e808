//! Side jobs: work handed to the pipeline's workers by the reader
//! (decompressing a zstd frame) or the consumer (encoding a row group), run
//! between batches, with the result collected in order by whoever handed it
//! out. Below every stage, so that any of them can hand work out.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};

use crate::profile::{self, Stage, Thread, Timer};

/// Work the consumer hands to the workers: see [`Deferred`].
pub trait SideJob: Send + Sync {
    fn run(&self);
}

/// The sending end of the side jobs' queue (the consumer holds it).
pub(crate) type SideJobSender = Sender<Arc<dyn SideJob>>;
/// The receiving end (the workers take from it).
pub(crate) type SideJobReceiver = Receiver<Arc<dyn SideJob>>;

/// A side job's queue: the consumer sends, the workers take.
pub(crate) fn side_jobs() -> (SideJobSender, SideJobReceiver) {
    crossbeam_channel::unbounded()
}

type Work<T> = Box<dyn FnOnce() -> T + Send>;

/// Work handed to the workers whose result the consumer collects in order.
/// Whoever comes first runs it: a worker taking it from the queue, or the
/// consumer itself when it needs the result and no worker has started it,
/// so the consumer never waits on workers that are waiting on it.
pub struct Deferred<T> {
    /// The stage its run counts to in the profile.
    stage: Stage,
    work: Mutex<Option<Work<T>>>,
    result: Mutex<Option<Result<T, JobPanicked>>>,
    ready: Condvar,
}

impl<T: Send> Deferred<T> {
    pub fn new(stage: Stage, work: impl FnOnce() -> T + Send + 'static) -> Arc<Deferred<T>> {
        Arc::new(Deferred {
            stage,
            work: Mutex::new(Some(Box::new(work))),
            result: Mutex::new(None),
            ready: Condvar::new(),
        })
    }

    /// Runs the work here, unless it was taken already.
    fn run_here(&self) {
        let work = self
            .work
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(work) = work {
            let mut timer = Timer::start();
            let result = std::panic::catch_unwind(AssertUnwindSafe(work)).map_err(|_| JobPanicked);
            profile::lap(&mut timer, self.stage);
            *self.result.lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
            self.ready.notify_all();
        }
    }

    /// Has the work finished?
    pub(crate) fn is_done(&self) -> bool {
        self.result
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// The result, waited for while a worker may take the work (up to
    /// `patience` for one to start it), else computed here: the reader
    /// leaves decompression to the workers, but never waits on none.
    pub(crate) fn wait_patiently(&self, patience: Duration) -> Result<T, JobPanicked> {
        let deadline = Instant::now() + patience;
        let mut result = self.result.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(done) = result.take() {
                return done;
            }
            let unclaimed = self
                .work
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_some();
            let now = Instant::now();
            if unclaimed && now >= deadline {
                drop(result);
                self.run_here();
                result = self.result.lock().unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            let timeout = if unclaimed {
                deadline - now
            } else {
                Duration::from_secs(1)
            };
            result = self
                .ready
                .wait_timeout(result, timeout)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// The result, as [`wait`](Self::wait) gives it; but on a thread of
    /// a rayon pool, while another thread computes it, the pool's pending
    /// jobs run here. The end of a run drives its jobs from one of the
    /// pool's threads: blocked, it left a core idle (on two cores, a third
    /// of the end of the run). Only where the pool holds nothing but jobs
    /// that finish on their own, never a worker's loop over batches.
    pub(crate) fn wait_helping(&self) -> Result<T, JobPanicked> {
        loop {
            if self.is_done() || self.is_unclaimed() {
                // Run here when still unclaimed: a job of the pool's,
                // counted to the workers on whichever thread runs it. Its
                // stage time alone did not say so: a job run meanwhile by
                // `yield_now` flushes this thread's pending stage times,
                // and the driving thread's own CPU then counted as serial
                // (on lichess-like input, 2.3 of the end of run's 3 µs a
                // game were encoding jobs it ran itself).
                return profile::on_thread(Thread::Worker, || self.wait());
            }
            match profile::helping(self.stage, rayon::yield_now) {
                Some(rayon::Yield::Executed) => {}
                // Nothing pending: look again once it is done or a moment
                // has passed (new jobs may have come meanwhile).
                Some(rayon::Yield::Idle) => self.wait_for(HELPING_PAUSE),
                None => return self.wait(),
            }
        }
    }

    fn is_unclaimed(&self) -> bool {
        self.work
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// Waits until the result is there or `pause` has passed.
    fn wait_for(&self, pause: Duration) {
        let result = self.result.lock().unwrap_or_else(PoisonError::into_inner);
        if result.is_none() {
            let _ = self.ready.wait_timeout(result, pause);
        }
    }

    /// The result: computed here if no worker has started it, else waited for.
    pub(crate) fn wait(&self) -> Result<T, JobPanicked> {
        self.wait_patiently(Duration::ZERO)
    }
}

impl<T: Send> SideJob for Deferred<T> {
    fn run(&self) {
        self.run_here();
    }
}

/// How long [`Deferred::wait_helping`] waits before it looks for jobs again.
const HELPING_PAUSE: Duration = Duration::from_millis(2);

/// Runs a side job on a worker thread, its CPU counted to the workers in
/// the profile.
pub(crate) fn run_on_worker(job: &dyn SideJob) {
    profile::on_thread(Thread::Worker, || job.run());
}

/// A side job panicked (a bug): its result is lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JobPanicked;

impl std::fmt::Display for JobPanicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a side job panicked")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn deferred_work_runs_once_whoever_comes_first() {
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&runs);
        let job = Deferred::new(Stage::Encode, move || {
            counted.fetch_add(1, Ordering::SeqCst) + 41
        });
        let worker = {
            let job = Arc::clone(&job);
            std::thread::spawn(move || job.run())
        };
        let answer = job.wait().unwrap_or_else(|e| panic!("{e}"));
        worker.join().unwrap_or_else(|_| panic!("worker"));
        assert_eq!(answer, 41);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert!(job.is_done() || runs.load(Ordering::SeqCst) == 1);
    }

    #[test]
    fn a_panicking_deferred_job_is_reported_as_such() {
        let job = Deferred::new(Stage::Encode, || -> u32 { panic!("a bug") });
        assert_eq!(job.wait(), Err(JobPanicked));
    }

    #[test]
    fn a_pool_thread_that_waits_runs_the_pending_jobs_meanwhile() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        let (answer, helped) = pool.install(|| {
            let started = Arc::new(AtomicUsize::new(0));
            let flag = Arc::clone(&started);
            let slow = Deferred::new(Stage::Encode, move || {
                flag.store(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(300));
                7
            });
            let runner = Arc::clone(&slow);
            rayon::spawn(move || run_on_worker(runner.as_ref()));
            // The other thread has taken the slow job.
            while started.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            let here = std::thread::current().id();
            let ran_here = Arc::new(AtomicUsize::new(0));
            for _ in 0..4 {
                let ran_here = Arc::clone(&ran_here);
                rayon::spawn(move || {
                    if std::thread::current().id() == here {
                        ran_here.fetch_add(1, Ordering::SeqCst);
                    }
                });
            }
            let answer = slow.wait_helping().unwrap_or_else(|e| panic!("{e}"));
            (answer, ran_here.load(Ordering::SeqCst))
        });
        assert_eq!(answer, 7);
        assert_eq!(helped, 4);
    }

    #[test]
    fn a_job_a_waiting_pool_thread_runs_itself_counts_to_the_workers() {
        profile::enable_for_tests();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        let parts = pool.install(|| {
            let job = Deferred::new(Stage::Encode, || {
                (0..std::hint::black_box(3_000_000u64)).fold(0u64, |a, b| a.wrapping_add(b * b))
            });
            profile::take_worker_parts();
            let sum = job.wait_helping().unwrap_or_else(|e| panic!("{e}"));
            std::hint::black_box(sum);
            profile::take_worker_parts()
        });
        // Counted as a worker part, so that the end of run's thread does
        // not count it as its own serial work.
        assert!(parts > Duration::ZERO);
    }

    #[test]
    fn waiting_helpfully_off_the_pool_is_a_plain_wait() {
        let job = Deferred::new(Stage::Encode, || 5);
        assert_eq!(job.wait_helping(), Ok(5));
    }
}
