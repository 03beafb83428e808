//! Reading, by key: the rows of one value of a sorted key column (a
//! position's `position_key` in `openings`, a game's `game_id` in
//! `games`), read from the pages that can hold it, with each file's
//! footer parsed once and kept. What makes an explorer answer in
//! milliseconds on a tree of millions of rows: a footer can be tens of
//! megabytes, and a position's rows are a few of one row group's 32,768.
//!
//! Within a row group, the Parquet page index says where each page of a
//! column starts, which rows it holds (the offset index) and, for the
//! key, its least and greatest value (the column index): a read fetches
//! only the pages of its rows (and the column's dictionary), with
//! positioned reads, and decodes them through polars' page decoders. The
//! tables read by key are written in small pages for this
//! (`sink::parquet::page_bytes`); a file without a page index (another
//! writer's) is read a whole column chunk at a time.
//!
//! A file is known by its path and its identity on disk (size, change
//! time, inode): a lake's commit or compaction puts new files in place,
//! and the next read opens them, so a long-running reader (`pgnlake
//! serve`) never reads a stale footer against new bytes.

mod file;
mod pages;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use polars::prelude::*;
use quick_cache::sync::{Cache, DefaultLifecycle};
use quick_cache::{DefaultHashBuilder, OptionsBuilder, Weighter};

use file::Identity;
pub(crate) use file::{KeyedError, KeyedFile};

/// Files opened by key, their footers kept while they stay the same
/// file (at most [`OPEN_FILES`], the least used let go first), and the
/// rows read before.
#[derive(Debug)]
pub(crate) struct KeyedFiles {
    files: Cache<(PathBuf, String), Arc<KeyedFile>>,
    /// Rows read before, by file (as it was on disk), key value and
    /// columns: an explorer's users ask for the same positions and games
    /// again and again (the start, 1.e4, the top games of both). Bounded
    /// by their bytes; past it, the rows asked least are let go (S3-FIFO).
    answers: Cache<AnswerKey, Kept, ByBytes>,
}

/// A file as it was on disk, a key value, the columns read.
type AnswerKey = (PathBuf, Identity, i64, Option<Vec<String>>);

/// Rows kept, with their size.
#[derive(Debug, Clone)]
struct Kept {
    rows: DataFrame,
    bytes: u64,
}

/// Kept rows weigh their bytes (at least one: a weight of 0 is never
/// let go).
#[derive(Debug, Clone, Copy)]
struct ByBytes;

impl Weighter<AnswerKey, Kept> for ByBytes {
    fn weight(&self, _key: &AnswerKey, kept: &Kept) -> u64 {
        kept.bytes.max(1)
    }
}

/// Bytes of rows kept at most.
const ANSWER_BYTES: u64 = 32 << 20;

/// The cache's shards: each holds an eighth of [`ANSWER_BYTES`], and rows
/// of at most half a shard are kept (a position of thousands of rows is
/// read again rather than let the cache go for it).
const ANSWER_SHARDS: usize = 8;

/// Footers kept at most: a lake of many uncompacted imports is read a
/// file per import, and their footers would otherwise stay forever.
const OPEN_FILES: usize = 512;

impl Default for KeyedFiles {
    fn default() -> KeyedFiles {
        KeyedFiles::keeping(ANSWER_BYTES)
    }
}

/// `rows` in memory of their own: a frame read from a file holds the
/// buffers its pages were decoded from, which a kept frame would keep.
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

