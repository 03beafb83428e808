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

use std::fs::File;
use std::io::Cursor;
use std::ops::Range;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use polars::prelude::*;
use polars_arrow::datatypes::{ArrowSchema, Field as ArrowField};
use polars_parquet::parquet::compression::Compression;
use polars_parquet::parquet::metadata::{ColumnChunkMetadata, FileMetadata};
use polars_parquet::parquet::read::{PageMetaData, PageReader};
use polars_parquet::parquet::statistics::Statistics;
use polars_parquet::read::{
    BasicDecompressor, Filter, column_iter_to_arrays, infer_schema, read_metadata,
};
use polars_parquet_format::thrift::protocol::TCompactInputProtocol;
use polars_parquet_format::{ColumnIndex, OffsetIndex, PageLocation};
use quick_cache::sync::{Cache, DefaultLifecycle};
use quick_cache::{DefaultHashBuilder, OptionsBuilder, Weighter};

mod pages;

use pages::{
    ChunkBytes, MAX_PAGE_BYTES, THRIFT_LIMIT, check_dictionary_page, chunk_range, decompressed,
    page_rows,
};

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

/// One row group: its rows, and the key's least and greatest value there
/// (None: no statistics, so it is always read).
#[derive(Debug)]
struct Group {
    rows: usize,
    range: Option<(i64, i64)>,
    /// The key is the file's unique one (`game_id`): a group whose range
    /// spans as many values as rows holds each once, in order.
    unique: bool,
    /// The key's pages, from the page index, read when first needed
    /// (None: the file has no page index for it).
    pages: OnceLock<Option<Arc<[KeyPage]>>>,
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
        usize::try_from(value.checked_sub(min)?)
            .ok()
            .filter(|row| *row < self.rows)
    }
}

/// One page of the key column: its rows (within the row group) and the
/// key's least and greatest value there (None: not known, so it may
/// hold any; a page of nulls only holds none).
#[derive(Debug, Clone)]
struct KeyPage {
    rows: Range<usize>,
    range: Option<(i64, i64)>,
    nulls_only: bool,
}

impl KeyPage {
    fn may_hold(&self, value: i64) -> bool {
        !self.nulls_only
            && self
                .range
                .is_none_or(|(min, max)| min <= value && value <= max)
    }
}

