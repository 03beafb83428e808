//! `explore --games N` and `--recent N` list the games the opening tree's
//! rows name (no `--moves` needed), on an import's folder and on a lake
//! before and after `lake --compact` (whose compacted rows number the
//! games of all its imports one after another), each game checked against
//! `games.parquet` as `pgnlake query` reads it.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{ok, pgnlake, sample, text};

const INPUTS: [&str; 3] = ["lichess-2025-05-30games.pgn", "openings.pgn", "results.pgn"];

/// A game of `games.parquet`: where it is and what `explore` prints of it.
#[derive(Debug, Clone, PartialEq)]
struct Game {
    import: Option<String>,
    game_id: i64,
    /// `white_elo + black_elo`, when both are known.
    rating: Option<i64>,
    /// The first move after 1.e4 (UCI), from `moves_uci`.
    reply: String,
    /// The listed fields, as `explore`'s JSON names them.
    shown: Value,
}

/// Every game that opened 1.e4, read with `pgnlake query`.
fn games_after_e4(data: &Path) -> Vec<Game> {
    let lake = data.join("_imports").is_dir();
    let import = if lake { "import, " } else { "" };
    let sql = format!(
        "SELECT {import}game_id, white, black, white_elo, black_elo, \
         declared_result AS result, date, time_class, month, year, event, lichess_id, \
         moves_uci FROM games \
         WHERE moves_uci LIKE 'e2e4 %' AND start_fen IS NULL AND variant_name = 'standard'"
    );
    let json = ok(pgnlake(&[
        "query",
        "--data",
        &text(data),
        "--format",
        "json",
        "-e",
        &sql,
    ]));
    let rows: Vec<Value> = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    rows.into_iter()
        .map(|row| {
            let elo = |side: &str| row[side].as_i64();
            let reply = row["moves_uci"]
                .as_str()
                .and_then(|moves| moves.split(' ').nth(1))
                .unwrap_or_else(|| panic!("no reply to 1.e4: {row}"));
            let mut shown = row.clone();
            if let Some(fields) = shown.as_object_mut() {
                fields.remove("moves_uci");
                // explore leaves out what a game lacks of these, and
                // writes its month as `YYYY-MM`.
                for optional in ["month", "year", "event", "lichess_id"] {
                    if fields.get(optional).is_some_and(Value::is_null) {
                        fields.remove(optional);
                    }
                }
                if let Some(Value::String(month)) = fields.get_mut("month") {
                    month.truncate(7);
                }
            }
            Game {
                import: row["import"].as_str().map(str::to_owned),
                game_id: row["game_id"].as_i64().unwrap_or(-1),
                rating: elo("white_elo").zip(elo("black_elo")).map(|(w, b)| w + b),
                reply: reply.to_owned(),
                shown,
            }
        })
        .collect()
}

