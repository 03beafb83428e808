//! Reading, by key: the rows of one value of a sorted key column (a
//! position's `position_key` in `openings`, a game's `game_id` in
//! `games`), read from the row groups whose statistics can hold it, with
//! each file's footer parsed once and kept. What makes an explorer answer
//! in milliseconds on a tree of millions of rows: a footer can be tens of
//! megabytes, and a position's rows are a few of one row group's 32,768.
//!
//! A file is known by its path and its identity on disk (size, change
//! time, inode): a lake's commit or compaction puts new files in place,
//! and the next read opens them, so a long-running reader (`pgnlake
//! serve`) never reads a stale footer against new bytes.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use polars::prelude::*;
use polars_parquet::parquet::statistics::Statistics;
use polars_parquet::read::read_metadata;

/// A file's identity on disk: replaced or rewritten, it is another file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Identity {
    len: u64,
    ctime_ns: i128,
    inode: u64,
}

impl Identity {
    fn of(meta: &std::fs::Metadata) -> Identity {
        Identity {
            len: meta.len(),
            ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
            inode: meta.ino(),
        }
    }
}

/// One row group: its first row and rows, and the key's least and
/// greatest value there (None: no statistics, so it is always read).
#[derive(Debug, Clone, Copy)]
struct Group {
    start: usize,
    rows: usize,
    range: Option<(i64, i64)>,
    /// The key is the file's unique one (`game_id`): a group whose range
    /// spans as many values as rows holds each once, in order.
    unique: bool,
}

impl Group {
    /// The only row that can hold `value` when the group's keys are
    /// consecutive (as many distinct values as rows, sorted: a games
    /// file's ids between rejected games).
    fn dense_row(&self, value: i64) -> Option<usize> {
        let (min, max) = self.range?;
        let span = max.checked_sub(min)?.checked_add(1)?;
        if usize::try_from(span).ok()? != self.rows || !self.unique {
            return None;
        }
        usize::try_from(value.checked_sub(min)?).ok()
    }
}

/// A table file with its footer read.
#[derive(Debug)]
pub(crate) struct KeyedFile {
    path: PathBuf,
    identity: Identity,
    key: String,
    metadata: Arc<polars_parquet::parquet::metadata::FileMetadata>,
    groups: Vec<Group>,
}

/// What went wrong reading a file, with its path.
#[derive(Debug)]
pub(crate) struct KeyedError {
    pub path: PathBuf,
    pub message: String,
}

impl KeyedError {
    fn of(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> KeyedError + '_ {
        move |e| KeyedError {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }
}

impl From<KeyedError> for crate::error::ExploreError {
    fn from(e: KeyedError) -> Self {
        crate::error::ExploreError::Table {
            path: e.path,
            message: e.message,
        }
    }
}

impl KeyedFile {
    /// Reads the footer of `path`, whose rows are sorted by `key` (an
    /// Int64 column).
    fn open(path: &Path, key: &str, unique: bool) -> Result<KeyedFile, KeyedError> {
        let error = KeyedError::of(path);
        let mut file = File::open(path).map_err(|e| error(&e))?;
        let identity = Identity::of(&file.metadata().map_err(|e| error(&e))?);
        let metadata = read_metadata(&mut file).map_err(|e| error(&e))?;
        let mut groups = Vec::with_capacity(metadata.row_groups.len());
        let mut start = 0;
        for group in &metadata.row_groups {
            let chunk = group
                .parquet_columns()
                .iter()
                .find(|c| c.descriptor().path_in_schema.first().map(|s| s.as_str()) == Some(key))
                .ok_or_else(|| error(&format!("no column {key:?}")))?;
            let range = match chunk.statistics(&metadata.footer_buf) {
                Some(Ok(Statistics::Int64(s))) => s.min_value.zip(s.max_value),
                _ => None,
            };
            groups.push(Group {
                start,
                rows: group.num_rows(),
                range,
                unique,
            });
            start += group.num_rows();
        }
        Ok(KeyedFile {
            path: path.to_path_buf(),
            identity,
            key: key.to_owned(),
            metadata: Arc::new(metadata),
            groups,
        })
    }

