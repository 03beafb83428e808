//! The import: the ordered parallel pipeline ([`crate::pipeline`]) with
//! parse, audit and replay on the workers, the statistics aggregated per
//! worker and merged at the end, and the tables written in input order, so
//! they are identical whatever the thread count.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use polars::prelude::{DataFrame, PolarsResult};
use rayon::prelude::*;

use crate::check::{BatchOutput, process_batch};
use crate::error::Error;
use crate::input::{self, InputSource, progress};
use crate::pgn::framer::Batch;
use crate::pipeline;
use crate::replay::material::PieceValues;
use crate::sink::lock::OutputLock;
use crate::sink::openings::{opening_lines_frame, openings_frame, write_openings};
use crate::sink::outcomes::{endgames_frame, material_frame, results_frame, write_results};
use crate::sink::parquet::{ROW_GROUP_ROWS, TableWriter, games_frame, rejects_frame};
use crate::sink::summary::{Options, Summary, TreeSummary};
use crate::stats::lines::OpeningLines;
use crate::stats::outcomes::{EndgamesCodec, MaterialTable, ResultsCodec};
use crate::stats::spill::{self, SpillDir};
use crate::stats::tree::TreeCodec;
use crate::stats::{AggregateOptions, Aggregates, RunCounts, SpillDirs};

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
    /// Bytes the aggregates may hold in memory before spilling to disk.
    pub memory_limit: u64,
    pub piece_values: PieceValues,
}

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
    fs::create_dir_all(&options.out).map_err(|source| Error::OutputDir {
        path: options.out.clone(),
        source,
    })?;
    // Held to the end of the run: a second run on this folder refuses.
    let _lock = OutputLock::for_folder(&options.out).map_err(|source| Error::Locked {
        path: options.out.clone(),
        source,
    })?;
    let names: Vec<String> = sources.iter().map(InputSource::display_name).collect();
    let writers = Writers::create(&options.out, &names)?;

    let (pool, threads) = pipeline::worker_pool(options.threads)?;
    let total_bytes = sources.iter().map(InputSource::size).sum::<Option<u64>>();
    let bar = progress::import_bar(total_bytes, options.quiet);
    let spill = SpillDirs::new(&options.out);
    let aggregate_options = AggregateOptions {
        opening_plies: options.opening_plies,
        budget: usize::try_from(options.memory_limit / threads as u64).unwrap_or(usize::MAX),
        piece_values: options.piece_values,
    };
    let finished_aggregates = Mutex::new(Vec::with_capacity(threads));
    let workers = pipeline::Workers {
        new_state: || Aggregates::new(aggregate_options, &spill),
        work: |batch: &Batch, aggregates: &mut Aggregates<'_>| {
            Tables::new(process_batch(batch, aggregates), &names)
        },
        finish: |aggregates| {
            if let Ok(mut finished) = finished_aggregates.lock() {
                finished.push(aggregates);
            }
        },
    };
    let consumer = TableConsumer::new(writers);
    let (read_result, write_result) =
        pipeline::run(&sources, &pool, threads, &bar, workers, consumer);
    bar.finish_and_clear();
    let TableConsumer {
        counts,
        mut writers,
        ..
    } = write_result?.finish()?;
    let inputs = match read_result {
        Ok(inputs) => inputs,
        Err(e) => {
            writers.abandon();
            return Err(e);
        }
    };
    let aggregates = finished_aggregates.into_inner().unwrap_or_default();
    let aggregated = crate::interrupt::check()
        .map_err(Error::from)
        .and_then(|()| pool.install(|| write_aggregates(aggregates, &spill, &mut writers)));
    if let Err(e) = aggregated {
        writers.abandon();
        return Err(e);
    }
    let tree = TreeSummary {
        plies: options.opening_plies,
        memory_limit_bytes: options.memory_limit,
        spill_runs: spill.runs_written(),
        spill_bytes: spill.bytes_written() as u64,
    };
    drop(spill);
    if let Err(e) = crate::interrupt::check() {
        writers.abandon();
        return Err(e.into());
    }
    crate::interrupt::commit(|| {
        let tables = writers.finish()?;
        let mut summary = Summary::new(
            Options {
                inputs: names,
                out: options.out.display().to_string(),
                threads,
                strict: options.strict,
                quiet: options.quiet,
                piece_values: options.piece_values.into(),
            },
            inputs,
            &counts,
            started.elapsed().as_secs_f64(),
            tables,
            tree,
        );
        summary.skipped_entries = skipped_entries;
        write_summary(&options.out, &summary)?;
        Ok(summary)
    })
}

/// The tables of a run, open under temporary names until the run succeeds.
struct Writers {
    games: TableWriter,
    rejects: TableWriter,
    openings: TableWriter,
    opening_lines: TableWriter,
    results: TableWriter,
    material: TableWriter,
    endgames: TableWriter,
}

impl Writers {
    fn create(dir: &Path, names: &[String]) -> Result<Writers, Error> {
        let open = |name: &str, frame: PolarsResult<DataFrame>| {
            let path = dir.join(format!("{name}.parquet"));
            let schema = frame
                .map_err(Error::write(&path))?
                .schema()
                .as_ref()
                .clone();
            TableWriter::create(dir, name, &schema).map_err(Error::write(&path))
        };
        Ok(Writers {
            games: open("games", games_frame(&[], names))?,
            rejects: open("rejects", rejects_frame(&[], names))?,
            openings: open("openings", openings_frame(&[]))?,
            opening_lines: open(
                "opening_lines",
                opening_lines_frame(&OpeningLines::default()),
            )?,
            results: open("results", results_frame(&[]))?,
            material: open("material", material_frame(&MaterialTable::default()))?,
            endgames: open("endgames", endgames_frame(Vec::new()))?,
        })
    }

