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

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;
use std::collections::VecDeque;
use std::sync::Arc;

use super::spill::SpillDir;
use super::tree::{Edge, EdgeKey};
use crate::jobs::{self, Deferred, JobPanicked};
use crate::profile::Stage;

/// A row of the tree: a position, a move, and what the games add up to.
pub(crate) type Row = (EdgeKey, Edge);

/// Partitions are the top bits of the position key (sign bit flipped).
const PARTITION_BITS: u32 = 12;
const PARTITIONS: usize = 1 << PARTITION_BITS;
/// Within a partition, the next bits split it into passes when it is too
/// large to be added up in one go.
const SUB_BITS: u32 = 8;

/// Partitions in the table's order: by the key as stored (signed), so the
/// sign bit is flipped first (negative keys come first).
fn partition_of(position: u64) -> usize {
    ((position ^ (1 << 63)) >> (64 - PARTITION_BITS)) as usize
}

fn sub_partition_of(position: u64) -> u64 {
    (position >> (64 - PARTITION_BITS - SUB_BITS)) & ((1 << SUB_BITS) - 1)
}

/// Bytes one row holds in memory (its index slot is counted apart).
const ROW_BYTES: usize = size_of::<Row>();
/// What a boxed row's sums take on the heap, malloc's header included.
const BOX_BYTES: usize = size_of::<super::tree::EdgeStats>() + 16;
/// The index is at most three quarters full.
const MAX_LOAD: (usize, usize) = (3, 4);
const FIRST_INDEX_SLOTS: usize = 1 << 10;
/// Rows a worker holds however small its budget.
const MIN_ROWS: usize = 16;

/// Run files of the tree, what each holds where, and the memory the
/// workers' rows take; shared by the workers.
#[derive(Debug)]
pub struct TreeRuns {
    dir: SpillDir,
    runs: Mutex<Vec<RunIndex>>,
    memory: AtomicUsize,
    peak_memory: AtomicUsize,
    rows_spilled: AtomicU64,
}

/// One run file: its records, partition after partition, then one more
/// offset than there are partitions, little-endian u64s at `offsets_at`
/// (partition `p` is `offsets[p]..offsets[p + 1]`). The offsets stay on
/// disk: in memory they would take 32 KiB a run, and a large input at a
/// small limit writes thousands of runs.
#[derive(Debug)]
struct RunIndex {
    path: PathBuf,
    offsets_at: u64,
}

/// Offsets of the partitions of one run read a window at a time, as the
/// end of the run walks the partitions in order.
struct RunOffsets {
    offsets_at: u64,
    /// The partition of `window[0]`.
    first: usize,
    window: Vec<u64>,
}

/// Offsets read at once from a run file.
const OFFSETS_WINDOW: usize = 256;

impl RunOffsets {
    fn new(offsets_at: u64) -> RunOffsets {
        RunOffsets {
            offsets_at,
            first: 0,
            window: Vec::new(),
        }
    }

    /// Where partition `p`'s records start in `file` (`p == PARTITIONS`:
    /// where the records end).
    fn offset(&mut self, file: &File, p: usize) -> io::Result<u64> {
        if let Some(&offset) = p.checked_sub(self.first).and_then(|i| self.window.get(i)) {
            return Ok(offset);
        }
        let first = p - p % OFFSETS_WINDOW;
        let count = (PARTITIONS + 1).saturating_sub(first).min(OFFSETS_WINDOW);
        let mut bytes = vec![0u8; count * 8];
        file.read_exact_at(&mut bytes, self.offsets_at + first as u64 * 8)?;
        self.window = bytes
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
            .collect();
        self.first = first;
        p.checked_sub(first)
            .and_then(|i| self.window.get(i))
            .copied()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no such tree partition"))
    }
}

impl TreeRuns {
    pub fn new(dir: PathBuf) -> TreeRuns {
        TreeRuns {
            dir: SpillDir::new(dir),
            runs: Mutex::new(Vec::new()),
            memory: AtomicUsize::new(0),
            peak_memory: AtomicUsize::new(0),
            rows_spilled: AtomicU64::new(0),
        }
    }

