//! Explorer, top games (`explore --games N`): the games whose mainline
//! played a move from the position (`moves.parquet`), read from
//! `games.parquet`, kept by the same filters as the tree's rows through
//! their dimensions computed as the import computed them.

use polars::prelude::*;
use serde::Serialize;

use super::filters::Bounds;
use crate::error::ExploreError;
use crate::model::TimeClass;
use crate::model::calendar::civil_from_days;
use crate::read::source::Data;
use crate::replay::variant::VariantName;
use crate::sink::columns::{ColumnError, Columns};
use crate::sink::schema;
use crate::stats::dimensions::{Dimensions, OpeningPeriod};

/// A game that played a move (`explore --games`), from `games.parquet`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopGame {
    /// The lake import the game is in (a game id is unique per import).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub import: Option<String>,
    pub game_id: i64,
    pub white: Option<String>,
    pub black: Option<String>,
    pub white_elo: Option<i32>,
    pub black_elo: Option<i32>,
    pub result: Option<String>,
    pub date: Option<String>,
}

/// A game kept, with the move it played from the position.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlayedGame {
    pub uci: String,
    pub game: TopGame,
}

/// How the import built its tree: the games' dimensions are computed with
/// its period, and only plies within its depth were counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TreeShape {
    pub period: OpeningPeriod,
    pub plies: i32,
}

/// Every game the filters keep that played a move from the position whose
/// stored key is `key` (read from `played`, the moves table of `data`),
/// highest average rating first (games without both ratings last), then by
/// `game_id` and import.
pub(crate) fn ranked_games(
    data: &Data,
    played: LazyFrame,
    key: i64,
    bounds: &Bounds,
    tree: TreeShape,
) -> Result<Vec<PlayedGame>, ExploreError> {
    use schema::games as g;
    use schema::moves as m;
    let games_path = data.table_path(&g::TABLE);
    // In a lake a game is its import's name and its id.
    let game_key = |id: &str| match data.is_lake() {
        true => vec![col(crate::lake::PARTITION_COLUMN), col(id)],
        false => vec![col(id)],
    };
    // As the tree counts them: within the opening plies, of games from the
    // standard start under standard rules (a variant's board can have the
    // same key).
    let mut played_columns = game_key(m::GAME_ID.name);
    played_columns.push(col(m::UCI.name));
    let played = played
        .filter(
            col(m::POSITION_KEY.name)
                .eq(lit(key))
                .and(col(m::PLY.name).lt_eq(lit(tree.plies))),
        )
        .select(played_columns)
        .unique(None, UniqueKeepStrategy::First);
    let Some(games) = data.scan(&g::TABLE)? else {
        return Err(ExploreError::MissingTable { path: games_path });
    };
    let mut game_columns: Vec<Expr> = [
        g::WHITE,
        g::BLACK,
        g::WHITE_ELO,
        g::BLACK_ELO,
        g::DECLARED_RESULT,
        g::DATE,
        g::YEAR,
        g::MONTH,
        g::TIME_CLASS,
        g::VARIANT_NAME,
        g::START_FEN,
    ]
    .map(|c| col(c.name))
    .into();
    game_columns.extend(game_key(g::GAME_ID.name));
    let frame = games
        .select(game_columns)
        .join(
            played,
            game_key(g::GAME_ID.name),
            game_key(m::GAME_ID.name),
            JoinArgs::new(JoinType::Inner),
        )
        .filter(
            col(g::VARIANT_NAME.name)
                .eq(lit(VariantName::Standard.as_str()))
                .and(col(g::START_FEN.name).is_null()),
        )
        .collect()
        .map_err(|e| ExploreError::Table {
            path: games_path.clone(),
            message: e.to_string(),
        })?;
    let rows = game_rows(Columns::new(&frame, &games_path), tree.period)?;
    let mut kept: Vec<PlayedGame> = rows
        .into_iter()
        .filter(|(dims, _)| bounds.keeps(dims))
        .map(|(_, game)| game)
        .collect();
    // Stable: equal games stay in the order of the rows, as they were.
    kept.sort_by_key(|played| {
        let game = &played.game;
        let average = game
            .white_elo
            .zip(game.black_elo)
            .map(|(w, b)| i64::from(w) + i64::from(b));
        (
            std::cmp::Reverse(average),
            game.game_id,
            game.import.clone(),
        )
    });
    Ok(kept)
}

/// Each joined row as the game's dimensions and the game with its move.
fn game_rows(
    rows: Columns<'_>,
    period: OpeningPeriod,
) -> Result<Vec<(Dimensions, PlayedGame)>, ColumnError> {
    use schema::games as g;
    let (white, black, result, date_text) = (
        rows.texts(g::WHITE.name)?,
        rows.texts(g::BLACK.name)?,
        rows.texts(g::DECLARED_RESULT.name)?,
        rows.texts(g::DATE.name)?,
    );
    let (time_class, uci) = (
        rows.required_texts(g::TIME_CLASS.name)?,
        rows.required_texts(schema::moves::UCI.name)?,
    );
    let ids = rows.required_ints(g::GAME_ID.name)?;
    let (white_elo, black_elo, year, month) = (
        rows.ints(g::WHITE_ELO.name)?,
        rows.ints(g::BLACK_ELO.name)?,
        rows.ints(g::YEAR.name)?,
        rows.ints(g::MONTH.name)?,
    );
    // Only a lake's rows name their import.
    let imports = match rows.has(crate::lake::PARTITION_COLUMN) {
        true => Some(rows.required_texts(crate::lake::PARTITION_COLUMN)?),
        false => None,
    };
    let small = |value: Option<i64>| value.and_then(|n| i32::try_from(n).ok());
    (0..rows.height())
        .map(|row| {
            let (white_elo, black_elo) = (small(white_elo[row]), small(black_elo[row]));
            let time_class = TimeClass::parse(&time_class[row]).ok_or_else(|| {
                rows.error(format!(
                    "column {:?} holds {:?}, not a time class pgnlake writes",
                    g::TIME_CLASS.name,
                    time_class[row]
                ))
            })?;
            // As the import made them: the month, else the year alone.
            let date = match month[row] {
                Some(days) => {
                    let (year, month, _) = civil_from_days(days);
                    Some((year, Some(month)))
                }
                None => year[row].map(|year| (year, None)),
            };
            let dims = Dimensions::of(time_class, white_elo, black_elo, date, period);
            let game = TopGame {
                import: imports.as_ref().map(|names| names[row].clone()),
                game_id: ids[row],
                white: white[row].clone(),
                black: black[row].clone(),
                white_elo,
                black_elo,
                result: result[row].clone(),
                date: date_text[row].clone(),
            };
            let uci = uci[row].clone();
            Ok((dims, PlayedGame { uci, game }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn a_game_of_a_speed_pgnlake_does_not_write_is_an_error() {
        let frame = df!(
            "white" => [Some("a")],
            "black" => [None::<&str>],
            "declared_result" => [Some("1-0")],
            "date" => [Some("2020.01.02")],
            "time_class" => ["fast"],
            "uci" => ["e2e4"],
            "game_id" => [4i64],
            "white_elo" => [Some(2000i32)],
            "black_elo" => [None::<i32>],
            "year" => [Some(2020i32)],
            "month" => [None::<i32>],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let rows = Columns::new(&frame, Path::new("games.parquet"));
        let error = game_rows(rows, OpeningPeriod::Month).err();
        assert_eq!(
            error.map(|e| e.to_string()),
            Some(
                "games.parquet: column \"time_class\" holds \"fast\", not a time class \
                 pgnlake writes"
                    .to_owned()
            )
        );
    }
}