    /// The rows whose key is `value`, with `columns` (all without), in
    /// the file's order.
    pub(crate) fn rows_of(
        &self,
        value: i64,
        columns: Option<&[&str]>,
    ) -> Result<DataFrame, KeyedError> {
        let error = KeyedError::of(&self.path);
        let mut parts: Vec<DataFrame> = Vec::new();
        for group in &self.groups {
            if group
                .range
                .is_some_and(|(min, max)| value < min || value > max)
            {
                continue;
            }
            if let Some(row) = group.dense_row(value) {
                // One row can hold the value (a group of consecutive game
                // ids): read it alone, and check its key.
                let mut wanted: Vec<&str> = columns.map(<[&str]>::to_vec).unwrap_or_default();
                if columns.is_some() && !wanted.contains(&self.key.as_str()) {
                    wanted.push(&self.key);
                }
                let one = self.read(group.start + row, 1, columns.map(|_| wanted.as_slice()))?;
                let keys = one
                    .column(&self.key)
                    .and_then(|c| c.i64().cloned())
                    .map_err(|e| error(&e))?;
                if keys.get(0) == Some(value) {
                    parts.push(one);
                }
                continue;
            }
            // The key alone first (cheap), then the other columns of the
            // rows that hold the value, and only those.
            let keys = self.read(group.start, group.rows, Some(&[self.key.as_str()]))?;
            let keys = keys
                .column(&self.key)
                .and_then(|c| c.i64().cloned())
                .map_err(|e| error(&e))?;
            let hits: Vec<usize> = keys
                .iter()
                .enumerate()
                .filter_map(|(i, k)| (k == Some(value)).then_some(i))
                .collect();
            let (Some(&first), Some(&last)) = (hits.first(), hits.last()) else {
                continue;
            };
            let part = self.read(group.start + first, last - first + 1, columns)?;
            // Sorted rows hold a value in one run; kept exact all the same.
            let mask: BooleanChunked = keys
                .slice(first as i64, last - first + 1)
                .iter()
                .map(|k| Some(k == Some(value)))
                .collect();
            parts.push(part.filter(&mask).map_err(|e| error(&e))?);
        }
        match parts.len() {
            0 => self.read(0, 0, columns),
            _ => {
                let mut all = parts.remove(0);
                for part in &parts {
                    all.vstack_mut(part).map_err(|e| error(&e))?;
                }
                Ok(all)
            }
        }
    }

    /// Its row groups.
    pub(crate) fn groups(&self) -> usize {
        self.groups.len()
    }

    /// Row group `index` (none past the last), with `columns`.
    pub(crate) fn group(
        &self,
        index: usize,
        columns: Option<&[&str]>,
    ) -> Result<DataFrame, KeyedError> {
        match self.groups.get(index) {
            Some(group) => self.read(group.start, group.rows, columns),
            None => self.read(0, 0, columns),
        }
    }