    pub(crate) fn dir(&self) -> &SpillDir {
        &self.dir
    }

    /// The most bytes the workers' rows and indexes held at once.
    pub(crate) fn peak_memory(&self) -> usize {
        self.peak_memory.load(Ordering::Relaxed)
    }

    /// Rows written to run files (a row spilled by two runs counts twice).
    pub(crate) fn rows_spilled(&self) -> u64 {
        self.rows_spilled.load(Ordering::Relaxed)
    }

    fn hold(&self, bytes: usize) {
        let now = self.memory.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak_memory.fetch_max(now, Ordering::Relaxed);
    }

    fn release(&self, bytes: usize) {
        self.memory.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Writes `rows` as one run file, partition after partition.
    fn write_run(&self, rows: &[Row]) -> io::Result<()> {
        let grouped = Grouped::new(rows);
        let path = self.dir.new_run_path()?;
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        let mut offsets = Vec::with_capacity(PARTITIONS + 1);
        let mut record = Vec::with_capacity(128);
        let mut written = 0u64;
        for p in 0..PARTITIONS {
            offsets.push(written);
            for &i in grouped.rows_of(p) {
                if let Some((key, edge)) = rows.get(i as usize) {
                    record.clear();
                    edge.encode(key, &mut record);
                    out.write_all(&record)?;
                    written += record.len() as u64;
                }
            }
        }
        offsets.push(written);
        for offset in &offsets {
            out.write_all(&offset.to_le_bytes())?;
        }
        out.flush()?;
        self.dir.count_bytes(written as usize + offsets.len() * 8);
        self.rows_spilled
            .fetch_add(rows.len() as u64, Ordering::Relaxed);
        if let Ok(mut runs) = self.runs.lock() {
            runs.push(RunIndex {
                path,
                offsets_at: written,
            });
        }
        Ok(())
    }

    fn take_runs(&self) -> Vec<RunIndex> {
        self.runs
            .lock()
            .map(|mut runs| std::mem::take(&mut *runs))
            .unwrap_or_default()
    }
}

/// Row numbers grouped by partition (a counting sort).
struct Grouped {
    order: Vec<u32>,
    /// Where each partition's group starts in `order` (`PARTITIONS + 1`).
    starts: Vec<usize>,
}

impl Grouped {
    fn new(rows: &[Row]) -> Grouped {
        let mut starts = vec![0usize; PARTITIONS + 1];
        for (key, _) in rows {
            if let Some(n) = starts.get_mut(partition_of(key.position) + 1) {
                *n += 1;
            }
        }
        for p in 0..PARTITIONS {
            let before = starts.get(p).copied().unwrap_or(0);
            if let Some(n) = starts.get_mut(p + 1) {
                *n += before;
            }
        }
        let mut next = starts.clone();
        let mut order = vec![0u32; rows.len()];
        for (i, (key, _)) in rows.iter().enumerate() {
            if let Some(at) = next.get_mut(partition_of(key.position)) {
                if let Some(slot) = order.get_mut(*at) {
                    *slot = i as u32;
                }
                *at += 1;
            }
        }
        Grouped { order, starts }
    }

