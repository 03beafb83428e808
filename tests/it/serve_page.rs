//! `pgnlake serve`'s explorer page (`/`) as its users asked for it: a bad
//! FEN (or any bad value) shown inside the page with its status, the board
//! and the boxes to fix it; the Σ row the position's total, with a link
//! that lists every move; games tables with a header row; an inline icon;
//! every value typed escaped. Checked in the HTML the server writes (in
//! process, `common::app`), then in headless Chromium on a real server
//! (`tests/oracle/explorer_page_ui.py`): coordinates level with their
//! squares, the last move tinted, results and months on one line in a
//! narrow window.

use std::path::Path;
use std::process::Command;

use axum::http::StatusCode;

use crate::common::app::{Answer, App, import_to};
use crate::common::server::Server;
use crate::common::{python, sample};

/// The sample data imported, and the server in process over it.
fn sample_app() -> (tempfile::TempDir, App) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    import_to(&[sample("")], &data);
    let app = App::over(&data);
    (dir, app)
}

/// The page at `uri`, which must answer `status` in HTML.
fn page(app: &App, uri: &str, status: StatusCode) -> String {
    let answer: Answer = app.get(uri);
    assert_eq!(answer.status, status, "GET {uri}: {}", answer.body);
    assert!(
        answer.header("content-type").starts_with("text/html"),
        "GET {uri}: {}",
        answer.header("content-type")
    );
    answer.body
}

/// The value of the input named `name` in `html` (as written, escaped).
fn input_value<'a>(html: &'a str, name: &str) -> Option<&'a str> {
    let at = html.find(&format!("name=\"{name}\""))?;
    let rest = html.get(at..)?;
    let start = rest.find("value=\"")? + "value=\"".len();
    let end = rest.get(start..)?.find('"')?;
    rest.get(start..start + end)
}

/// The piece shown on `square` (empty for none).
fn piece<'a>(html: &'a str, square: &str) -> Option<&'a str> {
    let marker = format!("data-square=\"{square}\">");
    let start = html.find(&marker)? + marker.len();
    let end = html.get(start..)?.find("</td>")?;
    html.get(start..start + end)
}

/// The error banner's text.
fn banner(html: &str) -> Option<&str> {
    let marker = "<p class=\"error\" role=\"alert\">";
    let start = html.find(marker)? + marker.len();
    let end = html.get(start..)?.find("</p>")?;
    html.get(start..start + end)
}

#[test]
fn a_bad_value_is_shown_in_the_page_with_its_status_the_board_and_the_boxes() {
    let (_dir, app) = sample_app();
    // A FEN that is not one: 400, the start position, the FEN as typed in
    // its box, the other boxes and filters kept.
    let html = page(
        &app,
        "/?fen=not+a+fen&speeds=blitz&player=&since=2024-01",
        StatusCode::BAD_REQUEST,
    );
    let said = banner(&html).unwrap_or_else(|| panic!("no banner: {html}"));
    assert!(said.contains("fen"), "{said}");
    assert_eq!(html.matches("data-square=").count(), 64, "{html}");
    assert_eq!(piece(&html, "e1"), Some("♔"));
    assert_eq!(piece(&html, "e4"), Some(""));
    assert_eq!(input_value(&html, "fen"), Some("not a fen"));
    assert_eq!(input_value(&html, "since"), Some("2024-01"));
    assert!(html.contains("value=\"blitz\" checked"), "{html}");
    assert!(html.contains("name=\"player\""), "{html}");
    assert!(html.contains("id=\"apply\""), "{html}");
    // The links lead back to positions that exist: none carries the FEN.
    assert!(!html.contains("fen=not"), "{html}");
    assert!(!html.contains("id=\"moves\""), "{html}");

    // A FEN with markup: escaped in the banner and in the box.
    let html = page(
        &app,
        "/?fen=%22%3E%3Cscript%3Ewindow.x%3D1%3C%2Fscript%3E",
        StatusCode::BAD_REQUEST,
    );
    assert!(!html.contains("<script>window"), "{html}");
    assert_eq!(
        input_value(&html, "fen"),
        Some("&#34;&#62;&#60;script&#62;window.x=1&#60;/script&#62;")
    );

    // A move that is not legal: the start position, the error naming it.
    let html = page(&app, "/?play=e2e5", StatusCode::BAD_REQUEST);
    assert!(banner(&html).is_some_and(|b| b.contains("e2e5")), "{html}");
    assert_eq!(piece(&html, "e2"), Some("♙"));

    // A bad filter once the position is read: that position, its last
    // move tinted, the month as typed.
    let html = page(&app, "/?play=e2e4&since=2020", StatusCode::BAD_REQUEST);
    assert!(banner(&html).is_some_and(|b| b.contains("since")), "{html}");
    assert_eq!(piece(&html, "e4"), Some("♙"));
    assert!(
        html.contains("<td class=\"light last\" data-square=\"e4\">"),
        "{html}"
    );
    assert_eq!(input_value(&html, "since"), Some("2020"));

    // The same requests well formed: 200, no banner.
    let html = page(&app, "/?play=e2e4&since=2020-01", StatusCode::OK);
    assert_eq!(banner(&html), None);
    assert!(html.contains("id=\"moves\""), "{html}");
}

