//! The import pipeline: one thread frames the inputs into batches, a rayon
//! pool parses and replays batches in parallel, one thread writes the tables.
//! Batches are processed in groups and their outputs forwarded in input
//! order, so the tables are identical whatever the thread count, and at most
//! a few groups are in flight, so memory does not grow with the input.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, bounded};
use indicatif::ProgressBar;
use polars::prelude::{DataFrame, PolarsResult};
use thiserror::Error;

use crate::game::{BatchOutput, process_batch};
use crate::input::{self, InputError, InputSource, progress};
use crate::pgn::framer::{Batch, Framer};
use crate::sink::parquet::{ROW_GROUP_ROWS, TableWriter, games_frame, rejects_frame};
use crate::sink::summary::{InputSummary, Options, Summary};
use crate::stats::RunCounts;

const BATCH_BYTES: usize = 512 << 10;
const BATCH_GAMES: usize = 2048;

/// What `pgnlake import` was asked to do.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    pub quiet: bool,
    pub strict: bool,
}

/// Why an import could not run to the end. Bad games are not errors.
#[derive(Debug, Error)]
pub enum ImportError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{path}: cannot create output folder: {source}")]
    OutputDir { path: PathBuf, source: io::Error },
    #[error("{path}: cannot write: {message}")]
    OutputWrite { path: PathBuf, message: String },
    #[error("{path}: read failed: {source}")]
    Read { path: String, source: io::Error },
    #[error("cannot start {threads} worker threads: {message}")]
    Threads { threads: usize, message: String },
}

fn write_error(path: &Path, error: impl std::fmt::Display) -> ImportError {
    ImportError::OutputWrite {
        path: path.to_path_buf(),
        message: error.to_string(),
    }
}

/// Runs an import and returns its summary (also written to `summary.json`).
pub fn run_import(options: &ImportOptions) -> Result<Summary, ImportError> {
    let started = Instant::now();
    let sources = input::discover(&options.inputs)?;
    fs::create_dir_all(&options.out).map_err(|source| ImportError::OutputDir {
        path: options.out.clone(),
        source,
    })?;
    let names: Vec<String> = sources.iter().map(InputSource::display_name).collect();
    let games_schema = games_frame(&[], &names)
        .map_err(|e| write_error(&options.out, e))?
        .schema()
        .as_ref()
        .clone();
    let rejects_schema = rejects_frame(&[], &names)
        .map_err(|e| write_error(&options.out, e))?
        .schema()
        .as_ref()
        .clone();
    let games_writer = TableWriter::create(&options.out, "games", &games_schema)
        .map_err(|e| write_error(&options.out.join("games.parquet"), e))?;
    let rejects_writer = TableWriter::create(&options.out, "rejects", &rejects_schema)
        .map_err(|e| write_error(&options.out.join("rejects.parquet"), e))?;

    let threads = match options.threads {
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
    let total_bytes = sources.iter().map(InputSource::size).sum::<Option<u64>>();
    let bar = progress::import_bar(total_bytes, options.quiet);

    // At most `in_flight` batches exist between the reader and the writer
    // (queued, being processed, or waiting to be written in order): the
    // reader takes a ticket per batch, the writer returns it once written.
    // Deep enough that workers keep going while the writer compresses a row group.
    let in_flight = (threads * 8).max(32);
    let (ticket_tx, ticket_rx) = bounded::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = ticket_tx.send(());
    }
    let (batch_tx, batch_rx) = bounded::<(u64, Batch)>(in_flight);
    let (out_tx, out_rx) = bounded::<(u64, PolarsResult<Tables>)>(in_flight);

    let (read_result, write_result) = std::thread::scope(|scope| {
        let reader = scope.spawn(|| read_all(&sources, batch_tx, ticket_rx, &bar));
        let writer =
            scope.spawn(|| write_all(out_rx, ticket_tx, games_writer, rejects_writer, &bar));
        pool.scope(|workers| {
            for _ in 0..threads {
                let batches = batch_rx.clone();
                let outputs = out_tx.clone();
                let names = &names;
                workers.spawn(move |_| {
                    for (seq, batch) in batches {
                        let tables = Tables::new(process_batch(&batch), names);
                        if outputs.send((seq, tables)).is_err() {
                            return;
                        }
                    }
                });
            }
        });
        drop(out_tx);
        let read_result = reader.join().unwrap_or_else(|_| Err(thread_died("reader")));
        let write_result = writer.join().unwrap_or_else(|_| Err(thread_died("writer")));
        (read_result, write_result)
    });
    bar.finish_and_clear();
    let (counts, games_writer, rejects_writer) = write_result?;
    let inputs = match read_result {
        Ok(inputs) => inputs,
        Err(e) => {
            discard(games_writer, rejects_writer);
            return Err(e);
        }
    };
    let mut tables = BTreeMap::new();
    let games_rows = games_writer
        .finish()
        .map_err(|e| write_error(&options.out.join("games.parquet"), e))?;
    let reject_rows = rejects_writer
        .finish()
        .map_err(|e| write_error(&options.out.join("rejects.parquet"), e))?;
    tables.insert("games.parquet", games_rows);
    tables.insert("rejects.parquet", reject_rows);

    let summary = Summary::new(
        Options {
            inputs: names,
            out: options.out.display().to_string(),
            threads,
            strict: options.strict,
            quiet: options.quiet,
        },
        inputs,
        &counts,
        started.elapsed().as_secs_f64(),
        tables,
    );
    write_summary(&options.out, &summary)?;
    Ok(summary)
}

