//! Limits of the input stage (issue 63, items 7 and 8): memory that does
//! not grow with the number of inputs (zip entries, files of a folder), and
//! a NUL byte that costs the game it is in, never the file, wherever it is.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use serde_json::Value;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pgnlake"))
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn read_summary(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("summary.json"))
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

// ---------------------------------------------------------------- many inputs

/// Peak memory allowed whatever the input, as docs/guarantees.md states.
const MEMORY_BOUND: u64 = 256 << 20;

/// A one-game PGN, numbered: about 200 bytes, as TWIC's one-game entries.
fn one_game(i: usize) -> String {
    format!(
        "[Event \"Many inputs\"]\n[Site \"?\"]\n[Date \"2024.01.01\"]\n[Round \"{i}\"]\n\
         [White \"White player {i}\"]\n[Black \"Black player {i}\"]\n[Result \"1-0\"]\n\
         [ECO \"C20\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n"
    )
}

/// `pgnlake import INPUT --out OUT -q --threads 2`: its summary, after
/// checking that it succeeded, read every game and stayed in bounds.
fn import_in_bounded_memory(input: &Path, games: usize) -> Value {
    let dir = tmp();
    let out = dir.path().join("out");
    let output = bin()
        .args(["import", "--threads", "2", "-q", "--out"])
        .arg(&out)
        .arg(input)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let summary = read_summary(&out);
    assert_eq!(summary["balanced"], true, "{summary}");
    assert_eq!(summary["games_read"], games as u64);
    assert_eq!(summary["accepted"], games as u64);
    assert_eq!(
        summary["inputs"].as_array().map(Vec::len),
        Some(games),
        "one input a game"
    );
    let peak = summary["peak_rss_bytes"].as_u64().unwrap_or_default();
    if cfg!(debug_assertions) {
        eprintln!(
            "notice: peak RSS {} MiB in a debug build (the bound is stated for release builds)",
            peak >> 20
        );
    }
    assert!(
        peak > 0 && peak < MEMORY_BOUND,
        "peak RSS {} MiB for {games} inputs",
        peak >> 20
    );
    summary
}

