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
use rayon::prelude::*;
use thiserror::Error;

use crate::game::{BatchOutput, process_batch};
use crate::input::{self, InputError, InputSource, progress};
use crate::pgn::framer::{Batch, Framer};
use crate::sink::parquet::{ROW_GROUP_ROWS, TableWriter, games_frame, rejects_frame};
use crate::sink::rows::{GameRow, RejectRow};
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

    let (batch_tx, batch_rx) = bounded::<Result<Batch, ImportError>>(threads * 4);
    let (out_tx, out_rx) = bounded::<BatchOutput>(threads * 4);
    let group_size = threads * 4;

    let (read_result, write_result, process_error) = std::thread::scope(|scope| {
        let reader = scope.spawn(|| read_all(&sources, batch_tx, &bar));
        let writer = scope.spawn(|| write_all(out_rx, games_writer, rejects_writer, &names, &bar));
        let process_error = process_all(&pool, batch_rx, out_tx, group_size);
        let read_result = reader
            .join()
            .unwrap_or_else(|_| Err(thread_died("reader")));
        let write_result = writer
            .join()
            .unwrap_or_else(|_| Err(thread_died("writer")));
        (read_result, write_result, process_error)
    });
    bar.finish_and_clear();
    let (counts, games_writer, rejects_writer) = write_result?;
    let failure = process_error.map(Err).unwrap_or(Ok(()));
    let inputs = match read_result.and_then(|inputs| failure.map(|_| inputs)) {
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

/// Reader thread: frames every input into batches, in order.
fn read_all(
    sources: &[InputSource],
    tx: Sender<Result<Batch, ImportError>>,
    bar: &ProgressBar,
) -> Result<Vec<InputSummary>, ImportError> {
    let raw_bytes = Arc::new(AtomicU64::new(0));
    let mut next_game_id = 0u64;
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
                .map_err(read_error);
            bar.set_position(raw_bytes.load(Ordering::Relaxed));
            match more {
                Ok(true) => {
                    games += batch.games.len() as u64;
                    if tx.send(Ok(batch)).is_err() {
                        return Ok(summaries);
                    }
                }
                Ok(false) => break,
                Err(e) => {
                    let message = e.to_string();
                    let _ = tx.send(Err(e));
                    return Err(ImportError::Read {
                        path: path.clone(),
                        source: io::Error::other(message),
                    });
                }
            }
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

/// Main thread: processes groups of batches on the pool and forwards the
/// outputs in input order. Returns the first input error, if any.
fn process_all(
    pool: &rayon::ThreadPool,
    rx: Receiver<Result<Batch, ImportError>>,
    tx: Sender<BatchOutput>,
    group_size: usize,
) -> Option<ImportError> {
    let mut group = Vec::with_capacity(group_size);
    while let Ok(first) = rx.recv() {
        group.push(first);
        while group.len() < group_size {
            match rx.try_recv() {
                Ok(next) => group.push(next),
                Err(_) => break,
            }
        }
        let mut batches = Vec::with_capacity(group.len());
        for item in group.drain(..) {
            match item {
                Ok(batch) => batches.push(batch),
                Err(e) => return Some(e),
            }
        }
        let outputs: Vec<BatchOutput> =
            pool.install(|| batches.par_iter().map(process_batch).collect());
        for output in outputs {
            if tx.send(output).is_err() {
                return None;
            }
        }
    }
    None
}

/// Writer thread: collects rows into row groups and writes them.
fn write_all(
    rx: Receiver<BatchOutput>,
    mut games: TableWriter,
    mut rejects: TableWriter,
    names: &[String],
    bar: &ProgressBar,
) -> Result<(RunCounts, TableWriter, TableWriter), ImportError> {
    let started = Instant::now();
    let mut counts = RunCounts::default();
    let mut game_rows: Vec<GameRow> = Vec::with_capacity(ROW_GROUP_ROWS);
    let mut reject_rows: Vec<RejectRow> = Vec::new();
    for output in rx {
        counts += &output.counts;
        game_rows.extend(output.games);
        reject_rows.extend(output.rejects);
        if game_rows.len() >= ROW_GROUP_ROWS {
            flush_games(&mut games, &mut game_rows, names)?;
        }
        if reject_rows.len() >= ROW_GROUP_ROWS {
            flush_rejects(&mut rejects, &mut reject_rows, names)?;
        }
        let rate = counts.read as f64 / started.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!("{} games, {rate:.0} games/s", counts.read));
    }
    flush_games(&mut games, &mut game_rows, names)?;
    flush_rejects(&mut rejects, &mut reject_rows, names)?;
    Ok((counts, games, rejects))
}

fn flush_games(
    writer: &mut TableWriter,
    rows: &mut Vec<GameRow>,
    names: &[String],
) -> Result<(), ImportError> {
    let frame = games_frame(rows, names).map_err(|e| write_error(writer.path(), e))?;
    writer.write(&frame).map_err(|e| write_error(writer.path(), e))?;
    rows.clear();
    Ok(())
}

fn flush_rejects(
    writer: &mut TableWriter,
    rows: &mut Vec<RejectRow>,
    names: &[String],
) -> Result<(), ImportError> {
    let frame = rejects_frame(rows, names).map_err(|e| write_error(writer.path(), e))?;
    writer.write(&frame).map_err(|e| write_error(writer.path(), e))?;
    rows.clear();
    Ok(())
}
