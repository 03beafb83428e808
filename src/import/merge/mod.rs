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
use self::shards::{ShardDir, moves_of_first, read_shards};
use self::summary::merged_summary;
use self::tree::merge_tree;

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
