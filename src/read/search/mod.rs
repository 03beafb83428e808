//! Reading, search: the games of an import or a lake scanned row group by
//! row group on every core, each game replayed from its stored moves
//! (`moves_uci`, from its own start) and tested with a query
//! (`replay::scout`), the matches handed on in input order with the
//! statistics of the games listed.

pub mod stats;

use std::ops::Range;
use std::path::{Path, PathBuf};

use polars::prelude::*;
use rayon::prelude::*;
use shakmaty::uci::UciMove;
use shakmaty::variant::VariantPosition;
use shakmaty::{Board, Chess, File, Move, Position, Role, Square};

use crate::check::counted_result;
use crate::error::{Error, ExploreError};
use crate::model::{Month, TimeClass};
use crate::pgn::result::GameResult;
use crate::read::explore::{Bounds, Filters};
use crate::read::keyed::KeyedFile;
use crate::read::source::Data;
use crate::replay::EndState;
use crate::replay::audit::ResultCheck;
use crate::replay::scout::rules::ResultType;
use crate::replay::scout::{Prefilter, Query, ResultCode, Rule, decided_at_start, search_game};
use crate::replay::setup_variant;
use crate::replay::variant::VariantName;
use crate::sink::schema::{self, games};
use crate::stats::dimensions::{Dimensions, OpeningPeriod};
pub use stats::SearchStats;

/// One matching game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The lake's import holding it (empty in an import's folder).
    pub import: String,
    pub game_id: i64,
    /// One per condition of the query, as scoutfish reports them.
    pub plies: Vec<u32>,
    dims: Dimensions,
    counted: Option<GameResult>,
}

/// What a search went through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Searched {
    /// Games of the data (all rows read, before the filters).
    pub games_read: u64,
    /// Games the filters kept, each tested.
    pub games_searched: u64,
    /// Games the pre-filter ruled out, not replayed.
    pub ruled_out: u64,
    /// Moves replayed to test them.
    pub plies_replayed: u64,
    /// Games matching (before `skip` and `limit`).
    pub matched: u64,
    /// Games listed.
    pub listed: u64,
    pub stats: SearchStats,
    /// The data is a lake (matches name their import).
    pub lake: bool,
}

/// What to search and how.
pub struct SearchOptions<'a> {
    pub data: &'a Path,
    pub query: &'a Query,
    pub filters: &'a Filters,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Called once a row group is searched, with its rows (a progress bar).
    pub progress: &'a (dyn Fn(u64) + Sync),
}

/// The row groups searched at once, per thread: enough to keep every core
/// busy, few enough that a `limit` stops the scan soon after it is met.
const GROUPS_PER_THREAD: usize = 2;

/// Searches the games of `options.data`, handing each listed match to
/// `listed` in input order (a lake's imports by name, each in its order).
pub fn search(
    options: &SearchOptions<'_>,
    mut listed: impl FnMut(&Match) -> Result<(), Error>,
) -> Result<Searched, Error> {
    let data = Data::open(options.data)?;
    let bounds = options.filters.bounds(OpeningPeriod::Month)?;
    let mut files = Vec::new();
    for (import, path) in data.files(&games::TABLE) {
        let file = KeyedFile::open(&path, games::GAME_ID.name, true).map_err(ExploreError::from)?;
        files.push((import, path, file));
    }
    let units: Vec<(usize, usize)> = files
        .iter()
        .enumerate()
        .flat_map(|(f, (_, _, file))| (0..file.groups()).map(move |g| (f, g)))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .map_err(|source| Error::Threads {
            threads: options.threads,
            source,
        })?;
    let wave = pool.current_num_threads().max(1) * GROUPS_PER_THREAD;
    let needs = Needs::of(options.query);
    let query = options.query;
    // `limit: 0` lists all, as scoutfish reads it.
    let wanted = query
        .limit
        .filter(|&limit| limit > 0)
        .map(|limit| query.skip.saturating_add(limit));
    let mut searched = Searched {
        lake: data.is_lake(),
        ..Searched::default()
    };
    for chunk in units.chunks(wave) {
        crate::interrupt::check()?;
        let parts: Vec<Result<Part, Error>> = pool.install(|| {
            chunk
                .par_iter()
                .map(|&(f, g)| {
                    let (import, path, file) = &files[f];
                    let unit = Unit {
                        import,
                        path,
                        file,
                        group: g,
                    };
                    let part = unit.search(query, &needs, &bounds);
                    (options.progress)(part.as_ref().map_or(0, |p| p.rows));
                    part
                })
                .collect()
        });
        for part in parts {
            let part = part?;
            searched.games_read += part.rows;
            searched.games_searched += part.searched;
            searched.ruled_out += part.ruled_out;
            searched.plies_replayed += part.plies;
            // Without skip or limit every match is listed: the part's
            // statistics, counted on its worker, are added whole.
            if let Some(stats) = &part.stats {
                searched.stats += stats;
            }
            for found in &part.matches {
                searched.matched += 1;
                if searched.matched <= query.skip {
                    continue;
                }
                if wanted.is_some_and(|wanted| searched.matched > wanted) {
                    break;
                }
                searched.listed += 1;
                if part.stats.is_none() {
                    searched.stats.add_game(&found.dims, found.counted);
                }
                listed(found)?;
            }
            if wanted.is_some_and(|wanted| searched.matched >= wanted) {
                return Ok(searched);
            }
        }
    }
    Ok(searched)
}

