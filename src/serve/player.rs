//! Serve, `/player`: the opening tree of one player's games as white or
//! black, built on demand from `games.parquet` (each game's name, speed,
//! mode, month, ratings, result and the start of `moves_uci`) and streamed
//! as NDJSON the way lila-openingexplorer streams it: a first line at once, then a
//! line at most every second while the games are read (when the games
//! counted changed), the last when all are read; an empty line keeps a
//! quiet connection alive. A client that goes away stops the reading.
//!
//! Any name the archive holds is a player (OTB names such as `Carlsen,
//! Magnus` included), compared without regard to case. A game counts its
//! move from the position as the tree counts it: within the tree's window
//! (its first `--opening-plies` moves, of a standard start), a position
//! met twice in one game counts once, with the move that left it last.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::State as Shared;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use polars::prelude::DataFrame;
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Position};
use tokio::sync::mpsc;

use super::api::{Asked, MOST_GAMES, PositionQuery, legal, lichess_uci};
use super::error::ApiError;
use super::games::{ApiGame, GameWithUci};
use super::query::{Count, Lichess, List};
use super::state::State;
use crate::lake::PARTITION_COLUMN;
use crate::model::{Mode, Month, TimeClass};
use crate::read::explore::TopGame;
use crate::read::explore::locate::OpeningLabel;
use crate::read::explore::position::san_of;
use crate::read::explore::top_games::games_of;
use crate::replay::openings::position_key;
use crate::sink::columns::Columns;
use crate::sink::schema::games as g;
use crate::stats::counts::Counts;
use crate::stats::first_moves::in_tree;

/// lila's cap on `recentGames`.
const PLAYER_GAMES: usize = 8;
/// An empty line after this long without one, as lila sends it.
const KEEP_ALIVE: Duration = Duration::from_secs(8);
/// Lines at most this often while the games are read.
const EVERY: Duration = Duration::from_secs(1);
/// Bytes of a player's name at most.
const MAX_NAME_BYTES: usize = 200;

/// The side a player's games are counted from (lila's `color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Side {
    White,
    Black,
}

/// `/player`'s own parameters (lila's names).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PlayerParams {
    pub player: Option<String>,
    pub color: Option<Side>,
    #[serde(default)]
    pub speeds: List<TimeClass>,
    #[serde(default)]
    pub modes: List<Mode>,
    pub since: Option<Month>,
    pub until: Option<Month>,
    pub moves: Option<Count>,
    pub recent_games: Option<Count>,
    pub max_games: Option<Count>,
}

/// What `/player` asks.
#[derive(Debug, Clone)]
pub(crate) struct PlayerQuery {
    /// Lowercased.
    pub player: String,
    pub color: Color,
    pub asked: Asked,
    speeds: Vec<TimeClass>,
    /// None: all games, whatever their event says.
    modes: Vec<Mode>,
    since: Option<Month>,
    until: Option<Month>,
    moves: usize,
    recent_games: usize,
}

impl PlayerQuery {
    pub(crate) fn of(at: &PositionQuery, params: &PlayerParams) -> Result<PlayerQuery, ApiError> {
        let player = params
            .player
            .as_deref()
            .ok_or_else(|| ApiError::bad_request("player: give a player's name"))?;
        if player.len() > MAX_NAME_BYTES {
            return Err(ApiError::bad_request(format!(
                "player: a name of {} bytes; at most {MAX_NAME_BYTES}",
                player.len()
            )));
        }
        let color = match params.color {
            Some(Side::White) => Color::White,
            Some(Side::Black) => Color::Black,
            None => return Err(ApiError::bad_request("color: expected white or black")),
        };
        let most = Count::capped(params.max_games, 0, MOST_GAMES);
        let cap = if most == 0 { PLAYER_GAMES } else { most };
        Ok(PlayerQuery {
            player: player.trim().to_lowercase(),
            color,
            asked: Asked::of(at)?,
            speeds: params.speeds.distinct(),
            modes: params.modes.distinct(),
            since: params.since,
            until: params.until,
            moves: Count::capped(params.moves, usize::MAX, usize::MAX),
            recent_games: Count::capped(params.recent_games, cap, cap),
        })
    }
}

