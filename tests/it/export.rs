//! `pgnlake export`: the games a query selects, re-read from their sources
//! and written as `clean` writes them. Checked against `clean`'s output
//! byte for byte, against python-chess selecting by the same criteria on a
//! corpus file, and on a lake; bad queries and changed or missing sources.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{self, ok, pgnlake, run_oracle, sample, text};

/// `clean INPUTS -o FILE` (with `extra`), its output.
fn cleaned(dir: &Path, inputs: &[PathBuf], extra: &[&str]) -> String {
    let out = dir.join("clean.pgn");
    let mut args = vec!["clean".to_owned()];
    args.extend(inputs.iter().map(|p| text(p)));
    args.extend(["-o".into(), text(&out), "-q".into()]);
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(pgnlake(&args));
    std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}"))
}

/// `import INPUTS --out DIR --moves`.
fn imported(dir: &Path, inputs: &[PathBuf]) -> PathBuf {
    let out = dir.join("tables");
    let mut args = vec!["import".to_owned()];
    args.extend(inputs.iter().map(|p| text(p)));
    args.extend(["--out".into(), text(&out), "--moves".into(), "-q".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(pgnlake(&args));
    out
}

/// `export --data DATA -e SQL -o FILE` (with `extra`): the run, and the file.
fn export(data: &Path, sql: &str, file: &Path, extra: &[&str]) -> (Output, String) {
    let (data, file_text) = (text(data), text(file));
    let mut args = vec!["export", "--data", &data, "-e", sql, "-o", &file_text, "-q"];
    args.extend_from_slice(extra);
    let output = pgnlake(&args);
    let written = std::fs::read_to_string(file).unwrap_or_default();
    (output, written)
}

/// A PGN text's games (each ends with the blank line after its movetext).
fn games_of(pgn: &str) -> Vec<String> {
    let mut games = Vec::new();
    let mut current = String::new();
    for line in pgn.split_inclusive('\n') {
        if line.starts_with("[Event ") && !current.trim().is_empty() && current.contains("\n\n") {
            games.push(std::mem::take(&mut current));
        }
        current.push_str(line);
    }
    if !current.is_empty() {
        games.push(current);
    }
    games
}

fn sample_inputs() -> Vec<PathBuf> {
    vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data")]
}

#[test]
fn export_of_every_game_is_cleans_output_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = sample_inputs();
    let tables = imported(dir.path(), &inputs);
    for extra in [&[][..], &["--fix-results"][..]] {
        let clean = cleaned(dir.path(), &inputs, extra);
        let file = dir.path().join("all.pgn");
        let (output, all) = export(&tables, "SELECT game_id FROM games", &file, extra);
        ok(output);
        assert_eq!(games_of(&all).len(), 113);
        assert!(all == clean, "{extra:?}: export differs from clean");
    }
}

#[test]
fn a_selection_is_the_matching_subsequence_of_cleans_output_in_the_querys_order() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = sample_inputs();
    let tables = imported(dir.path(), &inputs);
    let clean = games_of(&cleaned(dir.path(), &inputs, &[]));
    // Each accepted game's place in clean's output: its rank by game_id.
    let ids = crate::lake::query_rows(&tables, "SELECT game_id FROM games ORDER BY game_id");
    let rank = |id: &str| ids.iter().position(|i| i == id).unwrap();
    let sql = "SELECT game_id, plies FROM games WHERE plies > 40 ORDER BY plies DESC, game_id";
    let chosen = crate::lake::query_rows(&tables, sql);
    assert!(chosen.len() > 5, "{chosen:?}");
    let expected: String = chosen
        .iter()
        .map(|row| clean[rank(row.split(" | ").next().unwrap())].clone())
        .collect();
    let file = dir.path().join("chosen.pgn.zst");
    let (output, _) = export(&tables, sql, &file, &[]);
    ok(output);
    let bytes = std::fs::read(&file).unwrap();
    let written = String::from_utf8(zstd::decode_all(bytes.as_slice()).unwrap()).unwrap();
    assert_eq!(written, expected);
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn python_chess_selects_the_same_games_by_rating_eco_and_position() {
    let shared = common::corpus_data();
    let corpus = shared.join("corpus/twic0920.pgn");
    let dir = tempfile::tempdir().unwrap();
    let tables = imported(dir.path(), std::slice::from_ref(&corpus));
    // After 1.e4 c5 2.Nf3: Sicilians of 2500+ players with White.
    let epd = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -";
    // The position by its key (`position_key('FEN')`): no EPD needed.
    let sql = format!(
        "SELECT DISTINCT g.game_id FROM games g \
         JOIN moves m ON m.game_id = g.game_id \
         WHERE m.position_key = position_key('{epd}') \
           AND g.white_elo >= 2500 AND g.eco LIKE 'B%' ORDER BY g.game_id"
    );
    let file = dir.path().join("sicilians.pgn");
    let (output, _) = export(&tables, &sql, &file, &[]);
    ok(output);
    let ours = run_oracle("export_select.py", &["list".as_ref(), file.as_os_str()]);
    let theirs = run_oracle(
        "export_select.py",
        &[
            "find".as_ref(),
            corpus.as_os_str(),
            shared.join("openings").as_os_str(),
            "2500".as_ref(),
            "B".as_ref(),
            epd.as_ref(),
        ],
    );
    assert!(ours.len() >= 10, "{ours:?}");
    assert_eq!(ours, theirs);
}

#[test]
fn a_lake_exports_by_import_and_game_id() {
    let dir = tempfile::tempdir().unwrap();
    let lake = dir.path().join("lake");
    let lake_text = text(&lake);
    for name in ["openings.pgn", "results.pgn"] {
        let input = text(&sample(name));
        ok(pgnlake(&["import", &input, "--into", &lake_text, "-q"]));
    }
    let file = dir.path().join("lake.pgn");
    let sql = "SELECT import, game_id FROM games ORDER BY import DESC, game_id";
    let (output, written) = export(&lake, sql, &file, &[]);
    ok(output);
    let expected = cleaned(dir.path(), &[sample("results.pgn")], &[])
        + &cleaned(dir.path(), &[sample("openings.pgn")], &[]);
    assert_eq!(written, expected);
    // Without `import`, a lake's game_id names no game.
    let (output, _) = export(&lake, "SELECT game_id FROM games", &file, &[]);
    let message = common::usage_error(&output);
    assert!(message.contains("no `import` column"), "{message}");
}

#[test]
fn bad_queries_write_nothing_and_changed_or_missing_sources_are_one_line_each() {
    let dir = tempfile::tempdir().unwrap();
    let copy = |name: &str| {
        let to = dir.path().join(name);
        std::fs::copy(sample(name), &to).unwrap();
        to
    };
    let (openings, results) = (copy("openings.pgn"), copy("results.pgn"));
    let tables = imported(dir.path(), &[openings.clone(), results.clone()]);
    let file = dir.path().join("out.pgn");
    for (sql, says) in [
        ("SELECT white FROM games", "no `game_id` column"),
        (
            "SELECT 123456 AS game_id",
            "game_id 123456 is not in the games table",
        ),
        ("SELEC game_id FROM games", "sql parser error"),
    ] {
        let (output, _) = export(&tables, sql, &file, &[]);
        let message = common::usage_error(&output);
        assert!(message.contains(says), "{sql}: {message}");
        assert!(!file.exists(), "{sql}");
    }
    // One game of openings.pgn changed in place (same size), results.pgn
    // gone: the rest is written, one line each, exit 1.
    let pgn = std::fs::read_to_string(&openings).unwrap();
    std::fs::write(
        &openings,
        pgn.replacen("[Event \"", "[Event \"!", 1)
            .replacen(" ", "", 1),
    )
    .unwrap();
    assert_eq!(
        std::fs::metadata(&openings).unwrap().len() as usize,
        pgn.len()
    );
    std::fs::remove_file(&results).unwrap();
    let (output, written) = export(&tables, "SELECT game_id FROM games", &file, &[]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[0].contains("results.pgn: cannot read"), "{stderr}");
    assert!(
        lines[1].contains("openings.pgn: the game at byte 0 (line 1) changed since the import"),
        "{stderr}"
    );
    assert_eq!(games_of(&written).len(), 5);
}

/// A copy of `name` in `dir`, imported into `dir/tables`.
fn copied_and_imported(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let copy = dir.join(name);
    std::fs::copy(sample(name), &copy).unwrap();
    let tables = imported(dir, std::slice::from_ref(&copy));
    (copy, tables)
}

#[test]
fn a_source_shifted_by_a_byte_keeping_its_size_is_one_line_with_the_count_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let (source, tables) = copied_and_imported(dir.path(), "lichess-2025-05-30games.pgn");
    let games = crate::lake::query_rows(&tables, "SELECT count(*) FROM games");
    assert_eq!(games, ["30"]);
    // A newline before the first game, the last byte dropped: the same
    // size, every game one byte later.
    let bytes = std::fs::read(&source).unwrap();
    let mut shifted = b"\n".to_vec();
    shifted.extend_from_slice(&bytes[..bytes.len() - 1]);
    std::fs::write(&source, &shifted).unwrap();
    let file = dir.path().join("out.pgn");
    let (output, written) = export(&tables, "SELECT game_id FROM games", &file, &[]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(written, "");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("lichess-2025-05-30games.pgn: changed since the import")
            && lines[0].contains("30 of the 30 games selected from it were not written"),
        "{stderr}"
    );
    // Without -q the summary says 0 of 30, after the line, still exit 1.
    let (data, out) = (text(&tables), text(&file));
    let sql = "SELECT game_id FROM games";
    let output = pgnlake(&["export", "--data", &data, "-e", sql, "-o", &out]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("exported 0 of 30 selected games"),
        "{stderr}"
    );
}

