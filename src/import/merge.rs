//! The import, merge: the tables of the shards of one import
//! (`import --shard K/N`, K = 1..N) put together into the tables a single
//! import of the same inputs writes: games and rejects in input order with
//! `game_id` rebased, the aggregates added up (the opening tree merged from
//! the shards' sorted files), `--opening-min-games` applied after the sums,
//! and the summaries reconciled.

use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use polars::prelude::*;

use crate::error::Error;
use crate::import::tables::{StatsWriters, Writers, write_frame};
use crate::input::shard::Shard;
use crate::jobs::{self, Deferred, JobPanicked};
use crate::profile::Stage;
use crate::replay::variant::VariantName;
use crate::sink::compression::Compression;
use crate::sink::openings::{in_runs, opening_lines_frame, write_openings};
use crate::sink::outcomes::{endgames_frame, material_frame, write_results};
use crate::sink::parquet::TableWriter;
use crate::sink::schema::{
    self, Column, Table, endgames, material, opening_lines, openings, results,
};
use crate::sink::summary::{InputSummary, SUMMARY_FILE, Summary};
use crate::stats::counts::{Counts, Ratings};
use crate::stats::dimensions::Dimensions;
use crate::stats::lines::{LineKey, LineStats};
use crate::stats::outcomes::{
    EndgameKey, EndgameValue, MaterialTable, ResultKey, ResultRow, ResultValue,
};
use crate::stats::tree::{Edge, EdgeKey, EdgeStats};

/// What `pgnlake merge` was asked to do.
#[derive(Debug, Clone)]
pub struct MergeOptions {
    /// The shards' output folders, in any order.
    pub dirs: Vec<PathBuf>,
    pub out: PathBuf,
    /// Rows of the merged tree played in fewer games are left out.
    pub opening_min_games: u32,
    /// The codec of the merged tables' pages.
    pub compression: Compression,
}

/// The rating sums and counts that `openings` and `opening_lines` share
/// (the same names in both).
const RATING_COLUMNS: [Column; 4] = [
    openings::WHITE_ELO_SUM,
    openings::WHITE_ELO_COUNT,
    openings::BLACK_ELO_SUM,
    openings::BLACK_ELO_COUNT,
];

/// One shard's output folder and its summary.
struct ShardDir {
    dir: PathBuf,
    summary: Summary,
    /// `K` of `--shard K/N`, and `N`.
    shard: Shard,
}

/// Merges the shards in `options.dirs` into `options.out`; returns the
/// merged summary (also written to `summary.json`).
pub fn run_merge(options: &MergeOptions) -> Result<Summary, Error> {
    let shards = read_shards(&options.dirs)?;
    let Some(first) = shards.first().map(|s| &s.summary) else {
        return Err(Error::Usage("merge: no shard folders given".into()));
    };
    let _lock = super::run::open_output(&options.out)?;
    let mut writers = Writers::create(&options.out, moves_of_first(&shards), options.compression)?;
    // On a pool: the tree's row groups are spelled and encoded in parallel,
    // and the other tables' columns too.
    let (pool, _) = crate::pipeline::worker_pool(0)?;
    let merged = pool.install(|| merge_tables(&shards, options.opening_min_games, &mut writers));
    let dropped = match merged {
        Ok(dropped) => dropped,
        Err(e) => {
            writers.abandon();
            return Err(e);
        }
    };
    let tables = writers.finish()?;
    super::run::remove_stale_tables(&options.out, &tables)?;
    let summary = merged_summary(first, &shards, &tables, options.opening_min_games, dropped);
    // Written as before merge read summaries as types: keys in name order.
    let path = options.out.join(SUMMARY_FILE);
    let json = serde_json::to_value(&summary).map_err(Error::write(&path))?;
    super::run::write_summary(&options.out, &json)?;
    Ok(summary)
}

fn merge_tables(shards: &[ShardDir], min_games: u32, writers: &mut Writers) -> Result<u64, Error> {
    let mut first_game_id = 0i64;
    for shard in shards {
        let shift = first_game_id;
        for (table, writer) in [
            (&schema::games::TABLE, &mut writers.games),
            (&schema::rejects::TABLE, &mut writers.rejects),
        ] {
            copy_rebased(&shard.dir.join(table.file_name()), shift, writer)?;
        }
        if let Some(writer) = writers.moves.as_mut() {
            copy_rebased(
                &shard.dir.join(schema::moves::TABLE.file_name()),
                shift,
                writer,
            )?;
        }
        first_game_id += i64::try_from(shard.summary.games_read).unwrap_or(i64::MAX);
    }
    let files = |table: &Table| -> Vec<PathBuf> {
        shards
            .iter()
            .map(|s| s.dir.join(table.file_name()))
            .collect()
    };
    merge_stats(&files, min_games, &mut writers.stats)
}

