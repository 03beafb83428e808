//! Serve, the explorer page's HTML: plain data in (an [`ExplorerView`]: the
//! position, its moves and totals, its games, the filters, an error), HTML
//! out through askama's templates (`src/serve/templates/`), which escape
//! every value; the style and the script are their own files
//! (`src/serve/assets/`), put in each page at build time. The board, the
//! style, the script and the icon are the game page's too (`game_view`).

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, EnPassantMode, File, Position, Rank, Role, Square};

use crate::model::{RatingGroup, TimeClass};

/// The pages' style.
pub(crate) const STYLE: &str = include_str!("../assets/page.css");
/// The pages' script: the arrow keys follow the page's links.
pub(crate) const SCRIPT: &str = include_str!("../assets/page.js");
/// The pages' icon, inline, so that no request for `/favicon.ico` is made
/// (and none answered 404): a light pawn on the header's dark grey.
pub(crate) const FAVICON: &str = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' \
    viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%232b2b2b'/%3E%3Ccircle \
    cx='8' cy='5.2' r='2.4' fill='%23f0d9b5'/%3E%3Cpath d='M4 14h8l-1.6-5.2H5.6z' \
    fill='%23f0d9b5'/%3E%3C/svg%3E";

/// `moves=` of the "show all moves" link: more than any position has
/// legal moves (218), so every move of the tree is listed.
pub(crate) const ALL_MOVES: usize = 256;

/// What the explorer page shows, as plain data: what the handler read
/// from the request and from the tables.
#[derive(Debug, Clone)]
pub(crate) struct ExplorerView {
    /// The `fen` parameter the page's links carry (None: the start
    /// position). On an error that the FEN caused, None: the links then
    /// lead back to a position that exists.
    pub fen: Option<String>,
    /// What the FEN box shows instead of the board's FEN: the text the user
    /// typed, on an error, so that it can be fixed.
    pub fen_typed: Option<String>,
    /// The board.
    pub position: Chess,
    /// The squares of the move that led to the position: from (none for
    /// a drop) and to.
    pub last_move: Option<(Option<Square>, Square)>,
    /// The UCI moves played from `fen` to the position.
    pub play: Vec<String>,
    /// The moves the forward link plays next (undone by back).
    pub forward: Vec<String>,
    /// The line in SAN with its move numbers (`1.`, `e4`, `c5`).
    pub line: Vec<String>,
    /// `ECO name` of the last named opening along the line.
    pub opening: Option<String>,
    /// A player's tree, when the page shows one.
    pub player: Option<PlayerBox>,
    pub filters: Filters,
    /// The moves and totals (None when the request could not be
    /// answered: the page then shows the error, the board and the boxes).
    pub moves: Option<Moves>,
    pub top_games: Vec<GameRow>,
    pub recent_games: Vec<GameRow>,
    /// Why the request could not be answered, shown above the board.
    pub error: Option<String>,
}

/// The player whose tree the page shows.
#[derive(Debug, Clone)]
pub(crate) struct PlayerBox {
    /// As typed.
    pub name: String,
    pub color: Color,
}

/// The filters of the page, as the request gave them (kept in every link).
#[derive(Debug, Clone, Default)]
pub(crate) struct Filters {
    pub speeds: Vec<TimeClass>,
    pub ratings: Vec<RatingGroup>,
    /// As typed (`YYYY-MM`), empty when not given.
    pub since: String,
    pub until: String,
    /// `rated` / `casual` of a player's tree.
    pub modes: Vec<String>,
    /// `moves=` when given (the "show all moves" link gives it).
    pub moves: Option<usize>,
}

/// The moves of the position and its totals.
#[derive(Debug, Clone, Default)]
pub(crate) struct Moves {
    /// The moves listed, most played first.
    pub rows: Vec<MoveRow>,
    /// The position's white wins, draws and black wins: every move's,
    /// listed or not (`Explorer`'s `white`, `draws`, `black`).
    pub total: [u64; 3],
    /// Whether the position has more moves than `rows` lists.
    pub more: bool,
    /// The position's games month by month, for its trend chart (empty
    /// on a player's tree).
    pub months: Vec<(String, u64)>,
}

/// One move's line.
#[derive(Debug, Clone)]
pub(crate) struct MoveRow {
    pub uci: String,
    pub san: String,
    /// White wins, draws, black wins.
    pub counts: [u64; 3],
    /// The mover's average rating (the opponents' on a player's tree).
    pub rating: Option<i64>,
    /// Its games in each of [`Moves::months`], for its trend line.
    pub history: Vec<u64>,
}

