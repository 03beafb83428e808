//! Sink stage, opening tables: the merged opening tree streamed into
//! `openings.parquet` in row groups (rows of two games or more spelled out
//! as EPD and SAN on the way, from their witness game's first moves; rows
//! of one game name their game), and the per-opening table `opening_lines.parquet`;
//! both with the dimensions (speed, rating band, month) of their rows.

use std::collections::VecDeque;
use std::io;
use std::iter::Peekable;
use std::sync::{Arc, Mutex, PoisonError};

use polars::prelude::*;

use super::encode::{EncodedRowGroup, RowGroupEncoder};
use super::parquet::{ROW_GROUP_ROWS, TableWriter, col, table_frame};
use super::schema::{self, opening_lines};
use crate::jobs::{self, Deferred, JobPanicked};
use crate::profile::{self, Stage};
use crate::replay::openings::{self, OpeningName};
use crate::stats::dimensions::Dimensions;
use crate::stats::first_moves::FirstMoves;
use crate::stats::lines::{LineKey, LineStats};
use crate::stats::tree_row::{Edge, EdgeKey, EdgeStats, Spelling, unpack_move};
use shakmaty::Chess;

/// One text per row, written one after the other into one buffer (one
/// allocation for a chunk, not one a row: this runs for every row of the
/// tree).
struct Texts {
    text: String,
    ends: Vec<usize>,
}

impl Texts {
    fn new(rows: usize, bytes_per_row: usize) -> Texts {
        Texts {
            text: String::with_capacity(rows * bytes_per_row),
            ends: Vec::with_capacity(rows),
        }
    }

    fn push(&mut self, write: impl FnOnce(&mut String)) {
        write(&mut self.text);
        self.ends.push(self.text.len());
    }

    /// The last row's text once more; the last row must have one (not a
    /// null: the caller spells a row after a null anew).
    fn repeat_last(&mut self) {
        let end = self.text.len();
        // Where the last text starts: the end of the text before it.
        let start = match self.ends.len() {
            0 | 1 => 0,
            n => self.ends[..n - 1]
                .iter()
                .rev()
                .find(|&&e| e != usize::MAX)
                .copied()
                .unwrap_or(0),
        };
        debug_assert!(self.ends.last().is_some_and(|&e| e != usize::MAX));
        self.text.extend_from_within(start..end);
        self.ends.push(self.text.len());
    }

    /// No text for this row (a null).
    fn push_null(&mut self) {
        self.ends.push(usize::MAX);
    }

    /// The texts, None for a null.
    fn optional_strs(&self) -> Vec<Option<&str>> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                if end == usize::MAX {
                    return None;
                }
                // Each end was the text's length after a whole string.
                let text = &self.text[start..end];
                start = end;
                Some(text)
            })
            .collect()
    }

    fn strs(&self) -> Vec<&str> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                // Each end was the text's length after a whole string.
                let text = &self.text[start..end];
                start = end;
                text
            })
            .collect()
    }
}

/// The `openings` table's columns for a chunk of rows, filled in one pass
/// over the rows: a pass per column read the chunk twenty times, which
/// cost more than filling the columns.
#[derive(Default)]
struct OpeningColumns {
    position_key: Vec<i64>,
    ply: Vec<i32>,
    time_class: Vec<&'static str>,
    rating_band: Vec<Option<i32>>,
    month: Vec<Option<i32>>,
    next_position_key: Vec<Option<i64>>,
    /// games, white_wins, draws, black_wins, unfinished, white_elo_sum,
    /// white_elo_count, black_elo_sum, black_elo_count.
    counts: [Vec<i64>; 9],
    first_year: Vec<Option<i32>>,
    last_year: Vec<Option<i32>>,
    game_id: Vec<i64>,
    top_game_id: Vec<Option<i64>>,
    top_game_elo_sum: Vec<Option<i64>>,
    first_game_id: Vec<Option<i64>>,
    last_game_id: Vec<Option<i64>>,
}

