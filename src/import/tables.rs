//! The import, its tables: open under temporary names until the run
//! succeeds, the games and rejects written in row groups in input order,
//! the statistics tables written from the workers' merged aggregates.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use std::path::Path;

use polars::prelude::{DataFrame, PolarsResult};
use rayon::prelude::*;

use crate::error::Error;
use crate::import::worker::BatchTables;
use crate::jobs::{Deferred, JobPanicked, SideJob, SideJobSender};
use crate::pipeline;
use crate::profile::{self, Stage};
use crate::sink::compression::Compression;
use crate::sink::encode::{EncodedRowGroup, RowGroupEncoder};
use crate::sink::moves::MOVES_ROW_GROUP_ROWS;
use crate::sink::openings::{opening_lines_frame, write_openings};
use crate::sink::outcomes::{endgames_frame, material_frame, write_results, write_sorted};
use crate::sink::parquet::TableWriter;
use crate::sink::schema;
use crate::sink::staged::{Staged, TableDigest, digest_files};
use crate::stats::lines::LinesCodec;
use crate::stats::outcomes::{EndgamesCodec, MaterialTable, ResultsCodec};
use crate::stats::partitioned::{SortedTree, TreeCounts};
use crate::stats::spill::{self, SpillDir};
use crate::stats::{Aggregates, RunCounts, SpillDirs};

/// The tables of a run, open under temporary names until the run succeeds.
pub(super) struct Writers {
    pub(super) games: TableWriter,
    pub(super) rejects: TableWriter,
    pub(super) stats: StatsWriters,
    /// `moves.parquet`, with `--moves` only.
    pub(super) moves: Option<TableWriter>,
}

/// The statistics tables (the aggregates, summed by key): what an import
/// and a merge write from their counts, and a lake's compaction alone.
pub(super) struct StatsWriters {
    pub(super) openings: TableWriter,
    pub(super) opening_lines: TableWriter,
    pub(super) results: TableWriter,
    pub(super) material: TableWriter,
    pub(super) endgames: TableWriter,
}

/// `table`'s writer in `dir`. A table's name that is a link is written
/// at its target (the link stays), as `-o` writes; one that is not a file
/// (a fifo, a device, a folder) is refused: tables are files, and only
/// files are replaced.
fn open_table(
    dir: &Path,
    table: &schema::Table,
    compression: Compression,
) -> Result<TableWriter, Error> {
    let path = dir.join(table.file_name());
    let target = crate::sink::output::file_target(&path)
        .and_then(|target| {
            target.ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "not a regular file; a table is written as a file and replaces only a file",
                )
            })
        })
        .map_err(Error::write(&path))?;
    TableWriter::create(&target, table, compression).map_err(Error::write(&path))
}

