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
use serde_json::Value;

use crate::error::Error;
use crate::import::tables::{Writers, write_frame};
use crate::jobs::{self, Deferred, JobPanicked};
use crate::profile::Stage;
use crate::replay::variant::VariantName;
use crate::sink::openings::{opening_lines_frame, write_openings};
use crate::sink::outcomes::{endgames_frame, material_frame, write_results};
use crate::sink::parquet::TableWriter;
use crate::stats::lines::{LineStats, OpeningLines};
use crate::stats::outcomes::{
    Counts, EndgameKey, EndgameValue, MaterialTable, ResultKey, ResultRow, ResultValue,
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
}

/// The counts of games, results and ratings that `openings` and
/// `opening_lines` share.
const GAME_COUNTS: [&str; 8] = [
    "games",
    "white_wins",
    "draws",
    "black_wins",
    "white_elo_sum",
    "white_elo_count",
    "black_elo_sum",
    "black_elo_count",
];

/// One shard's output folder and its summary.
struct ShardDir {
    dir: PathBuf,
    summary: Value,
    index: u64,
    games_read: u64,
}

/// Merges the shards in `options.dirs` into `options.out`; returns the
/// merged summary (also written to `summary.json`).
pub fn run_merge(options: &MergeOptions) -> Result<Value, Error> {
    let shards = read_shards(&options.dirs)?;
    let _lock = super::run::open_output(&options.out)?;
    let mut writers = Writers::create(&options.out, &[], moves_of_first(&shards))?;
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
    let summary = merged_summary(&shards, &tables, options.opening_min_games, dropped);
    super::run::write_summary(&options.out, &summary)?;
    Ok(summary)
}

fn merge_tables(shards: &[ShardDir], min_games: u32, writers: &mut Writers) -> Result<u64, Error> {
    let mut first_game_id = 0i64;
    for shard in shards {
        let shift = first_game_id;
        for (table, writer) in [
            ("games", &mut writers.games),
            ("rejects", &mut writers.rejects),
        ] {
            copy_rebased(&shard.dir.join(format!("{table}.parquet")), shift, writer)?;
        }
        if let Some(writer) = writers.moves.as_mut() {
            copy_rebased(&shard.dir.join("moves.parquet"), shift, writer)?;
        }
        first_game_id += i64::try_from(shard.games_read).unwrap_or(i64::MAX);
    }
    let dirs: Vec<&Path> = shards.iter().map(|s| s.dir.as_path()).collect();
    let dropped = merge_tree(&dirs, min_games, writers)?;
    merge_results(&dirs, &mut writers.results)?;
    merge_small_tables(&dirs, writers)?;
    Ok(dropped)
}

/// Reads and checks the shards' summaries: one import split N ways, every
/// shard there once, with the same options; sorted by shard.
fn read_shards(dirs: &[PathBuf]) -> Result<Vec<ShardDir>, Error> {
    let mut shards = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let path = dir.join("summary.json");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Error::Usage(format!(
                "{}: cannot read ({e}): not an import's folder",
                path.display()
            ))
        })?;
        let summary: Value = serde_json::from_str(&text)
            .map_err(|e| Error::Usage(format!("{}: not a summary ({e})", path.display())))?;
        let number = |v: &Value| v.as_u64();
        let (Some(index), Some(_)) = (
            number(&summary["shard"]["index"]),
            number(&summary["shard"]["count"]),
        ) else {
            return Err(Error::Usage(format!(
                "{}: not a shard (no `shard` in summary.json; import with --shard K/N)",
                path.display()
            )));
        };
        let games_read = number(&summary["games_read"]).unwrap_or(0);
        shards.push(ShardDir {
            dir: dir.clone(),
            summary,
            index,
            games_read,
        });
    }
    shards.sort_by_key(|s| s.index);
    let count = shards
        .first()
        .and_then(|s| s.summary["shard"]["count"].as_u64())
        .unwrap_or(0);
    let same = |s: &ShardDir, field: &str| {
        shards.first().map(|f| &f.summary["options"][field]) == Some(&s.summary["options"][field])
    };
    for shard in &shards {
        let place = shard.dir.display();
        if shard.summary["shard"]["count"].as_u64() != Some(count) {
            return Err(Error::Usage(format!(
                "{place}: a shard of {} shards, the others of {count}",
                shard.summary["shard"]["count"]
            )));
        }
        let tree = |s: &ShardDir| s.summary["opening_tree"]["plies"].clone();
        let differs = !same(shard, "piece_values") || shards.first().map(tree) != Some(tree(shard));
        if differs {
            return Err(Error::Usage(format!(
                "{place}: imported with other --piece-values or --opening-plies than the first shard"
            )));
        }
        if !same(shard, "moves") {
            let with = |moves: bool| if moves { "with" } else { "without" };
            return Err(Error::Usage(format!(
                "{place}: imported {} --moves, the first shard {}",
                with(imported_with_moves(shard)),
                with(moves_of_first(&shards)),
            )));
        }
    }
    let indexes: Vec<u64> = shards.iter().map(|s| s.index).collect();
    if let Some(missing) = (1..=count).find(|k| !indexes.contains(k)) {
        return Err(Error::Usage(format!(
            "shards of {count}: shard {missing} is missing ({} folders given; merge needs all of them)",
            shards.len()
        )));
    }
    if indexes.len() as u64 != count {
        return Err(Error::Usage(format!(
            "shards of {count}: {} folders given, some shard twice",
            shards.len()
        )));
    }
    Ok(shards)
}

