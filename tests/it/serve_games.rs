//! `pgnlake serve`'s games on a lake of two monthly imports (a plain
//! `.pgn` and a `.pgn.zst`), before and after `lake --compact`: each
//! game's `/pgn/{id}` and `/masters/pgn/{id}` is the text `pgnlake export`
//! writes for it, and its page `/game/{id}` answers; the page of a game
//! from a set-up position (`FEN`), of a Chess960 game and of a crazyhouse
//! game shows, at every ply, python-chess's FEN of the position, and the
//! move that led there highlighted; an id that names no game is a 404, a
//! game whose source is gone a 500 (the game page's errors are its page,
//! a path that does not decode a 400 page); the set-up and Chess960 games
//! stepped through in Chromium, board and FEN against python-chess.

use std::path::{Path, PathBuf};

use crate::common::server::Server;
use crate::common::{ok, pgnlake, run_oracle, sample, text};
use crate::lake::query_rows;

/// A game from a set-up position: from the standard start its first move
/// is illegal.
const FEN_GAME: &str = "[Event \"set-up position\"]\n[Site \"pgnlake test\"]\n[Date \"2024.01.31\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"1/2-1/2\"]\n[SetUp \"1\"]\n[FEN \"6k1/5p2/6p1/8/8/8/r4PPP/3Q2K1 w - - 0 1\"]\n\n1. Qd8+ Kg7 2. Qd4+ Kh6 {still safe} 3. Qh4+ Kg7 4. Qd4+ Kh6 5. Qh4+ Kg7 1/2-1/2\n";
/// A Chess960 game that castles on both sides of the board.
const CHESS960_GAME: &str = "[Event \"chess960 game\"]\n[Site \"pgnlake test\"]\n[Date \"2024.02.01\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"*\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1\"]\n\n1. g3 g6 2. O-O O-O 3. f4 f5 4. Nf2 Nf7 5. e4 e5 *\n";
/// A crazyhouse game with a drop.
const CRAZYHOUSE_GAME: &str = "[Event \"crazyhouse game\"]\n[Site \"pgnlake test\"]\n[Date \"2024.02.02\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"*\"]\n[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@b4 Qxb4 *\n";

/// The games whose pages are stepped through, by their `Event`.
const STEPPED: [&str; 3] = ["set-up position", "chess960 game", "crazyhouse game"];

/// Two months: January a plain file (the lichess sample and the set-up
/// game), February a `.pgn.zst` (the opening sample, the Chess960 and the
/// crazyhouse games).
fn two_months(dir: &Path) -> (PathBuf, PathBuf) {
    let read = |name: &str| std::fs::read_to_string(sample(name)).unwrap_or_else(|e| panic!("{e}"));
    let january = dir.join("2024-01.pgn");
    let text_jan = format!("{}\n{FEN_GAME}", read("lichess-2025-05-30games.pgn"));
    std::fs::write(&january, text_jan).unwrap_or_else(|e| panic!("{e}"));
    let february = dir.join("2024-02.pgn.zst");
    let text_feb = format!(
        "{}\n{CHESS960_GAME}\n{CRAZYHOUSE_GAME}",
        read("openings.pgn")
    );
    let zst = zstd::encode_all(text_feb.as_bytes(), 3).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&february, zst).unwrap_or_else(|e| panic!("{e}"));
    (january, february)
}

/// The two months imported into `lake` as `2024-01` and `2024-02`.
fn two_months_into(dir: &Path, lake: &Path) -> (PathBuf, PathBuf) {
    let (january, february) = two_months(dir);
    for (file, name) in [(&january, "2024-01"), (&february, "2024-02")] {
        ok(pgnlake(&[
            "import",
            &text(file),
            "--into",
            &text(lake),
            "--name",
            name,
            "-q",
        ]));
    }
    (january, february)
}

/// Every game of a lake or an import's folder: its id (`IMPORT:GAME_ID`
/// in a lake, `GAME_ID` in a folder) and `Event`, in import and id order.
fn all_games(data: &Path) -> Vec<(String, String)> {
    let rows = query_rows(
        data,
        &format!("SELECT {}, event FROM games ORDER BY {0}", keys(data)),
    );
    rows.iter()
        .map(|row| {
            let cells: Vec<&str> = row.split(" | ").collect();
            match cells.as_slice() {
                [import, id, event] => (format!("{import}:{id}"), (*event).to_owned()),
                [id, event] => ((*id).to_owned(), (*event).to_owned()),
                _ => panic!("row {row:?}"),
            }
        })
        .collect()
}

/// The columns that name a game in `data`.
fn keys(data: &Path) -> &'static str {
    match data.join("_imports").is_dir() {
        true => "import, game_id",
        false => "game_id",
    }
}

