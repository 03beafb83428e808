//! Explorer, top and recent games (`explore --games N`, `--recent N`):
//! the games the tree's rows name (each row its best-rated and its latest
//! game, see `position`), so any import or lake lists them, ranked, placed
//! in their import (a lake's compacted rows number the games of every
//! covered import one after another) and read from `games.parquet`.

use std::collections::HashMap;
use std::path::PathBuf;

use polars::prelude::*;
use serde::Serialize;

use super::position::{RatedGame, RowGame};
use crate::error::ExploreError;
use crate::lake::{COMPACTED, PARTITION_COLUMN};
use crate::read::keyed::KeyedFiles;
use crate::read::source::Data;
use crate::sink::columns::{ColumnError, Columns};
use crate::sink::schema::{self, games as g};

/// A game of the tree (`explore --games`), from `games.parquet`.
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
    /// Its `time_class` (lichess's speed).
    pub time_class: String,
    /// Its month, `YYYY-MM` (None without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub month: Option<String>,
    /// Its year (None without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The lichess game id of its `Site`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lichess_id: Option<String>,
}

/// Where a game is: its import in a lake (None in a folder) and its
/// `games.game_id` there.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct GameAt {
    pub import: Option<String>,
    pub id: i64,
    /// Its place among all the games: the order they were read in, a
    /// lake's imports one after another as compaction numbers them (the
    /// compacted ones first, then the others by name).
    pub order: u64,
}

/// How the ids of a tree's rows are placed in their imports.
#[derive(Debug)]
pub(crate) struct GameIds {
    /// None for an import's folder.
    lake: Option<LakeIds>,
    /// The tree, for messages.
    openings: PathBuf,
}

#[derive(Debug)]
struct LakeIds {
    /// The compacted imports with their offsets, as the compacted
    /// partition numbers their games.
    compacted: Vec<(String, u64)>,
    /// Every import's offset in the order of all the lake's games.
    offsets: HashMap<String, u64>,
}

impl GameIds {
    /// The numbering of `data`'s games: in a lake, the compacted imports'
    /// offsets (as [`crate::lake::game_offsets`] numbers them, from the
    /// summaries `data` read), then the others'.
    pub(crate) fn of(data: &Data) -> Result<GameIds, ExploreError> {
        let openings = data.table_path(&schema::openings::TABLE);
        if !data.is_lake() {
            return Ok(GameIds {
                lake: None,
                openings,
            });
        }
        let games_read: HashMap<&str, u64> =
            data.imports().map(|(n, s)| (n, s.games_read)).collect();
        let read = |name: &String| {
            games_read.get(name.as_str()).copied().ok_or_else(|| {
                crate::lake::LakeError::CompactedUnlisted {
                    lake: data.dir().to_path_buf(),
                    name: name.clone(),
                }
            })
        };
        // Each compacted import's games follow those of the ones before it.
        let mut compacted = Vec::with_capacity(data.compacted().len());
        let mut next = 0u64;
        for name in data.compacted() {
            compacted.push((name.clone(), next));
            next = next.saturating_add(read(name)?);
        }
        // The uncompacted imports follow the compacted ones' games.
        let mut offsets: HashMap<String, u64> = compacted.iter().cloned().collect();
        for (name, summary) in data.imports() {
            if !offsets.contains_key(name) {
                offsets.insert(name.to_owned(), next);
                next = next.saturating_add(summary.games_read);
            }
        }
        Ok(GameIds {
            lake: Some(LakeIds { compacted, offsets }),
            openings,
        })
    }

    /// Where the game a row names is; an id no import can hold is an
    /// error naming the tree.
    pub(crate) fn place(&self, game: &RowGame) -> Result<GameAt, ExploreError> {
        let unplaced = |what: String| ExploreError::Table {
            path: self.openings.clone(),
            message: what,
        };
        let id = u64::try_from(game.id)
            .map_err(|_| unplaced(format!("a row names the game id {}", game.id)))?;
        let Some(lake) = &self.lake else {
            return Ok(GameAt {
                import: None,
                id: game.id,
                order: id,
            });
        };
        let partition = game
            .partition
            .as_deref()
            .ok_or_else(|| unplaced("a lake's row without its import".into()))?;
        if partition == COMPACTED {
            let (name, local) =
                crate::lake::import_of_game(&lake.compacted, id).ok_or_else(|| {
                    unplaced(format!(
                        "the compacted partition names game {id}, but no import is compacted"
                    ))
                })?;
            // At most the lake-wide id, so it fits as that did.
            let local = i64::try_from(local)
                .map_err(|_| unplaced(format!("game {id} of the compacted partition")))?;
            return Ok(GameAt {
                import: Some(name.to_owned()),
                id: local,
                order: id,
            });
        }
        let offset = lake.offsets.get(partition).ok_or_else(|| {
            unplaced(format!(
                "rows of import {partition}, which the lake does not list"
            ))
        })?;
        Ok(GameAt {
            import: Some(partition.to_owned()),
            id: game.id,
            // Ids come from a file: no overflow panics on a damaged one.
            order: offset.saturating_add(id),
        })
    }
}