impl KeyedFiles {
    /// Keeping at most `bytes` of rows read.
    fn keeping(bytes: u64) -> KeyedFiles {
        let answers = OptionsBuilder::new()
            .shards(ANSWER_SHARDS)
            // Rows of a few kilobytes each, as most positions' are.
            .estimated_items_capacity((bytes >> 12).max(64) as usize)
            .weight_capacity(bytes)
            .build()
            .map(|options| {
                Cache::with_options(
                    options,
                    ByBytes,
                    DefaultHashBuilder::default(),
                    DefaultLifecycle::default(),
                )
            })
            .unwrap_or_else(|_| Cache::with_weighter(1 << 13, bytes, ByBytes));
        KeyedFiles {
            files: Cache::new(OPEN_FILES),
            answers,
        }
    }

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
        if let Some(file) = self.files.get(&name)
            && file.identity == identity
        {
            return Ok(file);
        }
        let file = Arc::new(KeyedFile::open(path, key, unique)?);
        self.files.insert(name, file.clone());
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
        if let Some(kept) = self.answers.get(&name) {
            return Ok(kept.rows);
        }
        let rows = owned(&file.rows_of(value, columns)?).map_err(|e| KeyedError::of(path)(&e))?;
        let bytes = rows.estimated_size() as u64 + name.0.as_os_str().len() as u64;
        if bytes <= self.answers.capacity() / ANSWER_SHARDS as u64 / 2 {
            self.answers.insert(
                name,
                Kept {
                    rows: rows.clone(),
                    bytes,
                },
            );
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use std::fs::File;

    use polars_parquet::read::read_metadata;

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
    /// `frame` written in row groups of 3 rows and opened by `key`.
    fn opened(
        mut frame: DataFrame,
        key: &str,
        unique: bool,
    ) -> (tempfile::TempDir, Arc<KeyedFile>) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("t.parquet");
        write_groups(&path, &mut frame, 3);
        let keyed = KeyedFiles::default()
            .open(&path, key, unique)
            .unwrap_or_else(|e| panic!("{}", e.message));
        (dir, keyed)
    }

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
        let mut frame = df!(
            "key" => [1i64, 1, 2, 3, 3, 3, 7, 9],
            "value" => ["a", "b", "c", "d", "e", "f", "g", "h"],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("t.parquet");
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
        assert_eq!(files.answers.len(), 1);
        let mut other = df!("key" => [3i64], "value" => ["z"]).unwrap_or_else(|e| panic!("{e}"));
        std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{e}"));
        write_groups(&path, &mut other, 3);
        assert_eq!(kept(&files), ["z"], "a file written anew is read anew");
    }

