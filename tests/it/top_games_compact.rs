//! Issue 63 item 9: a lake lists the top and recent games a single import
//! of the same games lists, before `lake --compact`, after it (with
//! imports added to a compacted lake too), and `pgnlake merge` of shards
//! does as well. The tree keeps one top game per row (the highest rating
//! sum, ties to the game read later) and one latest game: a lake's
//! partitions hold rows of the same key, and `explore` must choose
//! among them as the row of one import would.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{ok, pgnlake, sample, text};

/// The positions explored, as moves from the start.
const POSITIONS: [&[&str]; 5] = [&[], &["e4"], &["d4"], &["e4", "e5"], &["e4", "c5"]];

/// One classical game of March 2024.
fn game(name: &str, elo: Option<(u32, u32)>, moves: &str, result: &str) -> String {
    let elo = elo.map_or(String::new(), |(w, b)| {
        format!("[WhiteElo \"{w}\"]\n[BlackElo \"{b}\"]\n")
    });
    format!(
        "[Event \"Tie test\"]\n[Site \"?\"]\n[Date \"2024.03.05\"]\n[White \"{name} W\"]\n\
         [Black \"{name} B\"]\n[Result \"{result}\"]\n{elo}[TimeControl \"5400+30\"]\n\n\
         {moves} {result}\n\n"
    )
}

/// Three inputs whose rows after 1.e4 share keys across files: 1...e5 in
/// the 2600 band in each (a1 and c1 tie at 5350, c1 read later; a2 and b1
/// lower), 1...e5 in the 2500 band in b only, and 1...c5 without ratings
/// in a and c (a row of two unrated games names no top game).
fn tie_inputs(dir: &Path) -> Vec<PathBuf> {
    let e5 = "1. e4 e5 2. Nf3 Nc6";
    let c5 = "1. e4 c5 2. Nf3 d6";
    let files = [
        (
            "a.pgn",
            [
                game("a1", Some((2700, 2650)), e5, "1-0"),
                game("a2", Some((2600, 2640)), e5, "0-1"),
                game("au", None, c5, "1/2-1/2"),
            ]
            .concat(),
        ),
        (
            "b.pgn",
            [
                game("b1", Some((2610, 2620)), e5, "1/2-1/2"),
                game("b2", Some((2550, 2560)), e5, "1-0"),
                game("b3", Some((2500, 2520)), "1. d4 d5 2. c4 e6", "1-0"),
            ]
            .concat(),
        ),
        (
            "c.pgn",
            [
                game("c1", Some((2650, 2700)), e5, "0-1"),
                game("cu", None, c5, "1-0"),
                game("c3", Some((2505, 2515)), "1. d4 d5 2. c4 c6", "0-1"),
            ]
            .concat(),
        ),
    ];
    files
        .into_iter()
        .map(|(name, pgn)| {
            let path = dir.join(name);
            std::fs::write(&path, pgn).unwrap_or_else(|e| panic!("{e}"));
            path
        })
        .collect()
}

/// `lichess-2025-05-30games.pgn` cut into three files of ten games, and
/// `openings.pgn` (as `part4.pgn`, so that the lake's imports are in the
/// inputs' order): real games whose rows meet across files.
fn sample_inputs(dir: &Path) -> Vec<PathBuf> {
    let all = std::fs::read_to_string(sample("lichess-2025-05-30games.pgn"))
        .unwrap_or_else(|e| panic!("{e}"));
    let games: Vec<&str> = all
        .split("\n[Event ")
        .filter(|g| !g.trim().is_empty())
        .collect();
    assert_eq!(games.len(), 30);
    let mut files: Vec<PathBuf> = games
        .chunks(10)
        .enumerate()
        .map(|(i, chunk)| {
            let text: String = chunk
                .iter()
                .map(|g| {
                    let g = g.strip_prefix("[Event ").unwrap_or(g);
                    format!("[Event {}\n\n", g.trim_end())
                })
                .collect();
            let path = dir.join(format!("part{}.pgn", i + 1));
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
            path
        })
        .collect();
    let fourth = dir.join("part4.pgn");
    std::fs::copy(sample("openings.pgn"), &fourth).unwrap_or_else(|e| panic!("{e}"));
    files.push(fourth);
    files
}

/// Each import's name in a lake: its file's stem.
fn name_of(input: &Path) -> String {
    let stem = input.file_stem().and_then(|s| s.to_str());
    stem.unwrap_or_else(|| panic!("{}", input.display()))
        .to_owned()
}

