//! Explorer, a position's moves: the rows of one position in
//! `openings.parquet` (a move at one speed, rating band and month each)
//! summed per move over the rows the filters keep, through the counters
//! the tree was counted with (`Counts`, `Ratings`). What `explore` prints
//! and what an explorer server answers both start here.

use std::collections::HashMap;

use polars::prelude::*;

use super::filters::Bounds;
use crate::error::ExploreError;
use crate::lake::COMPACTED;
use crate::read::keyed::KeyedFiles;
use crate::read::source::Data;
use crate::replay::openings;
use crate::sink::columns::{ColumnError, Columns};
use crate::sink::schema::Table;
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
    /// The best-rated game of each row kept, with its rating: the top
    /// games are the best of these (a row names no other). In a lake, the
    /// rows of one key in several partitions are one row here: the game
    /// a single import of all their games would name (see [`sum_rows`]).
    pub best: Vec<RatedGame>,
    /// The latest game of each row kept (a lake's rows of one key as one).
    pub latest: Vec<RowGame>,
    /// The rows kept summed by their month (rows without one in none).
    pub by_month: std::collections::BTreeMap<crate::model::Month, Counts>,
    /// The move's first game: the first (see [`GameOrder`]) of the games
    /// of its first month, or of its games without a month when none has
    /// one.
    pub first: Option<FirstGame>,
}

/// A move's first game and its month.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FirstGame {
    pub month: Option<crate::model::Month>,
    pub game: RowGame,
}

impl FirstGame {
    /// The earlier of two: by month (a known month before none), then in
    /// the lake's order of games.
    fn earlier(a: Option<FirstGame>, b: FirstGame, order: &GameOrder) -> FirstGame {
        let key = |f: &FirstGame| (f.month.is_none(), f.month, order.key(&f.game));
        match a {
            Some(a) if key(&a) <= key(&b) => a,
            _ => b,
        }
    }
}

impl MoveSums {
    /// The game, when the rows kept hold one game (lichess's
    /// `moves[].game`): then one row is kept, and its game is its latest.
    pub(crate) fn single_game(&self) -> Option<&RowGame> {
        match (self.counts.games, self.latest.as_slice()) {
            (1, [game]) => Some(game),
            _ => None,
        }
    }
}

/// The order of the games a lake's tree rows name, without their offsets:
/// the compacted partition's games first, then each import's in the order
/// the lake lists them (its names' order), as `top_games::GameIds::of` numbers
/// them; within a partition by id. What a row of all the partitions'
/// games would keep, when their rows of one key are taken as one (see
/// this file's `sum_rows`): ties go to the game read later.
#[derive(Debug, Default)]
pub(crate) struct GameOrder {
    /// Each partition's place (none in an import's folder).
    ranks: HashMap<String, usize>,
}

impl GameOrder {
    pub(crate) fn of(data: &Data) -> GameOrder {
        // A compacted import's own rows are in `_compacted`: its place
        // among the others is never asked.
        GameOrder::of_imports(data.imports().map(|(name, _)| name))
    }

    /// The order of a lake listing `imports` (in its order).
    pub(crate) fn of_imports<'a>(imports: impl Iterator<Item = &'a str>) -> GameOrder {
        let names = std::iter::once(COMPACTED).chain(imports);
        GameOrder {
            ranks: names
                .enumerate()
                .map(|(rank, name)| (name.to_owned(), rank))
                .collect(),
        }
    }

    /// What `game` is ordered by: as `top_games::GameAt::order` orders
    /// the games placed (a partition the lake does not list last, which
    /// `top_games::GameIds::place` refuses).
    pub(crate) fn key(&self, game: &RowGame) -> (usize, i64) {
        let rank = match &game.partition {
            None => 0,
            Some(name) => self.ranks.get(name).copied().unwrap_or(usize::MAX),
        };
        (rank, game.id)
    }
}

/// A game a tree row names, as stored: its id in the row's partition.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct RowGame {
    /// In a lake, the row's partition (`import`): an import's name, whose
    /// `games.game_id` the id is, or `_compacted`, whose ids number the
    /// covered imports' games one after another. None in an import's
    /// folder.
    pub partition: Option<String>,
    pub id: i64,
}

/// A row's best-rated game and its rating, `white_elo + black_elo` (None
/// unless both are known).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RatedGame {
    pub game: RowGame,
    pub rating: Option<i64>,
    /// The row's speed, band and month (lichess ranks top games by them).
    pub row: Dimensions,
}