/// A count or id as the table's i64 (they are far below 2^63: games read).
fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl OpeningColumns {
    fn with_capacity(rows: usize) -> OpeningColumns {
        OpeningColumns {
            position_key: Vec::with_capacity(rows),
            ply: Vec::with_capacity(rows),
            time_class: Vec::with_capacity(rows),
            rating_band: Vec::with_capacity(rows),
            month: Vec::with_capacity(rows),
            next_position_key: Vec::with_capacity(rows),
            counts: std::array::from_fn(|_| Vec::with_capacity(rows)),
            first_year: Vec::with_capacity(rows),
            last_year: Vec::with_capacity(rows),
            game_id: Vec::with_capacity(rows),
            top_game_id: Vec::with_capacity(rows),
            top_game_elo_sum: Vec::with_capacity(rows),
            first_game_id: Vec::with_capacity(rows),
            last_game_id: Vec::with_capacity(rows),
        }
    }

    fn push(&mut self, key: &EdgeKey, s: &EdgeStats, spelled: Option<&Spelling>) {
        self.position_key.push(openings::stored_key(key.position));
        self.ply.push(i32::from(s.ply));
        self.time_class.push(key.dims.time_class());
        self.rating_band.push(key.dims.rating_band());
        self.month.push(key.dims.month());
        self.next_position_key
            .push(spelled.map(|s| openings::stored_key(s.next)));
        let counts = [
            s.results.games,
            s.results.white_wins,
            s.results.draws,
            s.results.black_wins,
            s.results.unfinished(),
            s.elo.white_sum,
            s.elo.white_count,
            s.elo.black_sum,
            s.elo.black_count,
        ];
        for (column, count) in self.counts.iter_mut().zip(counts) {
            column.push(int(count));
        }
        self.first_year.push(s.first_year.map(i32::from));
        self.last_year.push(s.last_year.map(i32::from));
        self.game_id.push(int(s.game_id));
        // A row of one game names its game once, in `game_id`.
        let many = s.results.games > 1;
        let top = s.top.filter(|_| many);
        self.top_game_id.push(top.map(|(_, id)| int(id)));
        self.top_game_elo_sum.push(top.map(|(sum, _)| int(sum)));
        // The first game is nearly always the witness (a position is
        // reached at one ply): named only when it is another.
        self.first_game_id
            .push((many && s.first != s.game_id).then(|| int(s.first)));
        self.last_game_id.push(many.then(|| int(s.last)));
    }
}

/// Why a row could not be spelled: its witness game's first moves do not
/// reach the position, or its move is not legal there.
fn spelling_error(error: impl std::fmt::Display) -> PolarsError {
    PolarsError::ComputeError(format!("spelling the opening tree: {error}").into())
}

/// The spelling of a row of two games or more: from its witness game's
/// first moves, the position once for all of its moves.
struct Speller<'a> {
    first_moves: &'a FirstMoves,
    /// The position last spelled: its key and the position.
    last: Option<(u64, Chess)>,
}

impl Speller<'_> {
    fn spell(&mut self, key: &EdgeKey, s: &EdgeStats) -> PolarsResult<Spelling> {
        let pos = match self.last.take() {
            Some((position, pos)) if position == key.position => pos,
            _ => {
                let pos = self
                    .first_moves
                    .position(s.game_id, s.ply)
                    .map_err(spelling_error)?;
                if openings::position_key(&pos) != key.position {
                    return Err(spelling_error(format_args!(
                        "game {} after {} plies is not the row's position",
                        s.game_id, s.ply
                    )));
                }
                pos
            }
        };
        let m = unpack_move(key.mv).to_move(&pos).map_err(|_| {
            spelling_error(format_args!(
                "move {} is not legal after game {}'s {} plies",
                unpack_move(key.mv),
                s.game_id,
                s.ply
            ))
        })?;
        let spelled = Spelling::of(&pos, m);
        self.last = Some((key.position, pos));
        Ok(spelled)
    }
}

