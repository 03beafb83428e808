//! Serve, the explorer page (`/`) and a game's page (`/game/{id}`): HTML
//! written on the server, working without JavaScript (a few lines of
//! script add the arrow keys), from the same answers as `/lichess` and
//! `/player`. The handlers here read the request and the tables; `view`
//! (the explorer) and `game_view` (a game) write the pages from plain
//! data through askama's templates, which escape every value from the
//! archive (names, events, tags) and the request (a FEN as typed, an id).

mod game_view;
mod trend;
mod view;

use std::sync::Arc;

use axum::extract::{RawQuery, State as Shared};
use axum::http::StatusCode;
use axum::response::Response;
use shakmaty::{Chess, Color, Position};

use self::game_view::{GameMove, GamePageView, StepLinks};
use self::view::{ExplorerView, Filters, GameRow, MoveRow, Moves, PlayerBox};
use super::api::{Asked, Explorer, LichessQuery, PositionQuery, Wanted, explore};
use super::games::{ApiGame, GameWithUci};
use super::params::Params;
use super::player::{PlayerParams, PlayerQuery, line, player_tree};
use super::query::{self, IdPath};
use super::{ApiError, blocking};
use crate::error::ExploreError;
use crate::model::{RatingGroup, TimeClass};
use crate::replay::steps::GameSteps;

/// One move's line on the page, from `/lichess` or `/player`.
struct Row {
    uci: String,
    san: String,
    white: u64,
    draws: u64,
    black: u64,
    rating: Option<i64>,
    /// Its games month by month, over the position's months (empty on a
    /// player's tree).
    history: Vec<u64>,
}

/// What the page shows of a position.
struct View {
    rows: Vec<Row>,
    /// The position's white wins, draws and black wins: every move's,
    /// listed or not.
    total: [u64; 3],
    /// Whether the position has moves the rows leave out.
    more: bool,
    top: Vec<GameWithUci>,
    recent: Vec<GameWithUci>,
    opening: Option<String>,
    /// The position's games month by month (empty on a player's tree).
    months: Vec<(String, u64)>,
}

impl Row {
    fn new(uci: String, san: String, [white, draws, black]: [u64; 3], rating: Option<i64>) -> Row {
        Row {
            uci,
            san,
            white,
            draws,
            black,
            rating,
            history: Vec::new(),
        }
    }
}

/// The games of each month of a `history`.
fn month_games(history: &[super::api::HistoryMonth]) -> Vec<u64> {
    history
        .iter()
        .map(|m| m.white + m.draws + m.black)
        .collect()
}

impl View {
    /// The page's part of `/lichess`' answer, asked for one move more
    /// than the `listed` shown: that one says whether there are more.
    fn of_explorer(answer: Explorer, listed: usize) -> View {
        let mut rows: Vec<Row> = answer
            .moves
            .into_iter()
            .map(|m| Row {
                history: m.history.as_deref().map(month_games).unwrap_or_default(),
                ..Row::new(m.uci, m.san, [m.white, m.draws, m.black], m.average_rating)
            })
            .collect();
        let history = answer.history.unwrap_or_default();
        let months = history
            .iter()
            .map(|m| m.month.clone())
            .zip(month_games(&history));
        let more = rows.len() > listed;
        rows.truncate(listed);
        View {
            rows,
            total: [answer.white, answer.draws, answer.black],
            more,
            top: answer.top_games.unwrap_or_default(),
            recent: answer.recent_games.unwrap_or_default(),
            opening: answer.opening.map(|o| format!("{} {}", o.eco, o.name)),
            months: months.collect(),
        }
    }
}