    #[test]
    fn kept_rows_past_the_bound_are_let_go_not_all_at_once() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("t.parquet");
        let keys: Vec<i64> = (0..400).collect();
        let texts: Vec<String> = keys.iter().map(|k| format!("{k:0>1000}")).collect();
        let mut frame = df!("key" => keys, "value" => texts).unwrap_or_else(|e| panic!("{e}"));
        write_groups(&path, &mut frame, 100);
        let bound = 128 << 10;
        let files = KeyedFiles::keeping(bound);
        for key in 0..400 {
            let rows = files
                .rows_of(&path, "key", false, key, Some(&["value"]))
                .unwrap_or_else(|e| panic!("{}", e.message));
            assert_eq!(rows.height(), 1);
        }
        // About 1 KB a row: three times the bound, yet most of it kept.
        let kept = files.answers.weight();
        assert!(kept <= bound && kept > bound / 2, "{kept}");
        assert!(files.answers.len() > 50, "{}", files.answers.len());
    }

    /// `frame` written as the tables are (`sink::encode`), in row groups
    /// of `rows` rows and data pages of about `page_bytes` bytes, `key`
    /// delta-encoded; the file's footer read back.
    fn write_pages(path: &Path, frame: &DataFrame, rows: usize, page_bytes: usize) -> FileMetadata {
        use crate::sink::schema::ValueEncoding;
        let encoder = crate::sink::encode::RowGroupEncoder::new(
            frame.schema(),
            ParquetCompression::Zstd(None),
            &[("key", ValueEncoding::Delta)],
            Some(page_bytes),
            &[],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut file = encoder.create_file(path).unwrap_or_else(|e| panic!("{e}"));
        let mut start = 0;
        while start < frame.height() {
            let batch = frame.slice(start as i64, rows);
            for group in encoder
                .encode(&batch, false)
                .unwrap_or_else(|e| panic!("{e}"))
            {
                file.write_row_group(group)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
            start += rows;
        }
        file.finish().unwrap_or_else(|e| panic!("{e}"));
        let mut file = File::open(path).unwrap_or_else(|e| panic!("{e}"));
        read_metadata(&mut file).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Rows of every kind of column the tables have: sorted keys with runs,
    /// texts of few values (a dictionary) and of many, integers with
    /// nulls, booleans, dates and a list.
    fn many_pages(rows: usize) -> DataFrame {
        let keys: Vec<i64> = (0..rows as i64).map(|i| i / 3 + (i / 100) * 7).collect();
        DataFrame::new(
            rows,
            vec![
                Column::new("key".into(), keys),
                Column::new(
                    "speed".into(),
                    (0..rows)
                        .map(|i| ["bullet", "blitz", "rapid"][i % 3])
                        .collect::<Vec<_>>(),
                ),
                Column::new(
                    "name".into(),
                    (0..rows)
                        .map(|i| (i % 5 != 0).then(|| format!("player {}", i * 7919 % 1000)))
                        .collect::<Vec<_>>(),
                ),
                Column::new(
                    "elo".into(),
                    (0..rows)
                        .map(|i| (i % 4 != 0).then_some(i as i32 % 3000))
                        .collect::<Vec<_>>(),
                ),
                Column::new(
                    "rated".into(),
                    (0..rows).map(|i| i % 7 < 3).collect::<Vec<_>>(),
                ),
                Column::new(
                    "day".into(),
                    (0..rows).map(|i| i as i32 % 20_000).collect::<Vec<_>>(),
                )
                .cast(&DataType::Date)
                .unwrap_or_else(|e| panic!("{e}")),
                Column::new(
                    "list".into(),
                    (0..rows)
                        .map(|i| Series::new("".into(), vec![i as i32; i % 3]))
                        .collect::<Vec<_>>(),
                ),
            ],
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_rows_of_a_key_are_read_from_its_pages_alone_as_from_the_whole_file() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("pages.parquet");
        let frame = many_pages(6_000);
        let metadata = write_pages(&path, &frame, 2_048, 1_024);
        // Small pages: every column chunk of the first group has several,
        // each in the offset index.
        let group = &metadata.row_groups[0];
        for chunk in group.parquet_columns() {
            assert!(chunk.offset_index_offset().is_some());
        }
        let files = KeyedFiles::default();
        let keyed = files
            .open(&path, "key", false)
            .unwrap_or_else(|e| panic!("{}", e.message));
        let pages = keyed
            .key_pages(&keyed.file().unwrap_or_else(|e| panic!("{}", e.message)), 0)
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("no page index"));
        assert!(pages.len() > 4, "{} pages", pages.len());
        // Every key, at page and row group boundaries too: the rows a
        // filter of the whole frame gives.
        let all = frame.column("key").and_then(|c| c.i64().cloned());
        let all = all.unwrap_or_else(|e| panic!("{e}"));
        let last = all.get(frame.height() - 1).unwrap_or_default();
        for key in (-1..=last + 1).step_by(5) {
            let mask = all.equal(key);
            let expected = frame.filter(&mask).unwrap_or_else(|e| panic!("{e}"));
            let read = keyed
                .rows_of(key, None)
                .unwrap_or_else(|e| panic!("{}", e.message));
            assert!(
                read.equals_missing(&expected),
                "key {key}: {read} {expected}"
            );
        }
        // Some columns, and a whole row group, as the player's stream reads.
        let read = keyed
            .rows_of(700, Some(&["name", "day"]))
            .unwrap_or_else(|e| panic!("{}", e.message));
        assert_eq!(read.get_column_names(), ["name", "day"]);
        let group = keyed
            .group(1, Some(&["speed", "list"]))
            .unwrap_or_else(|e| panic!("{}", e.message));
        let expected = frame
            .slice(2_048, 2_048)
            .select(["speed", "list"])
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(group.equals_missing(&expected));
    }

    #[test]
    fn a_damaged_page_index_is_an_error_naming_the_file_and_column() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("pages.parquet");
        let frame = many_pages(5_000);
        let metadata = write_pages(&path, &frame, 5_000, 2_048);
        let chunk = &metadata.row_groups[0].parquet_columns()[2];
        let at = chunk
            .offset_index_offset()
            .unwrap_or_else(|| panic!("no index"));
        let length = chunk.offset_index_length().unwrap_or_default();
        let mut bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"));
        for byte in &mut bytes[at as usize..(at + i64::from(length)) as usize] {
            *byte = 0xff;
        }
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
        let files = KeyedFiles::default();
        let error = files
            .rows_of(&path, "key", false, 10, Some(&["name"]))
            .err()
            .unwrap_or_else(|| panic!("read"));
        assert_eq!(error.path, path);
        assert!(
            error.message.contains("\"name\"") && error.message.contains("offset index"),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_group_of_consecutive_unique_keys_is_read_one_row() {
        let frame = df!(
            "game_id" => [1i64, 2, 3, 10, 11, 13, 20],
            "white" => ["a", "b", "c", "d", "e", "f", "g"],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (_dir, keyed) = opened(frame, "game_id", true);
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
