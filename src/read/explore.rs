//! Explorer: one position of an import's opening tree, read back from
//! `openings.parquet`, as an opening explorer shows it: the moves played
//! there with their games, results, ratings and last year, summed over the
//! speeds, rating bands and months the filters keep (as the lichess
//! explorer filters its tree), with the top games of each move when the
//! import has `moves.parquet`.

use std::fmt::Write as _;
use std::path::Path;

use polars::prelude::*;
use serde::Serialize;
use shakmaty::fen::{Epd, Fen};
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use super::source::{Data, ScanError};
pub use crate::error::ExploreError;
use crate::model::calendar::civil_from_days;
use crate::model::{BandRange, Month, TimeClass};
use crate::replay::openings::{self, position_key, strip_move_number};
use crate::replay::variant::VariantName;
use crate::sink::schema::{self, openings as table};
use crate::stats::dimensions::{Dimensions, OpeningPeriod};

/// The position to explore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// SAN moves from the start position (move numbers allowed).
    Moves(Vec<String>),
    /// A FEN or EPD.
    Fen(String),
}

/// One move played from the position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoveLine {
    pub san: String,
    pub uci: String,
    pub games: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    pub unfinished: u64,
    pub white_percent: f64,
    pub draw_percent: f64,
    pub black_percent: f64,
    pub average_white_elo: Option<f64>,
    pub average_black_elo: Option<f64>,
    pub last_year: Option<i32>,
    /// `--games N`: the games that played the move, highest average
    /// rating first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_games: Option<Vec<TopGame>>,
}

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

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct OpeningLabel {
    pub eco: &'static str,
    pub name: &'static str,
}

/// The explorer view of one position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Explored {
    pub epd: String,
    /// As stored in the table (signed; see `openings::stored_key`).
    pub position_key: i64,
    pub opening: Option<OpeningLabel>,
    /// Games of the position the filters leave (all its games without).
    pub games: u64,
    /// The filters in force; absent when none.
    #[serde(skip_serializing_if = "Filters::is_empty")]
    pub filters: Filters,
    /// Games of the position before the filters (only with filters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_games: Option<u64>,
    /// Most played first; ties by SAN.
    pub moves: Vec<MoveLine>,
    /// The import's `--opening-min-games` when above 1: moves played in
    /// fewer games are not in the table, so `moves` and `games` may be
    /// incomplete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opening_min_games: Option<u64>,
    /// Why no top games are listed although `--games` asked for them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_games_note: Option<String>,
}

/// What `explore` keeps of the tree: time classes, a range of rating
/// bands and a range of months, each inclusive; an empty filter keeps all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Filters {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub speed: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<BandRange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<Month>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<Month>,
}

impl Filters {
    /// The filters of `explore`'s options; a bad value is an error naming
    /// it and what is allowed.
    pub(crate) fn parse(
        speed: Option<&str>,
        rating: Option<&str>,
        since: Option<&str>,
        until: Option<&str>,
    ) -> Result<Filters, ExploreError> {
        let mut filters = Filters::default();
        if let Some(list) = speed {
            for name in list.split(',').map(str::trim) {
                let class = TimeClass::parse(name)
                    .ok_or_else(|| bad_filter("--speed", name, &speeds_allowed()))?;
                if !filters.speed.contains(&class.as_str()) {
                    filters.speed.push(class.as_str());
                }
            }
        }
        if let Some(range) = rating {
            let bands = range.parse::<BandRange>();
            filters.rating = Some(bands.map_err(|e| bad_filter("--rating", range, &e.allowed))?);
        }
        let month = |option, text: &str| {
            text.parse::<Month>()
                .map_err(|e| bad_filter(option, text, &e.allowed))
        };
        filters.since = since.map(|m| month("--since", m)).transpose()?;
        filters.until = until.map(|m| month("--until", m)).transpose()?;
        if let (Some(since), Some(until)) = (filters.since, filters.until)
            && since > until
        {
            return Err(bad_filter(
                "--since",
                &since.to_string(),
                &format!("a month not after --until {until}"),
            ));
        }
        Ok(filters)
    }