/// One line of the stream (lila's fields, in their order).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PlayerLine {
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub moves: Vec<PlayerMove>,
    #[serde(rename = "recentGames")]
    pub recent_games: Vec<GameWithUci>,
    pub opening: Option<OpeningLabel>,
    #[serde(rename = "queuePosition")]
    queue_position: u64,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PlayerMove {
    pub uci: String,
    pub san: String,
    #[serde(
        rename = "averageOpponentRating",
        skip_serializing_if = "Option::is_none"
    )]
    pub average_opponent_rating: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub performance: Option<i64>,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub game: Option<ApiGame>,
    pub opening: Option<OpeningLabel>,
}

/// A move's games so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct MoveTally {
    counts: Counts,
    opponent_sum: u64,
    opponents: u64,
    /// (order, game): the latest few, for `recentGames` and `game`.
    latest: Vec<(u64, TopGame)>,
}

pub(crate) async fn player(
    Shared(state): Shared<Arc<State>>,
    Lichess(at): Lichess<PositionQuery>,
    Lichess(params): Lichess<PlayerParams>,
) -> Result<Response, ApiError> {
    let query = PlayerQuery::of(&at, &params)?;
    let permit = state.player().await?;
    let (tx, mut rx) = mpsc::channel::<Result<String, ApiError>>(4);
    let reader = state.clone();
    // A thread of its own, behind the other answers' readers in the
    // scheduler's eyes: a long stream takes the cores the short answers
    // leave, and never a reader of theirs.
    let spawned = std::thread::Builder::new()
        .name("pgnlake-player".into())
        .spawn(move || {
            let _permit = permit;
            yield_to_answers();
            if let Err(e) = stream_player(&reader, &query, &tx) {
                // Before the first line: the answer's status; after: the log.
                let _ = tx.blocking_send(Err(e));
            }
        });
    spawned.map_err(|e| ApiError::internal(format!("cannot start a /player reader: {e}")))?;
    let first = match rx.recv().await {
        Some(line) => line?,
        None => return Err(ApiError::internal("the player's reader stopped")),
    };
    let rest = futures_util::stream::unfold(rx, |mut rx| async move {
        match tokio::time::timeout(KEEP_ALIVE, rx.recv()).await {
            Err(_) => Some((Ok::<String, std::io::Error>("\n".to_owned()), rx)),
            Ok(Some(Ok(line))) => Some((Ok(line), rx)),
            Ok(Some(Err(e))) => {
                // After the first line the status is sent: the log says why
                // the stream ends.
                tracing::error!(error = %e, "pgnlake serve: /player stream stopped");
                None
            }
            Ok(None) => None,
        }
    });
    let first = futures_util::stream::once(async move { Ok::<String, std::io::Error>(first) });
    let body = Body::from_stream(futures_util::StreamExt::chain(first, rest));
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson"),
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        body,
    )
        .into_response())
}

/// Lowers the calling thread's priority (nice 10): `/player` streams
/// scan whole tables, and `/lichess` answers must not wait behind them
/// for a core (measured with 60 streams running: see docs/performance.md).
fn yield_to_answers() {
    // SAFETY: gettid and setpriority touch only this thread's priority;
    // raising a nice value is always allowed, and a failure changes
    // nothing.
    unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10);
    }
}

