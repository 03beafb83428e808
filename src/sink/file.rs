//! Sink stage, the Parquet file itself: row groups appended as they come, and
//! a footer whose metadata waits on disk rather than in memory until the
//! file closes. polars' `FileWriter` keeps every page's header and
//! statistics for the footer's indexes (about 2.4 KB a column chunk: 140 MB
//! for the 119-million-row tree of 8 million games, 90 MB for their games
//! table), so its memory grew with the table. Here each row group is laid
//! out by polars' own writer in a buffer of its own, on the thread that
//! encoded it, and moved to its place in the file (the offsets in its
//! metadata shifted); its column index, offset
//! index and row group metadata go to three spool files, read back once
//! when the footer is written. The bytes are those polars' writer writes.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use polars::prelude::{PolarsError, PolarsResult};
use polars_arrow::datatypes::ArrowSchema;
use polars_parquet::parquet::write::ColumnOffsetsMetadata;
use polars_parquet::read::fallible_streaming_iterator;
use polars_parquet::write::{
    CompressedPage, DynIter, DynStreamingIterator, FileWriter, SchemaDescriptor, WriteOptions,
};
use polars_parquet_format::thrift;
use polars_parquet_format::thrift::protocol::{
    TCompactInputProtocol, TCompactOutputProtocol, TFieldIdentifier, TListIdentifier,
    TOutputProtocol, TStructIdentifier, TType,
};
use polars_parquet_format::{FileMetaData, OffsetIndex, RowGroup};

/// The most bytes one thrift structure read back from a spool may allocate.
const THRIFT_LIMIT: usize = 1 << 30;

/// A Parquet file written one encoded row group at a time, in bounded memory.
/// Row groups are written at their place (`pwrite`), so that the copy into
/// the page cache can run on another thread ([`PendingWrite`]) while this
/// one places the next row group; the footer follows them at the end.
pub(crate) struct ParquetFile {
    file: Arc<File>,
    /// Bytes placed in `file` so far: where the next row group starts.
    position: u64,
    arrow_schema: ArrowSchema,
    schema: SchemaDescriptor,
    options: WriteOptions,
    /// Serialized column indexes, in file order (row group, column).
    column_indexes: Spool,
    /// Serialized offset indexes (page offsets final), in file order.
    offset_indexes: Spool,
    /// Serialized `RowGroup`s whose index offsets are relative to their spool.
    row_groups: Spool,
    row_group_count: usize,
    /// Rows in all row groups.
    num_rows: i64,
}

/// An unnamed temporary file (gone when dropped, even after a crash) that
/// is written once and read back once.
struct Spool {
    writer: BufWriter<File>,
    len: u64,
}

impl Spool {
    fn create(dir: &Path) -> io::Result<Spool> {
        Ok(Spool {
            writer: BufWriter::new(tempfile::tempfile_in(dir)?),
            len: 0,
        })
    }

    /// Appends `bytes`; returns where they start in the spool.
    fn append(&mut self, bytes: &[u8]) -> io::Result<u64> {
        let at = self.len;
        self.writer.write_all(bytes)?;
        self.len += bytes.len() as u64;
        Ok(at)
    }

    /// The spool from its start, for reading.
    fn into_reader(self) -> io::Result<BufReader<File>> {
        let mut file = self.writer.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        Ok(BufReader::new(file))
    }
}

impl ParquetFile {
    /// A new file at `path`; its spools are unnamed files in the same folder.
    pub(crate) fn create(
        path: &Path,
        arrow_schema: ArrowSchema,
        schema: SchemaDescriptor,
        options: WriteOptions,
    ) -> io::Result<ParquetFile> {
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Ok(ParquetFile {
            file: Arc::new(File::create(path)?),
            position: 0,
            arrow_schema,
            schema,
            options,
            column_indexes: Spool::create(dir)?,
            offset_indexes: Spool::create(dir)?,
            row_groups: Spool::create(dir)?,
            row_group_count: 0,
            num_rows: 0,
        })
    }

    /// Writes the magic bytes that open the file, once.
    fn start(&mut self) -> io::Result<()> {
        if self.position == 0 {
            self.file.write_all_at(MAGIC, 0)?;
            self.position = MAGIC.len() as u64;
        }
        Ok(())
    }

    /// Appends one row group laid out elsewhere (see [`lay_out`]).
    pub(crate) fn write_row_group(&mut self, group: EncodedRowGroup) -> PolarsResult<()> {
        Ok(self.place_row_group(group)?.write()?)
    }

