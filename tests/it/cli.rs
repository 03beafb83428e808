//! The binary's edge: exit codes, one-line errors naming the path, the
//! summary on stderr, stdin input.

use crate::common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use common::{pgnlake, sample};

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn summary_is_printed_and_rejects_do_not_fail_the_run() {
    let out = tmp();
    let edge = sample("edge-cases.pgn");
    let output = pgnlake(&[
        "import",
        edge.to_str().unwrap_or_default(),
        "--out",
        out.path().to_str().unwrap_or_default(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text: String = stderr(&output)
        .lines()
        .filter(|l| !l.starts_with("elapsed"))
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!(text, @r"
    games read 29 = accepted 18 + rejected 11
    rejected by reason:
      ambiguous_move               1
      garbage                      1
      illegal_move                 1
      invalid_fen                  1
      malformed_tag                1
      null_move                    1
      unknown_token                2
      unparsable_san               1
      unsupported_variant          1
      unterminated_comment         1
    end states:
      checkmate                    3
      fivefold_repetition          1
      insufficient_material        1
      none                         10
      seventyfive_moves            1
      stalemate                    2
    result checks:
      consistent                   10
      contradicts_automatic_draw   1
      contradicts_checkmate        1
      contradicts_insufficient     1
      contradicts_stalemate        1
      missing_result               1
      nonstandard_result           1
      tag_marker_mismatch          1
      unfinished_but_decided       1
    can mate (final positions, per side): 3 yes, 12 no, 0 undetermined, 21 not asked
    ");
    assert!(out.path().join("games.parquet").is_file());
    assert!(out.path().join("summary.json").is_file());
}

#[test]
fn strict_turns_rejects_into_exit_code_1() {
    let out = tmp();
    let edge = sample("edge-cases.pgn");
    let args = [
        "import",
        edge.to_str().unwrap_or_default(),
        "--out",
        out.path().to_str().unwrap_or_default(),
        "--strict",
        "--quiet",
    ];
    let output = pgnlake(&args);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stderr(&output), "");

    let clean = sample("lichess-2025-05-30games.pgn");
    let output = pgnlake(&[
        "import",
        clean.to_str().unwrap_or_default(),
        "--out",
        out.path().to_str().unwrap_or_default(),
        "--strict",
        "-q",
    ]);
    assert_eq!(output.status.code(), Some(0));
}

/// One line, naming the path, exit code 2.
fn assert_path_error(output: &Output, path: &str) {
    assert_eq!(output.status.code(), Some(2), "{}", stderr(output));
    let text = stderr(output);
    assert_eq!(text.lines().count(), 1, "not one line: {text}");
    assert!(text.contains(path), "{text} does not name {path}");
}

#[test]
fn missing_input_is_a_one_line_error() {
    let out = tmp();
    let output = pgnlake(&[
        "import",
        "no/such/file.pgn",
        "--out",
        out.path().to_str().unwrap_or_default(),
    ]);
    assert_path_error(&output, "no/such/file.pgn");
}

#[test]
fn folder_without_pgn_is_a_one_line_error() {
    let empty = tmp();
    std::fs::write(empty.path().join("notes.txt"), "not a pgn").ok();
    let out = tmp();
    let folder = empty.path().to_str().unwrap_or_default();
    let output = pgnlake(&[
        "import",
        folder,
        "--out",
        out.path().to_str().unwrap_or_default(),
    ]);
    assert_path_error(&output, folder);
}

/// Runs `pgnlake ARGS…` with `bytes` on stdin.
fn pgnlake_with_stdin(args: &[&str], bytes: Vec<u8>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run pgnlake: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        std::thread::spawn(move || stdin.write_all(&bytes).ok());
    }
    child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn inputs_that_are_not_text_are_refused_naming_what_they_are() {
    let dir = tmp();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap_or_default();
    let mut binary = b"[Event \"x\"]\n".to_vec();
    binary.extend([0u8; 16]);
    let cases: [(&str, Vec<u8>, &str); 5] = [
        ("binary.pgn", binary, "unknown compression or binary file"),
        (
            "a.pgn.xz",
            b"\xfd7zXZ\0\0\x04\xe6\xd6\xb4\x46".to_vec(),
            "xz archive",
        ),
        ("a.7z", b"7z\xbc\xaf\x27\x1c\0\x04".to_vec(), "7z archive"),
        ("a.rar", b"Rar!\x1a\x07\x01\0".to_vec(), "rar archive"),
        // Checked after decompression: zstd around binary is binary.
        (
            "binary.pgn.zst",
            zstd::encode_all(&[1u8, 2, 3, 0, 5][..], 3).unwrap_or_default(),
            "unknown compression or binary file",
        ),
    ];
    for (name, bytes, what) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).ok();
        let path = path.to_str().unwrap_or_default();
        // Refused before any work: even beside a good input.
        let edge = sample("edge-cases.pgn");
        let output = pgnlake(&[
            "import",
            edge.to_str().unwrap_or_default(),
            path,
            "--out",
            out,
        ]);
        assert_path_error(&output, path);
        let text = stderr(&output);
        assert!(
            text.contains(&format!("{path}: not PGN text: {what}")),
            "{text}"
        );
        assert!(!std::path::Path::new(out).join("games.parquet").exists());
        let clean = pgnlake(&["clean", path, "-o", "-"]);
        assert_path_error(&clean, path);
    }
}

#[test]
fn a_zip_on_stdin_is_refused_and_its_file_is_read() {
    let dir = tmp();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap_or_default();
    let options = zip::write::SimpleFileOptions::default();
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let edge = std::fs::read(sample("edge-cases.pgn")).unwrap_or_default();
    writer.start_file("a.pgn", options).ok();
    writer.write_all(&edge).ok();
    let archive = writer
        .finish()
        .map(std::io::Cursor::into_inner)
        .unwrap_or_default();
    let output = pgnlake_with_stdin(&["import", "-", "--out", out], archive.clone());
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "pgnlake: -: a .zip archive cannot be read from standard input (it needs seeking): \
         pass the file instead\n"
    );
    // The same archive as a file (any suffix: the magic bytes count).
    let path = dir.path().join("games.dat");
    std::fs::write(&path, &archive).ok();
    let output = pgnlake(&["clean", path.to_str().unwrap_or_default(), "-o", "-"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("games read 29 = clean 18"),
        "{}",
        stderr(&output)
    );
    // An archive without a PGN entry, or a broken one, names the file.
    let mut empty = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    empty.start_file("notes.txt", options).ok();
    empty.write_all(b"no games").ok();
    let empty = empty
        .finish()
        .map(std::io::Cursor::into_inner)
        .unwrap_or_default();
    let broken = archive
        .get(..archive.len() - 30)
        .unwrap_or_default()
        .to_vec();
    for (name, bytes, what) in [
        ("empty.zip", empty, "zip archive holds no PGN entries"),
        ("broken.zip", broken, "cannot read the zip archive"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).ok();
        let path = path.to_str().unwrap_or_default();
        let output = pgnlake(&["import", path, "--out", out]);
        assert_path_error(&output, path);
        assert!(stderr(&output).contains(what), "{}", stderr(&output));
    }
}

#[test]
fn unwritable_output_is_a_one_line_error() {
    let dir = tmp();
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "x").ok();
    let out = blocker.join("out");
    let out = out.to_str().unwrap_or_default();
    let edge = sample("edge-cases.pgn");
    let output = pgnlake(&["import", edge.to_str().unwrap_or_default(), "--out", out]);
    assert_path_error(&output, out);
    // Regression: the cause was printed twice ("…: Not a directory (os
    // error 20): Not a directory (os error 20)").
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("pgnlake: {out}: cannot create output folder: Not a directory (os error 20)\n")
    );
}

