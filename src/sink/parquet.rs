//! Sink stage, Parquet: builds DataFrames from rows and streams them into a
//! zstd-compressed Parquet file, one row group per flush. The file lives under
//! a temporary name until [`TableWriter::finish`] renames it, so an interrupted
//! run never leaves a half table under the final name.

use std::fs::File;
use std::path::{Path, PathBuf};

use polars::prelude::*;
use polars_arrow::array::{ListArray, MutableBinaryViewArray, StructArray};
use polars_arrow::datatypes::{ArrowDataType, Field as ArrowField};
use polars_arrow::offset::OffsetsBuffer;
use polars_parquet::write::ZstdLevel;

use super::rows::{GameRow, RejectRow};

/// Rows per row group: large enough for good compression and scans, small
/// enough to keep the writer's memory bounded.
pub const ROW_GROUP_ROWS: usize = 1 << 16;

/// zstd level 1: the writer thread runs beside the replay workers, and level
/// 1 costs about half of the default for a few percent more bytes.
const ZSTD_LEVEL: i32 = 1;

fn col<T, P>(name: &str, values: T) -> Column
where
    Series: NamedFrom<T, P>,
    P: ?Sized,
{
    Series::new(name.into(), values).into_column()
}

fn strings<'a, R: 'a>(rows: &'a [R], f: impl Fn(&'a R) -> Option<&'a str>) -> Vec<Option<&'a str>> {
    rows.iter().map(f).collect()
}

/// `extra_tags`: List<Struct{name: String, value: String}>.
fn extra_tags_column(rows: &[GameRow]) -> PolarsResult<Column> {
    let total: usize = rows.iter().map(|r| r.extra_tags.len()).sum();
    let mut names = MutableBinaryViewArray::<str>::with_capacity(total);
    let mut values = MutableBinaryViewArray::<str>::with_capacity(total);
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    offsets.push(0i64);
    for row in rows {
        for (name, value) in &row.extra_tags {
            names.push_value(name);
            values.push_value(value);
        }
        offsets.push(offsets.last().copied().unwrap_or(0) + row.extra_tags.len() as i64);
    }
    let fields = vec![
        ArrowField::new("name".into(), ArrowDataType::Utf8View, true),
        ArrowField::new("value".into(), ArrowDataType::Utf8View, true),
    ];
    let struct_type = ArrowDataType::Struct(fields);
    let pairs = StructArray::try_new(
        struct_type.clone(),
        total,
        vec![names.freeze().boxed(), values.freeze().boxed()],
        None,
    )?;
    let list_type =
        ArrowDataType::LargeList(Box::new(ArrowField::new("item".into(), struct_type, true)));
    let list = ListArray::<i64>::try_new(
        list_type,
        OffsetsBuffer::try_from(offsets)?,
        pairs.boxed(),
        None,
    )?;
    Ok(Series::from_arrow("extra_tags".into(), list.boxed())?.into_column())
}

/// The `games` table for `rows`; `sources` maps source ids to names.
pub fn games_frame(rows: &[GameRow], sources: &[String]) -> PolarsResult<DataFrame> {
    let source_names: Vec<&str> = rows
        .iter()
        .map(|r| sources.get(r.source as usize).map_or("", String::as_str))
        .collect();
    let columns = vec![
        col(
            "game_id",
            rows.iter().map(|r| r.game_id).collect::<Vec<u64>>(),
        ),
        col("source", source_names),
        col(
            "game_index",
            rows.iter().map(|r| r.game_index).collect::<Vec<u64>>(),
        ),
        col(
            "offset",
            rows.iter().map(|r| r.offset).collect::<Vec<u64>>(),
        ),
        col("line", rows.iter().map(|r| r.line).collect::<Vec<u64>>()),
        col("event", strings(rows, |r| r.event.as_deref())),
        col("site", strings(rows, |r| r.site.as_deref())),
        col("date", strings(rows, |r| r.date.as_deref())),
        col(
            "year",
            rows.iter().map(|r| r.year).collect::<Vec<Option<i32>>>(),
        ),
        col("round", strings(rows, |r| r.round.as_deref())),
        col("white", strings(rows, |r| r.white.as_deref())),
        col("black", strings(rows, |r| r.black.as_deref())),
        col(
            "white_elo",
            rows.iter()
                .map(|r| r.white_elo)
                .collect::<Vec<Option<i32>>>(),
        ),
        col(
            "black_elo",
            rows.iter()
                .map(|r| r.black_elo)
                .collect::<Vec<Option<i32>>>(),
        ),
        col("white_title", strings(rows, |r| r.white_title.as_deref())),
        col("black_title", strings(rows, |r| r.black_title.as_deref())),
        col("time_control", strings(rows, |r| r.time_control.as_deref())),
        col("termination", strings(rows, |r| r.termination.as_deref())),
        col("eco_tag", strings(rows, |r| r.eco_tag.as_deref())),
        col("opening_tag", strings(rows, |r| r.opening_tag.as_deref())),
        col("variant", strings(rows, |r| r.variant.as_deref())),
        col(
            "chess960",
            rows.iter().map(|r| r.chess960).collect::<Vec<bool>>(),
        ),
        col("start_fen", strings(rows, |r| r.start_fen.as_deref())),
        col("plies", rows.iter().map(|r| r.plies).collect::<Vec<u32>>()),
        col("result_tag", strings(rows, |r| r.result_tag.as_deref())),
        col("result_marker", strings(rows, |r| r.result_marker)),
        col("declared_result", strings(rows, |r| r.declared_result)),
        col("result_by_rule", strings(rows, |r| r.result_by_rule)),
        col(
            "result_check",
            rows.iter()
                .map(|r| r.result_check.as_str())
                .collect::<Vec<&str>>(),
        ),
        col(
            "end_state",
            rows.iter()
                .map(|r| r.end_state.as_str())
                .collect::<Vec<&str>>(),
        ),
        col("winner_by_rule", strings(rows, |r| r.winner_by_rule)),
        col(
            "threefold_first_ply",
            rows.iter()
                .map(|r| r.threefold_first_ply)
                .collect::<Vec<_>>(),
        ),
        col(
            "fifty_first_ply",
            rows.iter().map(|r| r.fifty_first_ply).collect::<Vec<_>>(),
        ),
        col(
            "threefold_final",
            rows.iter()
                .map(|r| r.threefold_final)
                .collect::<Vec<bool>>(),
        ),
        col(
            "fifty_final",
            rows.iter().map(|r| r.fifty_final).collect::<Vec<bool>>(),
        ),
        col(
            "automatic_end_ply",
            rows.iter().map(|r| r.automatic_end_ply).collect::<Vec<_>>(),
        ),
        col(
            "plies_after_end",
            rows.iter().map(|r| r.plies_after_end).collect::<Vec<u32>>(),
        ),
        col(
            "perpetual_check",
            rows.iter()
                .map(|r| r.perpetual_check)
                .collect::<Vec<bool>>(),
        ),
        col(
            "final_fen",
            rows.iter()
                .map(|r| r.final_fen.as_str())
                .collect::<Vec<&str>>(),
        ),
        col(
            "moves_uci",
            rows.iter()
                .map(|r| r.moves_uci.as_str())
                .collect::<Vec<&str>>(),
        ),
        col(
            "encoding_repaired",
            rows.iter()
                .map(|r| r.encoding_repaired)
                .collect::<Vec<bool>>(),
        ),
        extra_tags_column(rows)?,
    ];
    DataFrame::new(rows.len(), columns)
}