/// The pre-filter's columns, in [`Prefilter::columns`]' order.
const FILTER: [schema::Column; 6] = [
    games::SQUARES_PAWNS,
    games::ARRIVALS_WHITE,
    games::ARRIVALS_BLACK,
    games::MATERIAL_WHITE,
    games::MATERIAL_BLACK,
    games::IMBALANCE_RANGE,
];

/// The columns a query reads besides the moves.
struct Needs {
    columns: Vec<&'static str>,
    /// The query has a rule the pre-filter can rule games out by.
    filter: bool,
    /// A condition holds only at a final position that is mate: a
    /// standard or Chess960 game whose `end_state` is not `checkmate`
    /// cannot match.
    ends_in_mate: bool,
    /// The `result` rules' lists: a game whose declared result is in none
    /// of one cannot match.
    results: Vec<Vec<ResultCode>>,
}

impl Needs {
    fn of(query: &Query) -> Needs {
        let ends_in_mate = query
            .rules()
            .any(|rule| *rule == Rule::ResultType(ResultType::Mate));
        let results: Vec<Vec<ResultCode>> = query
            .rules()
            .filter_map(|rule| match rule {
                Rule::Result(codes) => Some(codes.clone()),
                _ => None,
            })
            .collect();
        let filter = query.rules().any(|rule| {
            !matches!(
                rule,
                Rule::Result(_)
                    | Rule::ResultType(_)
                    | Rule::Quiet
                    | Rule::Moved(_)
                    | Rule::SideToMove(_)
                    | Rule::Pass
            )
        });
        let columns = vec![
            games::GAME_ID.name,
            games::VARIANT_NAME.name,
            games::START_FEN.name,
            games::DECLARED_RESULT.name,
            games::RESULT_BY_RULE.name,
            games::RESULT_CHECK.name,
            games::TIME_CLASS.name,
            games::WHITE_ELO.name,
            games::BLACK_ELO.name,
            games::MONTH.name,
        ];
        Needs {
            columns,
            filter,
            ends_in_mate,
            results,
        }
    }
}

/// One row group of one games file.
struct Unit<'a> {
    import: &'a str,
    path: &'a PathBuf,
    file: &'a KeyedFile,
    group: usize,
}

/// What one row group gave.
#[derive(Default)]
struct Part {
    rows: u64,
    searched: u64,
    ruled_out: u64,
    plies: u64,
    matches: Vec<Match>,
    /// The statistics of all its matches, when all are listed.
    stats: Option<SearchStats>,
}

/// A table's value that is not what its column holds: an error naming the
/// file, the column and the game.
fn broken(path: &Path, message: String) -> Error {
    Error::Explore(ExploreError::Table {
        path: path.to_path_buf(),
        message,
    })
}

/// The columns of one read of a row group, by name, each an error naming
/// the file and the column when it is not what the table declares.
struct Read<'a> {
    frame: DataFrame,
    path: &'a Path,
}

impl Read<'_> {
    fn column(&self, name: &str) -> Result<&Column, Error> {
        self.frame
            .column(name)
            .map_err(|e| broken(self.path, format!("column {name:?}: {e}")))
    }

    fn texts(&self, name: &str) -> Result<StringChunked, Error> {
        self.column(name)?
            .str()
            .cloned()
            .map_err(|e| broken(self.path, format!("column {name:?}: {e}")))
    }

    fn ints(&self, name: &str) -> Result<Int64Chunked, Error> {
        self.column(name)?
            .cast(&DataType::Int64)
            .and_then(|c| c.i64().cloned())
            .map_err(|e| broken(self.path, format!("column {name:?}: {e}")))
    }
}

