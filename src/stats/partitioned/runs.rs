//! Statistics stage, the opening tree past memory: run files. When a
//! worker's table is full its rows are written to one run file, partition
//! after partition, with the offset of each partition at the end; the
//! gather reads a few partitions of every run at once. Also the memory the
//! workers' rows hold, counted here since the runs are what they share.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use super::partition::{Grouped, PARTITIONS, Row, sub_partition_of};
use crate::stats::spill::SpillDir;
use crate::stats::tree_row::Edge;

/// Run files of the tree, what each holds where, and the memory the
/// workers' rows take; shared by the workers.
#[derive(Debug)]
pub struct TreeRuns {
    dir: SpillDir,
    runs: Mutex<Vec<RunIndex>>,
    pub(super) memory: AtomicUsize,
    peak_memory: AtomicUsize,
    rows_spilled: AtomicU64,
}

/// One run file: its records, partition after partition, then one more
/// offset than there are partitions, little-endian u64s at `offsets_at`
/// (partition `p` is `offsets[p]..offsets[p + 1]`). The offsets stay on
/// disk: in memory they would take 32 KiB a run, and a large input at a
/// small limit writes thousands of runs.
#[derive(Debug)]
pub(super) struct RunIndex {
    pub(super) path: PathBuf,
    pub(super) offsets_at: u64,
}

/// The error of a run file whose offsets or records are not as written.
pub(super) fn corrupt_run() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "corrupt tree run file")
}

/// Offsets of the partitions of one run read a window at a time, as the
/// end of the run walks the partitions in order.
pub(super) struct RunOffsets {
    offsets_at: u64,
    /// The partition of `window[0]`.
    first: usize,
    window: Vec<u64>,
}

/// Offsets read at once from a run file.
const OFFSETS_WINDOW: usize = 256;

impl RunOffsets {
    pub(super) fn new(offsets_at: u64) -> RunOffsets {
        RunOffsets {
            offsets_at,
            first: 0,
            window: Vec::new(),
        }
    }

    /// Where partition `p`'s records start in `file` (`p == PARTITIONS`:
    /// where the records end). An offset past the records is an error.
    pub(super) fn offset(&mut self, file: &File, p: usize) -> io::Result<u64> {
        if let Some(&offset) = p.checked_sub(self.first).and_then(|i| self.window.get(i)) {
            return Ok(offset);
        }
        let first = p - p % OFFSETS_WINDOW;
        let count = (PARTITIONS + 1).saturating_sub(first).min(OFFSETS_WINDOW);
        let mut bytes = vec![0u8; count * 8];
        file.read_exact_at(&mut bytes, self.offsets_at + first as u64 * 8)?;
        let (offsets, _) = bytes.as_chunks::<8>();
        self.window = offsets.iter().map(|b| u64::from_le_bytes(*b)).collect();
        if self.window.iter().any(|&offset| offset > self.offsets_at) {
            return Err(corrupt_run());
        }
        self.first = first;
        p.checked_sub(first)
            .and_then(|i| self.window.get(i))
            .copied()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no such tree partition"))
    }

    /// The bytes of partition `p`'s records; an error when the run's
    /// offsets go backwards.
    pub(super) fn partition_bytes(&mut self, file: &File, p: usize) -> io::Result<u64> {
        let from = self.offset(file, p)?;
        self.offset(file, p + 1)?
            .checked_sub(from)
            .ok_or_else(corrupt_run)
    }

    /// The offsets of partitions `first..=end`, checked to follow each
    /// other: each partition's records are then a range inside the span.
    pub(super) fn offsets(
        &mut self,
        file: &File,
        first: usize,
        end: usize,
    ) -> io::Result<Vec<u64>> {
        let offsets = (first..=end)
            .map(|p| self.offset(file, p))
            .collect::<io::Result<Vec<u64>>>()?;
        if offsets.is_sorted() {
            Ok(offsets)
        } else {
            Err(corrupt_run())
        }
    }
}

/// The records of a run's consecutive partitions, read at once.
pub(super) struct RunSpan<'o> {
    /// The partitions' offsets as [`RunOffsets::offsets`] gave them.
    offsets: &'o [u64],
    bytes: Vec<u8>,
}

