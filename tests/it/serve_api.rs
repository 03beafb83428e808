//! `pgnlake serve`'s handlers in process (`common::app`: the router
//! through `oneshot`): every error kind mapped to its status on each
//! endpoint, as JSON; typed parameters in both list forms; `history`
//! bounded by the archive and keeping its last month; lichess ids on
//! lichess games; the CORS layer.

use std::path::Path;

use axum::http::{Method, StatusCode};

use crate::common::app::{App, import_to};
use crate::common::sample;

fn imported(dir: &Path, file: &str) -> std::path::PathBuf {
    let data = dir.join("out");
    import_to(&[sample(file)], &data);
    data
}

/// A JSON error with `status` whose message satisfies `says`.
fn assert_error(app: &App, method: Method, uri: &str, status: StatusCode, says: &str) {
    let answer = app.request(method.clone(), uri, &[]);
    assert_eq!(answer.status, status, "{method} {uri}: {}", answer.body);
    assert!(
        answer
            .header("content-type")
            .starts_with("application/json"),
        "{method} {uri}: {:?}",
        answer.headers
    );
    let message = answer.json()["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.contains(says),
        "{method} {uri}: {message:?} lacks {says:?}"
    );
}

#[test]
fn every_error_kind_has_its_status_and_a_json_body_on_every_endpoint() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = imported(dir.path(), "openings.pgn");
    let app = App::over(&data);
    let bad = StatusCode::BAD_REQUEST;
    // Each bad value names its parameter.
    for (uri, says) in [
        ("/lichess?play=e2e5", "play: "),
        ("/lichess?fen=garbage", "fen="),
        ("/lichess?ratings=abc", "ratings: "),
        ("/lichess?speeds=fast", "speeds: "),
        ("/lichess?speeds[]=blitz&speeds[]=fast", "speeds: "),
        ("/lichess?since=2020", "since: "),
        ("/lichess?until=2020-13", "until: "),
        ("/lichess?variant=atomic", "variant="),
        ("/lichess?moves=many", "moves: "),
        ("/lichess?topGames=-1", "topGames: "),
        ("/lichess?history=maybe", "history: "),
        ("/lichess?fen=%ZZ", "fen="),
        ("/masters?since=year", "since: "),
        ("/masters?play=e2e4,e2e4", "play: "),
        ("/player?player=x", "color"),
        ("/player?color=white", "player"),
        ("/player?player=x&color=red", "color: "),
        ("/player?player=x&color=white&modes=fast", "modes: "),
        ("/lichess/history?ratings=x", "ratings: "),
        ("/pgn/%ff", "/pgn/%ff"),
        ("/masters/pgn/%ff", "/masters/pgn/%ff"),
    ] {
        assert_error(&app, Method::GET, uri, bad, says);
    }
    let missing = StatusCode::NOT_FOUND;
    assert_error(&app, Method::GET, "/pgn/999999", missing, "999999");
    assert_error(&app, Method::GET, "/masters/pgn/999999", missing, "999999");
    assert_error(&app, Method::GET, "/master/pgn/abc", missing, "abc");
    assert_error(
        &app,
        Method::GET,
        "/pgn/..%2F..%2Fetc%2Fpasswd",
        missing,
        "passwd",
    );
    assert_error(&app, Method::GET, "/no/such/page", missing, "/no/such/page");
    for (method, uri) in [
        (Method::POST, "/lichess"),
        (Method::PUT, "/masters"),
        (Method::DELETE, "/pgn/1"),
        (Method::POST, "/player"),
    ] {
        assert_error(
            &app,
            method.clone(),
            uri,
            StatusCode::METHOD_NOT_ALLOWED,
            "GET",
        );
        let answer = app.request(method, uri, &[]);
        assert_eq!(answer.header("allow"), "GET, HEAD", "{uri}");
    }
    let long = format!("/lichess?play={}", "e2e4,".repeat(5000));
    assert_error(&app, Method::GET, &long, StatusCode::URI_TOO_LONG, "bytes");
    // Unknown parameters are ignored, as lila ignores them.
    assert_eq!(
        app.get("/lichess?play=e2e4&source=analysis&x=1").status,
        StatusCode::OK
    );
}

#[test]
fn a_damaged_table_is_a_500_naming_it_on_every_endpoint() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = imported(dir.path(), "openings.pgn");
    let app = App::over(&data);
    let good = app.json("/lichess?play=e2e4");
    let id = good["recentGames"][0]["id"]
        .as_str()
        .unwrap_or("0")
        .to_owned();
    assert_eq!(app.get(&format!("/pgn/{id}")).status, StatusCode::OK);
    for table in ["openings", "games"] {
        let path = data.join(format!("{table}.parquet"));
        let kept = dir.path().join(format!("{table}.kept"));
        std::fs::rename(&path, &kept).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&path, b"not a parquet file").unwrap_or_else(|e| panic!("{e}"));
        let mut uris = vec![
            "/lichess?play=e2e4".to_owned(),
            "/masters?play=e2e4".to_owned(),
        ];
        if table == "games" {
            uris.push(format!("/pgn/{id}"));
            uris.push(format!("/masters/pgn/{id}"));
            uris.push("/player?player=x&color=white".to_owned());
        }
        for uri in &uris {
            let error = StatusCode::INTERNAL_SERVER_ERROR;
            assert_error(&app, Method::GET, uri, error, &format!("{table}.parquet"));
        }
        std::fs::rename(&kept, &path).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(app.json("/lichess?play=e2e4"), good);
}