/// The `openings` table for a chunk of merged entries: rows of two games
/// or more spelled from `first_moves`, rows of one game not.
pub(crate) fn openings_frame(
    entries: &[(EdgeKey, Edge)],
    first_moves: &FirstMoves,
) -> PolarsResult<DataFrame> {
    use schema::openings as o;
    let mut epds = Texts::new(entries.len(), 4);
    let mut sans = Texts::new(entries.len(), 1);
    let mut ucis = Texts::new(entries.len(), 5);
    let mut columns = OpeningColumns::with_capacity(entries.len());
    let mut speller = Speller {
        first_moves,
        last: None,
    };
    let mut previous: Option<(u64, Spelling)> = None;
    for (key, edge) in entries {
        let stats = edge.stats();
        let spelled = if stats.results.games > 1 {
            let spelled = speller.spell(key, &stats)?;
            // A position's moves are next to each other and share its EPD.
            match &previous {
                Some((position, last))
                    if *position == key.position && last.same_position(&spelled) =>
                {
                    epds.repeat_last()
                }
                _ => epds.push(|out| spelled.write_epd(out)),
            }
            sans.push(|out| out.push_str(spelled.san()));
            previous = Some((key.position, spelled));
            previous.as_ref().map(|(_, s)| s)
        } else {
            epds.push_null();
            sans.push_null();
            // The next spelled row writes its EPD anew (`repeat_last`
            // repeats the last row's text, and this row has none).
            previous = None;
            None
        };
        // append_to_string, not Display: fmt costs several times more.
        ucis.push(|out| unpack_move(key.mv).append_to_string(out));
        columns.push(key, &stats, spelled);
    }
    let OpeningColumns {
        position_key,
        ply,
        time_class,
        rating_band,
        month,
        next_position_key,
        counts:
            [
                games,
                white_wins,
                draws,
                black_wins,
                unfinished,
                white_elo_sum,
                white_elo_count,
                black_elo_sum,
                black_elo_count,
            ],
        first_year,
        last_year,
        game_id,
        top_game_id,
        top_game_elo_sum,
        first_game_id,
        last_game_id,
    } = columns;
    let columns = vec![
        col(o::POSITION_KEY, position_key),
        col(o::EPD, epds.optional_strs()),
        col(o::PLY, ply),
        col(o::MOVE_SAN, sans.optional_strs()),
        col(o::MOVE_UCI, ucis.strs()),
        col(o::TIME_CLASS, time_class),
        col(o::RATING_BAND, rating_band),
        col(o::MONTH, month),
        col(o::NEXT_POSITION_KEY, next_position_key),
        col(o::GAMES, games),
        col(o::WHITE_WINS, white_wins),
        col(o::DRAWS, draws),
        col(o::BLACK_WINS, black_wins),
        col(o::UNFINISHED, unfinished),
        col(o::WHITE_ELO_SUM, white_elo_sum),
        col(o::WHITE_ELO_COUNT, white_elo_count),
        col(o::BLACK_ELO_SUM, black_elo_sum),
        col(o::BLACK_ELO_COUNT, black_elo_count),
        col(o::FIRST_YEAR, first_year),
        col(o::LAST_YEAR, last_year),
        col(o::GAME_ID, game_id),
        col(o::TOP_GAME_ID, top_game_id),
        col(o::TOP_GAME_ELO_SUM, top_game_elo_sum),
        col(o::FIRST_GAME_ID, first_game_id),
        col(o::LAST_GAME_ID, last_game_id),
    ];
    table_frame(&o::TABLE, entries.len(), columns)
}