/// The statistics tables of several imports (shards, or a lake's
/// partitions) summed into `writers`; `files` gives a table's files, one
/// per import. The rows of the tree left out for `min_games`.
pub(super) fn merge_stats(
    files: &dyn Fn(&Table) -> Vec<PathBuf>,
    min_games: u32,
    writers: &mut StatsWriters,
) -> Result<u64, Error> {
    let dropped = merge_tree(&files(&openings::TABLE), min_games, writers)?;
    merge_results(&files(&results::TABLE), &mut writers.results)?;
    merge_small_tables(files, writers)?;
    Ok(dropped)
}

/// The summary of an import's folder `dir` (a missing one: not an
/// import's folder).
pub fn read_folder_summary(dir: &Path) -> Result<Summary, Error> {
    let path = dir.join(SUMMARY_FILE);
    Summary::read(&path).map_err(|e| match e {
        e if e.is_missing() => Error::Usage(format!(
            "{}: cannot read (no such file): not an import's folder",
            path.display()
        )),
        e => Error::Summary(e),
    })
}

/// Reads and checks the shards' summaries: one import split N ways, every
/// shard there once, with the same options; sorted by shard.
fn read_shards(dirs: &[PathBuf]) -> Result<Vec<ShardDir>, Error> {
    let mut shards = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let summary = read_folder_summary(dir)?;
        let Some(shard) = summary.shard else {
            return Err(Error::Usage(format!(
                "{}: not a shard (no `shard` in summary.json; import with --shard K/N)",
                dir.join(SUMMARY_FILE).display()
            )));
        };
        shards.push(ShardDir {
            dir: dir.clone(),
            summary,
            shard,
        });
    }
    shards.sort_by_key(|s| s.shard.index);
    let Some(first) = shards.first() else {
        return Ok(shards);
    };
    let count = first.shard.count;
    for shard in &shards {
        let place = shard.dir.display();
        if shard.shard.count != count {
            return Err(Error::Usage(format!(
                "{place}: a shard of {} shards, the others of {count}",
                shard.shard.count
            )));
        }
        let (ours, theirs) = (&first.summary, &shard.summary);
        let differs = ours.options.piece_values != theirs.options.piece_values
            || ours.opening_tree.plies != theirs.opening_tree.plies
            || ours.opening_tree.period != theirs.opening_tree.period;
        if differs {
            return Err(Error::Usage(format!(
                "{place}: imported with other --piece-values, --opening-plies or --opening-period than the first shard"
            )));
        }
        if ours.options.unwinnable_nodes != theirs.options.unwinnable_nodes {
            return Err(Error::Usage(format!(
                "{place}: imported with --unwinnable-nodes {}, the first shard with {}",
                theirs.options.unwinnable_nodes, ours.options.unwinnable_nodes
            )));
        }
        // A table of games read strictly cannot be summed with one of
        // games read through repair, nor one with moves with one without.
        let flags = [
            ("--moves", ours.options.moves, theirs.options.moves),
            ("--repair", ours.options.repair, theirs.options.repair),
        ];
        for (flag, first_has, this_has) in flags {
            if first_has != this_has {
                let with = |on: bool| if on { "with" } else { "without" };
                return Err(Error::Usage(format!(
                    "{place}: imported {} {flag}, the first shard {}",
                    with(this_has),
                    with(first_has),
                )));
            }
        }
    }
    check_one_input(&shards)?;
    let indexes: Vec<u32> = shards.iter().map(|s| s.shard.index).collect();
    if let Some(missing) = (1..=count).find(|k| !indexes.contains(k)) {
        return Err(Error::Usage(format!(
            "shards of {count}: shard {missing} is missing ({} folders given; merge needs all of them)",
            shards.len()
        )));
    }
    if indexes.len() != count as usize {
        return Err(Error::Usage(format!(
            "shards of {count}: {} folders given, some shard twice",
            shards.len()
        )));
    }
    Ok(shards)
}