/// What `pgnlake export` writes for every game of `data`, in import and
/// id order.
fn exported(data: &Path, dir: &Path) -> String {
    let out = dir.join("exported.pgn");
    let sql = format!("SELECT {} FROM games ORDER BY {0}", keys(data));
    ok(pgnlake(&[
        "export",
        "--data",
        &text(data),
        "-e",
        &sql,
        "-o",
        &text(&out),
        "-q",
    ]));
    std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}"))
}

/// The text of `<p class="fen">` on a page.
fn shown_fen(page: &str) -> Option<&str> {
    let start = page.find("<p class=\"fen\">")? + "<p class=\"fen\">".len();
    let end = page[start..].find("</p>")?;
    Some(&page[start..start + end])
}

/// python-chess's FENs of each game of `pgn` (by `Event`): before the
/// first move and after each.
fn python_fens(pgn: &str, dir: &Path) -> Vec<(String, Vec<String>)> {
    let file = dir.join("stepped.pgn");
    std::fs::write(&file, pgn).unwrap_or_else(|e| panic!("{e}"));
    run_oracle("game_fens.py", &[file.as_os_str()])
        .into_iter()
        .map(|line| {
            let mut fields = line.split('\t').map(str::to_owned);
            let event = fields.next().unwrap_or_default();
            (event, fields.collect())
        })
        .collect()
}

/// Every game's PGN (both routes) is export's and its page answers; the
/// stepped games show python-chess's FEN at every ply.
fn check_games(server: &Server, data: &Path, dir: &Path) {
    let games = all_games(data);
    assert!(games.len() > 30, "{games:?}");
    let mut served = String::new();
    let mut stepped = String::new();
    for (id, event) in &games {
        let (head, pgn) = server.ok(&format!("/pgn/{id}"));
        assert!(head.contains("content-type: text/plain"), "{head}");
        let (head, masters) = server.ok(&format!("/masters/pgn/{id}"));
        assert!(
            head.contains("content-type: application/x-chess-pgn"),
            "{head}"
        );
        assert_eq!(masters, pgn, "{id}");
        let (_, page) = server.ok(&format!("/game/{id}"));
        assert!(shown_fen(&page).is_some(), "{id}: {page}");
        if STEPPED.contains(&event.as_str()) {
            stepped.push_str(&pgn);
        }
        served.push_str(&pgn);
    }
    assert_eq!(served, exported(data, dir), "/pgn against export");
    let fens = python_fens(&stepped, dir);
    assert_eq!(fens.len(), STEPPED.len(), "{fens:?}");
    for (event, fens) in fens {
        let (id, _) = games
            .iter()
            .find(|(_, e)| *e == event)
            .unwrap_or_else(|| panic!("no game {event}"));
        check_steps(server, id, &fens);
    }
}

/// The page of game `id` at every ply (and past the end) shows `fens`,
/// the move that led there highlighted.
fn check_steps(server: &Server, id: &str, fens: &[String]) {
    assert!(fens.len() > 8, "{id}: {fens:?}");
    for (ply, fen) in fens.iter().enumerate() {
        let (_, page) = server.ok(&format!("/game/{id}?ply={ply}"));
        let shown = shown_fen(&page).map(comparable);
        assert_eq!(shown, Some(comparable(fen)), "{id} at ply {ply}");
        let highlighted = page.matches(" last\"").count();
        match ply {
            0 => assert!(highlighted == 0 && !page.contains("data-to="), "{id}"),
            _ => assert!(
                (1..=2).contains(&highlighted) && page.contains("data-to="),
                "{id} at ply {ply}: {highlighted} squares highlighted"
            ),
        }
        // Every move listed, each a link to its ply.
        let listed = page
            .split("<p class=\"moves\">")
            .nth(1)
            .and_then(|moves| moves.split("</p>").next())
            .map_or(0, |moves| moves.matches("<a").count());
        assert_eq!(listed, fens.len() - 1, "{id} at ply {ply}");
    }
    let (_, end) = server.ok(&format!("/game/{id}?ply={}", fens.len() + 5));
    let shown = shown_fen(&end).map(comparable);
    assert_eq!(shown, fens.last().map(|fen| comparable(fen)), "{id}");
}

/// A FEN as both tools can be compared on it: exact, but for a position
/// with pockets (crazyhouse), whose pieces in hand the two write in
/// different orders and whose halfmove clock python-chess does not reset
/// on a pawn drop (shakmaty does, as python-chess's own `is_zeroing`
/// says; `tests/it/differential.rs` compares variant games so too).
fn comparable(fen: &str) -> String {
    let mut fields: Vec<String> = fen.split(' ').map(str::to_owned).collect();
    let Some((placement, pocket)) = fields.first().and_then(|b| b.split_once('[')) else {
        return fen.to_owned();
    };
    let mut pieces: Vec<char> = pocket.trim_end_matches(']').chars().collect();
    pieces.sort_unstable();
    let board = format!("{placement}[{}]", pieces.into_iter().collect::<String>());
    fields[0] = board;
    let halfmove = fields.len().saturating_sub(2);
    fields.remove(halfmove);
    fields.join(" ")
}