#[test]
fn lists_are_read_comma_separated_or_bracketed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = imported(dir.path(), "lichess-2025-05-30games.pgn");
    let app = App::over(&data);
    let commas = app.json("/lichess?speeds=blitz,rapid&ratings=1000,1600");
    let brackets = app.json("/lichess?speeds[]=blitz&speeds[]=rapid&ratings[]=1000&ratings[]=1600");
    let mixed = app.json("/lichess?speeds=blitz&speeds[]=rapid&ratings=1000,1600,1700");
    assert_eq!(commas, brackets);
    assert_eq!(commas, mixed);
    let all = app.json("/lichess");
    let total = |v: &serde_json::Value| {
        ["white", "draws", "black"]
            .iter()
            .map(|k| v[k].as_u64().unwrap_or(0))
            .sum::<u64>()
    };
    assert!(
        total(&commas) > 0 && total(&commas) < total(&all),
        "{commas}"
    );
}

#[test]
fn history_keeps_the_archives_last_month_and_stays_within_the_archive() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = imported(dir.path(), "lichess-2025-05-30games.pgn");
    let app = App::over(&data);
    let answer = app.json("/lichess?history=true");
    let history = answer["history"].as_array().cloned().unwrap_or_default();
    // A one-month archive: its month stays (lila drops its current,
    // unfinished month; an archive's last month is whole).
    assert_eq!(history.len(), 1, "{answer}");
    assert_eq!(history[0]["month"], "2025-05");
    for side in ["white", "draws", "black"] {
        assert_eq!(history[0][side], answer[side], "{side}");
    }
    // since far before the archive: its months, not 24,000 empty ones.
    let far = app.get("/lichess?history=true&since=0001-01&until=5000-12");
    assert_eq!(far.status, StatusCode::OK);
    assert_eq!(far.json()["history"].as_array().map(Vec::len), Some(1));
    assert!(far.body.len() < 8 * 1024, "{} bytes", far.body.len());
    let legacy = app.json("/lichess/history?since=0001-01");
    assert_eq!(legacy["history"].as_array().map(Vec::len), Some(1));
}

#[test]
fn lichess_games_carry_their_lichess_ids_and_masters_games_pgnlakes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = imported(dir.path(), "lichess-2025-05-30games.pgn");
    let pgn = std::fs::read_to_string(sample("lichess-2025-05-30games.pgn"))
        .unwrap_or_else(|e| panic!("{e}"));
    let sites: Vec<&str> = pgn
        .lines()
        .filter_map(|l| l.strip_prefix("[Site \"https://lichess.org/"))
        .filter_map(|l| l.strip_suffix("\"]"))
        .collect();
    assert_eq!(sites.len(), 30);
    let app = App::over(&data);
    let answer = app.json(
        "/lichess?recentGames=8&topGames=4&ratings=0,1000,1200,1400,1600,1800,2000,2200,2500",
    );
    let mut ids = Vec::new();
    for list in ["recentGames", "topGames"] {
        for game in answer[list].as_array().cloned().unwrap_or_default() {
            ids.push(game["id"].as_str().unwrap_or_default().to_owned());
        }
    }
    for m in answer["moves"].as_array().cloned().unwrap_or_default() {
        if let Some(id) = m["game"]["id"].as_str() {
            ids.push(id.to_owned());
        }
    }
    assert!(!ids.is_empty(), "{answer}");
    for id in &ids {
        assert!(
            sites.contains(&id.as_str()),
            "{id} is not a lichess id of the archive"
        );
    }
    // /masters names games as /masters/pgn/{id} takes them.
    let masters = app.json("/masters");
    for game in masters["topGames"].as_array().cloned().unwrap_or_default() {
        let id = game["id"].as_str().unwrap_or_default();
        assert!(id.parse::<u64>().is_ok(), "{id}");
        assert_eq!(
            app.get(&format!("/masters/pgn/{id}")).status,
            StatusCode::OK
        );
    }
}

#[test]
fn the_cors_layer_answers_preflights_and_marks_every_answer() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = imported(dir.path(), "openings.pgn");
    let origin = ("origin", "https://example.org");
    let open = App::with(&data, |o| o.cors = true);
    let preflight = open.request(
        Method::OPTIONS,
        "/lichess?play=e2e4",
        &[origin, ("access-control-request-method", "GET")],
    );
    assert!(preflight.status.is_success(), "{}", preflight.status);
    assert_eq!(preflight.header("access-control-allow-origin"), "*");
    for uri in ["/lichess", "/no/such/page", "/lichess?moves=x"] {
        let answer = open.request(Method::GET, uri, &[origin]);
        assert_eq!(answer.header("access-control-allow-origin"), "*", "{uri}");
    }
    let closed = App::over(&data);
    let answer = closed.request(Method::GET, "/lichess", &[origin]);
    assert_eq!(
        answer.header("access-control-allow-origin"),
        "",
        "no --cors"
    );
}