    pub fn is_empty(&self) -> bool {
        *self == Filters::default()
    }

    /// The filters as the header shows them.
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.speed.is_empty() {
            parts.push(format!("speed {}", self.speed.join(",")));
        }
        if let Some(range) = self.rating {
            parts.push(format!("rating {range}"));
        }
        if let Some(since) = self.since {
            parts.push(format!("since {since}"));
        }
        if let Some(until) = self.until {
            parts.push(format!("until {until}"));
        }
        parts.join(", ")
    }

    /// The filters as bounds on a table's key columns, for an import made
    /// with `period`: with `year`, months compare by their year.
    fn bounds(&self, period: OpeningPeriod) -> Result<Bounds, ExploreError> {
        if period == OpeningPeriod::None && (self.since.is_some() || self.until.is_some()) {
            return Err(ExploreError::BadFilter {
                message: "--since/--until: this import has no months \
                          (it was made with --opening-period none)"
                    .to_owned(),
            });
        }
        let day = |m: Month| {
            let m = if period == OpeningPeriod::Year {
                m.january()
            } else {
                m
            };
            Some(m.first_day())
        };
        Ok(Bounds {
            speed: self.speed.clone(),
            bands: self.rating,
            since: self.since.and_then(day),
            until: self.until.and_then(day),
            dated: self.since.is_some() || self.until.is_some(),
        })
    }
}

/// The filters as tests on a row's dimensions.
struct Bounds {
    speed: Vec<&'static str>,
    bands: Option<BandRange>,
    since: Option<i32>,
    until: Option<i32>,
    /// A month filter is in force: rows without a month are left out.
    dated: bool,
}

impl Bounds {
    fn keeps(&self, dims: &Dimensions) -> bool {
        if !self.speed.is_empty() && !self.speed.contains(&dims.time_class()) {
            return false;
        }
        if let Some(range) = self.bands {
            if !dims.band().is_some_and(|band| range.contains(band)) {
                return false;
            }
        }
        if self.dated {
            let Some(month) = dims.month() else {
                return false;
            };
            if self.since.is_some_and(|s| month < s) || self.until.is_some_and(|u| month > u) {
                return false;
            }
        }
        true
    }
}

fn bad_filter(option: &str, value: &str, allowed: &str) -> ExploreError {
    ExploreError::BadFilter {
        message: format!("{option} {value:?}: expected {allowed}"),
    }
}

fn speeds_allowed() -> String {
    let names: Vec<&str> = TimeClass::ALL.iter().map(|t| t.as_str()).collect();
    format!("time classes separated by commas ({})", names.join(", "))
}

/// The position of `target`, with its opening name: for moves, the deepest
/// named position along them; for a FEN, the position's own name.
pub(crate) fn locate(target: &Target) -> Result<(Chess, Option<OpeningLabel>), ExploreError> {
    let index = openings::index();
    let (pos, name_id) = match target {
        Target::Moves(tokens) => {
            let mut pos = Chess::default();
            let mut keys = vec![position_key(&pos)];
            let sans = tokens
                .iter()
                .flat_map(|t| t.split_ascii_whitespace())
                .map(strip_move_number)
                .filter(|t| !t.is_empty());
            for (ply, token) in sans.enumerate() {
                let m = SanPlus::from_ascii(token.as_bytes())
                    .ok()
                    .and_then(|san| san.san.to_move(&pos).ok())
                    .ok_or_else(|| ExploreError::IllegalMove {
                        token: token.to_owned(),
                        ply: ply + 1,
                        fen: Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
                    })?;
                pos.play_unchecked(m);
                keys.push(position_key(&pos));
            }
            let name = index.classify(&keys).map(|found| found.name_id);
            (pos, name)
        }
        Target::Fen(text) => {
            let bad = |message: String| ExploreError::BadFen {
                fen: text.clone(),
                message,
            };
            let pos: Chess = Fen::from_ascii(text.trim().as_bytes())
                .map_err(|e| bad(e.to_string()))?
                .into_position(CastlingMode::Standard)
                .map_err(|e| bad(e.to_string()))?;
            let name = index.lookup(position_key(&pos));
            (pos, name)
        }
    };
    let opening = name_id.and_then(|id| index.name(id)).map(|n| OpeningLabel {
        eco: n.eco,
        name: n.name,
    });
    Ok((pos, opening))
}

