//! The import, the run: discover the inputs, open the output folder and its
//! tables, run the pipeline, merge the aggregates and write the summary.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use crate::check::{BatchModes, process_batch};
use crate::error::Error;
use crate::import::tables::{ClosedTables, TableConsumer, Writers, write_aggregates};
use crate::import::worker::BatchTables;
use crate::input::shard::{self, Cut, Shard};
use crate::input::{self, InputSource, progress};
use crate::pgn::framer::Batch;
use crate::pipeline;
use crate::profile::{self, Stage, Thread};
use crate::replay::material::PieceValues;
use crate::sink::compression::Compression;
use crate::sink::lock::OutputLock;
use crate::sink::staged::Staged;
use crate::sink::summary::{Options, SUMMARY_FILE, Summary, TreeSummary};
use crate::sink::tables;
use crate::stats::dimensions::OpeningPeriod;
use crate::stats::{AggregateOptions, Aggregates, SpillDirs};

/// What `pgnlake import` was asked to do.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    pub quiet: bool,
    pub strict: bool,
    /// Moves per game that enter the opening tree.
    pub opening_plies: usize,
    /// How finely the opening statistics are split by date.
    pub opening_period: OpeningPeriod,
    /// Rows of the opening tree played in fewer games are left out of
    /// `openings.parquet` (after every count is summed).
    pub opening_min_games: u32,
    /// Bytes the aggregates may hold in memory before spilling to disk.
    pub memory_limit: u64,
    pub piece_values: PieceValues,
    /// `--shard K/N`: import this shard of the inputs only.
    pub shard: Option<Shard>,
    /// `--moves`: also write `moves.parquet`, one row per mainline ply.
    pub moves: bool,
    /// `--unwinnable-nodes`: the dead-position search's budget per side of
    /// a flagged final position (0: the static test only).
    pub unwinnable_nodes: u64,
    /// `--repair`: rejected games read again through `clean --repair`'s
    /// rules.
    pub repair: bool,
    /// `--compression`: the codec of every table's pages.
    pub compression: Compression,
}

/// Default `--opening-min-games`: every row.
pub const DEFAULT_OPENING_MIN_GAMES: u32 = 1;
/// Default `--opening-plies`.
pub const DEFAULT_OPENING_PLIES: usize = 20;
/// Default `--memory-limit`: 1 GiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 1 << 30;

