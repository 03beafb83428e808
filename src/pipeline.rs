//! The ordered parallel pipeline every subcommand runs on: one thread frames
//! the inputs into numbered batches, a rayon pool turns each batch into an
//! output (each worker with its own state), and one consumer thread receives
//! the outputs in input order. At most a fixed number of batches are in
//! flight, so memory does not grow with the input, and the consumer sees the
//! same sequence whatever the thread count.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_channel::{Receiver, Sender, bounded};
use indicatif::ProgressBar;

use crate::import::ImportError;
use crate::input::{self, InputSource};
use crate::pgn::framer::{Batch, Framer};
use crate::sink::summary::InputSummary;

const BATCH_BYTES: usize = 512 << 10;
const BATCH_GAMES: usize = 2048;

/// Receives the batch outputs in input order, on its own thread.
pub trait Consumer<O>: Send {
    /// Takes the next output. An error stops the run.
    fn consume(&mut self, output: O) -> Result<(), ImportError>;

    /// Games seen so far, for the progress message.
    fn games(&self) -> u64;
}

/// How the workers of a run are made, fed and finished.
pub struct Workers<NewState, Work, Finish> {
    pub new_state: NewState,
    pub work: Work,
    pub finish: Finish,
}

/// The worker count (`0`: one per core) and a rayon pool of that size.
pub fn worker_pool(threads: usize) -> Result<(rayon::ThreadPool, usize), ImportError> {
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| ImportError::Threads {
            threads,
            message: e.to_string(),
        })?;
    Ok((pool, threads))
}

/// Runs the pipeline over `sources` on `pool` (with `threads` workers).
/// Returns what was read from each input, or the first read error, and the
/// consumer's own result.
pub fn run<S, O, C, NewState, Work, Finish>(
    sources: &[InputSource],
    pool: &rayon::ThreadPool,
    threads: usize,
    bar: &ProgressBar,
    workers: Workers<NewState, Work, Finish>,
    consumer: C,
) -> (
    Result<Vec<InputSummary>, ImportError>,
    Result<C, ImportError>,
)
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
    // 32 MiB in flight were 2 GiB of memory.
    let in_flight = (threads * 8).max(32);
    let (ticket_tx, ticket_rx) = bounded::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = ticket_tx.send(());
    }
    let (batch_tx, batch_rx) = bounded::<(u64, usize, Batch)>(in_flight);
    let (out_tx, out_rx) = bounded::<(u64, usize, O)>(in_flight);
    let workers = &workers;
    std::thread::scope(|scope| {
        let reader = scope.spawn(|| read_all(sources, batch_tx, (ticket_rx, in_flight), bar));
        let writer = scope.spawn(|| consume_in_order(out_rx, ticket_tx, consumer, bar));
        pool.scope(|pool_scope| {
            for _ in 0..threads {
                let batches = batch_rx.clone();
                let outputs = out_tx.clone();
                pool_scope.spawn(move |_| {
                    let mut state = (workers.new_state)();
                    for (seq, tickets, batch) in batches {
                        let output = (workers.work)(&batch, &mut state);
                        if outputs.send((seq, tickets, output)).is_err() {
                            break;
                        }
                    }
                    (workers.finish)(state);
                });
            }
        });
        drop(out_tx);
        let read = reader.join().unwrap_or_else(|_| Err(thread_died("reader")));
        let consumed = writer.join().unwrap_or_else(|_| Err(thread_died("writer")));
        (read, consumed)
    })
}

pub fn thread_died(which: &str) -> ImportError {
    ImportError::Threads {
        threads: 1,
        message: format!("the {which} thread panicked"),
    }
}

/// Reader thread: frames every input into numbered batches, in order.
fn read_all(
    sources: &[InputSource],
    tx: Sender<(u64, usize, Batch)>,
    (tickets, in_flight): (Receiver<()>, usize),
    bar: &ProgressBar,
) -> Result<Vec<InputSummary>, ImportError> {
    let raw_bytes = Arc::new(AtomicU64::new(0));
    let mut next_game_id = 0u64;
    let mut seq = 0u64;
    let mut summaries = Vec::with_capacity(sources.len());
    let mut opener = input::Opener::new(Arc::clone(&raw_bytes));
    for (index, source) in sources.iter().enumerate() {
        let path = source.display_name();
        let read_error = |source| ImportError::Read {
            path: path.clone(),
            source,
        };
        let framed = opener.with_reader(source, |reader| -> Result<_, ImportError> {
            let mut framer = Framer::new(reader);
            let mut games = 0u64;
            loop {
                crate::interrupt::check()?;
                let mut batch = Batch {
                    source: index as u32,
                    ..Batch::default()
                };
                let more = framer
                    .fill_batch(&mut batch, &mut next_game_id, BATCH_BYTES, BATCH_GAMES)
                    .map_err(read_error)?;
                bar.set_position(raw_bytes.load(Ordering::Relaxed));
                if !more {
                    break;
                }
                games += batch.games.len() as u64;
                let weight = (batch.data.len() / BATCH_BYTES).clamp(1, in_flight);
                let taken = (0..weight).all(|_| tickets.recv().is_ok());
                if !taken || tx.send((seq, weight, batch)).is_err() {
                    // The consumer stopped: it reports why.
                    return Ok(None);
                }
                seq += 1;
            }
            Ok(Some(InputSummary {
                path: path.clone(),
                bytes: source.size(),
                uncompressed_bytes: framer.bytes_read(),
                games,
                truncated: framer.truncation().cloned(),
            }))
        })?;
        match framed {
            Some(summary) => summaries.push(summary),
            None => return Ok(summaries),
        }
    }
    Ok(summaries)
}

/// Consumer thread: puts the outputs back in input order.
fn consume_in_order<O, C: Consumer<O>>(
    rx: Receiver<(u64, usize, O)>,
    tickets: Sender<()>,
    mut consumer: C,
    bar: &ProgressBar,
) -> Result<C, ImportError> {
    let started = std::time::Instant::now();
    let mut pending: BTreeMap<u64, (usize, O)> = BTreeMap::new();
    let mut next_seq = 0u64;
    for (seq, weight, output) in rx {
        crate::interrupt::check()?;
        pending.insert(seq, (weight, output));
        while let Some((weight, output)) = pending.remove(&next_seq) {
            next_seq += 1;
            // The output now belongs to the consumer, whose own buffers
            // are bounded: let the reader go on.
            for _ in 0..weight {
                let _ = tickets.send(());
            }
            consumer.consume(output)?;
        }
        let games = consumer.games();
        let rate = games as f64 / started.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!("{games} games, {rate:.0} games/s"));
    }
    Ok(consumer)
}
