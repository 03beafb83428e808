//! Sink stage, Parquet encoding apart from writing: a row group encoded and
//! compressed into pages on any thread (a worker), so that the thread that
//! writes the file only appends finished pages in input order. Same encoder,
//! encodings and options as polars' own writer, so the bytes are the same.

use std::cell::RefCell;
use std::path::Path;

use polars::io::parquet::write::get_encodings;
use polars::prelude::*;
use polars_arrow::array::ArrayRef;
use polars_arrow::datatypes::ArrowSchema;
use polars_parquet::parquet::CowBuffer;
use polars_parquet::parquet::compression::Compression;
use polars_parquet::parquet::page::{CompressedDataPage, CompressedDictPage, Page};
use polars_parquet::write::SchemaDescriptor;
use polars_parquet::write::{
    CompressedPage, CompressionOptions, Encoding, ParquetType, StatisticsOptions, Version,
    WriteOptions, array_to_columns, compress, to_parquet_schema,
};
use rayon::prelude::*;

use super::file::{ParquetFile, lay_out};
use super::schema::ValueEncoding;

/// Bytes of a text column's min and max kept in each page's statistics
/// (polars' default): a move list or a PGN text is kilobytes long.
const STATISTICS_TEXT_BYTES: u64 = 64;

/// Turns frames of one table's schema into compressed row groups.
pub(crate) struct RowGroupEncoder {
    arrow: ArrowSchema,
    schema: SchemaDescriptor,
    fields: Vec<ParquetType>,
    encodings: Vec<Vec<Encoding>>,
    options: WriteOptions,
    /// Each column's options: `options` with its page size.
    column_options: Vec<WriteOptions>,
}

pub(crate) use super::file::EncodedRowGroup;

/// A column of a batch to encode: its values, type, encodings, options.
type Leaf<'a> = (
    &'a ArrayRef,
    &'a ParquetType,
    &'a Vec<Encoding>,
    &'a WriteOptions,
);

impl RowGroupEncoder {
    /// `compression` as given to the file's writer; `declared`: columns
    /// encoded as their table declares ([`ValueEncoding`]; plain without a
    /// dictionary trial, or delta), the others as polars' writer chooses;
    /// `page_bytes`: the most bytes of values (as polars estimates them
    /// before encoding) a data page holds, polars' 1 MiB without, and for
    /// the columns `whole_pages`.
    pub fn new(
        schema: &Schema,
        compression: ParquetCompression,
        declared: &[(&str, ValueEncoding)],
        page_bytes: Option<usize>,
        whole_pages: &[&str],
    ) -> PolarsResult<RowGroupEncoder> {
        let arrow = schema.to_arrow(CompatLevel::newest());
        let parquet = to_parquet_schema(&arrow)?;
        let encodings = get_encodings(&arrow)
            .iter()
            .zip(schema.iter_names())
            .map(|(chosen, name)| {
                let encoding = declared
                    .iter()
                    .find(|(declared, _)| *declared == name.as_str())
                    .map_or(ValueEncoding::Chosen, |&(_, encoding)| encoding);
                match encoding {
                    ValueEncoding::Chosen => chosen.clone(),
                    ValueEncoding::Plain => vec![Encoding::Plain],
                    ValueEncoding::Delta => vec![Encoding::DeltaBinaryPacked],
                }
            })
            .collect();
        // As polars' ParquetWriter materialises its defaults.
        let options = WriteOptions {
            // Text statistics truncated to 64 bytes, as polars does by
            // default, but pinned: polars takes the length from an
            // environment variable, and the files must not depend on it.
            statistics: StatisticsOptions {
                binary_statistics_truncate_length: Some(STATISTICS_TEXT_BYTES),
                ..StatisticsOptions::default()
            },
            compression: compression.into(),
            version: Version::V1,
            data_page_size: page_bytes,
        };
        let column_options = schema
            .iter_names()
            .map(|name| match whole_pages.contains(&name.as_str()) {
                true => WriteOptions {
                    data_page_size: None,
                    ..options
                },
                false => options,
            })
            .collect();
        Ok(RowGroupEncoder {
            fields: parquet.fields().to_vec(),
            encodings,
            arrow,
            schema: parquet,
            options,
            column_options,
        })
    }

