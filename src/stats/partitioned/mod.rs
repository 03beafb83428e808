//! Statistics stage, the opening tree past memory: each worker holds its
//! rows in an append-only table with an open-addressing index, within its
//! budget; when full, the rows of one game are written to a run file in
//! compact records (rows of several games stay while they take at most half
//! the table), grouped by the top bits of the position key (radix
//! partitioning: one counting pass, no sort, no merge rounds). At the end
//! each partition is gathered from memory and from every run, added up and
//! sorted on its own, a few at a time on the pool; partitions are ranges of
//! keys, so they follow each other in key order and the tree comes out
//! sorted.
//!
//! One file a concept: `partition` (the partitions and rows grouped by
//! them), `runs` (the run files), `table` (a worker's open-addressing
//! table, spilling to runs) and `gather` (partitions added up into key
//! order); each uses only those named before it.

mod gather;
mod partition;
mod runs;
mod table;

// The end of a run (the `tables` build) gathers; the fuzz build does not.
#[cfg_attr(not(feature = "tables"), allow(unused_imports))]
pub(crate) use gather::{SortedTree, TreeCounts};
pub use partition::InMemory;
pub use runs::TreeRuns;
pub(crate) use table::TreePart;

/// What the tests of the table and the gather share: rows made up and the
/// tree of them.
#[cfg(test)]
mod tests {
    use super::partition::{PARTITION_BITS, Row};
    use super::*;
    use crate::stats::dimensions::Dimensions;
    use crate::stats::tree_row::{Edge, EdgeKey};

    pub(super) fn add(part: &mut TreePart<'_>, key: EdgeKey, edge: Edge) {
        part.upsert(key, || edge.clone(), |e| e.combine(edge.clone()));
    }

    /// Random keys (most of them in one partition when `skewed`), each
    /// added `repeats` times across the workers.
    pub(super) fn rows(count: u64, repeats: u64, skewed: bool) -> Vec<Row> {
        let mut out = Vec::new();
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for i in 0..count {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let position = if skewed && i % 4 != 0 {
                state >> PARTITION_BITS
            } else {
                state
            };
            let key = EdgeKey {
                position,
                mv: (i % 3) as u16,
                dims: Dimensions::made_up(i % 5),
            };
            for r in 0..repeats {
                out.push((
                    key,
                    Edge::made_up(position, 1, (i % 20 + r) as u16, 2000 + r as u16),
                ));
            }
        }
        out
    }

    /// The tree of `input` split over `workers` parts with `budget` bytes
    /// each; the rows, counts and run files written.
    pub(super) fn tree(
        input: &[Row],
        workers: usize,
        budget: usize,
        batch_bytes: u64,
        min_games: u32,
    ) -> (Vec<Row>, TreeCounts, usize) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let runs = TreeRuns::new(dir.path().join("spill"));
        let mut parts: Vec<TreePart<'_>> =
            (0..workers).map(|_| TreePart::new(budget, &runs)).collect();
        for (i, (key, edge)) in input.iter().enumerate() {
            if let Some(part) = parts.get_mut(i % workers) {
                add(part, *key, edge.clone());
            }
        }
        let memory = parts
            .into_iter()
            .map(|p| p.finish().unwrap_or_else(|e| panic!("{e}")))
            .collect();
        let mut sorted = SortedTree::new(memory, &runs, min_games, batch_bytes)
            .unwrap_or_else(|e| panic!("{e}"));
        let out = sorted.all_rows().unwrap_or_else(|e| panic!("{e}"));
        (out, sorted.counts(), runs.dir().runs_written())
    }
}
