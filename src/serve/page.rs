//! Serve, the explorer page (`/`) and a game's page (`/game/{id}`): HTML
//! written on the server, working without JavaScript (a few lines of
//! script add the arrow keys), from the same answers as `/lichess` and
//! `/player`. Every value from the archive (names, events, tags) is
//! escaped.

use std::fmt::Write as _;
use std::sync::Arc;

use axum::extract::{Path, RawQuery, State as Shared};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, EnPassantMode, Position, Role, Square};

use super::api::{Asked, Explorer, RATING_GROUPS, Wanted, explore};
use super::games::{ApiGame, GameWithUci};
use super::params::Params;
use super::player::{PlayerQuery, line, player_tree};
use super::{ApiError, blocking};

/// lila's speeds, as the filters offer them.
const SPEEDS: [&str; 6] = [
    "ultraBullet",
    "bullet",
    "blitz",
    "rapid",
    "classical",
    "correspondence",
];

/// One move's line on the page, from `/lichess` or `/player`.
struct Row {
    uci: String,
    san: String,
    white: u64,
    draws: u64,
    black: u64,
    rating: Option<i64>,
}

/// What the page shows of a position.
struct View {
    rows: Vec<Row>,
    top: Vec<GameWithUci>,
    recent: Vec<GameWithUci>,
    opening: Option<String>,
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
        }
    }
}

impl View {
    fn of_explorer(answer: Explorer) -> View {
        View {
            rows: answer
                .moves
                .into_iter()
                .map(|m| Row::new(m.uci, m.san, [m.white, m.draws, m.black], m.average_rating))
                .collect(),
            top: answer.top_games.unwrap_or_default(),
            recent: answer.recent_games.unwrap_or_default(),
            opening: answer.opening.map(|o| format!("{} {}", o.eco, o.name)),
        }
    }
}

pub(crate) async fn index(
    Shared(state): Shared<Arc<super::state::State>>,
    RawQuery(query): RawQuery,
) -> Response {
    let params = match Params::parse(query.as_deref()) {
        Ok(params) => params,
        Err(e) => return error_page(StatusCode::BAD_REQUEST, &e.0),
    };
    let asked = match Asked::parse(&params) {
        Ok(asked) => asked,
        Err(e) => return error_page(StatusCode::BAD_REQUEST, &e.0),
    };
    let player = params.get("player").map(str::to_owned);
    let view = match &player {
        Some(_) => {
            let query = match PlayerQuery::parse(&params) {
                Ok(query) => query,
                Err(e) => return error_page(StatusCode::BAD_REQUEST, &e.0),
            };
            blocking(&state, move |s| {
                let tally = player_tree(s, &query, &mut |_| true)?;
                let answer = line(&query, &tally);
                Ok(View {
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
                })
            })
            .await
        }
        None => {
            let wanted = match Wanted::lichess(&params) {
                Ok(wanted) => wanted,
                Err(e) => return error_page(StatusCode::BAD_REQUEST, &e.0),
            };
            let again = asked.clone();
            blocking(&state, move |s| {
                explore(s, &s.data, &again, &wanted).map(View::of_explorer)
            })
            .await
        }
    };
    match view {
        Ok(view) => Html(render(&params, &asked, &view)).into_response(),
        Err(e) => error_page(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e:?}")),
    }
}

