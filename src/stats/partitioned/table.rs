//! Statistics stage, the opening tree past memory: a worker's table. Its
//! rows are appended to a table and found through an open-addressing
//! index, within the worker's budget; when the next row would pass it, the
//! rows go to a run file (rows of several games stay while they take at
//! most half the table) and the table starts again.

use std::io;

use super::partition::{InMemory, Row};
use super::runs::TreeRuns;
use crate::stats::tree_row::{Edge, EdgeKey, EdgeStats};

/// Bytes one row holds in memory (its index slot is counted apart).
pub(super) const ROW_BYTES: usize = size_of::<Row>();
/// What a boxed row's sums take on the heap, malloc's header included.
pub(super) const BOX_BYTES: usize = size_of::<EdgeStats>() + 16;
/// The index is at most three quarters full.
const MAX_LOAD: (usize, usize) = (3, 4);
const FIRST_INDEX_SLOTS: usize = 1 << 10;
/// Rows a worker holds however small its budget.
const MIN_ROWS: usize = 16;

/// Where a key is, or the empty slot where it goes.
enum Slot {
    Found(usize),
    Empty(usize),
}

/// A worker's rows: appended to a table, found through an index of row
/// numbers (open addressing, linear probing), spilled when the next row
/// would pass the budget.
pub(crate) struct TreePart<'s> {
    rows: Vec<Row>,
    /// Row number + 1 in the low half, 32 bits of the key's hash in the
    /// high half (so that a probe reads a row only when they match: each
    /// row read is a cache miss); 0 is an empty slot. A power of two long.
    index: Vec<u64>,
    budget: usize,
    runs: &'s TreeRuns,
    /// Rows whose sums are boxed (rows of more than one game, and the
    /// rare row of one game whose facts do not fit the small form).
    boxed: usize,
    /// Bytes of `rows`, their boxes and `index` counted in `runs.memory`.
    held: usize,
    error: Option<io::Error>,
}

impl<'s> TreePart<'s> {
    pub fn new(budget: usize, runs: &'s TreeRuns) -> Self {
        let mut part = TreePart {
            rows: Vec::new(),
            index: vec![0; FIRST_INDEX_SLOTS],
            budget,
            runs,
            boxed: 0,
            held: 0,
            error: None,
        };
        part.account();
        part
    }

    /// Adds to the row of `key` with `update`, or appends `new()`.
    pub(crate) fn upsert(
        &mut self,
        key: EdgeKey,
        new: impl FnOnce() -> Edge,
        update: impl FnOnce(&mut Edge),
    ) {
        let slot = match self.find(&key) {
            Slot::Found(row) => {
                let edge = &mut self.rows[row].1;
                let was_boxed = edge.is_boxed();
                update(edge);
                if !was_boxed && edge.is_boxed() {
                    self.boxed_one_more();
                }
                return;
            }
            Slot::Empty(slot) => slot,
        };
        let slot = if self.make_room() {
            slot
        } else {
            match self.find(&key) {
                Slot::Empty(slot) => slot,
                Slot::Found(_) => return,
            }
        };
        let edge = new();
        let boxed = edge.is_boxed();
        self.rows.push((key, edge));
        self.index[slot] = index_entry(&key, self.rows.len());
        if boxed {
            self.boxed_one_more();
        }
    }

    /// A row's sums went into a box: counted, and the rows spilled when
    /// that passes the budget.
    fn boxed_one_more(&mut self) {
        self.boxed += 1;
        self.account();
        if self.held > self.budget {
            self.spill();
        }
    }

