//! The ordered parallel pipeline every subcommand runs on: one thread frames
//! the inputs into numbered batches, a rayon pool turns each batch into an
//! output (each worker with its own state), and one consumer thread receives
//! the outputs in input order. At most a fixed number of batches are in
//! flight, so memory does not grow with the input, and the consumer sees the
//! same sequence whatever the thread count.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_channel::{Receiver, Sender, TryRecvError, bounded};
use indicatif::ProgressBar;

use crate::error::Error;
use crate::input::shard::{Cut, Keep};
use crate::input::{self, InputSource};
use crate::jobs::{self, SideJobReceiver, SideJobSender, side_jobs};
use crate::pgn::chunked::{ChunkSizes, ChunkedFramer, Workers as ChunkWorkers};
use crate::pgn::framer::{Batch, Framer};
use crate::profile::{self, Stage, Thread};
use crate::sink::summary::{InputPart, InputSummary};

const BATCH_BYTES: usize = 512 << 10;
const BATCH_GAMES: usize = 2048;
/// Room in a batch's buffer past [`BATCH_BYTES`] for the game that fills it
/// and the reader's padding.
const BATCH_SLACK: usize = 64 << 10;

/// Receives the batch outputs in input order, on its own thread.
pub trait Consumer<O>: Send {
    /// Takes the next output. An error stops the run.
    fn consume(&mut self, output: O) -> Result<(), Error>;

    /// Games seen so far, for the progress message.
    fn games(&self) -> u64;

    /// Where to hand work back to the workers (encoding a row group), so
    /// that the consumer thread stays light: see [`crate::jobs::Deferred`].
    fn attach_side_jobs(&mut self, _side_jobs: SideJobSender) {}
}

/// How the workers of a run are made, fed and finished.
pub struct Workers<NewState, Work, Finish> {
    pub new_state: NewState,
    pub work: Work,
    pub finish: Finish,
}

/// The worker count (`0`: one per core) and a rayon pool of that size.
pub(crate) fn worker_pool(threads: usize) -> Result<(rayon::ThreadPool, usize), Error> {
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| Error::Threads { threads, source })?;
    Ok((pool, threads))
}

/// Runs the pipeline over `sources` on `pool` (with `threads` workers).
/// `keep[i]`: the games of source `i` to keep (a shard's part; every game
/// when `keep` has no entry).
/// Returns what was read from each input, or the first read error, and the
/// consumer's own result.
pub fn run<S, O, C, NewState, Work, Finish>(
    sources: &[InputSource],
    keep: &[Cut],
    pool: &rayon::ThreadPool,
    threads: usize,
    bar: &ProgressBar,
    workers: Workers<NewState, Work, Finish>,
    consumer: C,
) -> (Result<Vec<InputSummary>, Error>, Result<C, Error>)
where
    O: Send,
    C: Consumer<O>,
    NewState: Fn() -> S + Sync,
    Work: Fn(&Batch, &mut S) -> O + Sync,
    Finish: Fn(S) + Sync,
{
    // At most `in_flight` batches exist between the reader and the
    // consumer (queued, being processed, or waiting to be consumed in
    // order): the reader takes a ticket per batch, the consumer returns it.
    // Deep enough that workers keep going while the consumer is busy. A
    // batch bigger than BATCH_BYTES (one huge game) takes a ticket per
    // BATCH_BYTES, so the bytes in flight stay bounded too: 32 games of
    // 32 MiB in flight were 2 GiB of memory. Four a worker are enough to
    // keep them busy; eight held 20 MiB more on two cores for nothing.
    let in_flight = (threads * 4).max(16);
    let (ticket_tx, ticket_rx) = bounded::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = ticket_tx.send(());
    }
    let (batch_tx, batch_rx) = bounded::<(u64, usize, Batch)>(in_flight);
    let (out_tx, out_rx) = bounded::<(u64, usize, Worked<O>)>(in_flight);
    // Workers hand their batches' buffers back to the reader, which fills
    // them again instead of allocating (and faulting in) fresh ones.
    let (spare_tx, spare_rx) = bounded::<Batch>(in_flight);
    let (side_tx, side_rx) = side_jobs();
    let mut consumer = consumer;
    consumer.attach_side_jobs(side_tx.clone());
    // zstd frames decompress on the workers, a few ahead of the framer.
    let offload = input::Offload {
        side_jobs: side_tx,
        frames_ahead: (threads + 1).min(8),
        keep: None,
    };
    let workers = &workers;
    std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            read_all(
                (sources, keep),
                (batch_tx, spare_rx),
                (ticket_rx, in_flight),
                bar,
                offload,
            )
        });
        let writer = scope.spawn(|| consume_in_order(out_rx, ticket_tx, consumer, bar));
        pool.scope(|pool_scope| {
            for _ in 0..threads {
                let batches = batch_rx.clone();
                let outputs = out_tx.clone();
                let side_jobs = side_rx.clone();
                let spares = spare_tx.clone();
                pool_scope.spawn(move |_| {
                    let mut state = (workers.new_state)();
                    while let Some((seq, tickets, batch)) = next_batch(&batches, &side_jobs) {
                        // A panic is a bug: caught, sent on as such, and
                        // the consumer stops the run with it.
                        let work = AssertUnwindSafe(|| (workers.work)(&batch, &mut state));
                        let output = profile::on_thread(Thread::Worker, || {
                            std::panic::catch_unwind(work).map_err(|_| WorkerPanicked)
                        });
                        let panicked = output.is_err();
                        hand_back(&spares, batch);
                        let sent = outputs.send((seq, tickets, output));
                        if panicked {
                            return;
                        }
                        if sent.is_err() {
                            break;
                        }
                    }
                    (workers.finish)(state);
                });
            }
        });
        drop(out_tx);
        drop(spare_tx);
        let read = reader.join().unwrap_or(Err(Error::Panicked("reader")));
        let consumed = writer.join().unwrap_or(Err(Error::Panicked("consumer")));
        (read, consumed)
    })
}