/// Do the shards (in shard order) cut one input? Each file has one size
/// in every shard that read part of it, and a shard whose last part stops
/// inside a file is followed by a shard that goes on in that file.
fn check_one_input(shards: &[ShardDir]) -> Result<(), Error> {
    let not_one = |place: &Path, what: String| {
        Error::Usage(format!(
            "{}: {what}: not a shard of the same inputs as the others",
            place.display()
        ))
    };
    let mut sizes: HashMap<&str, Option<u64>> = HashMap::new();
    let mut before: Option<&InputSummary> = None;
    for shard in shards {
        let inputs = &shard.summary.inputs;
        for input in inputs {
            let size = *sizes.entry(&input.path).or_insert(input.bytes);
            if size != input.bytes {
                return Err(not_one(
                    &shard.dir,
                    format!(
                        "{} has {:?} bytes here, {size:?} in another shard",
                        input.path, input.bytes
                    ),
                ));
            }
        }
        let inside = before.filter(|last| last.part.as_ref().is_some_and(|p| p.end.is_some()));
        if let (Some(last), Some(first)) = (inside, inputs.first())
            && first.path != last.path
        {
            return Err(not_one(
                &shard.dir,
                format!(
                    "it starts in {}, the shard before it stopped inside {}",
                    first.path, last.path
                ),
            ));
        }
        before = inputs.last().or(before);
    }
    Ok(())
}

fn moves_of_first(shards: &[ShardDir]) -> bool {
    shards.first().is_some_and(|s| s.summary.options.moves)
}

/// A table's rows a row group at a time, in file order: a merge holds a
/// row group or two (up to 32,768 rows each) of each shard's table at once.
struct Chunks {
    path: PathBuf,
    slices: std::vec::IntoIter<(usize, usize)>,
}

impl Chunks {
    fn open(path: &Path) -> Result<Chunks, Error> {
        Ok(Chunks {
            path: path.to_path_buf(),
            slices: row_groups(path)?.into_iter(),
        })
    }

    fn next_chunk(&mut self) -> Result<Option<DataFrame>, Error> {
        match self.slices.next() {
            Some(slice) => read_slice(&self.path, slice).map(Some),
            None => Ok(None),
        }
    }
}

/// (first row, rows) of each row group of a table with rows.
fn row_groups(path: &Path) -> Result<Vec<(usize, usize)>, Error> {
    let file = File::open(path).map_err(|e| read_error(path, e))?;
    let mut reader = ParquetReader::new(file);
    let metadata = reader.get_metadata().map_err(|e| read_error(path, e))?;
    let mut first = 0;
    let mut slices = Vec::with_capacity(metadata.row_groups.len());
    for rows in metadata.row_groups.iter().map(|g| g.num_rows()) {
        if rows > 0 {
            slices.push((first, rows));
        }
        first += rows;
    }
    Ok(slices)
}

fn read_slice(path: &Path, (first, rows): (usize, usize)) -> Result<DataFrame, Error> {
    let file = File::open(path).map_err(|e| read_error(path, e))?;
    ParquetReader::new(file)
        .with_slice(Some((first, rows)))
        .finish()
        .map_err(|e| read_error(path, e))
}

fn read_error(path: &Path, error: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}: cannot read: {error}", path.display()))
}

/// Copies a shard's games or rejects, `shift` added to `game_id`.
fn copy_rebased(path: &Path, shift: i64, writer: &mut TableWriter) -> Result<(), Error> {
    let mut chunks = Chunks::open(path)?;
    let out = writer.path().to_path_buf();
    while let Some(mut frame) = chunks.next_chunk()? {
        let ids = frame
            .column(schema::games::GAME_ID.name)
            .and_then(|c| c.i64().cloned())
            .map_err(|e| read_error(path, e))?;
        let rebased = (ids + shift).into_series().into_column();
        frame
            .replace(schema::games::GAME_ID.name, rebased)
            .map_err(|e| read_error(path, e))?;
        writer.write(&frame).map_err(Error::write(&out))?;
    }
    Ok(())
}

/// Typed access to a chunk's columns, with the table's path for errors.
struct Columns<'a> {
    frame: &'a DataFrame,
    path: &'a Path,
}

