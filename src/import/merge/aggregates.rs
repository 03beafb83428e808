//! The import, merge, aggregates: the shards' `results`, `material`,
//! `endgames` and `opening_lines` added up. Each shard counted only its own
//! games, so every row of a key is summed over the shards and written
//! once, as the single import would have counted it; the column readers
//! shared with the tree's rows (counts, ratings, dimensions) are here too.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use crate::error::Error;
use crate::import::tables::{StatsWriters, write_frame};
use crate::replay::variant::VariantName;
use crate::sink::openings::opening_lines_frame;
use crate::sink::outcomes::{endgames_frame, material_frame, write_results};
use crate::sink::parquet::TableWriter;
use crate::sink::schema::{Column, Table, endgames, material, opening_lines, openings, results};
use crate::stats::counts::{Counts, Ratings};
use crate::stats::dimensions::Dimensions;
use crate::stats::lines::{LineKey, LineStats};
use crate::stats::outcomes::{
    EndgameKey, EndgameValue, MaterialTable, ResultKey, ResultRow, ResultValue,
};

use super::rows::{Columns, for_each_chunk, small, text_at};

/// The rating sums and counts that `openings` and `opening_lines` share
/// (the same names in both).
const RATING_COLUMNS: [Column; 4] = [
    openings::WHITE_ELO_SUM,
    openings::WHITE_ELO_COUNT,
    openings::BLACK_ELO_SUM,
    openings::BLACK_ELO_COUNT,
];

/// The shards' `results` rows added up, written in key order.
pub(super) fn merge_results(files: &[PathBuf], writer: &mut TableWriter) -> Result<(), Error> {
    let mut merged: BTreeMap<ResultKey, ResultValue> = BTreeMap::new();
    for file in files {
        for_each_chunk(file, |columns, rows| {
            let (year, bucket) = (
                columns.int(results::YEAR)?,
                columns.int(results::RATING_DIFF_BUCKET)?,
            );
            let (time_class, declared) = (
                columns.required_text(results::TIME_CLASS)?,
                columns.text(results::DECLARED_RESULT)?,
            );
            let (end_state, termination) = (
                columns.required_text(results::END_STATE)?,
                columns.text(results::TERMINATION)?,
            );
            let (draw_reason, variant) = (
                columns.text(results::DRAW_REASON)?,
                columns.required_text(results::VARIANT_NAME)?,
            );
            let counts = columns.result_counts()?;
            for row in 0..rows {
                let key_row = ResultRow {
                    variant_name: &variant[row],
                    year: small(&year, row),
                    time_class: &time_class[row],
                    rating_diff_bucket: small(&bucket, row),
                    declared: text_at(&declared, row),
                    end_state: &end_state[row],
                    draw_reason: text_at(&draw_reason, row),
                    termination: text_at(&termination, row),
                };
                let key = ResultKey::from_row(&key_row)
                    .ok_or_else(|| columns.bad_row("a results row with an unknown name"))?;
                let value = merged.entry(key).or_insert_with(|| ResultValue {
                    termination: key_row.termination.map(Into::into),
                    counts: Counts::default(),
                });
                value.counts += &counts(row);
            }
            Ok(())
        })?;
    }
    let path = writer.path().to_path_buf();
    write_results(merged.into_iter().map(Ok), writer).map_err(Error::write(&path))?;
    Ok(())
}

/// The games, results and ratings of a chunk of `openings` or
/// `opening_lines`, by row.
pub(super) fn rated_counts(
    columns: &Columns<'_>,
) -> Result<impl Fn(usize) -> (Counts, Ratings), Error> {
    let counts = columns.result_counts()?;
    let [wes, wec, bes, bec] = RATING_COLUMNS.map(|n| columns.counts(n));
    let (wes, wec, bes, bec) = (wes?, wec?, bes?, bec?);
    Ok(move |row: usize| {
        let elo = Ratings {
            white_sum: wes[row],
            white_count: wec[row],
            black_sum: bes[row],
            black_count: bec[row],
        };
        (counts(row), elo)
    })
}