/// Runs an import and returns its summary (also written to `summary.json`).
pub fn run_import(options: &ImportOptions) -> Result<Summary, Error> {
    let started = Instant::now();
    let input::Discovered {
        sources,
        skipped_entries,
    } = input::discover(&options.inputs)?;
    let (sources, keep) = shard_parts(sources, options.shard)?;
    // Held to the end of the run: a second run on this folder refuses.
    let folder = open_output(&options.out)?;
    let names: Vec<String> = sources.iter().map(InputSource::display_name).collect();
    let writers = Writers::create(&options.out, options.moves, options.compression)?;

    let (pool, threads) = pipeline::worker_pool(options.threads)?;
    let total_bytes = sources.iter().map(InputSource::size).sum::<Option<u64>>();
    let bar = progress::import_bar(total_bytes, options.quiet);
    let spill = SpillDirs::new(&options.out, options.opening_plies);
    let aggregate_options = AggregateOptions {
        opening_plies: options.opening_plies,
        opening_period: options.opening_period,
        budget: usize::try_from(options.memory_limit / threads as u64).unwrap_or(usize::MAX),
        piece_values: options.piece_values,
        unwinnable_nodes: options.unwinnable_nodes,
    };
    let finished_aggregates = Mutex::new(Vec::with_capacity(threads));
    let workers = pipeline::Workers {
        new_state: || Aggregates::new(aggregate_options, &spill),
        work: |batch: &Batch, aggregates: &mut Aggregates<'_>| {
            let modes = BatchModes {
                moves: options.moves,
                repair: options.repair,
            };
            let output = process_batch(batch, aggregates, modes);
            BatchTables::new(output, &names, options.moves)
        },
        finish: |aggregates| {
            // A worker that panicked is reported by the pipeline; the
            // aggregates the others finished are still theirs.
            let mut finished = finished_aggregates
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            finished.push(aggregates);
        },
    };
    let consumer = TableConsumer::new(writers);
    let (read_result, write_result) =
        pipeline::run(&sources, &keep, &pool, threads, &bar, workers, consumer);
    bar.finish_and_clear();
    let TableConsumer {
        counts,
        mut writers,
        ..
    } = write_result?.finish()?;
    profile::flush(Thread::Writer);
    let inputs = match read_result {
        Ok(inputs) => inputs,
        Err(e) => {
            writers.abandon();
            return Err(e);
        }
    };
    let aggregates = finished_aggregates
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let aggregated = crate::interrupt::check()
        .map_err(Error::from)
        .and_then(|()| {
            pool.install(|| {
                profiled_end(|| {
                    write_aggregates(
                        aggregates,
                        &spill,
                        options.opening_min_games,
                        options.memory_limit,
                        &mut writers.stats,
                    )
                })
            })
        });
    let tree_counts = match aggregated {
        Ok(counts) => counts,
        Err(e) => {
            writers.abandon();
            return Err(e);
        }
    };
    let tree = TreeSummary {
        plies: options.opening_plies,
        period: options.opening_period,
        min_games: options.opening_min_games,
        rating_bands: crate::model::RatingBand::LOWER_BOUNDS.to_vec(),
        rows: tree_counts.rows,
        rows_dropped: tree_counts.rows_dropped,
        memory_limit_bytes: options.memory_limit,
        peak_memory_bytes: spill.tree.peak_memory() as u64,
        spill_runs: spill.tree.dir().runs_written(),
        spill_rows: spill.tree.rows_spilled(),
        spill_bytes: spill.tree.dir().bytes_written() as u64,
    };
    drop(spill);
    if let Err(e) = crate::interrupt::check() {
        writers.abandon();
        return Err(e.into());
    }
    // Every table closed and the summary written before anything is
    // renamed: a full disk fails the run here, with the folder as it was.
    let tables = writers.close()?;
    let mut summary = Summary::new(
        Options {
            inputs: names,
            out: options.out.display().to_string(),
            threads,
            strict: options.strict,
            quiet: options.quiet,
            piece_values: options.piece_values.into(),
            moves: options.moves,
            unwinnable_nodes: options.unwinnable_nodes,
            repair: options.repair,
        },
        inputs,
        &counts,
        started.elapsed().as_secs_f64(),
        tables.rows(),
        tree,
    );
    summary.skipped_entries = skipped_entries;
    summary.shard = options.shard;
    summary.table_digests = tables.digests()?;
    commit_folder(&options.out, tables, &summary)?;
    folder.committed();
    Ok(summary)
}

/// The commit of an import's (or a merge's) folder `dir`, all of its
/// files finished: the old `summary.json` goes first (from then on no
/// reader takes the folder for an import), then each table is renamed
/// into place, an earlier run's other tables removed, and the new summary
/// renamed in last. A signal waits for it; a kill -9 half-way leaves a
/// folder without a summary, which every reader refuses, naming it.
pub(super) fn commit_folder(
    dir: &Path,
    tables: ClosedTables,
    summary: &impl serde::Serialize,
) -> Result<(), Error> {
    let staged_summary = stage_summary(dir, summary)?;
    crate::interrupt::commit(|| {
        let path = dir.join(SUMMARY_FILE);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::write(&path)(e));
            }
            _ => {}
        }
        let written = tables.rows();
        tables.commit()?;
        remove_stale_tables(dir, &written)?;
        staged_summary.commit().map_err(Error::write(&path))
    })
}

/// Removes the tables an earlier run left in `dir` that this run did not
/// write (their rows would not match the new games), saying so on stderr.
pub(super) fn remove_stale_tables(
    dir: &Path,
    written: &std::collections::BTreeMap<&'static str, u64>,
) -> Result<(), Error> {
    let removed = tables::remove_stale(dir, written.keys().copied()).map_err(Error::write(dir))?;
    for path in removed {
        eprintln!(
            "pgnlake: removed {} (an earlier run's table; this run did not write it)",
            path.display()
        );
    }
    Ok(())
}

/// An import's (or merge's) output folder, locked for the run. A folder
/// the run made (and the parents it made) goes again unless the run
/// committed: a failed or interrupted run leaves nothing behind.
pub(super) struct OutputFolder {
    lock: Option<OutputLock>,
    dir: PathBuf,
    /// The folders this run made, outermost first.
    made: Vec<PathBuf>,
    committed: bool,
}