fn explore_json(data: &Path, extra: &[&str]) -> Value {
    let data = text(data);
    let mut args = vec!["explore", "--data", &data, "e4", "--format", "json"];
    args.extend_from_slice(extra);
    let json = ok(pgnlake(&args));
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

/// Checks `explored`'s top and recent games against `games`: each is a
/// game of `games.parquet` that played its move, shown as it is there;
/// each move's best-rated game is first, the rest follow by rating; the
/// latest game of the position is the first recent one.
fn assert_listed_games_are_the_tables(explored: &Value, games: &[Game], latest: &Game) {
    let by_place: BTreeMap<(Option<String>, i64), &Game> = games
        .iter()
        .map(|g| ((g.import.clone(), g.game_id), g))
        .collect();
    let find = |listed: &Value| {
        let place = (
            listed["import"].as_str().map(str::to_owned),
            listed["game_id"].as_i64().unwrap_or(-1),
        );
        let game = by_place
            .get(&place)
            .unwrap_or_else(|| panic!("{listed} is no game after 1.e4"));
        assert_eq!(listed, &game.shown, "as in games.parquet");
        *game
    };
    let moves = explored["moves"].as_array().cloned().unwrap_or_default();
    assert!(moves.len() >= 4, "{explored}");
    for line in &moves {
        let uci = line["uci"].as_str().unwrap_or("?");
        let top: Vec<&Game> = line["top_games"]
            .as_array()
            .unwrap_or_else(|| panic!("no top games: {line}"))
            .iter()
            .map(find)
            .collect();
        assert!(top.iter().all(|g| g.reply == uci), "{uci}: {top:?}");
        let most = line["games"].as_u64().unwrap_or(0).min(3);
        assert!(!top.is_empty() && top.len() as u64 <= most, "{line}");
        let best = games
            .iter()
            .filter(|g| g.reply == uci)
            .filter_map(|g| g.rating)
            .max();
        assert_eq!(top[0].rating, best, "{uci}: the best-rated game first");
        let ratings: Vec<Option<i64>> = top.iter().map(|g| g.rating).collect();
        let ranked = ratings.windows(2).all(|w| w[1].is_none() || w[0] >= w[1]);
        assert!(ranked, "{uci}: {ratings:?}");
        // A move of one game names it, as lichess's `moves[].game`.
        match line["games"].as_u64() {
            Some(1) => assert_eq!(find(&line["game"]), top[0]),
            _ => assert!(line.get("game").is_none(), "{line}"),
        }
    }
    let recent = explored["recent_games"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(recent.len(), 3, "{explored}");
    let mut listed = recent[0].clone();
    let san = listed.as_object_mut().and_then(|o| o.remove("san"));
    let uci = listed.as_object_mut().and_then(|o| o.remove("uci"));
    assert!(san.is_some(), "{listed}");
    assert_eq!(find(&listed), latest);
    assert_eq!(
        uci.as_ref().and_then(Value::as_str),
        Some(latest.reply.as_str())
    );
}

#[test]
fn top_games_come_from_the_tree_of_an_import_without_moves() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out");
    let inputs: Vec<String> = INPUTS.iter().map(|n| text(&sample(n))).collect();
    let mut args: Vec<&str> = vec!["import", "--out", out.to_str().unwrap_or("?"), "-q"];
    args.extend(inputs.iter().map(String::as_str));
    ok(pgnlake(&args));
    assert!(!out.join("moves.parquet").exists());
    let games = games_after_e4(&out);
    let latest = games.iter().max_by_key(|g| g.game_id).cloned();
    let latest = latest.unwrap_or_else(|| panic!("no game after 1.e4"));
    let explored = explore_json(&out, &["--games", "3", "--recent", "3"]);
    assert_listed_games_are_the_tables(&explored, &games, &latest);
}

#[test]
fn top_games_of_a_lake_are_placed_in_their_imports_before_and_after_compaction() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lake = dir.path().join("lake");
    let lake_text = text(&lake);
    for name in INPUTS {
        let input = text(&sample(name));
        ok(pgnlake(&["import", &input, "--into", &lake_text, "-q"]));
    }
    let games = games_after_e4(&lake);
    // The lake's last import (by name) holds its latest games.
    let latest = games
        .iter()
        .filter(|g| g.import.as_deref() == Some("results"))
        .max_by_key(|g| g.game_id)
        .cloned()
        .unwrap_or_else(|| panic!("no game of results after 1.e4"));
    let extra = ["--games", "3", "--recent", "3"];
    let before = explore_json(&lake, &extra);
    assert_listed_games_are_the_tables(&before, &games, &latest);
    ok(pgnlake(&["lake", &lake_text, "--compact"]));
    let after = explore_json(&lake, &extra);
    assert_listed_games_are_the_tables(&after, &games, &latest);
    // The compacted tree names lake-wide ids: each placed back in its
    // import, the same games as before.
    assert_eq!(after, before);
    let listed = ok(pgnlake(&[
        "explore", "--data", &lake_text, "e4", "c5", "--games", "3",
    ]));
    insta::assert_snapshot!(listed, @r"
    position  rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -
    opening   B20 Sicilian Defense
    games     3

    move  games  share   white  draw  black  avg white  avg black  last
    Nf3       1  33.3%    0.0%  0.0%   0.0%          -          -     -
    c3        1  33.3%  100.0%  0.0%   0.0%       1743       1726  2025
    d3        1  33.3%  100.0%  0.0%   0.0%       1375       1483  2025

    top games with Nf3
      openings:3  Beta - Delta  *  ????.??.??

    top games with c3
      lichess-2025-05-30games:15  mixtecovargas (1743) - xaam123 (1726)  1-0  2025.05.01

    top games with d3
      lichess-2025-05-30games:23  lucialarrottica (1375) - MedievalPear (1483)  1-0  2025.05.01
    ");
}