    /// A file at `path` for this table's row groups, with the schema and
    /// options polars' writer would give it.
    pub(crate) fn create_file(&self, path: &Path) -> std::io::Result<ParquetFile> {
        ParquetFile::create(path, self.arrow.clone(), self.schema.clone(), self.options)
    }

    /// Encodes and compresses `frame` and lays it out as in a file: one row
    /// group per chunk of it, as polars' writer does (rechunk first for one
    /// row group). `parallel`:
    /// its columns on the current rayon pool (the end-of-run tables, when
    /// the pool is otherwise idle).
    pub(crate) fn encode(
        &self,
        frame: &DataFrame,
        parallel: bool,
    ) -> PolarsResult<Vec<EncodedRowGroup>> {
        let mut groups = Vec::new();
        for batch in frame.iter_chunks(CompatLevel::newest(), false) {
            if batch.is_empty() {
                continue;
            }
            let arrays: Vec<Leaf> = batch
                .columns()
                .iter()
                .zip(&self.fields)
                .zip(&self.encodings)
                .zip(&self.column_options)
                .map(|(((array, field), encoding), options)| (array, field, encoding, options))
                .collect();
            let encode = |(array, field, encoding, options): &Leaf| {
                self.encode_column(array, field, encoding, **options)
            };
            let encoded: Vec<Vec<Vec<CompressedPage>>> = if parallel {
                arrays.par_iter().map(encode).collect::<PolarsResult<_>>()?
            } else {
                arrays.iter().map(encode).collect::<PolarsResult<_>>()?
            };
            let columns: Vec<Vec<CompressedPage>> = encoded.into_iter().flatten().collect();
            groups.push(lay_out(
                batch.len() as u64,
                &columns,
                &self.arrow,
                &self.schema,
                self.options,
            )?);
        }
        Ok(groups)
    }

    /// One column's pages (a nested column gives several leaf columns).
    fn encode_column(
        &self,
        array: &ArrayRef,
        field: &ParquetType,
        encoding: &[Encoding],
        options: WriteOptions,
    ) -> PolarsResult<Vec<Vec<CompressedPage>>> {
        array_to_columns(array, field.clone(), options, encoding)?
            .into_iter()
            .map(|pages| {
                pages
                    .map(|page| compress_page(page?, self.options.compression))
                    .collect()
            })
            .collect()
    }
}

thread_local! {
    /// This thread's zstd context, kept from page to page: polars'
    /// `compress` makes one for every page (and zeroes the worst-case
    /// output size first), a visible cost at a row group per batch.
    static ZSTD: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
        const { RefCell::new(None) };
}

/// A page compressed as polars' `compress` does it, byte for byte (the
/// same zstd call at the same level), with this thread's context.
fn compress_page(page: Page, options: CompressionOptions) -> PolarsResult<CompressedPage> {
    let CompressionOptions::Zstd(level) = options else {
        return Ok(compress(page, Vec::new(), options)?);
    };
    // No level is zstd's 0, its default level, as polars' `compress` has it.
    let level = level.map(|l| l.compression_level()).unwrap_or_default();
    Ok(match page {
        Page::Data(data) => {
            let num_rows = data.num_rows().ok_or_else(|| {
                PolarsError::ComputeError("a data page without its row count".into())
            })?;
            CompressedPage::Data(CompressedDataPage::new(
                data.header().clone(),
                CowBuffer::Owned(zstd_compress(data.buffer(), level)?),
                Compression::Zstd,
                data.buffer().len(),
                data.descriptor.clone(),
                num_rows,
            ))
        }
        Page::Dict(dict) => CompressedPage::Dict(CompressedDictPage::new(
            CowBuffer::Owned(zstd_compress(&dict.buffer, level)?),
            Compression::Zstd,
            dict.buffer.len(),
            dict.num_values,
            dict.is_sorted,
        )),
    })
}