fn thread_died(which: &str) -> ImportError {
    ImportError::Threads {
        threads: 1,
        message: format!("the {which} thread panicked"),
    }
}

fn discard(games: TableWriter, rejects: TableWriter) {
    for writer in [games, rejects] {
        let _ = writer.abandon();
    }
}

fn write_summary(dir: &Path, summary: &Summary) -> Result<(), ImportError> {
    let path = dir.join("summary.json");
    let tmp = dir.join(".summary.json.tmp");
    let json = serde_json::to_string_pretty(summary).map_err(|e| write_error(&path, e))?;
    fs::write(&tmp, json + "\n").map_err(|e| write_error(&tmp, e))?;
    fs::rename(&tmp, &path).map_err(|e| write_error(&path, e))
}

/// Reader thread: frames every input into numbered batches, in order.
fn read_all(
    sources: &[InputSource],
    tx: Sender<(u64, Batch)>,
    tickets: Receiver<()>,
    bar: &ProgressBar,
) -> Result<Vec<InputSummary>, ImportError> {
    let raw_bytes = Arc::new(AtomicU64::new(0));
    let mut next_game_id = 0u64;
    let mut seq = 0u64;
    let mut summaries = Vec::with_capacity(sources.len());
    for (index, source) in sources.iter().enumerate() {
        let path = source.display_name();
        let read_error = |source| ImportError::Read {
            path: path.clone(),
            source,
        };
        let reader = input::open(source, Arc::clone(&raw_bytes)).map_err(read_error)?;
        let mut framer = Framer::new(reader);
        let mut games = 0u64;
        loop {
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
            if tickets.recv().is_err() || tx.send((seq, batch)).is_err() {
                // The writer stopped: it reports why.
                return Ok(summaries);
            }
            seq += 1;
        }
        summaries.push(InputSummary {
            path,
            bytes: source.size(),
            uncompressed_bytes: framer.bytes_read(),
            games,
        });
    }
    Ok(summaries)
}

/// One batch's rows as table pieces, built on the worker that replayed it.
struct Tables {
    games: DataFrame,
    rejects: DataFrame,
    counts: RunCounts,
}

impl Tables {
    fn new(output: BatchOutput, names: &[String]) -> PolarsResult<Tables> {
        Ok(Tables {
            games: games_frame(&output.games, names)?,
            rejects: rejects_frame(&output.rejects, names)?,
            counts: output.counts,
        })
    }
}

/// Rows waiting to become one row group.
struct RowGroup {
    pieces: Vec<DataFrame>,
    rows: usize,
}

impl RowGroup {
    fn new() -> Self {
        RowGroup {
            pieces: Vec::new(),
            rows: 0,
        }
    }

    fn push(&mut self, piece: DataFrame) {
        self.rows += piece.height();
        if piece.height() > 0 {
            self.pieces.push(piece);
        }
    }

    /// Writes the pieces as one row group.
    fn flush(&mut self, writer: &mut TableWriter) -> Result<(), ImportError> {
        let mut pieces = std::mem::take(&mut self.pieces).into_iter();
        self.rows = 0;
        let Some(mut frame) = pieces.next() else {
            return Ok(());
        };
        for piece in pieces {
            frame
                .vstack_mut_owned(piece)
                .map_err(|e| write_error(writer.path(), e))?;
        }
        frame.rechunk_mut();
        writer
            .write(&frame)
            .map_err(|e| write_error(writer.path(), e))
    }
}

/// Writer thread: puts batch outputs back in input order and writes them
/// in row groups of about [`ROW_GROUP_ROWS`] rows.
fn write_all(
    rx: Receiver<(u64, PolarsResult<Tables>)>,
    tickets: Sender<()>,
    mut games: TableWriter,
    mut rejects: TableWriter,
    bar: &ProgressBar,
) -> Result<(RunCounts, TableWriter, TableWriter), ImportError> {
    let started = Instant::now();
    let mut counts = RunCounts::default();
    let mut game_group = RowGroup::new();
    let mut reject_group = RowGroup::new();
    let mut pending: BTreeMap<u64, PolarsResult<Tables>> = BTreeMap::new();
    let mut next_seq = 0u64;
    for (seq, tables) in rx {
        pending.insert(seq, tables);
        while let Some(tables) = pending.remove(&next_seq) {
            next_seq += 1;
            let tables = tables.map_err(|e| write_error(games.path(), e))?;
            counts += &tables.counts;
            game_group.push(tables.games);
            reject_group.push(tables.rejects);
            let _ = tickets.send(());
            if game_group.rows >= ROW_GROUP_ROWS {
                game_group.flush(&mut games)?;
            }
            if reject_group.rows >= ROW_GROUP_ROWS {
                reject_group.flush(&mut rejects)?;
            }
        }
        let rate = counts.read as f64 / started.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!("{} games, {rate:.0} games/s", counts.read));
    }
    game_group.flush(&mut games)?;
    reject_group.flush(&mut rejects)?;
    Ok((counts, games, rejects))
}
