//! Explorer, a position's moves: the rows of one position in
//! `openings.parquet` (a move at one speed, rating band and month each)
//! summed per move over the rows the filters keep, through the counters
//! the tree was counted with (`Counts`, `Ratings`). What `explore` prints
//! and what an explorer server answers both start here.

use polars::prelude::*;

use super::filters::Bounds;
use crate::error::ExploreError;
use crate::read::source::Data;
use crate::replay::openings;
use crate::sink::columns::{ColumnError, Columns};
use crate::sink::schema::openings as table;
use crate::stats::counts::{Counts, Ratings};
use crate::stats::dimensions::Dimensions;
use shakmaty::Chess;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;

/// One move's rows summed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MoveSums {
    pub san: String,
    pub uci: String,
    pub counts: Counts,
    pub ratings: Ratings,
    /// The last year a game of the rows played it (none without dates).
    pub last_year: Option<i32>,
}

/// A position's moves, each summed over the rows kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PositionSums {
    /// Most played first, ties by SAN; a move none of whose rows is kept
    /// is left out.
    pub moves: Vec<MoveSums>,
    /// The games of all the position's rows, kept or not.
    pub all_games: u64,
}

impl PositionSums {
    /// The games of the rows kept.
    pub(crate) fn games(&self) -> u64 {
        self.moves.iter().map(|m| m.counts.games).sum()
    }
}

/// The moves of the position `pos`, summed over the rows `bounds` keep,
/// from the opening tree of `data` (its rows found by the position's key;
/// the moves spelled from the position, as rows of one game are not).
pub(crate) fn read_position(
    data: &Data,
    pos: &Chess,
    bounds: &Bounds,
) -> Result<PositionSums, ExploreError> {
    let key = openings::stored_key(openings::position_key(pos));
    let path = data.table_path(&table::TABLE);
    let Some(openings) = data.scan(&table::TABLE)? else {
        return Err(ExploreError::MissingTable { path });
    };
    let frame = openings
        .filter(col(table::POSITION_KEY.name).eq(lit(key)))
        .collect()
        .map_err(|e| ExploreError::Table {
            path: path.clone(),
            message: e.to_string(),
        })?;
    Ok(sum_rows(Columns::new(&frame, &path), pos, bounds)?)
}

/// The rows of one position summed per move (in the order moves first
/// appear, then sorted), and the games of all of them.
pub(crate) fn sum_rows(
    rows: Columns<'_>,
    pos: &Chess,
    bounds: &Bounds,
) -> Result<PositionSums, ColumnError> {
    let (uci, time_class) = (
        rows.required_texts(table::MOVE_UCI.name)?,
        rows.required_texts(table::TIME_CLASS.name)?,
    );
    let (band, month, last_year) = (
        rows.ints(table::RATING_BAND.name)?,
        rows.ints(table::MONTH.name)?,
        rows.ints(table::LAST_YEAR.name)?,
    );
    let counts = rows.result_counts()?;
    let ratings = rows.rating_sums()?;
    let mut position = PositionSums::default();
    for row in 0..rows.height() {
        let (counts, ratings) = (counts(row), ratings(row));
        position.all_games += counts.games;
        let dims = dimensions(&time_class[row], band[row], month[row]).ok_or_else(|| {
            rows.error(format!(
                "a row with a time class or rating band pgnlake does not write \
                 ({:?}, {:?})",
                time_class[row], band[row]
            ))
        })?;
        if !bounds.keeps(&dims) {
            continue;
        }
        let index = match position.moves.iter().position(|m| m.uci == uci[row]) {
            Some(index) => index,
            None => {
                let san = san_of(pos, &uci[row]).ok_or_else(|| {
                    rows.error(format!("move `{}` is not legal in the position", uci[row]))
                })?;
                position.moves.push(MoveSums {
                    san,
                    uci: uci[row].clone(),
                    ..MoveSums::default()
                });
                position.moves.len() - 1
            }
        };
        let sum = &mut position.moves[index];
        sum.counts += counts;
        sum.ratings += &ratings;
        let year = last_year[row].and_then(|y| i32::try_from(y).ok());
        sum.last_year = sum.last_year.max(year);
    }
    position.moves.sort_by(|a, b| {
        b.counts
            .games
            .cmp(&a.counts.games)
            .then_with(|| a.san.cmp(&b.san))
    });
    Ok(position)
}