/// The next batch for a worker, running the side jobs that arrive first;
/// `None` when the reader is done.
fn next_batch<B>(batches: &Receiver<B>, side_jobs: &SideJobReceiver) -> Option<B> {
    loop {
        match side_jobs.try_recv() {
            Ok(job) => {
                jobs::run_on_worker(job.as_ref());
                continue;
            }
            // The consumer is gone: only batches are left.
            Err(TryRecvError::Disconnected) => return batches.recv().ok(),
            Err(TryRecvError::Empty) => {}
        }
        crossbeam_channel::select! {
            recv(side_jobs) -> job => match job {
                Ok(job) => jobs::run_on_worker(job.as_ref()),
                Err(_) => return batches.recv().ok(),
            },
            recv(batches) -> batch => return batch.ok(),
        }
    }
}

/// Gives a done batch's buffers back to the reader, unless they grew past
/// a normal batch (one huge game): those are freed, so that memory held
/// outside the tickets stays that of `in_flight` normal batches.
fn hand_back(spares: &Sender<Batch>, batch: Batch) {
    if batch.data.capacity() <= BATCH_BYTES + BATCH_SLACK && batch.games.capacity() <= BATCH_GAMES {
        let _ = spares.try_send(batch);
    }
}

/// An empty batch of input `source`: a spare one if a worker gave one
/// back, else a new one sized for a full batch and its last game (grown by
/// doubling, its bytes were copied about twice more: the reader thread's
/// largest cost on lichess-like input).
fn empty_batch(spares: &Receiver<Batch>, source: u32) -> Batch {
    match spares.try_recv() {
        Ok(mut batch) => {
            batch.source = source;
            batch.data.clear();
            batch.games.clear();
            batch
        }
        Err(_) => Batch {
            source,
            data: Vec::with_capacity(BATCH_BYTES + BATCH_SLACK),
            games: Vec::with_capacity(BATCH_GAMES),
        },
    }
}

/// A worker panicked on a batch (its state is lost with it).
struct WorkerPanicked;

/// A worker's output for one batch.
type Worked<O> = Result<O, WorkerPanicked>;

