//! `explore --history` (issue 66): each move's games month by month, its
//! share of the position's, its first and last month and its first game,
//! against a
//! python-chess recount from `games.parquet` (`tests/oracle/move_history.py`,
//! the tree's rules as the explorer oracle writes them).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::{import, ok, pgnlake, run_oracle, sample, text};

/// The month cells of the oracle's answer for one move.
type Months = BTreeMap<String, [u64; 4]>;

/// The sample files the tests import.
const FILES: [&str; 3] = ["lichess-2025-05-30games.pgn", "openings.pgn", "results.pgn"];

#[test]
fn each_moves_history_equals_python_chess_recount_from_the_games() {
    let imported = import(&FILES.map(sample), 2);
    check_history(imported.dir.path());
}

#[test]
fn a_lakes_history_is_recounted_alike_before_and_after_compaction() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lake = dir.path().join("lake");
    for name in FILES {
        let stem = name.trim_end_matches(".pgn").replace('.', "-");
        let input = text(&sample(name));
        ok(pgnlake(&[
            "import",
            &input,
            "--into",
            &text(&lake),
            "--name",
            &stem,
            "-q",
        ]));
    }
    check_history(&lake);
    ok(pgnlake(&["lake", &text(&lake), "--compact"]));
    check_history(&lake);
}

/// A corpus of many years (25,125 games of book collections, 1850s to
/// 2000s): the months of moves that come and go.
#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn the_corpus_history_equals_python_chess_recount() {
    let books = crate::common::corpus_data().join("corpus/book-collections.pgn.zst");
    let imported = import(&[books], 2);
    check_history(imported.dir.path());
}

/// The corpus in a lake (the book collections and a week of TWIC, two
/// imports), before and after `--compact`.
#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn a_corpus_lakes_history_equals_python_chess_before_and_after_compaction() {
    let corpus = crate::common::corpus_data().join("corpus");
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lake = dir.path().join("lake");
    for (name, file) in [
        ("books", "book-collections.pgn.zst"),
        ("twic", "twic0920.pgn"),
    ] {
        let input = text(&corpus.join(file));
        ok(pgnlake(&[
            "import",
            &input,
            "--into",
            &text(&lake),
            "--name",
            name,
            "-q",
        ]));
    }
    check_history(&lake);
    ok(pgnlake(&["lake", &text(&lake), "--compact"]));
    check_history(&lake);
}

