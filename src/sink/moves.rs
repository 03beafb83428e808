//! Sink stage, the moves table (`import --moves`): one row per mainline ply
//! of every accepted game, in game order, as a Parquet frame; its integers
//! signed and its keys the opening tree's, so that it joins with the other
//! tables in Spark and DuckDB.

use std::fmt::Write as _;

use polars::prelude::*;
use polars_arrow::array::{ListArray, PrimitiveArray};
use polars_arrow::datatypes::{ArrowDataType, Field as ArrowField};
use polars_arrow::offset::OffsetsBuffer;
use shakmaty::Role;

use super::parquet::{col, formatted_column, table_frame, values};
use super::rows::MoveRow;
use super::schema::moves;
use crate::replay::color_name;
use crate::replay::openings::stored_key;

/// Rows per row group: a moves row is narrow (about 20 bytes encoded), and
/// a lichess game has about 70 of them.
pub(crate) const MOVES_ROW_GROUP_ROWS: usize = 1 << 17;

/// The piece that moved, as SAN writes it (`P` for a pawn).
fn piece_letter(role: Role) -> &'static str {
    match role {
        Role::Pawn => "P",
        Role::Knight => "N",
        Role::Bishop => "B",
        Role::Rook => "R",
        Role::Queen => "Q",
        Role::King => "K",
    }
}

/// The `moves` table for `rows`.
pub(crate) fn moves_frame(rows: &[MoveRow]) -> PolarsResult<DataFrame> {
    let columns = vec![
        col(moves::GAME_ID, values(rows, |r| r.game_id)),
        col(moves::PLY, values(rows, |r| r.facts.ply)),
        col(moves::MOVE_NUMBER, values(rows, |r| r.facts.move_number)),
        col(moves::COLOR, values(rows, |r| color_name(r.facts.mover))),
        formatted_column(moves::SAN, rows, |r, out| {
            write!(out, "{}", r.facts.san).ok()
        })?,
        formatted_column(moves::UCI, rows, |r, out| {
            write!(out, "{}", r.facts.uci).ok()
        })?,
        col(moves::PIECE, values(rows, |r| piece_letter(r.facts.piece))),
        col(moves::IS_CAPTURE, values(rows, |r| r.facts.is_capture)),
        col(moves::IS_CHECK, values(rows, |r| r.facts.is_check())),
        col(
            moves::IS_CHECKMATE,
            values(rows, |r| r.facts.is_checkmate()),
        ),
        col(
            moves::PROMOTION,
            values(rows, |r| r.facts.promotion.map(piece_letter)),
        ),
        col(
            moves::POSITION_KEY,
            values(rows, |r| stored_key(r.position_key)),
        ),
        col(
            moves::MATERIAL_DIFF,
            values(rows, |r| r.facts.material_diff),
        ),
        col(moves::CLOCK_MS, values(rows, |r| r.clock_ms)),
        col(moves::MOVE_TIME_MS, values(rows, |r| r.move_time_ms)),
        col(moves::EVAL_CP, values(rows, |r| r.eval_cp)),
        col(moves::EVAL_MATE, values(rows, |r| r.eval_mate)),
        col(moves::EVAL_DEPTH, values(rows, |r| r.eval_depth)),
        nags_column(rows)?,
    ];
    table_frame(&moves::TABLE, rows.len(), columns)
}

/// `nags`: List<Int32>, empty for a move without NAGs.
fn nags_column(rows: &[MoveRow]) -> PolarsResult<Column> {
    let mut nags = Vec::new();
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    offsets.push(0i64);
    for row in rows {
        nags.extend(row.nags.iter().map(|&nag| i32::from(nag)));
        offsets.push(nags.len() as i64);
    }
    let item = ArrowField::new("item".into(), ArrowDataType::Int32, true);
    let list = ListArray::<i64>::try_new(
        ArrowDataType::LargeList(Box::new(item)),
        OffsetsBuffer::try_from(offsets)?,
        PrimitiveArray::from_vec(nags).boxed(),
        None,
    )?;
    Ok(Series::from_arrow(moves::NAGS.name.into(), list.boxed())?.into_column())
}