    /// Places one row group after the ones before it: its metadata and
    /// indexes are recorded, its bytes are left to write, on any thread,
    /// before [`ParquetFile::finish`].
    pub(crate) fn place_row_group(&mut self, group: EncodedRowGroup) -> PolarsResult<PendingWrite> {
        self.start()?;
        let EncodedRowGroup {
            bytes, metadata, ..
        } = group;
        let at = self.position;
        let pieces = self.place(metadata, &bytes)?;
        Ok(PendingWrite {
            file: Arc::clone(&self.file),
            at,
            bytes,
            pieces,
        })
    }

    /// Places the row group laid out in `bytes` at the end of the file, its
    /// indexes and metadata in the spools; returns what to write: each
    /// column chunk's pages (a range of `bytes`) and its metadata after them.
    fn place(&mut self, mut group: RowGroup, bytes: &[u8]) -> PolarsResult<Vec<Piece>> {
        let mut pieces = Vec::with_capacity(group.columns.len());
        let mut position = self.position;
        for chunk in &mut group.columns {
            let meta = chunk
                .meta_data
                .as_mut()
                .ok_or_else(|| malformed("a column chunk without metadata"))?;
            let start = meta
                .dictionary_page_offset
                .map_or(meta.data_page_offset, |d| d.min(meta.data_page_offset));
            let pages = range(bytes, start, meta.total_compressed_size)?;
            // Each chunk moves by its own distance: the metadata before it
            // may have grown (its offsets are varints).
            let shift = position as i64 - start;
            meta.data_page_offset += shift;
            meta.dictionary_page_offset = meta.dictionary_page_offset.map(|o| o + shift);
            chunk.file_offset += shift;
            let mut serialized = Vec::new();
            meta.write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut serialized))
                .map_err(thrift_error)?;
            position += (pages.len() + serialized.len()) as u64;
            pieces.push(Piece {
                pages,
                metadata: serialized,
            });

            if let (Some(offset), Some(length)) =
                (chunk.column_index_offset, chunk.column_index_length)
            {
                let index = slice(bytes, offset, i64::from(length))?;
                chunk.column_index_offset = Some(self.column_indexes.append(index)? as i64);
            }
            if let (Some(offset), Some(length)) =
                (chunk.offset_index_offset, chunk.offset_index_length)
            {
                let index = slice(bytes, offset, i64::from(length))?;
                let mut index = OffsetIndex::read_from_in_protocol(
                    &mut TCompactInputProtocol::new(index, THRIFT_LIMIT),
                )
                .map_err(thrift_error)?;
                for page in &mut index.page_locations {
                    page.offset += shift;
                }
                let mut bytes = Vec::new();
                let length = index
                    .write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut bytes))
                    .map_err(thrift_error)?;
                chunk.offset_index_offset = Some(self.offset_indexes.append(&bytes)? as i64);
                chunk.offset_index_length = Some(to_i32(length)?);
            }
        }
        self.position = position;
        group.file_offset = group
            .columns
            .first()
            .and_then(|c| ColumnOffsetsMetadata::from_column_chunk(c).calc_row_group_file_offset());
        group.ordinal = i16::try_from(self.row_group_count).ok();
        self.row_group_count += 1;
        self.num_rows += group.num_rows;
        let mut bytes = Vec::new();
        group
            .write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut bytes))
            .map_err(thrift_error)?;
        self.row_groups.append(&bytes)?;
        Ok(pieces)
    }

    /// Writes the indexes and the footer after the row groups, once every
    /// [`PendingWrite`] is written; returns the file's size.
    pub fn finish(mut self) -> PolarsResult<u64> {
        if Arc::strong_count(&self.file) > 1 {
            return Err(malformed("a row group not yet written at the footer"));
        }
        // What polars writes for a file of no row groups: the footer's
        // schema, key-value metadata, creator and column orders.
        let mut empty = polars_writer(Vec::new(), &self.arrow_schema, &self.schema, self.options);
        empty.end(None)?;
        let (_, template) = empty.into_inner_and_metadata();
        self.start()?;
        let mut file = &*self.file;
        file.seek(SeekFrom::Start(self.position))?;
        let mut file = BufWriter::with_capacity(1 << 20, file);
        let column_index_base = self.position as i64;
        self.position += io::copy(&mut self.column_indexes.into_reader()?, &mut file)?;
        let offset_index_base = self.position as i64;
        self.position += io::copy(&mut self.offset_indexes.into_reader()?, &mut file)?;

        let mut row_groups = self.row_groups.into_reader()?;
        let mut groups = (0..self.row_group_count).map(|_| {
            let mut group = RowGroup::read_from_in_protocol(&mut TCompactInputProtocol::new(
                &mut row_groups,
                THRIFT_LIMIT,
            ))?;
            for chunk in &mut group.columns {
                chunk.column_index_offset =
                    chunk.column_index_offset.map(|o| o + column_index_base);
                chunk.offset_index_offset =
                    chunk.offset_index_offset.map(|o| o + offset_index_base);
            }
            Ok(group)
        });
        let mut protocol = TCompactOutputProtocol::new(&mut file);
        let length = write_footer(
            &mut protocol,
            &template,
            self.num_rows,
            self.row_group_count,
            &mut groups,
        )
        .map_err(thrift_error)?;
        file.write_all(&to_i32(length)?.to_le_bytes())?;
        file.write_all(MAGIC)?;
        file.flush()?;
        Ok(self.position + length as u64 + 8)
    }
}