    /// Reads the index slots of `keys`, then the rows their tags point to,
    /// without using what was read: the loads do not wait for each other,
    /// so the cache misses of a game's rows (the table is far larger than
    /// the caches) overlap instead of following one another, and the
    /// upserts that follow find them in the cache.
    pub(crate) fn prefetch<'k>(&self, keys: impl Iterator<Item = &'k EdgeKey> + Clone) {
        let mask = self.index.len() - 1;
        for key in keys.clone() {
            std::hint::black_box(self.index.get((hash_of(key) as usize) & mask).copied());
        }
        for key in keys {
            let hash = hash_of(key);
            if let Some(&entry) = self.index.get((hash as usize) & mask)
                && entry != 0
                && entry & TAG == hash & TAG
            {
                std::hint::black_box(self.rows.get(row_of(entry)).map(|(k, _)| k.position));
            }
        }
    }

    /// Slots are masked to the index's length (a power of two) and an
    /// entry's row is one the table holds: indexing cannot miss.
    fn find(&self, key: &EdgeKey) -> Slot {
        let mask = self.index.len() - 1;
        let hash = hash_of(key);
        let tag = hash & TAG;
        let mut slot = (hash as usize) & mask;
        loop {
            match self.index[slot] {
                0 => return Slot::Empty(slot),
                entry if entry & TAG == tag => {
                    let row = row_of(entry);
                    if self.rows[row].0 == *key {
                        return Slot::Found(row);
                    }
                }
                _ => {}
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Grows the table or the index for one more row if the budget allows;
    /// else spills every row and empties both. True when the slot found
    /// before is still the right one (nothing moved).
    fn make_room(&mut self) -> bool {
        let rows = self.rows.len() + 1;
        let index_full = rows * MAX_LOAD.1 > self.index.len() * MAX_LOAD.0;
        let table_full = self.rows.len() == self.rows.capacity();
        if !index_full && !table_full {
            return true;
        }
        let index_slots = if index_full {
            self.index.len() * 2
        } else {
            self.index.len()
        };
        let other_bytes = index_slots * SLOT_BYTES + self.boxed_bytes();
        let capacity = if table_full {
            let afford = self.budget.saturating_sub(other_bytes) / ROW_BYTES;
            (self.rows.capacity() + growth(self.rows.capacity())).min(afford)
        } else {
            self.rows.capacity()
        };
        let fits = capacity > self.rows.len() && capacity * ROW_BYTES + other_bytes <= self.budget;
        if fits || self.rows.is_empty() {
            // However small the budget, a run holds a few rows.
            let capacity = capacity.max(MIN_ROWS);
            if capacity > self.rows.capacity() {
                self.rows.reserve_exact(capacity - self.rows.len());
            }
            if index_full {
                self.rebuild_index(index_slots);
            }
            self.account();
            return !index_full;
        }
        self.spill();
        false
    }

    fn rebuild_index(&mut self, slots: usize) {
        if slots == self.index.len() {
            self.index.fill(0);
        } else {
            // Zeroed by writing, not by `vec![0; n]`: calloc's fresh pages
            // are first mapped to the shared zero page when a probe reads
            // them, then copied on the first write with a TLB flush on
            // every core (5 % of an import's CPU on a tree of online games).
            self.index = Vec::new();
            #[allow(clippy::slow_vector_initialization)] // written on purpose
            let mut index = Vec::with_capacity(slots);
            index.resize(slots, 0);
            self.index = index;
        }
        let mask = slots - 1;
        for (row, (key, _)) in self.rows.iter().enumerate() {
            let mut slot = (hash_of(key) as usize) & mask;
            while self.index[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            self.index[slot] = index_entry(key, row + 1);
        }
    }

    /// Heap bytes of the boxed sums (with malloc's own word).
    fn boxed_bytes(&self) -> usize {
        self.boxed * BOX_BYTES
    }

    /// Keeps `runs`' count of held bytes up to date.
    fn account(&mut self) {
        let now =
            self.rows.capacity() * ROW_BYTES + self.index.len() * SLOT_BYTES + self.boxed_bytes();
        if now > self.held {
            self.runs.hold(now - self.held);
        } else {
            self.runs.release(self.held - now);
        }
        self.held = now;
    }

    /// Writes every row to a run file and empties the table (keeping its
    /// memory for the next rows).
    ///
    /// Rows of more than one game stay when they take at most half the
    /// table and their boxes fit the budget: they are the positions many
    /// games share (the first plies), which every run would otherwise
    /// write again.
    fn spill(&mut self) {
        if self.rows.is_empty() {
            return;
        }
        let shared = shared_first(&mut self.rows);
        let table = self.rows.capacity() * ROW_BYTES + self.index.len() * SLOT_BYTES;
        let keep = if shared * 2 <= self.rows.len() && table + shared * BOX_BYTES <= self.budget {
            shared
        } else {
            0
        };
        // `keep` is at most the rows there are.
        if self.error.is_none()
            && let Err(error) = self.runs.write_run(&self.rows[keep..])
        {
            self.error = Some(error);
        }
        self.rows.truncate(keep);
        self.boxed = self.rows.iter().filter(|(_, edge)| edge.is_boxed()).count();
        self.rebuild_index(self.index.len());
        self.account();
    }

    /// The rows left in memory, grouped by partition; the first spill error.
    pub fn finish(mut self) -> io::Result<InMemory> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        let rows = std::mem::take(&mut self.rows);
        self.index = Vec::new();
        Ok(InMemory::new(rows))
    }
}

impl Drop for TreePart<'_> {
    fn drop(&mut self) {
        self.runs.release(self.held);
    }
}

/// Moves the rows of more than one game to the front; how many there are.
fn shared_first(rows: &mut [Row]) -> usize {
    let mut shared = 0;
    for i in 0..rows.len() {
        if rows[i].1.games() > 1 {
            rows.swap(shared, i);
            shared += 1;
        }
    }
    shared
}

/// Rows to add when the table is full: a quarter more, at least 4,096, so
/// that the table's memory follows its rows closely (a large Vec grows in
/// place, without copying, on Linux).
fn growth(capacity: usize) -> usize {
    (capacity / 4).max(4096)
}

/// The high half of an index entry: bits of the key's hash.
const TAG: u64 = 0xFFFF_FFFF << 32;
const SLOT_BYTES: usize = size_of::<u64>();

/// The key mixed: the low bits pick the slot, the high bits are the tag.
/// (Position keys are Zobrist hashes, already random in every bit.)
fn hash_of(key: &EdgeKey) -> u64 {
    let rest = u64::from(key.mv) ^ key.dims.mix().rotate_left(16);
    (key.position ^ rest.wrapping_mul(0x9E37_79B9_7F4A_7C15)).rotate_left(32)
}

/// The row (0-based) an occupied index entry points to.
fn row_of(entry: u64) -> usize {
    ((entry & !TAG) as usize).wrapping_sub(1)
}

/// Row number `row` (1-based) under the tag of `key`.
fn index_entry(key: &EdgeKey, row: usize) -> u64 {
    (hash_of(key) & TAG) | row as u64
}

#[cfg(test)]
mod tests {
    use super::super::gather::SortedTree;
    use super::super::tests::{add, rows, tree};
    use super::*;
    use crate::stats::dimensions::Dimensions;
    use std::sync::atomic::Ordering;

    #[test]
    fn rows_many_games_share_stay_in_memory_when_the_rest_spills() {
        let unique = rows(50_000, 1, false);
        let hot = (
            EdgeKey {
                position: 42,
                mv: 1,
                dims: Dimensions::default(),
            },
            Edge::made_up(42, 1, 0, 2000),
        );
        let mut input = Vec::new();
        for row in unique {
            input.push(row);
            input.push(hot.clone());
        }
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let runs = TreeRuns::new(dir.path().join("spill"));
        let mut part = TreePart::new(1 << 19, &runs);
        for (key, edge) in &input {
            add(&mut part, *key, edge.clone());
        }
        assert!(runs.dir().runs_written() > 3);
        // Each unique row is written once; the shared one never.
        assert_eq!(runs.rows_spilled() + part.rows.len() as u64, 50_001);
        let memory = vec![part.finish().unwrap_or_else(|e| panic!("{e}"))];
        let (all, ..) = tree(&input, 1, 1 << 30, 1 << 30, 1);
        let spilled = SortedTree::new(memory, &runs, 1, 1 << 20)
            .and_then(|mut tree| tree.all_rows())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spilled, all);
        let shared = spilled.iter().find(|(k, _)| *k == hot.0);
        assert_eq!(shared.map(|(_, e)| e.games()), Some(50_000));
    }

    #[test]
    fn a_row_takes_48_bytes_and_a_box_144_more() {
        // docs/guide.md's memory model counts on it (64-bit counts in the
        // boxes: an archive's first moves pass u32::MAX games; no text in
        // a row: it is spelled when written).
        assert_eq!((ROW_BYTES, BOX_BYTES), (48, 144));
    }

    #[test]
    fn boxed_sums_are_counted_in_the_budget() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let runs = TreeRuns::new(dir.path().join("spill"));
        // Each key twice in a row: every row's sums go into a box.
        let input = rows(60_000, 2, false);
        let budget = 4 << 20;
        let memory = {
            let mut part = TreePart::new(budget, &runs);
            for (key, edge) in &input {
                add(&mut part, *key, edge.clone());
            }
            assert_eq!(part.boxed, part.rows.len());
            part.finish().unwrap_or_else(|e| panic!("{e}"))
        };
        let peak = runs.peak_memory();
        assert!(peak <= budget + BOX_BYTES, "{peak}");
        assert!(runs.rows_spilled() > 0);
        let spilled = SortedTree::new(vec![memory], &runs, 1, 1 << 20)
            .and_then(|mut tree| tree.all_rows())
            .unwrap_or_else(|e| panic!("{e}"));
        let (all, ..) = tree(&input, 1, 1 << 30, 1 << 30, 1);
        assert_eq!(spilled, all);
        assert!(all.iter().all(|(_, e)| e.games() == 2));
    }

    #[test]
    fn held_memory_is_counted_and_released() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let runs = TreeRuns::new(dir.path().join("spill"));
        {
            let mut part = TreePart::new(4 << 20, &runs);
            for (key, edge) in rows(100_000, 1, false) {
                add(&mut part, key, edge);
            }
            let peak = runs.peak_memory();
            assert!(peak <= 4 << 20, "{peak}");
            // Most of the budget held rows before the first spill.
            assert!(peak >= 3 << 20, "{peak}");
            assert!(runs.rows_spilled() > 0);
        }
        assert_eq!(runs.memory.load(Ordering::Relaxed), 0);
    }
}