fn import_into(lake: &Path, input: &Path) {
    ok(pgnlake(&[
        "import",
        &text(input),
        "--into",
        &text(lake),
        "--name",
        &name_of(input),
        "-q",
    ]));
}

fn import_out(inputs: &[PathBuf], out: &Path, extra: &[&str]) {
    let mut args = vec!["import".to_owned(), "--out".to_owned(), text(out)];
    args.push("-q".to_owned());
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args.extend(inputs.iter().map(|p| text(p)));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(pgnlake(&args));
}

/// A lake's imports (by name) with the games read before each, in the
/// order a single import of their inputs reads them: their names' order.
fn offsets(data: &Path) -> BTreeMap<String, i64> {
    let mut offsets = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(data.join("_imports")) else {
        return offsets;
    };
    let mut read: Vec<(String, i64)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.strip_suffix(".json")?.to_owned();
            let json = std::fs::read_to_string(e.path()).ok()?;
            let summary: Value = serde_json::from_str(&json).ok()?;
            Some((name, summary["games_read"].as_i64()?))
        })
        .collect();
    read.sort();
    let mut before = 0;
    for (name, games) in read {
        offsets.insert(name, before);
        before += games;
    }
    offsets
}

/// Every game object of `value` named by its id in a single import of all
/// the inputs (a lake's `import` and own id become that id).
fn as_single_import(value: &mut Value, offsets: &BTreeMap<String, i64>) {
    match value {
        Value::Object(fields) => {
            if let Some(id) = fields.get("game_id").and_then(Value::as_i64) {
                let offset = match fields.remove("import") {
                    Some(Value::String(import)) => *offsets
                        .get(&import)
                        .unwrap_or_else(|| panic!("no import {import}")),
                    _ => 0,
                };
                fields.insert("game_id".into(), Value::from(id + offset));
            }
            fields
                .values_mut()
                .for_each(|v| as_single_import(v, offsets));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| as_single_import(v, offsets)),
        _ => {}
    }
}

/// What `explore --games 5 --recent 5` lists at every position of
/// [`POSITIONS`], games named as a single import names them.
fn listed(data: &Path) -> Vec<Value> {
    let offsets = offsets(data);
    POSITIONS
        .iter()
        .map(|moves| {
            let data = text(data);
            let mut args = vec!["explore", "--data", &data, "--format", "json"];
            args.extend(["--games", "5", "--recent", "5"]);
            args.extend_from_slice(moves);
            let json = ok(pgnlake(&args));
            let mut value: Value =
                serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
            as_single_import(&mut value, &offsets);
            value
        })
        .collect()
}

/// The first place where `got` and `want` differ: its JSON path and the
/// two values there (None when they are equal).
fn first_difference(got: &Value, want: &Value, path: &str) -> Option<String> {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            let keys: std::collections::BTreeSet<&String> = g.keys().chain(w.keys()).collect();
            keys.into_iter().find_map(|k| {
                let (g, w) = (&g.get(k), &w.get(k));
                match (g, w) {
                    (Some(g), Some(w)) => first_difference(g, w, &format!("{path}.{k}")),
                    _ => Some(format!("{path}.{k}: {g:?} / {w:?}")),
                }
            })
        }
        (Value::Array(g), Value::Array(w)) if g.len() == w.len() => g
            .iter()
            .zip(w)
            .enumerate()
            .find_map(|(i, (g, w))| first_difference(g, w, &format!("{path}[{i}]"))),
        _ => (got != want).then(|| format!("{path}:\n  got  {got}\n  want {want}")),
    }
}

/// `got` lists what `want` does, position by position.
fn assert_lists(got: &[Value], want: &[Value], what: &str) {
    assert_eq!(got.len(), want.len());
    for (moves, (got, want)) in POSITIONS.iter().zip(got.iter().zip(want)) {
        if let Some(difference) = first_difference(got, want, "") {
            panic!("{what}, after {moves:?}: {difference}");
        }
    }
}

/// The opening tree's rows with the games they name (the witness, top and
/// latest), in key order: the whole table of an import's folder, of a
/// merge, or of a fully compacted lake.
fn tree(data: &Path) -> String {
    let sql = "SELECT position_key, move_uci, time_class, rating_band, month, ply, epd, \
               move_san, next_position_key, games, white_wins, draws, black_wins, \
               white_elo_sum, white_elo_count, black_elo_sum, black_elo_count, \
               first_year, last_year, game_id, top_game_id, top_game_elo_sum, last_game_id \
               FROM openings ORDER BY position_key, move_uci, time_class, rating_band, month";
    ok(pgnlake(&[
        "query",
        "--data",
        &text(data),
        "--format",
        "csv",
        "-e",
        sql,
    ]))
}