/// The `n` best-rated of `candidates` (each row's best game): the highest
/// `white_elo + black_elo` first, games without both ratings after, ties
/// to the later game.
pub(crate) fn best_games(
    candidates: &[RatedGame],
    ids: &GameIds,
    n: usize,
) -> Result<Vec<GameAt>, ExploreError> {
    let mut placed = candidates
        .iter()
        .map(|c| Ok((c.rating, ids.place(&c.game)?)))
        .collect::<Result<Vec<_>, ExploreError>>()?;
    placed.sort_by_key(|(rating, game)| {
        (
            rating.is_none(),
            std::cmp::Reverse(*rating),
            std::cmp::Reverse(game.order),
        )
    });
    Ok(first_distinct(placed.into_iter().map(|(_, game)| game), n))
}

/// The `n` latest of `games` (each row's latest game, with what it is
/// the game of), latest first.
pub(crate) fn latest_games<T>(
    games: impl IntoIterator<Item = (T, RowGame)>,
    ids: &GameIds,
    n: usize,
) -> Result<Vec<(T, GameAt)>, ExploreError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut placed = games
        .into_iter()
        .map(|(of, game)| Ok((of, ids.place(&game)?)))
        .collect::<Result<Vec<_>, ExploreError>>()?;
    placed.sort_by_key(|(_, game)| std::cmp::Reverse(game.order));
    placed.truncate(n);
    Ok(placed)
}

/// The first `n` distinct games of `games`, in order (a game that played
/// the move twice, through a repetition, is in one row only; kept safe).
fn first_distinct(games: impl Iterator<Item = GameAt>, n: usize) -> Vec<GameAt> {
    let mut kept: Vec<GameAt> = Vec::new();
    for game in games {
        if kept.len() == n {
            break;
        }
        if !kept.contains(&game) {
            kept.push(game);
        }
    }
    kept
}

/// Games read from `games.parquet`, by import and id.
#[derive(Debug)]
pub(crate) struct FoundGames {
    path: PathBuf,
    games: HashMap<(Option<String>, i64), TopGame>,
}

impl FoundGames {
    /// The game at `at`; one not in the table is an error naming the
    /// table and the game (the tree and the games table disagree).
    pub(crate) fn get(&self, at: &GameAt) -> Result<TopGame, ExploreError> {
        if let Some(game) = self.games.get(&(at.import.clone(), at.id)) {
            return Ok(game.clone());
        }
        let game = match &at.import {
            Some(import) => format!("{} of import {import}", at.id),
            None => at.id.to_string(),
        };
        Err(ExploreError::MissingGame {
            path: self.path.clone(),
            game,
        })
    }
}

/// The columns of a game listed in an answer (read by game id).
const LISTED: [schema::Column; 12] = [
    g::GAME_ID,
    g::WHITE,
    g::BLACK,
    g::WHITE_ELO,
    g::BLACK_ELO,
    g::DECLARED_RESULT,
    g::DATE,
    g::TIME_CLASS,
    g::MONTH,
    g::YEAR,
    g::EVENT,
    g::LICHESS_ID,
];