/// Reads the player's games, sending lines to `tx`; stops early when the
/// client is gone.
fn stream_player(
    state: &State,
    query: &PlayerQuery,
    tx: &mpsc::Sender<Result<String, ApiError>>,
) -> Result<(), ApiError> {
    let mut sent: Option<u64> = None;
    let mut last = Instant::now();
    let mut gone = false;
    let tally = player_tree(state, query, &mut |tally| {
        let total = games_of_tally(tally);
        if sent.is_none() || (last.elapsed() >= EVERY && sent != Some(total)) {
            if tx.blocking_send(Ok(text_of(&line(query, tally)))).is_err() {
                gone = true;
                return false;
            }
            sent = Some(total);
            last = Instant::now();
        }
        true
    })?;
    if !gone && sent != Some(games_of_tally(&tally)) {
        let _ = tx.blocking_send(Ok(text_of(&line(query, &tally))));
    }
    Ok(())
}

fn games_of_tally(tally: &Tally) -> u64 {
    tally.values().map(|t| t.counts.games).sum()
}

/// One player's moves from the position, tallied by move (UCI).
pub(crate) type Tally = HashMap<String, MoveTally>;

/// The tree of the player's games from the position; `progress` is told
/// the tally after each row group read, and stops the reading by
/// returning false.
pub(crate) fn player_tree(
    state: &State,
    query: &PlayerQuery,
    progress: &mut dyn FnMut(&Tally) -> bool,
) -> Result<Tally, ApiError> {
    let data = state.data_at(&state.data)?;
    let ids = crate::read::explore::top_games::GameIds::of(&data)?;
    let target = position_key(&query.asked.position);
    let mut tally = Tally::new();
    // The tree's window, shared by every import of a lake; no summary, no
    // imports to read.
    let Some(plies) = data.summaries().first().map(|s| s.opening_tree.plies) else {
        return Ok(tally);
    };
    let name_column = match query.color {
        Color::White => g::WHITE.name,
        Color::Black => g::BLACK.name,
    };
    for (import, path) in data.files(&g::TABLE) {
        let file = state.files.open(&path, g::GAME_ID.name, true)?;
        for group in 0..file.groups() {
            let read = |columns: Option<&[&str]>| file.group(group, columns);
            let names = read(Some(&[name_column]))?;
            let rows = matching_rows(&names, name_column, &query.player, &path)?;
            if !rows.is_empty() {
                let games = read(Some(&COLUMNS))?;
                let rows: polars::prelude::IdxCa = rows
                    .iter()
                    .map(|&r| Some(r as polars::prelude::IdxSize))
                    .collect();
                let mut games = games.take(&rows)?;
                let moves = first_moves(&file, &path, group, &rows, plies)?;
                if data.is_lake() {
                    let name = polars::prelude::Column::new(
                        PARTITION_COLUMN.into(),
                        vec![import.clone(); games.height()],
                    );
                    games.with_column(name)?;
                }
                count_games(&games, &moves, &path, query, target, &ids, &mut tally)?;
            }
            if !progress(&tally) {
                return Ok(tally);
            }
        }
    }
    Ok(tally)
}

/// The columns `/player` reads of a player's games.
const COLUMNS: [&str; 16] = [
    g::GAME_ID.name,
    g::VARIANT_NAME.name,
    g::START_FEN.name,
    g::WHITE.name,
    g::BLACK.name,
    g::WHITE_ELO.name,
    g::BLACK_ELO.name,
    g::DECLARED_RESULT.name,
    g::RESULT_CHECK.name,
    g::RESULT_BY_RULE.name,
    g::DATE.name,
    g::TIME_CLASS.name,
    g::MONTH.name,
    g::YEAR.name,
    g::EVENT.name,
    g::LICHESS_ID.name,
];

/// The rows of `names` that name `player` (lowercased).
fn matching_rows(
    names: &DataFrame,
    column: &str,
    player: &str,
    path: &std::path::Path,
) -> Result<Vec<usize>, ApiError> {
    let names = Columns::new(names, path).texts(column)?;
    Ok(names
        .iter()
        .enumerate()
        .filter(|(_, name)| {
            name.as_deref()
                .is_some_and(|n| n.trim().to_lowercase() == player)
        })
        .map(|(row, _)| row)
        .collect())
}