/// Reads the moves of `target` from `DIR/openings.parquet`, summed over the
/// rows `filters` keep; with `top_games` > 0, up to that many games of
/// each move from `games.parquet` and `moves.parquet`.
pub(crate) fn explore(
    data: &Path,
    target: &Target,
    filters: &Filters,
    top_games: usize,
) -> Result<Explored, ExploreError> {
    let (pos, opening) = locate(target)?;
    let key = openings::stored_key(position_key(&pos));
    let data = Data::open(data)?;
    let path = data.table_path(&table::TABLE);
    let summaries = data.summaries();
    // A lake's imports agree on the tree's plies and period (checked when
    // each was imported); an import's folder has one summary or none.
    let summary = summaries.first();
    let period = summary.map_or(OpeningPeriod::Month, |s| s.opening_tree.period);
    let bounds = filters.bounds(period)?;
    let Some(openings) = data.scan(&table::TABLE).map_err(scan_error)? else {
        return Err(ExploreError::MissingTable { path });
    };
    let frame = openings
        .filter(col(table::POSITION_KEY.name).eq(lit(key)))
        .collect()
        .map_err(table_error(&path))?;
    let (mut moves, position_games) = move_lines(&frame, &bounds).map_err(table_error(&path))?;
    moves.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.san.cmp(&b.san)));
    let mut top_games_note = None;
    if top_games > 0 && !moves.is_empty() {
        // An import without --moves removes an earlier moves table.
        match data.scan(&schema::moves::TABLE).map_err(scan_error)? {
            Some(played) => {
                let plies = summary.map_or(i32::MAX, |s| {
                    i32::try_from(s.opening_tree.plies).unwrap_or(i32::MAX)
                });
                let tables = TopGameTables {
                    data: &data,
                    played,
                };
                add_top_games(tables, key, &bounds, (period, plies), top_games, &mut moves)?;
            }
            None => {
                top_games_note = Some(
                    "top games need moves.parquet: import with --moves to list them".to_owned(),
                )
            }
        }
    }
    let games = moves.iter().map(|m| m.games).sum();
    Ok(Explored {
        epd: Epd::from_position(&pos, EnPassantMode::Legal).to_string(),
        position_key: key,
        opening,
        games,
        position_games: (!filters.is_empty()).then_some(position_games),
        filters: filters.clone(),
        moves,
        opening_min_games: summaries
            .iter()
            .map(|s| u64::from(s.opening_tree.min_games))
            .max()
            .filter(|&n| n > 1),
        top_games_note,
    })
}

/// The sums of the rows of one move that the filters keep.
#[derive(Default)]
struct MoveSums {
    san: String,
    uci: String,
    counts: [u64; 5],
    ratings: [u64; 4],
    last_year: Option<i32>,
}

