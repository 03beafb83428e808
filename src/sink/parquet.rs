//! Sink stage, Parquet: builds DataFrames from rows and streams them into a
//! zstd-compressed Parquet file, one row group per flush. The file lives under
//! a temporary name until [`TableWriter::finish`] renames it, so an interrupted
//! run never leaves a half table under the final name.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use polars::prelude::*;
use polars_arrow::array::{ListArray, MutableBinaryViewArray, StructArray};
use polars_arrow::datatypes::{ArrowDataType, Field as ArrowField};
use polars_arrow::offset::OffsetsBuffer;
use polars_parquet::write::ZstdLevel;

use super::encode::{EncodedRowGroup, RowGroupEncoder};
use super::file::ParquetFile;
use super::rows::{GameRow, Place, RejectRow};
use crate::pgn::result::GameResult;
use crate::pgn::tags;
use crate::profile::{self, Stage, Timer};
use crate::replay::color_name;
use crate::replay::material::{CHECKPOINTS, Material};
use crate::replay::openings::{self, OpeningName};
use shakmaty::Color;

/// Rows per row group: large enough for good compression and scans, small
/// enough to keep the writer's memory bounded and the last flush short.
pub const ROW_GROUP_ROWS: usize = 1 << 15;

/// zstd level 1: encoding runs beside the replay, and level 1 costs about
/// half of the default for a few percent more bytes.
const ZSTD_LEVEL: i32 = 1;

/// A table's frame from its columns, with every unsigned integer column as
/// the signed type of the next width that holds it (u8, u16, u32 → i32;
/// u64 → i64): Spark, BigQuery, Trino and Redshift have no unsigned 64-bit
/// type and read `UINT_64` as a decimal. Counts and ordinals never come near
/// `i64::MAX`; 64-bit keys are built as i64 (the same bits) by their callers.
pub(crate) fn table_frame(height: usize, columns: Vec<Column>) -> PolarsResult<DataFrame> {
    let columns = columns
        .into_iter()
        .map(|column| match column.dtype() {
            DataType::UInt8 | DataType::UInt16 | DataType::UInt32 => column.cast(&DataType::Int32),
            DataType::UInt64 => column.strict_cast(&DataType::Int64),
            _ => Ok(column),
        })
        .collect::<PolarsResult<Vec<Column>>>()?;
    DataFrame::new(height, columns)
}

/// A column named `name` from anything polars builds a Series from.
pub(crate) fn col<T, P>(name: &str, values: T) -> Column
where
    Series: NamedFrom<T, P>,
    P: ?Sized,
{
    Series::new(name.into(), values).into_column()
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
            names.push_value(name.as_ref());
            values.push_value(value.of(&row.text));
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

/// A material signature column (white first), written through one buffer
/// rather than a String per row.
fn signature_column(
    name: &str,
    rows: &[GameRow],
    material: impl Fn(&GameRow) -> Option<Material>,
) -> PolarsResult<Column> {
    formatted_column(name, rows, |row, buffer| {
        material(row).map(|m| m.write_signature(Color::White, buffer))
    })
}

/// A text column whose values `write` formats (None: null), through one
/// buffer rather than a String per row.
pub(crate) fn formatted_column<R>(
    name: &str,
    rows: &[R],
    write: impl Fn(&R, &mut String) -> Option<()>,
) -> PolarsResult<Column> {
    let mut array = MutableBinaryViewArray::<str>::with_capacity(rows.len());
    let mut buffer = String::with_capacity(40);
    for row in rows {
        buffer.clear();
        match write(row, &mut buffer) {
            Some(()) => array.push_value(buffer.as_str()),
            None => array.push_null(),
        }
    }
    Ok(Series::from_arrow(name.into(), array.freeze().boxed())?.into_column())
}

/// The identity columns both tables start with; `sources` maps source ids
/// to names.
fn place_columns<'a>(
    places: impl Iterator<Item = &'a Place> + Clone,
    sources: &[String],
) -> Vec<Column> {
    let source_names: Vec<&str> = places
        .clone()
        .map(|p| sources.get(p.source as usize).map_or("", String::as_str))
        .collect();
    vec![
        col(
            "game_id",
            places.clone().map(|p| p.game_id).collect::<Vec<u64>>(),
        ),
        col("source", source_names),
        col(
            "game_index",
            places.clone().map(|p| p.game_index).collect::<Vec<u64>>(),
        ),
        col(
            "offset",
            places.clone().map(|p| p.offset).collect::<Vec<u64>>(),
        ),
        col("line", places.map(|p| p.line).collect::<Vec<u64>>()),
    ]
}