/// A position's moves, each summed over the rows kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PositionSums {
    /// Most played first, ties by SAN; a move none of whose rows is kept
    /// is left out.
    pub moves: Vec<MoveSums>,
    /// The games of all the position's rows, kept or not.
    pub all_games: u64,
    /// The rows kept summed by their month (lichess's `history`; rows
    /// without a month are in none).
    pub by_month: std::collections::BTreeMap<crate::model::Month, Counts>,
    /// The first and last month of any of the position's rows within the
    /// months kept, whatever else the filters say (lila's `history` runs
    /// over the months with games of the position).
    pub months: Option<(crate::model::Month, crate::model::Month)>,
}

impl PositionSums {
    /// The games of the rows kept.
    pub(crate) fn games(&self) -> u64 {
        self.moves.iter().map(|m| m.counts.games).sum()
    }
}

/// The moves of the position `pos`, summed over the rows `bounds` keep,
/// from the opening tree of `data` (its rows found by the position's key
/// in the row groups that can hold it, through the footers `files`
/// keeps; the moves spelled from the position, as rows of one game are
/// not).
pub(crate) fn read_position(
    data: &Data,
    pos: &Chess,
    bounds: &Bounds,
    files: &KeyedFiles,
) -> Result<PositionSums, ExploreError> {
    let key = openings::stored_key(openings::position_key(pos));
    let path = data.table_path(&table::TABLE);
    let key_column = table::POSITION_KEY.name;
    let frame = rows_of_key(data, &table::TABLE, key_column, key, Some(&SUMMED), files)?
        .ok_or(ExploreError::MissingTable { path: path.clone() })?;
    let order = GameOrder::of(data);
    Ok(sum_rows(Columns::new(&frame, &path), pos, bounds, &order)?)
}

/// The columns of the tree [`sum_rows`] reads (not the spelling: the text
/// columns are most of a row group's bytes).
const SUMMED: [&str; 18] = [
    table::MOVE_UCI.name,
    table::TIME_CLASS.name,
    table::RATING_BAND.name,
    table::MONTH.name,
    table::LAST_YEAR.name,
    "games",
    "white_wins",
    "draws",
    "black_wins",
    table::WHITE_ELO_SUM.name,
    table::WHITE_ELO_COUNT.name,
    table::BLACK_ELO_SUM.name,
    table::BLACK_ELO_COUNT.name,
    table::GAME_ID.name,
    table::TOP_GAME_ID.name,
    table::TOP_GAME_ELO_SUM.name,
    table::FIRST_GAME_ID.name,
    table::LAST_GAME_ID.name,
];