/// The page of a position.
fn render(params: &Params, asked: &Asked, view: &View) -> String {
    let link = Links::of(params, asked);
    let mut out = String::with_capacity(16 * 1024);
    head(&mut out, "pgnlake explorer");
    let player = params.get("player");
    let title = match player {
        Some(name) => format!(
            "Player {} as {}",
            escape(name),
            params.get("color").unwrap_or("white")
        ),
        None => "Opening explorer".to_owned(),
    };
    let _ = write!(
        out,
        "<header><h1><a href=\"/\">pgnlake</a> · {title}</h1></header><main><section class=\"left\">"
    );
    board(&mut out, &asked.position);
    out.push_str("<nav class=\"steps\">");
    let _ = write!(
        out,
        "<a id=\"first\" href=\"{}\">« start</a>",
        link.with_play(&[], &[])
    );
    match asked.play.split_last() {
        Some((last, before)) => {
            let mut forward = vec![last.clone()];
            forward.extend(link.forward.iter().cloned());
            let _ = write!(
                out,
                "<a id=\"back\" href=\"{}\">◀ back</a>",
                link.with_play(before, &forward)
            );
        }
        None => out.push_str("<span class=\"off\">◀ back</span>"),
    }
    match link.forward.split_first() {
        Some((next, rest)) => {
            let mut play = asked.play.clone();
            play.push(next.clone());
            let _ = write!(
                out,
                "<a id=\"forward\" href=\"{}\">forward ▶</a>",
                link.with_play(&play, rest)
            );
        }
        None => out.push_str("<span class=\"off\">forward ▶</span>"),
    }
    out.push_str("</nav>");
    let fen = shakmaty::fen::Fen::from_position(&asked.position, EnPassantMode::Legal).to_string();
    let _ = write!(
        out,
        "<form class=\"fen\" method=\"get\" action=\"/\"><label>FEN <input name=\"fen\" size=\"60\" value=\"{}\"></label> <button>Go</button></form>",
        escape(&fen)
    );
    let _ = write!(
        out,
        "<form class=\"player\" method=\"get\" action=\"/\"><label>Player <input name=\"player\" value=\"{}\"></label> <select name=\"color\"><option value=\"white\"{}>as white</option><option value=\"black\"{}>as black</option></select> <button>Explore</button></form>",
        escape(player.unwrap_or("")),
        if params.get("color") != Some("black") {
            " selected"
        } else {
            ""
        },
        if params.get("color") == Some("black") {
            " selected"
        } else {
            ""
        },
    );
    out.push_str("</section><section class=\"right\">");
    let opening = view.opening.as_deref().unwrap_or("");
    let _ = write!(out, "<h2 id=\"opening\">{}</h2>", escape(opening));
    let _ = write!(
        out,
        "<p class=\"line\">{}</p>",
        escape(&asked.line.join(" "))
    );
    filters(&mut out, params, asked);
    moves_table(&mut out, view, &link);
    if !view.top.is_empty() {
        games_table(&mut out, "Top games", "top-games", &view.top);
    }
    if !view.recent.is_empty() {
        games_table(&mut out, "Recent games", "recent-games", &view.recent);
    }
    out.push_str("</section></main>");
    out.push_str(KEYS);
    out.push_str("</body></html>\n");
    out
}

/// The page's links: its own parameters (filters, player), with a line of
/// moves to play and one to go forward along.
struct Links {
    /// Every parameter but `play` and `fwd`.
    keep: Vec<(String, String)>,
    /// The moves played to the position.
    play: Vec<String>,
    forward: Vec<String>,
}

impl Links {
    fn of(params: &Params, asked: &Asked) -> Links {
        let mut keep = Vec::new();
        for name in [
            "fen", "speeds", "ratings", "since", "until", "player", "color", "modes",
        ] {
            let value = match name {
                "speeds" | "ratings" | "modes" => params.list(name).join(","),
                _ => params.get(name).unwrap_or("").to_owned(),
            };
            if !value.is_empty() {
                keep.push((name.to_owned(), value));
            }
        }
        Links {
            keep,
            play: asked.play.clone(),
            forward: params.list("fwd").into_iter().map(str::to_owned).collect(),
        }
    }

    fn with_play(&self, play: &[String], forward: &[String]) -> String {
        let mut pairs = self.keep.clone();
        if !play.is_empty() {
            pairs.push(("play".into(), play.join(",")));
        }
        if !forward.is_empty() {
            pairs.push(("fwd".into(), forward.join(",")));
        }
        let query = serde_urlencoded::to_string(&pairs).unwrap_or_default();
        escape(&format!("/?{query}"))
    }
}