/// The `rejects` table for `rows`.
pub fn rejects_frame(rows: &[RejectRow], sources: &[String]) -> PolarsResult<DataFrame> {
    let source_names: Vec<&str> = rows
        .iter()
        .map(|r| sources.get(r.source as usize).map_or("", String::as_str))
        .collect();
    let columns = vec![
        col(
            "game_id",
            rows.iter().map(|r| r.game_id).collect::<Vec<u64>>(),
        ),
        col("source", source_names),
        col(
            "game_index",
            rows.iter().map(|r| r.game_index).collect::<Vec<u64>>(),
        ),
        col(
            "offset",
            rows.iter().map(|r| r.offset).collect::<Vec<u64>>(),
        ),
        col("line", rows.iter().map(|r| r.line).collect::<Vec<u64>>()),
        col(
            "reason",
            rows.iter()
                .map(|r| r.reason.as_str())
                .collect::<Vec<&str>>(),
        ),
        col(
            "message",
            rows.iter()
                .map(|r| r.message.as_str())
                .collect::<Vec<&str>>(),
        ),
        col(
            "ply",
            rows.iter().map(|r| r.ply).collect::<Vec<Option<u32>>>(),
        ),
        col("token", strings(rows, |r| r.token.as_deref())),
        col(
            "token_line",
            rows.iter()
                .map(|r| r.token_line)
                .collect::<Vec<Option<u64>>>(),
        ),
        col("white", strings(rows, |r| r.white.as_deref())),
        col("black", strings(rows, |r| r.black.as_deref())),
        col("event", strings(rows, |r| r.event.as_deref())),
        col("date", strings(rows, |r| r.date.as_deref())),
        col(
            "encoding_repaired",
            rows.iter()
                .map(|r| r.encoding_repaired)
                .collect::<Vec<bool>>(),
        ),
        col(
            "raw_pgn",
            rows.iter()
                .map(|r| r.raw_pgn.as_str())
                .collect::<Vec<&str>>(),
        ),
    ];
    DataFrame::new(rows.len(), columns)
}

/// Streams one table to `DIR/NAME.parquet` via `DIR/.NAME.parquet.tmp`.
pub struct TableWriter {
    tmp_path: PathBuf,
    final_path: PathBuf,
    writer: polars::io::parquet::write::BatchedWriter<File>,
    rows: u64,
}

impl TableWriter {
    pub fn create(dir: &Path, name: &str, schema: &Schema) -> PolarsResult<TableWriter> {
        let final_path = dir.join(format!("{name}.parquet"));
        let tmp_path = dir.join(format!(".{name}.parquet.tmp"));
        let file = File::create(&tmp_path)?;
        let writer = ParquetWriter::new(file)
            .with_compression(ParquetCompression::Zstd(Some(ZstdLevel::try_new(
                ZSTD_LEVEL,
            )?)))
            .batched(schema)?;
        Ok(TableWriter {
            tmp_path,
            final_path,
            writer,
            rows: 0,
        })
    }

    /// Writes `frame` as one row group.
    pub fn write(&mut self, frame: &DataFrame) -> PolarsResult<()> {
        if frame.height() > 0 {
            self.writer.write_batch(frame)?;
            self.rows += frame.height() as u64;
        }
        Ok(())
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The final path of the table.
    pub fn path(&self) -> &Path {
        &self.final_path
    }

    /// Drops an unfinished table (after a failed run).
    pub fn abandon(self) -> std::io::Result<()> {
        drop(self.writer);
        std::fs::remove_file(&self.tmp_path)
    }

    /// Closes the file and moves it to its final name.
    pub fn finish(self) -> PolarsResult<u64> {
        self.writer.finish()?;
        std::fs::rename(&self.tmp_path, &self.final_path)?;
        Ok(self.rows)
    }
}
