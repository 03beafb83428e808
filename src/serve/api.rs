//! Serve, `/lichess` and `/masters`: a position's moves, totals, top and
//! recent games, opening and history in lila-openingexplorer's JSON, from
//! the opening tree (the rows of the position, summed by
//! `read::explore::position`) and the games its rows name.
//!
//! lila's rules, followed where the tree allows (see docs/serve.md for the
//! differences): moves by games played (ties by SAN, which lila leaves
//! open), `averageRating` the mover's, castling written king to rook
//! (`e1h1`) as lila writes it, top games of `/lichess` from the rating
//! groups 2000 and up ranked by speed and group, recent games latest first,
//! `/masters`' top games by the sum of both ratings.

use std::sync::Arc;

use axum::Json;
use axum::extract::{RawQuery, State as Shared};
use serde::Serialize;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

use super::games::{ApiGame, GameWithUci, speed_of_name};
use super::params::{BadRequest, Params};
use super::state::State;
use super::{ApiError, blocking};
use crate::error::ExploreError;
use crate::model::{BandRange, Month, RatingBand, TimeClass};
use crate::read::explore::filters::Bounds;
use crate::read::explore::locate::{OpeningLabel, position_of_fen};
use crate::read::explore::position::{MoveSums, PositionSums, RatedGame, read_position};
use crate::read::explore::top_games::{
    FoundGames, GameAt, GameIds, best_games, latest_games, read_games,
};
use crate::read::source::Data;
use crate::stats::counts::Counts;
use crate::stats::dimensions::OpeningPeriod;

/// lila's caps: top games of `/lichess`, top and recent games together,
/// top games of `/masters`.
const LICHESS_TOP: usize = 4;
const LICHESS_GAMES: usize = 8;
const MASTERS_TOP: usize = 15;
/// `maxGames` (pgnlake's own parameter) lifts lila's caps up to this.
const MOST_GAMES: usize = 200;
/// Moves listed by default, as lila lists them.
const DEFAULT_MOVES: usize = 12;