#[test]
fn twenty_thousand_zip_entries_import_in_bounded_memory() {
    const ENTRIES: usize = 20_000;
    let dir = tmp();
    let path = dir.path().join("many.zip");
    let file = std::fs::File::create(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut writer = zip::ZipWriter::new(std::io::BufWriter::new(file));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for i in 0..ENTRIES {
        writer
            .start_file(format!("round{i:05}.pgn"), options)
            .and_then(|()| writer.write_all(one_game(i).as_bytes()).map_err(Into::into))
            .unwrap_or_else(|e| panic!("entry {i}: {e}"));
    }
    writer.finish().unwrap_or_else(|e| panic!("{e}"));
    import_in_bounded_memory(&path, ENTRIES);
}

#[test]
fn ten_thousand_files_import_in_bounded_memory() {
    const FILES: usize = 10_000;
    let dir = tmp();
    let folder = dir.path().join("many");
    std::fs::create_dir(&folder).unwrap_or_else(|e| panic!("{e}"));
    for i in 0..FILES {
        std::fs::write(folder.join(format!("{i:05}.pgn")), one_game(i))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    import_in_bounded_memory(&folder, FILES);
}

// ---------------------------------------------------------------- NUL bytes

/// Games of the file the NUL tests read: numbered in `Event`, about 100
/// bytes each, so that 2,005 of them run well past the first 64 KiB.
const NUL_GAMES: usize = 2_005;

/// The games, with a NUL byte in the movetext of game `damaged` (from 0).
fn games_with_a_nul(damaged: usize) -> Vec<u8> {
    let mut text = Vec::new();
    for i in 0..NUL_GAMES {
        let moves = if i == damaged {
            "1. e4 e5 2. Nf3\0 Nc6 1/2-1/2"
        } else {
            "1. e4 e5 2. Nf3 Nc6 1/2-1/2"
        };
        text.extend(
            format!("[Event \"game {i}\"]\n[Result \"1/2-1/2\"]\n\n{moves}\n\n").into_bytes(),
        );
    }
    text
}

/// Where the NUL goes: in the first game (inside the first 64 KiB that
/// decide whether a file is text) and in a game past them.
const FIRST: usize = 0;
const LATER: usize = 1_500;

#[test]
fn the_later_nul_game_is_past_the_first_64_kib() {
    let text = games_with_a_nul(LATER);
    let at = text.iter().position(|&b| b == 0).unwrap_or_default();
    assert!(at > 64 << 10, "the NUL is at byte {at}");
}

/// The rejects' reasons and events of an import of `text`.
fn import_nul_file(dir: &Path, name: &str, text: &[u8]) -> (Imported, Vec<String>) {
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    let run = import(&[path], 2);
    let rejects = run.table("rejects");
    let rows = (0..rejects.height())
        .map(|row| {
            format!(
                "{} {}",
                str_at(&rejects, "reason", row).unwrap_or_default(),
                str_at(&rejects, "event", row).unwrap_or_default()
            )
        })
        .collect();
    (run, rows)
}

#[test]
fn a_nul_byte_in_the_first_game_costs_that_game_only_as_later_in_the_file() {
    let dir = tmp();
    let (later, later_rejects) = import_nul_file(dir.path(), "later.pgn", &games_with_a_nul(LATER));
    let (first, first_rejects) = import_nul_file(dir.path(), "first.pgn", &games_with_a_nul(FIRST));
    for (run, rejects, damaged) in [
        (&later, &later_rejects, LATER),
        (&first, &first_rejects, FIRST),
    ] {
        assert_eq!(run.summary.games_read, NUL_GAMES as u64);
        assert_eq!(run.summary.accepted, NUL_GAMES as u64 - 1);
        assert_eq!(run.summary.rejected, 1);
        assert_eq!(rejects.len(), 1, "{rejects:?}");
        assert!(
            rejects[0].ends_with(&format!(" game {damaged}")),
            "{rejects:?}"
        );
    }
    // The same reason wherever the NUL is.
    let reason = |rows: &[String]| rows[0].split(' ').next().map(str::to_owned);
    assert_eq!(reason(&first_rejects), reason(&later_rejects));
}

/// `pgnlake clean INPUT -o OUT --rejects REJECTS -q`: the games written to
/// each.
fn clean_games(input: &Path, dir: &Path) -> (Vec<String>, Vec<u8>) {
    let out = dir.join("clean.pgn");
    let rejects = dir.join("rejects.pgn");
    let output = bin()
        .arg("clean")
        .arg(input)
        .arg("-o")
        .arg(&out)
        .arg("--rejects")
        .arg(&rejects)
        .args(["-q", "--threads", "2"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let clean = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}"));
    let events = clean
        .lines()
        .filter_map(|line| line.strip_prefix("[Event \""))
        .map(|rest| rest.trim_end_matches("\"]").to_owned())
        .collect();
    let rejected = std::fs::read(&rejects).unwrap_or_else(|e| panic!("{e}"));
    (events, rejected)
}

#[test]
fn clean_keeps_every_game_but_the_one_with_a_nul_in_the_first_game() {
    let dir = tmp();
    for damaged in [FIRST, LATER] {
        let sub = dir.path().join(format!("nul-{damaged}"));
        std::fs::create_dir(&sub).unwrap_or_else(|e| panic!("{e}"));
        let input = sub.join("games.pgn");
        std::fs::write(&input, games_with_a_nul(damaged)).unwrap_or_else(|e| panic!("{e}"));
        let (events, rejected) = clean_games(&input, &sub);
        assert_eq!(events.len(), NUL_GAMES - 1, "NUL in game {damaged}");
        assert!(!events.contains(&format!("game {damaged}")));
        // The rejected game, byte for byte, NUL included.
        let expected = format!(
            "[Event \"game {damaged}\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3\0 Nc6 1/2-1/2\n\n"
        );
        assert_eq!(
            String::from_utf8_lossy(&rejected),
            expected,
            "NUL in game {damaged}"
        );
    }
}

#[test]
fn random_bytes_and_utf16_without_a_byte_order_mark_are_still_refused() {
    let dir = tmp();
    // 1 MiB of pseudo-random bytes (xorshift), NULs scattered among them.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let random: Vec<u8> = (0..1 << 20)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    // UTF-16 without its byte-order mark: a NUL every other byte.
    let utf16: Vec<u8> = String::from_utf8_lossy(&games_with_a_nul(usize::MAX))
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    for (name, bytes) in [("random.pgn", random), ("utf16.pgn", utf16)] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join(format!("out-{name}"));
        let output = bin()
            .args(["import", "-q", "--out"])
            .arg(&out)
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(output.status.code(), Some(2), "{name}: {}", stderr(&output));
        assert!(
            stderr(&output).contains("not PGN text: unknown compression or binary file"),
            "{name}: {}",
            stderr(&output)
        );
        assert!(!out.join("summary.json").exists());
    }
}

#[test]
fn utf16_with_a_nul_in_the_first_game_costs_that_game_only() {
    let dir = tmp();
    let text = String::from_utf8_lossy(&games_with_a_nul(FIRST)).into_owned();
    let path = dir.path().join("utf16.pgn");
    std::fs::write(&path, pgnlake::input::text::encode_utf16(&text, false))
        .unwrap_or_else(|e| panic!("{e}"));
    let run = import(&[path], 2);
    assert_eq!(run.summary.games_read, NUL_GAMES as u64);
    assert_eq!(run.summary.accepted, NUL_GAMES as u64 - 1);
}