#[test]
fn games_of_a_lake_are_export_s_text_and_step_as_python_chess_before_and_after_compaction() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lake = dir.path().join("lake");
    let (_, february) = two_months_into(dir.path(), &lake);
    let server = Server::start(&lake, &[]);
    check_games(&server, &lake, dir.path());
    ok(pgnlake(&["lake", &text(&lake), "--compact"]));
    check_games(&server, &lake, dir.path());
    // An id that names no game, or is no id here: 404, as JSON.
    for missing in [
        "/pgn/2024-01:999999",
        "/pgn/2024-03:1",
        "/pgn/17",
        "/pgn/2024-01:x",
        "/masters/pgn/..%2F..%2Fetc%2Fpasswd",
    ] {
        let (status, head, body) = server.get_with(missing, &[]);
        assert_eq!(status, 404, "{missing}: {body}");
        assert!(head.contains("application/json"), "{missing}: {head}");
    }
    // The game page's errors are pages: the message above the board.
    for (path, status, message) in [
        ("/game/2024-02:999999", 404, "no game 2024-02:999999"),
        ("/game/999999", 404, "999999"),
        ("/game/%ff", 400, "/game/%ff"),
    ] {
        let (got, head, page) = server.get_with(path, &[]);
        assert_eq!(got, status, "{path}: {page}");
        assert!(head.contains("content-type: text/html"), "{path}: {head}");
        assert!(
            page.contains("<p class=\"error\" role=\"alert\">") && page.contains(message),
            "{path}: {page}"
        );
        assert_eq!(page.matches("data-square=").count(), 64, "{path}: {page}");
    }
    // A game whose source is gone: 500, naming it; back once it is back.
    let games = all_games(&lake);
    let (chess960, _) = games
        .iter()
        .find(|(_, event)| event == "chess960 game")
        .unwrap_or_else(|| panic!("no chess960 game"));
    let kept = dir.path().join("kept.zst");
    std::fs::rename(&february, &kept).unwrap_or_else(|e| panic!("{e}"));
    let (status, _, body) = server.get_with(&format!("/pgn/{chess960}"), &[]);
    assert_eq!(status, 500, "{body}");
    assert!(body.contains("2024-02.pgn.zst"), "{body}");
    let (status, head, page) = server.get_with(&format!("/game/{chess960}"), &[]);
    assert_eq!(status, 500, "{page}");
    assert!(head.contains("content-type: text/html"), "{head}");
    assert!(page.contains("2024-02.pgn.zst"), "{page}");
    std::fs::rename(&kept, &february).unwrap_or_else(|e| panic!("{e}"));
    server.ok(&format!("/pgn/{chess960}"));
}

/// The two months imported into one folder, `DIR/out`.
fn two_months_imported(dir: &Path) -> PathBuf {
    let (january, february) = two_months(dir);
    let out = dir.join("out");
    ok(pgnlake(&[
        "import",
        &text(&january),
        &text(&february),
        "--out",
        &text(&out),
        "-q",
    ]));
    out
}

/// The game page of an import's folder (whose PGN links always worked)
/// steps set-up, Chess960 and crazyhouse games from their own start.
#[test]
fn games_of_an_import_step_from_their_own_start_as_python_chess() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = two_months_imported(dir.path());
    let server = Server::start(&out, &[]);
    check_games(&server, &out, dir.path());
    assert_eq!(
        server.get_with("/pgn/2024-01:1", &[]).0,
        404,
        "a lake's id in a folder"
    );
}

/// The game page in a browser: the set-up game and the Chess960 game
/// stepped through in Chromium, by the forward link and the arrow key,
/// each position's FEN and drawn board equal to python-chess's
/// (`tests/oracle/game_steps_ui.py`).
#[test]
fn the_set_up_and_chess960_games_step_in_chromium_as_python_chess() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = two_months_imported(dir.path());
    let server = Server::start(&out, &[]);
    let games = all_games(&out);
    let mut ids = Vec::new();
    let mut pgn = String::new();
    for event in ["set-up position", "chess960 game"] {
        let (id, _) = games
            .iter()
            .find(|(_, e)| e == event)
            .unwrap_or_else(|| panic!("no game {event}: {games:?}"));
        pgn.push_str(&server.ok(&format!("/pgn/{id}")).1);
        pgn.push('\n');
        ids.push(id.clone());
    }
    let file = dir.path().join("stepped.pgn");
    std::fs::write(&file, pgn).unwrap_or_else(|e| panic!("{e}"));
    let mut args = vec![std::ffi::OsStr::new(server.url()), file.as_os_str()];
    args.extend(ids.iter().map(std::ffi::OsStr::new));
    let said = run_oracle("game_steps_ui.py", &args);
    assert_eq!(
        said.iter().filter(|l| l.starts_with("ok ")).count(),
        2,
        "{said:?}"
    );
    eprintln!("{}", said.join("\n"));
}