impl<'o> RunSpan<'o> {
    /// Reads the records of the partitions `offsets` bound (one read: they
    /// are next to each other in the run).
    pub(super) fn read(file: &File, offsets: &'o [u64]) -> io::Result<RunSpan<'o>> {
        // Checked sorted and of two offsets or more when they were read.
        let (from, to) = (offsets[0], offsets[offsets.len() - 1]);
        let len = usize::try_from(to - from).map_err(|_| corrupt_run())?;
        let mut bytes = vec![0u8; len];
        file.read_exact_at(&mut bytes, from)?;
        Ok(RunSpan { offsets, bytes })
    }

    /// The records of the `i`th partition of the span.
    pub(super) fn partition(&self, i: usize) -> &[u8] {
        // Sorted offsets bound ranges inside the bytes read.
        let base = self.offsets[0];
        let at = |j: usize| (self.offsets[j] - base) as usize;
        &self.bytes[at(i)..at(i + 1)]
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

    pub(super) fn hold(&self, bytes: usize) {
        let now = self.memory.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak_memory.fetch_max(now, Ordering::Relaxed);
    }

    pub(super) fn release(&self, bytes: usize) {
        self.memory.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Writes `rows` as one run file, partition after partition.
    pub(super) fn write_run(&self, rows: &[Row]) -> io::Result<()> {
        let grouped = Grouped::new(rows);
        let path = self.dir.new_run_path()?;
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        let mut offsets = Vec::with_capacity(PARTITIONS + 1);
        let mut record = Vec::with_capacity(128);
        let mut written = 0u64;
        for p in 0..PARTITIONS {
            offsets.push(written);
            for &i in grouped.rows_of(p) {
                // Row numbers come from `rows` itself.
                let (key, edge) = &rows[i as usize];
                record.clear();
                edge.encode(key, &mut record);
                out.write_all(&record)?;
                written += record.len() as u64;
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
        // A worker that panicked holding the lock left the list whole (a
        // push or a take): the runs are still to be read.
        self.runs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(RunIndex {
                path,
                offsets_at: written,
            });
        Ok(())
    }

    /// Every run written so far, to be gathered.
    pub(super) fn take_runs(&self) -> Vec<RunIndex> {
        std::mem::take(&mut *self.runs.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Appends the records in `bytes` whose sub-partition is in `subs` to
/// `rows`; an error when a record is cut short or damaged.
pub(super) fn decode_records(
    mut bytes: &[u8],
    subs: &Range<u64>,
    rows: &mut Vec<Row>,
) -> io::Result<()> {
    while !bytes.is_empty() {
        let (row, rest) = Edge::decode(bytes).ok_or_else(corrupt_run)?;
        bytes = rest;
        if subs.contains(&sub_partition_of(row.0.position)) {
            rows.push(row);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::dimensions::Dimensions;
    use crate::stats::partitioned::partition::partition_of;
    use crate::stats::tree_row::EdgeKey;

    fn rows() -> Vec<Row> {
        [0u64, u64::MAX, 5, 1 << 63, 7, 1 << 40]
            .into_iter()
            .map(|position| {
                let key = EdgeKey {
                    position,
                    mv: 1,
                    dims: Dimensions::default(),
                };
                (key, Edge::made_up(position, 2, 0, 2000))
            })
            .collect()
    }

    fn written(runs: &TreeRuns) -> (File, RunOffsets) {
        let taken = runs.take_runs();
        assert_eq!(taken.len(), 1);
        let run = &taken[0];
        let file = File::open(&run.path).unwrap_or_else(|e| panic!("{e}"));
        (file, RunOffsets::new(run.offsets_at))
    }

    #[test]
    fn a_run_is_read_back_partition_by_partition() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let runs = TreeRuns::new(dir.path().join("spill"));
        let input = rows();
        runs.write_run(&input).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(runs.rows_spilled(), 6);
        let (file, mut offsets) = written(&runs);
        let all = offsets
            .offsets(&file, 0, PARTITIONS)
            .unwrap_or_else(|e| panic!("{e}"));
        let span = RunSpan::read(&file, &all).unwrap_or_else(|e| panic!("{e}"));
        let mut read = Vec::new();
        for p in 0..PARTITIONS {
            let mut part = Vec::new();
            decode_records(span.partition(p), &(0..1 << 8), &mut part)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(part.iter().all(|(k, _)| partition_of(k.position) == p));
            let bytes = offsets
                .partition_bytes(&file, p)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(bytes as usize, span.partition(p).len());
            read.extend(part);
        }
        let mut expected = input;
        expected.sort_by_key(|(k, _)| partition_of(k.position));
        assert_eq!(read, expected);
    }

    #[test]
    fn damaged_offsets_and_records_are_errors() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let runs = TreeRuns::new(dir.path().join("spill"));
        runs.write_run(&rows()).unwrap_or_else(|e| panic!("{e}"));
        let taken = runs.take_runs();
        let run = &taken[0];
        // The offset of the last partition written past the records.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&run.path)
            .unwrap_or_else(|e| panic!("{e}"));
        let last = run.offsets_at + PARTITIONS as u64 * 8;
        file.write_all_at(&(run.offsets_at + 1).to_le_bytes(), last)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut offsets = RunOffsets::new(run.offsets_at);
        let error = offsets.offsets(&file, 0, PARTITIONS).err();
        assert_eq!(error.map(|e| e.kind()), Some(io::ErrorKind::InvalidData));
        // Offsets going backwards.
        file.write_all_at(&0u64.to_le_bytes(), last)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut offsets = RunOffsets::new(run.offsets_at);
        assert!(offsets.offsets(&file, 0, PARTITIONS).is_err());
        assert!(offsets.partition_bytes(&file, PARTITIONS - 1).is_err());
        // A record cut short.
        let mut rows = Vec::new();
        let mut record = Vec::new();
        let (key, edge) = &self::rows()[0];
        edge.encode(key, &mut record);
        let error = decode_records(&record[..record.len() - 1], &(0..1 << 8), &mut rows).err();
        assert_eq!(error.map(|e| e.kind()), Some(io::ErrorKind::InvalidData));
    }
}