pub(crate) fn values<'a, R, T>(rows: &'a [R], f: impl Fn(&'a R) -> T) -> Vec<T> {
    rows.iter().map(f).collect()
}

/// The `games` table for `rows`.
pub fn games_frame(rows: &[GameRow], sources: &[String]) -> PolarsResult<DataFrame> {
    let mut columns = place_columns(rows.iter().map(|r| &r.place), sources);
    columns.extend([
        col("event", values(rows, |r| r.tag(r.event))),
        col("site", values(rows, |r| r.tag(r.site))),
        col(
            "lichess_id",
            values(rows, |r| r.tag(r.site).and_then(tags::lichess_id)),
        ),
        col("date", values(rows, |r| r.tag(r.date))),
        col("year", values(rows, |r| r.year)),
        col("utc_timestamp", values(rows, |r| r.utc_timestamp_ms)).cast(&DataType::Datetime(
            TimeUnit::Milliseconds,
            Some(TimeZone::UTC),
        ))?,
        col("round", values(rows, |r| r.tag(r.round))),
        col("white", values(rows, |r| r.tag(r.white))),
        col("black", values(rows, |r| r.tag(r.black))),
        col("white_elo", values(rows, |r| r.white_elo)),
        col("black_elo", values(rows, |r| r.black_elo)),
        col("white_rating_diff", values(rows, |r| r.white_rating_diff)),
        col("black_rating_diff", values(rows, |r| r.black_rating_diff)),
        col("white_title", values(rows, |r| r.tag(r.white_title))),
        col("black_title", values(rows, |r| r.tag(r.black_title))),
        col("time_control", values(rows, |r| r.tag(r.time_control))),
        col(
            "base_seconds",
            values(rows, |r| r.base_increment.map(|(base, _)| base)),
        ),
        col(
            "increment_seconds",
            values(rows, |r| r.base_increment.map(|(_, increment)| increment)),
        ),
        col("time_class", values(rows, |r| r.time_class.as_str())),
        col("has_clocks", values(rows, |r| r.clocks.has_clocks)),
        col("has_evals", values(rows, |r| r.clocks.has_evals)),
        col(
            "clock_white_final_ms",
            values(rows, |r| r.clocks.white_final_ms),
        ),
        col(
            "clock_black_final_ms",
            values(rows, |r| r.clocks.black_final_ms),
        ),
        col("termination", values(rows, |r| r.tag(r.termination))),
        col("eco_tag", values(rows, |r| r.tag(r.eco_tag))),
        col("opening_tag", values(rows, |r| r.tag(r.opening_tag))),
        col("eco", values(rows, |r| opening_of(r).map(|n| n.eco))),
        col(
            "opening_name",
            values(rows, |r| opening_of(r).map(|n| n.name)),
        ),
        col(
            "opening_family",
            values(rows, |r| opening_of(r).map(OpeningName::family)),
        ),
        col("opening_ply", values(rows, |r| r.opening.map(|o| o.ply))),
        col("eco_matches_tag", values(rows, eco_matches_tag)),
        col("variant", values(rows, |r| r.tag(r.variant))),
        col("variant_name", values(rows, |r| r.variant_name.as_str())),
        col("chess960", values(rows, |r| r.chess960)),
        col("start_fen", values(rows, |r| r.start_fen.as_deref())),
        col("fen_repaired", values(rows, |r| r.fen_repaired)),
        col("plies", values(rows, |r| r.replayed.plies)),
        col("result_tag", values(rows, |r| r.tag(r.result_tag))),
        col("result_marker", values(rows, |r| r.result_marker)),
        col(
            "declared_result",
            values(rows, |r| r.declared_result.map(GameResult::as_str)),
        ),
        col(
            "result_by_rule",
            values(rows, |r| r.replayed.result_by_rule.map(|g| g.as_str())),
        ),
        col("result_check", values(rows, |r| r.result_check.as_str())),
        col("end_state", values(rows, |r| r.replayed.end_state.as_str())),
        col(
            "variant_end",
            values(rows, |r| r.replayed.variant_end.map(|v| v.as_str())),
        ),
        col(
            "draw_reason",
            values(rows, |r| r.draw_reason.map(|d| d.as_str())),
        ),
        col(
            "winner_by_rule",
            values(rows, |r| r.replayed.winner_by_rule.map(color_name)),
        ),
        col(
            "threefold_first_ply",
            values(rows, |r| r.replayed.threefold_first_ply),
        ),
        col(
            "fifty_first_ply",
            values(rows, |r| r.replayed.fifty_first_ply),
        ),
        col(
            "threefold_final",
            values(rows, |r| r.replayed.threefold_final),
        ),
        col("fifty_final", values(rows, |r| r.replayed.fifty_final)),
        col(
            "automatic_end_ply",
            values(rows, |r| r.replayed.automatic_end_ply),
        ),
        col(
            "plies_after_end",
            values(rows, |r| r.replayed.plies_after_end),
        ),
        col(
            "perpetual_check",
            values(rows, |r| r.replayed.perpetual_check),
        ),
        col(
            "dead_position_ply",
            values(rows, |r| r.replayed.dead_position_ply),
        ),
        col(
            "white_can_mate",
            values(rows, |r| r.replayed.can_mate.white),
        ),
        col(
            "black_can_mate",
            values(rows, |r| r.replayed.can_mate.black),
        ),
        col("final_fen", values(rows, |r| r.replayed.final_fen.as_str())),
        signature_column("final_material", rows, |r| Some(r.material.final_material))?,
        col("white_material", values(rows, |r| r.material.white)),
        col("black_material", values(rows, |r| r.material.black)),
        col("material_diff", values(rows, |r| r.material.diff)),
    ]);
    // One column per checkpoint: material_diff_at_20 … _80.
    columns.extend(CHECKPOINTS.iter().enumerate().map(|(i, ply)| {
        col(
            &format!("material_diff_at_{ply}"),
            values(rows, |r| r.material.diff_at.get(i).copied().flatten()),
        )
    }));
    columns.extend([
        col(
            "max_white_lead",
            values(rows, |r| r.material.max_white_lead),
        ),
        col(
            "max_black_lead",
            values(rows, |r| r.material.max_black_lead),
        ),
        col("endgame_ply", values(rows, |r| r.material.endgame_ply)),
        signature_column("endgame_signature", rows, |r| r.material.endgame_material)?,
        col(
            "bishop_pair_white",
            values(rows, |r| r.material.bishop_pair_white),
        ),
        col(
            "bishop_pair_black",
            values(rows, |r| r.material.bishop_pair_black),
        ),
        col("moves_uci", values(rows, |r| r.replayed.moves_uci.as_str())),
        col("encoding_repaired", values(rows, |r| r.encoding_repaired)),
        extra_tags_column(rows)?,
    ]);
    table_frame(rows.len(), columns)
}