pub(crate) async fn index(
    Shared(state): Shared<Arc<super::state::State>>,
    RawQuery(query): RawQuery,
) -> Response {
    let params = match Params::parse(query.as_deref()) {
        Ok(params) => params,
        Err(e) => return explorer_error(&Params::default(), None, StatusCode::BAD_REQUEST, &e.0),
    };
    let at = query::parse::<PositionQuery>(query.as_deref());
    let asked = match at.and_then(|at| Asked::of(&at)) {
        Ok(asked) => asked,
        Err(e) => return explorer_error(&params, None, e.status(), e.message()),
    };
    let player = params.get("player").map(str::to_owned);
    let view = match &player {
        Some(_) => {
            let asked_player = query::parse::<PositionQuery>(query.as_deref()).and_then(|at| {
                let params = query::parse::<PlayerParams>(query.as_deref())?;
                PlayerQuery::of(&at, &params)
            });
            let query = match asked_player {
                Ok(query) => query,
                Err(e) => return explorer_error(&params, Some(&asked), e.status(), e.message()),
            };
            blocking(&state, move |s| {
                let tally = player_tree(s, &query, &mut |_| true)?;
                let answer = line(&query, &tally);
                let total = [answer.white, answer.draws, answer.black];
                // A player's tree lists every move unless `moves` says
                // fewer: the listed ones then add up to less.
                let listed: u64 = answer
                    .moves
                    .iter()
                    .map(|m| m.white + m.draws + m.black)
                    .sum();
                Ok(View {
                    total,
                    more: listed < total.iter().sum::<u64>(),
                    rows: answer
                        .moves
                        .into_iter()
                        .map(|m| {
                            let counts = [m.white, m.draws, m.black];
                            Row::new(m.uci, m.san, counts, m.average_opponent_rating)
                        })
                        .collect(),
                    top: Vec::new(),
                    recent: answer.recent_games,
                    opening: answer.opening.map(|o| format!("{} {}", o.eco, o.name)),
                    months: Vec::new(),
                })
            })
            .await
        }
        None => {
            let wanted = match query::parse::<LichessQuery>(query.as_deref()) {
                Ok(asked) => Wanted::lichess(&asked),
                Err(e) => return explorer_error(&params, Some(&asked), e.status(), e.message()),
            };
            // One move more than listed: whether the page links to the rest.
            let listed = wanted.moves;
            // Each move's months, for its trend line.
            let wanted = Wanted {
                moves: listed.saturating_add(1),
                history: true,
                ..wanted
            };
            let again = asked.clone();
            blocking(&state, move |s| {
                explore(s, &s.data, &again, &wanted).map(|answer| View::of_explorer(answer, listed))
            })
            .await
        }
    };
    match view {
        Ok(view) => render(&params, &asked, view),
        Err(e) => explorer_error(&params, Some(&asked), e.status(), e.message()),
    }
}

/// The explorer page of the position `asked`, with `answer`.
fn render(params: &Params, asked: &Asked, answer: View) -> Response {
    let page = explorer_view(params, Some(asked), Some(answer), None);
    view::explorer_response(StatusCode::OK, &page)
}

/// The explorer page saying why the request could not be answered, with
/// `status`, above the board and the boxes: the position asked when it
/// could be read (else the start), and the values as the user typed them
/// (a FEN that is not one stays in its box, to be fixed).
fn explorer_error(
    params: &Params,
    asked: Option<&Asked>,
    status: StatusCode,
    message: &str,
) -> Response {
    let page = explorer_view(params, asked, None, Some(message));
    view::explorer_response(status, &page)
}