    /// Rows `start..start + rows` of `columns`.
    fn read(
        &self,
        start: usize,
        rows: usize,
        columns: Option<&[&str]>,
    ) -> Result<DataFrame, KeyedError> {
        let error = KeyedError::of(&self.path);
        let file = File::open(&self.path).map_err(|e| error(&e))?;
        let mut reader = ParquetReader::new(file);
        reader.set_metadata(self.metadata.clone());
        reader
            .with_slice(Some((start, rows)))
            .with_columns(columns.map(|names| names.iter().map(|c| c.to_string()).collect()))
            // By row group: polars' other strategies decode every row
            // group before the slice's (to an empty frame), which made a
            // read of the last row group read the whole file.
            .read_parallel(ParallelStrategy::RowGroups)
            .finish()
            .map_err(|e| error(&e))
    }
}

/// Files opened by key, their footers kept while they stay the same
/// file; at most [`OPEN_FILES`] are kept.
#[derive(Debug, Default)]
pub(crate) struct KeyedFiles {
    files: Mutex<HashMap<(PathBuf, String), Arc<KeyedFile>>>,
    /// Rows read before, by file (as it was on disk), key value and
    /// columns: an explorer's users ask for the same positions and games
    /// again and again (the start, 1.e4, the top games of both).
    answers: Mutex<Answers>,
}

/// Rows kept, at most [`ANSWER_BYTES`] of them.
#[derive(Debug, Default)]
struct Answers {
    rows: HashMap<AnswerKey, DataFrame>,
    bytes: usize,
}

/// A file as it was on disk, a key value, the columns read.
type AnswerKey = (PathBuf, Identity, i64, Option<Vec<String>>);

/// Bytes of rows kept at most; past it, all are let go at once (a bound,
/// not an LRU: what is asked often is soon read again).
const ANSWER_BYTES: usize = 32 << 20;

/// `rows` in memory of their own: a frame polars reads from a file holds
/// the file's memory map, which a kept frame would keep whole.
fn owned(rows: &DataFrame) -> PolarsResult<DataFrame> {
    let columns = rows
        .columns()
        .iter()
        .map(|column| {
            let name = column.name().clone();
            let copied = match column.dtype() {
                DataType::String => {
                    let texts = column.str()?;
                    Column::new(name, texts.iter().collect::<Vec<Option<&str>>>())
                }
                DataType::Boolean => Column::new(name, column.bool()?.iter().collect::<Vec<_>>()),
                // The tables' other types: integers and dates (days).
                dtype if dtype.is_integer() || *dtype == DataType::Date => {
                    let ints = column.cast(&DataType::Int64)?;
                    let values: Vec<Option<i64>> = ints.i64()?.iter().collect();
                    Column::new(name, values).cast(dtype)?
                }
                dtype => {
                    polars_bail!(ComputeError: "column {name:?} of type {dtype} cannot be kept")
                }
            };
            Ok(copied)
        })
        .collect::<PolarsResult<Vec<Column>>>()?;
    DataFrame::new(rows.height(), columns)
}

/// Footers kept at most: a lake of many uncompacted imports is read a
/// file per import, and their footers would otherwise stay forever.
const OPEN_FILES: usize = 512;

impl KeyedFiles {
    /// `path` sorted by `key`, its footer read now or kept from before;
    /// `unique`: no two rows have the same key (a games file's ids).
    pub(crate) fn open(
        &self,
        path: &Path,
        key: &str,
        unique: bool,
    ) -> Result<Arc<KeyedFile>, KeyedError> {
        let error = KeyedError::of(path);
        let identity = Identity::of(&std::fs::metadata(path).map_err(|e| error(&e))?);
        let name = (path.to_path_buf(), key.to_owned());
        if let Some(file) = self.lock().get(&name)
            && file.identity == identity
        {
            return Ok(file.clone());
        }
        let file = Arc::new(KeyedFile::open(path, key, unique)?);
        let mut files = self.lock();
        if files.len() >= OPEN_FILES {
            files.clear();
        }
        files.insert(name, file.clone());
        Ok(file)
    }

    /// The rows of `path` (sorted by `key`, unique or not) whose key is
    /// `value`, with `columns`: kept from an earlier read of the same file
    /// as it still is, or read now.
    pub(crate) fn rows_of(
        &self,
        path: &Path,
        key: &str,
        unique: bool,
        value: i64,
        columns: Option<&[&str]>,
    ) -> Result<DataFrame, KeyedError> {
        let file = self.open(path, key, unique)?;
        let wanted = columns.map(|names| names.iter().map(|c| c.to_string()).collect());
        let name: AnswerKey = (path.to_path_buf(), file.identity, value, wanted);
        if let Some(rows) = self.answers().rows.get(&name) {
            return Ok(rows.clone());
        }
        let rows = owned(&file.rows_of(value, columns)?).map_err(|e| KeyedError::of(path)(&e))?;
        let size = rows.estimated_size();
        let mut answers = self.answers();
        if answers.bytes + size > ANSWER_BYTES {
            answers.rows.clear();
            answers.bytes = 0;
        }
        if size <= ANSWER_BYTES / 16 {
            answers.bytes += size;
            answers.rows.insert(name, rows.clone());
        }
        Ok(rows)
    }