/// `time_class`, `rating_band`, `month` of a table's rows.
fn dimension_columns<'a>(
    [time_class, rating_band, month]: [schema::Column; 3],
    dims: impl Iterator<Item = &'a Dimensions> + Clone,
) -> [Column; 3] {
    [
        col(
            time_class,
            dims.clone().map(|d| d.time_class()).collect::<Vec<_>>(),
        ),
        col(
            rating_band,
            dims.clone().map(|d| d.rating_band()).collect::<Vec<_>>(),
        ),
        col(month, dims.map(|d| d.month()).collect::<Vec<_>>()),
    ]
}

/// Why writing the tree failed: reading the spill, or writing the table.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TreeWriteError {
    #[error("spill files: {0}")]
    Spill(#[from] io::Error),
    #[error("{0}")]
    Table(#[from] PolarsError),
}

/// Streams merged entries into `writer`, one row group per chunk. A chunk
/// ends at a position boundary, so that the moves of one position share a
/// row group: the first one after [`ROW_GROUP_ROWS`] rows, wherever the
/// runs of `merged` (each in key order after the one before) end.
/// Chunks are spelled out and encoded in parallel on the current rayon pool
/// (a few at a time, so memory stays bounded) while this thread merges the
/// next ones and places the finished ones in order; it copies the runs'
/// rows into chunks a slice at a time. The placed row groups' bytes are
/// written on the pool too: the kernel's copy of them into the page cache
/// was most of what this thread did alone. Returns the rows written.
pub(crate) fn write_openings(
    merged: impl Iterator<Item = io::Result<Vec<(EdgeKey, Edge)>>>,
    first_moves: &FirstMoves,
    writer: &mut TableWriter,
) -> Result<u64, TreeWriteError> {
    let encoder = writer.encoder();
    let ahead = rayon::current_num_threads() + 1;
    let write_error: Mutex<Option<io::Error>> = Mutex::new(None);
    let written = rayon::in_place_scope(|scope| {
        let mut in_flight: VecDeque<Arc<Deferred<ChunkResult>>> = VecDeque::new();
        let mut rows = 0u64;
        let mut append_oldest = |in_flight: &mut VecDeque<Arc<Deferred<ChunkResult>>>| {
            if let Some(job) = in_flight.pop_front() {
                let groups = job.wait_helping().map_err(|JobPanicked| {
                    PolarsError::ComputeError("tree encoding panicked".into())
                })??;
                for group in groups {
                    rows += group.rows;
                    let pending = writer.place(group)?;
                    let write_error = &write_error;
                    scope.spawn(move |_| {
                        let written = profile::worker_part(Stage::Write, || pending.write());
                        if let Err(error) = written {
                            let mut first =
                                write_error.lock().unwrap_or_else(PoisonError::into_inner);
                            first.get_or_insert(error);
                        }
                    });
                }
            }
            Ok::<(), TreeWriteError>(())
        };
        let mut chunker = Chunker::new(ROW_GROUP_ROWS, |(key, _): &(EdgeKey, Edge)| key.position);
        let mut spawn = |full: Vec<(EdgeKey, Edge)>| {
            let encoder = Arc::clone(&encoder);
            let first_moves = first_moves.clone();
            let job = Deferred::new(Stage::Encode, move || {
                encode_chunk(full, &first_moves, &encoder)
            });
            let runner = Arc::clone(&job);
            scope.spawn(move |_| jobs::run_on_worker(runner.as_ref()));
            in_flight.push_back(job);
            while in_flight.len() > ahead {
                append_oldest(&mut in_flight)?;
            }
            Ok::<(), TreeWriteError>(())
        };
        for run in merged {
            let mut rest = run?.into_iter().peekable();
            while let Some(full) = chunker.fill(&mut rest) {
                spawn(full)?;
            }
        }
        if let Some(last) = chunker.rest() {
            spawn(last)?;
        }
        while !in_flight.is_empty() {
            append_oldest(&mut in_flight)?;
        }
        Ok::<u64, TreeWriteError>(rows)
    })?;
    // The scope has waited for every write.
    match write_error
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        Some(error) => Err(TreeWriteError::Table(error.into())),
        None => Ok(written),
    }
}

