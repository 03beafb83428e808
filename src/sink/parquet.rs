//! Sink stage, Parquet: builds DataFrames from rows and streams them into a
//! zstd-compressed Parquet file, one row group per flush. The file lives under
//! a temporary name until `TableWriter::finish` renames it, so an interrupted
//! run never leaves a half table under the final name.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use polars::prelude::*;
use polars_arrow::array::{ListArray, MutableBinaryViewArray, StructArray};
use polars_arrow::datatypes::{ArrowDataType, Field as ArrowField};
use polars_arrow::offset::OffsetsBuffer;

use super::compression::Compression;
use super::encode::{EncodedRowGroup, RowGroupEncoder};
use super::file::{ParquetFile, PendingWrite};
use super::rows::{GameRow, Place, RejectRow};
use super::schema::games::MATERIAL_DIFF_AT;
use super::schema::{self, ValueEncoding, games, rejects};
use super::staged::Staged;
use crate::pgn::result::GameResult;
use crate::pgn::tags;
use crate::profile::{self, Stage, Timer};
use crate::replay::color_name;
use crate::replay::material::Material;
use crate::replay::openings::{self, OpeningName};
use shakmaty::Color;

/// Rows per row group: large enough for good compression and scans, small
/// enough to keep the writer's memory bounded and the last flush short.
pub(crate) const ROW_GROUP_ROWS: usize = 1 << 15;

/// The most bytes of values (as polars estimates them before encoding:
/// 8 a 64-bit integer, 16 and the text of a string) a data page of a table
/// read by key holds. A point read decompresses and decodes only the
/// pages of its rows (`read::keyed`, through the page index): with
/// polars' 1 MiB pages, each column of a 32,768-row group was one page,
/// decoded whole for a few rows.
pub(crate) const KEYED_PAGE_BYTES: usize = 64 << 10;

/// The page size of `table`'s data pages: [`KEYED_PAGE_BYTES`] for the
/// tables read by key (`openings` by position, `games` by game id), the
/// writer's default for those only scanned (and for the columns of the
/// former declared [`schema::Column::scanned_only`]: `games`' large texts
/// packed in small pages made it 5 % larger).
fn page_bytes(table: &schema::Table) -> Option<usize> {
    [schema::openings::TABLE.name, games::TABLE.name]
        .contains(&table.name)
        .then_some(KEYED_PAGE_BYTES)
}

/// A table's frame from its columns, each cast to the type the schema
/// declares for it: every unsigned integer column becomes the signed type of
/// the next width that holds it (u8, u16, u32 → i32; u64 → i64, strictly):
/// Spark, BigQuery, Trino and Redshift have no unsigned 64-bit type and read
/// `UINT_64` as a decimal. Counts and ordinals never come near `i64::MAX`;
/// 64-bit keys are built as i64 (the same bits) by their callers.
///
/// The columns must be the table's, in its order (an error otherwise: a
/// writer out of step with [`schema`]); a debug build also checks that a
/// column declared without nulls has none.
pub(crate) fn table_frame(
    table: &schema::Table,
    height: usize,
    columns: Vec<Column>,
) -> PolarsResult<DataFrame> {
    let names: Vec<&str> = columns.iter().map(|c| c.name().as_str()).collect();
    let declared: Vec<&str> = table.columns.iter().map(|c| c.name).collect();
    if names != declared {
        polars_bail!(SchemaMismatch: "{} table built with columns {names:?}, declared {declared:?}", table.name);
    }
    let columns = columns
        .into_iter()
        .zip(table.columns)
        .map(|(column, spec)| {
            debug_assert!(
                spec.nullable || column.null_count() == 0,
                "{}.{} is declared without nulls but has {}",
                table.name,
                spec.name,
                column.null_count()
            );
            let dtype = dtype(spec.ty);
            match column.dtype() {
                same if *same == dtype => Ok(column),
                DataType::UInt64 => column.strict_cast(&dtype),
                _ => column.cast(&dtype),
            }
        })
        .collect::<PolarsResult<Vec<Column>>>()?;
    DataFrame::new(height, columns)
}

