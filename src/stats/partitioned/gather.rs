//! Statistics stage, the opening tree past memory: the gather. At the end
//! each partition is gathered from the workers' tables and from every run,
//! added up and sorted on its own, a few at a time on the pool (a
//! partition too large for one batch in passes over its next key bits);
//! partitions are ranges of keys, so they follow each other in key order
//! and the tree comes out sorted.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::ops::Range;
use std::sync::Arc;

use rayon::prelude::*;

use super::partition::{InMemory, PARTITIONS, Row, SUB_BITS, sub_partition_of};
use super::runs::{RunOffsets, RunSpan, TreeRuns, decode_records};
use crate::jobs::{self, Deferred, JobPanicked};
use crate::profile::Stage;

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
            spilled += offsets.partition_bytes(file, p)?;
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
    fn unit(&mut self, first: usize, end: usize, subs: Range<u64>) -> io::Result<Unit> {
        let offsets = self
            .offsets
            .iter_mut()
            .zip(&self.shared.runs)
            .map(|(offsets, file)| offsets.offsets(file, first, end))
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
        .map(|(file, offsets)| RunSpan::read(file, offsets))
        .collect::<io::Result<Vec<_>>>()?;
    let parts = (unit.first..unit.end)
        .into_par_iter()
        .map(|p| {
            let mut rows: Vec<Row> = Vec::new();
            let i = p - unit.first;
            for span in &spans {
                decode_records(span.partition(i), &unit.subs, &mut rows)?;
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
    subs: Range<u64>,
    /// Each run's offsets of partitions `first..=end`.
    offsets: Vec<Vec<u64>>,
}

fn sub_range(pass: u64, passes: u64) -> Range<u64> {
    let all = 1u64 << SUB_BITS;
    (pass * all / passes)..((pass + 1) * all / passes)
}

/// Sorts a partition's rows, adds up equal keys and leaves out rows with
/// fewer than `min_games` games.
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
    use super::super::tests::{rows, tree};
    use super::*;
    use crate::stats::dimensions::Dimensions;
    use crate::stats::tree_row::{Edge, EdgeKey};

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
        // 256 KiB a worker holds about 4,000 rows: many runs.
        let (spilled, _, runs) = tree(&input, 3, 1 << 18, 1 << 20, 1);
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
        // The row's own earliest ply (a row names the game it is spelled
        // from and that game's ply: not another move's).
        assert_eq!(edge.ply(), 7);
        assert_eq!(
            (edge.stats().first_year, edge.stats().last_year),
            (Some(2000), Some(2001))
        );
    }
}