fn opening_of(row: &GameRow) -> Option<&'static OpeningName> {
    row.opening.and_then(|o| openings::index().name(o.name_id))
}

/// Does the ECO tag agree with the ECO found by position? Null when either
/// is missing.
fn eco_matches_tag(row: &GameRow) -> Option<bool> {
    let tag = row.tag(row.eco_tag)?.trim();
    let eco = opening_of(row)?.eco;
    Some(tag.eq_ignore_ascii_case(eco))
}

/// The `rejects` table for `rows`.
pub fn rejects_frame(rows: &[RejectRow], sources: &[String]) -> PolarsResult<DataFrame> {
    let mut columns = place_columns(rows.iter().map(|r| &r.place), sources);
    columns.extend([
        col("reason", values(rows, |r| r.reason.as_str())),
        col("message", values(rows, |r| r.message.as_str())),
        col("ply", values(rows, |r| r.ply)),
        col("token", values(rows, |r| r.token.as_deref())),
        col("token_line", values(rows, |r| r.token_line)),
        col("white", values(rows, |r| r.white.as_deref())),
        col("black", values(rows, |r| r.black.as_deref())),
        col("event", values(rows, |r| r.event.as_deref())),
        col("date", values(rows, |r| r.date.as_deref())),
        col("encoding_repaired", values(rows, |r| r.encoding_repaired)),
        col("raw_pgn", values(rows, |r| r.raw_pgn.as_str())),
    ]);
    table_frame(rows.len(), columns)
}