const MAGIC: &[u8; 4] = b"PAR1";

/// A writer of polars' over `buffer` (it writes the magic bytes first).
fn polars_writer(
    buffer: Vec<u8>,
    arrow_schema: &ArrowSchema,
    schema: &SchemaDescriptor,
    options: WriteOptions,
) -> FileWriter<Vec<u8>> {
    FileWriter::new_with_parquet_schema(buffer, arrow_schema.clone(), schema.clone(), options)
}

/// A row group laid out by polars' writer as the only one of a file of its
/// own, ready for [`ParquetFile::write_row_group`] to move into place: this
/// part runs on the thread that encoded the row group, so that the thread
/// that appends in order only moves bytes.
pub(crate) struct EncodedRowGroup {
    pub rows: u64,
    bytes: Vec<u8>,
    /// Its metadata, with offsets into `bytes`.
    metadata: RowGroup,
}

/// Lays out one row group of `rows` rows from each column's pages.
pub(crate) fn lay_out(
    rows: u64,
    columns: &[Vec<CompressedPage>],
    arrow_schema: &ArrowSchema,
    schema: &SchemaDescriptor,
    options: WriteOptions,
) -> PolarsResult<EncodedRowGroup> {
    // The data pages, their headers and indexes: room for all without
    // regrowing (dictionary pages, small, may make it grow once).
    let size = columns
        .iter()
        .flatten()
        .map(|page| match page {
            CompressedPage::Data(data) => data.compressed_size(),
            CompressedPage::Dict(_) => 0,
        })
        .sum::<usize>();
    let buffer = Vec::with_capacity(size + size / 16 + 4096);
    let mut writer = polars_writer(buffer, arrow_schema, schema, options);
    let group = DynIter::new(columns.iter().map(|pages| {
        Ok(DynStreamingIterator::new(
            fallible_streaming_iterator::convert(pages.iter().map(PolarsResult::Ok)),
        ))
    }));
    writer.write(rows, group)?;
    writer.end(None)?;
    let (bytes, metadata) = writer.into_inner_and_metadata();
    let metadata = metadata
        .row_groups
        .into_iter()
        .next()
        .ok_or_else(|| malformed("no row group"))?;
    Ok(EncodedRowGroup {
        rows,
        bytes,
        metadata,
    })
}

/// A column chunk to write: its pages, a range of the row group's bytes,
/// then its metadata.
struct Piece {
    pages: Range<usize>,
    metadata: Vec<u8>,
}

/// A placed row group's bytes, to be written at their place in the file
/// (on any thread: positioned writes do not move the file's cursor).
#[must_use = "a placed row group must be written before the file is finished"]
pub(crate) struct PendingWrite {
    file: Arc<File>,
    at: u64,
    bytes: Vec<u8>,
    pieces: Vec<Piece>,
}

impl PendingWrite {
    pub(crate) fn write(self) -> io::Result<()> {
        let mut at = self.at;
        for piece in &self.pieces {
            // The pieces were cut from these bytes when the group was placed.
            let pages = &self.bytes[piece.pages.clone()];
            for bytes in [pages, &piece.metadata] {
                self.file.write_all_at(bytes, at)?;
                at += bytes.len() as u64;
            }
        }
        Ok(())
    }
}