impl Unit<'_> {
    fn read(&self, rows: Option<Range<usize>>, columns: &[&str]) -> Result<Read<'_>, Error> {
        let frame = match rows {
            None => self.file.group(self.group, Some(columns)),
            Some(rows) => self.file.group_rows(self.group, rows, columns),
        }
        .map_err(ExploreError::from)?;
        Ok(Read {
            frame,
            path: self.path.as_path(),
        })
    }

    /// The rows of the group the pre-filter keeps (all without one), and
    /// the group's rows.
    fn kept(&self, query: &Query, needs: &Needs) -> Result<(Vec<usize>, usize), Error> {
        let mut columns = vec![games::GAME_ID.name];
        if needs.filter {
            columns.extend(FILTER.iter().map(|c| c.name));
            columns.push(games::START_FEN.name);
        }
        if needs.filter || needs.ends_in_mate {
            columns.push(games::VARIANT_NAME.name);
        }
        if needs.ends_in_mate {
            columns.push(games::END_STATE.name);
        }
        if !needs.results.is_empty() {
            columns.push(games::DECLARED_RESULT.name);
        }
        let read = self.read(None, &columns)?;
        let rows = read.frame.height();
        let filters: Vec<Int64Chunked> = match needs.filter {
            true => FILTER
                .iter()
                .map(|c| read.ints(c.name))
                .collect::<Result<_, _>>()?,
            false => Vec::new(),
        };
        let ends = match needs.ends_in_mate {
            true => Some((
                read.texts(games::END_STATE.name)?,
                read.texts(games::VARIANT_NAME.name)?,
            )),
            false => None,
        };
        let starts = match needs.filter {
            true => Some((
                read.texts(games::VARIANT_NAME.name)?,
                read.texts(games::START_FEN.name)?,
            )),
            false => None,
        };
        let standard = Board::default();
        let declared = match needs.results.is_empty() {
            true => None,
            false => Some(read.texts(games::DECLARED_RESULT.name)?),
        };
        let mut kept = Vec::new();
        for row in 0..rows {
            if let Some(declared) = &declared {
                let result = ResultCode::of_declared(declared.get(row));
                if !needs.results.iter().all(|codes| codes.contains(&result)) {
                    continue;
                }
            }
            if let Some((ends, variants)) = &ends {
                let rules_of_chess = variants
                    .get(row)
                    .and_then(VariantName::parse)
                    .is_some_and(|v| matches!(v, VariantName::Standard | VariantName::Chess960));
                if rules_of_chess && ends.get(row) != Some(EndState::Checkmate.as_str()) {
                    continue;
                }
            }
            if !needs.filter {
                kept.push(row);
                continue;
            }
            let mut values = [0i64; 6];
            for (value, column) in values.iter_mut().zip(&filters) {
                *value = column.get(row).ok_or_else(|| {
                    broken(
                        self.path,
                        format!("row {row}: a pre-filter column (squares_pawns, arrivals_*, material_*, imbalance_range) is null"),
                    )
                })?;
            }
            // The squares each side stood on are its start squares and
            // its arrivals: the start is the standard one but for a set-up
            // position or a variant's own.
            let start = match &starts {
                Some((variants, fens)) => {
                    match (variants.get(row), fens.get(row)) {
                        (Some(v), None)
                            if v == VariantName::Standard.as_str()
                                || v == VariantName::Chess960.as_str() =>
                        {
                            None
                        }
                        (variant, fen) => {
                            let variant = variant.and_then(VariantName::parse).ok_or_else(|| {
                            broken(self.path, format!("row {row}: variant_name is not a variant pgnlake writes"))
                        })?;
                            let start = setup_variant(variant, fen).map_err(|e| {
                                broken(self.path, format!("row {row}: start_fen: {}", e.message))
                            })?;
                            Some(start.pos.board().clone())
                        }
                    }
                }
                None => None,
            };
            if Prefilter::from_columns(values, start.as_ref().unwrap_or(&standard)).permits(query) {
                kept.push(row);
            }
        }
        Ok((kept, rows))
    }

    fn search(&self, query: &Query, needs: &Needs, bounds: &Bounds) -> Result<Part, Error> {
        // The pre-filter's columns first, then the other columns of the
        // games it keeps, run by run: only the pages that hold them are
        // read (a group it rules out whole is not read on).
        let (kept, rows) = self.kept(query, needs)?;
        let mut part = Part {
            rows: rows as u64,
            ruled_out: (rows - kept.len()) as u64,
            ..Part::default()
        };
        for run in runs(&kept) {
            self.search_run(query, needs, bounds, run, &mut part)?;
        }
        if query.skip == 0 && query.limit.is_none_or(|limit| limit == 0) {
            let mut stats = SearchStats::default();
            for found in &part.matches {
                stats.add_game(&found.dims, found.counted);
            }
            part.stats = Some(stats);
        }
        Ok(part)
    }

    /// Searches the kept rows `run` (close together: their pages are
    /// read once) into `part`.
    fn search_run(
        &self,
        query: &Query,
        needs: &Needs,
        bounds: &Bounds,
        run: &[usize],
        part: &mut Part,
    ) -> Result<(), Error> {
        let (Some(&first), Some(&last)) = (run.first(), run.last()) else {
            return Ok(());
        };
        let rows = first..last + 1;
        let read = self.read(Some(rows.clone()), &needs.columns)?;
        let path = self.path.as_path();
        let ids = read.ints(games::GAME_ID.name)?;
        let variants = read.texts(games::VARIANT_NAME.name)?;
        let fens = read.texts(games::START_FEN.name)?;
        // The moves, the longest column, only when a game needs them.
        let mut moves: Option<StringChunked> = None;
        let declared = read.texts(games::DECLARED_RESULT.name)?;
        let by_rule = read.texts(games::RESULT_BY_RULE.name)?;
        let checks = read.texts(games::RESULT_CHECK.name)?;
        let classes = read.texts(games::TIME_CLASS.name)?;
        let white_elo = read.ints(games::WHITE_ELO.name)?;
        let black_elo = read.ints(games::BLACK_ELO.name)?;
        let months = read
            .column(games::MONTH.name)?
            .cast(&DataType::Int32)
            .and_then(|c| c.i32().cloned())
            .map_err(|e| broken(path, format!("column \"month\": {e}")))?;
        for (n, &kept_row) in run.iter().enumerate() {
            if n % 1024 == 0 {
                crate::interrupt::check()?;
            }
            let row = kept_row - first;
            let game_id = ids
                .get(row)
                .ok_or_else(|| broken(path, format!("row {kept_row}: game_id is null")))?;
            let at = |what: &str| broken(path, format!("game_id {game_id}: {what}"));
            let class = classes
                .get(row)
                .and_then(TimeClass::parse)
                .ok_or_else(|| at("time_class is not a speed pgnlake writes"))?;
            let month = match months.get(row) {
                None => None,
                Some(days) => Some(
                    Month::from_column(days)
                        .ok_or_else(|| at("month is not a month's first day"))?,
                ),
            };
            let elo = |c: &Int64Chunked| c.get(row).and_then(|e| i32::try_from(e).ok());
            let dims = Dimensions::of(
                class,
                elo(&white_elo),
                elo(&black_elo),
                month.map(|m| (m.year(), Some(m.month()))),
                OpeningPeriod::Month,
            );
            if !bounds.keeps(&dims) {
                continue;
            }
            part.searched += 1;
            let variant = variants
                .get(row)
                .and_then(VariantName::parse)
                .ok_or_else(|| at("variant_name is not a variant pgnlake writes"))?;
            let start = setup_variant(variant, fens.get(row))
                .map_err(|e| at(&format!("start_fen: {}", e.message)))?;
            let result = ResultCode::of_declared(declared.get(row));
            let (found, played) = match decided_at_start(query, &start.pos, result) {
                Some(found) => (found, 0),
                None => {
                    let moves = match &moves {
                        Some(moves) => moves,
                        None => moves.insert(
                            self.read(Some(rows.clone()), &[games::MOVES_UCI.name])?
                                .texts(games::MOVES_UCI.name)?,
                        ),
                    };
                    let uci = moves.get(row).ok_or_else(|| at("moves_uci is null"))?;
                    replay_and_test(query, start.pos, uci, result, &at)?
                }
            };
            part.plies += played;
            if let Some(plies) = found {
                let counted = counted_of(checks.get(row), declared.get(row), by_rule.get(row))
                    .map_err(|what| at(&what))?;
                part.matches.push(Match {
                    import: self.import.to_owned(),
                    game_id,
                    plies,
                    dims,
                    counted,
                });
            }
        }
        Ok(())
    }
}

