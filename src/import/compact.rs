//! The import, a lake's compaction: the statistics tables of the imports
//! not yet compacted summed, with the compacted partition, by the merge's
//! machinery (the sums of `pgnlake merge`), then swapped in by the lake
//! (see [`crate::lake::Compaction`]).

use std::path::Path;

use crate::error::Error;
use crate::import::merge::{TreeFile, load_first_moves, merge_stats};
use crate::import::tables::StatsWriters;
use crate::lake::COMPACTED;
use crate::lake::Compaction;
use crate::sink::compression::Compression;
use crate::sink::schema::{games, openings};
use crate::stats::first_moves::FirstMoves;

/// What a compaction did.
#[derive(Debug)]
pub struct Compacted {
    /// The imports added to the compacted partition (none: nothing to do).
    pub imports: Vec<String>,
    /// Rows of each statistics table's compacted partition.
    pub rows: std::collections::BTreeMap<&'static str, u64>,
}

/// Compacts the lake `lake` (see `pgnlake lake --compact`), the compacted
/// tables' pages compressed by `compression`.
pub fn run_compact(lake: &Path, compression: Compression) -> Result<Compacted, Error> {
    let compaction = Compaction::begin(lake)?;
    if compaction.imports().is_empty() {
        compaction.abandon()?;
        return Ok(Compacted {
            imports: Vec::new(),
            rows: Default::default(),
        });
    }
    // A signal before the swap removes the work folder (the compaction
    // registered it); the swap itself is not cut (see `crate::interrupt`).
    sum_and_install(compaction, compression)
}

/// The opening trees to sum, their game ids shifted into the compacted
/// partition's (see [`Compaction::game_offsets`]); and the first moves of
/// every covered import's games, by those ids, to spell the rows that
/// become rows of two games.
fn trees_and_first_moves(
    compaction: &Compaction,
    first_moves: &FirstMoves,
) -> Result<Vec<TreeFile>, Error> {
    let offsets = compaction.game_offsets();
    let offset = |name: &str| offsets.iter().find(|(n, _)| n == name).map(|(_, o)| *o);
    let mut trees = Vec::new();
    for (name, path) in compaction.inputs_by_import(&openings::TABLE) {
        let shift = match name.as_str() {
            COMPACTED => 0,
            name => offset(name).ok_or_else(|| {
                Error::Usage(format!(
                    "{}: no import `{name}` in the lake",
                    path.display()
                ))
            })?,
        };
        trees.push(TreeFile { path, shift });
    }
    for (name, shift) in offsets {
        for file in crate::lake::table_files(compaction.lake(), &games::TABLE, name) {
            load_first_moves(&file, *shift, first_moves)?;
        }
    }
    Ok(trees)
}

/// The sums of a compaction under way, swapped into the lake.
fn sum_and_install(compaction: Compaction, compression: Compression) -> Result<Compacted, Error> {
    let mut writers = StatsWriters::create(compaction.dir(), compression)?;
    // On a pool: the tree's row groups are spelled and encoded in parallel.
    let (pool, _) = crate::pipeline::worker_pool(0)?;
    // Every row kept: each import's own `--opening-min-games` was applied
    // when it was imported.
    let first_moves = FirstMoves::new(
        compaction.dir().join("first-moves"),
        compaction.opening_plies(),
    );
    let summed = crate::interrupt::check()
        .map_err(Error::from)
        .and_then(|()| trees_and_first_moves(&compaction, &first_moves))
        .and_then(|trees| {
            pool.install(|| {
                merge_stats(
                    &|t| compaction.inputs(t),
                    &trees,
                    &first_moves,
                    0,
                    &mut writers,
                )
            })
        })
        .map(drop)
        .and_then(|()| crate::interrupt::check().map_err(Error::from));
    if let Err(e) = summed {
        // A broken input is named as the lake's file, not as its link.
        let e = match e {
            Error::Usage(message) => Error::Usage(compaction.in_lake_terms(&message)),
            e => e,
        };
        writers.abandon();
        // The sums' error is the one to report.
        let _ = compaction.abandon();
        return Err(e);
    }
    let rows = writers.finish()?;
    let imports = compaction.imports().to_vec();
    crate::interrupt::commit(|| compaction.install().map_err(Error::from))?;
    Ok(Compacted { imports, rows })
}
