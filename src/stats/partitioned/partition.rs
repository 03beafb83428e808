//! Statistics stage, the opening tree past memory: partitions, the
//! vocabulary the worker's table, the run files and the gather share. A
//! partition is a range of position keys (their top bits, in the table's
//! order), so partitions follow each other in key order; rows are grouped
//! by partition with one counting pass, no sort.

use crate::stats::tree_row::{Edge, EdgeKey};

/// A row of the tree: a position, a move, and what the games add up to.
pub(crate) type Row = (EdgeKey, Edge);

/// Partitions are the top bits of the position key (sign bit flipped).
pub(super) const PARTITION_BITS: u32 = 12;
pub(super) const PARTITIONS: usize = 1 << PARTITION_BITS;
/// Within a partition, the next bits split it into passes when it is too
/// large to be added up in one go.
pub(super) const SUB_BITS: u32 = 8;

/// Partitions in the table's order: by the key as stored (signed), so the
/// sign bit is flipped first (negative keys come first).
pub(super) fn partition_of(position: u64) -> usize {
    ((position ^ (1 << 63)) >> (64 - PARTITION_BITS)) as usize
}

pub(super) fn sub_partition_of(position: u64) -> u64 {
    (position >> (64 - PARTITION_BITS - SUB_BITS)) & ((1 << SUB_BITS) - 1)
}

/// Row numbers grouped by partition (a counting sort).
pub(super) struct Grouped {
    order: Vec<u32>,
    /// Where each partition's group starts in `order` (`PARTITIONS + 1`).
    starts: Vec<usize>,
}

impl Grouped {
    pub(super) fn new(rows: &[Row]) -> Grouped {
        // partition_of is below PARTITIONS: every index below is in range.
        let mut starts = vec![0usize; PARTITIONS + 1];
        for (key, _) in rows {
            starts[partition_of(key.position) + 1] += 1;
        }
        for p in 0..PARTITIONS {
            starts[p + 1] += starts[p];
        }
        let mut next = starts.clone();
        let mut order = vec![0u32; rows.len()];
        for (i, (key, _)) in rows.iter().enumerate() {
            let at = &mut next[partition_of(key.position)];
            order[*at] = i as u32;
            *at += 1;
        }
        Grouped { order, starts }
    }

    /// The numbers of the rows in partition `p` (below [`PARTITIONS`]).
    pub(super) fn rows_of(&self, p: usize) -> &[u32] {
        &self.order[self.starts[p]..self.starts[p + 1]]
    }
}

/// How far ahead [`InMemory::partition`] touches rows.
const PREFETCH_ROWS_AHEAD: usize = 8;

/// A worker's rows at the end of the run, grouped by partition.
pub struct InMemory {
    rows: Vec<Row>,
    grouped: Grouped,
}

impl InMemory {
    pub(super) fn new(rows: Vec<Row>) -> InMemory {
        let grouped = Grouped::new(&rows);
        InMemory { rows, grouped }
    }

    /// The rows of partition `p`. Each is a cache miss (a partition's rows
    /// are spread over the whole table), so the row a few places ahead is
    /// touched first: the misses overlap instead of following one another.
    pub(super) fn partition(&self, p: usize) -> impl Iterator<Item = &Row> {
        let numbers = self.grouped.rows_of(p);
        // Row numbers come from `rows` itself: indexing cannot miss.
        numbers.iter().enumerate().map(move |(at, &i)| {
            if let Some(&ahead) = numbers.get(at + PREFETCH_ROWS_AHEAD) {
                std::hint::black_box(self.rows[ahead as usize].0.position);
            }
            &self.rows[i as usize]
        })
    }

    pub(super) fn partition_len(&self, p: usize) -> usize {
        self.grouped.rows_of(p).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::dimensions::Dimensions;

    fn row(position: u64) -> Row {
        let key = EdgeKey {
            position,
            mv: 0,
            dims: Dimensions::default(),
        };
        (key, Edge::made_up(position, 1, 0, 2000))
    }

    #[test]
    fn partitions_follow_the_stored_key_order() {
        // Negative stored keys (top bit set) come first.
        assert_eq!(partition_of(1 << 63), 0);
        assert_eq!(partition_of(u64::MAX), PARTITIONS / 2 - 1);
        assert_eq!(partition_of(0), PARTITIONS / 2);
        assert_eq!(partition_of((1 << 63) - 1), PARTITIONS - 1);
    }

    #[test]
    fn rows_are_grouped_by_partition_in_row_order() {
        let rows = vec![row(0), row(u64::MAX), row(5), row(1 << 63), row(7)];
        let memory = InMemory::new(rows);
        let zero = partition_of(0);
        assert_eq!(memory.grouped.rows_of(zero), &[0, 2, 4]);
        assert_eq!(memory.grouped.rows_of(0), &[3]);
        assert_eq!(memory.grouped.rows_of(PARTITIONS / 2 - 1), &[1]);
        let positions: Vec<u64> = memory.partition(zero).map(|(k, _)| k.position).collect();
        assert_eq!(positions, vec![0, 5, 7]);
        let total: usize = (0..PARTITIONS).map(|p| memory.partition_len(p)).sum();
        assert_eq!(total, 5);
    }
}