/// `explore --history` of a few positions of `data` against the oracle.
fn check_history(data: &std::path::Path) {
    let data = text(data);
    let positions = [
        (vec![], vec![]),
        (vec!["e4"], vec!["e2e4"]),
        (vec!["d4"], vec!["d2d4"]),
        (vec!["e4", "e5"], vec!["e2e4", "e7e5"]),
    ];
    let joined: Vec<String> = positions.iter().map(|(_, uci)| uci.join(",")).collect();
    let oracle_args: Vec<&std::ffi::OsStr> = std::iter::once(data.as_str())
        .chain(joined.iter().map(String::as_str))
        .map(std::ffi::OsStr::new)
        .collect();
    let lines = run_oracle("move_history.py", &oracle_args);
    assert_eq!(lines.len(), positions.len(), "{lines:?}");
    for ((san, _), line) in positions.iter().zip(&lines) {
        let mut args = vec!["explore", "--data", &data, "--history", "--format", "json"];
        args.extend(san.iter().copied());
        let ours: Value =
            serde_json::from_str(&ok(pgnlake(&args))).unwrap_or_else(|e| panic!("{san:?}: {e}"));
        let theirs: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let position: BTreeMap<String, u64> =
            serde_json::from_value(theirs["position"].clone()).unwrap_or_else(|e| panic!("{e}"));
        let moves = ours["moves"].as_array().unwrap_or_else(|| panic!("{ours}"));
        assert!(!moves.is_empty(), "{san:?}: no moves");
        let mut checked = 0;
        for line in moves {
            let uci = line["uci"].as_str().unwrap_or_else(|| panic!("{line}"));
            // A move none of whose games has a month is not in the oracle's.
            let cells = theirs["moves"].get(uci).cloned();
            let expected: Months = serde_json::from_value(cells.unwrap_or(Value::Null))
                .map(Option::unwrap_or_default)
                .unwrap_or_else(|e| panic!("{san:?} {uci}: {e}"));
            let history = &line["history"];
            if expected.is_empty() {
                assert!(history.is_null(), "{san:?} {uci}: no month, yet {history}");
                continue;
            }
            let months = history["months"]
                .as_array()
                .unwrap_or_else(|| panic!("{line}"));
            let got: Months = months
                .iter()
                .filter(|m| m["games"].as_u64() != Some(0))
                .map(|m| {
                    let n = |k: &str| m[k].as_u64().unwrap_or_else(|| panic!("{m}: {k}"));
                    let month = m["month"].as_str().unwrap_or_else(|| panic!("{m}"));
                    (
                        month.to_owned(),
                        [n("games"), n("white"), n("draws"), n("black")],
                    )
                })
                .collect();
            assert_eq!(got, expected, "{san:?} {uci}: months");
            let first = expected.keys().next().map(String::as_str);
            let last = expected.keys().next_back().map(String::as_str);
            assert_eq!(history["first_month"].as_str(), first, "{san:?} {uci}");
            assert_eq!(history["last_month"].as_str(), last, "{san:?} {uci}");
            // Its first game: the least of its first month's.
            let game = &history["first_game"];
            let named = (
                game["import"].as_str().unwrap_or_default(),
                game["game_id"].as_i64(),
            );
            let expected = &theirs["first"][uci];
            assert_eq!(
                named,
                (expected[0].as_str().unwrap_or("?"), expected[1].as_i64()),
                "{san:?} {uci}: first game"
            );
            assert_eq!(game["month"].as_str(), first, "{san:?} {uci}");
            // The months run from the position's first to its last, one
            // each, with the move's share of the position's games.
            assert_eq!(
                months.first().and_then(|m| m["month"].as_str()),
                position.keys().next().map(String::as_str)
            );
            assert_eq!(
                months.last().and_then(|m| m["month"].as_str()),
                position.keys().next_back().map(String::as_str)
            );
            for m in months {
                let month = m["month"].as_str().unwrap_or_default();
                let all = position.get(month).copied().unwrap_or(0);
                let games = m["games"].as_u64().unwrap_or(0);
                let share = if all == 0 {
                    0.0
                } else {
                    100.0 * games as f64 / all as f64
                };
                let got = m["share"].as_f64().unwrap_or(f64::NAN);
                assert!(
                    (got - share).abs() < 1e-9,
                    "{san:?} {uci} {month}: {got} vs {share}"
                );
            }
            checked += 1;
        }
        assert!(checked > 0, "{san:?}: no move with months");
    }
}