/// Reader thread: frames every input into numbered batches, in order.
fn read_all(
    sources: (&[InputSource], &[Cut]),
    tx: (Sender<(u64, usize, Batch)>, Receiver<Batch>),
    tickets: (Receiver<()>, usize),
    bar: &ProgressBar,
    offload: input::Offload,
) -> Result<Vec<InputSummary>, Error> {
    let cpu = profile::enabled().then(profile::thread_cpu);
    let read = frame_all(sources, tx, tickets, bar, offload);
    if let Some(cpu) = cpu {
        let used = profile::thread_cpu() - cpu;
        profile::add_thread(Thread::Reader, used);
        let reading = READ_NANOS.with(std::cell::Cell::get);
        profile::add(Stage::ReadDecompress, Thread::Reader, reading);
        profile::add(Stage::Framing, Thread::Reader, used.saturating_sub(reading));
    }
    read
}

thread_local! {
    /// CPU time the reader thread spent inside `read` (reading, decompressing).
    static READ_NANOS: std::cell::Cell<std::time::Duration> = const { std::cell::Cell::new(std::time::Duration::ZERO) };
}

/// The input as the framer reads it, its `read` calls timed when profiling.
struct TimedRead<R>(R);

impl<R: std::io::Read> std::io::Read for TimedRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !profile::enabled() {
            return self.0.read(buf);
        }
        let started = profile::thread_cpu();
        let read = self.0.read(buf);
        READ_NANOS.with(|total| total.set(total.get() + (profile::thread_cpu() - started)));
        read
    }
}

fn frame_all(
    (sources, keep): (&[InputSource], &[Cut]),
    (tx, spares): (Sender<(u64, usize, Batch)>, Receiver<Batch>),
    (tickets, in_flight): (Receiver<()>, usize),
    bar: &ProgressBar,
    offload: input::Offload,
) -> Result<Vec<InputSummary>, Error> {
    let raw_bytes = Arc::new(AtomicU64::new(0));
    let mut next_game_id = 0u64;
    let mut outbox = Outbox {
        tx,
        tickets,
        in_flight,
        seq: 0,
        held: None,
        joinable: false,
        emptied: None,
    };
    let mut summaries = Vec::with_capacity(sources.len());
    let chunking = chunking(&offload);
    let mut opener = input::Opener::new(Arc::clone(&raw_bytes)).offloading(offload);
    for (index, source) in sources.iter().enumerate() {
        let path = source.display_name();
        let read_error = |source| Error::Read {
            path: path.clone(),
            source,
        };
        let cut = keep.get(index);
        let bounds = Arc::new(cut.map_or_else(Keep::whole, Cut::keep));
        opener.keeping(bounds.follows_frames().then(|| Arc::clone(&bounds)));
        let framed = opener.with_reader(source, |reader| -> Result<_, Error> {
            let reader = TimedRead(reader);
            // A shard's part is framed on this thread: the games before it
            // are framed (not parsed) only to count them.
            let mut framer = match (cut, &chunking) {
                (None, Some(workers)) => InputFramer::Chunked(ChunkedFramer::new(
                    reader,
                    workers.clone(),
                    ChunkSizes::for_batches(BATCH_BYTES, BATCH_GAMES),
                )),
                _ => InputFramer::Serial(Framer::new(reader).keeping(Arc::clone(&bounds))),
            };
            let mut games = 0u64;
            loop {
                crate::interrupt::check()?;
                let emptied = &mut outbox.emptied;
                let mut spare = || match emptied.take() {
                    Some(mut batch) => {
                        batch.source = index as u32;
                        batch
                    }
                    None => empty_batch(&spares, index as u32),
                };
                let batch = framer
                    .next_batch(&mut next_game_id, &mut spare)
                    .map_err(read_error)?;
                bar.set_position(raw_bytes.load(Ordering::Relaxed));
                let Some(batch) = batch else {
                    break;
                };
                games += batch.games.len() as u64;
                if !outbox.push(batch) {
                    // The consumer stopped: it reports why.
                    return Ok(None);
                }
            }
            outbox.end_input();
            Ok(Some(InputSummary {
                path: path.clone(),
                bytes: source.size(),
                uncompressed_bytes: framer.bytes_read(),
                games,
                truncated: framer.truncation().cloned(),
                part: cut.map(|_| InputPart::from(bounds.as_ref())),
            }))
        })?;
        match framed {
            Some(summary) => summaries.push(summary),
            None => return Ok(summaries),
        }
    }
    // The last batch. A failed send: the consumer stopped, and reports why.
    outbox.flush();
    Ok(summaries)
}