fn filters(out: &mut String, params: &Params, asked: &Asked) {
    out.push_str("<form class=\"filters\" method=\"get\" action=\"/\">");
    for (name, value) in [
        ("fen", params.get("fen").unwrap_or("")),
        ("play", &asked.play.join(",")),
    ] {
        if !value.is_empty() {
            let _ = write!(
                out,
                "<input type=\"hidden\" name=\"{name}\" value=\"{}\">",
                escape(value)
            );
        }
    }
    for name in ["player", "color"] {
        if let Some(value) = params.get(name) {
            let _ = write!(
                out,
                "<input type=\"hidden\" name=\"{name}\" value=\"{}\">",
                escape(value)
            );
        }
    }
    let speeds = params.list("speeds");
    out.push_str("<fieldset><legend>Speeds</legend>");
    for speed in SPEEDS {
        let checked = if speeds.contains(&speed) {
            " checked"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" name=\"speeds[]\" value=\"{speed}\"{checked}> {speed}</label> "
        );
    }
    out.push_str("</fieldset>");
    if params.get("player").is_none() {
        let ratings = params.list("ratings");
        out.push_str("<fieldset><legend>Average rating</legend>");
        for group in RATING_GROUPS {
            let value = group.to_string();
            let checked = if ratings.contains(&value.as_str()) {
                " checked"
            } else {
                ""
            };
            let _ = write!(
                out,
                "<label><input type=\"checkbox\" name=\"ratings[]\" value=\"{group}\"{checked}> {group}</label> "
            );
        }
        out.push_str("</fieldset>");
    }
    let _ = write!(
        out,
        "<fieldset><legend>Months</legend><label>since <input name=\"since\" placeholder=\"YYYY-MM\" size=\"8\" value=\"{}\"></label> <label>until <input name=\"until\" placeholder=\"YYYY-MM\" size=\"8\" value=\"{}\"></label></fieldset>",
        escape(params.get("since").unwrap_or("")),
        escape(params.get("until").unwrap_or(""))
    );
    out.push_str("<button id=\"apply\">Apply</button></form>");
}

fn moves_table(out: &mut String, view: &View, link: &Links) {
    let total: u64 = view.rows.iter().map(|r| r.white + r.draws + r.black).sum();
    out.push_str("<table id=\"moves\"><thead><tr><th>Move</th><th>Games</th><th>%</th><th>White / Draw / Black</th><th>Rating</th></tr></thead><tbody>");
    for row in &view.rows {
        let games = row.white + row.draws + row.black;
        let share = if total > 0 {
            100.0 * games as f64 / total as f64
        } else {
            0.0
        };
        let pct = |n: u64| {
            if games > 0 {
                100.0 * n as f64 / games as f64
            } else {
                0.0
            }
        };
        let mut play = link.play.clone();
        play.push(row.uci.clone());
        let _ = write!(
            out,
            "<tr><td><a class=\"move\" data-uci=\"{uci}\" href=\"{href}\">{san}</a></td><td class=\"n\">{games}</td><td class=\"n\">{share:.0}%</td><td><div class=\"bar\"><span class=\"w\" style=\"width:{w:.1}%\">{wl}</span><span class=\"d\" style=\"width:{d:.1}%\">{dl}</span><span class=\"b\" style=\"width:{b:.1}%\">{bl}</span></div></td><td class=\"n\">{rating}</td></tr>",
            uci = escape(&row.uci),
            href = link.with_play(&play, &[]),
            san = escape(&row.san),
            w = pct(row.white),
            d = pct(row.draws),
            b = pct(row.black),
            wl = label(pct(row.white)),
            dl = label(pct(row.draws)),
            bl = label(pct(row.black)),
            rating = row.rating.map(|r| r.to_string()).unwrap_or_default(),
        );
    }
    if view.rows.is_empty() {
        out.push_str(
            "<tr><td colspan=\"5\">No games reach this position with these filters.</td></tr>",
        );
    }
    let _ = write!(
        out,
        "</tbody><tfoot><tr><td>Σ</td><td class=\"n\" id=\"total\">{total}</td><td></td><td></td><td></td></tr></tfoot></table>"
    );
}

fn label(percent: f64) -> String {
    if percent >= 12.0 {
        format!("{percent:.0}%")
    } else {
        String::new()
    }
}

fn games_table(out: &mut String, title: &str, id: &str, games: &[GameWithUci]) {
    let _ = write!(
        out,
        "<h3>{title}</h3><table id=\"{id}\" class=\"games\"><tbody>"
    );
    for g in games {
        let game: &ApiGame = &g.game;
        let result = match game.winner {
            Some("white") => "1-0",
            Some("black") => "0-1",
            _ => "½-½",
        };
        let rating = |r: Option<i32>| r.map(|r| format!(" ({r})")).unwrap_or_default();
        let id = escape(&game.id);
        let _ = write!(
            out,
            "<tr><td>{white}{wr}</td><td>{black}{br}</td><td>{result}</td><td>{speed}</td><td>{month}</td><td><a class=\"view\" href=\"/game/{id}\">view</a> · <a class=\"pgn\" href=\"/pgn/{id}\">PGN</a></td></tr>",
            white = escape(&game.white.name),
            wr = rating(game.white.rating),
            black = escape(&game.black.name),
            br = rating(game.black.rating),
            speed = game.speed.unwrap_or(""),
            month = escape(game.month.as_deref().unwrap_or("")),
        );
    }
    out.push_str("</tbody></table>");
}