/// Two trees as [`tree`] reads them are the same (the first row that
/// differs named).
fn assert_same_tree(got: &Path, want: &Path, what: &str) {
    let (got, want) = (tree(got), tree(want));
    let row = got.lines().zip(want.lines()).position(|(g, w)| g != w);
    if let Some(row) = row {
        let line = |text: &str| text.lines().nth(row).unwrap_or_default().to_owned();
        panic!(
            "{what}, row {row}:\n  got  {}\n  want {}",
            line(&got),
            line(&want)
        );
    }
    assert_eq!(got.lines().count(), want.lines().count(), "{what}: rows");
}

/// A lake of `inputs` (one import each) lists what a single import of them
/// lists before and after compaction, a lake compacted part way and then
/// added to does too, and the merge of the single import's shards does.
fn lists_as_one_import(dir: &Path, inputs: &[PathBuf]) {
    let single = dir.join("single");
    import_out(inputs, &single, &[]);
    let expected = listed(&single);
    let e4_top = &expected[1]["moves"];
    assert!(
        e4_top.as_array().is_some_and(|m| !m.is_empty()),
        "{expected:?}"
    );

    let lake = dir.join("lake");
    for input in inputs {
        import_into(&lake, input);
    }
    assert_lists(&listed(&lake), &expected, "the lake before --compact");
    ok(pgnlake(&["lake", &text(&lake), "--compact"]));
    assert_lists(&listed(&lake), &expected, "the lake after --compact");
    assert_same_tree(&lake, &single, "the compacted tree");

    // Compacted part way, then added to: the compacted partition's games
    // come first, the later import's after them.
    let partly = dir.join("partly");
    let (first, last) = inputs.split_at(inputs.len() - 1);
    for input in first {
        import_into(&partly, input);
    }
    ok(pgnlake(&["lake", &text(&partly), "--compact"]));
    for input in last {
        import_into(&partly, input);
    }
    assert_lists(&listed(&partly), &expected, "a compacted lake added to");
    ok(pgnlake(&["lake", &text(&partly), "--compact"]));
    assert_lists(&listed(&partly), &expected, "compacted again");
    assert_same_tree(&partly, &single, "compacted twice");

    let shards: Vec<PathBuf> = (1..=3).map(|k| dir.join(format!("shard{k}"))).collect();
    for (k, shard) in shards.iter().enumerate() {
        import_out(inputs, shard, &["--shard", &format!("{}/3", k + 1)]);
    }
    let merged = dir.join("merged");
    let mut args = vec!["merge".to_owned()];
    args.extend(shards.iter().map(|s| text(s)));
    args.extend(["--out".to_owned(), text(&merged), "-q".to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(pgnlake(&args));
    assert_lists(&listed(&merged), &expected, "the merge of shards");
    assert_same_tree(&merged, &single, "the merged tree");
}

#[test]
fn top_games_tied_across_imports_are_those_of_one_import_before_and_after_compact() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let inputs = tie_inputs(dir.path());
    lists_as_one_import(dir.path(), &inputs);
    // What one import keeps, spelled out: after 1.e4, 1...e5's rows are
    // the 2600 band's (c1, tied with a1 at 5350 and read later) and the
    // 2500 band's (b2); 1...c5's row of two unrated games names none. The
    // latest: cu, c1, b2 (one per row).
    let single = dir.path().join("single");
    let e4 = &listed(&single)[1];
    let names = |games: &Value| -> Vec<String> {
        games
            .as_array()
            .map(|games| {
                games
                    .iter()
                    .filter_map(|g| {
                        g["white"]
                            .as_str()
                            .map(|w| w.trim_end_matches(" W").to_owned())
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let moves = e4["moves"].as_array().cloned().unwrap_or_default();
    let top_of = |uci: &str| {
        let line = moves.iter().find(|m| m["uci"] == uci);
        names(&line.unwrap_or_else(|| panic!("no {uci}: {e4}"))["top_games"])
    };
    assert_eq!(top_of("e7e5"), ["c1", "b2"]);
    assert_eq!(top_of("c7c5"), Vec::<String>::new());
    assert_eq!(names(&e4["recent_games"]), ["cu", "c1", "b2"]);
}

#[test]
fn top_games_of_split_sample_files_are_those_of_one_import_before_and_after_compact() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let inputs = sample_inputs(dir.path());
    lists_as_one_import(dir.path(), &inputs);
}
