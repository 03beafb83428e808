//! The import, merge, rows: the shards' tables read a row group at a time
//! (a merge holds a row group or two of each shard's table, never a whole
//! table), with typed access to a chunk's columns for the sums; and the
//! per-game tables (games, rejects, moves) copied in shard order with
//! `game_id` rebased, so the merged ids run on as a single import's do.

use std::fs::File;
use std::path::{Path, PathBuf};

use polars::prelude::*;

use crate::error::Error;
use crate::sink::parquet::TableWriter;
use crate::sink::schema::{self, Column};
use crate::stats::counts::Counts;
use crate::stats::first_moves::{FirstMoves, in_tree};

/// A table's rows a row group at a time, in file order: a merge holds a
/// row group or two (up to 32,768 rows each) of each shard's table at once.
struct Chunks {
    path: PathBuf,
    slices: std::vec::IntoIter<(usize, usize)>,
}

impl Chunks {
    fn open(path: &Path) -> Result<Chunks, Error> {
        Ok(Chunks {
            path: path.to_path_buf(),
            slices: row_groups(path)?.into_iter(),
        })
    }

    fn next_chunk(&mut self) -> Result<Option<DataFrame>, Error> {
        match self.slices.next() {
            Some(slice) => read_slice(&self.path, slice).map(Some),
            None => Ok(None),
        }
    }
}

/// (first row, rows) of each row group of a table with rows.
pub(super) fn row_groups(path: &Path) -> Result<Vec<(usize, usize)>, Error> {
    let file = File::open(path).map_err(|e| read_error(path, e))?;
    let mut reader = ParquetReader::new(file);
    let metadata = reader.get_metadata().map_err(|e| read_error(path, e))?;
    let mut first = 0;
    let mut slices = Vec::with_capacity(metadata.row_groups.len());
    for rows in metadata.row_groups.iter().map(|g| g.num_rows()) {
        if rows > 0 {
            slices.push((first, rows));
        }
        first += rows;
    }
    Ok(slices)
}

pub(super) fn read_slice(path: &Path, (first, rows): (usize, usize)) -> Result<DataFrame, Error> {
    let file = File::open(path).map_err(|e| read_error(path, e))?;
    ParquetReader::new(file)
        .with_slice(Some((first, rows)))
        .finish()
        .map_err(|e| read_error(path, e))
}

fn read_error(path: &Path, error: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}: cannot read: {error}", path.display()))
}

/// Copies a shard's games or rejects, `shift` added to `game_id`.
pub(super) fn copy_rebased(path: &Path, shift: i64, writer: &mut TableWriter) -> Result<(), Error> {
    let mut chunks = Chunks::open(path)?;
    let out = writer.path().to_path_buf();
    while let Some(mut frame) = chunks.next_chunk()? {
        let ids = frame
            .column(schema::games::GAME_ID.name)
            .and_then(|c| c.i64().cloned())
            .map_err(|e| read_error(path, e))?;
        let rebased = (ids + shift).into_series().into_column();
        frame
            .replace(schema::games::GAME_ID.name, rebased)
            .map_err(|e| read_error(path, e))?;
        writer.write(&frame).map_err(Error::write(&out))?;
    }
    Ok(())
}

/// Typed access to a chunk's columns, with the table's path for errors
/// (read as every reader of a table reads them: [`crate::sink::columns`]).
pub(super) struct Columns<'a> {
    pub(super) frame: &'a DataFrame,
    pub(super) path: &'a Path,
}

impl Columns<'_> {
    fn read(&self) -> crate::sink::columns::Columns<'_> {
        crate::sink::columns::Columns::new(self.frame, self.path)
    }

    pub(super) fn int(&self, column: Column) -> Result<Vec<Option<i64>>, Error> {
        self.read().ints(column.name).map_err(column_error)
    }

    /// A column that is never null (a sum that may be negative).
    pub(super) fn required_int(&self, column: Column) -> Result<Vec<i64>, Error> {
        self.read().required_ints(column.name).map_err(column_error)
    }

    /// A count column: a null or negative count is an error naming the
    /// shard's file and the column.
    pub(super) fn counts(&self, column: Column) -> Result<Vec<u64>, Error> {
        self.read().counts(column.name).map_err(column_error)
    }

    /// A chunk's result counts by row ([`crate::sink::columns`]).
    pub(super) fn result_counts(&self) -> Result<impl Fn(usize) -> Counts + use<>, Error> {
        self.read().result_counts().map_err(column_error)
    }

    pub(super) fn text(&self, column: Column) -> Result<Vec<Option<String>>, Error> {
        self.read().texts(column.name).map_err(column_error)
    }

    /// A text column that is never null.
    pub(super) fn required_text(&self, column: Column) -> Result<Vec<String>, Error> {
        self.read()
            .required_texts(column.name)
            .map_err(column_error)
    }

    pub(super) fn bad_row(&self, what: &str) -> Error {
        Error::Usage(format!("{}: {what}", self.path.display()))
    }
}

/// A column that could not be read, as a merge reports a shard's file.
fn column_error(e: crate::sink::columns::ColumnError) -> Error {
    read_error(&e.path, e.message)
}

/// Keeps the first moves of the tree's games of a table of games in
/// `store`, each under its `game_id` plus `shift`: the start of
/// `moves_uci` (the store keeps the window's), for the games the tree
/// counts (a standard start of standard chess).
pub(crate) fn load_first_moves(path: &Path, shift: u64, store: &FirstMoves) -> Result<(), Error> {
    for_each_chunk(path, |columns, rows| {
        let ids = columns.required_int(schema::games::GAME_ID)?;
        let moves = columns.required_text(schema::games::MOVES_UCI)?;
        let variants = columns.required_text(schema::games::VARIANT_NAME)?;
        let fens = columns.text(schema::games::START_FEN)?;
        for (row, &id) in ids.iter().enumerate().take(rows) {
            let tree_game = variants
                .get(row)
                .is_some_and(|v| in_tree(v, text_at(&fens, row)));
            let Some(text) = moves.get(row).filter(|_| tree_game) else {
                continue;
            };
            let id = u64::try_from(id)
                .ok()
                .and_then(|id| id.checked_add(shift))
                .ok_or_else(|| columns.bad_row("a negative game_id"))?;
            store
                .put_text(id, text)
                .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
        }
        Ok(())
    })
}

pub(super) fn small(values: &[Option<i64>], row: usize) -> Option<i32> {
    values
        .get(row)
        .copied()
        .flatten()
        .and_then(|n| i32::try_from(n).ok())
}

pub(super) fn text_at(values: &[Option<String>], row: usize) -> Option<&str> {
    values.get(row).and_then(|v| v.as_deref())
}

pub(super) fn for_each_chunk(
    path: &Path,
    mut each: impl FnMut(&Columns<'_>, usize) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut chunks = Chunks::open(path)?;
    while let Some(frame) = chunks.next_chunk()? {
        each(
            &Columns {
                frame: &frame,
                path,
            },
            frame.height(),
        )?;
    }
    Ok(())
}