/// The board, white at the bottom.
fn board(out: &mut String, pos: &Chess) {
    out.push_str("<table class=\"board\" aria-label=\"board\">");
    for rank in (0..8).rev() {
        out.push_str("<tr>");
        for file in 0..8 {
            let square = Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
            let shade = if (file + rank) % 2 == 0 {
                "dark"
            } else {
                "light"
            };
            let piece = pos
                .board()
                .piece_at(square)
                .map_or("", |p| glyph(p.color, p.role));
            let _ = write!(
                out,
                "<td class=\"{shade}\" data-square=\"{square}\">{piece}</td>"
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
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

/// `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted
/// attributes.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body>",
        escape(title)
    );
}

fn error_page(status: StatusCode, message: &str) -> Response {
    let mut out = String::new();
    head(&mut out, "pgnlake explorer");
    let _ = write!(
        out,
        "<header><h1><a href=\"/\">pgnlake</a></h1></header><main><p class=\"error\">{}</p><p><a href=\"/\">Back to the start position</a></p></main></body></html>",
        escape(message)
    );
    (status, Html(out)).into_response()
}

/// A game's page: its board at a ply, its moves as links, its tags.
pub(crate) async fn game(
    Shared(state): Shared<Arc<super::state::State>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let params = Params::parse(query.as_deref()).unwrap_or_default();
    let ply = params
        .count("ply", usize::MAX, usize::MAX)
        .unwrap_or(usize::MAX);
    let shown = id.clone();
    let pgn = blocking(&state, move |s| super::pgn::game_pgn(&s.data, &id)).await;
    match pgn {
        Ok(pgn) => Html(game_page(&shown, &pgn, ply)).into_response(),
        Err(e) => api_error_page(e),
    }
}

fn api_error_page(e: ApiError) -> Response {
    let (status, message) = e.parts();
    error_page(status, &message)
}

/// The page of game `id` from its PGN, at `ply` (its end when past it).
fn game_page(id: &str, pgn: &str, ply: usize) -> String {
    let (tags, sans) = read_pgn(pgn);
    let mut positions = vec![Chess::default()];
    let mut played = Vec::new();
    for san in &sans {
        let Some(pos) = positions.last() else { break };
        let Some(m) = SanPlus::from_ascii(san.as_bytes())
            .ok()
            .and_then(|s| s.san.to_move(pos).ok())
        else {
            break;
        };
        let mut next = pos.clone();
        next.play_unchecked(m);
        played.push(san.clone());
        positions.push(next);
    }
    let ply = ply.min(played.len());
    let mut out = String::with_capacity(16 * 1024);
    head(&mut out, &format!("Game {id}"));
    let title = |name: &str| {
        tags.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or("?")
    };
    let _ = write!(
        out,
        "<header><h1><a href=\"/\">pgnlake</a> · {} – {}</h1></header><main><section class=\"left\">",
        escape(title("White")),
        escape(title("Black"))
    );
    if let Some(pos) = positions.get(ply) {
        board(&mut out, pos);
    }
    let href = |n: usize| escape(&format!("/game/{id}?ply={n}"));
    out.push_str("<nav class=\"steps\">");
    let _ = write!(out, "<a id=\"first\" href=\"{}\">« start</a>", href(0));
    match ply.checked_sub(1) {
        Some(back) => {
            let _ = write!(out, "<a id=\"back\" href=\"{}\">◀ back</a>", href(back));
        }
        None => out.push_str("<span class=\"off\">◀ back</span>"),
    }
    match ply < played.len() {
        true => {
            let _ = write!(
                out,
                "<a id=\"forward\" href=\"{}\">forward ▶</a>",
                href(ply + 1)
            );
        }
        false => out.push_str("<span class=\"off\">forward ▶</span>"),
    }
    let _ = write!(
        out,
        "<a id=\"last\" href=\"{}\">end »</a>",
        href(played.len())
    );
    let _ = write!(
        out,
        "</nav><p><a class=\"pgn\" href=\"/pgn/{}\">PGN</a></p></section><section class=\"right\"><table class=\"tags\">",
        escape(id)
    );
    for (name, value) in &tags {
        let _ = write!(
            out,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(name),
            escape(value)
        );
    }
    out.push_str("</table><p class=\"moves\">");
    for (i, san) in played.iter().enumerate() {
        if i % 2 == 0 {
            let _ = write!(out, "<span class=\"number\">{}.</span>", i / 2 + 1);
        }
        let current = if i + 1 == ply {
            " class=\"current\""
        } else {
            ""
        };
        let _ = write!(
            out,
            "<a{current} href=\"{}\">{}</a> ",
            href(i + 1),
            escape(san)
        );
    }
    out.push_str("</p></section></main>");
    out.push_str(KEYS);
    out.push_str("</body></html>\n");
    out
}

/// The tags and mainline SAN of one game as `export` writes it (comments,
/// variations, NAGs, move numbers and the result left out).
fn read_pgn(pgn: &str) -> (Vec<(String, String)>, Vec<String>) {
    let mut tags = Vec::new();
    let mut movetext = String::new();
    for line in pgn.lines() {
        let trimmed = line.trim();
        if let Some(inner) = trimmed.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if let Some((name, value)) = inner.split_once(' ') {
                let value = value
                    .trim()
                    .trim_matches('"')
                    .replace("\\\"", "\"")
                    .replace("\\\\", "\\");
                tags.push((name.to_owned(), value));
            }
        } else {
            movetext.push_str(line);
            movetext.push(' ');
        }
    }
    let mut sans = Vec::new();
    let (mut comment, mut depth) = (false, 0usize);
    let mut token = String::new();
    let flush = |token: &mut String, sans: &mut Vec<String>| {
        let t = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if !t.is_empty() && !t.starts_with('$') && !matches!(t, "1-0" | "0-1" | "1/2-1/2" | "*") {
            sans.push(t.to_owned());
        }
        token.clear();
    };
    for c in movetext.chars() {
        match c {
            '{' if !comment => comment = true,
            '}' if comment => comment = false,
            _ if comment => {}
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            c if c.is_whitespace() => flush(&mut token, &mut sans),
            c => token.push(c),
        }
    }
    flush(&mut token, &mut sans);
    (tags, sans)
}

/// The arrow keys follow the back and forward links.
const KEYS: &str = "<script>document.addEventListener('keydown',function(e){if(e.target.tagName==='INPUT')return;var id={ArrowLeft:'back',ArrowRight:'forward',Home:'first',End:'last'}[e.key];var a=id&&document.getElementById(id);if(a&&a.href){location.href=a.href;}});</script>";

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;background:#f4f2ee;color:#222}header{background:#2b2b2b;padding:.4em 1em}header h1{margin:0;font-size:1.2em;color:#eee;font-weight:500}header a{color:#fff;text-decoration:none;font-weight:700}main{display:flex;flex-wrap:wrap;gap:1.5em;padding:1em}section.left{flex:0 0 auto}section.right{flex:1 1 420px;min-width:320px}table.board{border-collapse:collapse;border:2px solid #555}table.board td{width:2.6em;height:2.6em;text-align:center;font-size:1.9em;line-height:1;padding:0}td.light{background:#f0d9b5}td.dark{background:#b58863}nav.steps{margin:.6em 0;display:flex;gap:1em}nav a,.off{padding:.2em .5em;border-radius:4px;background:#ddd;text-decoration:none;color:#222}.off{opacity:.4}form{margin:.5em 0}fieldset{border:1px solid #ccc;margin:.3em 0;padding:.3em .6em}h2{margin:.2em 0;font-size:1.1em}p.line{color:#555;margin:.2em 0 .6em}table#moves{border-collapse:collapse;width:100%;background:#fff}table#moves th,table#moves td{padding:.25em .5em;border-bottom:1px solid #eee;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}a.move{font-weight:600;color:#1a5fb4;text-decoration:none}.bar{display:flex;width:100%;min-width:12em;height:1.3em;border:1px solid #999;border-radius:3px;overflow:hidden;font-size:.8em}.bar span{display:flex;align-items:center;justify-content:center;overflow:hidden;white-space:nowrap}.bar .w{background:#fff;color:#333}.bar .d{background:#a0a0a0;color:#111}.bar .b{background:#333;color:#eee}table.games{border-collapse:collapse;width:100%;background:#fff;font-size:.9em}table.games td{padding:.2em .5em;border-bottom:1px solid #eee}table.tags th{text-align:left;padding-right:1em;color:#555}p.moves a{color:#1a5fb4;text-decoration:none}p.moves a.current{background:#1a5fb4;color:#fff;border-radius:3px;padding:0 .2em}span.number{color:#777;margin-right:.2em}.error{color:#a00}";
