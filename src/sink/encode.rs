//! Sink stage, Parquet encoding apart from writing: a row group encoded and
//! compressed into pages on any thread (a worker), so that the thread that
//! writes the file only appends finished pages in input order. Same encoder,
//! encodings and options as polars' own writer, so the bytes are the same.

use polars::io::parquet::write::get_encodings;
use polars::prelude::*;
use polars_arrow::array::ArrayRef;
use polars_parquet::write::{
    CompressedPage, Encoding, ParquetType, StatisticsOptions, Version, WriteOptions,
    array_to_columns, compress, to_parquet_schema,
};
use rayon::prelude::*;

/// Turns frames of one table's schema into compressed row groups.
pub struct RowGroupEncoder {
    fields: Vec<ParquetType>,
    encodings: Vec<Vec<Encoding>>,
    options: WriteOptions,
}

/// A row group ready to append: its row count and each column's pages.
pub struct EncodedRowGroup {
    pub rows: u64,
    pub columns: Vec<Vec<CompressedPage>>,
}

impl RowGroupEncoder {
    /// `compression` as given to the file's writer.
    pub fn new(schema: &Schema, compression: ParquetCompression) -> PolarsResult<RowGroupEncoder> {
        let arrow = schema.to_arrow(CompatLevel::newest());
        let parquet = to_parquet_schema(&arrow)?;
        Ok(RowGroupEncoder {
            fields: parquet.fields().to_vec(),
            encodings: get_encodings(&arrow).iter().cloned().collect(),
            // As polars' ParquetWriter materialises its defaults.
            options: WriteOptions {
                statistics: StatisticsOptions::default(),
                compression: compression.into(),
                version: Version::V1,
                data_page_size: None,
            },
        })
    }

    /// Encodes and compresses `frame`: one row group per chunk of it, as
    /// polars' writer does (rechunk first for one row group). `parallel`:
    /// its columns on the current rayon pool (the end-of-run tables, when
    /// the pool is otherwise idle).
    pub fn encode(&self, frame: &DataFrame, parallel: bool) -> PolarsResult<Vec<EncodedRowGroup>> {
        let mut groups = Vec::new();
        for batch in frame.iter_chunks(CompatLevel::newest(), false) {
            if batch.is_empty() {
                continue;
            }
            let arrays: Vec<(&ArrayRef, &ParquetType, &Vec<Encoding>)> = batch
                .columns()
                .iter()
                .zip(&self.fields)
                .zip(&self.encodings)
                .map(|((array, field), encoding)| (array, field, encoding))
                .collect();
            let encode = |(array, field, encoding): &(&ArrayRef, &ParquetType, &Vec<Encoding>)| {
                self.encode_column(array, field, encoding)
            };
            let encoded: Vec<Vec<Vec<CompressedPage>>> = if parallel {
                arrays.par_iter().map(encode).collect::<PolarsResult<_>>()?
            } else {
                arrays.iter().map(encode).collect::<PolarsResult<_>>()?
            };
            groups.push(EncodedRowGroup {
                rows: batch.len() as u64,
                columns: encoded.into_iter().flatten().collect(),
            });
        }
        Ok(groups)
    }

    /// One column's pages (a nested column gives several leaf columns).
    fn encode_column(
        &self,
        array: &ArrayRef,
        field: &ParquetType,
        encoding: &[Encoding],
    ) -> PolarsResult<Vec<Vec<CompressedPage>>> {
        array_to_columns(array, field.clone(), self.options, encoding)?
            .into_iter()
            .map(|pages| {
                pages
                    .map(|page| Ok(compress(page?, Vec::new(), self.options.compression)?))
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars_parquet::write::ZstdLevel;

    /// The same frame written by polars' own batched writer and by
    /// `TableWriter` (which encodes through this encoder) gives the same bytes.
    #[test]
    fn encoded_row_groups_write_the_bytes_polars_writes() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut frame = DataFrame::new(
            4,
            vec![
                Column::new("n".into(), [Some(1i64), None, Some(3), Some(-4)]),
                Column::new("s".into(), ["a", "bb", "", "ccc"]),
                Column::new("f".into(), [Some(0.5f64), Some(1.5), None, Some(2.0)]),
            ],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let second = frame.clone();
        frame
            .vstack_mut_owned(second)
            .unwrap_or_else(|e| panic!("{e}"));
        let compression = ParquetCompression::Zstd(Some(
            ZstdLevel::try_new(1).unwrap_or_else(|e| panic!("{e}")),
        ));
        let theirs = dir.path().join("polars.parquet");
        let file = std::fs::File::create(&theirs).unwrap_or_else(|e| panic!("{e}"));
        let mut writer = ParquetWriter::new(file)
            .with_compression(compression)
            .set_parallel(false)
            .batched(frame.schema())
            .unwrap_or_else(|e| panic!("{e}"));
        writer.write_batch(&frame).unwrap_or_else(|e| panic!("{e}"));
        writer.finish().unwrap_or_else(|e| panic!("{e}"));
        let ours = dir.path().join("ours.parquet");
        let mut table = crate::sink::parquet::TableWriter::create_at(&ours, frame.schema())
            .unwrap_or_else(|e| panic!("{e}"));
        // Two chunks: two row groups, as polars writes them.
        table.write(&frame).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(table.finish().unwrap_or_else(|e| panic!("{e}")), 8);
        let read = |p: &std::path::Path| std::fs::read(p).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&ours), read(&theirs));
    }
}
