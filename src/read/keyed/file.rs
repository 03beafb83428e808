//! Reading, by key: one Parquet file sorted by a key column, its footer
//! read once, and the rows of one key value read from the pages the page
//! index says can hold them ([`super`] keeps these files and the rows
//! read).

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

use super::pages::{
    ChunkBytes, MAX_PAGE_BYTES, THRIFT_LIMIT, check_dictionary_page, chunk_range, decompressed,
    page_rows,
};

/// A file's identity on disk: replaced or rewritten, it is another file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Identity {
    len: u64,
    ctime_ns: i128,
    inode: u64,
}

impl Identity {
    pub(super) fn of(meta: &std::fs::Metadata) -> Identity {
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
pub(super) struct Group {
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
    pub(super) fn dense_row(&self, value: i64) -> Option<usize> {
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
pub(super) struct KeyPage {
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
    pub(super) identity: Identity,
    key: String,
    metadata: FileMetadata,
    /// The columns as polars reads them (from the footer's Arrow schema).
    schema: ArrowSchema,
    /// Where the key is among each row group's column chunks.
    key_chunk: usize,
    pub(super) groups: Vec<Group>,
}

/// What went wrong reading a file, with its path.
#[derive(Debug)]
pub(crate) struct KeyedError {
    pub path: PathBuf,
    pub message: String,
}

impl KeyedError {
    pub(super) fn of(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> KeyedError + '_ {
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
    pub(crate) fn open(path: &Path, key: &str, unique: bool) -> Result<KeyedFile, KeyedError> {
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

    /// Rows `rows` of row group `index`, with `columns` (read from the
    /// pages that hold them).
    pub(crate) fn group_rows(
        &self,
        index: usize,
        rows: Range<usize>,
        columns: &[&str],
    ) -> Result<DataFrame, KeyedError> {
        let fields = self.fields(Some(columns))?;
        self.read_rows(&self.file()?, index, rows, &fields)
    }

    pub(super) fn file(&self) -> Result<File, KeyedError> {
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
    pub(super) fn key_pages(
        &self,
        file: &File,
        index: usize,
    ) -> Result<Option<Arc<[KeyPage]>>, String> {
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