impl Columns<'_> {
    fn int(&self, column: Column) -> Result<Vec<Option<i64>>, Error> {
        let column = self
            .frame
            .column(column.name)
            .and_then(|c| c.cast(&DataType::Int64))
            .map_err(|e| read_error(self.path, e))?;
        let values = column.i64().map_err(|e| read_error(self.path, e))?;
        Ok((0..values.len()).map(|i| values.get(i)).collect())
    }

    fn text(&self, column: Column) -> Result<Vec<Option<String>>, Error> {
        let values = self
            .frame
            .column(column.name)
            .and_then(|c| c.str().cloned())
            .map_err(|e| read_error(self.path, e))?;
        Ok((0..values.len())
            .map(|i| values.get(i).map(str::to_owned))
            .collect())
    }

    fn bad_row(&self, what: &str) -> Error {
        Error::Usage(format!("{}: {what}", self.path.display()))
    }
}

fn count(values: &[Option<i64>], row: usize) -> u64 {
    values
        .get(row)
        .copied()
        .flatten()
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(0)
}

fn small(values: &[Option<i64>], row: usize) -> Option<i32> {
    values
        .get(row)
        .copied()
        .flatten()
        .and_then(|n| i32::try_from(n).ok())
}

fn text_at(values: &[Option<String>], row: usize) -> Option<&str> {
    values.get(row).and_then(|v| v.as_deref())
}

/// The shards' `results` rows added up, written in key order.
fn merge_results(files: &[PathBuf], writer: &mut TableWriter) -> Result<(), Error> {
    let mut merged: BTreeMap<ResultKey, ResultValue> = BTreeMap::new();
    for file in files {
        for_each_chunk(file, |columns, rows| {
            let (year, bucket) = (
                columns.int(results::YEAR)?,
                columns.int(results::RATING_DIFF_BUCKET)?,
            );
            let (time_class, declared) = (
                columns.text(results::TIME_CLASS)?,
                columns.text(results::DECLARED_RESULT)?,
            );
            let (end_state, termination) = (
                columns.text(results::END_STATE)?,
                columns.text(results::TERMINATION)?,
            );
            let (draw_reason, variant) = (
                columns.text(results::DRAW_REASON)?,
                columns.text(results::VARIANT_NAME)?,
            );
            let counts = count_columns(columns)?;
            for row in 0..rows {
                let key_row = ResultRow {
                    variant_name: text_at(&variant, row).unwrap_or_default(),
                    year: small(&year, row),
                    time_class: text_at(&time_class, row).unwrap_or_default(),
                    rating_diff_bucket: small(&bucket, row),
                    declared: text_at(&declared, row),
                    end_state: text_at(&end_state, row).unwrap_or_default(),
                    draw_reason: text_at(&draw_reason, row),
                    termination: text_at(&termination, row),
                };
                let key = ResultKey::from_row(&key_row)
                    .ok_or_else(|| columns.bad_row("a results row with an unknown name"))?;
                let value = merged.entry(key).or_insert_with(|| ResultValue {
                    termination: key_row.termination.map(Into::into),
                    counts: Counts::default(),
                });
                value.counts += &counts(row);
            }
            Ok(())
        })?;
    }
    let path = writer.path().to_path_buf();
    write_results(merged.into_iter().map(Ok), writer).map_err(Error::write(&path))?;
    Ok(())
}

/// `games`, `white_wins`, `draws`, `black_wins` of a chunk, by row (every
/// aggregate table but `endgames` has them, by these names).
fn count_columns(columns: &Columns<'_>) -> Result<impl Fn(usize) -> Counts, Error> {
    let [games, white, draws, black] = [
        results::GAMES,
        results::WHITE_WINS,
        results::DRAWS,
        results::BLACK_WINS,
    ]
    .map(|column| columns.int(column));
    let (games, white, draws, black) = (games?, white?, draws?, black?);
    Ok(move |row| Counts {
        games: count(&games, row),
        white_wins: count(&white, row),
        draws: count(&draws, row),
        black_wins: count(&black, row),
    })
}

/// The games, results and ratings of a chunk of `openings` or
/// `opening_lines`, by row.
fn rated_counts(columns: &Columns<'_>) -> Result<impl Fn(usize) -> (Counts, Ratings), Error> {
    let counts = count_columns(columns)?;
    let [wes, wec, bes, bec] = RATING_COLUMNS.map(|n| columns.int(n));
    let (wes, wec, bes, bec) = (wes?, wec?, bes?, bec?);
    Ok(move |row| {
        let elo = Ratings {
            white_sum: count(&wes, row),
            white_count: count(&wec, row),
            black_sum: count(&bes, row),
            black_count: count(&bec, row),
        };
        (counts(row), elo)
    })
}