/// The move `uci` from `pos` in SAN with `+` / `#`; None unless legal.
fn san_of(pos: &Chess, uci: &str) -> Option<String> {
    let m = UciMove::from_ascii(uci.as_bytes())
        .ok()?
        .to_move(pos)
        .ok()?;
    Some(SanPlus::from_move(pos.clone(), m).to_string())
}

/// A row's dimensions as the tree wrote them; None for values it does
/// not write (a band or month out of range included).
fn dimensions(time_class: &str, band: Option<i64>, month: Option<i64>) -> Option<Dimensions> {
    Dimensions::from_row(
        time_class,
        band.map(i32::try_from).transpose().ok()?,
        month.map(i32::try_from).transpose().ok()?,
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::read::explore::filters::Filters;
    use crate::stats::dimensions::OpeningPeriod;

    /// Rows of one position: e4 at blitz in two bands, d4 at bullet.
    fn rows() -> DataFrame {
        df!(
            "move_uci" => ["e2e4", "d2d4", "e2e4"],
            "time_class" => ["blitz", "bullet", "blitz"],
            "rating_band" => [Some(2000i32), None, Some(2400)],
            "month" => [None::<i32>, None, None],
            "last_year" => [Some(2019i32), Some(2021), None],
            "games" => [3i64, 5, 2],
            "white_wins" => [1i64, 2, 2],
            "draws" => [1i64, 0, 0],
            "black_wins" => [0i64, 3, 0],
            "white_elo_sum" => [6000i64, 0, 4800],
            "white_elo_count" => [3i64, 0, 2],
            "black_elo_sum" => [0i64, 0, 4900],
            "black_elo_count" => [0i64, 0, 2],
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn bounds(filters: &Filters) -> Bounds {
        filters
            .bounds(OpeningPeriod::Month)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn moves_are_summed_over_their_rows_most_played_first() {
        let frame = rows();
        let columns = Columns::new(&frame, Path::new("openings.parquet"));
        let sums = sum_rows(columns, &Chess::default(), &bounds(&Filters::default()));
        let sums = sums.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sums.all_games, 10);
        assert_eq!(sums.games(), 10);
        let e4 = MoveSums {
            san: "e4".into(),
            uci: "e2e4".into(),
            counts: Counts {
                games: 5,
                white_wins: 3,
                draws: 1,
                black_wins: 0,
            },
            ratings: Ratings {
                white_sum: 10800,
                white_count: 5,
                black_sum: 4900,
                black_count: 2,
            },
            last_year: Some(2019),
        };
        assert_eq!(sums.moves.first().map(|m| m.uci.as_str()), Some("d2d4"));
        assert_eq!(sums.moves.get(1), Some(&e4));
        assert_eq!(e4.counts.unfinished(), 1);
    }

    #[test]
    fn the_filters_keep_their_rows_and_the_position_keeps_its_games() {
        let frame = rows();
        let columns = Columns::new(&frame, Path::new("openings.parquet"));
        let filters = Filters::parse(Some("blitz"), Some("2400"), None, None)
            .unwrap_or_else(|e| panic!("{e}"));
        let sums = sum_rows(columns, &Chess::default(), &bounds(&filters))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((sums.games(), sums.all_games), (2, 10));
        assert_eq!(sums.moves.len(), 1);
    }

    #[test]
    fn a_row_of_a_speed_pgnlake_does_not_write_is_an_error() {
        let mut frame = rows();
        let speeds = Column::new("time_class".into(), ["blitz", "fast", "blitz"]);
        frame
            .replace("time_class", speeds)
            .unwrap_or_else(|e| panic!("{e}"));
        let columns = Columns::new(&frame, Path::new("openings.parquet"));
        let error = sum_rows(columns, &Chess::default(), &bounds(&Filters::default())).err();
        assert_eq!(
            error.map(|e| e.to_string()),
            Some(
                "openings.parquet: a row with a time class or rating band pgnlake \
                 does not write (\"fast\", None)"
                    .to_owned()
            )
        );
    }
}
