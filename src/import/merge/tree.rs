//! The import, merge, tree: the shards' opening trees, each written sorted
//! by key, merged into one with a k-way merge (a heap of each shard's
//! smallest row), so a tree far larger than memory is merged holding a row
//! group or two of each shard: rows of one key added up (game ids rebased
//! as the games tables' are), and `--opening-min-games` applied after the
//! sums, as a single import applies it. Rows are read back without their
//! text and spelled again when written (from the games' first moves).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::Error;
use crate::import::tables::StatsWriters;
use crate::jobs::{self, Deferred, JobPanicked};
use crate::profile::Stage;
use crate::sink::openings::{in_runs, write_openings};
use crate::sink::schema::openings;
use crate::stats::first_moves::FirstMoves;
use crate::stats::tree_row::{Edge, EdgeKey, EdgeStats, pack_uci};

use super::aggregates::{dimensions_of, rated_counts};
use super::rows::{Columns, read_slice, row_groups, small, text_at};

/// One shard's opening tree as a sorted stream of edges. Its next row
/// groups are read and turned into edges on the pool while the merge goes
/// on (reading the EPD and the move back is most of a merge's work).
struct TreeStream {
    path: Arc<PathBuf>,
    /// Added to the rows' game ids.
    shift: u64,
    slices: std::vec::IntoIter<(usize, usize)>,
    ahead: VecDeque<Arc<Deferred<EdgesRead>>>,
    rows: std::vec::IntoIter<(EdgeKey, Edge)>,
}

/// A row group of a shard's tree as edges, or why it could not be read.
type EdgesRead = Result<Vec<(EdgeKey, Edge)>, String>;

/// Row groups of each shard's tree read ahead.
const TREE_GROUPS_AHEAD: usize = 2;

impl TreeStream {
    fn open(path: &Path, shift: u64) -> Result<TreeStream, Error> {
        Ok(TreeStream {
            path: Arc::new(path.to_path_buf()),
            shift,
            slices: row_groups(path)?.into_iter(),
            ahead: VecDeque::new(),
            rows: Vec::new().into_iter(),
        })
    }
}

/// One shard's tree rows in key order: what [`TreeMerge`] merges.
trait SortedEdges {
    /// The next row, None after the last.
    fn next_edge(&mut self) -> Result<Option<(EdgeKey, Edge)>, Error>;
}

impl SortedEdges for TreeStream {
    fn next_edge(&mut self) -> Result<Option<(EdgeKey, Edge)>, Error> {
        loop {
            if let Some(edge) = self.rows.next() {
                return Ok(Some(edge));
            }
            while self.ahead.len() < TREE_GROUPS_AHEAD {
                let Some(slice) = self.slices.next() else {
                    break;
                };
                let path = Arc::clone(&self.path);
                let shift = self.shift;
                let job = Deferred::new(Stage::FinalMerge, move || {
                    let frame = read_slice(&path, slice).map_err(|e| e.to_string())?;
                    let columns = Columns {
                        frame: &frame,
                        path: &path,
                    };
                    tree_edges(&columns, shift).map_err(|e| e.to_string())
                });
                let runner = Arc::clone(&job);
                rayon::spawn(move || jobs::run_on_worker(runner.as_ref()));
                self.ahead.push_back(job);
            }
            let Some(job) = self.ahead.pop_front() else {
                return Ok(None);
            };
            let edges = job
                .wait()
                .map_err(|JobPanicked| Error::Panicked("merge reader"))?
                .map_err(Error::Usage)?;
            self.rows = edges.into_iter();
        }
    }
}