/// A run's tables closed under their temporary names, waiting for the
/// commit (see `sink::staged`), with their rows.
pub(super) struct ClosedTables(Vec<(&'static str, Staged, u64)>);

impl ClosedTables {
    /// Rows per table file name.
    pub(super) fn rows(&self) -> BTreeMap<&'static str, u64> {
        self.0
            .iter()
            .map(|(name, _, rows)| (*name, *rows))
            .collect()
    }

    /// Each table's content digest, read from its finished file.
    pub(super) fn digests(&self) -> Result<BTreeMap<String, TableDigest>, Error> {
        let mut digests = BTreeMap::new();
        for (name, staged, _) in &self.0 {
            let digest = digest_files(&[staged.path()]).map_err(Error::write(staged.target()))?;
            digests.insert((*name).to_owned(), digest);
        }
        Ok(digests)
    }

    /// Renames every table into place.
    pub(super) fn commit(self) -> Result<(), Error> {
        for (_, staged, _) in self.0 {
            let target = staged.target().to_path_buf();
            staged.commit().map_err(Error::write(&target))?;
        }
        Ok(())
    }
}

/// Closes each table (its footer written); on an error the others are
/// abandoned and those closed removed.
fn close_all(
    writers: impl IntoIterator<Item = (&'static str, TableWriter)>,
) -> Result<ClosedTables, Error> {
    let mut closed = Vec::new();
    let mut writers = writers.into_iter();
    for (file, writer) in writers.by_ref() {
        let path = writer.path().to_path_buf();
        match writer.close() {
            Ok((staged, rows)) => closed.push((file, staged, rows)),
            Err(e) => {
                for (_, writer) in writers {
                    let _ = writer.abandon();
                }
                return Err(Error::write(&path)(e));
            }
        }
    }
    Ok(ClosedTables(closed))
}

impl Writers {
    /// The tables in `dir`, each with the schema [`schema`] declares.
    pub(super) fn create(
        dir: &Path,
        moves: bool,
        compression: Compression,
    ) -> Result<Writers, Error> {
        Ok(Writers {
            games: open_table(dir, &schema::games::TABLE, compression)?,
            rejects: open_table(dir, &schema::rejects::TABLE, compression)?,
            stats: StatsWriters::create(dir, compression)?,
            moves: match moves {
                true => Some(open_table(dir, &schema::moves::TABLE, compression)?),
                false => None,
            },
        })
    }

    fn into_list(self) -> impl Iterator<Item = (&'static str, TableWriter)> {
        let moves = self.moves.map(|writer| ("moves.parquet", writer));
        [
            ("games.parquet", self.games),
            ("rejects.parquet", self.rejects),
        ]
        .into_iter()
        .chain(self.stats.into_list())
        .chain(moves)
    }

    pub(super) fn abandon(self) {
        for (_, writer) in self.into_list() {
            let _ = writer.abandon();
        }
    }

    /// Closes every table, for the commit to rename.
    pub(super) fn close(self) -> Result<ClosedTables, Error> {
        close_all(self.into_list())
    }
}

impl StatsWriters {
    pub(super) fn create(dir: &Path, compression: Compression) -> Result<StatsWriters, Error> {
        Ok(StatsWriters {
            openings: open_table(dir, &schema::openings::TABLE, compression)?,
            opening_lines: open_table(dir, &schema::opening_lines::TABLE, compression)?,
            results: open_table(dir, &schema::results::TABLE, compression)?,
            material: open_table(dir, &schema::material::TABLE, compression)?,
            endgames: open_table(dir, &schema::endgames::TABLE, compression)?,
        })
    }

    fn into_list(self) -> [(&'static str, TableWriter); 5] {
        [
            ("openings.parquet", self.openings),
            ("opening_lines.parquet", self.opening_lines),
            ("results.parquet", self.results),
            ("material.parquet", self.material),
            ("endgames.parquet", self.endgames),
        ]
    }

    pub(super) fn abandon(self) {
        for (_, writer) in self.into_list() {
            let _ = writer.abandon();
        }
    }

    /// Renames every table to its final name; rows per table.
    pub(super) fn finish(self) -> Result<BTreeMap<&'static str, u64>, Error> {
        finish_all(self.into_list())
    }
}

/// Renames each table to its final name; rows per table file name.
fn finish_all(
    writers: impl IntoIterator<Item = (&'static str, TableWriter)>,
) -> Result<BTreeMap<&'static str, u64>, Error> {
    let mut tables = BTreeMap::new();
    for (file, writer) in writers {
        let path = writer.path().to_path_buf();
        let rows = writer.finish().map_err(Error::write(&path))?;
        tables.insert(file, rows);
    }
    Ok(tables)
}

/// Merges the workers' aggregates and writes the statistics tables; the
/// opening tree's rows, and those left out for `opening_min_games`. The
/// tree is added up a few partitions at a time, about a 64th of
/// `memory_limit` of records (4 to 16 MiB) at once.
pub(super) fn write_aggregates(
    aggregates: Vec<Aggregates<'_>>,
    spill_dirs: &SpillDirs,
    opening_min_games: u32,
    memory_limit: u64,
    writers: &mut StatsWriters,
) -> Result<TreeCounts, Error> {
    let mut material = MaterialTable::default();
    for part in &aggregates {
        material += &part.outcomes.material;
    }
    // Each worker's maps are sorted on its own thread (in parallel: the
    // profile counts it to the workers, not to the serial end of run).
    let parts = aggregates
        .into_par_iter()
        .map(|part| {
            profile::worker_part(Stage::FinalMerge, || {
                Ok((
                    part.tree.finish()?,
                    (
                        part.lines.finish()?,
                        part.outcomes.results.finish()?,
                        part.outcomes.endgames.finish()?,
                    ),
                ))
            })
        })
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(Error::write(spill_dirs.tree.dir().path()))?;
    let mut trees = Vec::with_capacity(parts.len());
    let mut results = Vec::with_capacity(parts.len());
    let mut endgames = Vec::with_capacity(parts.len());
    let mut lines = Vec::with_capacity(parts.len());
    for (tree, (line, result, endgame)) in parts {
        trees.push(tree);
        lines.push(line);
        results.push(result);
        endgames.push(endgame);
    }

    let spill_path = spill_dirs.tree.dir().path();
    let batch_bytes = (memory_limit / 64).clamp(4 << 20, 16 << 20);
    // Opening the runs to read them back fails as a read (too many open
    // files, a run removed under the import).
    let mut tree = SortedTree::new(trees, &spill_dirs.tree, opening_min_games, batch_bytes)
        .map_err(|source| Error::Read {
            path: spill_path.display().to_string(),
            source,
        })?;
    let path = writers.openings.path().to_path_buf();
    write_openings(&mut tree, &spill_dirs.first_moves, &mut writers.openings)
        .map_err(Error::write(&path))?;
    let tree_counts = tree.counts();
    // Freeing the workers' rows (boxes one by one) is a job for the pool,
    // not the end of run's own thread: 0.2 µs a lichess-like game.
    let ((), written) = rayon::join(
        || profile::worker_part(Stage::FinalMerge, || drop(tree)),
        || write_small_tables(results, endgames, lines, material, spill_dirs, writers),
    );
    written?;
    Ok(tree_counts)
}

/// The results, endgames, opening lines and material tables, from the
/// workers' parts.
fn write_small_tables(
    results: Parts<ResultsCodec>,
    endgames: Parts<EndgamesCodec>,
    lines: Parts<LinesCodec>,
    material: MaterialTable,
    spill_dirs: &SpillDirs,
    writers: &mut StatsWriters,
) -> Result<(), Error> {
    let merged = merge_parts::<ResultsCodec>(&spill_dirs.results, results)?;
    let path = writers.results.path().to_path_buf();
    write_results(merged, &mut writers.results).map_err(Error::write(&path))?;
    let endgames = merge_parts::<EndgamesCodec>(&spill_dirs.endgames, endgames)?
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(Error::write(spill_dirs.endgames.path()))?;

    let merged = merge_parts::<LinesCodec>(&spill_dirs.lines, lines)?;
    let path = writers.opening_lines.path().to_path_buf();
    write_sorted(merged, &mut writers.opening_lines, opening_lines_frame)
        .map_err(Error::write(&path))?;
    write_frame(&mut writers.material, material_frame(&material))?;
    write_frame(&mut writers.endgames, endgames_frame(endgames))
}

/// The workers' in-memory parts of an aggregate.
type Parts<C> = Vec<Vec<(<C as spill::Codec>::Key, <C as spill::Codec>::Value)>>;

fn merge_parts<C: spill::Codec>(
    dir: &SpillDir,
    parts: Parts<C>,
) -> Result<spill::Merged<C>, Error> {
    spill::merge::<C>(dir, parts).map_err(Error::write(dir.path()))
}

pub(super) fn write_frame(
    writer: &mut TableWriter,
    frame: PolarsResult<DataFrame>,
) -> Result<(), Error> {
    let path = writer.path().to_path_buf();
    let frame = frame.map_err(Error::write(&path))?;
    writer.write(&frame).map_err(Error::write(&path))
}

/// Rows per row group of `games` and `rejects`: their rows are wide (tags,
/// the moves), and a row group is held twice while it is stacked and
/// encoded, so half the statistics tables' row groups.
const GAMES_ROW_GROUP_ROWS: usize = 1 << 14;

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

    /// The pieces so far as one row group to encode: stacked and encoded
    /// by whoever runs the job (a worker, as a side job).
    fn seal(&mut self, encoder: Arc<RowGroupEncoder>) -> Option<Arc<Encoding>> {
        let pieces = std::mem::take(&mut self.pieces);
        self.rows = 0;
        (!pieces.is_empty())
            .then(|| Deferred::new(Stage::Encode, move || stack_and_encode(pieces, &encoder)))
    }
}

/// A row group being encoded off the consumer thread.
type Encoding = Deferred<PolarsResult<Vec<EncodedRowGroup>>>;

fn stack_and_encode(
    pieces: Vec<DataFrame>,
    encoder: &RowGroupEncoder,
) -> PolarsResult<Vec<EncodedRowGroup>> {
    let mut pieces = pieces.into_iter();
    let Some(mut frame) = pieces.next() else {
        return Ok(Vec::new());
    };
    for piece in pieces {
        frame.vstack_mut_owned(piece)?;
    }
    frame.rechunk_mut();
    encoder.encode(&frame, false)
}

/// Which of the row-group tables a sealed row group belongs to.
#[derive(Clone, Copy)]
enum Table {
    Games,
    Rejects,
    Moves,
}

/// Row groups encoding at most, before the consumer waits for the oldest:
/// one encodes while the next fills (a row group takes about a twentieth of
/// the time the next one takes to fill), so memory holds one more row group
/// than when the writer encoded.
const ENCODING_AHEAD: usize = 1;

/// How long the consumer leaves a row group to the workers before it
/// encodes the row group itself.
const PATIENCE: Duration = Duration::from_millis(200);

/// Consumer: writes the batch outputs, in input order, in row groups of
/// about [`GAMES_ROW_GROUP_ROWS`] rows. A full row group is handed to the workers
/// to stack and encode; the consumer appends the encoded ones in order.
pub(super) struct TableConsumer {
    pub(super) counts: RunCounts,
    games: RowGroup,
    rejects: RowGroup,
    moves: RowGroup,
    encoding: VecDeque<(Table, Arc<Encoding>)>,
    /// Row groups placed in their file, their bytes being written by the
    /// workers (oldest first).
    writing: VecDeque<(Table, Arc<Writing>)>,
    side_jobs: Option<SideJobSender>,
    pub(super) writers: Writers,
}

/// A placed row group's bytes written on a worker: the kernel's copy into
/// the page cache was most of the consumer's own time (0.2-0.4 µs a
/// lichess-like game, serial).
type Writing = Deferred<std::io::Result<()>>;

/// Placed row groups whose bytes may wait for a worker to write them
/// before the consumer writes the oldest itself: they hold their bytes
/// (a compressed row group each) until written.
const WRITING_AHEAD: usize = 4;

impl TableConsumer {
    pub(super) fn new(writers: Writers) -> Self {
        TableConsumer {
            counts: RunCounts::default(),
            games: RowGroup::new(),
            rejects: RowGroup::new(),
            moves: RowGroup::new(),
            encoding: VecDeque::new(),
            writing: VecDeque::new(),
            side_jobs: None,
            writers,
        }
    }

    /// Writes the last, partial row groups and every one still encoding.
    pub(super) fn finish(mut self) -> Result<Self, Error> {
        self.seal(Table::Games);
        self.seal(Table::Rejects);
        self.seal(Table::Moves);
        // The workers are gone: what none has started is encoded here.
        while !self.encoding.is_empty() {
            self.append_oldest(Duration::ZERO)?;
        }
        while !self.writing.is_empty() {
            self.write_oldest(Duration::ZERO)?;
        }
        Ok(self)
    }

    /// The table's writer (none for the moves table without `--moves`).
    fn writer(&mut self, table: Table) -> Option<&mut TableWriter> {
        match table {
            Table::Games => Some(&mut self.writers.games),
            Table::Rejects => Some(&mut self.writers.rejects),
            Table::Moves => self.writers.moves.as_mut(),
        }
    }

    fn seal(&mut self, table: Table) {
        let Some(encoder) = self.writer(table).map(|w| w.encoder()) else {
            return;
        };
        let group = match table {
            Table::Games => &mut self.games,
            Table::Rejects => &mut self.rejects,
            Table::Moves => &mut self.moves,
        };
        if let Some(job) = group.seal(encoder) {
            // Without workers (after the run) the consumer runs it when it waits.
            if let Some(side_jobs) = &self.side_jobs {
                let _ = side_jobs.send(Arc::clone(&job) as Arc<dyn SideJob>);
            }
            self.encoding.push_back((table, job));
        }
    }

    /// Waits for the oldest row group being encoded (running it here if no
    /// worker took it within `patience`) and appends it to its table.
    fn append_oldest(&mut self, patience: Duration) -> Result<(), Error> {
        let Some((table, job)) = self.encoding.pop_front() else {
            return Ok(());
        };
        let Some(writer) = self.writer(table) else {
            return Ok(());
        };
        let path = writer.path().to_path_buf();
        let encoded = job
            .wait_patiently(patience)
            .map_err(|JobPanicked| Error::Panicked("encoder"))?;
        let mut placed = Vec::new();
        for group in encoded.map_err(Error::write(&path))? {
            placed.push(writer.place(group).map_err(Error::write(&path))?);
        }
        for pending in placed {
            let job = Deferred::new(Stage::Write, move || pending.write());
            if let Some(side_jobs) = &self.side_jobs {
                let _ = side_jobs.send(Arc::clone(&job) as Arc<dyn SideJob>);
            }
            self.writing.push_back((table, job));
        }
        Ok(())
    }

    /// Waits for the oldest placed row group's bytes to be written
    /// (writing them here if no worker took them within `patience`).
    fn write_oldest(&mut self, patience: Duration) -> Result<(), Error> {
        let Some((table, job)) = self.writing.pop_front() else {
            return Ok(());
        };
        let written = job
            .wait_patiently(patience)
            .map_err(|JobPanicked| Error::Panicked("writer"))?;
        match self.writer(table) {
            Some(writer) => written.map_err(Error::write(writer.path())),
            None => Ok(()),
        }
    }
}

impl pipeline::Consumer<PolarsResult<BatchTables>> for TableConsumer {
    fn consume(&mut self, tables: PolarsResult<BatchTables>) -> Result<(), Error> {
        let tables = tables.map_err(Error::write(self.writers.games.path()))?;
        self.counts += &tables.counts;
        self.games.push(tables.games);
        self.rejects.push(tables.rejects);
        if let Some(moves) = tables.moves {
            self.moves.push(moves);
        }
        if self.games.rows >= GAMES_ROW_GROUP_ROWS {
            self.seal(Table::Games);
        }
        if self.rejects.rows >= GAMES_ROW_GROUP_ROWS {
            self.seal(Table::Rejects);
        }
        if self.moves.rows >= MOVES_ROW_GROUP_ROWS {
            self.seal(Table::Moves);
        }
        while self.encoding.front().is_some_and(|(_, job)| job.is_done())
            || self.encoding.len() > ENCODING_AHEAD
        {
            self.append_oldest(PATIENCE)?;
        }
        while self.writing.front().is_some_and(|(_, job)| job.is_done())
            || self.writing.len() > WRITING_AHEAD
        {
            self.write_oldest(PATIENCE)?;
        }
        Ok(())
    }

    fn games(&self) -> u64 {
        self.counts.read
    }

    fn attach_side_jobs(&mut self, side_jobs: SideJobSender) {
        self.side_jobs = Some(side_jobs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::moves::moves_frame;
    use crate::sink::openings::openings_frame;
    use crate::sink::outcomes::results_frame;
    use crate::sink::parquet::{games_frame, rejects_frame, table_schema};

    /// The files are opened with the declared schema and filled with the
    /// writers' frames: the two must be the same, type for type.
    #[test]
    fn writers_frames_have_the_declared_schema() -> PolarsResult<()> {
        let frames = [
            (&schema::games::TABLE, games_frame(&[], &[])?),
            (&schema::rejects::TABLE, rejects_frame(&[], &[])?),
            (
                &schema::openings::TABLE,
                openings_frame(
                    &[],
                    &crate::stats::first_moves::FirstMoves::new("unused".into(), 0),
                )?,
            ),
            (&schema::opening_lines::TABLE, opening_lines_frame(&[])?),
            (&schema::results::TABLE, results_frame(&[])?),
            (
                &schema::material::TABLE,
                material_frame(&MaterialTable::default())?,
            ),
            (&schema::endgames::TABLE, endgames_frame(Vec::new())?),
            (&schema::moves::TABLE, moves_frame(&[])?),
        ];
        for (table, frame) in frames {
            assert_eq!(
                frame.schema().as_ref(),
                &table_schema(table),
                "{}",
                table.name
            );
        }
        Ok(())
    }
}