    fn abandon(self) {
        for writer in [
            self.games,
            self.rejects,
            self.openings,
            self.opening_lines,
            self.results,
            self.material,
            self.endgames,
        ] {
            let _ = writer.abandon();
        }
    }

    /// Renames every table to its final name; rows per table.
    fn finish(self) -> Result<BTreeMap<&'static str, u64>, Error> {
        let mut tables = BTreeMap::new();
        for (name, writer) in [
            ("games.parquet", self.games),
            ("rejects.parquet", self.rejects),
            ("openings.parquet", self.openings),
            ("opening_lines.parquet", self.opening_lines),
            ("results.parquet", self.results),
            ("material.parquet", self.material),
            ("endgames.parquet", self.endgames),
        ] {
            let path = writer.path().to_path_buf();
            let rows = writer.finish().map_err(Error::write(&path))?;
            tables.insert(name, rows);
        }
        Ok(tables)
    }
}

/// Merges the workers' aggregates and writes the statistics tables.
fn write_aggregates(
    aggregates: Vec<Aggregates<'_>>,
    spill_dirs: &SpillDirs,
    writers: &mut Writers,
) -> Result<(), Error> {
    let mut lines = OpeningLines::default();
    let mut material = MaterialTable::default();
    for part in &aggregates {
        lines += &part.lines;
        material += &part.outcomes.material;
    }
    // Each worker's maps are sorted on its own thread.
    let parts = aggregates
        .into_par_iter()
        .map(|part| {
            Ok((
                part.tree.finish()?,
                part.outcomes.results.finish()?,
                part.outcomes.endgames.finish()?,
            ))
        })
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(Error::write(spill_dirs.tree.path()))?;
    let mut trees = Vec::with_capacity(parts.len());
    let mut results = Vec::with_capacity(parts.len());
    let mut endgames = Vec::with_capacity(parts.len());
    for (tree, result, endgame) in parts {
        trees.push(tree);
        results.push(result);
        endgames.push(endgame);
    }

    let merged = merge_parts::<TreeCodec>(&spill_dirs.tree, trees)?;
    let path = writers.openings.path().to_path_buf();
    write_openings(merged, &mut writers.openings).map_err(Error::write(&path))?;
    let merged = merge_parts::<ResultsCodec>(&spill_dirs.results, results)?;
    let path = writers.results.path().to_path_buf();
    write_results(merged, &mut writers.results).map_err(Error::write(&path))?;
    let endgames = merge_parts::<EndgamesCodec>(&spill_dirs.endgames, endgames)?
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(Error::write(spill_dirs.endgames.path()))?;

    write_frame(&mut writers.opening_lines, opening_lines_frame(&lines))?;
    write_frame(&mut writers.material, material_frame(&material))?;
    write_frame(&mut writers.endgames, endgames_frame(endgames))
}

fn merge_parts<C: spill::Codec>(
    dir: &SpillDir,
    parts: Vec<Vec<(C::Key, C::Value)>>,
) -> Result<spill::Merged<C>, Error> {
    spill::merge::<C>(dir, parts).map_err(Error::write(dir.path()))
}

fn write_frame(writer: &mut TableWriter, frame: PolarsResult<DataFrame>) -> Result<(), Error> {
    let path = writer.path().to_path_buf();
    let frame = frame.map_err(Error::write(&path))?;
    writer.write(&frame).map_err(Error::write(&path))
}

fn write_summary(dir: &Path, summary: &Summary) -> Result<(), Error> {
    let path = dir.join("summary.json");
    let tmp = dir.join(".summary.json.tmp");
    let json = serde_json::to_string_pretty(summary).map_err(Error::write(&path))?;
    fs::write(&tmp, json + "\n").map_err(Error::write(&tmp))?;
    fs::rename(&tmp, &path).map_err(Error::write(&path))
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
    fn flush(&mut self, writer: &mut TableWriter) -> Result<(), Error> {
        let mut pieces = std::mem::take(&mut self.pieces).into_iter();
        self.rows = 0;
        let Some(mut frame) = pieces.next() else {
            return Ok(());
        };
        for piece in pieces {
            frame
                .vstack_mut_owned(piece)
                .map_err(Error::write(writer.path()))?;
        }
        frame.rechunk_mut();
        writer.write(&frame).map_err(Error::write(writer.path()))
    }
}

/// Consumer: writes the batch outputs, in input order, in row groups of
/// about [`ROW_GROUP_ROWS`] rows.
struct TableConsumer {
    counts: RunCounts,
    games: RowGroup,
    rejects: RowGroup,
    writers: Writers,
}

impl TableConsumer {
    fn new(writers: Writers) -> Self {
        TableConsumer {
            counts: RunCounts::default(),
            games: RowGroup::new(),
            rejects: RowGroup::new(),
            writers,
        }
    }

    /// Writes the last, partial row groups.
    fn finish(mut self) -> Result<Self, Error> {
        self.games.flush(&mut self.writers.games)?;
        self.rejects.flush(&mut self.writers.rejects)?;
        Ok(self)
    }
}

impl pipeline::Consumer<PolarsResult<Tables>> for TableConsumer {
    fn consume(&mut self, tables: PolarsResult<Tables>) -> Result<(), Error> {
        let tables = tables.map_err(Error::write(self.writers.games.path()))?;
        self.counts += &tables.counts;
        self.games.push(tables.games);
        self.rejects.push(tables.rejects);
        if self.games.rows >= ROW_GROUP_ROWS {
            self.games.flush(&mut self.writers.games)?;
        }
        if self.rejects.rows >= ROW_GROUP_ROWS {
            self.rejects.flush(&mut self.writers.rejects)?;
        }
        Ok(())
    }

    fn games(&self) -> u64 {
        self.counts.read
    }
}