/// The first `plies` moves (UCI) of the games of `rows` of row group
/// `group`, from the pages of `moves_uci` that hold them alone (the
/// longest column: a player's games are a few of a group's).
fn first_moves(
    file: &crate::read::keyed::KeyedFile,
    path: &std::path::Path,
    group: usize,
    rows: &polars::prelude::IdxCa,
    plies: usize,
) -> Result<Vec<String>, ApiError> {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return Ok(Vec::new());
    };
    let (first, last) = (first as usize, last as usize);
    let span = file.group_rows(group, first..last + 1, &[g::MOVES_UCI.name])?;
    // The matched rows' text alone, not the span's (an owned string a row
    // was a fifth of the time, in malloc and free).
    let moves = span.column(g::MOVES_UCI.name)?.str()?;
    rows.iter()
        .flatten()
        .map(|row| {
            let line = moves.get(row as usize - first).ok_or_else(|| {
                ApiError::internal(format!(
                    "{}: row {row} of group {group} has no moves_uci",
                    path.display()
                ))
            })?;
            // The moves are separated by one space (as the import writes
            // them): the prefix up to the `plies`-th.
            let end = match plies {
                0 => 0,
                n => line
                    .match_indices(' ')
                    .nth(n - 1)
                    .map_or(line.len(), |(i, _)| i),
            };
            Ok(line[..end].to_owned())
        })
        .collect()
}

/// Counts each game of `games` (its moves in `moves`) that reaches the
/// position.
fn count_games(
    games: &DataFrame,
    moves: &[String],
    path: &std::path::Path,
    query: &PlayerQuery,
    target: u64,
    ids: &crate::read::explore::top_games::GameIds,
    tally: &mut Tally,
) -> Result<(), ApiError> {
    let rows = Columns::new(games, path);
    let facts = games_of(rows)?;
    let (check, by_rule) = (
        rows.required_texts(g::RESULT_CHECK.name)?,
        rows.texts(g::RESULT_BY_RULE.name)?,
    );
    let (variants, fens) = (
        rows.required_texts(g::VARIANT_NAME.name)?,
        rows.texts(g::START_FEN.name)?,
    );
    for (row, game) in facts.into_iter().enumerate() {
        if !keeps(query, &game) {
            continue;
        }
        if !in_tree(&variants[row], fens[row].as_deref()) {
            continue;
        }
        let Some(line) = moves.get(row) else {
            continue;
        };
        let Some(uci) = move_from(line, target) else {
            continue;
        };
        let result = counted(&check[row], game.result.as_deref(), by_rule[row].as_deref());
        let opponent = match query.color {
            Color::White => game.black_elo,
            Color::Black => game.white_elo,
        };
        let order = ids
            .place(&crate::read::explore::position::RowGame {
                partition: game.import.clone(),
                id: game.game_id,
            })?
            .order;
        let entry = tally.entry(uci).or_default();
        add_result(&mut entry.counts, result);
        if let Some(rating) = opponent.and_then(|r| u64::try_from(r).ok()) {
            entry.opponent_sum += rating;
            entry.opponents += 1;
        }
        entry.latest.push((order, game));
        entry
            .latest
            .sort_by_key(|(order, _)| std::cmp::Reverse(*order));
        entry.latest.truncate(query.recent_games.max(1));
    }
    Ok(())
}

/// Does the game pass the speed, mode and month filters?
fn keeps(query: &PlayerQuery, game: &TopGame) -> bool {
    let speed = game.time_class.parse::<TimeClass>().ok();
    if !query.speeds.is_empty() && !speed.is_some_and(|s| query.speeds.contains(&s)) {
        return false;
    }
    if !query.modes.is_empty()
        && !Mode::of_event(game.event.as_deref()).is_some_and(|m| query.modes.contains(&m))
    {
        return false;
    }
    if query.since.is_none() && query.until.is_none() {
        return true;
    }
    let Some(month) = game.month.as_deref().and_then(|m| m.parse::<Month>().ok()) else {
        return false;
    };
    query.since.is_none_or(|s| month >= s) && query.until.is_none_or(|u| month <= u)
}

