//! Sink stage, result and material tables: `results.parquet` streamed from
//! the merged aggregate in key order, `material.parquet` and
//! `endgames.parquet` (small) written at once.

use std::io;

use polars::prelude::*;

use super::openings::TreeWriteError;
use super::parquet::{ROW_GROUP_ROWS, TableWriter, col, table_frame};
use super::schema::{self, endgames, material, results};
use crate::replay::variant::VariantName;
use crate::stats::counts::Counts;
use crate::stats::outcomes::{EndgameKey, EndgameValue, MaterialTable, ResultKey, ResultValue};

/// `games`, `white_wins`, `draws`, `black_wins`, `unfinished`, as the
/// table declares them (`results` and `material` share them).
fn count_columns<'a>(
    [games, white_wins, draws, black_wins, unfinished]: [schema::Column; 5],
    counts: impl Iterator<Item = &'a Counts> + Clone,
) -> Vec<Column> {
    let of = |f: fn(&Counts) -> u64| counts.clone().map(f).collect::<Vec<u64>>();
    vec![
        col(games, of(|c| c.games)),
        col(white_wins, of(|c| c.white_wins)),
        col(draws, of(|c| c.draws)),
        col(black_wins, of(|c| c.black_wins)),
        col(unfinished, of(Counts::unfinished)),
    ]
}

/// The `results` table for a chunk of merged entries.
pub(crate) fn results_frame(entries: &[(ResultKey, ResultValue)]) -> PolarsResult<DataFrame> {
    let keys = || entries.iter().map(|(k, _)| k);
    let mut columns = vec![
        col(
            results::VARIANT_NAME,
            keys().map(ResultKey::variant_name).collect::<Vec<_>>(),
        ),
        col(
            results::YEAR,
            keys().map(ResultKey::year).collect::<Vec<_>>(),
        ),
        col(
            results::TIME_CLASS,
            keys().map(ResultKey::time_class).collect::<Vec<_>>(),
        ),
        col(
            results::RATING_DIFF_BUCKET,
            keys()
                .map(ResultKey::rating_diff_bucket)
                .collect::<Vec<_>>(),
        ),
        col(
            results::DECLARED_RESULT,
            keys().map(ResultKey::declared).collect::<Vec<_>>(),
        ),
        col(
            results::END_STATE,
            keys().map(ResultKey::end_state).collect::<Vec<_>>(),
        ),
        col(
            results::TERMINATION,
            entries
                .iter()
                .map(|(_, v)| v.termination.as_deref())
                .collect::<Vec<_>>(),
        ),
        col(
            results::DRAW_REASON,
            keys().map(ResultKey::draw_reason).collect::<Vec<_>>(),
        ),
    ];
    columns.extend(count_columns(
        [
            results::GAMES,
            results::WHITE_WINS,
            results::DRAWS,
            results::BLACK_WINS,
            results::UNFINISHED,
        ],
        entries.iter().map(|(_, v)| &v.counts),
    ));
    table_frame(&results::TABLE, entries.len(), columns)
}

/// Streams the merged results into `writer` in row groups; rows written.
pub(crate) fn write_results(
    merged: impl Iterator<Item = io::Result<(ResultKey, ResultValue)>>,
    writer: &mut TableWriter,
) -> Result<u64, TreeWriteError> {
    write_sorted(merged, writer, results_frame)
}

/// Streams an aggregate's merged entries into `writer` in row groups of
/// [`ROW_GROUP_ROWS`], each made by `frame`. Returns the rows written.
pub(crate) fn write_sorted<T>(
    merged: impl Iterator<Item = io::Result<T>>,
    writer: &mut TableWriter,
    frame: impl Fn(&[T]) -> PolarsResult<DataFrame>,
) -> Result<u64, TreeWriteError> {
    let mut chunk = Vec::with_capacity(ROW_GROUP_ROWS.min(4096));
    let mut rows = 0u64;
    for entry in merged {
        chunk.push(entry?);
        if chunk.len() >= ROW_GROUP_ROWS {
            writer.write(&frame(&chunk)?)?;
            rows += chunk.len() as u64;
            chunk.clear();
        }
    }
    writer.write(&frame(&chunk)?)?;
    Ok(rows + chunk.len() as u64)
}

/// The `material` table: one row per (checkpoint ply, material difference)
/// with games, by ply then difference.
pub(crate) fn material_frame(table: &MaterialTable) -> PolarsResult<DataFrame> {
    let rows: Vec<_> = table.rows().collect();
    let mut columns = vec![
        col(
            material::CHECKPOINT_PLY,
            rows.iter().map(|r| r.0).collect::<Vec<u32>>(),
        ),
        col(
            material::MATERIAL_DIFF,
            rows.iter().map(|r| r.1).collect::<Vec<i32>>(),
        ),
    ];
    columns.extend(count_columns(
        [
            material::GAMES,
            material::WHITE_WINS,
            material::DRAWS,
            material::BLACK_WINS,
            material::UNFINISHED,
        ],
        rows.iter().map(|r| r.2),
    ));
    table_frame(&material::TABLE, rows.len(), columns)
}

/// The `endgames` table: by variant (standard chess first), then most
/// played first, then by signature.
pub(crate) fn endgames_frame(
    mut entries: Vec<(EndgameKey, EndgameValue)>,
) -> PolarsResult<DataFrame> {
    let mut named: Vec<(VariantName, String, EndgameValue)> = entries
        .drain(..)
        .map(|(k, v)| (k.variant(), k.signature(), v))
        .collect();
    named.sort_by(|a, b| {
        (a.0.cmp(&b.0))
            .then_with(|| b.2.games.cmp(&a.2.games))
            .then_with(|| a.1.cmp(&b.1))
    });
    let of = |f: fn(&EndgameValue) -> u64| named.iter().map(|(_, _, v)| f(v)).collect::<Vec<u64>>();
    let columns = vec![
        col(
            endgames::VARIANT_NAME,
            named.iter().map(|(n, _, _)| n.as_str()).collect::<Vec<_>>(),
        ),
        col(
            endgames::ENDGAME_SIGNATURE,
            named.iter().map(|(_, s, _)| s.as_str()).collect::<Vec<_>>(),
        ),
        col(endgames::GAMES, of(|v| v.games)),
        col(endgames::STRONGER_SIDE_WINS, of(|v| v.stronger_side_wins)),
        col(endgames::DRAWS, of(|v| v.draws)),
        col(endgames::WEAKER_SIDE_WINS, of(|v| v.weaker_side_wins)),
        col(endgames::UNFINISHED, of(EndgameValue::unfinished)),
        col(endgames::PLIES_TO_END_SUM, of(|v| v.plies_sum)),
        col(
            endgames::AVG_PLIES_TO_END,
            named
                .iter()
                .map(|(_, _, v)| v.plies_sum as f64 / v.games.max(1) as f64)
                .collect::<Vec<f64>>(),
        ),
    ];
    table_frame(&endgames::TABLE, named.len(), columns)
}