/// The polars type of a declared column type.
pub(crate) fn dtype(ty: schema::Type) -> DataType {
    match ty {
        schema::Type::Bool => DataType::Boolean,
        schema::Type::I32 => DataType::Int32,
        schema::Type::I64 => DataType::Int64,
        schema::Type::F64 => DataType::Float64,
        schema::Type::Text => DataType::String,
        schema::Type::TimestampMs => {
            DataType::Datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
        }
        schema::Type::Date => DataType::Date,
        schema::Type::ListI32 => DataType::List(Box::new(DataType::Int32)),
        schema::Type::TagList => DataType::List(Box::new(DataType::Struct(vec![
            Field::new(TAG_NAME.into(), DataType::String),
            Field::new(TAG_VALUE.into(), DataType::String),
        ]))),
    }
}

/// The fields of an `extra_tags` item.
const TAG_NAME: &str = "name";
const TAG_VALUE: &str = "value";

/// The Parquet schema of a table, from its declaration.
pub(crate) fn table_schema(table: &schema::Table) -> Schema {
    table
        .columns
        .iter()
        .map(|c| Field::new(c.name.into(), dtype(c.ty)))
        .collect()
}

/// A column of a table from anything polars builds a Series from.
pub(crate) fn col<T, P>(column: schema::Column, values: T) -> Column
where
    Series: NamedFrom<T, P>,
    P: ?Sized,
{
    Series::new(column.name.into(), values).into_column()
}

/// `extra_tags`: List<Struct{name: String, value: String}>.
fn extra_tags_column(rows: &[GameRow]) -> PolarsResult<Column> {
    let total: usize = rows.iter().map(|r| r.extra_tags.len()).sum();
    let mut names = MutableBinaryViewArray::<str>::with_capacity(total);
    let mut values = MutableBinaryViewArray::<str>::with_capacity(total);
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    let mut end = 0i64;
    offsets.push(end);
    for row in rows {
        for (name, value) in &row.extra_tags {
            names.push_value(name.as_ref());
            values.push_value(value.of(&row.text));
        }
        end += row.extra_tags.len() as i64;
        offsets.push(end);
    }
    let fields = vec![
        ArrowField::new(TAG_NAME.into(), ArrowDataType::Utf8View, true),
        ArrowField::new(TAG_VALUE.into(), ArrowDataType::Utf8View, true),
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
    Ok(Series::from_arrow(games::EXTRA_TAGS.name.into(), list.boxed())?.into_column())
}

/// A material signature column (white first), written through one buffer
/// rather than a String per row.
fn signature_column(
    column: schema::Column,
    rows: &[GameRow],
    material: impl Fn(&GameRow) -> Option<Material>,
) -> PolarsResult<Column> {
    formatted_column(column, rows, |row, buffer| {
        material(row).map(|m| m.write_signature(Color::White, buffer))
    })
}

/// A text column whose values `write` formats (None: null), through one
/// buffer rather than a String per row.
pub(crate) fn formatted_column<R>(
    column: schema::Column,
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
    Ok(Series::from_arrow(column.name.into(), array.freeze().boxed())?.into_column())
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
            games::GAME_ID,
            places.clone().map(|p| p.game_id).collect::<Vec<u64>>(),
        ),
        col(games::SOURCE, source_names),
        col(
            games::GAME_INDEX,
            places.clone().map(|p| p.game_index).collect::<Vec<u64>>(),
        ),
        col(
            games::OFFSET,
            places.clone().map(|p| p.offset).collect::<Vec<u64>>(),
        ),
        col(games::LINE, places.map(|p| p.line).collect::<Vec<u64>>()),
    ]
}

pub(crate) fn values<'a, R, T>(rows: &'a [R], f: impl Fn(&'a R) -> T) -> Vec<T> {
    rows.iter().map(f).collect()
}

