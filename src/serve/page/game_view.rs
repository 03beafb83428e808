//! Serve, the game page's HTML: plain data in (a [`GamePageView`]: the
//! players, the tags, the board at the ply shown, its FEN, the moves, the
//! links to step through them, an error), HTML out through
//! `templates/game.html`, which extends the explorer's base (its head,
//! style and script) and draws the explorer's board; askama escapes every
//! value (the tags and the moves come from the archive, the id from the
//! request).

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use shakmaty::{Color, Square};

// FAVICON, SCRIPT and STYLE: base.html's `self::`.
use super::view::{Board, FAVICON, SCRIPT, STYLE, render_failed};

/// What the game page shows, as plain data: the game at the ply asked,
/// or (on an error) the start position, no moves and the message.
#[derive(Debug, Clone)]
pub(crate) struct GamePageView {
    /// The game's id as `/game/{id}` and `/pgn/{id}` take it (empty when
    /// the path did not decode).
    pub id: String,
    /// The page's `<title>`.
    pub title: String,
    /// White's and Black's names, by their tags (`?` when a tag is
    /// absent); None on an error, the heading then the title.
    pub players: Option<(String, String)>,
    /// The tag pairs in the game's order.
    pub tags: Vec<(String, String)>,
    /// The board at the ply shown.
    pub board: shakmaty::Board,
    /// The squares of the move that led there: from (none for a drop)
    /// and to.
    pub last_move: Option<(Option<Square>, Square)>,
    /// The position's FEN.
    pub fen: String,
    /// Who plays the game's first move (a game set up with black to move
    /// at move 40 starts `40…`).
    pub start_turn: Color,
    /// Every move of the mainline, in order, numbered from the game's
    /// start (its `FEN`'s move number).
    pub moves: Vec<GameMove>,
    /// The plies the step links lead to, and with them the PGN link
    /// (None: no game to step through, on an error).
    pub links: Option<StepLinks>,
    /// Why the game cannot be shown, above the board.
    pub error: Option<String>,
    /// Where the game left the archive, in words (None: not walked).
    pub novelty: Option<String>,
}

/// One move of the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GameMove {
    /// Its move number (`1` for `1. e4` and for `1... e5`).
    pub number: u32,
    pub san: String,
    /// The ply it leads to (its link's `ply=`): 1 for the first move.
    pub ply: usize,
    /// Whether it led to the position shown.
    pub current: bool,
    /// The games of months before the game's that reached the position
    /// after it (None past the tree's window, or for a game the tree
    /// cannot hold).
    pub earlier: Option<u64>,
    /// Whether it is the game's novelty: the first move to a position no
    /// earlier game reached.
    pub novelty: bool,
}

/// The plies of the step links: the start, one back (None at the start),
/// one forward (None at the end) and the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StepLinks {
    pub first: usize,
    pub back: Option<usize>,
    pub forward: Option<usize>,
    pub end: usize,
}

impl GamePageView {
    /// The page of an id that shows no game: `message` above the standard
    /// start position, no moves, no links. `id`: as the path gave it, when
    /// it decoded.
    pub(crate) fn error(id: Option<&str>, message: &str) -> GamePageView {
        let start = shakmaty::Chess::default();
        GamePageView {
            id: id.unwrap_or_default().to_owned(),
            title: match id {
                Some(id) => format!("Game {id}"),
                None => "pgnlake explorer".to_owned(),
            },
            players: None,
            tags: Vec::new(),
            board: shakmaty::Position::board(&start).clone(),
            last_move: None,
            fen: shakmaty::fen::Fen::from_position(&start, shakmaty::EnPassantMode::Legal)
                .to_string(),
            start_turn: Color::White,
            moves: Vec::new(),
            links: None,
            error: Some(message.to_owned()),
            novelty: None,
        }
    }
}

/// The game page of `view`, with `status` (404, 400 or 500 with
/// `view.error`, else 200).
pub(crate) fn game_response(status: StatusCode, view: &GamePageView) -> Response {
    match game(view) {
        Ok(html) => (status, Html(html)).into_response(),
        Err(e) => render_failed(&e),
    }
}

/// The game page of `view`.
pub(crate) fn game(view: &GamePageView) -> Result<String, askama::Error> {
    let black_first = usize::from(view.start_turn == Color::Black);
    let moves = view
        .moves
        .iter()
        .map(|m| {
            // The plies from the game's start: white's moves are numbered
            // `1.`, and black's first move, when the game starts with it,
            // `1…`.
            let from_white = m.ply.saturating_sub(1) + black_first;
            MoveLink {
                label: match (from_white % 2 == 0, m.ply == 1) {
                    (true, _) => Some(format!("{}.", m.number)),
                    (false, true) => Some(format!("{}…", m.number)),
                    (false, false) => None,
                },
                san: &m.san,
                ply: m.ply,
                current: m.current,
                earlier: m.earlier,
                novelty: m.novelty,
            }
        })
        .collect();
    GamePage {
        title: &view.title,
        heading: match &view.players {
            Some((white, black)) => format!("{white} – {black}"),
            None => view.title.clone(),
        },
        error: view.error.as_deref(),
        board: Board::new(&view.board, view.last_move).render()?,
        fen: &view.fen,
        id: &view.id,
        links: view.links,
        tags: &view.tags,
        moves,
        novelty: view.novelty.as_deref(),
    }
    .render()
}