fn imported_with_moves(shard: &ShardDir) -> bool {
    shard.summary["options"]["moves"] == Value::Bool(true)
}

fn moves_of_first(shards: &[ShardDir]) -> bool {
    shards.first().is_some_and(imported_with_moves)
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
            .column("game_id")
            .and_then(|c| c.i64().cloned())
            .map_err(|e| read_error(path, e))?;
        let rebased = (ids + shift).into_series().into_column();
        frame
            .replace("game_id", rebased)
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
    fn int(&self, name: &str) -> Result<Vec<Option<i64>>, Error> {
        let column = self
            .frame
            .column(name)
            .and_then(|c| c.cast(&DataType::Int64))
            .map_err(|e| read_error(self.path, e))?;
        let values = column.i64().map_err(|e| read_error(self.path, e))?;
        Ok((0..values.len()).map(|i| values.get(i)).collect())
    }

    fn text(&self, name: &str) -> Result<Vec<Option<String>>, Error> {
        let values = self
            .frame
            .column(name)
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
fn merge_results(dirs: &[&Path], writer: &mut TableWriter) -> Result<(), Error> {
    let mut merged: BTreeMap<ResultKey, ResultValue> = BTreeMap::new();
    for dir in dirs {
        for_each_chunk(&dir.join("results.parquet"), |columns, rows| {
            let (year, bucket) = (columns.int("year")?, columns.int("rating_diff_bucket")?);
            let (time_class, declared) = (
                columns.text("time_class")?,
                columns.text("declared_result")?,
            );
            let (end_state, termination) =
                (columns.text("end_state")?, columns.text("termination")?);
            let (draw_reason, variant) =
                (columns.text("draw_reason")?, columns.text("variant_name")?);
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

/// `games`, `white_wins`, `draws`, `black_wins` of a chunk, by row.
fn count_columns(columns: &Columns<'_>) -> Result<impl Fn(usize) -> Counts, Error> {
    let [games, white, draws, black] =
        ["games", "white_wins", "draws", "black_wins"].map(|name| columns.int(name));
    let (games, white, draws, black) = (games?, white?, draws?, black?);
    Ok(move |row| Counts {
        games: count(&games, row),
        white_wins: count(&white, row),
        draws: count(&draws, row),
        black_wins: count(&black, row),
    })
}

/// `material`, `endgames` and `opening_lines` added up (small tables).
fn merge_small_tables(dirs: &[&Path], writers: &mut Writers) -> Result<(), Error> {
    let mut material = MaterialTable::default();
    let mut endgames: HashMap<EndgameKey, EndgameValue> = HashMap::new();
    let mut lines = OpeningLines::default();
    let index = crate::replay::openings::index();
    for dir in dirs {
        for_each_chunk(&dir.join("material.parquet"), |columns, rows| {
            let (ply, diff) = (
                columns.int("checkpoint_ply")?,
                columns.int("material_diff")?,
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
        for_each_chunk(&dir.join("endgames.parquet"), |columns, rows| {
            let signature = columns.text("endgame_signature")?;
            let variant = columns.text("variant_name")?;
            let names = [
                "games",
                "stronger_side_wins",
                "draws",
                "weaker_side_wins",
                "plies_to_end_sum",
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
        for_each_chunk(&dir.join("opening_lines.parquet"), |columns, rows| {
            let (eco, name) = (columns.text("eco")?, columns.text("opening_name")?);
            let [g, ww, d, bw, wes, wec, bes, bec] = GAME_COUNTS.map(|n| columns.int(n));
            let (g, ww, d, bw, wes, wec, bes, bec) = (g?, ww?, d?, bw?, wes?, wec?, bes?, bec?);
            let [ps, eds, edc] =
                ["plies_sum", "elo_diff_sum", "elo_diff_count"].map(|n| columns.int(n));
            let (ps, eds, edc) = (ps?, eds?, edc?);
            for row in 0..rows {
                let id = text_at(&eco, row)
                    .zip(text_at(&name, row))
                    .and_then(|(eco, name)| index.id_of(eco, name))
                    .ok_or_else(|| {
                        columns.bad_row("an opening name not in this version's table")
                    })?;
                let stats = LineStats {
                    games: count(&g, row),
                    white_wins: count(&ww, row),
                    draws: count(&d, row),
                    black_wins: count(&bw, row),
                    white_elo_sum: count(&wes, row),
                    white_elo_count: count(&wec, row),
                    black_elo_sum: count(&bes, row),
                    black_elo_count: count(&bec, row),
                    plies_sum: count(&ps, row),
                    elo_diff_sum: eds.get(row).copied().flatten().unwrap_or(0),
                    elo_diff_count: count(&edc, row),
                };
                lines.add_line(id, &stats);
            }
            Ok(())
        })?;
    }
    write_frame(&mut writers.material, material_frame(&material))?;
    write_frame(
        &mut writers.endgames,
        endgames_frame(endgames.into_iter().collect()),
    )?;
    write_frame(&mut writers.opening_lines, opening_lines_frame(&lines))
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
        columns.int("position_key")?,
        columns.int("next_position_key")?,
    );
    let (epd, uci) = (columns.text("epd")?, columns.text("move_uci")?);
    let (ply, first, last) = (
        columns.int("ply")?,
        columns.int("first_year")?,
        columns.int("last_year")?,
    );
    let [g, ww, d, bw, wes, wec, bes, bec] = GAME_COUNTS.map(|n| columns.int(n));
    let (g, ww, d, bw, wes, wec, bes, bec) = (g?, ww?, d?, bw?, wes?, wec?, bes?, bec?);
    let narrow = |values: &[Option<i64>], row: usize| u32::try_from(count(values, row)).ok();
    let year =
        |values: &[Option<i64>], row: usize| small(values, row).and_then(|y| u16::try_from(y).ok());
    let key = |values: &[Option<i64>], row: usize| {
        values.get(row).copied().flatten().map(i64::cast_unsigned)
    };
    (0..columns.frame.height())
        .map(|row| {
            let stats = EdgeStats {
                games: narrow(&g, row)?,
                white_wins: narrow(&ww, row)?,
                draws: narrow(&d, row)?,
                black_wins: narrow(&bw, row)?,
                white_elo_sum: count(&wes, row),
                white_elo_count: narrow(&wec, row)?,
                black_elo_sum: count(&bes, row),
                black_elo_count: narrow(&bec, row)?,
                first_year: year(&first, row),
                last_year: year(&last, row),
                ply: small(&ply, row).and_then(|p| u16::try_from(p).ok())?,
            };
            Edge::from_table_row(
                key(&keys, row)?,
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
fn merge_tree(dirs: &[&Path], min_games: u32, writers: &mut Writers) -> Result<u64, Error> {
    let mut streams = Vec::with_capacity(dirs.len());
    for dir in dirs {
        streams.push(TreeStream::open(&dir.join("openings.parquet"))?);
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
                let earliest = position.iter().map(|(_, e)| e.stats.ply).min().unwrap_or(0);
                for (key, mut edge) in position.drain(..) {
                    edge.stats.ply = earliest;
                    if edge.stats.games >= min_games {
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
    let written = write_openings(merged, &mut writers.openings);
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
    shards: &[ShardDir],
    tables: &BTreeMap<&'static str, u64>,
    min_games: u32,
    dropped: u64,
) -> Value {
    let mut summary = shards
        .first()
        .map(|s| s.summary.clone())
        .unwrap_or_else(|| serde_json::json!({}));
    let sum = |field: &str| -> u64 {
        shards
            .iter()
            .filter_map(|s| s.summary[field].as_u64())
            .sum()
    };
    // A field no shard has (`annotations` without `--moves`) stays null.
    let add_maps = |field: &str| -> Value {
        let maps: Vec<_> = shards
            .iter()
            .filter_map(|shard| shard.summary[field].as_object())
            .collect();
        if maps.is_empty() {
            return Value::Null;
        }
        let mut total: BTreeMap<String, u64> = BTreeMap::new();
        for (name, n) in maps.into_iter().flatten() {
            *total.entry(name.clone()).or_default() += n.as_u64().unwrap_or(0);
        }
        serde_json::json!(total)
    };
    let (read, accepted, rejected) = (sum("games_read"), sum("accepted"), sum("rejected"));
    let inputs = merged_inputs(shards);
    let framed: u64 = inputs.iter().filter_map(|i| i["games"].as_u64()).sum();
    let balanced = shards
        .iter()
        .all(|s| s.summary["balanced"] == Value::Bool(true))
        && read == accepted + rejected
        && framed == read;
    let truncated = inputs.iter().filter(|i| !i["truncated"].is_null()).count();
    let names: Vec<Value> = inputs.iter().map(|i| i["path"].clone()).collect();
    let elapsed: f64 = shards
        .iter()
        .filter_map(|s| s.summary["elapsed_seconds"].as_f64())
        .sum();
    let tree_sum = |field: &str| -> u64 {
        shards
            .iter()
            .filter_map(|s| s.summary["opening_tree"][field].as_u64())
            .sum()
    };
    if let Some(object) = summary.as_object_mut() {
        object.remove("shard");
        object.insert("merged_shards".into(), serde_json::json!(shards.len()));
        object.insert("inputs".into(), Value::Array(inputs));
        object.insert("games_read".into(), read.into());
        object.insert("accepted".into(), accepted.into());
        object.insert("rejected".into(), rejected.into());
        object.insert("balanced".into(), balanced.into());
        for field in [
            "rejected_by_reason",
            "end_states",
            "result_checks",
            "annotations",
            "unwinnability",
        ] {
            object.insert(field.into(), add_maps(field));
        }
        let skipped: Vec<Value> = shards
            .iter()
            .flat_map(|s| {
                s.summary["skipped_entries"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        object.insert("skipped_entries".into(), Value::Array(dedup(skipped)));
        object.insert("elapsed_seconds".into(), elapsed.into());
        let rate = if elapsed > 0.0 {
            read as f64 / elapsed
        } else {
            0.0
        };
        object.insert("games_per_second".into(), rate.into());
        object.insert("tables".into(), serde_json::json!(tables));
        object.insert("truncated_inputs".into(), truncated.into());
        let peak = shards
            .iter()
            .filter_map(|s| s.summary["peak_rss_bytes"].as_u64())
            .max();
        object.insert("peak_rss_bytes".into(), serde_json::json!(peak));
        if let Some(options) = object.get_mut("options").and_then(Value::as_object_mut) {
            options.insert("inputs".into(), Value::Array(names));
        }
        if let Some(tree) = object
            .get_mut("opening_tree")
            .and_then(Value::as_object_mut)
        {
            let written = tables.get("openings.parquet").copied().unwrap_or(0);
            tree.insert("min_games".into(), min_games.into());
            tree.insert("rows".into(), (written + dropped).into());
            tree.insert("rows_dropped".into(), dropped.into());
            for field in ["spill_runs", "spill_rows", "spill_bytes"] {
                tree.insert(field.into(), tree_sum(field).into());
            }
            let peak = shards
                .iter()
                .filter_map(|s| s.summary["opening_tree"]["peak_memory_bytes"].as_u64())
                .max();
            tree.insert("peak_memory_bytes".into(), serde_json::json!(peak));
        }
    }
    summary
}

fn dedup(values: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(values.len());
    for value in values {
        if !out.contains(&value) {
            out.push(value);
        }
    }
    out
}

/// Each input once, in shard order: the games of its parts added up, its
/// size and truncation from the part that read it to the end.
fn merged_inputs(shards: &[ShardDir]) -> Vec<Value> {
    let mut inputs: Vec<Value> = Vec::new();
    for shard in shards {
        for input in shard.summary["inputs"].as_array().into_iter().flatten() {
            let mut input = input.clone();
            let whole_or_last = input["part"].is_null() || input["part"]["end"].is_null();
            let same = inputs
                .last_mut()
                .filter(|last| last["path"] == input["path"]);
            match same {
                Some(last) => {
                    let games =
                        last["games"].as_u64().unwrap_or(0) + input["games"].as_u64().unwrap_or(0);
                    last["games"] = games.into();
                    if whole_or_last {
                        last["uncompressed_bytes"] = input["uncompressed_bytes"].clone();
                        last["truncated"] = input["truncated"].clone();
                    }
                }
                None => {
                    if let Some(object) = input.as_object_mut() {
                        object.remove("part");
                    }
                    inputs.push(input);
                }
            }
        }
    }
    inputs
}