/// `material`, `endgames` and `opening_lines` added up (small tables).
fn merge_small_tables(
    files: &dyn Fn(&Table) -> Vec<PathBuf>,
    writers: &mut StatsWriters,
) -> Result<(), Error> {
    let mut material = MaterialTable::default();
    let mut endgames: HashMap<EndgameKey, EndgameValue> = HashMap::new();
    let mut lines: BTreeMap<LineKey, LineStats> = BTreeMap::new();
    let index = crate::replay::openings::index();
    for file in files(&material::TABLE) {
        for_each_chunk(&file, |columns, rows| {
            let (ply, diff) = (
                columns.int(material::CHECKPOINT_PLY)?,
                columns.int(material::MATERIAL_DIFF)?,
            );
            let counts = count_columns(columns)?;
            for row in 0..rows {
                let (ply, diff) = (small(&ply, row), small(&diff, row));
                let added = ply
                    .zip(diff)
                    .is_some_and(|(p, d)| material.add_row(p.unsigned_abs(), d, &counts(row)));
                if !added {
                    return Err(columns.bad_row("a material row off the table"));
                }
            }
            Ok(())
        })?;
    }
    for file in files(&endgames::TABLE) {
        for_each_chunk(&file, |columns, rows| {
            let signature = columns.text(endgames::ENDGAME_SIGNATURE)?;
            let variant = columns.text(endgames::VARIANT_NAME)?;
            let names = [
                endgames::GAMES,
                endgames::STRONGER_SIDE_WINS,
                endgames::DRAWS,
                endgames::WEAKER_SIDE_WINS,
                endgames::PLIES_TO_END_SUM,
            ];
            let [games, stronger, draws, weaker, plies] = names.map(|n| columns.int(n));
            let (games, stronger, draws, weaker, plies) =
                (games?, stronger?, draws?, weaker?, plies?);
            for row in 0..rows {
                let variant = text_at(&variant, row).and_then(VariantName::parse);
                let key = text_at(&signature, row)
                    .zip(variant)
                    .and_then(|(signature, variant)| EndgameKey::parse(signature, variant))
                    .ok_or_else(|| {
                        columns.bad_row("an endgame signature pgnlake does not write")
                    })?;
                let value = endgames.entry(key).or_default();
                value.games += count(&games, row);
                value.stronger_side_wins += count(&stronger, row);
                value.draws += count(&draws, row);
                value.weaker_side_wins += count(&weaker, row);
                value.plies_sum += count(&plies, row);
            }
            Ok(())
        })?;
    }
    for file in files(&opening_lines::TABLE) {
        for_each_chunk(&file, |columns, rows| {
            let (eco, name) = (
                columns.text(opening_lines::ECO)?,
                columns.text(opening_lines::OPENING_NAME)?,
            );
            let rated = rated_counts(columns)?;
            let dims = dimensions_of(
                columns,
                [
                    opening_lines::TIME_CLASS,
                    opening_lines::RATING_BAND,
                    opening_lines::MONTH,
                ],
            )?;
            let [ps, eds, edc] = [
                opening_lines::PLIES_SUM,
                opening_lines::ELO_DIFF_SUM,
                opening_lines::ELO_DIFF_COUNT,
            ]
            .map(|n| columns.int(n));
            let (ps, eds, edc) = (ps?, eds?, edc?);
            for row in 0..rows {
                let id = text_at(&eco, row)
                    .zip(text_at(&name, row))
                    .and_then(|(eco, name)| index.id_of(eco, name))
                    .ok_or_else(|| {
                        columns.bad_row("an opening name not in this version's table")
                    })?;
                let dims = dims(row).ok_or_else(|| {
                    columns.bad_row("a time class or rating band pgnlake does not write")
                })?;
                let (results, elo) = rated(row);
                let stats = LineStats {
                    results,
                    elo,
                    plies_sum: count(&ps, row),
                    elo_diff_sum: eds.get(row).copied().flatten().unwrap_or(0),
                    elo_diff_count: count(&edc, row),
                };
                *lines.entry(LineKey { name_id: id, dims }).or_default() += &stats;
            }
            Ok(())
        })?;
    }
    write_frame(&mut writers.material, material_frame(&material))?;
    write_frame(
        &mut writers.endgames,
        endgames_frame(endgames.into_iter().collect()),
    )?;
    let lines: Vec<_> = lines.into_iter().collect();
    write_frame(&mut writers.opening_lines, opening_lines_frame(&lines))
}