/// The games `wanted` read from `games.parquet` (each once, however
/// often it is wanted), each from the row group of its import's file that
/// holds its id.
pub(crate) fn read_games(
    data: &Data,
    wanted: &[&GameAt],
    files: &KeyedFiles,
) -> Result<FoundGames, ExploreError> {
    let path = data.table_path(&g::TABLE);
    let mut wanted = wanted.to_vec();
    wanted.sort_by_key(|w| (w.import.clone(), w.id));
    wanted.dedup_by_key(|w| (w.import.clone(), w.id));
    let mut found = FoundGames {
        path: path.clone(),
        games: HashMap::new(),
    };
    if wanted.is_empty() {
        return Ok(found);
    }
    let tables = data.files(&g::TABLE);
    if tables.is_empty() {
        return Err(ExploreError::MissingTable { path });
    }
    let columns = LISTED.map(|c| c.name);
    for game in wanted {
        let import = game.import.as_deref().unwrap_or("");
        // A game of an import the lake no longer lists is not found.
        let Some((_, file)) = tables.iter().find(|(name, _)| name == import) else {
            continue;
        };
        let mut rows = files.rows_of(file, g::GAME_ID.name, true, game.id, Some(&columns))?;
        if let Some(import) = &game.import {
            let name = Column::new(PARTITION_COLUMN.into(), vec![import.clone(); rows.height()]);
            rows.with_column(name).map_err(|e| ExploreError::Table {
                path: file.clone(),
                message: e.to_string(),
            })?;
        }
        for game in games_of(Columns::new(&rows, file))? {
            found
                .games
                .insert((game.import.clone(), game.game_id), game);
        }
    }
    Ok(found)
}

/// The rows read as games.
pub(crate) fn games_of(rows: Columns<'_>) -> Result<Vec<TopGame>, ColumnError> {
    let (white, black, result, date) = (
        rows.texts(g::WHITE.name)?,
        rows.texts(g::BLACK.name)?,
        rows.texts(g::DECLARED_RESULT.name)?,
        rows.texts(g::DATE.name)?,
    );
    let (time_class, event, lichess_id) = (
        rows.required_texts(g::TIME_CLASS.name)?,
        rows.texts(g::EVENT.name)?,
        rows.texts(g::LICHESS_ID.name)?,
    );
    let (month, year) = (rows.ints(g::MONTH.name)?, rows.ints(g::YEAR.name)?);
    let ids = rows.required_ints(g::GAME_ID.name)?;
    let (white_elo, black_elo) = (rows.ints(g::WHITE_ELO.name)?, rows.ints(g::BLACK_ELO.name)?);
    // Only a lake's rows name their import.
    let imports = match rows.has(PARTITION_COLUMN) {
        true => Some(rows.required_texts(PARTITION_COLUMN)?),
        false => None,
    };
    let elo = |value: Option<i64>, column: &str| {
        value
            .map(|n| {
                i32::try_from(n)
                    .map_err(|_| rows.error(format!("column {column:?} holds {n}, not a rating")))
            })
            .transpose()
    };
    (0..rows.height())
        .map(|row| {
            Ok(TopGame {
                import: imports.as_ref().map(|names| names[row].clone()),
                game_id: ids[row],
                white: white[row].clone(),
                black: black[row].clone(),
                white_elo: elo(white_elo[row], g::WHITE_ELO.name)?,
                black_elo: elo(black_elo[row], g::BLACK_ELO.name)?,
                result: result[row].clone(),
                date: date[row].clone(),
                time_class: time_class[row].clone(),
                month: month_of(month[row], &rows)?,
                year: year[row].and_then(|y| i32::try_from(y).ok()),
                event: event[row].clone(),
                lichess_id: lichess_id[row].clone(),
            })
        })
        .collect()
}

/// A `month` column's day as `YYYY-MM`; a day that is no month's first is
/// an error naming the column.
fn month_of(day: Option<i64>, rows: &Columns<'_>) -> Result<Option<String>, ColumnError> {
    let Some(day) = day else {
        return Ok(None);
    };
    i32::try_from(day)
        .ok()
        .and_then(crate::model::Month::from_column)
        .map(|m| Some(m.to_string()))
        .ok_or_else(|| {
            rows.error(format!(
                "column {:?} holds day {day}, not a month",
                g::MONTH.name
            ))
        })
}

#[cfg(test)]
mod tests {
    use crate::read::explore::position::GameOrder;
    use std::path::Path;

    use super::*;

    #[test]
    fn games_listed_are_read_from_columns_written_in_small_pages() {
        assert!(LISTED.iter().all(|c| !c.scanned_only));
    }

    fn lake_ids() -> GameIds {
        let compacted = vec![("a".to_owned(), 0), ("b".to_owned(), 10)];
        let mut offsets: HashMap<String, u64> = compacted.iter().cloned().collect();
        offsets.insert("c".to_owned(), 15);
        GameIds {
            lake: Some(LakeIds { compacted, offsets }),
            openings: PathBuf::from("lake/openings"),
        }
    }