/// A table file with its footer read.
#[derive(Debug)]
pub(crate) struct KeyedFile {
    path: PathBuf,
    identity: Identity,
    key: String,
    metadata: FileMetadata,
    /// The columns as polars reads them (from the footer's Arrow schema).
    schema: ArrowSchema,
    /// Where the key is among each row group's column chunks.
    key_chunk: usize,
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
        let schema = infer_schema(&metadata).map_err(|e| error(&e))?;
        let is_key = |c: &ColumnChunkMetadata| {
            c.descriptor().path_in_schema.first().map(|s| s.as_str()) == Some(key)
        };
        let key_chunk = metadata
            .row_groups
            .first()
            .and_then(|group| group.parquet_columns().iter().position(is_key))
            .unwrap_or(0);
        let mut groups = Vec::with_capacity(metadata.row_groups.len());
        for group in &metadata.row_groups {
            let chunk = group
                .parquet_columns()
                .get(key_chunk)
                .filter(|c| is_key(c))
                .ok_or_else(|| error(&format!("no column {key:?}")))?;
            let range = match chunk.statistics(&metadata.footer_buf) {
                Some(Ok(Statistics::Int64(s))) => s.min_value.zip(s.max_value),
                _ => None,
            };
            groups.push(Group {
                rows: group.num_rows(),
                range,
                unique,
                pages: OnceLock::new(),
            });
        }
        Ok(KeyedFile {
            path: path.to_path_buf(),
            identity,
            key: key.to_owned(),
            metadata,
            schema,
            key_chunk,
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
        let fields = self.fields(columns)?;
        let key = self.field(&self.key)?;
        let mut with_key = fields.clone();
        if !with_key.contains(&key) {
            with_key.push(key);
        }
        let mut file = None;
        let mut parts: Vec<DataFrame> = Vec::new();
        for (index, group) in self.groups.iter().enumerate() {
            if group
                .range
                .is_some_and(|(min, max)| value < min || value > max)
            {
                continue;
            }
            let file = match &file {
                Some(file) => file,
                None => file.insert(self.file()?),
            };
            if let Some(row) = group.dense_row(value) {
                // One row can hold the value (a group of consecutive game
                // ids): read it alone, and check its key.
                let wanted = if columns.is_some() {
                    &with_key
                } else {
                    &fields
                };
                let one = self.read_rows(file, index, row..row + 1, wanted)?;
                if self.keys(&one)?.get(0) == Some(value) {
                    parts.push(one);
                }
                continue;
            }
            // The key alone first, from the pages that can hold the
            // value, then the other columns of the rows that hold it.
            let Some(span) = self.key_span(file, index, value)? else {
                continue;
            };
            let keys = self.read_rows(file, index, span.clone(), &[key])?;
            let keys = self.keys(&keys)?;
            let hits: Vec<usize> = keys
                .iter()
                .enumerate()
                .filter_map(|(i, k)| (k == Some(value)).then_some(i))
                .collect();
            let (Some(&first), Some(&last)) = (hits.first(), hits.last()) else {
                continue;
            };
            let rows = span.start + first..span.start + last + 1;
            let part = self.read_rows(file, index, rows, &fields)?;
            // Sorted rows hold a value in one run; kept exact all the same.
            let mask: BooleanChunked = keys
                .slice(first as i64, last - first + 1)
                .iter()
                .map(|k| Some(k == Some(value)))
                .collect();
            parts.push(part.filter(&mask).map_err(|e| error(&e))?);
        }
        let mut parts = parts.into_iter();
        let Some(mut all) = parts.next() else {
            return self.empty(&fields);
        };
        for part in parts {
            all.vstack_mut_owned(part).map_err(|e| error(&e))?;
        }
        Ok(all)
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
        let fields = self.fields(columns)?;
        match self.groups.get(index) {
            Some(group) => self.read_rows(&self.file()?, index, 0..group.rows, &fields),
            None => self.empty(&fields),
        }
    }

    fn file(&self) -> Result<File, KeyedError> {
        File::open(&self.path).map_err(|e| KeyedError::of(&self.path)(&e))
    }

    /// The places of `columns` (all without) among the file's columns.
    fn fields(&self, columns: Option<&[&str]>) -> Result<Vec<usize>, KeyedError> {
        match columns {
            None => Ok((0..self.schema.len()).collect()),
            Some(names) => names.iter().map(|name| self.field(name)).collect(),
        }
    }

    fn field(&self, name: &str) -> Result<usize, KeyedError> {
        self.schema
            .index_of(name)
            .ok_or_else(|| KeyedError::of(&self.path)(&format!("no column {name:?}")))
    }

    /// The key column of rows read.
    fn keys(&self, rows: &DataFrame) -> Result<Int64Chunked, KeyedError> {
        rows.column(&self.key)
            .and_then(|c| c.i64().cloned())
            .map_err(|e| KeyedError::of(&self.path)(&e))
    }

    /// No rows, with the columns `fields`.
    fn empty(&self, fields: &[usize]) -> Result<DataFrame, KeyedError> {
        let columns = fields
            .iter()
            .filter_map(|&i| self.schema.get_at_index(i))
            .map(|(name, field)| {
                Column::new_empty(name.clone(), &DataType::from_arrow_field(field))
            })
            .collect();
        DataFrame::new(0, columns).map_err(|e| KeyedError::of(&self.path)(&e))
    }

    /// The rows of row group `index` whose pages can hold `value` (the
    /// whole group when its file has no page index for the key); None
    /// when no page can.
    fn key_span(
        &self,
        file: &File,
        index: usize,
        value: i64,
    ) -> Result<Option<Range<usize>>, KeyedError> {
        let Some(group) = self.groups.get(index) else {
            return Ok(None);
        };
        let pages = match group.pages.get() {
            Some(pages) => pages.clone(),
            None => {
                let pages = self.key_pages(file, index).map_err(|e| {
                    KeyedError::of(&self.path)(&format!(
                        "column {:?}, row group {index}: {e}",
                        self.key
                    ))
                })?;
                // Another reader may have set it meanwhile: the same pages.
                group.pages.get_or_init(|| pages).clone()
            }
        };
        let Some(pages) = pages else {
            return Ok((group.rows > 0).then_some(0..group.rows));
        };
        // Sorted keys: the pages that can hold the value are one run.
        let mut holding = pages.iter().filter(|p| p.may_hold(value));
        let Some(first) = holding.next() else {
            return Ok(None);
        };
        let end = holding.next_back().map_or(first.rows.end, |p| p.rows.end);
        Ok(Some(first.rows.start..end))
    }

    /// The key's pages in row group `index` from its page index: where
    /// each starts (offset index) and its least and greatest key (column
    /// index, when written). None without an offset index.
    fn key_pages(&self, file: &File, index: usize) -> Result<Option<Arc<[KeyPage]>>, String> {
        let (group, chunk) = self.chunk(index, self.key_chunk)?;
        let Some(locations) = self.page_locations(file, chunk, group.rows)? else {
            return Ok(None);
        };
        let bounds = match (chunk.column_index_offset(), chunk.column_index_length()) {
            (Some(offset), Some(length)) => {
                let bytes = self.read_at(file, offset, i64::from(length), "column index")?;
                let index = ColumnIndex::read_from_in_protocol(&mut TCompactInputProtocol::new(
                    bytes.as_slice(),
                    THRIFT_LIMIT,
                ))
                .map_err(|e| format!("damaged column index: {e}"))?;
                let pages = locations.len();
                if index.null_pages.len() != pages
                    || index.min_values.len() != pages
                    || index.max_values.len() != pages
                {
                    return Err(format!(
                        "damaged column index: {} pages, the offset index has {pages}",
                        index.min_values.len()
                    ));
                }
                Some(index)
            }
            _ => None,
        };
        let int64 = |bytes: &[u8]| bytes.try_into().ok().map(i64::from_le_bytes);
        let pages = (0..locations.len())
            .map(|page| {
                let rows = page_rows(&locations, page, group.rows);
                let (range, nulls_only) = match &bounds {
                    Some(index) => (
                        int64(&index.min_values[page]).zip(int64(&index.max_values[page])),
                        index.null_pages[page],
                    ),
                    None => (None, false),
                };
                KeyPage {
                    rows,
                    range,
                    nulls_only,
                }
            })
            .collect();
        Ok(Some(pages))
    }

    /// Row group `index` and its column chunk `chunk`.
    fn chunk(&self, index: usize, chunk: usize) -> Result<(&Group, &ColumnChunkMetadata), String> {
        let group = self.groups.get(index).ok_or("no such row group")?;
        let chunk = self
            .metadata
            .row_groups
            .get(index)
            .and_then(|g| g.parquet_columns().get(chunk))
            .ok_or("no such column chunk")?;
        Ok((group, chunk))
    }

    /// Rows `rows` of row group `index`, with the columns `fields`.
    fn read_rows(
        &self,
        file: &File,
        index: usize,
        rows: Range<usize>,
        fields: &[usize],
    ) -> Result<DataFrame, KeyedError> {
        let error = KeyedError::of(&self.path);
        let (Some(group), Some(meta)) =
            (self.groups.get(index), self.metadata.row_groups.get(index))
        else {
            return self.empty(fields);
        };
        if rows.is_empty() || rows.end > group.rows {
            return self.empty(fields);
        }
        let mut columns = Vec::with_capacity(fields.len());
        for &field in fields {
            let Some((name, arrow)) = self.schema.get_at_index(field) else {
                continue;
            };
            let chunks: Vec<&ColumnChunkMetadata> = meta
                .columns_under_root_iter(name)
                .map(Iterator::collect)
                .unwrap_or_default();
            let series = self
                .read_column(file, group.rows, &chunks, arrow, rows.clone())
                .map_err(|e| error(&format!("column {name:?}, row group {index}: {e}")))?;
            columns.push(series.into_column());
        }
        DataFrame::new(rows.len(), columns).map_err(|e| error(&e))
    }

    /// Rows `rows` of one column (its leaf chunks `chunks`) of a row group
    /// of `group_rows` rows: a flat column from the pages that hold them,
    /// a nested one (several leaves, or lists) from its whole chunks.
    fn read_column(
        &self,
        file: &File,
        group_rows: usize,
        chunks: &[&ColumnChunkMetadata],
        field: &ArrowField,
        rows: Range<usize>,
    ) -> Result<Series, String> {
        if chunks.is_empty() {
            return Err("not in the row group".into());
        }
        let flat = matches!(chunks, [chunk] if chunk.descriptor().descriptor.max_rep_level == 0);
        let mut decompressors = Vec::with_capacity(chunks.len());
        let mut filter = Filter::new_ranged(rows.start, rows.end);
        for chunk in chunks {
            let read = match flat {
                true => self.pages_of(file, chunk, rows.clone(), group_rows)?,
                false => self.whole_chunk(file, chunk)?,
            };
            if flat {
                filter = Filter::new_ranged(rows.start - read.first_row, rows.end - read.first_row);
            }
            let (bytes, compression) = match chunk.compression() {
                Compression::Zstd => match decompressed(&read.bytes)? {
                    Some(bytes) => (bytes, Compression::Uncompressed),
                    None => (read.bytes, Compression::Zstd),
                },
                other => (read.bytes, other),
            };
            let meta = PageMetaData::new(
                0,
                read.values,
                compression,
                chunk.descriptor().descriptor.clone(),
            );
            let pages = PageReader::new_with_page_meta(
                Cursor::new(bytes.into()),
                meta,
                Vec::new(),
                MAX_PAGE_BYTES,
            );
            decompressors.push(BasicDecompressor::new(pages, Vec::new()));
        }
        let types = chunks
            .iter()
            .map(|c| &c.descriptor().descriptor.primitive_type)
            .collect();
        let (arrays, _) = column_iter_to_arrays(decompressors, types, field.clone(), Some(filter))
            .map_err(|e| e.to_string())?;
        let series = Series::try_from((field, arrays)).map_err(|e| e.to_string())?;
        match series.len() == rows.len() {
            true => Ok(series),
            false => Err(format!("{} rows read for {}", series.len(), rows.len())),
        }
    }

    /// The pages of a flat column chunk that hold `rows`, and its
    /// dictionary page: those the offset index places, else the chunk.
    fn pages_of(
        &self,
        file: &File,
        chunk: &ColumnChunkMetadata,
        rows: Range<usize>,
        group_rows: usize,
    ) -> Result<ChunkBytes, String> {
        let Some(locations) = self.page_locations(file, chunk, group_rows)? else {
            return self.whole_chunk(file, chunk);
        };
        // The last page starting at or before the first row, to the last
        // starting before the end (pages start on rows, see
        // `page_locations`).
        let starts = |row: usize| {
            locations.partition_point(|l| usize::try_from(l.first_row_index).unwrap_or(0) <= row)
        };
        let (Some(first), Some(last)) = (
            starts(rows.start).checked_sub(1),
            starts(rows.end.saturating_sub(1)).checked_sub(1),
        ) else {
            return Err("damaged offset index: no page holds the first row".into());
        };
        let selected = &locations[first..=last];
        let contiguous = selected
            .windows(2)
            .all(|w| w[0].offset + i64::from(w[0].compressed_page_size) == w[1].offset);
        if !contiguous {
            return self.whole_chunk(file, chunk);
        }
        let (start, _) = chunk_range(chunk, self.identity.len)?;
        let first_page = locations[0].offset;
        let mut bytes = match start < first_page {
            // The column's dictionary page, before its first data page.
            true => {
                let dictionary =
                    self.read_at(file, start, first_page - start, "dictionary page")?;
                check_dictionary_page(&dictionary)?;
                dictionary
            }
            false => Vec::new(),
        };
        let from = selected[0].offset;
        let to = selected[selected.len() - 1].offset
            + i64::from(selected[selected.len() - 1].compressed_page_size);
        bytes.extend(self.read_at(file, from, to - from, "data pages")?);
        let first_row = page_rows(&locations, first, group_rows).start;
        let end_row = page_rows(&locations, last, group_rows).end;
        Ok(ChunkBytes {
            bytes,
            // A flat column holds one value a row.
            values: (end_row - first_row) as i64,
            first_row,
        })
    }

    /// A whole column chunk, all its pages.
    fn whole_chunk(&self, file: &File, chunk: &ColumnChunkMetadata) -> Result<ChunkBytes, String> {
        let (start, length) = chunk_range(chunk, self.identity.len)?;
        Ok(ChunkBytes {
            bytes: self.read_at(file, start, length, "column chunk")?,
            values: chunk.num_values(),
            first_row: 0,
        })
    }

    /// The pages of a column chunk from its offset index (None without
    /// one), checked: they start at row 0, in increasing rows within the
    /// group, in increasing places within the chunk.
    fn page_locations(
        &self,
        file: &File,
        chunk: &ColumnChunkMetadata,
        group_rows: usize,
    ) -> Result<Option<Vec<PageLocation>>, String> {
        let (Some(offset), Some(length)) =
            (chunk.offset_index_offset(), chunk.offset_index_length())
        else {
            return Ok(None);
        };
        let bytes = self.read_at(file, offset, i64::from(length), "offset index")?;
        let index = OffsetIndex::read_from_in_protocol(&mut TCompactInputProtocol::new(
            bytes.as_slice(),
            THRIFT_LIMIT,
        ))
        .map_err(|e| format!("damaged offset index: {e}"))?;
        let (start, length) = chunk_range(chunk, self.identity.len)?;
        let end = start + length;
        let locations = index.page_locations;
        let damaged = |what: &str| Err(format!("damaged offset index: {what}"));
        match locations.first() {
            None => return damaged("no pages"),
            Some(first) if first.first_row_index != 0 => return damaged("a first page past row 0"),
            Some(_) => {}
        }
        for (i, page) in locations.iter().enumerate() {
            let size = i64::from(page.compressed_page_size);
            if page.offset < start || size <= 0 || page.offset.saturating_add(size) > end {
                return damaged("a page outside its column chunk");
            }
            if usize::try_from(page.first_row_index).map_or(true, |row| row >= group_rows) {
                return damaged("a page starting past the row group's rows");
            }
            if let Some(next) = locations.get(i + 1)
                && (next.first_row_index <= page.first_row_index
                    || next.offset < page.offset + size)
            {
                return damaged("pages out of order");
            }
        }
        Ok(Some(locations))
    }

    /// `length` bytes at `offset`, which must lie in the file.
    fn read_at(
        &self,
        file: &File,
        offset: i64,
        length: i64,
        what: &str,
    ) -> Result<Vec<u8>, String> {
        let (Ok(at), Ok(len)) = (u64::try_from(offset), usize::try_from(length)) else {
            return Err(format!(
                "{what} at {offset}, {length} bytes: not in the file"
            ));
        };
        if at
            .checked_add(len as u64)
            .is_none_or(|end| end > self.identity.len)
        {
            return Err(format!(
                "{what} at {offset}, {length} bytes: past the file's end"
            ));
        }
        let mut bytes = vec![0; len];
        file.read_exact_at(&mut bytes, at)
            .map_err(|e| format!("{what} at {offset}: {e}"))?;
        Ok(bytes)
    }
}

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