/// Regression: the tree's end of run opens every spill run at once, and an
/// import of 104 runs under a soft limit of 64 open files failed with "Too
/// many open files". The import raises its soft limit to the hard one.
#[test]
fn spill_runs_past_the_soft_open_file_limit_are_read() {
    let hard = Command::new("sh")
        .args(["-c", "ulimit -Hn"])
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<u64>()
                .ok()
        });
    if hard.is_none_or(|hard| hard < 512) {
        println!("skipped: the hard limit on open files is {hard:?}, too low to raise past 64");
        return;
    }
    let out = tmp();
    let samples = sample("");
    let samples = samples.to_str().unwrap_or_default();
    let output = Command::new("sh")
        .args(["-c", "ulimit -Sn 64 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_pgnlake"))
        .args(["import", samples, samples, "--out"])
        .arg(out.path())
        .args(["-q", "--memory-limit", "1K", "--threads", "1"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("summary.json")).unwrap_or_default())
            .unwrap_or_else(|e| panic!("{e}"));
    let runs = summary["opening_tree"]["spill_runs"].as_u64().unwrap_or(0);
    assert!(runs > 64, "{runs} runs: not enough to pass the limit");
    assert_eq!(summary["opening_tree"]["rows"].as_u64(), Some(731));
}

#[test]
fn stdin_is_read_with_a_dash() {
    let out = tmp();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args([
            "import",
            "-",
            "--out",
            out.path().to_str().unwrap_or_default(),
            "-q",
        ])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let pgn = std::fs::read(sample("lichess-2025-05-30games.pgn")).unwrap_or_default();
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(&pgn).ok();
    }
    let status = child.wait().ok().and_then(|s| s.code());
    assert_eq!(status, Some(0));
    let games = common::read_table(&out.path().join("games.parquet"));
    assert_eq!(games.height(), 30);
    assert_eq!(common::str_at(&games, "source", 0).as_deref(), Some("-"));
}