/// `FileMetaData` as its generated `write_to_out_protocol` writes it, field
/// by field, with the row groups streamed from `groups` instead of a `Vec`.
/// Returns the bytes written.
fn write_footer(
    protocol: &mut impl TOutputProtocol,
    template: &FileMetaData,
    num_rows: i64,
    count: usize,
    groups: &mut dyn Iterator<Item = thrift::Result<RowGroup>>,
) -> thrift::Result<usize> {
    let list = |kind: TType, len: usize| -> thrift::Result<TListIdentifier> {
        Ok(TListIdentifier::new(kind, u32::try_from(len)?))
    };
    let mut written = protocol.write_struct_begin(&TStructIdentifier::new("FileMetaData"))?;
    written += protocol.write_field_begin(&TFieldIdentifier::new("version", TType::I32, 1))?;
    written += protocol.write_i32(template.version)?;
    written += protocol.write_field_end()?;
    written += protocol.write_field_begin(&TFieldIdentifier::new("schema", TType::List, 2))?;
    written += protocol.write_list_begin(&list(TType::Struct, template.schema.len())?)?;
    for element in &template.schema {
        written += element.write_to_out_protocol(protocol)?;
    }
    written += protocol.write_list_end()?;
    written += protocol.write_field_end()?;
    written += protocol.write_field_begin(&TFieldIdentifier::new("num_rows", TType::I64, 3))?;
    written += protocol.write_i64(num_rows)?;
    written += protocol.write_field_end()?;
    written += protocol.write_field_begin(&TFieldIdentifier::new("row_groups", TType::List, 4))?;
    written += protocol.write_list_begin(&list(TType::Struct, count)?)?;
    for group in groups {
        written += group?.write_to_out_protocol(protocol)?;
    }
    written += protocol.write_list_end()?;
    written += protocol.write_field_end()?;
    if let Some(pairs) = &template.key_value_metadata {
        written += protocol.write_field_begin(&TFieldIdentifier::new(
            "key_value_metadata",
            TType::List,
            5,
        ))?;
        written += protocol.write_list_begin(&list(TType::Struct, pairs.len())?)?;
        for pair in pairs {
            written += pair.write_to_out_protocol(protocol)?;
        }
        written += protocol.write_list_end()?;
        written += protocol.write_field_end()?;
    }
    if let Some(created_by) = &template.created_by {
        written +=
            protocol.write_field_begin(&TFieldIdentifier::new("created_by", TType::String, 6))?;
        written += protocol.write_string(created_by)?;
        written += protocol.write_field_end()?;
    }
    if let Some(orders) = &template.column_orders {
        written +=
            protocol.write_field_begin(&TFieldIdentifier::new("column_orders", TType::List, 7))?;
        written += protocol.write_list_begin(&list(TType::Struct, orders.len())?)?;
        for order in orders {
            written += order.write_to_out_protocol(protocol)?;
        }
        written += protocol.write_list_end()?;
        written += protocol.write_field_end()?;
    }
    // polars writes no encryption fields (8 and 9).
    if template.encryption_algorithm.is_some() || template.footer_signing_key_metadata.is_some() {
        return Err(thrift::Error::from(
            "polars wrote an encrypted footer".to_string(),
        ));
    }
    written += protocol.write_field_stop()?;
    written += protocol.write_struct_end()?;
    Ok(written)
}

fn slice(bytes: &[u8], offset: i64, length: i64) -> PolarsResult<&[u8]> {
    let range = range(bytes, offset, length)?;
    bytes
        .get(range)
        .ok_or_else(|| malformed("a range outside the row group"))
}

/// `length` bytes from `offset`, checked to lie in `bytes`.
fn range(bytes: &[u8], offset: i64, length: i64) -> PolarsResult<Range<usize>> {
    usize::try_from(offset)
        .ok()
        .zip(usize::try_from(length).ok())
        .and_then(|(offset, length)| Some(offset..offset.checked_add(length)?))
        .filter(|range| range.end <= bytes.len())
        .ok_or_else(|| malformed("a range outside the row group"))
}

fn to_i32(length: usize) -> PolarsResult<i32> {
    i32::try_from(length).map_err(|_| malformed("an index over 2 GiB"))
}

fn malformed(what: &str) -> PolarsError {
    PolarsError::ComputeError(format!("Parquet row group as written by polars: {what}").into())
}

fn thrift_error(error: thrift::Error) -> PolarsError {
    PolarsError::ComputeError(format!("Parquet metadata: {error}").into())
}
