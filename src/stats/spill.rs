//! Statistics stage, spilling: keyed aggregates that stay within a memory
//! budget. A worker's map is sorted and written to a run file when growing
//! it would pass the budget; at the end the runs and the maps left in memory
//! are merged in key order, adding up equal keys. The merge is commutative,
//! so the result does not depend on which worker saw which game.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::{self, File};
use std::hash::Hash;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::replay::keyhash::KeyHasher;

/// How one aggregate's entries are merged and written to run files.
pub trait Codec {
    type Key: Copy + Ord + Hash + Eq + Send;
    type Value: Send;
    fn encode(key: &Self::Key, value: &Self::Value, out: &mut Vec<u8>);
    fn decode(bytes: &[u8]) -> Option<(Self::Key, Self::Value)>;
    /// Adds `from` (same key) into `into`. Must be commutative and associative.
    fn combine(into: &mut Self::Value, from: Self::Value);

    /// Heap bytes a value owns besides its own size (strings), counted
    /// against the budget.
    fn heap_bytes(_value: &Self::Value) -> usize {
        0
    }
}

/// Little-endian fields read from the front of a run-file record, for the
/// codecs' `decode`.
pub(crate) struct Fields<'a>(pub &'a [u8]);

impl<'a> Fields<'a> {
    pub(crate) fn bytes<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_at_checked(N)?;
        self.0 = rest;
        head.try_into().ok()
    }

    pub(crate) fn i32(&mut self) -> Option<i32> {
        self.bytes().map(i32::from_le_bytes)
    }

    pub(crate) fn u16(&mut self) -> Option<u16> {
        self.bytes().map(u16::from_le_bytes)
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.bytes().map(u32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        self.bytes().map(u64::from_le_bytes)
    }

    /// What is left of the record.
    pub(crate) fn rest(self) -> &'a [u8] {
        self.0
    }
}

/// Runs merged at once at the end; more are merged in rounds first.
const MAX_OPEN_RUNS: usize = 64;

/// The folder of run files, shared by the workers, created on the first
/// spill and removed when dropped.
#[derive(Debug)]
pub struct SpillDir {
    dir: PathBuf,
    runs: Mutex<Vec<PathBuf>>,
    next: AtomicUsize,
    bytes: AtomicUsize,
}

impl SpillDir {
    pub fn new(dir: PathBuf) -> SpillDir {
        SpillDir {
            dir,
            runs: Mutex::new(Vec::new()),
            next: AtomicUsize::new(0),
            bytes: AtomicUsize::new(0),
        }
    }

    /// The folder of the run files.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// Run files written so far.
    pub(crate) fn runs_written(&self) -> usize {
        self.next.load(Ordering::Relaxed)
    }

    /// Bytes written to run files so far.
    pub(crate) fn bytes_written(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    pub(super) fn new_run_path(&self) -> io::Result<PathBuf> {
        fs::create_dir_all(&self.dir)?;
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        if n == 0 {
            crate::interrupt::register(&self.dir);
        }
        Ok(self.dir.join(format!("run-{n:06}.bin")))
    }

    /// Counts bytes written to a run file made by [`Self::new_run_path`].
    pub(super) fn count_bytes(&self, bytes: usize) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Writes sorted entries as a run file.
    fn write_run<C: Codec>(
        &self,
        entries: impl Iterator<Item = io::Result<(C::Key, C::Value)>>,
    ) -> io::Result<PathBuf> {
        let path = self.new_run_path()?;
        let mut out = BufWriter::with_capacity(1 << 16, File::create(&path)?);
        let mut record = Vec::with_capacity(128);
        let mut written = 0usize;
        for entry in entries {
            let (key, value) = entry?;
            record.clear();
            C::encode(&key, &value, &mut record);
            let len = u32::try_from(record.len())
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "record too long"))?;
            out.write_all(&len.to_le_bytes())?;
            out.write_all(&record)?;
            written += 4 + record.len();
        }
        out.flush()?;
        self.bytes.fetch_add(written, Ordering::Relaxed);
        Ok(path)
    }

    fn add_run(&self, path: PathBuf) {
        // A worker that panicked holding the lock left the list whole (a
        // push or a take): its runs are still to be merged.
        self.runs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(path);
    }

    fn take_runs(&self) -> Vec<PathBuf> {
        std::mem::take(&mut *self.runs.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        if self.next.load(Ordering::Relaxed) > 0 {
            let _ = fs::remove_dir_all(&self.dir);
            crate::interrupt::unregister(&self.dir);
        }
    }
}

/// A worker's part of one aggregate: a hash map that spills to `spill`
/// instead of growing past `budget` bytes.
pub struct BoundedMap<'s, C: Codec> {
    map: HashMap<C::Key, C::Value, KeyHasher>,
    /// Heap bytes owned by the values in the map.
    heap: usize,
    budget: usize,
    spill: &'s SpillDir,
    error: Option<io::Error>,
}