#[test]
fn each_game_not_written_after_a_byte_changed_in_two_games_has_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let (source, tables) = copied_and_imported(dir.path(), "lichess-2025-05-30games.pgn");
    let places = crate::lake::query_rows(
        &tables,
        "SELECT game_id, \"offset\", line FROM games ORDER BY game_id",
    );
    assert_eq!(places.len(), 30);
    let place = |row: &str| -> (usize, String) {
        let fields: Vec<&str> = row.split(" | ").collect();
        (fields[1].parse().unwrap(), fields[2].to_owned())
    };
    let name = text(&source);
    let mut bytes = std::fs::read(&source).unwrap();
    let mut want = Vec::new();
    // The 5th game: one byte of its first tag (`[Event` → `[Evenu`): it
    // no longer hashes to its raw_hash.
    let (offset, line) = place(&places[4]);
    assert_eq!(&bytes[offset..offset + 6], b"[Event");
    bytes[offset + 5] = b'u';
    want.push(format!(
        "{name}: the game at byte {offset} (line {line}) changed since the import; not written"
    ));
    // The 20th game: the newline before it a space, so that it runs on as
    // the 19th game's text: the 19th changed, and no game starts where the
    // 20th did (before, the 20th was left out without a word).
    let (before, before_line) = place(&places[18]);
    let (offset, line) = place(&places[19]);
    assert_eq!(&bytes[offset - 1..offset + 6], b"\n[Event");
    bytes[offset - 1] = b' ';
    want.push(format!(
        "{name}: the game at byte {before} (line {before_line}) changed since the import; not written"
    ));
    want.push(format!(
        "{name}: no game starts at byte {offset} (line {line} as imported) any more: changed since the import; not written"
    ));
    assert_eq!(
        bytes.len() as u64,
        std::fs::metadata(&source).unwrap().len()
    );
    std::fs::write(&source, &bytes).unwrap();
    let file = dir.path().join("out.pgn");
    let (output, written) = export(&tables, "SELECT game_id FROM games", &file, &[]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .map(|l| l.trim_start_matches("pgnlake: "))
        .collect();
    assert_eq!(lines, want, "{stderr}");
    assert_eq!(games_of(&written).len(), 27);
}

#[test]
fn a_game_id_that_is_not_a_whole_number_is_an_error_naming_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let (_, tables) = copied_and_imported(dir.path(), "openings.pgn");
    let file = dir.path().join("out.pgn");
    for (sql, says) in [
        ("SELECT 0.5 AS game_id", "0.5"),
        ("SELECT game_id + 0.5 AS game_id FROM games", "`game_id`"),
        ("SELECT 'x' AS game_id", "`game_id`"),
    ] {
        let (output, _) = export(&tables, sql, &file, &[]);
        let message = common::usage_error(&output);
        assert!(
            message.contains(says) && message.contains("not"),
            "{sql}: {message}"
        );
        assert!(!file.exists(), "{sql}");
    }
    // Whole numbers as floats are the games they name.
    let sql = "SELECT CAST(game_id AS DOUBLE) AS game_id FROM games";
    let (output, written) = export(&tables, sql, &file, &[]);
    ok(output);
    assert_eq!(games_of(&written).len(), 6);
}
