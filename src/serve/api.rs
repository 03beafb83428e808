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
use axum::extract::State as Shared;
use serde::{Deserialize, Serialize};
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

use super::blocking;
use super::error::ApiError;
use super::games::{ApiGame, GameWithUci};
use super::query::{Count, Flag, Lichess, List, Year};
use super::state::State;
use crate::error::ExploreError;
use crate::model::{Month, RatingGroup, TimeClass};
use crate::read::explore::filters::Bounds;
use crate::read::explore::locate::{OpeningLabel, position_of_fen};
use crate::read::explore::position::{MoveSums, PositionSums, RatedGame, read_position};
use crate::read::explore::top_games::{
    FoundGames, GameAt, GameIds, best_games, latest_games, read_games,
};
use crate::stats::counts::Counts;
use crate::stats::dimensions::OpeningPeriod;

/// lila's caps: top games of `/lichess`, top and recent games together,
/// top games of `/masters`.
const LICHESS_TOP: usize = 4;
const LICHESS_GAMES: usize = 8;
const MASTERS_TOP: usize = 15;
/// `maxGames` (pgnlake's own parameter) lifts lila's caps up to this.
pub(crate) const MOST_GAMES: usize = 200;
/// Moves listed by default, as lila lists them.
const DEFAULT_MOVES: usize = 12;

