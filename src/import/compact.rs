//! The import, a lake's compaction: the statistics tables of the imports
//! not yet compacted summed, with the compacted partition, by the merge's
//! machinery (the sums of `pgnlake merge`), then swapped in by the lake
//! (see [`crate::lake::Compaction`]).

use std::path::Path;

use crate::error::Error;
use crate::import::merge::merge_stats;
use crate::import::tables::StatsWriters;
use crate::lake::Compaction;
use crate::sink::compression::Compression;

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

/// The sums of a compaction under way, swapped into the lake.
fn sum_and_install(compaction: Compaction, compression: Compression) -> Result<Compacted, Error> {
    let mut writers = StatsWriters::create(compaction.dir(), compression)?;
    // On a pool: the tree's row groups are spelled and encoded in parallel.
    let (pool, _) = crate::pipeline::worker_pool(0)?;
    // Every row kept: each import's own `--opening-min-games` was applied
    // when it was imported.
    let summed = crate::interrupt::check()
        .map_err(Error::from)
        .and_then(|()| pool.install(|| merge_stats(&|t| compaction.inputs(t), 0, &mut writers)))
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