/// The moves of the position's rows, each summed over the rows `bounds`
/// keep (a move none of whose rows is kept is left out), and the games of
/// all its rows.
fn move_lines(frame: &DataFrame, bounds: &Bounds) -> PolarsResult<(Vec<MoveLine>, u64)> {
    let text = |column: schema::Column| texts(frame, column.name);
    let int = |column: schema::Column| ints(frame, column.name);
    let (san, uci, time_class) = (
        text(table::MOVE_SAN)?,
        text(table::MOVE_UCI)?,
        text(table::TIME_CLASS)?,
    );
    let (band, month, last_year) = (
        int(table::RATING_BAND)?,
        int(table::MONTH)?,
        int(table::LAST_YEAR)?,
    );
    let counts = [
        table::GAMES,
        table::WHITE_WINS,
        table::DRAWS,
        table::BLACK_WINS,
        table::UNFINISHED,
    ]
    .map(int);
    let ratings = [
        table::WHITE_ELO_SUM,
        table::WHITE_ELO_COUNT,
        table::BLACK_ELO_SUM,
        table::BLACK_ELO_COUNT,
    ]
    .map(int);
    let [games, white, draws, black, unfinished] = counts;
    let counts = [games?, white?, draws?, black?, unfinished?];
    let [ws, wc, bs, bc] = ratings;
    let ratings = [ws?, wc?, bs?, bc?];
    let at = |values: &[Option<i64>], row: usize| values.get(row).copied().flatten();
    let count = |values: &[Option<i64>], row: usize| {
        at(values, row)
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(0)
    };
    let mut sums: Vec<MoveSums> = Vec::new();
    let mut position_games = 0;
    for row in 0..frame.height() {
        position_games += count(&counts[0], row);
        let dims = time_class.get(row).cloned().flatten().and_then(|tc| {
            Dimensions::from_row(
                &tc,
                at(&band, row).and_then(|b| i32::try_from(b).ok()),
                at(&month, row).and_then(|m| i32::try_from(m).ok()),
            )
        });
        if !dims.is_some_and(|d| bounds.keeps(&d)) {
            continue;
        }
        let uci_text = uci.get(row).cloned().flatten().unwrap_or_default();
        let index = match sums.iter().position(|m| m.uci == uci_text) {
            Some(index) => index,
            None => {
                sums.push(MoveSums {
                    san: san.get(row).cloned().flatten().unwrap_or_default(),
                    uci: uci_text,
                    ..MoveSums::default()
                });
                sums.len() - 1
            }
        };
        let Some(sum) = sums.get_mut(index) else {
            continue;
        };
        for (total, column) in sum.counts.iter_mut().zip(&counts) {
            *total += count(column, row);
        }
        for (total, column) in sum.ratings.iter_mut().zip(&ratings) {
            *total += count(column, row);
        }
        let year = at(&last_year, row).and_then(|y| i32::try_from(y).ok());
        sum.last_year = sum.last_year.max(year);
    }
    let percent = |part: u64, whole: u64| {
        if whole == 0 {
            0.0
        } else {
            100.0 * part as f64 / whole as f64
        }
    };
    let average = |sum: u64, n: u64| (n > 0).then(|| sum as f64 / n as f64);
    let lines = sums
        .into_iter()
        .map(|m| {
            let [games, white, draws, black, unfinished] = m.counts;
            let [ws, wc, bs, bc] = m.ratings;
            MoveLine {
                san: m.san,
                uci: m.uci,
                games,
                white_wins: white,
                draws,
                black_wins: black,
                unfinished,
                white_percent: percent(white, games),
                draw_percent: percent(draws, games),
                black_percent: percent(black, games),
                average_white_elo: average(ws, wc),
                average_black_elo: average(bs, bc),
                last_year: m.last_year,
                top_games: None,
            }
        })
        .collect();
    Ok((lines, position_games))
}

/// Where the top games are read from: the data and its moves table.
struct TopGameTables<'a> {
    data: &'a Data,
    played: LazyFrame,
}

/// A table file that could not be scanned, as the explorer reports it.
fn scan_error(e: ScanError) -> ExploreError {
    ExploreError::Table {
        path: e.path,
        message: e.message,
    }
}