/// The page's plain data: the request's values as typed (`params`), the
/// position (`asked`, None when it could not be read), the answer (None
/// on an error) and the error.
fn explorer_view(
    params: &Params,
    asked: Option<&Asked>,
    answer: Option<View>,
    error: Option<&str>,
) -> ExplorerView {
    let typed = |name: &str| params.get(name).unwrap_or("").to_owned();
    let filters = Filters {
        speeds: params
            .list("speeds")
            .into_iter()
            .filter_map(TimeClass::of_any_name)
            .collect(),
        ratings: params
            .list("ratings")
            .into_iter()
            .filter_map(|r| r.parse::<RatingGroup>().ok())
            .collect(),
        since: typed("since"),
        until: typed("until"),
        modes: params
            .list("modes")
            .into_iter()
            .map(str::to_owned)
            .collect(),
        moves: params.count("moves", 0, usize::MAX).ok().filter(|&m| m > 0),
    };
    let player = params.get("player").map(|name| PlayerBox {
        name: name.to_owned(),
        color: match params.get("color") {
            Some("black") => Color::Black,
            _ => Color::White,
        },
    });
    let (top, recent, opening, moves) = match answer {
        Some(view) => {
            let rows = view
                .rows
                .into_iter()
                .map(|r| MoveRow {
                    uci: r.uci,
                    san: r.san,
                    counts: [r.white, r.draws, r.black],
                    rating: r.rating,
                    history: r.history,
                })
                .collect();
            let moves = Moves {
                rows,
                total: view.total,
                more: view.more,
                months: view.months,
            };
            let games = |games: Vec<GameWithUci>| games.iter().map(game_row).collect();
            (
                games(view.top),
                games(view.recent),
                view.opening,
                Some(moves),
            )
        }
        None => (Vec::new(), Vec::new(), None, None),
    };
    let opening = opening.or_else(|| {
        asked
            .and_then(|a| a.opening.as_ref())
            .map(|o| format!("{} {}", o.eco, o.name))
    });
    match asked {
        Some(asked) => ExplorerView {
            fen: params.get("fen").map(str::to_owned),
            fen_typed: None,
            position: asked.position.clone(),
            last_move: asked
                .play
                .last()
                .and_then(|uci| view::last_move(uci, asked.position.board())),
            play: asked.play.clone(),
            forward: params.list("fwd").into_iter().map(str::to_owned).collect(),
            line: asked.line.clone(),
            opening,
            player,
            filters,
            moves,
            top_games: top,
            recent_games: recent,
            error: error.map(str::to_owned),
        },
        // The position could not be read: the start, with the links free of
        // what could not be read.
        None => ExplorerView {
            fen: None,
            fen_typed: params.get("fen").map(str::to_owned),
            position: Chess::default(),
            last_move: None,
            play: Vec::new(),
            forward: Vec::new(),
            line: Vec::new(),
            opening: None,
            player,
            filters,
            moves: None,
            top_games: Vec::new(),
            recent_games: Vec::new(),
            error: error.map(str::to_owned),
        },
    }
}

/// A game of the lists as the page shows it.
fn game_row(g: &GameWithUci) -> GameRow {
    let game: &ApiGame = &g.game;
    GameRow {
        id: game.id.clone(),
        white: game.white.name.clone(),
        white_rating: game.white.rating,
        black: game.black.name.clone(),
        black_rating: game.black.rating,
        winner: match game.winner {
            Some("white") => Some(Color::White),
            Some("black") => Some(Color::Black),
            _ => None,
        },
        speed: game.speed.map(str::to_owned),
        month: game.month.clone(),
    }
}

/// A game's page: its board at a ply, its moves as links, its tags. An
/// id that names no game is the page with the message (404), a game
/// whose source cannot be read a 500 page naming it, a path that does
/// not decode (`/game/%ff`) a 400 page.
pub(crate) async fn game(
    Shared(state): Shared<Arc<super::state::State>>,
    id: Result<IdPath, ApiError>,
    RawQuery(query): RawQuery,
) -> Response {
    let id = match id {
        Ok(IdPath(id)) => id,
        Err(e) => return game_error(None, e),
    };
    let params = Params::parse(query.as_deref()).unwrap_or_default();
    let ply = params
        .count("ply", usize::MAX, usize::MAX)
        .unwrap_or(usize::MAX);
    let shown = id.clone();
    let walked = blocking(&state, move |s| {
        let steps = super::novelty::data_game_steps(s, &id)?;
        let walked = marks(s, &steps)?;
        Ok((steps, walked))
    })
    .await;
    match walked {
        Ok((steps, walked)) => {
            let mut view = game_page(&shown, &steps, ply);
            if let Some(walked) = walked {
                mark_novelty(&mut view, &walked);
            }
            game_view::game_response(StatusCode::OK, &view)
        }
        Err(e) => game_error(Some(&shown), e),
    }
}