    fn answers(&self) -> std::sync::MutexGuard<'_, Answers> {
        // A reader that panicked left the map whole: it only inserts.
        self.answers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(PathBuf, String), Arc<KeyedFile>>> {
        // A reader that panicked left the map whole: it only inserts.
        self.files
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of `column` of rows read.
    fn texts(rows: Result<DataFrame, KeyedError>, column: &str) -> Vec<String> {
        let rows = rows.unwrap_or_else(|e| panic!("{}", e.message));
        let column = rows.column(column).unwrap_or_else(|e| panic!("{e}"));
        let texts = column.str().unwrap_or_else(|e| panic!("{e}"));
        texts.iter().map(|t| t.unwrap_or("").to_owned()).collect()
    }

    /// `frame` written to `path` in row groups of `rows` (a batched
    /// writer makes each batch a row group).
    fn write_groups(path: &Path, frame: &mut DataFrame, rows: usize) {
        let file = File::create(path).unwrap_or_else(|e| panic!("{e}"));
        let mut writer = ParquetWriter::new(file)
            .batched(frame.schema())
            .unwrap_or_else(|e| panic!("{e}"));
        let mut start = 0;
        while start < frame.height() {
            let batch = frame.slice(start as i64, rows);
            writer.write_batch(&batch).unwrap_or_else(|e| panic!("{e}"));
            start += rows;
        }
        writer.finish().unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn the_rows_of_a_key_come_from_the_row_groups_that_can_hold_it() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("t.parquet");
        let mut frame = df!(
            "key" => [1i64, 1, 2, 3, 3, 3, 7, 9],
            "value" => ["a", "b", "c", "d", "e", "f", "g", "h"],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        write_groups(&path, &mut frame, 3);
        let files = KeyedFiles::default();
        let keyed = files
            .open(&path, "key", false)
            .unwrap_or_else(|e| panic!("{}", e.message));
        assert_eq!(keyed.groups.len(), 3);
        let values = |key| texts(keyed.rows_of(key, Some(&["value"])), "value");
        // Key 3 spans two row groups.
        assert_eq!(values(3), ["d", "e", "f"]);
        assert_eq!(values(1), ["a", "b"]);
        assert!(values(4).is_empty());
        assert!(values(10).is_empty());
        // The same file again is the footer kept; a rewritten one is read anew.
        let again = files
            .open(&path, "key", false)
            .unwrap_or_else(|e| panic!("{}", e.message));
        assert!(Arc::ptr_eq(&keyed, &again));
    }

    #[test]
    fn rows_read_are_kept_until_their_file_changes() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("t.parquet");
        let mut frame = df!("key" => [1i64, 3, 3], "value" => ["a", "d", "e"])
            .unwrap_or_else(|e| panic!("{e}"));
        write_groups(&path, &mut frame, 3);
        let files = KeyedFiles::default();
        let kept = |files: &KeyedFiles| {
            texts(
                files.rows_of(&path, "key", false, 3, Some(&["value"])),
                "value",
            )
        };
        assert_eq!(kept(&files), ["d", "e"]);
        assert_eq!(kept(&files), ["d", "e"]);
        assert_eq!(files.answers().rows.len(), 1);
        let mut other = df!("key" => [3i64], "value" => ["z"]).unwrap_or_else(|e| panic!("{e}"));
        std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{e}"));
        write_groups(&path, &mut other, 3);
        assert_eq!(kept(&files), ["z"], "a file written anew is read anew");
    }

    #[test]
    fn a_group_of_consecutive_unique_keys_is_read_one_row() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("games.parquet");
        let mut frame = df!(
            "game_id" => [1i64, 2, 3, 10, 11, 13, 20],
            "white" => ["a", "b", "c", "d", "e", "f", "g"],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        write_groups(&path, &mut frame, 3);
        let files = KeyedFiles::default();
        let keyed = files
            .open(&path, "game_id", true)
            .unwrap_or_else(|e| panic!("{}", e.message));
        let dense: Vec<Option<usize>> = keyed.groups.iter().map(|g| g.dense_row(2)).collect();
        assert_eq!(dense, [Some(1), None, None]);
        let white = |id| texts(keyed.rows_of(id, Some(&["white"])), "white");
        assert_eq!(white(2), ["b"]);
        assert_eq!(white(13), ["f"]);
        assert_eq!(white(20), ["g"]);
        assert!(white(12).is_empty());
        assert!(white(4).is_empty());
    }
}