/// The position a request names: lila's `variant`, `fen` and `play`.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct PositionQuery {
    pub variant: Option<String>,
    pub fen: Option<String>,
    #[serde(default)]
    pub play: List<String>,
}

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
    pub(crate) fn of(query: &PositionQuery) -> Result<Asked, ApiError> {
        if let Some(variant) = query.variant.as_deref()
            && !matches!(variant, "standard" | "chess" | "fromPosition" | "Standard")
        {
            return Err(ApiError::bad_request(format!(
                "variant={variant:?}: this explorer holds standard chess only"
            )));
        }
        let mut position = match query.fen.as_deref() {
            // lila reads `_` between a FEN's fields too.
            Some(fen) => position_of_fen(&fen.replace('_', " ")).map_err(|e| match e {
                ExploreError::BadFen { fen, message } => {
                    ApiError::bad_request(format!("fen={fen:?}: not a legal position ({message})"))
                }
                other => ApiError::bad_request(other.to_string()),
            })?,
            None => Chess::default(),
        };
        let mut opening = OpeningLabel::of_position(&position);
        let play = query.play.0.clone();
        let mut line = Vec::new();
        for (ply, uci) in play.iter().enumerate() {
            let m = legal(&position, uci).ok_or_else(|| {
                ApiError::bad_request(format!(
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

/// `/lichess`' own parameters (lila's names).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LichessQuery {
    #[serde(default)]
    pub speeds: List<TimeClass>,
    /// Ratings, each taken as the lichess group it falls in.
    #[serde(default)]
    pub ratings: List<RatingGroup>,
    pub since: Option<Month>,
    pub until: Option<Month>,
    pub moves: Option<Count>,
    pub top_games: Option<Count>,
    pub recent_games: Option<Count>,
    /// pgnlake's: lifts lila's caps on the games listed.
    pub max_games: Option<Count>,
    pub history: Option<Flag>,
}

/// `/masters`' own parameters: years, not months.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MastersQuery {
    pub since: Option<Year>,
    pub until: Option<Year>,
    pub moves: Option<Count>,
    pub top_games: Option<Count>,
    pub max_games: Option<Count>,
    /// pgnlake's: the position's months and each move's (see `history`).
    pub history: Option<Flag>,
}

/// What `/lichess` (or `/masters`) keeps and lists.
#[derive(Debug, Clone)]
pub(crate) struct Wanted {
    pub speeds: Vec<TimeClass>,
    /// lichess rating groups asked for (none: all rows, rated or not).
    pub groups: Vec<RatingGroup>,
    pub since: Option<Month>,
    pub until: Option<Month>,
    pub moves: usize,
    pub top_games: usize,
    pub recent_games: usize,
    pub history: bool,
    pub masters: bool,
}

impl Wanted {
    pub(crate) fn lichess(query: &LichessQuery) -> Wanted {
        let most = Count::capped(query.max_games, 0, MOST_GAMES);
        let (top_cap, games_cap) = match most {
            0 => (LICHESS_TOP, LICHESS_GAMES),
            n => (n, 2 * n),
        };
        let mut groups = query.ratings.distinct();
        groups.sort_unstable();
        Wanted {
            speeds: query.speeds.distinct(),
            groups,
            since: query.since,
            until: query.until,
            moves: Count::capped(query.moves, DEFAULT_MOVES, usize::MAX),
            top_games: Count::capped(query.top_games, top_cap, top_cap),
            recent_games: Count::capped(query.recent_games, games_cap, games_cap),
            history: query.history.is_some_and(|f| f.0),
            masters: false,
        }
    }

    pub(crate) fn masters(query: &MastersQuery) -> Result<Wanted, ApiError> {
        let most = Count::capped(query.max_games, 0, MOST_GAMES);
        let top_cap = if most == 0 { MASTERS_TOP } else { most };
        let year = |name: &str, year: Option<Year>, month: i64| {
            year.map(|y| {
                Month::new(i64::from(y.0), month)
                    .filter(|_| y.0 <= 5460)
                    .ok_or_else(|| {
                        ApiError::bad_request(format!("{name}: {}: expected a year", y.0))
                    })
            })
            .transpose()
        };
        Ok(Wanted {
            speeds: Vec::new(),
            groups: Vec::new(),
            since: year("since", query.since, 1)?,
            until: year("until", query.until, 12)?,
            moves: Count::capped(query.moves, DEFAULT_MOVES, usize::MAX),
            top_games: Count::capped(query.top_games, top_cap, top_cap),
            recent_games: 0,
            history: query.history.is_some_and(|f| f.0),
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
        let bands = self.groups.iter().map(|g| g.bands()).collect();
        let months = (self.since, self.until, "since/until");
        Bounds::new(self.speeds.clone(), bands, months, period)
            .map_err(|e| ApiError::bad_request(e.to_string()))
    }
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
    /// pgnlake's, with `history=true` only (lichess clients ignore it):
    /// the move's own months, as the position's `history`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<HistoryMonth>>,
    /// pgnlake's, with `history=true`: the move's first and last month
    /// with games (`YYYY-MM`) within the months asked.
    #[serde(rename = "firstMonth", skip_serializing_if = "Option::is_none")]
    pub first_month: Option<String>,
    #[serde(rename = "lastMonth", skip_serializing_if = "Option::is_none")]
    pub last_month: Option<String>,
    /// pgnlake's, with `history=true`: the first game of its first month
    /// (the least game id of its rows; in a lake, of the first import).
    #[serde(rename = "firstGame", skip_serializing_if = "Option::is_none")]
    pub first_game: Option<ApiGame>,
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
    Lichess(at): Lichess<PositionQuery>,
    Lichess(query): Lichess<LichessQuery>,
) -> Result<Json<Explorer>, ApiError> {
    let (asked, wanted) = (Asked::of(&at)?, Wanted::lichess(&query));
    answer(&state, asked, wanted).await
}

/// lila's older `/lichess/history`: `/lichess` with `history` and no
/// moves or games.
pub(crate) async fn lichess_history(
    Shared(state): Shared<Arc<State>>,
    Lichess(at): Lichess<PositionQuery>,
    Lichess(query): Lichess<LichessQuery>,
) -> Result<Json<Explorer>, ApiError> {
    let wanted = Wanted {
        history: true,
        moves: 0,
        top_games: 0,
        recent_games: 0,
        ..Wanted::lichess(&query)
    };
    answer(&state, Asked::of(&at)?, wanted).await
}

pub(crate) async fn masters(
    Shared(state): Shared<Arc<State>>,
    Lichess(at): Lichess<PositionQuery>,
    Lichess(query): Lichess<MastersQuery>,
) -> Result<Json<Explorer>, ApiError> {
    let (asked, wanted) = (Asked::of(&at)?, Wanted::masters(&query)?);
    answer(&state, asked, wanted).await
}

/// The answer for `asked` and `wanted`, from `--masters` or `--data`.
async fn answer(
    state: &Arc<State>,
    asked: Asked,
    wanted: Wanted,
) -> Result<Json<Explorer>, ApiError> {
    let answer = blocking(state, move |s| {
        let dir = if wanted.masters { &s.masters } else { &s.data };
        explore(s, dir, &asked, &wanted)
    })
    .await?;
    Ok(Json(answer))
}

/// The answer for `asked` and `wanted` from the data in `dir`.
pub(crate) fn explore(
    state: &State,
    dir: &std::path::Path,
    asked: &Asked,
    wanted: &Wanted,
) -> Result<Explorer, ApiError> {
    let data = state.data_at(dir)?;
    let period = data
        .summaries()
        .first()
        .map_or(OpeningPeriod::Month, |s| s.opening_tree.period);
    let bounds = wanted.bounds(period)?;
    let pos = &asked.position;
    let sums = read_position(&data, pos, &bounds, &state.files)?;
    let ids = GameIds::of(&data)?;
    let lists = Lists::choose(&sums, &ids, wanted)?;
    let found = read_games(&data, &lists.wanted(), &state.files)?;
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
            let mut line = explorer_move(pos, sum, game)?;
            if wanted.history {
                // Its rows are those the bounds keep: within since and until.
                line.first_month = sum.by_month.keys().next().map(Month::to_string);
                line.last_month = sum.by_month.keys().next_back().map(Month::to_string);
                let first = lists.first.get(index).and_then(Option::as_ref);
                line.first_game = first.map(|g| api_game(&found, g, wanted)).transpose()?;
                line.history = Some(history(
                    &sum.by_month,
                    sums.months,
                    wanted.since,
                    wanted.until,
                ));
            }
            moves.push(line);
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
            .then(|| history(&sums.by_month, sums.months, wanted.since, wanted.until)),
    })
}

fn api_game(found: &FoundGames, game: &GameAt, wanted: &Wanted) -> Result<ApiGame, ApiError> {
    let game = found.get(game)?;
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
        history: None,
        first_month: None,
        last_month: None,
        first_game: None,
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
    /// Per move, with `history=true`: its first game.
    first: Vec<Option<GameAt>>,
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
        let first = match wanted.history {
            true => sums
                .moves
                .iter()
                .map(|m| m.first.as_ref().map(|f| ids.place(&f.game)).transpose())
                .collect::<Result<Vec<_>, _>>()?,
            false => Vec::new(),
        };
        Ok(Lists {
            top,
            recent,
            single,
            first,
        })
    }

    fn wanted(&self) -> Vec<&GameAt> {
        self.top
            .iter()
            .chain(&self.recent)
            .map(|(_, g)| g)
            .chain(self.single.iter().flatten())
            .chain(self.first.iter().flatten())
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
            let Some(group) = best.row.band().map(RatingGroup::of_band) else {
                continue;
            };
            if group < lowest {
                continue;
            }
            let score = best.row.speed().lichess_high_score() - group.lower_bound();
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
fn top_group(groups: &[RatingGroup]) -> Option<RatingGroup> {
    let of = |bound| RatingGroup::of_bound(bound);
    if groups.is_empty() {
        return of(2000);
    }
    let mut lowest = None;
    for group in [2500, 2200, 2000].into_iter().filter_map(of) {
        if !groups.contains(&group) {
            break;
        }
        lowest = Some(group);
    }
    lowest
}

/// lila's `history`: the months from `since` to `until`, each with the
/// counts of the games kept, empty months as zeros; bounded by the
/// archive: from the first month with games of the position (or `since`,
/// when later) to the last (or `until`, when earlier). lila leaves out
/// the current month, which it may be importing still; an archive's last
/// month is complete, so it stays.
/// A move's own history (pgnlake's) runs over the same months, from its
/// rows summed by month.
fn history(
    by_month: &std::collections::BTreeMap<Month, Counts>,
    months: Option<(Month, Month)>,
    since: Option<Month>,
    until: Option<Month>,
) -> Vec<HistoryMonth> {
    let Some((first, last)) = months else {
        return Vec::new();
    };
    let from = since.map_or(first, |s| s.max(first));
    let to = until.map_or(last, |u| u.min(last));
    from.through(to)
        .map(|month| {
            let counts = by_month.get(&month).copied().unwrap_or_default();
            HistoryMonth {
                month: month.to_string(),
                white: counts.white_wins,
                draws: counts.draws,
                black: counts.black_wins,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RatingBand;
    use crate::serve::query::parse;

    fn asked(query: &str) -> Result<Asked, String> {
        parse::<PositionQuery>(Some(query))
            .and_then(|q| Asked::of(&q))
            .map_err(|e| e.message().to_owned())
    }

    fn lichess(query: &str) -> Result<Wanted, String> {
        parse::<LichessQuery>(Some(query))
            .map(|q| Wanted::lichess(&q))
            .map_err(|e| e.message().to_owned())
    }

    #[test]
    fn a_position_is_the_fen_then_the_moves_of_play_named_along_the_line() {
        let asked_ok = |q: &str| asked(q).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            asked_ok("play=e2e4,c7c5,g1f3").opening.map(|o| o.eco),
            Some("B27")
        );
        assert_eq!(
            asked("play=e2e4,e2e4").err().as_deref(),
            Some(
                "play: \"e2e4\" (move 2) is not a legal move in \
                 rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            )
        );
        assert!(asked("fen=8/8/8+w").is_err());
        assert!(asked("variant=atomic").is_err());
        // Castling as the king taking its rook is read, and written so.
        let castle = "fen=r3k2r/8/8/8/8/8/8/R3K2R_w_KQkq_-&play=e1h1";
        let castled = asked_ok(castle);
        assert_eq!(
            castled.position.board().king_of(shakmaty::Color::White),
            Some(shakmaty::Square::G1)
        );
        let before = asked_ok(&castle[..castle.len() - 10]).position;
        assert_eq!(
            legal(&before, "e1g1").map(lichess_uci).as_deref(),
            Some("e1h1")
        );
        assert_eq!(castled.line, ["1.", "O-O"]);
    }

    #[test]
    fn ratings_fall_in_lichess_groups_and_months_are_read_as_lila_reads_them() {
        let wanted = lichess(
            "ratings=1500,2500,2800,0&speeds=blitz,ultraBullet&since=2020-1&until=2021/03&topGames=9",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let bounds: Vec<i32> = wanted.groups.iter().map(|g| g.lower_bound()).collect();
        assert_eq!(bounds, [0, 1400, 2500]);
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
            let message = lichess(bad).err();
            let name = bad.split('=').next().unwrap_or_default();
            assert!(
                message
                    .as_deref()
                    .is_some_and(|m| m.starts_with(&format!("{name}: "))),
                "{bad}: {message:?}"
            );
        }
        let masters = parse::<MastersQuery>(Some("since=1990&until=2000"))
            .and_then(|q| Wanted::masters(&q))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            masters.since.map(|m| m.to_string()).as_deref(),
            Some("1990-01")
        );
        assert_eq!(
            masters.until.map(|m| m.to_string()).as_deref(),
            Some("2000-12")
        );
        assert_eq!(masters.top_games, 15);
        let uncapped = lichess("maxGames=50&topGames=30").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((uncapped.top_games, uncapped.recent_games), (30, 100));
    }

    #[test]
    fn top_games_come_from_2000_up_unless_the_ratings_leave_out_2500() {
        let groups = |bounds: &[i32]| -> Vec<RatingGroup> {
            bounds
                .iter()
                .filter_map(|&b| RatingGroup::of_bound(b))
                .collect()
        };
        let lowest = |bounds: &[i32]| top_group(&groups(bounds)).map(RatingGroup::lower_bound);
        assert_eq!(lowest(&[]), Some(2000));
        assert_eq!(lowest(&[2000, 2200, 2500]), Some(2000));
        assert_eq!(lowest(&[1800, 2200, 2500]), Some(2200));
        assert_eq!(lowest(&[2500]), Some(2500));
        assert_eq!(lowest(&[2000, 2200]), None);
        let band =
            |low| RatingBand::from_column(low).map(|b| RatingGroup::of_band(b).lower_bound());
        assert_eq!(band(2400), Some(2200));
    }

    #[test]
    fn history_keeps_the_last_month_and_stays_within_the_archive() {
        let m = |t: &str| t.parse::<Month>().ok();
        let Some(january) = m("2025-01") else {
            panic!("a month")
        };
        let mut sums = PositionSums {
            months: Some((january, january)),
            ..PositionSums::default()
        };
        let counts = Counts {
            games: 2,
            white_wins: 1,
            draws: 1,
            black_wins: 0,
        };
        sums.by_month.insert(january, counts);
        let one = history(&sums.by_month, sums.months, None, None);
        assert_eq!(one.len(), 1, "a one-month archive keeps its month");
        assert_eq!((one[0].white, one[0].draws), (1, 1));
        // A since far before the archive answers its months, not 24,000.
        assert_eq!(
            history(&sums.by_month, sums.months, m("0001-01"), m("9999-12")).len(),
            1
        );
        assert!(history(&sums.by_month, sums.months, m("2025-02"), None).is_empty());
    }
}