/// The game walked through the tree with `novelty`'s defaults; None for a
/// game the tree cannot hold (another variant, a set-up start) and for
/// data without a tree.
fn marks(
    state: &super::state::State,
    steps: &GameSteps,
) -> Result<Option<crate::read::novelty::Novelty>, ApiError> {
    let data = state.data_at(&state.data)?;
    let options = crate::read::novelty::NoveltyOptions {
        rare: crate::read::novelty::DEFAULT_RARE,
        ..Default::default()
    };
    match crate::read::novelty::novelty_in(&data, steps, &options, &state.files) {
        Ok(walked) => Ok(Some(walked)),
        Err(ExploreError::NotInTree { .. } | ExploreError::MissingTable { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Each move within the tree's window marked with the earlier games that
/// reached its position, the novelty highlighted and said in words.
fn mark_novelty(view: &mut GamePageView, walked: &crate::read::novelty::Novelty) {
    for (m, counted) in view.moves.iter_mut().zip(&walked.plies) {
        m.earlier = Some(counted.earlier);
        m.novelty = walked.novelty_ply == Some(counted.ply);
    }
    let before = walked
        .before
        .as_ref()
        .map_or_else(|| "in the archive".to_owned(), |m| format!("before {m}"));
    view.novelty = Some(match (walked.novelty_ply, &walked.novelty_move) {
        (Some(ply), Some(san)) => format!(
            "Novelty at ply {ply}, {san}: no game {before} reached the position after it \
             (the small numbers: games {before} that reached each position)."
        ),
        _ => format!(
            "No novelty within the tree's first {} plies: games {before} reached every \
             position (the small numbers count them).",
            walked.window.saturating_sub(1)
        ),
    });
}

/// The game page saying why game `id` (None: the path did not decode)
/// cannot be shown, with the error's status.
fn game_error(id: Option<&str>, e: ApiError) -> Response {
    let (status, message) = e.parts();
    game_view::game_response(status, &GamePageView::error(id, &message))
}

/// The page's plain data of game `id` from its steps, at `ply` (its end
/// when past it): the board after `ply` plies with the move that led
/// there and its FEN.
fn game_page(id: &str, game: &GameSteps, ply: usize) -> GamePageView {
    let plies = game.steps.len();
    let ply = ply.min(plies);
    let shown = ply.checked_sub(1).and_then(|i| game.steps.get(i));
    let tag = |name: &str| {
        game.tags
            .iter()
            .find(|(k, _)| k == name)
            .map_or("?", |(_, v)| v.as_str())
            .to_owned()
    };
    // A set-up position can start with black, at any move number.
    let black_first = usize::from(game.start_turn == Color::Black);
    let first = game.start_move_number as usize;
    let moves = game
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| GameMove {
            number: u32::try_from(first + (i + black_first) / 2).unwrap_or(u32::MAX),
            san: step.san.clone(),
            ply: i + 1,
            current: i + 1 == ply,
            earlier: None,
            novelty: false,
        })
        .collect();
    GamePageView {
        id: id.to_owned(),
        title: format!("Game {id}"),
        players: Some((tag("White"), tag("Black"))),
        tags: game.tags.clone(),
        board: shown.map_or(&game.start_board, |step| &step.board).clone(),
        last_move: shown.map(|step| (step.from, step.to)),
        fen: shown.map_or(&game.start_fen, |step| &step.fen).clone(),
        start_turn: game.start_turn,
        moves,
        links: Some(StepLinks {
            first: 0,
            back: ply.checked_sub(1),
            forward: (ply < plies).then_some(ply + 1),
            end: plies,
        }),
        error: None,
        novelty: None,
    }
}