impl<'s, C: Codec> BoundedMap<'s, C> {
    pub fn new(budget: usize, spill: &'s SpillDir) -> Self {
        BoundedMap {
            map: HashMap::with_hasher(KeyHasher),
            heap: 0,
            budget,
            spill,
            error: None,
        }
    }

    /// Adds to the value of `key`, or inserts `new()` first.
    pub(crate) fn upsert(
        &mut self,
        key: C::Key,
        new: impl FnOnce() -> C::Value,
        update: impl FnOnce(&mut C::Value),
    ) {
        if let Some(value) = self.map.get_mut(&key) {
            update(value);
            return;
        }
        let mut value = new();
        update(&mut value);
        self.insert_new(key, value);
    }

    fn insert_new(&mut self, key: C::Key, value: C::Value) {
        let heap = C::heap_bytes(&value);
        let full = self.map.len() >= self.map.capacity() && !self.may_grow();
        let heavy = heap > 0
            && 2 * (table_bytes::<C>(self.map.capacity()) + self.heap + heap) > self.budget;
        if full || heavy {
            self.spill_all();
        }
        self.heap += heap;
        self.map.insert(key, value);
    }

    /// Would doubling the table, plus the sorted copy a spill (or the end)
    /// makes of it, stay within the budget?
    fn may_grow(&self) -> bool {
        let next = (self.map.capacity().max(4)) * 2;
        2 * (table_bytes::<C>(next) + self.heap) <= self.budget
    }

    /// Sorts the map into a run file and empties it (keeping its table).
    fn spill_all(&mut self) {
        if self.map.is_empty() || self.error.is_some() {
            return;
        }
        let entries = sorted(self.map.drain().collect());
        self.heap = 0;
        match self.spill.write_run::<C>(entries.into_iter().map(Ok)) {
            Ok(path) => self.spill.add_run(path),
            Err(error) => self.error = Some(error),
        }
    }

    /// The entries left in memory, sorted by key; the first spill error.
    pub fn finish(mut self) -> io::Result<Vec<(C::Key, C::Value)>> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        Ok(sorted(self.map.into_iter().collect()))
    }
}

fn sorted<K: Ord + Copy, V>(mut entries: Vec<(K, V)>) -> Vec<(K, V)> {
    entries.sort_unstable_by_key(|(key, _)| *key);
    entries
}

/// Bytes of a hash table holding `capacity` entries (buckets at 7/8 load,
/// one control byte each).
fn table_bytes<C: Codec>(capacity: usize) -> usize {
    let entry = size_of::<(C::Key, C::Value)>() + 1;
    (capacity * 8 / 7 + 1).next_power_of_two() * entry
}

/// Merges the runs in `spill` and the sorted in-memory parts into one
/// stream in key order, adding up equal keys.
pub(crate) fn merge<C: Codec>(
    spill: &SpillDir,
    memory: Vec<Vec<(C::Key, C::Value)>>,
) -> io::Result<Merged<C>> {
    let mut runs = spill.take_runs();
    // Keep the number of open files bounded: merge runs in rounds.
    while runs.len() + memory.len() > MAX_OPEN_RUNS {
        let batch: Vec<PathBuf> = runs.drain(..MAX_OPEN_RUNS.min(runs.len())).collect();
        if batch.len() < 2 {
            break;
        }
        let sources = batch
            .iter()
            .map(|p| RunReader::open(p).map(Source::File))
            .collect::<io::Result<Vec<_>>>()?;
        let merged = Merged::<C>::new(sources)?;
        let path = spill.write_run::<C>(merged)?;
        for old in &batch {
            let _ = fs::remove_file(old);
        }
        runs.push(path);
    }
    let mut sources = Vec::with_capacity(runs.len() + memory.len());
    for path in &runs {
        sources.push(Source::File(RunReader::open(path)?));
    }
    for part in memory {
        sources.push(Source::Memory(part.into_iter()));
    }
    Merged::new(sources)
}

/// Reads one run file back, record by record.
struct RunReader {
    input: BufReader<File>,
    buffer: Vec<u8>,
}

impl RunReader {
    fn open(path: &Path) -> io::Result<RunReader> {
        Ok(RunReader {
            input: BufReader::with_capacity(1 << 16, File::open(path)?),
            buffer: Vec::with_capacity(128),
        })
    }

    fn next_record<C: Codec>(&mut self) -> io::Result<Option<(C::Key, C::Value)>> {
        let mut len = [0u8; 4];
        match self.input.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        self.buffer.resize(u32::from_le_bytes(len) as usize, 0);
        self.input.read_exact(&mut self.buffer)?;
        C::decode(&self.buffer)
            .map(Some)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "corrupt spill record"))
    }
}

enum Source<C: Codec> {
    File(RunReader),
    Memory(std::vec::IntoIter<(C::Key, C::Value)>),
}

impl<C: Codec> Source<C> {
    fn next_entry(&mut self) -> io::Result<Option<(C::Key, C::Value)>> {
        match self {
            Source::File(reader) => reader.next_record::<C>(),
            Source::Memory(entries) => Ok(entries.next()),
        }
    }
}