/// The move the game played from the position `target` within its first
/// moves (the last, if it met the position more than once), in UCI.
fn move_from(first_moves: &str, target: u64) -> Option<String> {
    let mut pos = Chess::default();
    let mut chosen = None;
    for uci in first_moves.split_ascii_whitespace() {
        let m = legal(&pos, uci)?;
        if position_key(&pos) == target {
            chosen = Some(uci.to_owned());
        }
        pos.play_unchecked(m);
    }
    chosen
}

/// The result the tree counts (`check::counted_result`): the declared one
/// when the audit found it consistent, else what the board proves.
fn counted(check: &str, declared: Option<&str>, by_rule: Option<&str>) -> Option<&'static str> {
    let norm = |r: Option<&str>| match r {
        Some("1-0") => Some("1-0"),
        Some("0-1") => Some("0-1"),
        Some("1/2-1/2") => Some("1/2-1/2"),
        _ => None,
    };
    match check {
        "consistent" => norm(declared).or(norm(by_rule)),
        _ => norm(by_rule),
    }
}

fn add_result(counts: &mut Counts, result: Option<&str>) {
    counts.games += 1;
    match result {
        Some("1-0") => counts.white_wins += 1,
        Some("0-1") => counts.black_wins += 1,
        Some("1/2-1/2") => counts.draws += 1,
        _ => {}
    }
}