/// The `games` table for `rows`.
pub(crate) fn games_frame(rows: &[GameRow], sources: &[String]) -> PolarsResult<DataFrame> {
    let mut columns = place_columns(rows.iter().map(|r| &r.place), sources);
    columns.extend([
        // The hash's 64 bits as the i64 Parquet keeps.
        col(games::RAW_HASH, values(rows, |r| r.raw_hash as i64)),
        col(games::EVENT, values(rows, |r| r.tag(r.event))),
        col(games::SITE, values(rows, |r| r.tag(r.site))),
        col(
            games::LICHESS_ID,
            values(rows, |r| r.tag(r.site).and_then(tags::lichess_id)),
        ),
        col(games::DATE, values(rows, |r| r.tag(r.date))),
        col(games::YEAR, values(rows, |r| r.year)),
        // Milliseconds; `table_frame` makes them the declared timestamp.
        col(games::MONTH, values(rows, |r| r.month())),
        col(games::UTC_TIMESTAMP, values(rows, |r| r.utc_timestamp_ms)),
        col(games::ROUND, values(rows, |r| r.tag(r.round))),
        col(games::WHITE, values(rows, |r| r.tag(r.white))),
        col(games::BLACK, values(rows, |r| r.tag(r.black))),
        col(games::WHITE_ELO, values(rows, |r| r.white_elo)),
        col(games::BLACK_ELO, values(rows, |r| r.black_elo)),
        col(
            games::WHITE_RATING_DIFF,
            values(rows, |r| r.white_rating_diff),
        ),
        col(
            games::BLACK_RATING_DIFF,
            values(rows, |r| r.black_rating_diff),
        ),
        col(games::WHITE_TITLE, values(rows, |r| r.tag(r.white_title))),
        col(games::BLACK_TITLE, values(rows, |r| r.tag(r.black_title))),
        col(games::TIME_CONTROL, values(rows, |r| r.tag(r.time_control))),
        col(
            games::BASE_SECONDS,
            values(rows, |r| r.base_increment.map(|(base, _)| base)),
        ),
        col(
            games::INCREMENT_SECONDS,
            values(rows, |r| r.base_increment.map(|(_, increment)| increment)),
        ),
        col(games::TIME_CLASS, values(rows, |r| r.time_class.as_str())),
        col(games::HAS_CLOCKS, values(rows, |r| r.clocks.has_clocks)),
        col(games::HAS_EVALS, values(rows, |r| r.clocks.has_evals)),
        col(
            games::CLOCK_WHITE_FINAL_MS,
            values(rows, |r| r.clocks.white_final_ms),
        ),
        col(
            games::CLOCK_BLACK_FINAL_MS,
            values(rows, |r| r.clocks.black_final_ms),
        ),
        col(games::TERMINATION, values(rows, |r| r.tag(r.termination))),
        col(games::ECO_TAG, values(rows, |r| r.tag(r.eco_tag))),
        col(games::OPENING_TAG, values(rows, |r| r.tag(r.opening_tag))),
        col(games::ECO, values(rows, |r| opening_of(r).map(|n| n.eco))),
        col(
            games::OPENING_NAME,
            values(rows, |r| opening_of(r).map(|n| n.name)),
        ),
        col(
            games::OPENING_FAMILY,
            values(rows, |r| opening_of(r).map(OpeningName::family)),
        ),
        col(
            games::OPENING_PLY,
            values(rows, |r| r.opening.map(|o| o.ply)),
        ),
        col(games::ECO_MATCHES_TAG, values(rows, eco_matches_tag)),
        col(games::VARIANT, values(rows, |r| r.tag(r.variant))),
        col(
            games::VARIANT_NAME,
            values(rows, |r| r.variant_name.as_str()),
        ),
        col(games::CHESS960, values(rows, |r| r.chess960)),
        col(games::START_FEN, values(rows, |r| r.start_fen.as_deref())),
        col(games::FEN_REPAIRED, values(rows, |r| r.fen_repaired)),
        col(games::PLIES, values(rows, |r| r.replayed.plies)),
        col(games::RESULT_TAG, values(rows, |r| r.tag(r.result_tag))),
        col(games::RESULT_MARKER, values(rows, |r| r.result_marker)),
        col(
            games::DECLARED_RESULT,
            values(rows, |r| r.declared_result.map(GameResult::as_str)),
        ),
        col(
            games::RESULT_BY_RULE,
            values(rows, |r| r.replayed.result_by_rule.map(|g| g.as_str())),
        ),
        col(
            games::RESULT_CHECK,
            values(rows, |r| r.result_check.as_str()),
        ),
        col(
            games::END_STATE,
            values(rows, |r| r.replayed.end_state.as_str()),
        ),
        col(
            games::VARIANT_END,
            values(rows, |r| r.replayed.variant_end.map(|v| v.as_str())),
        ),
        col(
            games::DRAW_REASON,
            values(rows, |r| r.draw_reason.map(|d| d.as_str())),
        ),
        col(
            games::WINNER_BY_RULE,
            values(rows, |r| r.replayed.winner_by_rule.map(color_name)),
        ),
        col(
            games::THREEFOLD_FIRST_PLY,
            values(rows, |r| r.replayed.threefold_first_ply),
        ),
        col(
            games::FIFTY_FIRST_PLY,
            values(rows, |r| r.replayed.fifty_first_ply),
        ),
        col(
            games::THREEFOLD_FINAL,
            values(rows, |r| r.replayed.threefold_final),
        ),
        col(games::FIFTY_FINAL, values(rows, |r| r.replayed.fifty_final)),
        col(
            games::AUTOMATIC_END_PLY,
            values(rows, |r| r.replayed.automatic_end_ply),
        ),
        col(
            games::PLIES_AFTER_END,
            values(rows, |r| r.replayed.plies_after_end),
        ),
        col(
            games::PERPETUAL_CHECK,
            values(rows, |r| r.replayed.perpetual_check),
        ),
        col(
            games::DEAD_POSITION_PLY,
            values(rows, |r| r.replayed.dead_position_ply),
        ),
        col(
            games::WHITE_CAN_MATE,
            values(rows, |r| r.replayed.can_mate.white),
        ),
        col(
            games::BLACK_CAN_MATE,
            values(rows, |r| r.replayed.can_mate.black),
        ),
        col(
            games::FINAL_FEN,
            values(rows, |r| r.replayed.final_fen.as_str()),
        ),
        signature_column(games::FINAL_MATERIAL, rows, |r| {
            Some(r.material.final_material)
        })?,
        col(games::WHITE_MATERIAL, values(rows, |r| r.material.white)),
        col(games::BLACK_MATERIAL, values(rows, |r| r.material.black)),
        col(games::MATERIAL_DIFF, values(rows, |r| r.material.diff)),
    ]);
    // One column per checkpoint: material_diff_at_20 … _80.
    columns.extend(MATERIAL_DIFF_AT.iter().enumerate().map(|(i, &column)| {
        col(
            column,
            values(rows, |r| r.material.diff_at.get(i).copied().flatten()),
        )
    }));
    columns.extend([
        col(
            games::MAX_WHITE_LEAD,
            values(rows, |r| r.material.max_white_lead),
        ),
        col(
            games::MAX_BLACK_LEAD,
            values(rows, |r| r.material.max_black_lead),
        ),
        col(games::ENDGAME_PLY, values(rows, |r| r.material.endgame_ply)),
        signature_column(games::ENDGAME_SIGNATURE, rows, |r| {
            r.material.endgame_material
        })?,
        col(
            games::BISHOP_PAIR_WHITE,
            values(rows, |r| r.material.bishop_pair_white),
        ),
        col(
            games::BISHOP_PAIR_BLACK,
            values(rows, |r| r.material.bishop_pair_black),
        ),
        col(
            games::MOVES_UCI,
            values(rows, |r| r.replayed.moves_uci.as_str()),
        ),
        col(games::SQUARES_PAWNS, values(rows, |r| r.search_filter[0])),
        col(games::ARRIVALS_WHITE, values(rows, |r| r.search_filter[1])),
        col(games::ARRIVALS_BLACK, values(rows, |r| r.search_filter[2])),
        col(games::MATERIAL_WHITE, values(rows, |r| r.search_filter[3])),
        col(games::MATERIAL_BLACK, values(rows, |r| r.search_filter[4])),
        col(games::IMBALANCE_RANGE, values(rows, |r| r.search_filter[5])),
        col(
            games::ENCODING_REPAIRED,
            values(rows, |r| r.encoding_repaired),
        ),
        col(games::REPAIRS, values(rows, |r| r.repairs.as_deref())),
        extra_tags_column(rows)?,
    ]);
    table_frame(&games::TABLE, rows.len(), columns)
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
pub(crate) fn rejects_frame(rows: &[RejectRow], sources: &[String]) -> PolarsResult<DataFrame> {
    let mut columns = place_columns(rows.iter().map(|r| &r.place), sources);
    columns.extend([
        col(rejects::REASON, values(rows, |r| r.reason.as_str())),
        col(rejects::MESSAGE, values(rows, |r| r.message.as_str())),
        col(rejects::PLY, values(rows, |r| r.ply)),
        col(rejects::TOKEN, values(rows, |r| r.token.as_deref())),
        col(rejects::TOKEN_LINE, values(rows, |r| r.token_line)),
        col(rejects::WHITE, values(rows, |r| r.white.as_deref())),
        col(rejects::BLACK, values(rows, |r| r.black.as_deref())),
        col(rejects::EVENT, values(rows, |r| r.event.as_deref())),
        col(rejects::DATE, values(rows, |r| r.date.as_deref())),
        col(
            rejects::ENCODING_REPAIRED,
            values(rows, |r| r.encoding_repaired),
        ),
        col(rejects::RAW_PGN, values(rows, |r| r.raw_pgn.as_str())),
    ]);
    table_frame(&rejects::TABLE, rows.len(), columns)
}

/// Streams one table to `DIR/NAME.parquet` via `DIR/.NAME.parquet.tmp`.
pub(crate) struct TableWriter {
    tmp_path: PathBuf,
    final_path: PathBuf,
    file: ParquetFile,
    encoder: Arc<RowGroupEncoder>,
    rows: u64,
}

impl TableWriter {
    /// `table` at `final_path`, its columns encoded as declared, its
    /// pages compressed by `compression`.
    pub(crate) fn create(
        final_path: &Path,
        table: &schema::Table,
        compression: Compression,
    ) -> PolarsResult<TableWriter> {
        let declared: Vec<(&str, ValueEncoding)> =
            table.columns.iter().map(|c| (c.name, c.encoding)).collect();
        let whole_pages: Vec<&str> = table
            .columns
            .iter()
            .filter(|c| c.scanned_only)
            .map(|c| c.name)
            .collect();
        Self::create_with(
            final_path,
            &table_schema(table),
            &declared,
            compression,
            page_bytes(table),
            &whole_pages,
        )
    }

    /// A table at any path, written as `.NAME.tmp` beside it until finished
    /// (the default compression).
    pub(crate) fn create_at(final_path: &Path, schema: &Schema) -> PolarsResult<TableWriter> {
        Self::create_with(final_path, schema, &[], Compression::default(), None, &[])
    }

    fn create_with(
        final_path: &Path,
        schema: &Schema,
        encodings: &[(&str, ValueEncoding)],
        compression: Compression,
        page_bytes: Option<usize>,
        whole_pages: &[&str],
    ) -> PolarsResult<TableWriter> {
        let final_path = final_path.to_path_buf();
        let name = final_path
            .file_name()
            .map_or_else(|| "table".into(), |n| n.to_string_lossy().into_owned());
        let tmp_path = final_path.with_file_name(format!(".{name}.tmp"));
        let encoder = Arc::new(RowGroupEncoder::new(
            schema,
            compression.to_polars()?,
            encodings,
            page_bytes,
            whole_pages,
        )?);
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
    pub(crate) fn encoder(&self) -> Arc<RowGroupEncoder> {
        Arc::clone(&self.encoder)
    }

    /// Writes `frame`, one row group per chunk, encoded here (its columns
    /// in parallel when this is a thread of a rayon pool).
    pub(crate) fn write(&mut self, frame: &DataFrame) -> PolarsResult<()> {
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
    pub(crate) fn append(&mut self, group: EncodedRowGroup) -> PolarsResult<()> {
        let mut timer = Timer::start();
        self.rows += group.rows;
        self.file.write_row_group(group)?;
        profile::lap(&mut timer, Stage::Write);
        Ok(())
    }

    /// Places a row group encoded elsewhere (in input order) and leaves its
    /// bytes to write, on any thread, before [`TableWriter::finish`].
    pub(crate) fn place(&mut self, group: EncodedRowGroup) -> PolarsResult<PendingWrite> {
        let mut timer = Timer::start();
        self.rows += group.rows;
        let pending = self.file.place_row_group(group)?;
        profile::lap(&mut timer, Stage::Write);
        Ok(pending)
    }

    /// The final path of the table.
    pub(crate) fn path(&self) -> &Path {
        &self.final_path
    }

    /// Drops an unfinished table (after a failed run).
    pub(crate) fn abandon(self) -> std::io::Result<()> {
        drop(self.file);
        crate::interrupt::unregister(&self.tmp_path);
        std::fs::remove_file(&self.tmp_path)
    }

    /// Closes the file and moves it to its final name.
    pub fn finish(self) -> PolarsResult<u64> {
        let (staged, rows) = self.close()?;
        staged.commit()?;
        Ok(rows)
    }

    /// Closes the file (its footer written) under its temporary name, for
    /// the commit to rename; its rows. Dropped uncommitted, it is removed.
    pub(crate) fn close(self) -> PolarsResult<(Staged, u64)> {
        let staged = Staged::new(self.tmp_path, self.final_path);
        self.file.finish()?;
        Ok((staged, self.rows))
    }
}