/// The merged stream: each key once, in ascending order.
pub(crate) struct Merged<C: Codec> {
    sources: Vec<Source<C>>,
    heads: Vec<Option<C::Value>>,
    heap: BinaryHeap<Reverse<(C::Key, usize)>>,
    failed: bool,
}

impl<C: Codec> Merged<C> {
    fn new(sources: Vec<Source<C>>) -> io::Result<Merged<C>> {
        let mut merged = Merged {
            heads: sources.iter().map(|_| None).collect(),
            sources,
            heap: BinaryHeap::new(),
            failed: false,
        };
        for index in 0..merged.sources.len() {
            merged.advance(index)?;
        }
        Ok(merged)
    }

    /// Loads the next entry of source `index` into the heap.
    fn advance(&mut self, index: usize) -> io::Result<()> {
        let Some(source) = self.sources.get_mut(index) else {
            return Ok(());
        };
        if let Some((key, value)) = source.next_entry()? {
            if let Some(head) = self.heads.get_mut(index) {
                *head = Some(value);
            }
            self.heap.push(Reverse((key, index)));
        }
        Ok(())
    }

    fn pop(&mut self) -> io::Result<Option<(C::Key, C::Value)>> {
        let Some(Reverse((key, index))) = self.heap.pop() else {
            return Ok(None);
        };
        let value = self.heads.get_mut(index).and_then(Option::take);
        self.advance(index)?;
        Ok(value.map(|v| (key, v)))
    }

    fn next_combined(&mut self) -> io::Result<Option<(C::Key, C::Value)>> {
        let Some((key, mut value)) = self.pop()? else {
            return Ok(None);
        };
        while self.heap.peek().is_some_and(|Reverse((k, _))| *k == key) {
            if let Some((_, more)) = self.pop()? {
                C::combine(&mut value, more);
            }
        }
        Ok(Some((key, value)))
    }
}

impl<C: Codec> Iterator for Merged<C> {
    type Item = io::Result<(C::Key, C::Value)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_combined() {
            Ok(entry) => entry.map(Ok),
            Err(error) => {
                self.failed = true;
                Some(Err(error))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Key → (count, minimum seen).
    struct Counts;

    impl Codec for Counts {
        type Key = u64;
        type Value = (u64, u32);

        fn encode(key: &u64, value: &(u64, u32), out: &mut Vec<u8>) {
            out.extend_from_slice(&key.to_le_bytes());
            out.extend_from_slice(&value.0.to_le_bytes());
            out.extend_from_slice(&value.1.to_le_bytes());
        }

        fn decode(bytes: &[u8]) -> Option<(u64, (u64, u32))> {
            let key = u64::from_le_bytes(bytes.get(0..8)?.try_into().ok()?);
            let count = u64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?);
            let min = u32::from_le_bytes(bytes.get(16..20)?.try_into().ok()?);
            Some((key, (count, min)))
        }

        fn combine(into: &mut (u64, u32), from: (u64, u32)) {
            into.0 += from.0;
            into.1 = into.1.min(from.1);
        }
    }

    type Rows = Vec<(u64, (u64, u32))>;

    /// The merged rows and the number of run files written.
    fn run(budget: usize, workers: usize, items: &[(u64, u32)]) -> (Rows, usize) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let spill = SpillDir::new(dir.path().join("spill"));
        let mut maps: Vec<BoundedMap<'_, Counts>> = (0..workers)
            .map(|_| BoundedMap::new(budget, &spill))
            .collect();
        for (i, &(key, seen)) in items.iter().enumerate() {
            if let Some(map) = maps.get_mut(i % workers) {
                map.upsert(key, || (0, u32::MAX), |v| Counts::combine(v, (1, seen)));
            }
        }
        let memory = maps
            .into_iter()
            .map(|m| m.finish().unwrap_or_else(|e| panic!("finish: {e}")))
            .collect();
        let merged = merge::<Counts>(&spill, memory).unwrap_or_else(|e| panic!("merge: {e}"));
        let rows = merged
            .collect::<io::Result<Vec<_>>>()
            .unwrap_or_else(|e| panic!("read: {e}"));
        (rows, spill.runs_written())
    }

    #[test]
    fn spilled_and_in_memory_merges_agree() {
        let items: Vec<(u64, u32)> = (0..20_000u64)
            .map(|i| ((i * 7919) % 3001, (i % 97) as u32))
            .collect();
        let (in_memory, no_runs) = run(1 << 30, 1, &items);
        let (spilled, runs) = run(1024, 3, &items);
        assert_eq!(no_runs, 0);
        // A tiny budget writes many runs, more than can be open at once.
        assert!(runs > MAX_OPEN_RUNS, "{runs} runs");
        assert_eq!(in_memory.len(), 3001);
        assert_eq!(in_memory, spilled);
        assert_eq!(in_memory.iter().map(|(_, (n, _))| n).sum::<u64>(), 20_000);
        assert!(in_memory.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