/// The reader's end of the batch channel: numbers the batches and takes
/// their tickets. The last batch of an input, when it is not full, waits
/// for the next input's first batch and takes its games if both fit in
/// one batch ([`Batch::append`]): a run of many small inputs (a zip of
/// 20,000 one-game entries, a folder of 10,000 files) makes full batches,
/// and the workers' and consumer's work and memory per batch (a table
/// piece of every column for each batch, until its row group is written)
/// do not grow with the number of inputs. Each game keeps its source
/// ([`crate::pgn::framer::RawGame::source`]), which every worker reads
/// (`check::game_place`, `export`'s `clean_selected`), not
/// [`Batch::source`].
struct Outbox {
    tx: Sender<(u64, usize, Batch)>,
    tickets: Receiver<()>,
    in_flight: usize,
    seq: u64,
    /// A batch not full, not sent yet.
    held: Option<Batch>,
    /// `held` ends its input: the next batch (another input's) may join it.
    joinable: bool,
    /// The buffers of a batch that joined `held`, for the next one.
    emptied: Option<Batch>,
}

impl Outbox {
    /// Takes the next batch framed. False when the consumer stopped.
    fn push(&mut self, mut batch: Batch) -> bool {
        if let Some(held) = self.held.as_mut()
            && self.joinable
            && held.games.len() + batch.games.len() <= BATCH_GAMES
            && held.data.len() + batch.data.len() <= BATCH_BYTES
        {
            held.append(&mut batch);
            self.emptied = Some(batch);
        } else {
            if !self.flush() {
                return false;
            }
            self.held = Some(batch);
        }
        self.joinable = false;
        let full = self
            .held
            .as_ref()
            .is_none_or(|held| held.games.len() >= BATCH_GAMES || held.data.len() >= BATCH_BYTES);
        !full || self.flush()
    }

    /// The input of the batches pushed so far is done.
    fn end_input(&mut self) {
        self.joinable = true;
    }

    /// Sends the held batch, if any. False when the consumer stopped.
    fn flush(&mut self) -> bool {
        let Some(batch) = self.held.take() else {
            return true;
        };
        let weight = (batch.data.len() / BATCH_BYTES).clamp(1, self.in_flight);
        let taken = (0..weight).all(|_| self.tickets.recv().is_ok());
        if !taken || self.tx.send((self.seq, weight, batch)).is_err() {
            return false;
        }
        self.seq += 1;
        true
    }
}

/// How long the reader leaves a chunk to the workers before it frames it
/// itself (they take side jobs between batches, a few ms apart).
const FRAMING_PATIENCE: std::time::Duration = std::time::Duration::from_millis(200);

/// Whole inputs are framed on the workers, a few chunks ahead of the
/// reader; `PGNLAKE_SERIAL_FRAMING=1` frames them on the reader thread (the
/// benchmarks' A/B).
fn chunking(offload: &input::Offload) -> Option<ChunkWorkers> {
    if std::env::var_os("PGNLAKE_SERIAL_FRAMING").is_some_and(|v| v == "1") {
        return None;
    }
    Some(ChunkWorkers {
        side_jobs: offload.side_jobs.clone(),
        chunks_ahead: (offload.frames_ahead + 2).max(4),
        patience: FRAMING_PATIENCE,
    })
}

/// An input's framing: on the reader thread, or on the workers.
enum InputFramer<R> {
    Serial(Framer<R>),
    Chunked(ChunkedFramer<R>),
}

impl<R: std::io::Read> InputFramer<R> {
    fn next_batch(
        &mut self,
        next_game_id: &mut u64,
        spare: &mut dyn FnMut() -> Batch,
    ) -> std::io::Result<Option<Batch>> {
        match self {
            InputFramer::Serial(framer) => {
                framer.next_batch(next_game_id, spare, BATCH_BYTES, BATCH_GAMES)
            }
            InputFramer::Chunked(framer) => framer.next_batch(next_game_id, spare),
        }
    }