/// Cuts runs of rows into row groups: at least `rows` rows, ending where
/// the position (`position_of`) changes.
struct Chunker<T, P> {
    chunk: Vec<T>,
    rows: usize,
    position_of: P,
}

impl<T, P: Fn(&T) -> u64> Chunker<T, P> {
    fn new(rows: usize, position_of: P) -> Self {
        Chunker {
            chunk: Vec::new(),
            rows,
            position_of,
        }
    }

    /// Takes rows from the front of `rest` into the chunk; returns the chunk
    /// when it is full and the next row (still in `rest`) starts another
    /// position.
    fn fill(&mut self, rest: &mut Peekable<impl Iterator<Item = T>>) -> Option<Vec<T>> {
        if self.chunk.capacity() == 0 {
            self.chunk.reserve(self.rows);
        }
        let wanted = self.rows.saturating_sub(self.chunk.len());
        self.chunk.extend(rest.by_ref().take(wanted));
        let last = (self.position_of)(self.chunk.last()?);
        if self.chunk.len() < self.rows {
            return None;
        }
        while let Some(row) = rest.next_if(|row| (self.position_of)(row) == last) {
            self.chunk.push(row);
        }
        // The position goes on in the next run, or the stream ends.
        rest.peek()?;
        Some(std::mem::take(&mut self.chunk))
    }

    /// The last chunk, once the runs have ended.
    fn rest(self) -> Option<Vec<T>> {
        (!self.chunk.is_empty()).then_some(self.chunk)
    }
}

/// Rows in runs of about a row group, for [`write_openings`].
pub(crate) fn in_runs<I>(rows: I) -> impl Iterator<Item = io::Result<Vec<(EdgeKey, Edge)>>>
where
    I: Iterator<Item = io::Result<(EdgeKey, Edge)>>,
{
    let mut rows = rows.peekable();
    std::iter::from_fn(move || {
        rows.peek()?;
        let mut run = Vec::with_capacity(ROW_GROUP_ROWS);
        for row in rows.by_ref() {
            match row {
                Ok(row) => run.push(row),
                Err(error) => return Some(Err(error)),
            }
            if run.len() >= ROW_GROUP_ROWS {
                break;
            }
        }
        Some(Ok(run))
    })
}

/// A chunk of the tree spelled out and encoded.
type ChunkResult = Result<Vec<EncodedRowGroup>, TreeWriteError>;

fn encode_chunk(
    chunk: Vec<(EdgeKey, Edge)>,
    first_moves: &FirstMoves,
    encoder: &RowGroupEncoder,
) -> ChunkResult {
    let frame = openings_frame(&chunk, first_moves)?;
    Ok(encoder.encode(&frame, false)?)
}