/// A game of the top or recent games.
#[derive(Debug, Clone)]
pub(crate) struct GameRow {
    /// As `/game/{id}` and `/pgn/{id}` take it.
    pub id: String,
    pub white: String,
    pub white_rating: Option<i32>,
    pub black: String,
    pub black_rating: Option<i32>,
    /// `white`, `black` or None (a draw, or no result).
    pub winner: Option<Color>,
    /// lichess's name of its speed.
    pub speed: Option<String>,
    /// `YYYY-MM`.
    pub month: Option<String>,
}

/// The squares the board highlights for `uci`, the move as `play` gave it,
/// which led to `after`: from (none for a drop) and to. A castling
/// written king takes rook (`e1h1`) is shown by the king's squares
/// (`e1`, `g1`), as lichess shows it and the game page does. None for a
/// null move or a text that is not UCI.
pub(crate) fn last_move(uci: &str, after: &shakmaty::Board) -> Option<(Option<Square>, Square)> {
    match UciMove::from_ascii(uci.as_bytes()).ok()? {
        // Any other move leaves a piece on its square; castling king takes
        // rook leaves the rook's square empty (or holding the king, in
        // Chess960), the king beside it towards the centre.
        UciMove::Normal { from, to, .. } if after.piece_at(to).is_none() => {
            let file = if to.file() > from.file() {
                File::G
            } else {
                File::C
            };
            Some((Some(from), Square::from_coords(file, to.rank())))
        }
        UciMove::Normal { from, to, .. } => Some((Some(from), to)),
        UciMove::Put { to, .. } => Some((None, to)),
        UciMove::Null => None,
    }
}

/// The explorer page of `view`, with `status` (400 or 500 with
/// `view.error`, else 200).
pub(crate) fn explorer_response(status: StatusCode, view: &ExplorerView) -> Response {
    match explorer(view) {
        Ok(html) => (status, Html(html)).into_response(),
        Err(e) => render_failed(&e),
    }
}

/// A template that could not be written (a value's `Display` failed: a
/// bug, never the request's doing): a 500 in plain text.
pub(crate) fn render_failed(e: &askama::Error) -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        format!("pgnlake serve: the page could not be written: {e}\n"),
    )
        .into_response()
}