fn zstd_compress(bytes: &[u8], level: i32) -> PolarsResult<Vec<u8>> {
    ZSTD.with(|cell| {
        let mut slot = cell.borrow_mut();
        let compressor = match &mut *slot {
            Some((kept, compressor)) if *kept == level => compressor,
            other => &mut other.insert((level, zstd::bulk::Compressor::new(level)?)).1,
        };
        let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(bytes.len()));
        compressor.compress_to_buffer(bytes, &mut out)?;
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars_parquet::write::ZstdLevel;

    fn compression() -> ParquetCompression {
        ParquetCompression::Zstd(Some(
            ZstdLevel::try_new(1).unwrap_or_else(|e| panic!("{e}")),
        ))
    }

    /// `frame` written by polars' own batched writer and by `TableWriter`
    /// (this encoder, and the file of `sink::file`); the two files' bytes.
    fn both_ways(frame: &DataFrame) -> (Vec<u8>, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let theirs = dir.path().join("polars.parquet");
        let file = std::fs::File::create(&theirs).unwrap_or_else(|e| panic!("{e}"));
        let mut writer = ParquetWriter::new(file)
            .with_compression(compression())
            .set_parallel(false)
            .batched(frame.schema())
            .unwrap_or_else(|e| panic!("{e}"));
        writer.write_batch(frame).unwrap_or_else(|e| panic!("{e}"));
        writer.finish().unwrap_or_else(|e| panic!("{e}"));
        let ours = dir.path().join("ours.parquet");
        let mut table = crate::sink::parquet::TableWriter::create_at(&ours, frame.schema())
            .unwrap_or_else(|e| panic!("{e}"));
        // One row group per chunk, as polars writes them.
        table.write(frame).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            table.finish().unwrap_or_else(|e| panic!("{e}")),
            frame.height() as u64
        );
        let read = |p: &std::path::Path| std::fs::read(p).unwrap_or_else(|e| panic!("{e}"));
        (read(&ours), read(&theirs))
    }

    /// Pages of every kind the tables have: plain and dictionary pages (a
    /// string of few values over many rows), nulls, booleans, a list, and
    /// strings of 64 hex digits that do not compress, so that a column
    /// chunk takes several pages and the file passes the sizes at which
    /// an offset's varint grows.
    fn frame(rows: usize, chunks: usize) -> DataFrame {
        let hex = |i: usize| {
            let mut x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            (0..4)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    format!("{x:016x}")
                })
                .collect::<String>()
        };
        let one = DataFrame::new(
            rows,
            vec![
                Column::new(
                    "n".into(),
                    (0..rows as i64)
                        .map(|i| (i % 7 != 0).then_some(i * 31 - 4))
                        .collect::<Vec<_>>(),
                ),
                Column::new(
                    "s".into(),
                    (0..rows).map(|i| "abc".repeat(i % 5)).collect::<Vec<_>>(),
                ),
                Column::new(
                    "f".into(),
                    (0..rows)
                        .map(|i| (i % 3 != 0).then_some(i as f64 / 8.0))
                        .collect::<Vec<_>>(),
                ),
                Column::new(
                    "b".into(),
                    (0..rows).map(|i| i % 11 == 0).collect::<Vec<_>>(),
                ),
                Column::new("h".into(), (0..rows).map(hex).collect::<Vec<_>>()),
                Column::new(
                    "l".into(),
                    (0..rows)
                        .map(|i| Series::new("".into(), vec![i as i32; i % 4]))
                        .collect::<Vec<_>>(),
                ),
            ],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut frame = one.clone();
        for _ in 1..chunks {
            frame
                .vstack_mut_owned(one.clone())
                .unwrap_or_else(|e| panic!("{e}"));
        }
        frame
    }

    /// Twelve row groups of 20,000 rows (a 1.2 MB column chunk in two
    /// pages each, 9 MB in all): the same bytes as polars' writer.
    #[test]
    fn encoded_row_groups_write_the_bytes_polars_writes() {
        let (ours, theirs) = both_ways(&frame(20_000, 12));
        assert!(ours.len() > 1 << 23, "{} bytes", ours.len());
        assert!(
            ours == theirs,
            "{} and {} bytes differ",
            ours.len(),
            theirs.len()
        );
    }

    /// A table with no rows: the magic bytes and a footer of no row groups.
    #[test]
    fn an_empty_table_writes_the_bytes_polars_writes() {
        let empty = frame(1, 1).clear();
        let (ours, theirs) = both_ways(&empty);
        assert_eq!(ours, theirs);
    }
}