/// The edges of a chunk of an `openings` table, `shift` added to its game
/// ids. The text columns are not read: rows are spelled when written.
fn tree_edges(columns: &Columns<'_>, shift: u64) -> Result<Vec<(EdgeKey, Edge)>, Error> {
    let keys = columns.int(openings::POSITION_KEY)?;
    let uci = columns.text(openings::MOVE_UCI)?;
    let (ply, first_years, last_years) = (
        columns.int(openings::PLY)?,
        columns.int(openings::FIRST_YEAR)?,
        columns.int(openings::LAST_YEAR)?,
    );
    let (game, top, top_sum, earliest, latest) = (
        columns.int(openings::GAME_ID)?,
        columns.int(openings::TOP_GAME_ID)?,
        columns.int(openings::TOP_GAME_ELO_SUM)?,
        columns.int(openings::FIRST_GAME_ID)?,
        columns.int(openings::LAST_GAME_ID)?,
    );
    let rated = rated_counts(columns)?;
    let dims = dimensions_of(
        columns,
        [openings::TIME_CLASS, openings::RATING_BAND, openings::MONTH],
    )?;
    let year =
        |values: &[Option<i64>], row: usize| small(values, row).and_then(|y| u16::try_from(y).ok());
    let int = |values: &[Option<i64>], row: usize| values.get(row).copied().flatten();
    let id = |values: &[Option<i64>], row: usize| {
        int(values, row)
            .and_then(|id| u64::try_from(id).ok())
            .and_then(|id| id.checked_add(shift))
    };
    (0..columns.frame.height())
        .map(|row| {
            let (results, elo) = rated(row);
            let game_id = id(&game, row)?;
            let (top, first, last) = if results.games == 1 {
                // A row of one game names its game once (`game_id`).
                let both = elo.white_count == 1 && elo.black_count == 1;
                let top = both.then(|| (elo.white_sum + elo.black_sum, game_id));
                (top, game_id, game_id)
            } else {
                let top = match (int(&top_sum, row), top.get(row).copied().flatten()) {
                    (Some(sum), Some(_)) => Some((u64::try_from(sum).ok()?, id(&top, row)?)),
                    (None, None) => None,
                    _ => return None,
                };
                // No first game: the witness is the first.
                let first = match int(&earliest, row) {
                    None => game_id,
                    Some(_) => id(&earliest, row)?,
                };
                (top, first, id(&latest, row)?)
            };
            let stats = EdgeStats {
                results,
                elo,
                first_year: year(&first_years, row),
                last_year: year(&last_years, row),
                ply: small(&ply, row).and_then(|p| u16::try_from(p).ok())?,
                game_id,
                top,
                first,
                last,
            };
            let key = EdgeKey {
                position: int(&keys, row)?.cast_unsigned(),
                mv: pack_uci(text_at(&uci, row)?)?,
                dims: dims(row)?,
            };
            Some((key, Edge::of_stats(stats)))
        })
        .map(|edge| {
            edge.ok_or_else(|| columns.bad_row("an opening tree row pgnlake does not write"))
        })
        .collect()
}

/// One import's tree to merge: its file, and what its game ids are
/// shifted by (the games read before it, as its games are rebased).
pub(crate) struct TreeFile {
    pub path: PathBuf,
    pub shift: u64,
}

/// Merges the imports' sorted trees into one: equal edges added up, then
/// the rows of fewer than `min_games` games left out; rows of two games or
/// more spelled from `first_moves`. Returns the rows left out.
pub(super) fn merge_tree(
    files: &[TreeFile],
    min_games: u32,
    first_moves: &FirstMoves,
    writers: &mut StatsWriters,
) -> Result<u64, Error> {
    let mut streams = Vec::with_capacity(files.len());
    for file in files {
        streams.push(TreeStream::open(&file.path, file.shift)?);
    }
    let mut merge = TreeMerge::new(streams, min_games)?;
    let out = writers.openings.path().to_path_buf();
    let written = write_openings(in_runs(&mut merge), first_moves, &mut writers.openings);
    if let Some(e) = merge.error {
        return Err(e);
    }
    written.map_err(Error::write(&out))?;
    Ok(merge.dropped)
}

/// The k-way merge of sorted streams: the merged tree's rows in key order,
/// as they are written. A stream's error ends it (an `io::Error` to the
/// writer; the error itself kept in `error`).
struct TreeMerge<S> {
    streams: Vec<S>,
    /// The smallest row of each stream not yet taken.
    heap: BinaryHeap<Reverse<Head>>,
    min_games: u32,
    /// Rows left out for `min_games`.
    dropped: u64,
    error: Option<Error>,
    /// The rows of the position being merged (its moves), summed.
    position: Vec<(EdgeKey, Edge)>,
    /// The rows of the positions done, to hand out.
    ready: VecDeque<(EdgeKey, Edge)>,
}

impl<S: SortedEdges> TreeMerge<S> {
    fn new(mut streams: Vec<S>, min_games: u32) -> Result<TreeMerge<S>, Error> {
        let mut heap = BinaryHeap::new();
        for (i, stream) in streams.iter_mut().enumerate() {
            if let Some((key, edge)) = stream.next_edge()? {
                heap.push(Reverse(Head {
                    key,
                    shard: i,
                    edge,
                }));
            }
        }
        Ok(TreeMerge {
            streams,
            heap,
            min_games,
            dropped: 0,
            error: None,
            position: Vec::new(),
            ready: VecDeque::new(),
        })
    }
}