/// lichess's rating groups, by their lower bound.
pub(crate) const RATING_GROUPS: [i32; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

/// The position a request asks about: `fen` (the start when absent),
/// then the UCI moves of `play`; with its opening, the last named along
/// the line, as lila names it.
#[derive(Debug, Clone)]
pub(crate) struct Asked {
    pub position: Chess,
    pub opening: Option<OpeningLabel>,
    /// The moves of `play`, in UCI as given.
    pub play: Vec<String>,
    /// The same moves in SAN with their numbers (`1.`, `3...`).
    pub line: Vec<String>,
}

impl Asked {
    pub(crate) fn parse(params: &Params) -> Result<Asked, BadRequest> {
        if let Some(variant) = params.get("variant")
            && !matches!(variant, "standard" | "chess" | "fromPosition" | "Standard")
        {
            return Err(BadRequest::new(format!(
                "variant={variant:?}: this explorer holds standard chess only"
            )));
        }
        let mut position = match params.get("fen") {
            // lila reads `_` between a FEN's fields too.
            Some(fen) => position_of_fen(&fen.replace('_', " ")).map_err(|e| match e {
                ExploreError::BadFen { fen, message } => {
                    BadRequest::new(format!("fen={fen:?}: not a legal position ({message})"))
                }
                other => BadRequest::new(other.to_string()),
            })?,
            None => Chess::default(),
        };
        let mut opening = OpeningLabel::of_position(&position);
        let play: Vec<String> = params.list("play").into_iter().map(str::to_owned).collect();
        let mut line = Vec::new();
        for (ply, uci) in play.iter().enumerate() {
            let m = legal(&position, uci).ok_or_else(|| {
                BadRequest::new(format!(
                    "play: {uci:?} (move {}) is not a legal move in {}",
                    ply + 1,
                    shakmaty::fen::Fen::from_position(&position, shakmaty::EnPassantMode::Legal)
                ))
            })?;
            let number = position.fullmoves();
            match position.turn() {
                shakmaty::Color::White => line.push(format!("{number}.")),
                shakmaty::Color::Black if ply == 0 => line.push(format!("{number}...")),
                shakmaty::Color::Black => {}
            }
            line.push(SanPlus::from_move(position.clone(), m).to_string());
            position.play_unchecked(m);
            opening = OpeningLabel::of_position(&position).or(opening);
        }
        Ok(Asked {
            position,
            opening,
            play,
            line,
        })
    }
}

/// The move `uci` from `pos` (castling king to square or king takes
/// rook); None unless legal.
pub(crate) fn legal(pos: &Chess, uci: &str) -> Option<Move> {
    UciMove::from_ascii(uci.as_bytes()).ok()?.to_move(pos).ok()
}

/// What `/lichess` (or `/masters`) keeps and lists.
#[derive(Debug, Clone)]
pub(crate) struct Wanted {
    pub speeds: Vec<TimeClass>,
    /// lichess rating groups asked for (none: all rows, rated or not).
    pub groups: Vec<i32>,
    pub since: Option<Month>,
    pub until: Option<Month>,
    pub moves: usize,
    pub top_games: usize,
    pub recent_games: usize,
    pub history: bool,
    pub masters: bool,
}

impl Wanted {
    pub(crate) fn lichess(params: &Params) -> Result<Wanted, BadRequest> {
        let most = params.count("maxGames", 0, MOST_GAMES)?;
        let (top_cap, games_cap) = match most {
            0 => (LICHESS_TOP, LICHESS_GAMES),
            n => (n, 2 * n),
        };
        Ok(Wanted {
            speeds: speeds(params)?,
            groups: groups(params)?,
            since: month(params, "since")?,
            until: month(params, "until")?,
            moves: params.count("moves", DEFAULT_MOVES, usize::MAX)?,
            top_games: params.count("topGames", top_cap, top_cap)?,
            recent_games: params.count("recentGames", games_cap, games_cap)?,
            history: params.flag("history", false)?,
            masters: false,
        })
    }

    pub(crate) fn masters(params: &Params) -> Result<Wanted, BadRequest> {
        let most = params.count("maxGames", 0, MOST_GAMES)?;
        let top_cap = if most == 0 { MASTERS_TOP } else { most };
        let year = |name: &str| -> Result<Option<i64>, BadRequest> {
            params
                .get(name)
                .map(|text| {
                    text.trim()
                        .parse::<i64>()
                        .ok()
                        .filter(|y| (0..=5460).contains(y))
                        .ok_or_else(|| BadRequest::new(format!("{name}={text:?}: expected a year")))
                })
                .transpose()
        };
        let since = year("since")?.and_then(|y| Month::new(y, 1));
        let until = year("until")?.and_then(|y| Month::new(y, 12));
        Ok(Wanted {
            speeds: Vec::new(),
            groups: Vec::new(),
            since,
            until,
            moves: params.count("moves", DEFAULT_MOVES, usize::MAX)?,
            top_games: params.count("topGames", top_cap, top_cap)?,
            recent_games: 0,
            history: false,
            masters: true,
        })
    }

    fn bounds(&self, period: OpeningPeriod) -> Result<Bounds, ApiError> {
        // A tree counted by year cannot keep part of a year: say so rather
        // than widen the months.
        let partial = self.since.is_some_and(|m| m.month() != 1)
            || self.until.is_some_and(|m| m.month() != 12);
        if period == OpeningPeriod::Year && partial {
            return Err(ApiError::bad_request(
                "since/until: this import counts its tree by year (--opening-period year): \
                 give since as YYYY-01 and until as YYYY-12",
            ));
        }
        let bands = self
            .groups
            .iter()
            .filter_map(|&g| BandRange::lichess_group(g))
            .collect();
        let months = (self.since, self.until, "since/until");
        Bounds::new(self.speeds.clone(), bands, months, period)
            .map_err(|e| ApiError::bad_request(e.to_string()))
    }
}

/// `speeds`: lichess's names (or pgnlake's); none: all.
pub(crate) fn speeds(params: &Params) -> Result<Vec<TimeClass>, BadRequest> {
    let mut speeds = Vec::new();
    for name in params.list("speeds") {
        let class = speed_of_name(name).ok_or_else(|| {
            BadRequest::new(format!(
                "speeds: {name:?} is not a speed (ultraBullet, bullet, blitz, rapid, classical, correspondence)"
            ))
        })?;
        if !speeds.contains(&class) {
            speeds.push(class);
        }
    }
    Ok(speeds)
}

/// `ratings`: each a rating, taken as the lichess group it falls in (as
/// lila does: `1500` is the group 1400).
fn groups(params: &Params) -> Result<Vec<i32>, BadRequest> {
    let mut groups = Vec::new();
    for text in params.list("ratings") {
        let rating = text.parse::<i32>().ok().filter(|r| (0..=4000).contains(r));
        let rating = rating.ok_or_else(|| {
            BadRequest::new(format!(
                "ratings: {text:?} is not a rating (lichess's groups: 0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500)"
            ))
        })?;
        let group = RATING_GROUPS
            .iter()
            .rev()
            .find(|&&g| g <= rating)
            .copied()
            .unwrap_or(0);
        if !groups.contains(&group) {
            groups.push(group);
        }
    }
    groups.sort_unstable();
    Ok(groups)
}

/// `since` / `until` as lila reads a month: `YYYY-MM` or `YYYY/MM`, the
/// month unpadded or not.
pub(crate) fn month(params: &Params, name: &str) -> Result<Option<Month>, BadRequest> {
    let Some(text) = params.get(name) else {
        return Ok(None);
    };
    let parsed = text.trim().split_once(['-', '/']).and_then(|(y, m)| {
        Month::new(y.parse().ok()?, m.parse().ok()?).filter(|_| (4..=7).contains(&y.len()))
    });
    parsed
        .map(Some)
        .ok_or_else(|| BadRequest::new(format!("{name}={text:?}: expected a month, YYYY-MM")))
}

/// lila-openingexplorer's answer (its fields in their order).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Explorer {
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub moves: Vec<ExplorerMove>,
    #[serde(rename = "recentGames", skip_serializing_if = "Option::is_none")]
    pub recent_games: Option<Vec<GameWithUci>>,
    #[serde(rename = "topGames", skip_serializing_if = "Option::is_none")]
    pub top_games: Option<Vec<GameWithUci>>,
    pub opening: Option<OpeningLabel>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<HistoryMonth>>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ExplorerMove {
    pub uci: String,
    pub san: String,
    /// The mover's average rating, rounded (absent when no game of the
    /// move has the mover's rating).
    #[serde(rename = "averageRating", skip_serializing_if = "Option::is_none")]
    pub average_rating: Option<i64>,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub game: Option<ApiGame>,
    pub opening: Option<OpeningLabel>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct HistoryMonth {
    pub month: String,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
}

pub(crate) async fn lichess(
    Shared(state): Shared<Arc<State>>,
    RawQuery(query): RawQuery,
) -> Result<Json<Explorer>, ApiError> {
    answer(&state, query, Wanted::lichess, false).await
}

/// lila's older `/lichess/history`: `/lichess` with `history` and no
/// moves or games.
pub(crate) async fn lichess_history(
    Shared(state): Shared<Arc<State>>,
    RawQuery(query): RawQuery,
) -> Result<Json<Explorer>, ApiError> {
    let history_only = |params: &Params| {
        let wanted = Wanted::lichess(params)?;
        Ok(Wanted {
            history: true,
            moves: 0,
            top_games: 0,
            recent_games: 0,
            ..wanted
        })
    };
    answer(&state, query, history_only, false).await
}

pub(crate) async fn masters(
    Shared(state): Shared<Arc<State>>,
    RawQuery(query): RawQuery,
) -> Result<Json<Explorer>, ApiError> {
    answer(&state, query, Wanted::masters, true).await
}

/// The answer to `query` read as `wanted` reads it, from `--masters` or
/// `--data`.
async fn answer(
    state: &Arc<State>,
    query: Option<String>,
    wanted: impl Fn(&Params) -> Result<Wanted, BadRequest>,
    masters: bool,
) -> Result<Json<Explorer>, ApiError> {
    let params = Params::parse(query.as_deref())?;
    let (asked, wanted) = (Asked::parse(&params)?, wanted(&params)?);
    let answer = blocking(state, move |s| {
        let dir = if masters { &s.masters } else { &s.data };
        explore(s, dir, &asked, &wanted)
    })
    .await?;
    Ok(Json(answer))
}

/// A failure to read the tables: a 500 naming the file (logged); a
/// filter the tables cannot answer: a 400.
pub(crate) fn read_error(e: ExploreError) -> ApiError {
    match e {
        ExploreError::BadFilter { message } => ApiError::bad_request(message),
        other => ApiError::internal(other.to_string()),
    }
}

/// The answer for `asked` and `wanted` from the data in `dir`.
pub(crate) fn explore(
    state: &State,
    dir: &std::path::Path,
    asked: &Asked,
    wanted: &Wanted,
) -> Result<Explorer, ApiError> {
    let data = Data::open(dir).map_err(|e| ApiError::internal(e.to_string()))?;
    let period = data
        .summaries()
        .first()
        .map_or(OpeningPeriod::Month, |s| s.opening_tree.period);
    let bounds = wanted.bounds(period)?;
    let pos = &asked.position;
    let sums = read_position(&data, pos, &bounds, &state.files).map_err(read_error)?;
    let ids = GameIds::of(&data).map_err(read_error)?;
    let lists = Lists::choose(&sums, &ids, wanted).map_err(read_error)?;
    let found = read_games(&data, &lists.wanted(), &state.files).map_err(read_error)?;
    let mut total = Counts::default();
    // lila's order: by the games with a result (those it counts), ties by
    // SAN here (lila leaves them in any order).
    let mut order: Vec<usize> = (0..sums.moves.len()).collect();
    let decided = |i: &usize| sums.moves[*i].counts.finished();
    order.sort_by(|a, b| {
        decided(b)
            .cmp(&decided(a))
            .then_with(|| sums.moves[*a].san.cmp(&sums.moves[*b].san))
    });
    let mut moves = Vec::new();
    for index in order {
        let sum = &sums.moves[index];
        total += sum.counts;
        if moves.len() < wanted.moves {
            let single = lists.single.get(index).and_then(Option::as_ref);
            let game = single.map(|g| api_game(&found, g, wanted)).transpose()?;
            moves.push(explorer_move(pos, sum, game)?);
        }
    }
    let listed = |games: &[(usize, GameAt)]| -> Result<Vec<GameWithUci>, ApiError> {
        games
            .iter()
            .map(|(index, game)| {
                let uci = sums
                    .moves
                    .get(*index)
                    .map(|m| legal(pos, &m.uci).map_or_else(|| m.uci.clone(), lichess_uci));
                Ok(GameWithUci {
                    uci: uci.unwrap_or_default(),
                    game: api_game(&found, game, wanted)?,
                })
            })
            .collect()
    };
    Ok(Explorer {
        white: total.white_wins,
        draws: total.draws,
        black: total.black_wins,
        moves,
        recent_games: (!wanted.masters)
            .then(|| listed(&lists.recent))
            .transpose()?,
        top_games: Some(listed(&lists.top)?),
        opening: asked.opening.clone(),
        history: wanted
            .history
            .then(|| history(&sums, wanted.since, wanted.until)),
    })
}

fn api_game(found: &FoundGames, game: &GameAt, wanted: &Wanted) -> Result<ApiGame, ApiError> {
    let game = found.get(game).map_err(read_error)?;
    Ok(ApiGame::of(&game, wanted.masters))
}

/// A move's line: its counts, the mover's average rating, its game when
/// it was played once, and the opening of the position it leads to.
fn explorer_move(
    pos: &Chess,
    sum: &MoveSums,
    game: Option<ApiGame>,
) -> Result<ExplorerMove, ApiError> {
    let (rating_sum, rated) = match pos.turn() {
        shakmaty::Color::White => (sum.ratings.white_sum, sum.ratings.white_count),
        shakmaty::Color::Black => (sum.ratings.black_sum, sum.ratings.black_count),
    };
    // Rounded half up, as lila's f64::round on these positive averages.
    let average_rating = (rated > 0)
        .then(|| i64::try_from((rating_sum + rated / 2) / rated).ok())
        .flatten();
    let played = legal(pos, &sum.uci);
    let opening = played
        .and_then(|m| pos.clone().play(m).ok())
        .and_then(|after| OpeningLabel::of_position(&after));
    Ok(ExplorerMove {
        uci: played.map_or_else(|| sum.uci.clone(), lichess_uci),
        san: sum.san.clone(),
        average_rating,
        white: sum.counts.white_wins,
        draws: sum.counts.draws,
        black: sum.counts.black_wins,
        game,
        opening,
    })
}

/// A move as lila writes it: castling as the king taking its rook
/// (`e1h1`), every other move as UCI.
pub(crate) fn lichess_uci(m: Move) -> String {
    m.to_uci(CastlingMode::Chess960).to_string()
}

/// The games an answer lists, each with the index of its move.
struct Lists {
    top: Vec<(usize, GameAt)>,
    recent: Vec<(usize, GameAt)>,
    /// Per move: its game when it was played once.
    single: Vec<Option<GameAt>>,
}

impl Lists {
    fn choose(sums: &PositionSums, ids: &GameIds, wanted: &Wanted) -> Result<Lists, ExploreError> {
        let single = sums
            .moves
            .iter()
            .map(|m| m.single_game().map(|g| ids.place(g)).transpose())
            .collect::<Result<Vec<_>, _>>()?;
        let top = match wanted.masters {
            true => masters_top(sums, ids, wanted.top_games)?,
            false => lichess_top(sums, ids, wanted)?,
        };
        let mut recent = Vec::new();
        if !wanted.masters && wanted.recent_games > 0 {
            let latest = sums
                .moves
                .iter()
                .enumerate()
                .flat_map(|(index, m)| m.latest.iter().map(move |g| (index, g.clone())));
            // Enough to fill the list after the top games are left out.
            let n = wanted.recent_games + top.len();
            recent = latest_games(latest, ids, n)?;
            recent.retain(|(_, g)| !top.iter().any(|(_, t)| t == g));
            let room = match wanted.top_games > LICHESS_TOP {
                // `maxGames`: each list its own cap.
                true => wanted.recent_games,
                false => LICHESS_GAMES
                    .saturating_sub(top.len())
                    .min(wanted.recent_games),
            };
            recent.truncate(room);
        }
        let mut top = top;
        top.truncate(wanted.top_games);
        Ok(Lists {
            top,
            recent,
            single,
        })
    }

    fn wanted(&self) -> Vec<&GameAt> {
        self.top
            .iter()
            .chain(&self.recent)
            .map(|(_, g)| g)
            .chain(self.single.iter().flatten())
            .collect()
    }
}

/// `/masters`' top games: the best-rated of each move's rows, highest
/// sum of both ratings first.
fn masters_top(
    sums: &PositionSums,
    ids: &GameIds,
    n: usize,
) -> Result<Vec<(usize, GameAt)>, ExploreError> {
    let mut all: Vec<(usize, RatedGame)> = Vec::new();
    for (index, m) in sums.moves.iter().enumerate() {
        all.extend(m.best.iter().map(|b| (index, b.clone())));
    }
    // lila's masters games all have both ratings: unrated games are no
    // top games (as on /lichess, where they have no group).
    all.retain(|(_, b)| b.rating.is_some());
    let mut move_of = std::collections::HashMap::new();
    for (index, best) in &all {
        move_of.entry(ids.place(&best.game)?).or_insert(*index);
    }
    let candidates: Vec<RatedGame> = all.into_iter().map(|(_, b)| b).collect();
    let best = best_games(&candidates, ids, n)?;
    Ok(best
        .into_iter()
        .filter_map(|game| Some((*move_of.get(&game)?, game)))
        .collect())
}

/// `/lichess`' top games, as lila ranks them: games of the rating groups
/// from the lowest of 2000, 2200, 2500 that the request asks for without
/// a gap up to 2500 (2000 when `ratings` is absent; none without 2500),
/// by the speed's best score less the group's lower bound (strong slow
/// games first), then latest first; up to lila's 4 (or `maxGames`).
fn lichess_top(
    sums: &PositionSums,
    ids: &GameIds,
    wanted: &Wanted,
) -> Result<Vec<(usize, GameAt)>, ExploreError> {
    let Some(lowest) = top_group(&wanted.groups) else {
        return Ok(Vec::new());
    };
    let mut ranked = Vec::new();
    for (index, m) in sums.moves.iter().enumerate() {
        for best in &m.best {
            let Some(group) = best.row.band().map(group_of_band) else {
                continue;
            };
            if group < lowest {
                continue;
            }
            let score = high_score(best.row.speed()) - group;
            ranked.push((score, index, ids.place(&best.game)?));
        }
    }
    ranked.sort_by_key(|(score, _, game)| (*score, std::cmp::Reverse(game.order)));
    let cap = wanted.top_games.max(LICHESS_TOP);
    let mut top: Vec<(usize, GameAt)> = Vec::new();
    for (_, index, game) in ranked {
        if top.len() == cap {
            break;
        }
        if !top.iter().any(|(_, g)| *g == game) {
            top.push((index, game));
        }
    }
    Ok(top)
}

/// The lowest group top games come from (see [`lichess_top`]).
fn top_group(groups: &[i32]) -> Option<i32> {
    if groups.is_empty() {
        return Some(2000);
    }
    let mut lowest = None;
    for group in [2500, 2200, 2000] {
        if !groups.contains(&group) {
            break;
        }
        lowest = Some(group);
    }
    lowest
}

/// The lichess group a band falls in (by its lower bound).
pub(crate) fn group_of_band(band: RatingBand) -> i32 {
    let low = band.lower_bound();
    RATING_GROUPS
        .iter()
        .rev()
        .find(|&&g| g <= low)
        .copied()
        .unwrap_or(0)
}

/// lila's best score of a speed (`Speed::highscore`); an unknown speed
/// ranks last.
fn high_score(speed: TimeClass) -> i32 {
    match speed {
        TimeClass::UltraBullet => 2644,
        TimeClass::Bullet => 3352,
        TimeClass::Blitz => 2974,
        TimeClass::Rapid => 2949,
        TimeClass::Classical => 2533,
        TimeClass::Correspondence => 4000,
        TimeClass::Unknown => 10_000,
    }
}

/// lila's `history`: the months from `since` (else the first with games
/// of the position) to the last with games of the position, filtered out
/// or not, empty ones as zeros; without `until`, the last month is left
/// out (lila's may be half imported).
fn history(sums: &PositionSums, since: Option<Month>, until: Option<Month>) -> Vec<HistoryMonth> {
    let Some((first, last)) = sums.months else {
        return Vec::new();
    };
    let mut month = since.unwrap_or(first);
    let mut out = Vec::new();
    while month <= last {
        let counts = sums.by_month.get(&month).copied().unwrap_or_default();
        out.push(HistoryMonth {
            month: month.to_string(),
            white: counts.white_wins,
            draws: counts.draws,
            black: counts.black_wins,
        });
        let Some(next) = month.next() else { break };
        month = next;
    }
    if until.is_none() {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(query: &str) -> Params {
        Params::parse(Some(query)).unwrap_or_else(|e| panic!("{}", e.0))
    }

    #[test]
    fn a_position_is_the_fen_then_the_moves_of_play_named_along_the_line() {
        let asked =
            Asked::parse(&params("play=e2e4,c7c5,g1f3")).unwrap_or_else(|e| panic!("{}", e.0));
        assert_eq!(asked.opening.map(|o| o.eco), Some("B27"));
        let bad = Asked::parse(&params("play=e2e4,e2e4")).err().map(|e| e.0);
        assert_eq!(
            bad.as_deref(),
            Some(
                "play: \"e2e4\" (move 2) is not a legal move in \
                 rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            )
        );
        assert!(Asked::parse(&params("fen=8/8/8+w")).is_err());
        assert!(Asked::parse(&params("variant=atomic")).is_err());
        // Castling as the king taking its rook is read, and written so.
        let castle = "fen=r3k2r/8/8/8/8/8/8/R3K2R_w_KQkq_-&play=e1h1";
        let castled = Asked::parse(&params(castle)).unwrap_or_else(|e| panic!("{}", e.0));
        assert_eq!(
            castled.position.board().king_of(shakmaty::Color::White),
            Some(shakmaty::Square::G1)
        );
        let before = Asked::parse(&params(&castle[..castle.len() - 10]))
            .map(|a| a.position)
            .unwrap_or_default();
        assert_eq!(
            legal(&before, "e1g1").map(lichess_uci).as_deref(),
            Some("e1h1")
        );
        assert_eq!(castled.line, ["1.", "O-O"]);
    }

    #[test]
    fn ratings_fall_in_lichess_groups_and_months_are_read_as_lila_reads_them() {
        let wanted = Wanted::lichess(&params("ratings=1500,2500,2800,0&speeds=blitz,ultraBullet&since=2020-1&until=2021/03&topGames=9"))
            .unwrap_or_else(|e| panic!("{}", e.0));
        assert_eq!(wanted.groups, [0, 1400, 2500]);
        assert_eq!(wanted.speeds, [TimeClass::Blitz, TimeClass::UltraBullet]);
        assert_eq!(
            wanted.since.map(|m| m.to_string()).as_deref(),
            Some("2020-01")
        );
        assert_eq!(
            wanted.until.map(|m| m.to_string()).as_deref(),
            Some("2021-03")
        );
        assert_eq!(
            (wanted.top_games, wanted.recent_games, wanted.moves),
            (4, 8, 12)
        );
        for bad in [
            "ratings=abc",
            "speeds=fast",
            "since=2020",
            "moves=-1",
            "history=maybe",
        ] {
            assert!(Wanted::lichess(&params(bad)).is_err(), "{bad}");
        }
        let masters =
            Wanted::masters(&params("since=1990&until=2000")).unwrap_or_else(|e| panic!("{}", e.0));
        assert_eq!(
            masters.since.map(|m| m.to_string()).as_deref(),
            Some("1990-01")
        );
        assert_eq!(
            masters.until.map(|m| m.to_string()).as_deref(),
            Some("2000-12")
        );
        assert_eq!(masters.top_games, 15);
        let uncapped = Wanted::lichess(&params("maxGames=50&topGames=30"))
            .unwrap_or_else(|e| panic!("{}", e.0));
        assert_eq!((uncapped.top_games, uncapped.recent_games), (30, 100));
    }

    #[test]
    fn top_games_come_from_2000_up_unless_the_ratings_leave_out_2500() {
        assert_eq!(top_group(&[]), Some(2000));
        assert_eq!(top_group(&[2000, 2200, 2500]), Some(2000));
        assert_eq!(top_group(&[1800, 2200, 2500]), Some(2200));
        assert_eq!(top_group(&[2500]), Some(2500));
        assert_eq!(top_group(&[2000, 2200]), None);
        let band = |low| RatingBand::from_column(low).map(group_of_band);
        assert_eq!(band(800), Some(0));
        assert_eq!(band(2400), Some(2200));
        assert_eq!(band(2800), Some(2500));
    }
}
