//! `pgnlake novelty` (issue 66): a game walked through the tree, each
//! ply's earlier games and the novelty, against a python-chess recount
//! from the archive's `games.parquet` (`tests/oracle/novelty.py`); the
//! server's `/novelty` and the game page's marks as the command gives them.

use std::path::Path;

use serde_json::Value;

use crate::common::{import, ok, pgnlake, run_oracle, sample, text};

/// The games of `data` the tree holds (standard chess from the start),
/// as PGN in `game_id` order, and their ids.
fn tree_games(data: &Path, filter: &str, out: &Path) -> Vec<i64> {
    let d = text(data);
    let sql = format!(
        "SELECT * FROM games WHERE variant_name = 'standard' AND start_fen IS NULL {filter} \
         ORDER BY game_id"
    );
    let o = text(out);
    ok(pgnlake(&[
        "export", "--data", &d, "-e", &sql, "-o", &o, "-q",
    ]));
    let ids = format!(
        "SELECT game_id FROM games WHERE variant_name = 'standard' AND start_fen IS NULL {filter} \
         ORDER BY game_id"
    );
    let csv = ok(pgnlake(&[
        "query", "--data", &d, "-e", &ids, "--format", "csv",
    ]));
    csv.lines()
        .skip(1)
        .map(|l| l.trim().parse().unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// One game's text from a file `export` wrote (games one after another,
/// a blank line between them): split before each line that starts a tag
/// section after a blank line.
fn split_games(pgn: &str) -> Vec<String> {
    let mut games: Vec<String> = Vec::new();
    let mut blank = true;
    let mut in_moves = false;
    for line in pgn.lines() {
        if line.starts_with('[') && blank && (in_moves || games.is_empty()) {
            games.push(String::new());
            in_moves = false;
        }
        if !line.starts_with('[') && !line.trim().is_empty() {
            in_moves = true;
        }
        blank = line.trim().is_empty();
        if let Some(game) = games.last_mut() {
            game.push_str(line);
            game.push('\n');
        }
    }
    games
}

/// `novelty`'s JSON for `args`.
fn novelty_json(args: &[&str]) -> Value {
    let mut all = vec!["novelty", "--format", "json"];
    all.extend(args);
    serde_json::from_str(&ok(pgnlake(&all))).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// The earlier games of each ply in `novelty`'s answer.
fn earlier(answer: &Value) -> Vec<u64> {
    answer["plies"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|p| p["earlier"].as_u64().unwrap_or(u64::MAX))
        .collect()
}

/// Every game of the sample's tree, walked by its id through the tree it
/// is in (the earlier games are those of months before its own, so it
/// never counts itself when it has a month), equals the oracle's walk of
/// its exported text.
#[test]
fn every_sample_game_leaves_the_archive_where_python_chess_says() {
    let imported = import(
        &["lichess-2025-05-30games.pgn", "openings.pgn", "results.pgn"].map(sample),
        2,
    );
    let data = imported.dir.path();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let pgn = dir.path().join("tree.pgn");
    let ids = tree_games(data, "", &pgn);
    let oracle = run_oracle("novelty.py", &[data.as_os_str(), pgn.as_os_str()]);
    assert_eq!(oracle.len(), ids.len(), "{oracle:?}");
    let d = text(data);
    let mut novelties = 0;
    for (id, line) in ids.iter().zip(&oracle) {
        let theirs: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}"));
        let ours = novelty_json(&["--data", &d, "--game", &id.to_string()]);
        assert_eq!(
            ours["novelty_ply"], theirs["novelty_ply"],
            "game {id}: {ours}"
        );
        let counts: Vec<u64> =
            serde_json::from_value(theirs["earlier"].clone()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(earlier(&ours), counts, "game {id}");
        novelties += usize::from(!ours["novelty_ply"].is_null());
    }
    assert!(novelties > 0, "no game left the archive");
    assert!(novelties < ids.len(), "every game left the archive at once");
}

/// A held-out part of the book collections (every 500th game, 1850s to
/// 2000s) against the rest as the archive: each one's novelty and counts
/// as python-chess's.
#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn held_out_corpus_games_leave_the_archive_where_python_chess_says() {
    let books = crate::common::corpus_data().join("corpus/book-collections.pgn.zst");
    let whole = import(&[books], 2);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (held, rest) = (dir.path().join("held.pgn"), dir.path().join("rest.pgn"));
    tree_games(whole.dir.path(), "AND game_id % 500 = 0", &held);
    let d = text(whole.dir.path());
    let o = text(&rest);
    ok(pgnlake(&[
        "export",
        "--data",
        &d,
        "-e",
        "SELECT * FROM games WHERE game_id % 500 <> 0 ORDER BY game_id",
        "-o",
        &o,
        "-q",
    ]));
    let archive = import(&[rest], 2);
    let oracle = run_oracle(
        "novelty.py",
        &[archive.dir.path().as_os_str(), held.as_os_str()],
    );
    let texts = split_games(&std::fs::read_to_string(&held).unwrap_or_else(|e| panic!("{e}")));
    assert_eq!(texts.len(), oracle.len(), "{} games", texts.len());
    assert!(texts.len() >= 40, "{} held-out games", texts.len());
    let a = text(archive.dir.path());
    let mut found = 0;
    for (i, (game, line)) in texts.iter().zip(&oracle).enumerate() {
        let file = dir.path().join(format!("game{i}.pgn"));
        std::fs::write(&file, game).unwrap_or_else(|e| panic!("{e}"));
        let ours = novelty_json(&["--data", &a, "--pgn", &text(&file)]);
        let theirs: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            ours["novelty_ply"], theirs["novelty_ply"],
            "held-out game {i}"
        );
        let counts: Vec<u64> =
            serde_json::from_value(theirs["earlier"].clone()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(earlier(&ours), counts, "held-out game {i}");
        found += usize::from(!ours["novelty_ply"].is_null());
    }
    eprintln!(
        "novelty: {} held-out games, {found} left the archive within the window",
        texts.len()
    );
}

/// `/novelty?game=ID` answers as `novelty --game ID`, PGN posted as
/// `--pgn`; bad requests are 400s in JSON, an unknown game a 404; the game
/// page marks each move with its earlier games and highlights the novelty.
#[test]
fn the_server_and_the_game_page_walk_a_game_as_the_command_does() {
    use crate::common::app::App;
    let imported = import(&["openings.pgn", "results.pgn"].map(sample), 2);
    let data = imported.dir.path();
    let d = text(data);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let pgn = dir.path().join("tree.pgn");
    let ids = tree_games(data, "", &pgn);
    let app = App::over(data);
    let mut marked = false;
    for id in &ids {
        let cli = novelty_json(&["--data", &d, "--game", &id.to_string(), "--rare", "3"]);
        let api = app.json(&format!("/novelty?game={id}&rare=3"));
        assert_eq!(api, cli, "game {id}");
        let page = app.get(&format!("/game/{id}"));
        assert_eq!(page.status, 200, "{}", page.body);
        let counts = earlier(&cli);
        let seen = page.body.matches("<sup class=\"seen\"").count();
        assert_eq!(
            seen,
            counts.len(),
            "game {id}: one mark a ply within the window"
        );
        let highlighted = page.body.matches("class=\"novelty\"").count()
            + page.body.matches("current novelty\"").count();
        assert_eq!(
            highlighted,
            usize::from(!cli["novelty_ply"].is_null()),
            "game {id}"
        );
        marked |= highlighted > 0;
    }
    assert!(marked, "no game page highlights a novelty");
    let texts = split_games(&std::fs::read_to_string(&pgn).unwrap_or_else(|e| panic!("{e}")));
    let first = texts.first().unwrap_or_else(|| panic!("no game"));
    let file = dir.path().join("one.pgn");
    std::fs::write(&file, first).unwrap_or_else(|e| panic!("{e}"));
    let posted = app.post("/novelty?before=2100-01", first);
    assert_eq!(posted.status, 200, "{}", posted.body);
    let cli = novelty_json(&["--data", &d, "--pgn", &text(&file), "--before", "2100-01"]);
    assert_eq!(posted.json(), cli);
    for (answer, status) in [
        (app.get("/novelty"), 400),
        (app.get("/novelty?game=99999"), 404),
        (app.get("/novelty?game=1&rare=many"), 400),
        (app.get("/novelty?game=1&speed=fast"), 400),
        (app.post("/novelty", "1. e4 e5 2. Qxf7"), 400),
    ] {
        assert_eq!(answer.status, status, "{}", answer.body);
        assert!(answer.body.contains("\"error\""), "{}", answer.body);
    }
    // A set-up game is not in the tree: one line, exit 2.
    let setup = dir.path().join("setup.pgn");
    std::fs::write(
        &setup,
        "[FEN \"8/8/8/8/8/8/4K3/k7 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Kd3 *\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let output = pgnlake(&["novelty", "--data", &d, "--pgn", &text(&setup)]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("standard position"), "{stderr}");
}