/// The rows of `table` whose `key` column is `value`, with `columns` (all
/// without), from every file of `data` (in a lake with the import's name
/// as column `import`); None when no import has the table.
pub(crate) fn rows_of_key(
    data: &Data,
    table: &Table,
    key: &str,
    value: i64,
    columns: Option<&[&str]>,
    files: &KeyedFiles,
) -> Result<Option<DataFrame>, ExploreError> {
    let mut all: Option<DataFrame> = None;
    for (import, path) in data.files(table) {
        let mut rows = files.rows_of(&path, key, false, value, columns)?;
        if data.is_lake() {
            let name = Column::new(
                crate::lake::PARTITION_COLUMN.into(),
                vec![import; rows.height()],
            );
            rows.with_column(name).map_err(|e| ExploreError::Table {
                path: path.clone(),
                message: e.to_string(),
            })?;
        }
        match &mut all {
            None => all = Some(rows),
            Some(all) => {
                all.vstack_mut(&rows).map_err(|e| ExploreError::Table {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
            }
        }
    }
    Ok(all)
}

/// The rows of one position summed per move (in the order moves first
/// appear, then sorted), and the games of all of them. A lake's
/// partitions each hold their rows of a key (a move at one speed, rating
/// band and month): they name the games one row of all their games
/// names, the top game the greatest (rating sum, game) and the latest
/// the greatest game, games ordered by `order` (as the merge of
/// `lake --compact` and `pgnlake merge` keeps them).
pub(crate) fn sum_rows(
    rows: Columns<'_>,
    pos: &Chess,
    bounds: &Bounds,
    order: &GameOrder,
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
    let named = NamedGames::read(&rows)?;
    let mut position = PositionSums::default();
    // The games named per key, in the order keys first appear.
    let mut keys: Vec<KeyGames> = Vec::new();
    let mut key_index: std::collections::HashMap<(usize, Dimensions), usize> =
        std::collections::HashMap::new();
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
        if let Some(month) = dims.calendar_month().filter(|&m| bounds.keeps_month(m)) {
            position.months = Some(match position.months {
                Some((first, last)) => (first.min(month), last.max(month)),
                None => (month, month),
            });
        }
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
        if let Some(month) = dims.calendar_month() {
            *position.by_month.entry(month).or_default() += counts;
        }
        let RowGames {
            best,
            latest,
            first,
        } = named.of_row(&rows, row, counts.games, &ratings, dims)?;
        match key_index.entry((index, dims)) {
            std::collections::hash_map::Entry::Occupied(at) => {
                keys[*at.get()].add(counts.games, best, latest, order);
            }
            std::collections::hash_map::Entry::Vacant(at) => {
                at.insert(keys.len());
                keys.push(KeyGames {
                    index,
                    games: counts.games,
                    best,
                    latest,
                });
            }
        }
        let sum = &mut position.moves[index];
        if let Some(month) = dims.calendar_month() {
            *sum.by_month.entry(month).or_default() += counts;
        }
        let first = FirstGame {
            month: dims.calendar_month(),
            game: first,
        };
        sum.first = Some(FirstGame::earlier(sum.first.take(), first, order));
        sum.counts += counts;
        sum.ratings += &ratings;
        let year = last_year[row].and_then(|y| i32::try_from(y).ok());
        sum.last_year = sum.last_year.max(year);
    }
    for key in keys {
        let sum = &mut position.moves[key.index];
        // A row of several games names a top game only with both ratings.
        sum.best
            .extend(key.best.filter(|b| key.games == 1 || b.rating.is_some()));
        sum.latest.push(key.latest);
    }
    position.moves.sort_by(|a, b| {
        b.counts
            .games
            .cmp(&a.counts.games)
            .then_with(|| a.san.cmp(&b.san))
    });
    Ok(position)
}

/// The games the rows of one key name, taken as one row's: see
/// [`sum_rows`].
struct KeyGames {
    /// The move's index in [`PositionSums::moves`].
    index: usize,
    games: u64,
    best: Option<RatedGame>,
    latest: RowGame,
}

impl KeyGames {
    /// Another partition's row of the key.
    fn add(&mut self, games: u64, best: Option<RatedGame>, latest: RowGame, order: &GameOrder) {
        self.games += games;
        let rank = |b: &RatedGame| (b.rating, order.key(&b.game));
        self.best = match (self.best.take(), best) {
            (Some(a), Some(b)) => Some(if rank(&b) > rank(&a) { b } else { a }),
            (a, b) => a.or(b),
        };
        if order.key(&latest) > order.key(&self.latest) {
            self.latest = latest;
        }
    }
}

/// The games a position's rows name, column by column.
struct NamedGames {
    /// A lake's rows name their partition.
    partition: Option<Vec<String>>,
    game_id: Vec<i64>,
    top_game_id: Vec<Option<i64>>,
    top_game_elo_sum: Vec<Option<i64>>,
    first_game_id: Vec<Option<i64>>,
    last_game_id: Vec<Option<i64>>,
}

/// The games one row names.
struct RowGames {
    /// Its best-rated game (none when the row holds several games and
    /// none of them has both ratings).
    best: Option<RatedGame>,
    latest: RowGame,
    first: RowGame,
}

impl NamedGames {
    fn read(rows: &Columns<'_>) -> Result<NamedGames, ColumnError> {
        let partition = match rows.has(crate::lake::PARTITION_COLUMN) {
            true => Some(rows.required_texts(crate::lake::PARTITION_COLUMN)?),
            false => None,
        };
        Ok(NamedGames {
            partition,
            game_id: rows.required_ints(table::GAME_ID.name)?,
            top_game_id: rows.ints(table::TOP_GAME_ID.name)?,
            top_game_elo_sum: rows.ints(table::TOP_GAME_ELO_SUM.name)?,
            first_game_id: rows.ints(table::FIRST_GAME_ID.name)?,
            last_game_id: rows.ints(table::LAST_GAME_ID.name)?,
        })
    }

    /// Row `row`'s best-rated, latest and first game. A row of one game
    /// names it in `game_id`, its rating in the rating sums; a row of more
    /// in `top_game_id`, `last_game_id` and `first_game_id`.
    fn of_row(
        &self,
        rows: &Columns<'_>,
        row: usize,
        games: u64,
        ratings: &Ratings,
        dims: Dimensions,
    ) -> Result<RowGames, ColumnError> {
        let game = |id: i64| RowGame {
            partition: self.partition.as_ref().map(|names| names[row].clone()),
            id,
        };
        if games == 1 {
            let one = game(self.game_id[row]);
            let rating = (ratings.white_count == 1 && ratings.black_count == 1)
                .then(|| i64::try_from(ratings.white_sum + ratings.black_sum).ok())
                .flatten();
            let best = RatedGame {
                game: one.clone(),
                rating,
                row: dims,
            };
            return Ok(RowGames {
                best: Some(best),
                latest: one.clone(),
                first: one,
            });
        }
        let named = |values: &[Option<i64>], column: &str| {
            values[row].ok_or_else(|| {
                rows.error(format!(
                    "column {column:?} holds a null on a row of {games} games"
                ))
            })
        };
        let last = named(&self.last_game_id, table::LAST_GAME_ID.name)?;
        // No first game: the witness is the first.
        let first = self.first_game_id[row].unwrap_or(self.game_id[row]);
        let best = match (self.top_game_id[row], self.top_game_elo_sum[row]) {
            (Some(id), Some(rating)) => Some(RatedGame {
                game: game(id),
                rating: Some(rating),
                row: dims,
            }),
            (None, None) => None,
            _ => {
                return Err(rows.error(format!(
                    "columns {:?} and {:?} are not both null or both set on a row",
                    table::TOP_GAME_ID.name,
                    table::TOP_GAME_ELO_SUM.name
                )));
            }
        };
        Ok(RowGames {
            best,
            latest: game(last),
            first: game(first),
        })
    }
}

/// The move `uci` from `pos` in SAN with `+` / `#`; None unless legal.
pub(crate) fn san_of(pos: &Chess, uci: &str) -> Option<String> {
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

    #[test]
    fn the_tree_is_read_from_columns_written_in_small_pages() {
        for name in SUMMED.iter().chain([&table::POSITION_KEY.name]) {
            let column = table::TABLE.columns.iter().find(|c| c.name == *name);
            assert_eq!(column.map(|c| c.scanned_only), Some(false), "{name}");
        }
    }

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
            "game_id" => [1i64, 2, 9],
            "top_game_id" => [Some(4i64), None, Some(9)],
            "top_game_elo_sum" => [Some(4000i64), None, Some(4900)],
            "first_game_id" => [None::<i64>, None, Some(6)],
            "last_game_id" => [Some(7i64), Some(8), Some(9)],
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn game(id: i64) -> RowGame {
        RowGame {
            partition: None,
            id,
        }
    }

    /// The dimensions of a blitz row of `band`, without a month.
    fn blitz(band: i32) -> Dimensions {
        dimensions("blitz", Some(i64::from(band)), None).unwrap_or_else(|| panic!("{band}"))
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
        let sums = sum_rows(
            columns,
            &Chess::default(),
            &bounds(&Filters::default()),
            &GameOrder::default(),
        );
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
            best: vec![
                RatedGame {
                    game: game(4),
                    rating: Some(4000),
                    row: blitz(2000),
                },
                RatedGame {
                    game: game(9),
                    rating: Some(4900),
                    row: blitz(2400),
                },
            ],
            latest: vec![game(7), game(9)],
            // The rows have no month.
            by_month: Default::default(),
            first: Some(FirstGame {
                month: None,
                game: game(1),
            }),
        };
        assert_eq!(sums.moves.first().map(|m| m.uci.as_str()), Some("d2d4"));
        // d4's row of five games names no rated game.
        assert_eq!(sums.moves.first().map(|m| m.best.len()), Some(0));
        assert_eq!(sums.moves.get(1), Some(&e4));
        assert_eq!(e4.counts.unfinished(), 1);
    }

    #[test]
    fn the_filters_keep_their_rows_and_the_position_keeps_its_games() {
        let frame = rows();
        let columns = Columns::new(&frame, Path::new("openings.parquet"));
        let filters = Filters::parse(Some("blitz"), Some("2400"), None, None)
            .unwrap_or_else(|e| panic!("{e}"));
        let sums = sum_rows(
            columns,
            &Chess::default(),
            &bounds(&filters),
            &GameOrder::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((sums.games(), sums.all_games), (2, 10));
        assert_eq!(sums.moves.len(), 1);
    }

    #[test]
    fn a_row_of_one_game_names_it_rated_only_with_both_ratings() {
        let frame = df!(
            "move_uci" => ["e2e4", "d2d4", "d2d4"],
            "time_class" => ["blitz", "blitz", "rapid"],
            "rating_band" => [Some(2000i32), None, None],
            "month" => [None::<i32>, None, None],
            "last_year" => [None::<i32>, None, None],
            "games" => [1i64, 1, 1],
            "white_wins" => [1i64, 0, 0],
            "draws" => [0i64, 0, 0],
            "black_wins" => [0i64, 1, 1],
            "white_elo_sum" => [2100i64, 2000, 0],
            "white_elo_count" => [1i64, 1, 0],
            "black_elo_sum" => [1900i64, 0, 0],
            "black_elo_count" => [1i64, 0, 0],
            "game_id" => [5i64, 6, 8],
            "top_game_id" => [None::<i64>, None, None],
            "top_game_elo_sum" => [None::<i64>, None, None],
            "first_game_id" => [None::<i64>, None, None],
            "last_game_id" => [None::<i64>, None, None],
            "import" => ["a", "_compacted", "b"],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let columns = Columns::new(&frame, Path::new("openings"));
        let sums = sum_rows(
            columns,
            &Chess::default(),
            &bounds(&Filters::default()),
            &GameOrder::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let in_lake = |partition: &str, id| RowGame {
            partition: Some(partition.to_owned()),
            id,
        };
        let [d4, e4] = [0, 1].map(|i| sums.moves.get(i).cloned().unwrap_or_default());
        assert_eq!(
            e4.best,
            [RatedGame {
                game: in_lake("a", 5),
                rating: Some(4000),
                row: blitz(2000),
            }]
        );
        assert_eq!(e4.single_game(), Some(&in_lake("a", 5)));
        let ratings: Vec<Option<i64>> = d4.best.iter().map(|b| b.rating).collect();
        assert_eq!(ratings, [None, None]);
        assert_eq!(d4.latest, [in_lake("_compacted", 6), in_lake("b", 8)]);
        assert_eq!(d4.single_game(), None);
        // Without a month, the first in the order (one that knows no
        // partition: by id).
        let first = d4.first.map(|f| f.game);
        assert_eq!(first, Some(in_lake("_compacted", 6)));
    }

    #[test]
    fn a_moves_first_game_is_the_first_of_its_first_month() {
        let m = |text: &str| text.parse::<crate::model::Month>().ok();
        let first = |month, partition: &str, id| FirstGame {
            month,
            game: RowGame {
                partition: Some(partition.to_owned()),
                id,
            },
        };
        let order = GameOrder::of_imports(["a", "b"].into_iter());
        let early = first(m("2020-01"), "b", 9);
        // A later month loses to an earlier one whatever its game...
        let pick = FirstGame::earlier(Some(early.clone()), first(m("2020-02"), "a", 0), &order);
        assert_eq!(pick, early);
        // ...a game without a month to any with one...
        let pick = FirstGame::earlier(Some(early.clone()), first(None, "_compacted", 0), &order);
        assert_eq!(pick, early);
        // ...and within a month, the lake's order: a's before b's.
        let a = first(m("2020-01"), "a", 50);
        assert_eq!(FirstGame::earlier(Some(early), a.clone(), &order), a);
    }

    #[test]
    fn a_lakes_rows_of_one_key_name_the_games_one_row_of_all_would() {
        // e4 at blitz 2600 in three partitions (compacted, a, b); d4 at
        // rapid, one unrated game in each of a and b; c4, one unrated
        // game in a.
        let frame = df!(
            "move_uci" => ["e2e4", "e2e4", "e2e4", "d2d4", "d2d4", "c2c4"],
            "time_class" => ["blitz", "blitz", "blitz", "rapid", "rapid", "rapid"],
            "rating_band" => [Some(2600i32), Some(2600), Some(2600), None, None, None],
            "month" => [None::<i32>, None, None, None, None, None],
            "last_year" => [None::<i32>, None, None, None, None, None],
            "games" => [3i64, 2, 1, 1, 1, 1],
            "white_wins" => [3i64, 2, 1, 1, 1, 1],
            "draws" => [0i64, 0, 0, 0, 0, 0],
            "black_wins" => [0i64, 0, 0, 0, 0, 0],
            "white_elo_sum" => [7800i64, 5200, 0, 0, 0, 0],
            "white_elo_count" => [3i64, 2, 0, 0, 0, 0],
            "black_elo_sum" => [7200i64, 4800, 0, 0, 0, 0],
            "black_elo_count" => [3i64, 2, 0, 0, 0, 0],
            "game_id" => [2i64, 0, 0, 3, 1, 4],
            "top_game_id" => [Some(5i64), Some(1), None, None, None, None],
            "top_game_elo_sum" => [Some(5000i64), Some(5000), None, None, None, None],
            "first_game_id" => [None::<i64>, None, None, None, None, None],
            "last_game_id" => [Some(7i64), Some(1), None, None, None, None],
            "import" => ["_compacted", "a", "b", "a", "b", "a"],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let columns = Columns::new(&frame, Path::new("openings"));
        let order = GameOrder::of_imports(["a", "b"].into_iter());
        let sums = sum_rows(
            columns,
            &Chess::default(),
            &bounds(&Filters::default()),
            &order,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let in_lake = |partition: &str, id| RowGame {
            partition: Some(partition.to_owned()),
            id,
        };
        let of = |uci: &str| {
            let found = sums.moves.iter().find(|m| m.uci == uci).cloned();
            found.unwrap_or_else(|| panic!("{uci}"))
        };
        let dims = dimensions("blitz", Some(2600), None);
        let e4 = of("e2e4");
        // The tie at 5000 goes to a's game, read after the compacted ones;
        // the latest is b's, read after a's.
        assert_eq!(
            e4.best,
            [RatedGame {
                game: in_lake("a", 1),
                rating: Some(5000),
                row: dims.unwrap_or_else(|| panic!("2600")),
            }]
        );
        assert_eq!(e4.latest, [in_lake("b", 0)]);
        // The first: the compacted partition's, numbered before a's.
        assert_eq!(e4.first.map(|f| f.game), Some(in_lake("_compacted", 2)));
        // Two unrated games: no top game, as a row of both names none.
        let d4 = of("d2d4");
        assert_eq!(
            (d4.best.len(), d4.latest.as_slice()),
            (0, &[in_lake("b", 1)][..])
        );
        assert_eq!(d4.single_game(), None);
        let c4 = of("c2c4");
        assert_eq!(c4.best.iter().map(|b| b.rating).collect::<Vec<_>>(), [None]);
        assert_eq!(c4.single_game(), Some(&in_lake("a", 4)));
    }

    /// The error of summing the rows with `column` in place of theirs.
    fn error_with(column: Column) -> Option<String> {
        let mut frame = rows();
        let name = column.name().to_string();
        frame
            .replace(&name, column)
            .unwrap_or_else(|e| panic!("{e}"));
        let columns = Columns::new(&frame, Path::new("openings.parquet"));
        sum_rows(
            columns,
            &Chess::default(),
            &bounds(&Filters::default()),
            &GameOrder::default(),
        )
        .err()
        .map(|e| e.to_string())
    }

    #[test]
    fn a_row_of_games_without_its_latest_is_an_error() {
        let latest = Column::new("last_game_id".into(), [Some(7i64), None, Some(9)]);
        assert_eq!(
            error_with(latest),
            Some(
                "openings.parquet: column \"last_game_id\" holds a null on a row of 5 games"
                    .to_owned()
            )
        );
    }

    #[test]
    fn a_row_without_its_first_game_has_its_witness_first() {
        let mut frame = rows();
        let first = Column::new("first_game_id".into(), [None::<i64>, Some(2), None]);
        frame
            .replace("first_game_id", first)
            .unwrap_or_else(|e| panic!("{e}"));
        let columns = Columns::new(&frame, Path::new("openings.parquet"));
        let order = GameOrder::default();
        let sums = sum_rows(
            columns,
            &Chess::default(),
            &bounds(&Filters::default()),
            &order,
        );
        let sums = sums.unwrap_or_else(|e| panic!("{e}"));
        let e4 = sums.moves.iter().find(|m| m.uci == "e2e4");
        // e4's rows: witnesses 1 and 9, neither naming another first game.
        assert_eq!(
            e4.and_then(|m| m.first.clone()).map(|f| f.game),
            Some(game(1))
        );
    }

    #[test]
    fn a_row_of_a_speed_pgnlake_does_not_write_is_an_error() {
        let speeds = Column::new("time_class".into(), ["blitz", "fast", "blitz"]);
        assert_eq!(
            error_with(speeds),
            Some(
                "openings.parquet: a row with a time class or rating band pgnlake \
                 does not write (\"fast\", None)"
                    .to_owned()
            )
        );
    }
}