/// The dimensions of a chunk's rows (`time_class`, `rating_band`, `month`
/// of `openings` or `opening_lines`); None for a row pgnlake does not write.
fn dimensions_of(
    columns: &Columns<'_>,
    [time_class, rating_band, month]: [Column; 3],
) -> Result<impl Fn(usize) -> Option<Dimensions>, Error> {
    let (time_class, rating_band, month) = (
        columns.text(time_class)?,
        columns.int(rating_band)?,
        columns.int(month)?,
    );
    Ok(move |row| {
        let band = rating_band.get(row).copied().flatten();
        let month = month.get(row).copied().flatten();
        Dimensions::from_row(
            text_at(&time_class, row)?,
            band.map(i32::try_from).transpose().ok()?,
            month.map(i32::try_from).transpose().ok()?,
        )
    })
}

fn for_each_chunk(
    path: &Path,
    mut each: impl FnMut(&Columns<'_>, usize) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut chunks = Chunks::open(path)?;
    while let Some(frame) = chunks.next_chunk()? {
        each(
            &Columns {
                frame: &frame,
                path,
            },
            frame.height(),
        )?;
    }
    Ok(())
}

/// One shard's opening tree as a sorted stream of edges. Its next row
/// groups are read and turned into edges on the pool while the merge goes
/// on (reading the EPD and the move back is most of a merge's work).
struct TreeStream {
    path: Arc<PathBuf>,
    slices: std::vec::IntoIter<(usize, usize)>,
    ahead: VecDeque<Arc<Deferred<EdgesRead>>>,
    rows: std::vec::IntoIter<(EdgeKey, Edge)>,
}

/// A row group of a shard's tree as edges, or why it could not be read.
type EdgesRead = Result<Vec<(EdgeKey, Edge)>, String>;

/// Row groups of each shard's tree read ahead.
const TREE_GROUPS_AHEAD: usize = 2;

impl TreeStream {
    fn open(path: &Path) -> Result<TreeStream, Error> {
        Ok(TreeStream {
            path: Arc::new(path.to_path_buf()),
            slices: row_groups(path)?.into_iter(),
            ahead: VecDeque::new(),
            rows: Vec::new().into_iter(),
        })
    }

    fn next_edge(&mut self) -> Result<Option<(EdgeKey, Edge)>, Error> {
        loop {
            if let Some(edge) = self.rows.next() {
                return Ok(Some(edge));
            }
            while self.ahead.len() < TREE_GROUPS_AHEAD {
                let Some(slice) = self.slices.next() else {
                    break;
                };
                let path = Arc::clone(&self.path);
                let job = Deferred::new(Stage::FinalMerge, move || {
                    let frame = read_slice(&path, slice).map_err(|e| e.to_string())?;
                    let columns = Columns {
                        frame: &frame,
                        path: &path,
                    };
                    tree_edges(&columns).map_err(|e| e.to_string())
                });
                let runner = Arc::clone(&job);
                rayon::spawn(move || jobs::run_on_worker(runner.as_ref()));
                self.ahead.push_back(job);
            }
            let Some(job) = self.ahead.pop_front() else {
                return Ok(None);
            };
            let edges = job
                .wait()
                .map_err(|JobPanicked| Error::Panicked("merge reader"))?
                .map_err(Error::Usage)?;
            self.rows = edges.into_iter();
        }
    }
}

/// The edges of a chunk of an `openings` table.
fn tree_edges(columns: &Columns<'_>) -> Result<Vec<(EdgeKey, Edge)>, Error> {
    let (keys, next) = (
        columns.int(openings::POSITION_KEY)?,
        columns.int(openings::NEXT_POSITION_KEY)?,
    );
    let (epd, uci) = (
        columns.text(openings::EPD)?,
        columns.text(openings::MOVE_UCI)?,
    );
    let (ply, first, last) = (
        columns.int(openings::PLY)?,
        columns.int(openings::FIRST_YEAR)?,
        columns.int(openings::LAST_YEAR)?,
    );
    let rated = rated_counts(columns)?;
    let dims = dimensions_of(
        columns,
        [openings::TIME_CLASS, openings::RATING_BAND, openings::MONTH],
    )?;
    let year =
        |values: &[Option<i64>], row: usize| small(values, row).and_then(|y| u16::try_from(y).ok());
    let key = |values: &[Option<i64>], row: usize| {
        values.get(row).copied().flatten().map(i64::cast_unsigned)
    };
    (0..columns.frame.height())
        .map(|row| {
            let (results, elo) = rated(row);
            let stats = EdgeStats {
                results,
                elo,
                first_year: year(&first, row),
                last_year: year(&last, row),
                ply: small(&ply, row).and_then(|p| u16::try_from(p).ok())?,
            };
            Edge::from_table_row(
                key(&keys, row)?,
                dims(row)?,
                text_at(&epd, row)?,
                text_at(&uci, row)?,
                key(&next, row)?,
                stats,
            )
        })
        .map(|edge| {
            edge.ok_or_else(|| columns.bad_row("an opening tree row pgnlake does not write"))
        })
        .collect()
}

/// Merges the shards' sorted trees into one: equal edges added up, each
/// position's earliest ply over all its moves, then the rows of fewer than
/// `min_games` games left out. Returns the rows left out.
fn merge_tree(files: &[PathBuf], min_games: u32, writers: &mut StatsWriters) -> Result<u64, Error> {
    let mut streams = Vec::with_capacity(files.len());
    for file in files {
        streams.push(TreeStream::open(file)?);
    }
    let mut heap = BinaryHeap::new();
    for (i, stream) in streams.iter_mut().enumerate() {
        if let Some((key, edge)) = stream.next_edge()? {
            heap.push(std::cmp::Reverse(Head {
                key,
                shard: i,
                edge,
            }));
        }
    }
    let mut error = None;
    let mut dropped = 0u64;
    let mut position: Vec<(EdgeKey, Edge)> = Vec::new();
    let mut ready: std::collections::VecDeque<(EdgeKey, Edge)> = Default::default();
    let merged = std::iter::from_fn(|| {
        loop {
            if let Some(row) = ready.pop_front() {
                return Some(Ok(row));
            }
            let next = match heap.pop() {
                Some(std::cmp::Reverse(head)) => {
                    match streams.get_mut(head.shard).map(TreeStream::next_edge) {
                        Some(Ok(Some((key, edge)))) => heap.push(std::cmp::Reverse(Head {
                            key,
                            shard: head.shard,
                            edge,
                        })),
                        Some(Err(e)) => error = Some(e),
                        _ => {}
                    }
                    Some((head.key, head.edge))
                }
                None => None,
            };
            if error.is_some() {
                return Some(Err(std::io::Error::other("reading a shard's tree")));
            }
            let boundary = match (&next, position.last()) {
                (Some((key, _)), Some((last, _))) => key.position != last.position,
                (None, _) => true,
                (Some(_), None) => false,
            };
            if boundary {
                let earliest = position.iter().map(|(_, e)| e.ply()).min().unwrap_or(0);
                for (key, mut edge) in position.drain(..) {
                    edge.set_ply(earliest);
                    if edge.games() >= u64::from(min_games) {
                        ready.push_back((key, edge));
                    } else {
                        dropped += 1;
                    }
                }
            }
            match next {
                Some((key, edge)) => match position.last_mut() {
                    Some((last, kept)) if *last == key => kept.combine(edge),
                    _ => position.push((key, edge)),
                },
                None if ready.is_empty() => return None,
                None => {}
            }
        }
    });
    let out = writers.openings.path().to_path_buf();
    let written = write_openings(in_runs(merged), &mut writers.openings);
    if let Some(e) = error {
        return Err(e);
    }
    written.map_err(Error::write(&out))?;
    Ok(dropped)
}

/// The smallest edge of one shard's stream, ordered for the heap.
struct Head {
    key: EdgeKey,
    shard: usize,
    edge: Edge,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        (self.key, self.shard) == (other.key, other.shard)
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.key, self.shard).cmp(&(other.key, other.shard))
    }
}