/// `/lichess?history=true` gives each move its own `history` (the
/// position's months, the move's counts), `firstMonth` and `lastMonth`,
/// as `explore --history` counts them; without it the answer has none of
/// them (what lichess clients read is unchanged).
#[test]
fn the_server_gives_each_move_its_history_when_asked() {
    use crate::common::app::App;
    let imported = import(&FILES.map(sample), 2);
    let data = imported.dir.path();
    let app = App::over(data);
    for (san, play) in [
        (vec![], ""),
        (vec!["e4"], "e2e4"),
        (vec!["e4", "e5"], "e2e4,e7e5"),
    ] {
        let d = text(data);
        let mut args = vec!["explore", "--data", &d, "--history", "--format", "json"];
        args.extend(san.iter().copied());
        let ours: Value =
            serde_json::from_str(&ok(pgnlake(&args))).unwrap_or_else(|e| panic!("{e}"));
        let plain = app.get(&format!("/lichess?play={play}&moves=50")).json();
        let answer = app
            .get(&format!("/lichess?play={play}&moves=50&history=true"))
            .json();
        let position = answer["history"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"));
        let moves = answer["moves"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"));
        assert!(!moves.is_empty(), "{play}");
        for m in moves {
            let uci = m["uci"].as_str().unwrap_or_default();
            // lila writes castling as the king taking its rook; none here.
            let line = ours["moves"]
                .as_array()
                .and_then(|all| all.iter().find(|l| l["uci"].as_str() == Some(uci)))
                .unwrap_or_else(|| panic!("{play}: {uci} not in explore's answer"));
            let history = m["history"].as_array().unwrap_or_else(|| panic!("{m}"));
            assert_eq!(
                history.len(),
                position.len(),
                "{play} {uci}: the position's months"
            );
            let theirs = line["history"]["months"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for (month, cell) in history.iter().enumerate() {
                let name = cell["month"].as_str().unwrap_or_default();
                assert_eq!(Some(name), position[month]["month"].as_str());
                let expected = theirs.iter().find(|c| c["month"].as_str() == Some(name));
                for (api, cli) in [("white", "white"), ("draws", "draws"), ("black", "black")] {
                    assert_eq!(
                        cell[api].as_u64().unwrap_or(u64::MAX),
                        expected.and_then(|c| c[cli].as_u64()).unwrap_or(0),
                        "{play} {uci} {name} {api}"
                    );
                }
            }
            for (api, cli) in [("firstMonth", "first_month"), ("lastMonth", "last_month")] {
                assert_eq!(m[api], line["history"][cli], "{play} {uci} {api}");
            }
            // Its first game, named as lichess names games (its lichess id
            // where its Site has one).
            let first = &line["history"]["first_game"];
            let id = first["lichess_id"]
                .as_str()
                .map(str::to_owned)
                .or_else(|| first["game_id"].as_i64().map(|id| id.to_string()));
            assert_eq!(m["firstGame"]["id"].as_str(), id.as_deref(), "{play} {uci}");
            assert_eq!(m["firstGame"]["month"], m["firstMonth"], "{play} {uci}");
        }
        for m in plain["moves"]
            .as_array()
            .unwrap_or_else(|| panic!("{plain}"))
        {
            for field in ["history", "firstMonth", "lastMonth", "firstGame"] {
                assert!(
                    m.get(field).is_none(),
                    "{play}: {field} without history=true"
                );
            }
        }
    }
}

/// The explorer page draws each move's share of the position's games
/// month by month (`/lichess?history=true`'s counts; broken where the
/// position had no games) and the position's games by month as bars.
#[test]
fn the_page_draws_each_moves_trend_and_the_positions() {
    use crate::common::app::App;
    let imported = import(&FILES.map(sample), 2);
    let app = App::over(imported.dir.path());
    let answer = app.json("/lichess?history=true&moves=12");
    let page = app.get("/").body;
    let months = answer["history"].as_array().cloned().unwrap_or_default();
    assert!(months.len() >= 2, "{answer}");
    let games = |m: &Value| {
        ["white", "draws", "black"]
            .iter()
            .map(|k| m[*k].as_u64().unwrap_or(0))
            .sum::<u64>()
    };
    let all: Vec<u64> = months.iter().map(games).collect();
    // The position's bars: one per month with games.
    let figure = page
        .split("<figure id=\"trend\">")
        .nth(1)
        .and_then(|rest| rest.split("</figure>").next())
        .unwrap_or_else(|| panic!("no trend chart: {page}"));
    let with_games = all.iter().filter(|&&n| n > 0).count();
    assert_eq!(figure.matches("<rect ").count(), with_games, "{figure}");
    let most = all.iter().copied().max().unwrap_or(0);
    assert!(figure.contains(&format!("(most: {most})")), "{figure}");
    let mut drawn = 0;
    for m in answer["moves"].as_array().into_iter().flatten() {
        let uci = m["uci"].as_str().unwrap_or_default();
        let own: Vec<u64> = m["history"]
            .as_array()
            .into_iter()
            .flatten()
            .map(games)
            .collect();
        let shares: Vec<Option<f64>> = own
            .iter()
            .zip(&all)
            .map(|(&n, &a)| (a > 0).then(|| 100.0 * n as f64 / a as f64))
            .collect();
        let top = shares.iter().flatten().copied().fold(0.0, f64::max);
        let step = 80.0 / (all.len() - 1) as f64;
        let mut runs: Vec<String> = Vec::new();
        let mut run: Vec<String> = Vec::new();
        for (i, share) in shares.iter().enumerate() {
            match share {
                Some(s) => {
                    let y = if top > 0.0 {
                        19.0 - 18.0 * s / top
                    } else {
                        19.0
                    };
                    run.push(format!("{:.1},{:.1}", i as f64 * step, y));
                }
                None if !run.is_empty() => runs.push(std::mem::take(&mut run).join(" ")),
                None => {}
            }
        }
        if !run.is_empty() {
            runs.push(run.join(" "));
        }
        let row = page
            .split(&format!("data-uci=\"{uci}\""))
            .nth(1)
            .and_then(|rest| rest.split("</tr>").next())
            .unwrap_or_else(|| panic!("{uci}: no row"));
        let drawn_lines: Vec<&str> = row
            .split("<polyline points=\"")
            .skip(1)
            .filter_map(|p| p.split('"').next())
            .collect();
        assert_eq!(drawn_lines, runs, "{uci}");
        drawn += 1;
    }
    assert!(drawn > 1, "{drawn} moves drawn");
}