    fn row(partition: Option<&str>, id: i64) -> RowGame {
        RowGame {
            partition: partition.map(str::to_owned),
            id,
        }
    }

    fn at(import: &str, id: i64, order: u64) -> GameAt {
        GameAt {
            import: Some(import.to_owned()),
            id,
            order,
        }
    }

    #[test]
    fn a_compacted_id_is_placed_in_its_import_and_an_import_id_stays() {
        let ids = lake_ids();
        let place = |p, id| ids.place(&row(p, id)).map_err(|e| e.to_string());
        assert_eq!(place(Some("_compacted"), 12), Ok(at("b", 2, 12)));
        assert_eq!(place(Some("_compacted"), 3), Ok(at("a", 3, 3)));
        assert_eq!(place(Some("c"), 3), Ok(at("c", 3, 18)));
        assert_eq!(
            place(Some("d"), 3),
            Err("lake/openings: rows of import d, which the lake does not list".to_owned())
        );
        assert!(place(Some("c"), -1).is_err());
        let folder = GameIds {
            lake: None,
            openings: PathBuf::from("openings.parquet"),
        };
        assert_eq!(
            folder.place(&row(None, 7)).ok(),
            Some(GameAt {
                import: None,
                id: 7,
                order: 7
            })
        );
    }

    #[test]
    fn games_are_ordered_by_their_partition_as_they_are_placed() {
        // a and b compacted, c not: the order `explore` chooses a key's
        // game by, across partitions, is the order of the games placed.
        let ids = lake_ids();
        let order = GameOrder::of_imports(["a", "b", "c"].into_iter());
        let games = [
            row(Some("_compacted"), 3),
            row(Some("_compacted"), 12),
            row(Some("c"), 0),
            row(Some("c"), 4),
        ];
        for (x, y) in games.iter().zip(games.iter().skip(1)) {
            assert!(order.key(x) < order.key(y), "{x:?} {y:?}");
            let placed = |g| ids.place(g).map(|at| at.order).ok();
            assert!(placed(x) < placed(y), "{x:?} {y:?}");
        }
        assert_eq!(GameOrder::default().key(&row(None, 7)), (0, 7));
    }

    #[test]
    fn the_best_rated_come_first_then_the_unrated_ties_to_the_later() {
        let ids = lake_ids();
        let rated = |p, id, rating| RatedGame {
            game: row(Some(p), id),
            rating,
            row: crate::stats::dimensions::Dimensions::default(),
        };
        let candidates = [
            rated("c", 1, Some(3000)),
            rated("_compacted", 11, None),
            rated("_compacted", 2, Some(3000)),
            rated("c", 0, Some(3100)),
            rated("_compacted", 4, Some(2000)),
        ];
        let best = best_games(&candidates, &ids, 4).unwrap_or_else(|e| panic!("{e}"));
        // c:1 is read after a:2 (the compacted imports come first).
        assert_eq!(
            best,
            [at("c", 0, 15), at("c", 1, 16), at("a", 2, 2), at("a", 4, 4)]
        );
        let all = best_games(&candidates, &ids, 9).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(all.last(), Some(&at("b", 1, 11)));
        let latest = latest_games(
            [
                ("e4", row(Some("_compacted"), 12)),
                ("d4", row(Some("c"), 0)),
            ],
            &ids,
            1,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(latest, [("d4", at("c", 0, 15))]);
    }

    #[test]
    fn a_rating_out_of_range_is_an_error_naming_the_column() {
        let frame = df!(
            "white" => [Some("a")],
            "black" => [None::<&str>],
            "declared_result" => [Some("1-0")],
            "date" => [Some("2020.01.02")],
            "game_id" => [4i64],
            "white_elo" => [Some(i64::MAX)],
            "black_elo" => [None::<i64>],
            "time_class" => ["blitz"],
            "event" => [None::<&str>],
            "lichess_id" => [None::<&str>],
            "month" => [None::<i32>],
            "year" => [Some(2020i32)],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let rows = Columns::new(&frame, Path::new("games.parquet"));
        let error = games_of(rows).err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("games.parquet: column \"white_elo\" holds 9223372036854775807, not a rating")
        );
    }
}