#[test]
fn a_table_that_cannot_be_read_is_a_500_page_with_the_board() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    import_to(&[sample("openings.pgn")], &data);
    let app = App::over(&data);
    assert_eq!(app.get("/").status, StatusCode::OK);
    std::fs::write(data.join("openings.parquet"), b"not parquet").unwrap_or_else(|e| panic!("{e}"));
    let html = page(&app, "/?play=d2d4", StatusCode::INTERNAL_SERVER_ERROR);
    assert!(banner(&html).is_some(), "{html}");
    assert_eq!(piece(&html, "d4"), Some("♙"));
    // Said as a message, not as Rust's debug text of the error.
    assert!(!html.contains("ApiError"), "{html}");
}

/// The moves of an answer, and its total.
fn listed(answer: &serde_json::Value) -> (usize, u64) {
    let moves = answer["moves"].as_array().map_or(0, Vec::len);
    let total = ["white", "draws", "black"]
        .iter()
        .map(|k| answer[k].as_u64().unwrap_or_default())
        .sum();
    (moves, total)
}

#[test]
fn the_sum_is_the_positions_total_and_a_link_lists_every_move() {
    let (_dir, app) = sample_app();
    for at in ["", "play=e2e4&", "speeds=blitz&"] {
        let (every, total) = listed(&app.json(&format!("/lichess?{at}moves=256")));
        assert!(every > 2, "{at}: {every} moves");
        let html = page(&app, &format!("/?{at}moves=2"), StatusCode::OK);
        assert_eq!(html.matches("class=\"move\"").count(), 2, "{at}");
        assert!(
            html.contains(&format!("id=\"total\">{total}<")),
            "{at}: Σ is not {total}: {html}"
        );
        let href = html
            .split("id=\"all-moves\" href=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("{at}: no link to every move: {html}"))
            .replace("&#38;", "&");
        assert!(href.contains("moves=256"), "{href}");
        let all = page(&app, &href, StatusCode::OK);
        assert_eq!(all.matches("class=\"move\"").count(), every, "{href}");
        assert!(all.contains(&format!("id=\"total\">{total}<")), "{href}");
        assert!(!all.contains("id=\"all-moves\""), "{href}");
    }
    // Every move listed by default: no link.
    let (every, _) = listed(&app.json("/lichess?play=e2e4,c7c5&moves=256"));
    assert!(every <= 12, "{every}");
    let html = page(&app, "/?play=e2e4,c7c5", StatusCode::OK);
    assert!(!html.contains("id=\"all-moves\""), "{html}");
}

#[test]
fn games_tables_have_a_header_row_and_the_page_its_icon_inline() {
    let (_dir, app) = sample_app();
    let html = page(&app, "/", StatusCode::OK);
    let header = "<thead><tr><th>White</th><th>Black</th><th>Result</th><th>Speed</th>\
                  <th>Month</th><th>Game</th></tr></thead>";
    for id in ["top-games", "recent-games"] {
        let table = html
            .split(&format!("<table id=\"{id}\" class=\"games\">"))
            .nth(1)
            .unwrap_or_else(|| panic!("no {id}: {html}"));
        assert!(table.trim_start().starts_with(header), "{id}: {table}");
    }
    assert!(
        html.contains("<link rel=\"icon\" href=\"data:image/svg+xml,"),
        "{html}"
    );
    // The style and the script are in the page: nothing else to fetch.
    for fetched in ["<link rel=\"stylesheet\"", "<script src="] {
        assert!(!html.contains(fetched), "{fetched}");
    }
}

#[test]
fn the_page_in_chromium_has_coordinates_the_last_move_and_cells_that_do_not_wrap() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    import_to(&[sample("")], &data);
    let server = Server::start(&data, &[]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/explorer_page_ui.py");
    let output = Command::new(python())
        .arg(&script)
        .arg(server.url())
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python()));
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the page's check failed:\n{said}\n{}\nserver: {}",
        String::from_utf8_lossy(&output.stderr),
        server.stderr()
    );
    assert_eq!(
        said.lines().filter(|l| l.starts_with("ok ")).count(),
        7,
        "{said}"
    );
}