/// `material`, `endgames` and `opening_lines` added up (small tables).
pub(super) fn merge_small_tables(
    files: &dyn Fn(&Table) -> Vec<PathBuf>,
    writers: &mut StatsWriters,
) -> Result<(), Error> {
    let mut material = MaterialTable::default();
    let mut endgames: HashMap<EndgameKey, EndgameValue> = HashMap::new();
    let mut lines: BTreeMap<LineKey, LineStats> = BTreeMap::new();
    let index = crate::replay::openings::index();
    for file in files(&material::TABLE) {
        for_each_chunk(&file, |columns, rows| {
            let (ply, diff) = (
                columns.int(material::CHECKPOINT_PLY)?,
                columns.int(material::MATERIAL_DIFF)?,
            );
            let counts = columns.result_counts()?;
            for row in 0..rows {
                let (ply, diff) = (small(&ply, row), small(&diff, row));
                let added = ply
                    .zip(diff)
                    .is_some_and(|(p, d)| material.add_row(p.unsigned_abs(), d, &counts(row)));
                if !added {
                    return Err(columns.bad_row("a material row off the table"));
                }
            }
            Ok(())
        })?;
    }
    for file in files(&endgames::TABLE) {
        for_each_chunk(&file, |columns, rows| {
            let signature = columns.required_text(endgames::ENDGAME_SIGNATURE)?;
            let variant = columns.required_text(endgames::VARIANT_NAME)?;
            let names = [
                endgames::GAMES,
                endgames::STRONGER_SIDE_WINS,
                endgames::DRAWS,
                endgames::WEAKER_SIDE_WINS,
                endgames::PLIES_TO_END_SUM,
            ];
            let [games, stronger, draws, weaker, plies] = names.map(|n| columns.counts(n));
            let (games, stronger, draws, weaker, plies) =
                (games?, stronger?, draws?, weaker?, plies?);
            for row in 0..rows {
                let key = VariantName::parse(&variant[row])
                    .and_then(|variant| EndgameKey::parse(&signature[row], variant))
                    .ok_or_else(|| {
                        columns.bad_row("an endgame signature pgnlake does not write")
                    })?;
                let value = endgames.entry(key).or_default();
                value.games += games[row];
                value.stronger_side_wins += stronger[row];
                value.draws += draws[row];
                value.weaker_side_wins += weaker[row];
                value.plies_sum += plies[row];
            }
            Ok(())
        })?;
    }
    for file in files(&opening_lines::TABLE) {
        for_each_chunk(&file, |columns, rows| {
            let (eco, name) = (
                columns.required_text(opening_lines::ECO)?,
                columns.required_text(opening_lines::OPENING_NAME)?,
            );
            let rated = rated_counts(columns)?;
            let dims = dimensions_of(
                columns,
                [
                    opening_lines::TIME_CLASS,
                    opening_lines::RATING_BAND,
                    opening_lines::MONTH,
                ],
            )?;
            let (ps, edc) = (
                columns.counts(opening_lines::PLIES_SUM)?,
                columns.counts(opening_lines::ELO_DIFF_COUNT)?,
            );
            // A sum of differences: negative when black is the stronger.
            let eds = columns.required_int(opening_lines::ELO_DIFF_SUM)?;
            for row in 0..rows {
                let id = index.id_of(&eco[row], &name[row]).ok_or_else(|| {
                    columns.bad_row("an opening name not in this version's table")
                })?;
                let dims = dims(row).ok_or_else(|| {
                    columns.bad_row("a time class or rating band pgnlake does not write")
                })?;
                let (results, elo) = rated(row);
                let stats = LineStats {
                    results,
                    elo,
                    plies_sum: ps[row],
                    elo_diff_sum: eds[row],
                    elo_diff_count: edc[row],
                };
                *lines.entry(LineKey { name_id: id, dims }).or_default() += &stats;
            }
            Ok(())
        })?;
    }
    write_frame(&mut writers.material, material_frame(&material))?;
    write_frame(
        &mut writers.endgames,
        endgames_frame(endgames.into_iter().collect()),
    )?;
    let lines: Vec<_> = lines.into_iter().collect();
    write_frame(&mut writers.opening_lines, opening_lines_frame(&lines))
}

/// The dimensions of a chunk's rows (`time_class`, `rating_band`, `month`
/// of `openings` or `opening_lines`); None for a row pgnlake does not write.
pub(super) fn dimensions_of(
    columns: &Columns<'_>,
    [time_class, rating_band, month]: [Column; 3],
) -> Result<impl Fn(usize) -> Option<Dimensions>, Error> {
    let (time_class, rating_band, month) = (
        columns.text(time_class)?,
        columns.int(rating_band)?,
        columns.int(month)?,
    );
    Ok(move |row| {
        let band = rating_band.get(row).copied().flatten();
        let month = month.get(row).copied().flatten();
        Dimensions::from_row(
            text_at(&time_class, row)?,
            band.map(i32::try_from).transpose().ok()?,
            month.map(i32::try_from).transpose().ok()?,
        )
    })
}