impl<S: SortedEdges> Iterator for TreeMerge<S> {
    type Item = std::io::Result<(EdgeKey, Edge)>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(row) = self.ready.pop_front() {
                return Some(Ok(row));
            }
            let next = match self.heap.pop() {
                Some(Reverse(head)) => {
                    match self.streams.get_mut(head.shard).map(S::next_edge) {
                        Some(Ok(Some((key, edge)))) => self.heap.push(Reverse(Head {
                            key,
                            shard: head.shard,
                            edge,
                        })),
                        Some(Err(e)) => self.error = Some(e),
                        _ => {}
                    }
                    Some((head.key, head.edge))
                }
                None => None,
            };
            if self.error.is_some() {
                return Some(Err(std::io::Error::other("reading a shard's tree")));
            }
            let boundary = match (&next, self.position.last()) {
                (Some((key, _)), Some((last, _))) => key.position != last.position,
                (None, _) => true,
                (Some(_), None) => false,
            };
            if boundary {
                for (key, edge) in self.position.drain(..) {
                    if edge.games() >= u64::from(self.min_games) {
                        self.ready.push_back((key, edge));
                    } else {
                        self.dropped += 1;
                    }
                }
            }
            match next {
                Some((key, edge)) => match self.position.last_mut() {
                    Some((last, kept)) if *last == key => kept.combine(edge),
                    _ => self.position.push((key, edge)),
                },
                None if self.ready.is_empty() => return None,
                None => {}
            }
        }
    }
}