impl OutputFolder {
    /// The run committed: the folder stays.
    pub(super) fn committed(mut self) {
        self.committed = true;
        for dir in &self.made {
            crate::interrupt::unregister(dir);
        }
    }
}

impl Drop for OutputFolder {
    fn drop(&mut self) {
        if self.committed || self.made.is_empty() {
            return;
        }
        drop(self.lock.take());
        // The run's temporaries in it first (tables dropped unfinished
        // leave theirs to the registry).
        crate::interrupt::remove_temporaries_under(&self.dir);
        let _ = fs::remove_file(self.dir.join(OutputLock::FOLDER_FILE));
        // Innermost first; a folder something else was put in stays.
        for dir in self.made.iter().rev() {
            let _ = fs::remove_dir(dir);
            crate::interrupt::unregister(dir);
        }
    }
}

/// Creates the output folder if missing and locks it for this run.
pub(super) fn open_output(out: &Path) -> Result<OutputFolder, Error> {
    let mut made = Vec::new();
    let mut missing = Some(out);
    while let Some(dir) = missing.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        made.push(dir.to_path_buf());
        missing = dir.parent();
    }
    made.reverse();
    fs::create_dir_all(out).map_err(|source| Error::OutputDir {
        path: out.to_path_buf(),
        source,
    })?;
    // A signal that ends the run before it winds down removes them too
    // (registered outermost first: each removed whole).
    for dir in &made {
        crate::interrupt::register(dir);
    }
    let mut folder = OutputFolder {
        lock: None,
        dir: out.to_path_buf(),
        made,
        committed: false,
    };
    folder.lock = Some(OutputLock::for_folder(out).map_err(|source| Error::Locked {
        path: out.to_path_buf(),
        source,
    })?);
    Ok(folder)
}

/// The sources a run imports and which games of each it keeps: all of
/// them, or with `--shard`, the shard's parts (see [`input::shard`]).
fn shard_parts(
    sources: Vec<InputSource>,
    shard: Option<Shard>,
) -> Result<(Vec<InputSource>, Vec<Cut>), Error> {
    let Some(shard) = shard else {
        return Ok((sources, Vec::new()));
    };
    let mut extents = Vec::with_capacity(sources.len());
    for source in sources {
        let extent = shard::extent(&source).ok_or_else(|| {
            Error::Usage(format!(
                "{}: --shard needs files (standard input cannot be split)",
                source.display_name()
            ))
        })?;
        extents.push((source, extent));
    }
    Ok(shard::plan(&extents, shard)
        .into_iter()
        .map(|part| (part.source, part.keep))
        .unzip())
}

/// Runs the end of the run on this thread of the pool, its CPU counted in
/// the profile: what it runs of the jobs it hands out (encoding) counts to
/// the workers, the rest (merging, appending) to the serial end of run.
fn profiled_end<T>(end: impl FnOnce() -> T) -> T {
    let cpu = profile::enabled().then(profile::thread_cpu);
    profile::take_worker_parts();
    let done = end();
    if let Some(cpu) = cpu {
        // Parts of parallel steps it ran itself are counted already.
        let used = (profile::thread_cpu() - cpu).saturating_sub(profile::take_worker_parts());
        let in_jobs = profile::flush(Thread::Worker);
        profile::add_thread(Thread::Worker, in_jobs.min(used));
        let serial = used.saturating_sub(in_jobs);
        profile::add_thread(Thread::End, serial);
        profile::add(Stage::FinalMerge, Thread::End, serial);
    }
    done
}

/// `summary.json`'s new text in `dir`, under its temporary name.
fn stage_summary(dir: &Path, summary: &impl serde::Serialize) -> Result<Staged, Error> {
    let path = dir.join(SUMMARY_FILE);
    let tmp = dir.join(".summary.json.tmp");
    let json = serde_json::to_string_pretty(summary).map_err(Error::write(&path))?;
    crate::interrupt::register(&tmp);
    let staged = Staged::new(tmp.clone(), path);
    fs::write(&tmp, json + "\n").map_err(Error::write(&tmp))?;
    Ok(staged)
}