/// The explorer page of `view`.
pub(crate) fn explorer(view: &ExplorerView) -> Result<String, askama::Error> {
    let links = Links::of(view);
    let shown = Fen::from_position(&view.position, EnPassantMode::Legal).to_string();
    let fen_box = match &view.fen_typed {
        Some(typed) => typed.clone(),
        None => shown.clone(),
    };
    let mut hidden: Vec<(&'static str, String)> = Vec::new();
    if let Some(fen) = &view.fen {
        hidden.push(("fen", fen.clone()));
    }
    if !view.play.is_empty() {
        hidden.push(("play", view.play.join(",")));
    }
    if let Some(player) = &view.player {
        hidden.push(("player", player.name.clone()));
        hidden.push(("color", color_name(player.color).to_owned()));
    }
    if let Some(moves) = view.filters.moves {
        hidden.push(("moves", moves.to_string()));
    }
    let filters = &view.filters;
    let page = ExplorerPage {
        title: "pgnlake explorer",
        player: view.player.as_ref().map(|p| Heading {
            name: p.name.clone(),
            color: color_name(p.color),
        }),
        error: view.error.clone(),
        board: Board::new(view.position.board(), view.last_move).render()?,
        first: links.with_play(&[], &[]),
        back: view.play.split_last().map(|(last, before)| {
            let mut forward = vec![last.clone()];
            forward.extend(view.forward.iter().cloned());
            links.with_play(before, &forward)
        }),
        forward: view.forward.split_first().map(|(next, rest)| {
            let mut play = view.play.clone();
            play.push(next.clone());
            links.with_play(&play, rest)
        }),
        fen_box,
        search: format!("/search?fen={}", urlencode(&shown)),
        player_box: view
            .player
            .as_ref()
            .map(|p| p.name.clone())
            .unwrap_or_default(),
        as_black: view
            .player
            .as_ref()
            .is_some_and(|p| p.color == Color::Black),
        opening: view.opening.clone().unwrap_or_default(),
        line: view.line.join(" "),
        hidden,
        speeds: TimeClass::ALL
            .iter()
            .filter_map(|t| Some((t.lichess_name()?, filters.speeds.contains(t))))
            .collect(),
        // A player's tree keeps no rating filter (lila's has none).
        ratings: view.player.is_none().then(|| {
            RatingGroup::all()
                .map(|g| (g.lower_bound(), filters.ratings.contains(&g)))
                .collect()
        }),
        since: filters.since.clone(),
        until: filters.until.clone(),
        moves: view.moves.as_ref().map(|m| MovesTable::of(m, view, &links)),
        top_games: view.top_games.iter().map(GameLine::of).collect(),
        recent_games: view.recent_games.iter().map(GameLine::of).collect(),
    };
    page.render()
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The page as its template takes it: every link and number written.
#[derive(Template)]
#[template(path = "serve/templates/explorer.html", config = "src/askama.toml")]
struct ExplorerPage {
    title: &'static str,
    player: Option<Heading>,
    error: Option<String>,
    /// The board, written by its own template.
    board: String,
    first: String,
    back: Option<String>,
    forward: Option<String>,
    fen_box: String,
    /// `/search` for the position shown: the games that reach it at any move.
    search: String,
    player_box: String,
    as_black: bool,
    opening: String,
    line: String,
    /// The filters form's hidden fields: the position and the player.
    hidden: Vec<(&'static str, String)>,
    /// Each speed, and whether it is asked for.
    speeds: Vec<(&'static str, bool)>,
    /// Each rating group, and whether it is asked for (None: no such filter).
    ratings: Option<Vec<(i32, bool)>>,
    since: String,
    until: String,
    moves: Option<MovesTable>,
    top_games: Vec<GameLine>,
    recent_games: Vec<GameLine>,
}

struct Heading {
    name: String,
    color: &'static str,
}

/// The moves table, written.
struct MovesTable {
    rows: Vec<MoveLine>,
    total: u64,
    total_share: &'static str,
    bar: Bar,
    /// The "show all moves" link, when not all are listed.
    all: Option<String>,
    /// The position's games by month.
    trend: Option<super::trend::MonthBars>,
}

struct MoveLine {
    uci: String,
    san: String,
    href: String,
    games: u64,
    share: String,
    bar: Bar,
    rating: String,
    trend: Option<super::trend::Spark>,
}

/// White wins, draws and black wins as a bar's three parts.
struct Bar {
    white: Part,
    draws: Part,
    black: Part,
}

struct Part {
    /// Percent of the bar, `12.5`.
    width: String,
    /// `13%` when the part is wide enough to hold it.
    label: String,
}

impl Bar {
    fn of([white, draws, black]: [u64; 3]) -> Bar {
        let games = white + draws + black;
        let part = |n: u64| {
            let percent = percent(n, games);
            Part {
                width: format!("{percent:.1}"),
                label: if percent >= 12.0 {
                    format!("{percent:.0}%")
                } else {
                    String::new()
                },
            }
        };
        Bar {
            white: part(white),
            draws: part(draws),
            black: part(black),
        }
    }
}

/// `part` of `whole` in percent (0 of nothing).
fn percent(part: u64, whole: u64) -> f64 {
    if whole > 0 {
        100.0 * part as f64 / whole as f64
    } else {
        0.0
    }
}

impl MovesTable {
    fn of(moves: &Moves, view: &ExplorerView, links: &Links) -> MovesTable {
        // The share of each move is of the position's games, the Σ row's.
        let total: u64 = moves.total.iter().sum();
        let rows = moves
            .rows
            .iter()
            .map(|row| {
                let games: u64 = row.counts.iter().sum();
                let mut play = view.play.clone();
                play.push(row.uci.clone());
                MoveLine {
                    uci: row.uci.clone(),
                    san: row.san.clone(),
                    href: links.with_play(&play, &[]),
                    games,
                    share: format!("{:.0}%", percent(games, total)),
                    bar: Bar::of(row.counts),
                    rating: row.rating.map(|r| r.to_string()).unwrap_or_default(),
                    trend: super::trend::spark(&moves.months, &row.history),
                }
            })
            .collect();
        MovesTable {
            rows,
            total,
            total_share: if total > 0 { "100%" } else { "" },
            bar: Bar::of(moves.total),
            all: moves
                .more
                .then(|| links.all_moves(&view.play, &view.forward)),
            trend: super::trend::month_bars(&moves.months),
        }
    }
}

/// A game's line, written.
struct GameLine {
    id: String,
    white: String,
    black: String,
    result: &'static str,
    speed: String,
    month: String,
}

impl GameLine {
    fn of(game: &GameRow) -> GameLine {
        let named = |name: &str, rating: Option<i32>| match rating {
            Some(rating) => format!("{name} ({rating})"),
            None => name.to_owned(),
        };
        GameLine {
            id: game.id.clone(),
            white: named(&game.white, game.white_rating),
            black: named(&game.black, game.black_rating),
            result: match game.winner {
                Some(Color::White) => "1-0",
                Some(Color::Black) => "0-1",
                None => "½-½",
            },
            speed: game.speed.clone().unwrap_or_default(),
            month: game.month.clone().unwrap_or_default(),
        }
    }
}

/// The page's links: its own parameters (filters, player), with a line of
/// moves to play and one to go forward along.
struct Links {
    /// Every parameter but `play` and `fwd`.
    keep: Vec<(&'static str, String)>,
}

impl Links {
    fn of(view: &ExplorerView) -> Links {
        let f = &view.filters;
        let join = |items: &[String]| items.join(",");
        // Speeds by lichess's names where they have one (pgnlake's
        // `unknown` by its own, which `speeds` takes too).
        let speeds: Vec<String> = f
            .speeds
            .iter()
            .map(|t| t.lichess_name().unwrap_or(t.as_str()).to_owned())
            .collect();
        let ratings: Vec<String> = f.ratings.iter().map(RatingGroup::to_string).collect();
        let mut keep: Vec<(&'static str, String)> = vec![
            ("fen", view.fen.clone().unwrap_or_default()),
            ("speeds", join(&speeds)),
            ("ratings", join(&ratings)),
            ("since", f.since.clone()),
            ("until", f.until.clone()),
        ];
        if let Some(player) = &view.player {
            keep.push(("player", player.name.clone()));
            keep.push(("color", color_name(player.color).to_owned()));
        }
        keep.push(("modes", join(&f.modes)));
        keep.push(("moves", f.moves.map(|m| m.to_string()).unwrap_or_default()));
        keep.retain(|(_, value)| !value.is_empty());
        Links { keep }
    }

    /// `/?…` with the kept parameters, `play` and `fwd`.
    fn with_play(&self, play: &[String], forward: &[String]) -> String {
        self.link(self.keep.clone(), play, forward)
    }

    /// The same position with every move listed.
    fn all_moves(&self, play: &[String], forward: &[String]) -> String {
        let mut pairs: Vec<(&'static str, String)> = self
            .keep
            .iter()
            .filter(|(name, _)| *name != "moves")
            .cloned()
            .collect();
        pairs.push(("moves", ALL_MOVES.to_string()));
        self.link(pairs, play, forward)
    }

    fn link(
        &self,
        mut pairs: Vec<(&'static str, String)>,
        play: &[String],
        forward: &[String],
    ) -> String {
        if !play.is_empty() {
            pairs.push(("play", play.join(",")));
        }
        if !forward.is_empty() {
            pairs.push(("fwd", forward.join(",")));
        }
        // Strings only: serde_urlencoded cannot fail on them.
        let query = serde_urlencoded::to_string(&pairs).unwrap_or_default();
        match query.is_empty() {
            true => "/".to_owned(),
            false => format!("/?{query}"),
        }
    }
}

/// The board, white at the bottom, with its coordinates and the move that
/// led to it (its squares' class `last`, and the table's `data-from` and
/// `data-to`).
#[derive(Template)]
#[template(path = "serve/templates/board.html", config = "src/askama.toml")]
pub(crate) struct Board {
    /// Rank 8 first.
    rows: Vec<BoardRow>,
    from: Option<Square>,
    to: Option<Square>,
}

struct BoardRow {
    /// `8` … `1`.
    rank: char,
    /// File a first.
    squares: Vec<BoardSquare>,
}

struct BoardSquare {
    /// `e4`.
    name: String,
    /// `light` or `dark`, and `last` on the squares of the last move.
    class: &'static str,
    glyph: &'static str,
}

impl Board {
    pub(crate) fn new(board: &shakmaty::Board, last: Option<(Option<Square>, Square)>) -> Board {
        let rows = Rank::ALL
            .iter()
            .rev()
            .map(|&rank| BoardRow {
                rank: rank.char(),
                squares: File::ALL
                    .iter()
                    .map(|&file| {
                        let square = Square::from_coords(file, rank);
                        let dark = (u32::from(file) + u32::from(rank)) % 2 == 0;
                        let moved =
                            last.is_some_and(|(from, to)| from == Some(square) || to == square);
                        BoardSquare {
                            name: square.to_string(),
                            class: match (dark, moved) {
                                (true, false) => "dark",
                                (false, false) => "light",
                                (true, true) => "dark last",
                                (false, true) => "light last",
                            },
                            glyph: board
                                .piece_at(square)
                                .map_or("", |p| glyph(p.color, p.role)),
                        }
                    })
                    .collect(),
            })
            .collect();
        Board {
            rows,
            from: last.and_then(|(from, _)| from),
            to: last.map(|(_, to)| to),
        }
    }
}

fn glyph(color: Color, role: Role) -> &'static str {
    match (color, role) {
        (Color::White, Role::King) => "♔",
        (Color::White, Role::Queen) => "♕",
        (Color::White, Role::Rook) => "♖",
        (Color::White, Role::Bishop) => "♗",
        (Color::White, Role::Knight) => "♘",
        (Color::White, Role::Pawn) => "♙",
        (Color::Black, Role::King) => "♚",
        (Color::Black, Role::Queen) => "♛",
        (Color::Black, Role::Rook) => "♜",
        (Color::Black, Role::Bishop) => "♝",
        (Color::Black, Role::Knight) => "♞",
        (Color::Black, Role::Pawn) => "♟",
    }
}

/// A query string's value, percent-encoded (`form_urlencoded`'s way).
fn urlencode(value: &str) -> String {
    serde_urlencoded::to_string([("", value)])
        .map(|pair| pair.trim_start_matches('=').to_owned())
        // A string always encodes; were it not to, no link beats a wrong one.
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> ExplorerView {
        ExplorerView {
            fen: None,
            fen_typed: None,
            position: Chess::default(),
            last_move: None,
            play: Vec::new(),
            forward: Vec::new(),
            line: Vec::new(),
            opening: None,
            player: None,
            filters: Filters::default(),
            moves: Some(Moves::default()),
            top_games: Vec::new(),
            recent_games: Vec::new(),
            error: None,
        }
    }

    fn page(view: &ExplorerView) -> String {
        explorer(view).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_value_from_the_archive_or_the_request_is_escaped() {
        let hostile = "<script>alert('x')</script>\"&";
        let game = GameRow {
            id: "7".into(),
            white: hostile.into(),
            white_rating: Some(2100),
            black: hostile.into(),
            black_rating: None,
            winner: Some(Color::White),
            speed: Some("blitz".into()),
            month: Some("2024-03".into()),
        };
        let view = ExplorerView {
            fen_typed: Some(hostile.into()),
            error: Some(hostile.into()),
            opening: Some(hostile.into()),
            player: Some(PlayerBox {
                name: hostile.into(),
                color: Color::Black,
            }),
            filters: Filters {
                since: hostile.into(),
                ..Filters::default()
            },
            moves: Some(Moves {
                rows: vec![MoveRow {
                    uci: hostile.into(),
                    san: hostile.into(),
                    counts: [1, 0, 0],
                    rating: None,
                    history: vec![1, 0],
                }],
                total: [1, 0, 0],
                more: false,
                months: vec![(hostile.into(), 1), (hostile.into(), 0)],
            }),
            top_games: vec![game.clone()],
            recent_games: vec![game],
            ..start()
        };
        let html = page(&view);
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("'x'"), "{html}");
        // The page's own script is there, once.
        assert_eq!(html.matches("<script>").count(), 1, "{html}");
        assert!(
            html.contains("&#60;script&#62;alert(&#39;x&#39;)"),
            "{html}"
        );
    }

    #[test]
    fn the_total_is_the_positions_and_a_link_lists_the_other_moves() {
        let row = |san: &str, counts| MoveRow {
            uci: "e2e4".into(),
            san: san.into(),
            counts,
            rating: Some(1500),
            history: Vec::new(),
        };
        let view = ExplorerView {
            moves: Some(Moves {
                rows: vec![row("e4", [2, 1, 1]), row("d4", [1, 0, 1])],
                total: [4, 2, 4],
                more: true,
                months: Vec::new(),
            }),
            filters: Filters {
                speeds: vec![TimeClass::Blitz],
                ..Filters::default()
            },
            ..start()
        };
        let html = page(&view);
        assert!(html.contains("id=\"total\">10<"), "{html}");
        // e4's 4 games of the position's 10.
        assert!(html.contains(">4</td><td class=\"n\">40%<"), "{html}");
        assert!(
            html.contains("id=\"all-moves\" href=\"/?speeds=blitz&#38;moves=256\""),
            "{html}"
        );
        let all = ExplorerView {
            moves: Some(Moves {
                more: false,
                ..view.moves.clone().unwrap_or_default()
            }),
            ..view
        };
        assert!(!page(&all).contains("id=\"all-moves\""));
    }

    #[test]
    fn the_board_has_its_coordinates_and_the_last_move() {
        let mut pos = Chess::default();
        let e4 = UciMove::from_ascii(b"e2e4")
            .ok()
            .and_then(|m| m.to_move(&pos).ok());
        if let Some(m) = e4 {
            pos.play_unchecked(m);
        }
        let html = Board::new(pos.board(), last_move("e2e4", pos.board()))
            .render()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(html.contains("<td class=\"light last\" data-square=\"e2\"></td>"));
        assert!(html.contains("<td class=\"light last\" data-square=\"e4\">♙</td>"));
        assert_eq!(html.matches(" last\"").count(), 2);
        assert!(html.contains("<ol class=\"ranks\"><li>8</li><li>7</li>"));
        assert!(html.contains("<li>a</li><li>b</li>"));
        assert_eq!(html.matches("data-square=").count(), 64);
        assert!(html.contains("data-from=\"e2\" data-to=\"e4\""));
        assert_eq!(last_move("nonsense", pos.board()), None);
        // Castling either way: the king's squares.
        let castled = |uci: &str| {
            let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
            let mut pos: Chess = fen
                .parse::<Fen>()
                .ok()
                .and_then(|f| f.into_position(shakmaty::CastlingMode::Standard).ok())
                .unwrap_or_else(|| panic!("{fen}"));
            let m = UciMove::from_ascii(uci.as_bytes())
                .ok()
                .and_then(|m| m.to_move(&pos).ok())
                .unwrap_or_else(|| panic!("{uci}"));
            pos.play_unchecked(m);
            last_move(uci, pos.board())
        };
        for (uci, to) in [
            ("e1h1", Square::G1),
            ("e1g1", Square::G1),
            ("e1a1", Square::C1),
            ("e1c1", Square::C1),
        ] {
            assert_eq!(castled(uci), Some((Some(Square::E1), to)), "{uci}");
        }
        assert_eq!(
            last_move("Q@e4", &shakmaty::Board::empty()),
            Some((None, Square::E4))
        );
    }

    #[test]
    fn an_error_keeps_the_board_the_boxes_and_what_was_typed() {
        let view = ExplorerView {
            fen_typed: Some("not a fen".into()),
            error: Some("fen: not a legal position".into()),
            moves: None,
            ..start()
        };
        let html = page(&view);
        assert!(html.contains("<p class=\"error\" role=\"alert\">fen: not a legal position</p>"));
        assert!(html.contains("name=\"fen\" size=\"60\" value=\"not a fen\""));
        assert_eq!(html.matches("data-square=").count(), 64);
        assert!(html.contains("name=\"player\""));
        assert!(html.contains("id=\"apply\""));
        assert!(!html.contains("id=\"moves\""));
    }

    #[test]
    fn the_icon_is_written_as_is_inside_its_quoted_attribute() {
        // `|safe` in head.html: nothing in it may end or open markup.
        assert!(!FAVICON.contains(['"', '<', '>', '&']), "{FAVICON}");
        let html = page(&start());
        assert!(html.contains(&format!("<link rel=\"icon\" href=\"{FAVICON}\">")));
    }

    #[test]
    fn games_tables_have_a_header() {
        let view = ExplorerView {
            recent_games: vec![GameRow {
                id: "lake-1:3".into(),
                white: "A".into(),
                white_rating: None,
                black: "B".into(),
                black_rating: Some(1800),
                winner: Some(Color::Black),
                speed: None,
                month: Some("2025-05".into()),
            }],
            ..start()
        };
        let html = page(&view);
        assert!(html.contains(
            "<thead><tr><th>White</th><th>Black</th><th>Result</th><th>Speed</th><th>Month</th><th>Game</th></tr></thead>"
        ));
        assert!(html.contains("<td class=\"result\">0-1</td>"));
        assert!(html.contains("<td class=\"month\">2025-05</td>"));
        assert!(html.contains("B (1800)"));
        assert!(html.contains("href=\"/game/lake-1%3A3\""), "{html}");
    }
}