/// A polars error reading the table at `path`, as the explorer reports it.
fn table_error(path: &Path) -> impl Fn(PolarsError) -> ExploreError + '_ {
    move |e| ExploreError::Table {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// A text column's values.
fn texts(frame: &DataFrame, name: &str) -> PolarsResult<Vec<Option<String>>> {
    let values = frame.column(name)?.str()?;
    Ok((0..values.len())
        .map(|i| values.get(i).map(str::to_owned))
        .collect())
}

/// An integer (or date) column's values as i64.
fn ints(frame: &DataFrame, name: &str) -> PolarsResult<Vec<Option<i64>>> {
    let values = frame.column(name)?.cast(&DataType::Int64)?;
    let values = values.i64()?;
    Ok((0..values.len()).map(|i| values.get(i)).collect())
}

/// Fills each move's `top_games`: the games whose mainline played it from
/// the position (`moves.parquet`) that the filters keep, by their
/// dimensions computed as the import computes them, highest average rating
/// first (games without both ratings last), then by `game_id`.
fn add_top_games(
    tables: TopGameTables<'_>,
    key: i64,
    bounds: &Bounds,
    (period, plies): (OpeningPeriod, i32),
    top: usize,
    moves: &mut [MoveLine],
) -> Result<(), ExploreError> {
    use schema::games as g;
    use schema::moves as m;
    let games_path = tables.data.table_path(&g::TABLE);
    // In a lake a game is its import's name and its id.
    let game_key = |id: &str| match tables.data.is_lake() {
        true => vec![col(crate::lake::PARTITION_COLUMN), col(id)],
        false => vec![col(id)],
    };
    // As the tree counts them: within the opening plies, of games from the
    // standard start under standard rules (a variant's board can have the
    // same key).
    let mut played_columns = game_key(m::GAME_ID.name);
    played_columns.push(col(m::UCI.name));
    let played = tables
        .played
        .filter(
            col(m::POSITION_KEY.name)
                .eq(lit(key))
                .and(col(m::PLY.name).lt_eq(lit(plies))),
        )
        .select(played_columns)
        .unique(None, UniqueKeepStrategy::First);
    let Some(games) = tables.data.scan(&g::TABLE).map_err(scan_error)? else {
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
        .map_err(table_error(&games_path))?;
    let rows = top_game_rows(&frame, period).map_err(table_error(&games_path))?;
    for line in moves.iter_mut() {
        let mut games: Vec<&(String, Dimensions, TopGame)> = rows
            .iter()
            .filter(|(uci, dims, _)| *uci == line.uci && bounds.keeps(dims))
            .collect();
        games.sort_by_key(|(_, _, game)| {
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
        line.top_games = Some(
            games
                .into_iter()
                .take(top)
                .map(|(_, _, game)| game.clone())
                .collect(),
        );
    }
    Ok(())
}

/// Each joined row as (move UCI, the game's dimensions, the game).
fn top_game_rows(
    frame: &DataFrame,
    period: OpeningPeriod,
) -> PolarsResult<Vec<(String, Dimensions, TopGame)>> {
    use schema::games as g;
    let text = |name: &str| texts(frame, name);
    let int = |name: &str| ints(frame, name);
    let (white, black, result, date_text, time_class, uci) = (
        text(g::WHITE.name)?,
        text(g::BLACK.name)?,
        text(g::DECLARED_RESULT.name)?,
        text(g::DATE.name)?,
        text(g::TIME_CLASS.name)?,
        text(schema::moves::UCI.name)?,
    );
    let (ids, white_elo, black_elo, year, month) = (
        int(g::GAME_ID.name)?,
        int(g::WHITE_ELO.name)?,
        int(g::BLACK_ELO.name)?,
        int(g::YEAR.name)?,
        int(g::MONTH.name)?,
    );
    let imports = match frame.column(crate::lake::PARTITION_COLUMN) {
        Ok(_) => Some(text(crate::lake::PARTITION_COLUMN)?),
        Err(_) => None,
    };
    let at = |values: &[Option<i64>], row: usize| values.get(row).copied().flatten();
    let small =
        |values: &[Option<i64>], row: usize| at(values, row).and_then(|n| i32::try_from(n).ok());
    let text_at = |values: &[Option<String>], row: usize| values.get(row).cloned().flatten();
    Ok((0..frame.height())
        .map(|row| {
            let (white_elo, black_elo) = (small(&white_elo, row), small(&black_elo, row));
            let time_class = text_at(&time_class, row)
                .and_then(|name| TimeClass::parse(&name))
                .unwrap_or_default();
            // As the import made them: the month, else the year alone.
            let date = match at(&month, row) {
                Some(days) => {
                    let (year, month, _) = civil_from_days(days);
                    Some((year, Some(month)))
                }
                None => at(&year, row).map(|year| (year, None)),
            };
            let dims = Dimensions::of(time_class, white_elo, black_elo, date, period);
            let game = TopGame {
                import: imports.as_ref().and_then(|names| text_at(names, row)),
                game_id: at(&ids, row).unwrap_or_default(),
                white: text_at(&white, row),
                black: text_at(&black, row),
                white_elo,
                black_elo,
                result: text_at(&result, row),
                date: text_at(&date_text, row),
            };
            (text_at(&uci, row).unwrap_or_default(), dims, game)
        })
        .collect())
}

impl Explored {
    /// The aligned text view.
    pub(crate) fn to_table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "position  {}", self.epd);
        let _ = match &self.opening {
            Some(o) => writeln!(out, "opening   {} {}", o.eco, o.name),
            None => writeln!(out, "opening   (not in the opening table)"),
        };
        if !self.filters.is_empty() {
            let _ = writeln!(out, "filters   {}", self.filters.describe());
        }
        match self.position_games {
            Some(all) => {
                let share = if all == 0 {
                    0.0
                } else {
                    100.0 * self.games as f64 / all as f64
                };
                let _ = writeln!(
                    out,
                    "games     {} of {all} ({share:.1}% left by the filters)",
                    self.games
                );
            }
            None => {
                let _ = writeln!(out, "games     {}", self.games);
            }
        }
        if let Some(n) = self.opening_min_games {
            let _ = writeln!(
                out,
                "note      rows (a move at one speed, rating band and month) played in \
                 fewer than {n} games are left out (--opening-min-games {n}): the moves \
                 and games may be incomplete"
            );
        }
        if let Some(note) = &self.top_games_note {
            let _ = writeln!(out, "note      {note}");
        }
        if self.moves.is_empty() {
            let _ = match self.position_games {
                Some(all) if all > 0 => writeln!(
                    out,
                    "\nnone of the {all} games of this position passes the filters"
                ),
                _ => writeln!(
                    out,
                    "\nno game of this import reached this position within its opening plies"
                ),
            };
            return out;
        }
        let header = [
            "move",
            "games",
            "share",
            "white",
            "draw",
            "black",
            "avg white",
            "avg black",
            "last",
        ];
        let rows: Vec<[String; 9]> = self.moves.iter().map(|m| self.row_cells(m)).collect();
        let widths: Vec<usize> = (0..header.len())
            .map(|c| {
                rows.iter()
                    .filter_map(|r| r.get(c))
                    .map(|cell| cell.chars().count())
                    .chain(header.get(c).map(|h| h.len()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        out.push('\n');
        let line = |cells: &mut dyn Iterator<Item = &str>| {
            let mut text = String::new();
            for (c, cell) in cells.enumerate() {
                let width = widths.get(c).copied().unwrap_or(0);
                if c == 0 {
                    let _ = write!(text, "{cell:<width$}");
                } else {
                    let _ = write!(text, "  {cell:>width$}");
                }
            }
            text.trim_end().to_owned() + "\n"
        };
        out.push_str(&line(&mut header.iter().copied()));
        for row in &rows {
            out.push_str(&line(&mut row.iter().map(String::as_str)));
        }
        self.write_top_games(&mut out);
        out
    }

    /// `--games`: each move's games under its SAN.
    fn write_top_games(&self, out: &mut String) {
        for m in &self.moves {
            let Some(games) = &m.top_games else { continue };
            let _ = writeln!(out, "\ntop games with {}", m.san);
            if games.is_empty() {
                let _ = writeln!(out, "  (none)");
            }
            for game in games {
                let player = |name: &Option<String>, elo: Option<i32>| {
                    let name = name.as_deref().unwrap_or("?");
                    match elo {
                        Some(elo) => format!("{name} ({elo})"),
                        None => name.to_owned(),
                    }
                };
                let id = match &game.import {
                    Some(import) => format!("{import}:{}", game.game_id),
                    None => game.game_id.to_string(),
                };
                let _ = writeln!(
                    out,
                    "  {id:>8}  {} - {}  {}  {}",
                    player(&game.white, game.white_elo),
                    player(&game.black, game.black_elo),
                    game.result.as_deref().unwrap_or("*"),
                    game.date.as_deref().unwrap_or("????.??.??"),
                );
            }
        }
    }

    fn row_cells(&self, m: &MoveLine) -> [String; 9] {
        let share = if self.games == 0 {
            0.0
        } else {
            100.0 * m.games as f64 / self.games as f64
        };
        let elo = |v: Option<f64>| v.map_or("-".to_owned(), |e| format!("{e:.0}"));
        [
            m.san.clone(),
            m.games.to_string(),
            format!("{share:.1}%"),
            format!("{:.1}%", m.white_percent),
            format!("{:.1}%", m.draw_percent),
            format!("{:.1}%", m.black_percent),
            elo(m.average_white_elo),
            elo(m.average_black_elo),
            m.last_year.map_or("-".to_owned(), |y| y.to_string()),
        ]
    }

    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_read_bands_months_and_speeds_and_keep_rows_by_them() {
        let filters = Filters::parse(
            Some("blitz, bullet,blitz"),
            Some("2000..2400"),
            Some("2020-01"),
            None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(filters.speed, ["blitz", "bullet"]);
        assert_eq!(
            filters.describe(),
            "speed blitz,bullet, rating 2000..2400, since 2020-01"
        );
        let bounds = filters
            .bounds(OpeningPeriod::Month)
            .unwrap_or_else(|e| panic!("{e}"));
        let game = |tc, elo, year, month| {
            Dimensions::of(
                tc,
                Some(elo),
                Some(elo),
                Some((year, Some(month))),
                OpeningPeriod::Month,
            )
        };
        assert!(bounds.keeps(&game(TimeClass::Blitz, 2499, 2020, 1)));
        assert!(!bounds.keeps(&game(TimeClass::Blitz, 2500, 2020, 1)));
        assert!(!bounds.keeps(&game(TimeClass::Blitz, 1999, 2020, 1)));
        assert!(!bounds.keeps(&game(TimeClass::Blitz, 2000, 2019, 12)));
        assert!(!bounds.keeps(&game(TimeClass::Rapid, 2000, 2021, 1)));
        assert!(!bounds.keeps(&Dimensions::default()));
        // By year: 2020-06 keeps the rows of 2020 (dated January 1st).
        let by_year = Filters::parse(None, None, Some("2020-06"), Some("2020-06"))
            .and_then(|f| f.bounds(OpeningPeriod::Year))
            .unwrap_or_else(|e| panic!("{e}"));
        let of_year = |year| {
            Dimensions::of(
                TimeClass::Blitz,
                None,
                None,
                Some((year, None)),
                OpeningPeriod::Year,
            )
        };
        assert!(by_year.keeps(&of_year(2020)));
        assert!(!by_year.keeps(&of_year(2021)));
        let no_months = Filters::parse(None, None, Some("2020-06"), None)
            .and_then(|f| f.bounds(OpeningPeriod::None));
        assert!(matches!(no_months, Err(ExploreError::BadFilter { .. })));
        for bad in ["2000..1800", "2100..", "..", "3000", "abc"] {
            let bad_rating = Filters::parse(None, Some(bad), None, None);
            assert!(
                matches!(bad_rating, Err(ExploreError::BadFilter { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn moves_with_numbers_reach_the_position_and_name_it() {
        let target = Target::Moves(vec!["1.e4".into(), "c5".into(), "2.".into(), "Nf3".into()]);
        let (pos, opening) = locate(&target).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            Epd::from_position(&pos, EnPassantMode::Legal).to_string(),
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -"
        );
        assert_eq!(
            opening,
            Some(OpeningLabel {
                eco: "B27",
                name: "Sicilian Defense"
            })
        );
    }

    #[test]
    fn an_illegal_move_names_its_ply() {
        let target = Target::Moves(vec!["e4".into(), "e5".into(), "Ke3".into()]);
        let error = locate(&target).err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some(
                "\"Ke3\" at ply 3 is not a legal move in \
                 rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
            )
        );
    }

    #[test]
    fn a_fen_is_named_only_by_its_own_position() {
        let fen = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
        let (_, opening) = locate(&Target::Fen(fen.into())).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(opening.map(|o| o.name), Some("Sicilian Defense"));
        assert!(matches!(
            locate(&Target::Fen("not a fen".into())),
            Err(ExploreError::BadFen { .. })
        ));
    }
}