/// Rows kept split where two are more than [`RUN_GAP`] rows apart: each
/// run is read on its own, from the pages that hold it (a selective
/// query keeps a few games a group, which would otherwise read the
/// whole group's moves).
fn runs(kept: &[usize]) -> impl Iterator<Item = &[usize]> {
    kept.chunk_by(|a, b| b - a <= RUN_GAP)
}

/// Rows between two kept games past which they are read apart: a few
/// pages of `moves_uci` (64 KiB hold 150–400 games), a fraction of one of
/// the narrow columns. Measured on pgnmentor (2 threads), 128, 1,024 and
/// 8,192 rows: an exact FEN 67, 62 and 136 ms, KRPKR 230, 217 and 212 ms.
const RUN_GAP: usize = 1024;

/// One game replayed from `start` by its stored moves `uci` and tested;
/// the plies of its match, and the moves played.
fn replay_and_test(
    query: &Query,
    start: VariantPosition,
    uci: &str,
    result: ResultCode,
    at: &dyn Fn(&str) -> Error,
) -> Result<(Option<Vec<u32>>, u64), Error> {
    let mut tokens = uci.split_ascii_whitespace();
    let mut played = 0u64;
    let unplayable = |token: &str, ply: u64| {
        at(&format!(
            "moves_uci: {token:?} (ply {ply}) cannot be played"
        ))
    };
    let found = match start {
        // The import proved every move legal: a standard or Chess960
        // game's moves are read without proving it again (most of a
        // scan's time when they were), only checked to move a piece of
        // the side to move onto no piece of its own.
        VariantPosition::Chess(chess) => search_game(query, chess, result, |p: &Chess| {
            let Some(token) = tokens.next() else {
                return Ok(None);
            };
            played += 1;
            trusted_move(p, token)
                .ok_or_else(|| unplayable(token, played))
                .map(Some)
        })?,
        other => search_game(query, other, result, |p: &VariantPosition| {
            let Some(token) = tokens.next() else {
                return Ok(None);
            };
            played += 1;
            UciMove::from_ascii(token.as_bytes())
                .ok()
                .and_then(|uci| uci.to_move(p).ok())
                .ok_or_else(|| unplayable(token, played))
                .map(Some)
        })?,
    };
    Ok((found, played))
}