/// The `opening_lines` table for a chunk of merged entries (sorted by
/// ECO, name, then dimensions). An id not in the index (never: the ids
/// come from it) is written as an empty name rather than dropped.
pub(crate) fn opening_lines_frame(entries: &[(LineKey, LineStats)]) -> PolarsResult<DataFrame> {
    let index = openings::index();
    let names: Vec<Option<&OpeningName>> =
        entries.iter().map(|(k, _)| index.name(k.name_id)).collect();
    let name =
        |f: fn(&OpeningName) -> &str| names.iter().map(|n| n.map_or("", f)).collect::<Vec<_>>();
    let count = |f: fn(&LineStats) -> u64| entries.iter().map(|(_, l)| f(l)).collect::<Vec<u64>>();
    let ratio =
        |f: fn(&LineStats) -> Option<f64>| entries.iter().map(|(_, l)| f(l)).collect::<Vec<_>>();
    let mut columns = vec![
        col(opening_lines::ECO, name(|n| n.eco)),
        col(opening_lines::OPENING_NAME, name(|n| n.name)),
        col(opening_lines::OPENING_FAMILY, name(OpeningName::family)),
    ];
    columns.extend(dimension_columns(
        [
            opening_lines::TIME_CLASS,
            opening_lines::RATING_BAND,
            opening_lines::MONTH,
        ],
        entries.iter().map(|(k, _)| &k.dims),
    ));
    columns.extend([
        col(opening_lines::GAMES, count(|l| l.results.games)),
        col(opening_lines::WHITE_WINS, count(|l| l.results.white_wins)),
        col(opening_lines::DRAWS, count(|l| l.results.draws)),
        col(opening_lines::BLACK_WINS, count(|l| l.results.black_wins)),
        col(opening_lines::UNFINISHED, count(|l| l.results.unfinished())),
        col(
            opening_lines::WHITE_SCORE,
            ratio(|l| l.results.white_score()),
        ),
        col(opening_lines::DRAW_RATE, ratio(|l| l.results.draw_rate())),
        col(opening_lines::WHITE_ELO_SUM, count(|l| l.elo.white_sum)),
        col(opening_lines::WHITE_ELO_COUNT, count(|l| l.elo.white_count)),
        col(opening_lines::BLACK_ELO_SUM, count(|l| l.elo.black_sum)),
        col(opening_lines::BLACK_ELO_COUNT, count(|l| l.elo.black_count)),
        col(opening_lines::PLIES_SUM, count(|l| l.plies_sum)),
        col(opening_lines::AVG_PLIES, ratio(|l| l.average_plies())),
        col(
            opening_lines::ELO_DIFF_SUM,
            entries
                .iter()
                .map(|(_, l)| l.elo_diff_sum)
                .collect::<Vec<i64>>(),
        ),
        col(opening_lines::ELO_DIFF_COUNT, count(|l| l.elo_diff_count)),
        col(opening_lines::AVG_ELO_DIFF, ratio(|l| l.average_elo_diff())),
    ]);
    table_frame(&opening_lines::TABLE, entries.len(), columns)
}

#[cfg(test)]
mod chunk_tests {
    use super::Chunker;

    /// The rule row by row: a chunk ends after a row when it holds at
    /// least `rows` rows and the next row starts another position.
    fn row_by_row(all: &[(u64, u32)], rows: usize) -> Vec<Vec<(u64, u32)>> {
        let mut out = Vec::new();
        let mut chunk = Vec::new();
        for (i, row) in all.iter().enumerate() {
            chunk.push(*row);
            let boundary = all.get(i + 1).is_none_or(|next| next.0 != row.0);
            if all.get(i + 1).is_none() || chunk.len() >= rows && boundary {
                out.push(std::mem::take(&mut chunk));
            }
        }
        out
    }

    #[test]
    fn chunks_do_not_depend_on_where_the_runs_end() {
        let mut state = 0x9E37_79B9u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for round in 0..200 {
            let len = next(60) as usize;
            let mut position = 0;
            let all: Vec<(u64, u32)> = (0..len)
                .map(|i| {
                    position += next(2) + u64::from(round % 3 == 0);
                    (position, i as u32)
                })
                .collect();
            let rows = 1 + next(8) as usize;
            let mut chunker = Chunker::new(rows, |row: &(u64, u32)| row.0);
            let mut chunks = Vec::new();
            let mut rest = all.as_slice();
            while !rest.is_empty() {
                let (run, after) = rest.split_at((1 + next(10) as usize).min(rest.len()));
                rest = after;
                let mut run = run.iter().copied().peekable();
                while let Some(full) = chunker.fill(&mut run) {
                    chunks.push(full);
                }
                assert!(run.peek().is_none());
            }
            chunks.extend(chunker.rest());
            assert_eq!(chunks, row_by_row(&all, rows), "round {round}");
        }
    }
}