/// The shards' summaries as one run's: counts added up, each input once
/// (its parts' games added up), the tables' rows as merged.
fn merged_summary(
    first: &Summary,
    shards: &[ShardDir],
    tables: &BTreeMap<&'static str, u64>,
    min_games: u32,
    dropped: u64,
) -> Summary {
    let summaries: Vec<&Summary> = shards.iter().map(|s| &s.summary).collect();
    let mut summary = first.clone();
    let sum = |field: fn(&Summary) -> u64| -> u64 { summaries.iter().map(|s| field(s)).sum() };
    let add_maps = |field: fn(&Summary) -> &BTreeMap<String, u64>| {
        let mut total: BTreeMap<String, u64> = BTreeMap::new();
        for (name, n) in summaries.iter().flat_map(|s| field(s)) {
            *total.entry(name.clone()).or_default() += n;
        }
        total
    };
    let (read, accepted, rejected) = (
        sum(|s| s.games_read),
        sum(|s| s.accepted),
        sum(|s| s.rejected),
    );
    let inputs = merged_inputs(shards);
    let framed: u64 = inputs.iter().map(|i| i.games).sum();
    summary.balanced =
        summaries.iter().all(|s| s.balanced) && read == accepted + rejected && framed == read;
    summary.truncated_inputs = inputs.iter().filter(|i| i.truncated.is_some()).count() as u64;
    summary.options.inputs = inputs.iter().map(|i| i.path.clone()).collect();
    summary.inputs = inputs;
    summary.shard = None;
    summary.merged_shards = Some(shards.len());
    summary.games_read = read;
    summary.accepted = accepted;
    summary.rejected = rejected;
    summary.rejected_by_reason = add_maps(|s| &s.rejected_by_reason);
    summary.end_states = add_maps(|s| &s.end_states);
    summary.result_checks = add_maps(|s| &s.result_checks);
    summary.repaired = sum(|s| s.repaired);
    summary.repairs = add_maps(|s| &s.repairs);
    // Counted with --moves only (null otherwise, in every shard alike).
    summary.annotations = summaries
        .iter()
        .filter_map(|s| s.annotations)
        .reduce(|mut total, a| {
            total += &a;
            total
        });
    summary.unwinnability = summaries.iter().fold(Default::default(), |mut total, s| {
        total += &s.unwinnability;
        total
    });
    let mut skipped: Vec<String> = Vec::new();
    for name in summaries.iter().flat_map(|s| &s.skipped_entries) {
        if !skipped.contains(name) {
            skipped.push(name.clone());
        }
    }
    summary.skipped_entries = skipped;
    summary.elapsed_seconds = summaries.iter().map(|s| s.elapsed_seconds).sum();
    summary.games_per_second = if summary.elapsed_seconds > 0.0 {
        read as f64 / summary.elapsed_seconds
    } else {
        0.0
    };
    summary.tables = tables.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect();
    summary.peak_rss_bytes = summaries.iter().filter_map(|s| s.peak_rss_bytes).max();
    let tree = &mut summary.opening_tree;
    let written = tables.get("openings.parquet").copied().unwrap_or(0);
    tree.min_games = min_games;
    tree.rows = written + dropped;
    tree.rows_dropped = dropped;
    tree.spill_runs = summaries.iter().map(|s| s.opening_tree.spill_runs).sum();
    tree.spill_rows = sum(|s| s.opening_tree.spill_rows);
    tree.spill_bytes = sum(|s| s.opening_tree.spill_bytes);
    tree.peak_memory_bytes = summaries
        .iter()
        .map(|s| s.opening_tree.peak_memory_bytes)
        .max()
        .unwrap_or(0);
    summary
}

/// Each input once, in shard order: the games of its parts added up, its
/// size and truncation from the part that read it to the end.
fn merged_inputs(shards: &[ShardDir]) -> Vec<InputSummary> {
    let mut inputs: Vec<InputSummary> = Vec::new();
    for input in shards.iter().flat_map(|s| &s.summary.inputs) {
        let whole_or_last = input.part.as_ref().is_none_or(|p| p.end.is_none());
        match inputs.last_mut().filter(|last| last.path == input.path) {
            Some(last) => {
                last.games += input.games;
                if whole_or_last {
                    last.uncompressed_bytes = input.uncompressed_bytes;
                    last.truncated = input.truncated.clone();
                }
            }
            None => inputs.push(InputSummary {
                part: None,
                ..input.clone()
            }),
        }
    }
    inputs
}