/// A stored move read in `pos` as the import wrote it (UCI; Chess960
/// castling as king takes rook), without proving it legal: the piece on
/// its square must be the mover's, the square it goes to free of the
/// mover's pieces (but for castling), a promotion a pawn's.
fn trusted_move(pos: &Chess, token: &str) -> Option<Move> {
    let UciMove::Normal {
        from,
        to,
        promotion,
    } = UciMove::from_ascii(token.as_bytes()).ok()?
    else {
        return None;
    };
    let board = pos.board();
    let ours = board.by_color(pos.turn());
    if !ours.contains(from) {
        return None;
    }
    let role = board.role_at(from)?;
    if promotion.is_some() && role != Role::Pawn {
        return None;
    }
    if role == Role::King && (pos.castles().castling_rights() & ours).contains(to) {
        return Some(Move::Castle {
            king: from,
            rook: to,
        });
    }
    if role == Role::King && from.distance(to) == 2 && from.rank() == to.rank() {
        // Standard castling written king to its square (e1g1).
        let rook_file = if from.file() < to.file() {
            File::H
        } else {
            File::A
        };
        let rook = Square::from_coords(rook_file, from.rank());
        return (pos.castles().castling_rights() & ours)
            .contains(rook)
            .then_some(Move::Castle { king: from, rook });
    }
    if ours.contains(to) {
        return None;
    }
    if role == Role::Pawn && from.file() != to.file() && !board.occupied().contains(to) {
        return Some(Move::EnPassant { from, to });
    }
    Some(Move::Normal {
        role,
        from,
        capture: board.role_at(to),
        to,
        promotion,
    })
}

/// The result the opening tree counts ([`counted_result`]), from the
/// games table's columns.
fn counted_of(
    check: Option<&str>,
    declared: Option<&str>,
    by_rule: Option<&str>,
) -> Result<Option<GameResult>, String> {
    let result = |text: Option<&str>, name: &str| match text {
        None => Ok(None),
        Some(text) => GameResult::from_marker(text.as_bytes())
            .map(Some)
            .ok_or_else(|| format!("{name} {text:?} is not a result")),
    };
    let check = check.ok_or("result_check is null")?;
    let check = ResultCheck::parse(check)
        .ok_or_else(|| format!("result_check {check:?} is not an audit value"))?;
    Ok(counted_result(
        check,
        result(declared, "declared_result")?,
        result(by_rule, "result_by_rule")?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_rows_are_read_in_runs_split_at_gaps_over_run_gap() {
        let kept = [0, 5, RUN_GAP + 5, 3 * RUN_GAP, 3 * RUN_GAP + 1];
        let split: Vec<&[usize]> = runs(&kept).collect();
        assert_eq!(
            split,
            vec![&kept[..3], &kept[3..]],
            "a gap of RUN_GAP rows joins, one more splits"
        );
        assert_eq!(runs(&[]).count(), 0);
    }
}