    fn bytes_read(&self) -> u64 {
        match self {
            InputFramer::Serial(framer) => framer.bytes_read(),
            InputFramer::Chunked(framer) => framer.bytes_read(),
        }
    }

    fn truncation(&self) -> Option<&crate::pgn::framer::Truncation> {
        match self {
            InputFramer::Serial(framer) => framer.truncation(),
            InputFramer::Chunked(framer) => framer.truncation(),
        }
    }
}

/// Consumer thread: puts the outputs back in input order.
fn consume_in_order<O, C: Consumer<O>>(
    rx: Receiver<(u64, usize, Worked<O>)>,
    tickets: Sender<()>,
    mut consumer: C,
    bar: &ProgressBar,
) -> Result<C, Error> {
    let started = std::time::Instant::now();
    let mut pending: BTreeMap<u64, (usize, O)> = BTreeMap::new();
    let mut next_seq = 0u64;
    for (seq, weight, output) in rx {
        crate::interrupt::check()?;
        let output = output.map_err(|WorkerPanicked| Error::Panicked("worker"))?;
        pending.insert(seq, (weight, output));
        while let Some((weight, output)) = pending.remove(&next_seq) {
            next_seq += 1;
            // The output now belongs to the consumer, whose own buffers
            // are bounded: let the reader go on.
            for _ in 0..weight {
                let _ = tickets.send(());
            }
            profile::on_thread(Thread::Writer, || consumer.consume(output))?;
        }
        let games = consumer.games();
        let rate = games as f64 / started.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!("{games} games, {rate:.0} games/s"));
    }
    Ok(consumer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{Deferred, SideJob};
    use std::sync::atomic::AtomicUsize;
    use std::sync::{Arc, Mutex, PoisonError};

    /// A file of `games` one-move games (a batch holds 2,048 of them).
    fn tiny_games(dir: &std::path::Path, games: usize) -> Vec<InputSource> {
        let path = dir.join("tiny.pgn");
        std::fs::write(&path, "1. e4 *\n\n".repeat(games)).unwrap_or_else(|e| panic!("{e}"));
        vec![InputSource::File(path)]
    }

    /// Records the first game id of each batch, in the order consumed.
    struct Recorder {
        firsts: Vec<u64>,
        games: u64,
        /// Slows the consumer down, and fails at that output.
        delay: std::time::Duration,
        fail_at: Option<usize>,
        in_flight: Option<Arc<AtomicUsize>>,
    }

    impl Recorder {
        fn new() -> Recorder {
            Recorder {
                firsts: Vec::new(),
                games: 0,
                delay: std::time::Duration::ZERO,
                fail_at: None,
                in_flight: None,
            }
        }
    }

    impl Consumer<(u64, u64)> for Recorder {
        fn consume(&mut self, (first, games): (u64, u64)) -> Result<(), Error> {
            if self.fail_at == Some(self.firsts.len()) {
                return Err(Error::Usage("the consumer failed".into()));
            }
            std::thread::sleep(self.delay);
            if let Some(in_flight) = &self.in_flight {
                in_flight.fetch_sub(1, Ordering::SeqCst);
            }
            self.firsts.push(first);
            self.games += games;
            Ok(())
        }

        fn games(&self) -> u64 {
            self.games
        }
    }

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The batch's first game id and its games, after a pseudo-random
    /// delay of up to 2 ms.
    fn first_and_count(batch: &Batch) -> (u64, u64) {
        let first = batch.games.first().map_or(0, |g| g.game_id);
        let jitter = first.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 53;
        std::thread::sleep(std::time::Duration::from_micros(jitter));
        (first, batch.games.len() as u64)
    }

    /// Side jobs sent by the consumer are run by the workers between
    /// batches (or by the consumer when it waits), each exactly once.
    #[test]
    fn side_jobs_run_on_the_workers_in_any_case() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let sources = tiny_games(dir.path(), 50_000);
        struct Sender {
            tx: Option<SideJobSender>,
            jobs: Vec<Arc<Deferred<std::thread::ThreadId>>>,
            games: u64,
        }
        impl Consumer<u64> for Sender {
            fn consume(&mut self, games: u64) -> Result<(), Error> {
                self.games += games;
                let job = Deferred::new(Stage::Encode, || std::thread::current().id());
                if let Some(tx) = &self.tx {
                    let _ = tx.send(Arc::clone(&job) as Arc<dyn SideJob>);
                }
                self.jobs.push(job);
                Ok(())
            }
            fn games(&self) -> u64 {
                self.games
            }
            fn attach_side_jobs(&mut self, side_jobs: SideJobSender) {
                self.tx = Some(side_jobs);
            }
        }
        let workers = Workers {
            new_state: || (),
            work: |batch: &Batch, _: &mut ()| {
                std::thread::sleep(std::time::Duration::from_millis(1));
                batch.games.len() as u64
            },
            finish: |_| {},
        };
        let consumer = Sender {
            tx: None,
            jobs: Vec::new(),
            games: 0,
        };
        let bar = ProgressBar::hidden();
        let (read, consumed) = run(&sources, &[], &pool(2), 2, &bar, workers, consumer);
        read.unwrap_or_else(|e| panic!("{e}"));
        let consumer = consumed.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(consumer.games, 50_000);
        let here = std::thread::current().id();
        let ran_on: Vec<_> = consumer
            .jobs
            .iter()
            .map(|job| job.wait().unwrap_or_else(|e| panic!("{e}")))
            .collect();
        assert_eq!(ran_on.len(), 25);
        assert!(
            ran_on.iter().any(|id| *id != here),
            "no side job ran on a worker"
        );
    }

    /// Many small inputs make full batches, not one per input; each game
    /// keeps its source, and every input its summary.
    #[test]
    fn the_games_of_small_inputs_share_batches_and_keep_their_sources() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let sources: Vec<InputSource> = (0..3000)
            .map(|i| {
                let path = dir.path().join(format!("{i:04}.pgn"));
                let games = "1. e4 *\n\n".repeat(1 + i % 3);
                std::fs::write(&path, games).unwrap_or_else(|e| panic!("{e}"));
                InputSource::File(path)
            })
            .collect();
        let workers = Workers {
            new_state: || (),
            work: |batch: &Batch, _: &mut ()| {
                let games: Vec<(u32, u64, u64)> = batch
                    .games
                    .iter()
                    .map(|g| (g.source, g.game_id, g.game_index))
                    .collect();
                (games, 1u64)
            },
            finish: |_| {},
        };
        struct Games(Vec<(u32, u64, u64)>, u64);
        impl Consumer<(Vec<(u32, u64, u64)>, u64)> for Games {
            fn consume(
                &mut self,
                (games, batches): (Vec<(u32, u64, u64)>, u64),
            ) -> Result<(), Error> {
                self.0.extend(games);
                self.1 += batches;
                Ok(())
            }
            fn games(&self) -> u64 {
                self.0.len() as u64
            }
        }
        let bar = ProgressBar::hidden();
        let (read, consumed) = run(
            &sources,
            &[],
            &pool(2),
            2,
            &bar,
            workers,
            Games(Vec::new(), 0),
        );
        let summaries = read.unwrap_or_else(|e| panic!("{e}"));
        let Games(games, batches) = consumed.unwrap_or_else(|e| panic!("{e}"));
        let expected: Vec<(u32, u64, u64)> = (0..3000u32)
            .flat_map(|i| (1..=u64::from(1 + i % 3)).map(move |n| (i, n)))
            .enumerate()
            .map(|(id, (source, index))| (source, id as u64, index))
            .collect();
        assert_eq!(games, expected);
        assert!(
            batches <= 4,
            "{batches} batches for 6,000 games of 3,000 inputs"
        );
        let counted: Vec<u64> = summaries.iter().map(|s| s.games).collect();
        let expected: Vec<u64> = (0..3000).map(|i| 1 + i % 3).collect();
        assert_eq!(counted, expected);
    }

    #[test]
    fn outputs_arrive_in_input_order_whatever_the_worker_delays() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let sources = tiny_games(dir.path(), 100_000);
        let workers = Workers {
            new_state: || (),
            work: |batch: &Batch, _: &mut ()| first_and_count(batch),
            finish: |_| {},
        };
        let bar = ProgressBar::hidden();
        let (read, consumed) = run(&sources, &[], &pool(4), 4, &bar, workers, Recorder::new());
        let recorder = consumed.unwrap_or_else(|e| panic!("{e}"));
        let read = read.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.first().map(|s| s.games), Some(100_000));
        assert_eq!(recorder.games, 100_000);
        let expected: Vec<u64> = (0..recorder.firsts.len() as u64)
            .map(|i| i * BATCH_GAMES as u64)
            .collect();
        assert!(recorder.firsts.len() > 40);
        assert_eq!(recorder.firsts, expected);
    }

    #[test]
    fn batches_in_flight_stay_bounded_behind_a_slow_consumer() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let sources = tiny_games(dir.path(), 200_000);
        let in_flight = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let workers = Workers {
            new_state: || (),
            work: |batch: &Batch, _: &mut ()| {
                let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                (
                    batch.games.first().map_or(0, |g| g.game_id),
                    batch.games.len() as u64,
                )
            },
            finish: |_| {},
        };
        let consumer = Recorder {
            delay: std::time::Duration::from_millis(2),
            in_flight: Some(Arc::clone(&in_flight)),
            ..Recorder::new()
        };
        let bar = ProgressBar::hidden();
        let (read, consumed) = run(&sources, &[], &pool(2), 2, &bar, workers, consumer);
        assert!(read.is_ok() && consumed.is_ok());
        // 2 threads: at most max(16, 4 × 2) tickets between reader and
        // consumer, of the 98 batches the input makes, plus the one the
        // consumer holds (its ticket goes back before it consumes it).
        let most = most.load(Ordering::SeqCst);
        assert!((2..=17).contains(&most), "{most} batches in flight");
    }

    #[test]
    fn a_consumer_error_stops_the_reader() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let sources = tiny_games(dir.path(), 400_000);
        let worked = Mutex::new(0usize);
        let workers = Workers {
            new_state: || (),
            work: |batch: &Batch, _: &mut ()| {
                if let Ok(mut worked) = worked.lock() {
                    *worked += 1;
                }
                first_and_count(batch)
            },
            finish: |_| {},
        };
        let consumer = Recorder {
            fail_at: Some(3),
            ..Recorder::new()
        };
        let bar = ProgressBar::hidden();
        let (read, consumed) = run(&sources, &[], &pool(2), 2, &bar, workers, consumer);
        assert!(matches!(consumed, Err(Error::Usage(_))));
        // The reader stopped within the input: no summary of it, and far
        // fewer than its 196 batches were worked.
        assert_eq!(read.map(|summaries| summaries.len()).ok(), Some(0));
        let worked = *worked.lock().unwrap_or_else(PoisonError::into_inner);
        assert!(worked < 100, "{worked} batches worked");
    }

    #[test]
    fn a_panicking_worker_is_reported_as_such() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let sources = tiny_games(dir.path(), 50_000);
        let workers = Workers {
            new_state: || (),
            work: |batch: &Batch, _: &mut ()| {
                let (first, games) = first_and_count(batch);
                assert!(first != 5 * BATCH_GAMES as u64, "a bug on batch 5");
                (first, games)
            },
            finish: |_| {},
        };
        let bar = ProgressBar::hidden();
        let (_, consumed) = run(&sources, &[], &pool(2), 2, &bar, workers, Recorder::new());
        let error = consumed.err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("the worker thread panicked (a bug in pgnlake: please report it)")
        );
    }

    #[test]
    fn a_batch_handed_back_is_refilled_empty_and_a_grown_one_is_freed() {
        let (spares_tx, spares) = bounded::<Batch>(4);
        let mut used = empty_batch(&spares, 0);
        used.data.extend_from_slice(b"1. e4 *\n\n");
        let first_buffer = used.data.as_ptr();
        hand_back(&spares_tx, used);
        let again = empty_batch(&spares, 3);
        assert_eq!(
            (again.source, again.data.len(), again.games.len()),
            (3, 0, 0)
        );
        assert_eq!(again.data.as_ptr(), first_buffer);
        let mut grown = again;
        grown.data.reserve(2 * (BATCH_BYTES + BATCH_SLACK));
        hand_back(&spares_tx, grown);
        assert!(spares.try_recv().is_err());
    }
}