/// A line as the stream sends it: one object on one line (serde_json
/// writes no newline inside).
fn text_of(line: &PlayerLine) -> String {
    let mut text = serde_json::to_string(line).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

/// The stream's line for the games counted so far.
pub(crate) fn line(query: &PlayerQuery, tally: &Tally) -> PlayerLine {
    let pos = &query.asked.position;
    // Each move spelled once ("--" for one not legal here, as lila).
    let mut moves: Vec<(&String, String, &MoveTally)> = tally
        .iter()
        .map(|(uci, t)| (uci, san_of(pos, uci).unwrap_or_else(|| "--".to_owned()), t))
        .collect();
    // lila's order: by the games with a result, ties by SAN.
    moves.sort_by(|a, b| {
        (b.2.counts.finished().cmp(&a.2.counts.finished())).then_with(|| a.1.cmp(&b.1))
    });
    let mut total = Counts::default();
    for (_, _, t) in &moves {
        total += t.counts;
    }
    let mut recent: Vec<(u64, &String, &TopGame)> = moves
        .iter()
        .flat_map(|(uci, _, t)| {
            t.latest
                .iter()
                .map(move |(order, game)| (*order, *uci, game))
        })
        .collect();
    recent.sort_by_key(|(order, _, _)| std::cmp::Reverse(*order));
    recent.truncate(query.recent_games);
    // As lila writes it (castling as king takes rook).
    let written = |uci: &str| legal(pos, uci).map_or_else(|| uci.to_owned(), lichess_uci);
    let opening_after = |uci: &str| {
        let after = pos.clone().play(legal(pos, uci)?).ok()?;
        OpeningLabel::of_position(&after)
    };
    PlayerLine {
        white: total.white_wins,
        draws: total.draws,
        black: total.black_wins,
        moves: moves
            .iter()
            .take(query.moves)
            .map(|(uci, san, t)| {
                let average =
                    (t.opponents > 0).then(|| (t.opponent_sum + t.opponents / 2) / t.opponents);
                PlayerMove {
                    uci: written(uci),
                    san: san.clone(),
                    average_opponent_rating: average.and_then(|a| i64::try_from(a).ok()),
                    performance: average
                        .and_then(|a| performance(&t.counts, query.color, a as f64)),
                    white: t.counts.white_wins,
                    draws: t.counts.draws,
                    black: t.counts.black_wins,
                    game: (t.counts.games == 1)
                        .then(|| t.latest.first().map(|(_, g)| ApiGame::of(g, false)))
                        .flatten(),
                    opening: opening_after(uci),
                }
            })
            .collect(),
        recent_games: recent
            .into_iter()
            .map(|(_, uci, game)| GameWithUci {
                uci: written(uci),
                game: ApiGame::of(game, false),
            })
            .collect(),
        opening: query.asked.opening.clone(),
        queue_position: 0,
    }
}

/// lila's performance rating (FIDE's table of rating differences) of
/// `counts` for `color` against opponents averaging `average`.
fn performance(counts: &Counts, color: Color, average: f64) -> Option<i64> {
    const DELTAS: [f64; 101] = [
        -800.0, -677.0, -589.0, -538.0, -501.0, -470.0, -444.0, -422.0, -401.0, -383.0, -366.0,
        -351.0, -336.0, -322.0, -309.0, -296.0, -284.0, -273.0, -262.0, -251.0, -240.0, -230.0,
        -220.0, -211.0, -202.0, -193.0, -184.0, -175.0, -166.0, -158.0, -149.0, -141.0, -133.0,
        -125.0, -117.0, -110.0, -102.0, -95.0, -87.0, -80.0, -72.0, -65.0, -57.0, -50.0, -43.0,
        -36.0, -29.0, -21.0, -14.0, -7.0, 0.0, 7.0, 14.0, 21.0, 29.0, 36.0, 43.0, 50.0, 57.0, 65.0,
        72.0, 80.0, 87.0, 95.0, 102.0, 110.0, 117.0, 125.0, 133.0, 141.0, 149.0, 158.0, 166.0,
        175.0, 184.0, 193.0, 202.0, 211.0, 220.0, 230.0, 240.0, 251.0, 262.0, 273.0, 284.0, 296.0,
        309.0, 322.0, 336.0, 351.0, 366.0, 383.0, 401.0, 422.0, 444.0, 470.0, 501.0, 538.0, 589.0,
        677.0, 800.0,
    ];
    let total = counts.white_wins + counts.draws + counts.black_wins;
    if total == 0 {
        return None;
    }
    let wins = match color {
        Color::White => counts.white_wins,
        Color::Black => counts.black_wins,
    };
    let p = (100 * wins + 50 * counts.draws) as f64 / total as f64;
    let index = p.trunc() as usize;
    let low = DELTAS.get(index).copied().unwrap_or(800.0);
    let high = DELTAS.get(index + 1).copied().unwrap_or(800.0);
    Some((average + low * (1.0 - p.fract()) + high * p.fract()).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn performance_is_lilas() {
        let one_win = Counts {
            games: 1,
            white_wins: 1,
            draws: 0,
            black_wins: 0,
        };
        assert_eq!(performance(&one_win, Color::White, 1500.0), Some(2300));
        let mostly_lost = Counts {
            games: 100,
            white_wins: 5,
            draws: 0,
            black_wins: 95,
        };
        assert_eq!(performance(&mostly_lost, Color::White, 0.0), Some(-470));
    }

    #[test]
    fn a_game_counts_the_move_that_left_the_position_last() {
        let start = position_key(&Chess::default());
        assert_eq!(move_from("e2e4 e7e5", start).as_deref(), Some("e2e4"));
        // Knights out and back: the start is met again, left by d2d4.
        let back = "g1f3 g8f6 f3g1 f6g8 d2d4";
        assert_eq!(move_from(back, start).as_deref(), Some("d2d4"));
        assert_eq!(move_from("", start), None);
        assert_eq!(move_from("e2e5", start), None);
        assert_eq!(counted("consistent", Some("1-0"), None), Some("1-0"));
        assert_eq!(
            counted("contradicts_checkmate", Some("1-0"), Some("0-1")),
            Some("0-1")
        );
        assert_eq!(counted("consistent", Some("*"), None), None);
    }
}