    /// The numbers of the rows in partition `p`.
    fn rows_of(&self, p: usize) -> &[u32] {
        let from = self.starts.get(p).copied().unwrap_or(0);
        let to = self.starts.get(p + 1).copied().unwrap_or(from);
        self.order.get(from..to).unwrap_or_default()
    }
}

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
                if let Some((_, edge)) = self.rows.get_mut(row) {
                    let was_boxed = edge.is_boxed();
                    update(edge);
                    if !was_boxed && edge.is_boxed() {
                        self.boxed_one_more();
                    }
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
        if let Some(entry) = self.index.get_mut(slot) {
            *entry = index_entry(&key, self.rows.len());
        }
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

    fn find(&self, key: &EdgeKey) -> Slot {
        let mask = self.index.len() - 1;
        let hash = hash_of(key);
        let tag = hash & TAG;
        let mut slot = (hash as usize) & mask;
        loop {
            match self.index.get(slot).copied() {
                Some(0) | None => return Slot::Empty(slot),
                Some(entry) if entry & TAG == tag => {
                    let row = row_of(entry);
                    if self.rows.get(row).is_some_and(|(k, _)| k == key) {
                        return Slot::Found(row);
                    }
                }
                Some(_) => {}
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
            while self.index.get(slot).is_some_and(|&n| n != 0) {
                slot = (slot + 1) & mask;
            }
            if let Some(entry) = self.index.get_mut(slot) {
                *entry = index_entry(key, row + 1);
            }
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
        if self.error.is_none()
            && let Err(error) = self
                .runs
                .write_run(self.rows.get(keep..).unwrap_or_default())
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
        let grouped = Grouped::new(&rows);
        Ok(InMemory { rows, grouped })
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
        if rows.get(i).is_some_and(|(_, edge)| edge.games() > 1) {
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

/// How far ahead [`InMemory::partition`] touches rows.
const PREFETCH_ROWS_AHEAD: usize = 8;

/// A worker's rows at the end of the run, grouped by partition.
pub struct InMemory {
    rows: Vec<Row>,
    grouped: Grouped,
}

impl InMemory {
    /// The rows of partition `p`. Each is a cache miss (a partition's rows
    /// are spread over the whole table), so the row a few places ahead is
    /// touched first: the misses overlap instead of following one another.
    fn partition(&self, p: usize) -> impl Iterator<Item = &Row> {
        let numbers = self.grouped.rows_of(p);
        numbers.iter().enumerate().filter_map(move |(at, &i)| {
            if let Some(&ahead) = numbers.get(at + PREFETCH_ROWS_AHEAD) {
                std::hint::black_box(self.rows.get(ahead as usize).map(|(k, _)| k.position));
            }
            self.rows.get(i as usize)
        })
    }

    fn partition_len(&self, p: usize) -> usize {
        self.grouped.rows_of(p).len()
    }
}

/// What the sorted tree drops and how much of it there was.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TreeCounts {
    /// Rows of the tree, before `min_games`.
    pub rows: u64,
    /// Rows left out because fewer than `min_games` games played them.
    pub rows_dropped: u64,
}

impl std::ops::AddAssign for TreeCounts {
    fn add_assign(&mut self, other: TreeCounts) {
        self.rows += other.rows;
        self.rows_dropped += other.rows_dropped;
    }
}

/// The whole tree in key order, each row once with everything added up,
/// a partition's rows at a time (all the moves of a position are in one):
/// partitions gathered a few at a time (as many as fit in `batch_bytes`)
/// and added up in parallel on the current rayon pool. Handing whole
/// partitions on keeps the end of the run's one thread from moving the
/// rows one by one.
pub(crate) struct SortedTree {
    shared: Arc<Shared>,
    /// Each run's partition offsets, in the order of `shared.runs`.
    offsets: Vec<RunOffsets>,
    batch_bytes: u64,
    pending: VecDeque<Arc<Deferred<io::Result<Added>>>>,
    next_partition: usize,
    /// Passes over the current partition when it is too large for one.
    passes: Option<(u64, u64)>,
    ready: Ready,
    counts: TreeCounts,
    failed: bool,
}

/// Bytes of records estimated for a row held in memory.
const RECORD_ESTIMATE: u64 = 64;

impl SortedTree {
    /// `batch_bytes`: about how much of the spilled records to add up at
    /// once.
    pub fn new(
        memory: Vec<InMemory>,
        runs: &TreeRuns,
        min_games: u32,
        batch_bytes: u64,
    ) -> io::Result<SortedTree> {
        let runs = runs.take_runs();
        let offsets = runs
            .iter()
            .map(|run| RunOffsets::new(run.offsets_at))
            .collect();
        let runs = runs
            .iter()
            .map(|run| File::open(&run.path))
            .collect::<io::Result<Vec<_>>>()?;
        Ok(SortedTree {
            shared: Arc::new(Shared {
                memory,
                runs,
                min_games,
            }),
            offsets,
            batch_bytes: batch_bytes.max(1 << 20),
            pending: VecDeque::new(),
            next_partition: 0,
            passes: None,
            ready: Vec::new().into_iter(),
            counts: TreeCounts::default(),
            failed: false,
        })
    }

    /// Rows seen and dropped so far (all of them once the stream ended).
    pub(crate) fn counts(&self) -> TreeCounts {
        self.counts
    }

    /// Every row left, in order.
    #[cfg(test)]
    pub(crate) fn all_rows(&mut self) -> io::Result<Vec<Row>> {
        let mut all = Vec::new();
        for rows in self {
            all.extend(rows?);
        }
        Ok(all)
    }

    fn partition_bytes(&mut self, p: usize) -> io::Result<u64> {
        let mut spilled = 0;
        for (offsets, file) in self.offsets.iter_mut().zip(&self.shared.runs) {
            spilled += offsets.offset(file, p + 1)? - offsets.offset(file, p)?;
        }
        let held: usize = self.shared.memory.iter().map(|m| m.partition_len(p)).sum();
        Ok(spilled + held as u64 * RECORD_ESTIMATE)
    }

    /// The next partitions (or pass over one partition) to add up.
    fn next_unit(&mut self) -> io::Result<Option<Unit>> {
        if let Some((pass, passes)) = self.passes {
            let p = self.next_partition;
            let unit = self.unit(p, p + 1, sub_range(pass, passes))?;
            if pass + 1 == passes {
                self.passes = None;
                self.next_partition += 1;
            } else {
                self.passes = Some((pass + 1, passes));
            }
            return Ok(Some(unit));
        }
        let first = self.next_partition;
        if first >= PARTITIONS {
            return Ok(None);
        }
        let bytes = self.partition_bytes(first)?;
        if bytes > self.batch_bytes {
            let passes = bytes.div_ceil(self.batch_bytes).min(1 << SUB_BITS);
            self.passes = Some((0, passes));
            return self.next_unit();
        }
        let mut end = first + 1;
        let mut total = bytes;
        while end < PARTITIONS {
            let more = self.partition_bytes(end)?;
            if total + more > self.batch_bytes {
                break;
            }
            total += more;
            end += 1;
        }
        self.next_partition = end;
        Ok(Some(self.unit(first, end, 0..1 << SUB_BITS)?))
    }

    /// Partitions `first..end` with every run's offsets for them.
    fn unit(&mut self, first: usize, end: usize, subs: std::ops::Range<u64>) -> io::Result<Unit> {
        let offsets = self
            .offsets
            .iter_mut()
            .zip(&self.shared.runs)
            .map(|(offsets, file)| {
                (first..=end)
                    .map(|p| offsets.offset(file, p))
                    .collect::<io::Result<Vec<u64>>>()
            })
            .collect::<io::Result<Vec<_>>>()?;
        Ok(Unit {
            first,
            end,
            subs,
            offsets,
        })
    }
}

/// Adds up one unit: reads its records (one read per run file: its
/// partitions are next to each other in every run) and the rows in memory,
/// partition by partition in parallel.
fn add_up(shared: &Shared, unit: &Unit) -> io::Result<Added> {
    let spans = shared
        .runs
        .iter()
        .zip(&unit.offsets)
        .map(|(file, offsets)| {
            let from = offsets.first().copied().unwrap_or(0);
            let to = offsets.last().copied().unwrap_or(0);
            let mut bytes = vec![0u8; usize::try_from(to.saturating_sub(from)).unwrap_or(0)];
            file.read_exact_at(&mut bytes, from)?;
            Ok(bytes)
        })
        .collect::<io::Result<Vec<_>>>()?;
    let parts = (unit.first..unit.end)
        .into_par_iter()
        .map(|p| {
            let mut rows: Vec<Row> = Vec::new();
            let i = p - unit.first;
            for (offsets, bytes) in unit.offsets.iter().zip(&spans) {
                let base = offsets.first().copied().unwrap_or(0);
                let at = |j: usize| {
                    offsets
                        .get(j)
                        .and_then(|o| usize::try_from(o.checked_sub(base)?).ok())
                };
                let slice = at(i)
                    .zip(at(i + 1))
                    .and_then(|(a, b)| bytes.get(a..b))
                    .unwrap_or_default();
                decode_records(slice, &unit.subs, &mut rows)?;
            }
            // Copied in row order (the table is far larger than the
            // caches), to be sorted and gathered in the cache.
            for part in &shared.memory {
                rows.extend(
                    part.partition(p)
                        .filter(|(key, _)| unit.subs.contains(&sub_partition_of(key.position)))
                        .cloned(),
                );
            }
            Ok(add_up_sorted(rows, shared.min_games))
        })
        .collect::<io::Result<Vec<_>>>()?;
    let mut counts = TreeCounts::default();
    let mut rows = Vec::with_capacity(parts.len());
    for (part, part_counts) in parts {
        rows.push(part);
        counts += part_counts;
    }
    Ok((rows, counts))
}

/// A unit's rows, partition by partition, and their counts.
type Added = (Vec<Vec<Row>>, TreeCounts);

/// What the jobs that add up units read.
struct Shared {
    memory: Vec<InMemory>,
    runs: Vec<File>,
    min_games: u32,
}

/// Units being added up on the pool while the rows of the one before are
/// written.
const UNITS_AHEAD: usize = 2;

/// The rows of the partitions added up last, partition by partition.
type Ready = std::vec::IntoIter<Vec<Row>>;

/// Partitions `first..end`, only the rows whose next bits are in `subs`.
struct Unit {
    first: usize,
    end: usize,
    subs: std::ops::Range<u64>,
    /// Each run's offsets of partitions `first..=end`.
    offsets: Vec<Vec<u64>>,
}

fn sub_range(pass: u64, passes: u64) -> std::ops::Range<u64> {
    let all = 1u64 << SUB_BITS;
    (pass * all / passes)..((pass + 1) * all / passes)
}

fn decode_records(
    mut bytes: &[u8],
    subs: &std::ops::Range<u64>,
    rows: &mut Vec<Row>,
) -> io::Result<()> {
    while !bytes.is_empty() {
        let (row, rest) = Edge::decode(bytes)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "corrupt tree run file"))?;
        bytes = rest;
        if subs.contains(&sub_partition_of(row.0.position)) {
            rows.push(row);
        }
    }
    Ok(())
}

/// Sorts a partition's rows, adds up equal keys, gives each position the
/// earliest ply of its moves and leaves out rows with fewer than
/// `min_games` games.
fn add_up_sorted(rows: Vec<Row>, min_games: u32) -> (Vec<Row>, TreeCounts) {
    // Sorted as (key, row number) pairs, then gathered: far fewer bytes
    // moved than sorting the rows themselves. Each row is taken out of its
    // slot (an empty slot costs no byte: the sums' box marks it).
    let mut order: Vec<(u128, u32)> = rows
        .iter()
        .enumerate()
        .map(|(i, (key, _))| (key.sort_bits(), i as u32))
        .collect();
    order.sort_unstable();
    let mut slots: Vec<Option<Row>> = rows.into_iter().map(Some).collect();
    let mut summed: Vec<Row> = Vec::with_capacity(order.len());
    for (_, i) in order {
        let Some((key, edge)) = slots.get_mut(i as usize).and_then(Option::take) else {
            continue;
        };
        match summed.last_mut() {
            Some((kept_key, kept)) if *kept_key == key => kept.combine(edge),
            _ => summed.push((key, edge)),
        }
    }
    for group in summed.chunk_by_mut(|(a, _), (b, _)| a.position == b.position) {
        let earliest = group.iter().map(|(_, e)| e.ply()).min().unwrap_or(0);
        for (_, edge) in group {
            edge.set_ply(earliest);
        }
    }
    let rows = summed.len() as u64;
    summed.retain(|(_, edge)| edge.games() >= u64::from(min_games));
    let counts = TreeCounts {
        rows,
        rows_dropped: rows - summed.len() as u64,
    };
    (summed, counts)
}

impl Iterator for SortedTree {
    type Item = io::Result<Vec<Row>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(rows) = self.ready.find(|rows| !rows.is_empty()) {
                return Some(Ok(rows));
            }
            if self.failed {
                return None;
            }
            while self.pending.len() < UNITS_AHEAD {
                let unit = match self.next_unit() {
                    Ok(Some(unit)) => unit,
                    Ok(None) => break,
                    Err(error) => {
                        self.failed = true;
                        return Some(Err(error));
                    }
                };
                let shared = Arc::clone(&self.shared);
                let job = Deferred::new(Stage::Statistics, move || add_up(&shared, &unit));
                let runner = Arc::clone(&job);
                rayon::spawn(move || jobs::run_on_worker(runner.as_ref()));
                self.pending.push_back(job);
            }
            let job = self.pending.pop_front()?;
            let added = job
                .wait_helping()
                .map_err(|JobPanicked| io::Error::other("adding up the tree panicked"))
                .and_then(|added| added);
            match added {
                Ok((rows, counts)) => {
                    self.counts += counts;
                    self.ready = rows.into_iter();
                }
                Err(error) => {
                    self.failed = true;
                    return Some(Err(error));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::dimensions::Dimensions;

    fn add(part: &mut TreePart<'_>, key: EdgeKey, edge: Edge) {
        part.upsert(key, || edge.clone(), |e| e.combine(edge.clone()));
    }

    /// Random keys (most of them in one partition when `skewed`), each
    /// added `repeats` times across the workers.
    fn rows(count: u64, repeats: u64, skewed: bool) -> Vec<Row> {
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
    fn tree(
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

    #[test]
    fn spilled_partitioned_and_in_memory_trees_are_the_same() {
        let input = rows(30_000, 3, false);
        let (in_memory, counts, no_runs) = tree(&input, 1, 1 << 30, 1 << 30, 1);
        assert_eq!(no_runs, 0);
        assert_eq!(
            counts,
            TreeCounts {
                rows: 30_000,
                rows_dropped: 0
            }
        );
        assert!(in_memory.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(in_memory.iter().all(|(_, e)| e.games() == 3));
        // 512 KiB a worker holds about 5,000 rows: many runs.
        let (spilled, _, runs) = tree(&input, 3, 1 << 19, 1 << 20, 1);
        assert!(runs > 10, "{runs} runs");
        assert_eq!(spilled, in_memory);
    }

    #[test]
    fn a_partition_too_large_for_one_batch_is_added_up_in_passes() {
        let input = rows(40_000, 2, true);
        let (whole, ..) = tree(&input, 2, 1 << 30, 1 << 30, 1);
        let (passes, _, runs) = tree(&input, 2, 1 << 20, 1, 1);
        assert!(runs > 0);
        assert_eq!(passes, whole);
    }

    #[test]
    fn positions_get_their_earliest_ply_and_rare_rows_are_left_out() {
        let key = |position, mv| EdgeKey {
            position,
            mv,
            dims: Dimensions::default(),
        };
        let input = vec![
            (key(5, 1), Edge::made_up(5, 1, 9, 2000)),
            (key(5, 2), Edge::made_up(5, 1, 4, 2000)),
            (key(5, 1), Edge::made_up(5, 1, 7, 2001)),
            (key(6, 1), Edge::made_up(6, 1, 3, 2000)),
        ];
        let (rows, counts, _) = tree(&input, 2, 1 << 20, 1 << 20, 2);
        assert_eq!(
            counts,
            TreeCounts {
                rows: 3,
                rows_dropped: 2
            }
        );
        assert_eq!(rows.len(), 1);
        let (k, edge) = &rows[0];
        assert_eq!(*k, key(5, 1));
        assert_eq!(edge.stats().results.games, 2);
        // The position's earliest ply counts the move left out.
        assert_eq!(edge.ply(), 4);
        assert_eq!(
            (edge.stats().first_year, edge.stats().last_year),
            (Some(2000), Some(2001))
        );
    }

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
        let mut part = TreePart::new(1 << 20, &runs);
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
    fn a_row_takes_80_bytes_and_a_box_96_more() {
        // docs/guide.md's memory model counts on it (64-bit counts in the
        // boxes: an archive's first moves pass u32::MAX games).
        assert_eq!((ROW_BYTES, BOX_BYTES), (80, 96));
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