/// The page as its template takes it.
#[derive(Template)]
#[template(path = "serve/templates/game.html", config = "src/askama.toml")]
struct GamePage<'a> {
    title: &'a str,
    /// After `pgnlake · `: the players, or the title.
    heading: String,
    error: Option<&'a str>,
    /// The board, written by its own template.
    board: String,
    fen: &'a str,
    id: &'a str,
    links: Option<StepLinks>,
    tags: &'a [(String, String)],
    moves: Vec<MoveLink<'a>>,
    novelty: Option<&'a str>,
}

/// A move, written: its number when it is shown before it.
struct MoveLink<'a> {
    label: Option<String>,
    san: &'a str,
    ply: usize,
    current: bool,
    earlier: Option<u64>,
    novelty: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(view: &GamePageView) -> String {
        game(view).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A game of two plies, shown after the first.
    fn two_plies(start_turn: Color, start_number: u32) -> GamePageView {
        let mv = |number, san: &str, ply| GameMove {
            number,
            san: san.into(),
            ply,
            current: ply == 1,
            earlier: None,
            novelty: false,
        };
        GamePageView {
            id: "2024-02:5".into(),
            title: "Game 2024-02:5".into(),
            players: Some(("W".into(), "B".into())),
            tags: vec![("Event".into(), "e".into())],
            moves: match start_turn {
                Color::White => vec![mv(start_number, "e4", 1), mv(start_number, "e5", 2)],
                Color::Black => vec![mv(start_number, "Kg7", 1), mv(start_number + 1, "Qd4", 2)],
            },
            start_turn,
            links: Some(StepLinks {
                first: 0,
                back: Some(0),
                forward: Some(2),
                end: 2,
            }),
            error: None,
            ..GamePageView::error(None, "")
        }
    }

    #[test]
    fn every_value_from_the_archive_or_the_request_is_escaped() {
        let hostile = "<script>alert('x')</script>\"&";
        let view = GamePageView {
            id: hostile.into(),
            title: hostile.into(),
            players: Some((hostile.into(), hostile.into())),
            tags: vec![(hostile.into(), hostile.into())],
            fen: hostile.into(),
            moves: vec![GameMove {
                number: 1,
                san: hostile.into(),
                ply: 1,
                current: true,
                earlier: Some(3),
                novelty: true,
            }],
            error: Some(hostile.into()),
            novelty: Some(hostile.into()),
            ..two_plies(Color::White, 1)
        };
        let html = page(&view);
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("'x'"), "{html}");
        assert_eq!(html.matches("<script>").count(), 1, "{html}");
        assert!(
            html.contains("&#60;script&#62;alert(&#39;x&#39;)"),
            "{html}"
        );
        // The id in a link is percent-encoded, never markup.
        assert!(html.contains("href=\"/pgn/%3Cscript%3E"), "{html}");
    }

    #[test]
    fn moves_are_numbered_from_the_games_start_and_link_to_their_ply() {
        let html = page(&two_plies(Color::White, 1));
        assert!(
            html.contains("<h1><a href=\"/\">pgnlake</a> · W – B</h1>"),
            "{html}"
        );
        assert!(
            html.contains(
                "<p class=\"moves\"><span class=\"number\">1.</span><a class=\"current\" \
                 href=\"/game/2024-02%3A5?ply=1\">e4</a> <a href=\"/game/2024-02%3A5?ply=2\">e5</a> </p>"
            ),
            "{html}"
        );
        assert!(html.contains("<a id=\"back\" href=\"/game/2024-02%3A5?ply=0\">"));
        assert!(html.contains("<a class=\"pgn\" href=\"/pgn/2024-02%3A5\">PGN</a>"));
        assert!(html.contains("<tr><th>Event</th><td>e</td></tr>"));
        // A game set up with black to move, at move 40.
        let html = page(&two_plies(Color::Black, 40));
        assert!(
            html.contains(
                "<span class=\"number\">40…</span><a class=\"current\" \
                 href=\"/game/2024-02%3A5?ply=1\">Kg7</a> <span class=\"number\">41.</span>"
            ),
            "{html}"
        );
    }

    #[test]
    fn the_steps_are_off_at_either_end() {
        let at_start = GamePageView {
            links: Some(StepLinks {
                first: 0,
                back: None,
                forward: Some(1),
                end: 2,
            }),
            ..two_plies(Color::White, 1)
        };
        let html = page(&at_start);
        assert!(html.contains("<span class=\"off\">◀ back</span>"), "{html}");
        assert!(html.contains("<a id=\"forward\" href=\"/game/2024-02%3A5?ply=1\">forward ▶</a>"));
        assert!(html.contains("<a id=\"last\" href=\"/game/2024-02%3A5?ply=2\">end »</a>"));
    }

    #[test]
    fn an_error_is_the_page_with_the_message_and_the_start_position() {
        let html = page(&GamePageView::error(
            Some("2024-02:999999"),
            "no game 2024-02:999999",
        ));
        assert!(
            html.contains("<p class=\"error\" role=\"alert\">no game 2024-02:999999</p>"),
            "{html}"
        );
        assert!(
            html.contains("<title>Game 2024-02:999999</title>"),
            "{html}"
        );
        assert_eq!(html.matches("data-square=").count(), 64);
        assert!(!html.contains("id=\"forward\""), "{html}");
        assert!(!html.contains("class=\"pgn\""), "{html}");
        assert!(html.contains("<a href=\"/\">"), "{html}");
    }
}