/// The fixture imported into a fresh folder.
fn imported_fixture() -> tempfile::TempDir {
    imported_fixture_with(&[])
}

/// The fixture imported into a fresh folder with more options.
fn imported_fixture_with(options: &[&str]) -> tempfile::TempDir {
    imported_sample_with("openings.pgn", options)
}

/// `sample-data/NAME` imported into a fresh folder with `options`.
fn imported_sample_with(name: &str, options: &[&str]) -> tempfile::TempDir {
    let out = tmp();
    let fixture = sample(name);
    let mut args = vec![
        "import",
        fixture.to_str().unwrap_or_default(),
        "--out",
        out.path().to_str().unwrap_or_default(),
        "-q",
    ];
    args.extend_from_slice(options);
    let output = pgnlake(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    out
}

fn explore(out: &tempfile::TempDir, args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["explore", "--data", out.path().to_str().unwrap_or_default()];
    all.extend_from_slice(args);
    let output = pgnlake(&all);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr(&output),
    )
}

#[test]
fn explore_prints_the_moves_of_a_position() {
    let out = imported_fixture();
    let (code, text, _) = explore(&out, &["1.d4", "Nf6", "2.c4", "e6"]);
    assert_eq!(code, Some(0));
    insta::assert_snapshot!(text, @r"
    position  rnbqkb1r/pppp1ppp/4pn2/8/2PP4/8/PP2PPPP/RNBQKBNR w KQkq -
    opening   A50 Indian Defense: Normal Variation
    games     2

    move  games   share  white  draw  black  avg white  avg black  last
    Nc3       2  100.0%  50.0%  0.0%  50.0%       2400       2500  2001
    ");
    let (code, text, _) = explore(&out, &[]);
    assert_eq!(code, Some(0));
    insta::assert_snapshot!(text, @r"
    position  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -
    opening   (not in the opening table)
    games     5

    move  games  share   white   draw   black  avg white  avg black  last
    e4        2  40.0%    0.0%  50.0%    0.0%       2000          -  2010
    c4        1  20.0%    0.0%   0.0%  100.0%       2300       2600  1995
    d4        1  20.0%  100.0%   0.0%    0.0%       2500       2400  2001
    f3        1  20.0%    0.0%   0.0%  100.0%       1200       1300  2020
    ");
}

#[test]
fn opening_min_games_leaves_out_rare_rows_after_counting_and_explore_says_so() {
    // Without months (`--opening-period none`) the fixture's two e4 games
    // (neither rated, nor timed) share one row; by month they would not.
    let out = imported_fixture_with(&["--opening-min-games", "2", "--opening-period", "none"]);
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("summary.json")).unwrap_or_default(),
    )
    .unwrap_or_default();
    let tree = &summary["opening_tree"];
    assert_eq!(tree["min_games"], 2);
    let written = summary["tables"]["openings.parquet"].as_u64().unwrap_or(0);
    let (rows, dropped) = (
        tree["rows"].as_u64().unwrap_or(0),
        tree["rows_dropped"].as_u64().unwrap_or(0),
    );
    assert!(written > 0 && dropped > 0, "{tree}");
    assert_eq!(rows, written + dropped);
    let openings = common::read_table(&out.path().join("openings.parquet"));
    let games = openings
        .column("games")
        .and_then(|c| c.cast(&polars::prelude::DataType::UInt64))
        .unwrap_or_else(|e| panic!("{e}"));
    let games = games.u64().unwrap_or_else(|e| panic!("{e}"));
    assert!((0..games.len()).all(|i| games.get(i).unwrap_or(0) >= 2));
    // Only 1.e4 was played twice from the start; c4, d4 and f3 once each.
    let (code, text, _) = explore(&out, &[]);
    assert_eq!(code, Some(0));
    insta::assert_snapshot!(text, @r"
    position  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -
    opening   (not in the opening table)
    games     2
    note      rows (a move at one speed, rating band and month) played in fewer than 2 games are left out (--opening-min-games 2): the moves and games may be incomplete

    move  games   share  white   draw  black  avg white  avg black  last
    e4        2  100.0%   0.0%  50.0%   0.0%       2000          -  2010
    ");
}

/// The lichess sample imported once (without `--moves`).
fn imported_lichess() -> tempfile::TempDir {
    imported_sample_with("lichess-2025-05-30games.pgn", &[])
}

#[test]
fn explore_filters_sum_the_rows_they_keep_and_say_so() {
    // Top games come from the tree's rows: no --moves needed.
    let out = imported_lichess();
    let (code, text, _) = explore(
        &out,
        &[
            "e4",
            "--speed",
            "blitz,bullet",
            "--rating",
            "1400..1800",
            "--games",
            "2",
        ],
    );
    assert_eq!(code, Some(0));
    // Highest average rating first: 1693 + 1690 before 1348 + 1933.
    insta::assert_snapshot!(text, @r"
    position  rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -
    opening   B00 King's Pawn Game
    filters   speed blitz,bullet, rating 1400..1800
    games     11 of 23 (47.8% left by the filters)

    move  games  share   white  draw  black  avg white  avg black  last
    e5        4  36.4%   25.0%  0.0%  75.0%       1516       1701  2025
    g6        3  27.3%   33.3%  0.0%  66.7%       1688       1693  2025
    c5        2  18.2%  100.0%  0.0%   0.0%       1559       1604  2025
    e6        2  18.2%   50.0%  0.0%  50.0%       1708       1727  2025

    top games with e5
            25  NthJeff (1693) - Alpha_Republic (1690)  1-0  2025.05.01
            20  Royergonzalo (1348) - leogabriel29 (1933)  0-1  2025.05.01

    top games with g6
            22  KhatoBiscuit (1801) - ahmdmhmd05 (1791)  1-0  2025.05.01
            27  Nikitosss007 (1775) - t12345678h (1787)  0-1  2025.05.01

    top games with c5
            15  mixtecovargas (1743) - xaam123 (1726)  1-0  2025.05.01
            23  lucialarrottica (1375) - MedievalPear (1483)  1-0  2025.05.01

    top games with e6
            14  rodrikchess (1857) - AlexShchepikhin (1842)  1-0  2025.05.01
            10  Mr_chess8964 (1558) - Naturdoc (1612)  0-1  2025.05.01
    ");
    let (code, text, _) = explore(
        &out,
        &[
            "e4", "--rating", "2000..", "--since", "2025-05", "--until", "2025-05", "--format",
            "json",
        ],
    );
    assert_eq!(code, Some(0));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    assert_eq!(value["filters"]["rating"]["from"], 2000);
    assert_eq!(value["filters"]["rating"]["to"], serde_json::Value::Null);
    assert_eq!(value["filters"]["since"], "2025-05");
    let games = value["games"].as_u64().unwrap_or(0);
    let position_games = value["position_games"].as_u64().unwrap_or(0);
    assert!(games > 0 && games < position_games, "{value}");
    let summed: u64 = value["moves"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["games"].as_u64())
        .sum();
    assert_eq!(summed, games);
    // A month no game of the sample has: the position is printed, exit 1.
    let (code, text, _) = explore(&out, &["e4", "--since", "2030-01"]);
    assert_eq!(code, Some(1));
    assert!(text.contains("passes the filters"), "{text}");
}

#[test]
fn explore_refuses_bad_filters_in_one_line() {
    let out = imported_lichess();
    for (args, message) in [
        (
            &["--speed", "blitz,fast"][..],
            "pgnlake: --speed \"fast\": expected time classes separated by commas (ultrabullet, bullet, blitz, rapid, classical, correspondence, unknown)\n",
        ),
        (
            &["--rating", "2050..2400"][..],
            "pgnlake: --rating \"2050..2400\": expected bands FROM..TO, FROM.. or ..TO, each a band's lower bound (800, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2400, 2500, 2600, 2700, 2800) (e.g. 2000..2400)\n",
        ),
        (
            &["--since", "2025-5"][..],
            "pgnlake: --since \"2025-5\": expected a month as YYYY-MM (e.g. 2020-01)\n",
        ),
        (
            &["--since", "2025-06", "--until", "2025-01"][..],
            "pgnlake: --since \"2025-06\": expected a month not after --until 2025-01\n",
        ),
    ] {
        let mut all = vec!["e4"];
        all.extend_from_slice(args);
        let (code, _, err) = explore(&out, &all);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(err, message);
    }
}

#[test]
fn explore_json_and_fen() {
    let out = imported_fixture();
    let fen = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let (code, text, _) = explore(&out, &["--fen", fen, "--format", "json"]);
    assert_eq!(code, Some(0));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    assert_eq!(value["opening"]["eco"], "B20");
    assert_eq!(value["opening"]["name"], "Sicilian Defense");
    assert_eq!(value["games"], 1);
    assert_eq!(value["moves"][0]["san"], "Nf3");
    assert_eq!(value["moves"][0]["uci"], "g1f3");
    assert_eq!(value["moves"][0]["unfinished"], 1);
    assert_eq!(value["moves"][0]["last_year"], serde_json::Value::Null);
}

#[test]
fn explore_says_clearly_what_is_wrong() {
    let out = imported_fixture();
    // Legal, but no game went there: printed, exit 1.
    let (code, text, _) = explore(&out, &["a4"]);
    assert_eq!(code, Some(1));
    assert!(text.contains("opening   A00 Ware Opening"), "{text}");
    assert!(
        text.contains("no game of this import reached this position"),
        "{text}"
    );
    // Illegal move: one line naming it and its ply, exit 2.
    let (code, _, err) = explore(&out, &["e4", "e5", "Ke3"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "pgnlake: \"Ke3\" at ply 3 is not a legal move in \
         rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n"
    );
    let (code, _, err) = explore(&out, &["--fen", "8/8/8/8 w - -"]);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("pgnlake: not a legal position: \"8/8/8/8 w - -\""),
        "{err}"
    );
    // No tree in the folder: names the path.
    let empty = tmp();
    let (code, _, err) = explore(&empty, &["e4"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("openings.parquet: no opening tree here"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
}

/// Rewrites `DIR/TABLE.parquet` with its column `column` replaced.
fn doctor(dir: &std::path::Path, table: &str, column: polars::prelude::Series) {
    use polars::prelude::*;
    let path = dir.join(format!("{table}.parquet"));
    let mut frame = common::read_table(&path);
    let name = column.name().to_string();
    frame
        .replace(&name, column.into_column())
        .unwrap_or_else(|e| panic!("{e}"));
    let file = std::fs::File::create(&path).unwrap_or_else(|e| panic!("{e}"));
    ParquetWriter::new(file)
        .finish(&mut frame)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// A table's row count.
fn height(dir: &std::path::Path, table: &str) -> usize {
    common::read_table(&dir.join(format!("{table}.parquet"))).height()
}

#[test]
fn a_null_or_negative_count_is_refused_naming_the_file_and_the_column() {
    use polars::prelude::*;
    // explore: every row of the tree with a negative game count.
    let out = imported_fixture();
    let rows = height(out.path(), "openings");
    doctor(
        out.path(),
        "openings",
        Series::new("games".into(), vec![-1i64; rows]),
    );
    let (code, text, err) = explore(&out, &["e4"]);
    assert_eq!((code, text.as_str()), (Some(2), ""));
    let openings = out.path().join("openings.parquet");
    assert_eq!(
        err,
        format!(
            "pgnlake: {}: column \"games\" holds a negative count (-1)\n",
            openings.display()
        )
    );
    // report: a null draw count in the results.
    let out = imported_fixture();
    let rows = height(out.path(), "results");
    doctor(
        out.path(),
        "results",
        Series::full_null("draws".into(), rows, &DataType::Int64),
    );
    let data = out.path().to_str().unwrap_or_default();
    let report = pgnlake(&["report", "--data", data, "-o", "-"]);
    let results = out.path().join("results.parquet");
    assert_eq!(report.status.code(), Some(2));
    assert_eq!(
        stderr(&report),
        format!(
            "pgnlake: {}: column \"draws\" holds a null count\n",
            results.display()
        )
    );
    // merge: a shard whose results table has a negative count.
    let dir = tmp();
    let fixture = sample("openings.pgn");
    let shards: Vec<String> = ["1/2", "2/2"]
        .iter()
        .enumerate()
        .map(|(i, shard)| {
            let shard_dir = dir.path().join(format!("shard-{i}"));
            let shard_arg = shard_dir.to_str().unwrap_or_default().to_owned();
            let fixture = fixture.to_str().unwrap_or_default();
            let args = [
                "import", fixture, "--out", &shard_arg, "--shard", shard, "-q",
            ];
            let output = pgnlake(&args);
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
            shard_arg
        })
        .collect();
    let first = dir.path().join("shard-0");
    let rows = height(&first, "results");
    assert!(rows > 0);
    doctor(
        &first,
        "results",
        Series::new("games".into(), vec![-3i64; rows]),
    );
    let merged = dir.path().join("merged");
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend(["--out", merged.to_str().unwrap_or_default()]);
    let merge = stderr(&pgnlake(&args));
    let results = first.join("results.parquet");
    assert!(
        merge.contains(&format!(
            "{}: cannot read: column \"games\" holds a negative count (-3)",
            results.display()
        )),
        "{merge}"
    );
}

#[test]
fn clean_writes_to_stdout_and_names_a_bad_output_path() {
    let lichess = sample("lichess-2025-05-30games.pgn");
    let output = pgnlake(&[
        "clean",
        lichess.to_str().unwrap_or_default(),
        "-o",
        "-",
        "-q",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(text.matches("[Event ").count(), 30);
    assert!(
        text.starts_with("[Event \"Rated Blitz game\"]\n[Site \"https://lichess.org/ENPo6ReH\"]")
    );
    // An output folder that does not exist: one line naming the path, exit 2.
    let bad = "no/such/folder/clean.pgn";
    let output = pgnlake(&["clean", lichess.to_str().unwrap_or_default(), "-o", bad]);
    assert_path_error(&output, bad);
}

/// Runs `pgnlake ARGS…` with `stdin` fed, and closes its stdout at once:
/// the reader of its output went away.
fn with_stdout_closed(args: &[&str], stdin: Vec<u8>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run pgnlake: {e}"));
    drop(child.stdout.take());
    if let Some(mut pipe) = child.stdin.take() {
        std::thread::spawn(move || pipe.write_all(&stdin).ok());
    }
    child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_broken_pipe_on_stdout_is_success() {
    let out = tmp();
    let data = out.path().to_str().unwrap_or_default();
    let imported = pgnlake(&[
        "import",
        "-q",
        sample("").to_str().unwrap_or_default(),
        "--out",
        data,
    ]);
    assert_eq!(imported.status.code(), Some(0), "{}", stderr(&imported));
    // 78³ rows: far more than a pipe holds.
    let cross =
        "select a.white, b.black, c.event from games a cross join games b cross join games c";
    let lichess = std::fs::read(sample("lichess-2025-05-30games.pgn")).unwrap_or_default();
    let runs: [(&[&str], Vec<u8>); 6] = [
        (
            &["query", "--data", data, "-e", cross, "--format", "csv"],
            Vec::new(),
        ),
        (&["query", "--data", data, "-e", cross], Vec::new()),
        (&["explore", "--data", data, "e4"], Vec::new()),
        (&["explore", "--data", data, "--format", "json"], Vec::new()),
        (&["clean", "-", "-o", "-"], lichess.repeat(40)),
        // About 200 KiB of HTML: more than a pipe holds.
        (&["report", "--data", data, "-o", "-"], Vec::new()),
    ];
    for (args, stdin) in runs {
        let output = with_stdout_closed(args, stdin);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(stderr(&output), "", "{args:?}");
    }
}

#[test]
fn unwinnable_answers_each_fen_line_as_json() {
    let input = "# a comment\n\
                 8/8/8/4k3/8/8/3QK3/8 w - - 0 1 game-1\n\
                 \n\
                 -- 8/8/8/4k3/8/8/3NK3/8 w - -\n\
                 not a fen\n";
    let output = pgnlake_with_stdin(&["unwinnable"], input.as_bytes().to_vec());
    assert_eq!(output.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 3);
    let verdicts: Vec<(String, String)> = lines
        .iter()
        .take(2)
        .map(|v| (v["white"].to_string(), v["black"].to_string()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("\"winnable\"".into(), "\"unwinnable\"".into()),
            ("\"unwinnable\"".into(), "\"unwinnable\"".into()),
        ]
    );
    // The queen's helpmate replays to a checkmate by white.
    let mut pos: shakmaty::Chess = "8/8/8/4k3/8/8/3QK3/8 w - - 0 1"
        .parse::<shakmaty::fen::Fen>()
        .ok()
        .and_then(|f| f.into_position(shakmaty::CastlingMode::Standard).ok())
        .unwrap_or_default();
    let helpmate = lines[0]["white_helpmate"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!helpmate.is_empty());
    for uci in helpmate {
        let m = uci
            .as_str()
            .and_then(|u| u.parse::<shakmaty::uci::UciMove>().ok())
            .and_then(|u| u.to_move(&pos).ok())
            .unwrap_or_else(|| panic!("illegal helpmate move {uci}"));
        shakmaty::Position::play_unchecked(&mut pos, m);
    }
    assert!(shakmaty::Position::is_checkmate(&pos));
    assert_eq!(lines[2]["fen"], "not a fen");
    assert!(lines[2]["error"].is_string());
    let missing = pgnlake(&["unwinnable", "/nonexistent/fens.txt"]);
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("/nonexistent/fens.txt"), "{stderr}");
}

/// `--salvage` alone turns repair on (`cmd::clean`): the game with an
/// illegal move after legal ones keeps its legal prefix, and a reduced
/// pawn capture (a repair, not a salvage) is read too; without the flag
/// both games are rejected.
#[test]
fn salvage_alone_turns_repair_on() {
    let dir = tmp();
    let input = dir.path().join("in.pgn");
    std::fs::write(
        &input,
        "[Event \"Illegal third move\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Qe8 Nf6 1-0\n\n\
         [Event \"Reduced capture\"]\n[Result \"*\"]\n\n1. e4 d5 2. ed5 *\n\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let input = input.to_str().unwrap_or_default();
    let plain = pgnlake(&["clean", input, "-o", "-", "-q"]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    assert_eq!(String::from_utf8_lossy(&plain.stdout), "");
    let salvaged = pgnlake(&["clean", "--salvage", input, "-o", "-", "-q"]);
    assert_eq!(salvaged.status.code(), Some(0), "{}", stderr(&salvaged));
    insta::assert_snapshot!(String::from_utf8_lossy(&salvaged.stdout), @r#"
    [Event "Illegal third move"]
    [Site "?"]
    [Date "????.??.??"]
    [Round "?"]
    [White "?"]
    [Black "?"]
    [Result "*"]
    [OriginalResult "1-0"]

    1. e4 e5 2. Nf3 Nc6 {Qe8 Nf6 1-0} *

    [Event "Reduced capture"]
    [Site "?"]
    [Date "????.??.??"]
    [Round "?"]
    [White "?"]
    [Black "?"]
    [Result "*"]

    1. e4 d5 2. exd5 *
    "#);
}

/// `report` and `explore` read `summary.json` as this version's summary:
/// another version's, or one with a field missing, is one line and exit 2
/// (it was read as zeros).
#[test]
fn readers_refuse_a_summary_they_cannot_read_as_their_own() {
    let dir = tmp();
    let out = dir.path().join("out");
    let out_arg = out.display().to_string();
    let results = sample("results.pgn").display().to_string();
    let imported = pgnlake(&["import", &results, "--out", &out_arg, "-q"]);
    assert_eq!(imported.status.code(), Some(0), "{}", stderr(&imported));
    let path = out.join("summary.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let report = dir.path().join("r.html").display().to_string();
    let report_args = ["report", "--data", &out_arg, "-o", &report];
    let explore_args = ["explore", "--data", &out_arg, "e4"];
    assert_eq!(pgnlake(&report_args).status.code(), Some(0));
    for (edited, expected) in [
        (
            text.replacen("\"version\": \"0.1.0\"", "\"version\": \"9.9.9\"", 1),
            "summary.json: written by pgnlake 9.9.9; this is pgnlake 0.1.0",
        ),
        (
            text.replacen("\"games_read\"", "\"games_counted\"", 1),
            "summary.json: not a summary.json of pgnlake 0.1.0 (unknown field `games_counted`",
        ),
    ] {
        std::fs::write(&path, &edited).unwrap_or_else(|e| panic!("{e}"));
        for args in [&report_args[..], &explore_args[..]] {
            let output = pgnlake(args);
            let message = stderr(&output);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
            assert_eq!(message.lines().count(), 1, "{message}");
            assert!(message.contains(expected), "{args:?}: {message}");
        }
    }
}

#[test]
fn key_prints_the_stored_key_of_a_fen_or_an_epd() {
    let key = |args: &[&str]| {
        let mut all = vec!["key"];
        all.extend_from_slice(args);
        pgnlake(&all)
    };
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
    // As the docs give it (`docs/querying.md#types`): signed.
    assert_eq!(
        common::stdout_of(&key(&[after_e4])),
        "-9062197578030825066\n"
    );
    // A FEN's fields as separate words, with the move counters.
    let words: Vec<&str> = after_e4.split(' ').chain(["0", "1"]).collect();
    assert_eq!(common::stdout_of(&key(&words)), "-9062197578030825066\n");
    assert_eq!(
        common::stdout_of(&key(&[
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        ])),
        "5060803636482931868\n"
    );
    assert_eq!(
        common::usage_error(&key(&["nope"])),
        "pgnlake: not a legal position: \"nope\" (invalid board part in fen)"
    );
}