/// Streams one table to `DIR/NAME.parquet` via `DIR/.NAME.parquet.tmp`.
pub struct TableWriter {
    tmp_path: PathBuf,
    final_path: PathBuf,
    file: ParquetFile,
    encoder: Arc<RowGroupEncoder>,
    rows: u64,
}

impl TableWriter {
    pub fn create(dir: &Path, name: &str, schema: &Schema) -> PolarsResult<TableWriter> {
        Self::create_at(&dir.join(format!("{name}.parquet")), schema)
    }

    /// A table at any path, written as `.NAME.tmp` beside it until finished.
    pub fn create_at(final_path: &Path, schema: &Schema) -> PolarsResult<TableWriter> {
        let final_path = final_path.to_path_buf();
        let name = final_path
            .file_name()
            .map_or_else(|| "table".into(), |n| n.to_string_lossy().into_owned());
        let tmp_path = final_path.with_file_name(format!(".{name}.tmp"));
        let compression = ParquetCompression::Zstd(Some(ZstdLevel::try_new(ZSTD_LEVEL)?));
        let encoder = Arc::new(RowGroupEncoder::new(schema, compression)?);
        let file = encoder.create_file(&tmp_path)?;
        crate::interrupt::register(&tmp_path);
        Ok(TableWriter {
            tmp_path,
            final_path,
            file,
            encoder,
            rows: 0,
        })
    }

    /// The table's encoder, for row groups encoded on other threads.
    pub fn encoder(&self) -> Arc<RowGroupEncoder> {
        Arc::clone(&self.encoder)
    }

    /// Writes `frame`, one row group per chunk, encoded here (its columns
    /// in parallel when this is a thread of a rayon pool).
    pub fn write(&mut self, frame: &DataFrame) -> PolarsResult<()> {
        let mut timer = Timer::start();
        let on_pool = rayon::current_thread_index().is_some();
        let groups = self.encoder.encode(frame, on_pool)?;
        profile::lap(&mut timer, Stage::Encode);
        for group in groups {
            self.append(group)?;
        }
        Ok(())
    }

    /// Appends a row group encoded elsewhere (in input order).
    pub fn append(&mut self, group: EncodedRowGroup) -> PolarsResult<()> {
        let mut timer = Timer::start();
        self.file.write_row_group(group.rows, &group.columns)?;
        self.rows += group.rows;
        profile::lap(&mut timer, Stage::Write);
        Ok(())
    }

    /// The final path of the table.
    pub fn path(&self) -> &Path {
        &self.final_path
    }

    /// Drops an unfinished table (after a failed run).
    pub fn abandon(self) -> std::io::Result<()> {
        drop(self.file);
        crate::interrupt::unregister(&self.tmp_path);
        std::fs::remove_file(&self.tmp_path)
    }

    /// Closes the file and moves it to its final name.
    pub fn finish(self) -> PolarsResult<u64> {
        self.file.finish()?;
        std::fs::rename(&self.tmp_path, &self.final_path)?;
        crate::interrupt::unregister(&self.tmp_path);
        Ok(self.rows)
    }
}
