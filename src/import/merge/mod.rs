//! The import, merge: the tables of the shards of one import
//! (`import --shard K/N`, K = 1..N) put together into the tables a single
//! import of the same inputs writes: games and rejects in input order with
//! `game_id` rebased, the aggregates added up (the opening tree merged from
//! the shards' sorted files), `--opening-min-games` applied after the sums,
//! and the summaries reconciled. This file holds the entry points; the
//! rooms: `shards` (the shards' folders read and checked), `rows` (tables
//! read a row group at a time; games, rejects and moves copied rebased),
//! `aggregates` (the small tables added up), `tree` (the opening tree's
//! k-way merge) and `summary` (the merged `summary.json`).

mod aggregates;
mod rows;
mod shards;
mod summary;
mod tree;

use std::path::PathBuf;

use crate::error::Error;
use crate::import::tables::{StatsWriters, Writers};
use crate::sink::compression::Compression;
use crate::sink::schema::{self, Table, openings, results};
use crate::sink::summary::{SUMMARY_FILE, Summary};

use self::aggregates::{merge_results, merge_small_tables};
use self::rows::copy_rebased;
pub(crate) use self::rows::load_first_moves;
use self::shards::{ShardDir, moves_of_first, read_shards};
use self::summary::merged_summary;
pub(crate) use self::tree::TreeFile;
use self::tree::merge_tree;
use crate::stats::first_moves::FirstMoves;

pub use self::shards::read_folder_summary;

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

/// Merges the shards in `options.dirs` into `options.out`; returns the
/// merged summary (also written to `summary.json`).
pub fn run_merge(options: &MergeOptions) -> Result<Summary, Error> {
    let shards = read_shards(&options.dirs)?;
    let Some(first) = shards.first().map(|s| &s.summary) else {
        return Err(Error::Usage("merge: no shard folders given".into()));
    };
    let folder = super::run::open_output(&options.out)?;
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
    let tables = writers.close()?;
    let mut summary = merged_summary(
        first,
        &shards,
        &tables.rows(),
        options.opening_min_games,
        dropped,
    );
    summary.table_digests = tables.digests()?;
    // Written as before merge read summaries as types: keys in name order.
    let path = options.out.join(SUMMARY_FILE);
    let json = serde_json::to_value(&summary).map_err(Error::write(&path))?;
    super::run::commit_folder(&options.out, tables, &json)?;
    folder.committed();
    Ok(summary)
}

fn merge_tables(shards: &[ShardDir], min_games: u32, writers: &mut Writers) -> Result<u64, Error> {
    let plies = shards.first().map_or(0, |s| s.summary.opening_tree.plies);
    // Hidden (`.`), as every temporary file of a run: what a kill -9
    // leaves is never taken for an output.
    let openings = writers.stats.openings.path();
    let first_moves = FirstMoves::new(
        openings.with_file_name(format!(
            ".{}.first-moves-{}",
            openings
                .file_name()
                .map_or_else(Default::default, |n| n.to_string_lossy()),
            std::process::id()
        )),
        plies,
    );
    let mut trees = Vec::with_capacity(shards.len());
    let mut first_game_id = 0u64;
    for shard in shards {
        let shift = first_game_id;
        let signed =
            i64::try_from(shift).map_err(|_| Error::Usage("merge: more than 2^63 games".into()))?;
        for (table, writer) in [
            (&schema::games::TABLE, &mut writers.games),
            (&schema::rejects::TABLE, &mut writers.rejects),
        ] {
            copy_rebased(&shard.dir.join(table.file_name()), signed, writer)?;
        }
        if let Some(writer) = writers.moves.as_mut() {
            copy_rebased(
                &shard.dir.join(schema::moves::TABLE.file_name()),
                signed,
                writer,
            )?;
        }
        let games = shard.dir.join(schema::games::TABLE.file_name());
        load_first_moves(&games, shift, &first_moves)?;
        trees.push(TreeFile {
            path: shard.dir.join(openings::TABLE.file_name()),
            shift,
        });
        first_game_id += shard.summary.games_read;
    }
    let files = |table: &Table| -> Vec<PathBuf> {
        shards
            .iter()
            .map(|s| s.dir.join(table.file_name()))
            .collect()
    };
    merge_stats(&files, &trees, &first_moves, min_games, &mut writers.stats)
}

/// The statistics tables of several imports (shards, or a lake's
/// partitions) summed into `writers`; `files` gives a table's files, one
/// per import, `trees` the opening trees' with their game ids' shifts, and
/// `first_moves` the games' first moves by shifted id (to spell rows that
/// become rows of two games). The rows of the tree left out for
/// `min_games`.
pub(crate) fn merge_stats(
    files: &dyn Fn(&Table) -> Vec<PathBuf>,
    trees: &[TreeFile],
    first_moves: &FirstMoves,
    min_games: u32,
    writers: &mut StatsWriters,
) -> Result<u64, Error> {
    let dropped = merge_tree(trees, min_games, first_moves, writers)?;
    merge_results(&files(&results::TABLE), &mut writers.results)?;
    merge_small_tables(files, writers)?;
    Ok(dropped)
}