/// The smallest edge of one shard's stream, ordered for the heap.
struct Head {
    key: EdgeKey,
    shard: usize,
    edge: Edge,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        (self.key, self.shard) == (other.key, other.shard)
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.key, self.shard).cmp(&(other.key, other.shard))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::dimensions::Dimensions;

    /// A stream of rows given in memory (sorted by the test).
    impl SortedEdges for std::vec::IntoIter<(EdgeKey, Edge)> {
        fn next_edge(&mut self) -> Result<Option<(EdgeKey, Edge)>, Error> {
            Ok(self.next())
        }
    }

    /// A stream that hands out its rows, then fails.
    struct Failing(std::vec::IntoIter<(EdgeKey, Edge)>);

    impl SortedEdges for Failing {
        fn next_edge(&mut self) -> Result<Option<(EdgeKey, Edge)>, Error> {
            match self.0.next() {
                Some(row) => Ok(Some(row)),
                None => Err(Error::Usage("a shard's tree broke off".into())),
            }
        }
    }

    fn key(position: u64, mv: u16) -> EdgeKey {
        EdgeKey {
            position,
            mv,
            dims: Dimensions::default(),
        }
    }

    /// A row of `games` games at `ply` in `year`, its board from `seed`.
    fn row(position: u64, mv: u16, seed: u64, games: u64, ply: u16, year: u16) -> (EdgeKey, Edge) {
        (key(position, mv), Edge::made_up(seed, games, ply, year))
    }

    fn stream(rows: Vec<(EdgeKey, Edge)>) -> std::vec::IntoIter<(EdgeKey, Edge)> {
        rows.into_iter()
    }

    /// The merged rows and the rows left out.
    fn merged<S: SortedEdges>(streams: Vec<S>, min_games: u32) -> (Vec<(EdgeKey, Edge)>, u64) {
        let mut merge = TreeMerge::new(streams, min_games).unwrap_or_else(|e| panic!("{e}"));
        let rows = merge
            .by_ref()
            .collect::<std::io::Result<Vec<_>>>()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(merge.error.is_none());
        (rows, merge.dropped)
    }

    fn keys(rows: &[(EdgeKey, Edge)]) -> Vec<(u64, u16)> {
        rows.iter().map(|(k, _)| (k.position, k.mv)).collect()
    }

    fn games(rows: &[(EdgeKey, Edge)]) -> Vec<u64> {
        rows.iter().map(|(_, e)| e.games()).collect()
    }

    #[test]
    fn rows_of_one_key_in_several_streams_are_summed_in_key_order() {
        let a = stream(vec![
            row(1, 1, 10, 2, 3, 2000),
            row(1, 2, 11, 1, 3, 2000),
            row(4, 1, 12, 1, 5, 2003),
        ]);
        let b = stream(vec![
            row(1, 1, 20, 3, 3, 2001),
            row(2, 7, 21, 1, 4, 2000),
            row(4, 1, 22, 4, 5, 1999),
        ]);
        let (rows, dropped) = merged(vec![a, b], 1);
        assert_eq!(keys(&rows), [(1, 1), (1, 2), (2, 7), (4, 1)]);
        assert_eq!(games(&rows), [5, 1, 1, 5]);
        assert_eq!(dropped, 0);
        let years = |i: usize| {
            let stats = rows[i].1.stats();
            (stats.first_year, stats.last_year)
        };
        assert_eq!(years(0), (Some(2000), Some(2001)));
        assert_eq!(years(3), (Some(1999), Some(2003)));
        assert_eq!(rows[0].1.stats().elo.white_sum, 1500 * 5);
    }

    #[test]
    fn a_key_in_one_stream_comes_through_as_it_was() {
        let alone = row(3, 9, 30, 2, 6, 2010);
        let a = stream(vec![row(1, 1, 10, 1, 2, 2000), alone.clone()]);
        let b = stream(vec![row(1, 1, 20, 1, 2, 2000), row(5, 1, 21, 1, 8, 2000)]);
        let (rows, _) = merged(vec![a, b], 1);
        assert_eq!(keys(&rows), [(1, 1), (3, 9), (5, 1)]);
        assert_eq!(rows[1], alone);
    }

    #[test]
    fn empty_streams_add_nothing() {
        let none: Vec<std::vec::IntoIter<(EdgeKey, Edge)>> = Vec::new();
        assert_eq!(merged(none, 1), (Vec::new(), 0));
        assert_eq!(
            merged(vec![stream(vec![]), stream(vec![])], 1),
            (Vec::new(), 0)
        );
        let rows = vec![row(1, 1, 10, 1, 2, 2000), row(2, 1, 11, 1, 3, 2000)];
        let with_empty = merged(
            vec![stream(vec![]), stream(rows.clone()), stream(vec![])],
            1,
        );
        assert_eq!(with_empty, (rows, 0));
    }

    #[test]
    fn a_key_tied_across_many_streams_is_summed_whatever_their_order() {
        let tied = |seed| row(7, 3, seed, seed, 4 + seed as u16, 2000 + seed as u16);
        let streams = |order: [u64; 4]| {
            order
                .map(|seed| stream(vec![row(1, 1, 100 + seed, 1, 1, 2000), tied(seed)]))
                .to_vec()
        };
        let (rows, dropped) = merged(streams([1, 2, 3, 4]), 1);
        assert_eq!(keys(&rows), [(1, 1), (7, 3)]);
        assert_eq!(games(&rows), [4, 1 + 2 + 3 + 4]);
        assert_eq!(dropped, 0);
        let stats = rows[1].1.stats();
        assert_eq!(
            (stats.first_year, stats.last_year),
            (Some(2001), Some(2004))
        );
        assert_eq!(rows[1].1.ply(), 5);
        // The same rows, board and all, however the streams are ordered.
        for order in [[4, 3, 2, 1], [2, 4, 1, 3], [3, 1, 4, 2]] {
            assert_eq!(merged(streams(order), 1), (rows.clone(), 0));
        }
    }

    #[test]
    fn rare_rows_are_left_out_after_the_sums() {
        let a = stream(vec![
            row(1, 1, 10, 1, 9, 2000),
            row(1, 2, 11, 1, 2, 2000),
            row(3, 1, 12, 1, 4, 2000),
        ]);
        let b = stream(vec![row(1, 1, 20, 1, 7, 2000), row(3, 1, 22, 1, 6, 2000)]);
        let (rows, dropped) = merged(vec![a, b], 2);
        assert_eq!(keys(&rows), [(1, 1), (3, 1)]);
        assert_eq!(games(&rows), [2, 2]);
        assert_eq!(dropped, 1);
        // A row's own earliest ply (not its position's other moves').
        assert_eq!(rows[0].1.ply(), 7);
        assert_eq!(rows[1].1.ply(), 4);
    }

    #[test]
    fn a_stream_that_fails_stops_the_merge_with_its_error() {
        let good = Failing(stream(vec![
            row(1, 1, 10, 1, 1, 2000),
            row(2, 1, 11, 1, 1, 2000),
        ]));
        let broken = Failing(stream(vec![row(1, 1, 20, 1, 1, 2000)]));
        let mut merge = TreeMerge::new(vec![good, broken], 1).unwrap_or_else(|e| panic!("{e}"));
        let first = merge.next();
        assert!(matches!(first, Some(Err(_))), "{first:?}");
        assert!(
            matches!(&merge.error, Some(Error::Usage(m)) if m.contains("broke off")),
            "{:?}",
            merge.error
        );
    }
}
