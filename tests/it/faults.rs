//! Faults: interrupts, truncated inputs, outputs that cannot be written,
//! concurrent runs and adversarial sizes. Each ends in a clear outcome (an
//! exit code and one line naming the place) and loses no game: every game
//! read is counted, and no table is left half-written under its final name.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{listing, sample};
use serde_json::Value;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pgnlake"))
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

fn path_str(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn read_summary(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("summary.json"))
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `pgnlake import - --out OUT -q`, with stdin piped.
fn import_from_stdin(out: &Path) -> Child {
    bin()
        .args(["import", "-", "--out", &path_str(out), "-q"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([format!("-{name}"), child.id().to_string()])
        .status()
        .unwrap_or_else(|e| panic!("kill: {e}"));
    assert!(status.success());
}

/// Waits for `child` and returns its output and how long the wait took.
fn wait_timed(child: Child) -> (Output, Duration) {
    let started = Instant::now();
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    (output, started.elapsed())
}

/// Feeds the lichess sample to `stdin` over and over until the pipe closes.
fn feed_forever(mut stdin: ChildStdin) -> std::thread::JoinHandle<()> {
    let games = std::fs::read(sample("lichess-2025-05-30games.pgn")).unwrap_or_default();
    std::thread::spawn(move || while stdin.write_all(&games).is_ok() {})
}

// ---------------------------------------------------------------- interrupt

fn assert_interrupted(output: &Output, took: Duration, out: &Path) {
    assert_eq!(output.status.code(), Some(130), "{}", stderr(output));
    assert!(
        stderr(output).ends_with("pgnlake: interrupted by a signal: no output was written\n"),
        "{}",
        stderr(output)
    );
    assert!(took < Duration::from_secs(1), "stopped after {took:?}");
    // No table, summary, temporary file, spill folder or lock: the folder
    // the run made is gone (issue 63: it stayed, with its lock file).
    assert!(
        !out.exists(),
        "{}: {:?}",
        out.display(),
        out.read_dir().map(|d| d.count())
    );
}

#[test]
fn sigint_and_sigterm_stop_an_import_within_a_second_and_leave_no_table() {
    for name in ["INT", "TERM"] {
        let dir = tmp();
        let out = dir.path().join("out");
        let mut child = import_from_stdin(&out);
        let feeder = child.stdin.take().map(feed_forever);
        std::thread::sleep(Duration::from_millis(800));
        signal(&child, name);
        let (output, took) = wait_timed(child);
        assert_interrupted(&output, took, &out);
        if let Some(feeder) = feeder {
            let _ = feeder.join();
        }
    }
}

#[test]
fn an_import_blocked_on_a_stalled_pipe_still_stops_within_a_second() {
    let dir = tmp();
    let out = dir.path().join("out");
    let mut child = import_from_stdin(&out);
    // Some games, then silence with the pipe held open: the reader blocks.
    let mut stdin = child.stdin.take();
    let games = std::fs::read(sample("lichess-2025-05-30games.pgn")).unwrap_or_default();
    if let Some(stdin) = stdin.as_mut() {
        stdin.write_all(&games).unwrap_or_else(|e| panic!("{e}"));
    }
    std::thread::sleep(Duration::from_millis(500));
    signal(&child, "INT");
    let (output, took) = wait_timed(child);
    assert_interrupted(&output, took, &out);
    drop(stdin);
}

#[test]
fn sigterm_stops_clean_and_leaves_no_output() {
    let dir = tmp();
    let clean = dir.path().join("clean.pgn");
    let mut child = bin()
        .args(["clean", "-", "-o", &path_str(&clean), "-q"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let feeder = child.stdin.take().map(feed_forever);
    std::thread::sleep(Duration::from_millis(800));
    signal(&child, "TERM");
    let (output, took) = wait_timed(child);
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(took < Duration::from_secs(1), "stopped after {took:?}");
    assert_eq!(listing(dir.path()), [".clean.pgn.lock"]);
    if let Some(feeder) = feeder {
        let _ = feeder.join();
    }
}

// ---------------------------------------------------------------- truncated

/// Imports `input` and checks the truncation outcome: exit 1, one line
/// naming the file and the byte offset, the games before the cut in the
/// tables, and balanced counts. Returns the summary.
fn assert_truncated_import(input: &Path) -> Value {
    let dir = tmp();
    let out = dir.path().join("out");
    let output = bin()
        .args(["import", &path_str(input), "--out", &path_str(&out), "-q"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let summary = read_summary(&out);
    let cut = &summary["inputs"][0]["truncated"];
    let offset = cut["offset"].as_u64().unwrap_or_default();
    assert_eq!(
        Some(offset),
        summary["inputs"][0]["uncompressed_bytes"].as_u64()
    );
    let games = summary["games_read"].as_u64().unwrap_or_default();
    assert_eq!(
        stderr(&output),
        format!(
            "pgnlake: {}: truncated at byte {offset} ({}); {games} games read up to the cut are counted\n",
            path_str(input),
            cut["cause"].as_str().unwrap_or_default()
        )
    );
    assert!(games >= 10, "{summary}");
    assert_eq!(summary["balanced"], true);
    assert_eq!(summary["truncated_inputs"], 1);
    assert_eq!(
        summary["tables"]["games.parquet"].as_u64(),
        summary["accepted"].as_u64()
    );
    summary
}

fn lichess_sample() -> Vec<u8> {
    std::fs::read(sample("lichess-2025-05-30games.pgn")).unwrap_or_default()
}

#[test]
fn a_zst_cut_in_the_middle_keeps_the_games_before_the_cut() {
    let dir = tmp();
    // One frame per 4 KiB, as a big archive has many blocks: those before
    // the cut decode.
    let zst: Vec<u8> = lichess_sample()
        .chunks(4096)
        .flat_map(|chunk| zstd::encode_all(chunk, 3).unwrap_or_default())
        .collect();
    let input = dir.path().join("cut.pgn.zst");
    std::fs::write(&input, zst.get(..zst.len() / 2).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    let summary = assert_truncated_import(&input);
    assert_eq!(
        summary["inputs"][0]["truncated"]["cause"],
        "incomplete frame"
    );
}

#[test]
fn a_gz_cut_in_the_middle_keeps_the_games_before_the_cut() {
    let dir = tmp();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder
        .write_all(&lichess_sample())
        .unwrap_or_else(|e| panic!("{e}"));
    let gz = encoder.finish().unwrap_or_default();
    let input = dir.path().join("cut.pgn.gz");
    std::fs::write(&input, gz.get(..gz.len() / 2).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_truncated_import(&input);
}

#[test]
fn a_plain_file_cut_inside_a_game_rejects_that_game_as_truncated() {
    let dir = tmp();
    let plain = lichess_sample();
    // Cut inside the movetext of a game, mid-token.
    let cut = plain
        .windows(8)
        .rposition(|w| w == b" 10. Nf3")
        .map_or(plain.len() / 2, |at| at + 6);
    let input = dir.path().join("cut.pgn");
    std::fs::write(&input, plain.get(..cut).unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
    let summary = assert_truncated_import(&input);
    assert_eq!(summary["rejected_by_reason"]["truncated_input"], 1);
    assert_eq!(
        summary["inputs"][0]["truncated"]["cause"],
        "the input ends inside a game"
    );
    // A complete file without its final newline is not truncated.
    let whole = dir.path().join("whole.pgn");
    std::fs::write(&whole, plain.trim_ascii_end()).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out-whole");
    let output = bin()
        .args(["import", &path_str(&whole), "--out", &path_str(&out), "-q"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read_summary(&out)["truncated_inputs"], 0);
}

// ---------------------------------------------------------------- outputs

/// Runs `pgnlake ARGS` with SIGXFSZ ignored and files limited to `kib` KiB,
/// as on a full disk: writes past the limit fail with EFBIG.
fn with_file_size_limit(kib: u64, args: &[String]) -> Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!(
        "trap '' XFSZ; ulimit -f {kib}; exec '{}' {}",
        env!("CARGO_BIN_EXE_pgnlake"),
        quoted.join(" ")
    );
    Command::new("bash")
        .args(["-c", &script])
        .output()
        .unwrap_or_else(|e| panic!("bash: {e}"))
}

fn twic_or_sample() -> PathBuf {
    common::shared_data()
        .map(|d| d.join("corpus/twic0920.pgn"))
        .unwrap_or_else(|| sample("lichess-2025-05-30games.pgn"))
}

#[test]
fn a_full_disk_is_exit_2_naming_the_path_with_no_half_table() {
    let dir = tmp();
    let out = dir.path().join("out");
    let output = with_file_size_limit(
        16,
        &[
            "import".into(),
            path_str(&twic_or_sample()),
            "--out".into(),
            path_str(&out),
            "-q".into(),
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    // polars reports EFBIG in its own words ("File too large", or "Invalid
    // thrift: transport error" when the footer is what fails).
    assert!(
        message.starts_with(&format!("pgnlake: {}/", path_str(&out)))
            && message.contains(".parquet: cannot write: "),
        "{message}"
    );
    // The folder the run made is gone with its half-written tables.
    assert!(!out.exists(), "{}", out.display());

    let clean = dir.path().join("clean.pgn");
    let output = with_file_size_limit(
        16,
        &[
            "clean".into(),
            path_str(&twic_or_sample()),
            "-o".into(),
            path_str(&clean),
            "-q".into(),
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        format!(
            "pgnlake: {}: cannot write: File too large (os error 27)\n",
            path_str(&clean)
        )
    );
    assert!(!clean.exists());
    assert!(!dir.path().join(".clean.pgn.tmp").exists());
}

#[test]
fn a_full_disk_during_an_import_into_a_lake_leaves_the_lake_as_it_was() {
    let dir = tmp();
    let lake = dir.path().join("lake");
    let lake_text = path_str(&lake);
    let first = bin()
        .args([
            "import",
            &path_str(&sample("openings.pgn")),
            "--into",
            &lake_text,
            "--name",
            "a",
            "-q",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(first.status.success(), "{}", stderr(&first));
    let games = || {
        let output = bin()
            .args(["query", "--data", &lake_text, "--format", "csv", "-e"])
            .arg("SELECT import, COUNT(*) AS n FROM games GROUP BY import ORDER BY import")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let before = games();
    assert_eq!(before, "import,n\na,6\n");
    let output = with_file_size_limit(
        16,
        &[
            "import".into(),
            path_str(&twic_or_sample()),
            "--into".into(),
            lake_text.clone(),
            "--name".into(),
            "b".into(),
            "-q".into(),
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("_staging/b/"), "{message}");
    // Readers see the lake as it was; the next lake command clears the rest.
    assert_eq!(games(), before);
    assert_eq!(listing(&lake.join("_imports")), ["a.json"]);
    lake_command_clears_staging(&lake);
    assert!(!lake.join("games/import=b").exists());
}

/// The next lake command clears what a failed run left in `_staging/`.
fn lake_command_clears_staging(lake: &Path) {
    let listed = bin()
        .args(["lake", &path_str(lake)])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(listed.status.success(), "{}", stderr(&listed));
    assert_eq!(crate::lake::staging_left(lake), Vec::<String>::new());
}

#[test]
fn a_full_disk_during_a_compaction_leaves_the_lake_as_it_was() {
    let dir = tmp();
    let lake = dir.path().join("lake");
    let lake_text = path_str(&lake);
    for (name, input) in [("a", sample("openings.pgn")), ("b", twic_or_sample())] {
        let output = bin()
            .args(["import", &path_str(&input), "--into", &lake_text])
            .args(["--name", name, "-q"])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let before = crate::lake::lake_state(&lake);
    let output = with_file_size_limit(16, &["lake".into(), lake_text.clone(), "--compact".into()]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("_staging/_compact/"), "{message}");
    // Readers see the lake as it was; the next lake command clears the rest.
    assert_eq!(crate::lake::lake_state(&lake), before);
    assert_eq!(listing(&lake.join("openings")), ["import=a", "import=b"]);
    lake_command_clears_staging(&lake);
}

#[test]
fn an_output_that_cannot_be_created_is_exit_2_naming_it() {
    // The session may run as root, for whom a read-only folder is writable:
    // /proc refuses everyone.
    let out = "/proc/pgnlake-cannot-be-here";
    let output = bin()
        .args(["import", &path_str(&sample("openings.pgn")), "--out", out])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!(
            "pgnlake: {out}: cannot create output folder: No such file or directory (os error 2)\n"
        )
    );
}

// ---------------------------------------------------------------- concurrency

#[test]
fn a_second_run_on_the_same_output_refuses_and_the_first_completes() {
    let dir = tmp();
    let out = dir.path().join("out");
    let mut first = import_from_stdin(&out);
    let mut stdin = first.stdin.take();
    let games = lichess_sample();
    if let Some(stdin) = stdin.as_mut() {
        stdin.write_all(&games).unwrap_or_else(|e| panic!("{e}"));
    }
    // The first run holds the lock while it waits for more input.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !out.join(".pgnlake.lock").exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let second = bin()
        .args([
            "import",
            &path_str(&sample("openings.pgn")),
            "--out",
            &path_str(&out),
            "-q",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(second.status.code(), Some(2));
    assert_eq!(
        stderr(&second),
        format!(
            "pgnlake: {0}: another pgnlake run is writing here (it holds {0}/.pgnlake.lock); \
             wait for it to end or choose another output\n",
            path_str(&out)
        )
    );
    drop(stdin);
    let (output, _) = wait_timed(first);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read_summary(&out)["accepted"], 30);
}

// ---------------------------------------------------------------- sizes

/// Peak memory allowed to any adversarial input, as stated in the README.
const MEMORY_BOUND: u64 = 256 << 20;

/// Imports what `write` produces on stdin; returns the exit code, the
/// summary and the output folder.
fn import_generated(
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()> + Send + 'static,
) -> (Option<i32>, Value, tempfile::TempDir) {
    let dir = tmp();
    let out = dir.path().join("out");
    let mut child = import_from_stdin(&out);
    let stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(stdin) = stdin {
            let mut buffered = std::io::BufWriter::with_capacity(1 << 20, stdin);
            let _ = write(&mut buffered).and_then(|()| buffered.flush());
        }
    });
    let (output, _) = wait_timed(child);
    let _ = writer.join();
    let summary = read_summary(&out);
    assert_eq!(summary["balanced"], true, "{summary}");
    let peak = summary["peak_rss_bytes"].as_u64().unwrap_or_default();
    assert!(peak > 0 && peak < MEMORY_BOUND, "peak RSS {peak}");
    (output.status.code(), summary, dir)
}

#[test]
fn a_1_gb_comment_is_cut_into_oversized_rejects_in_bounded_memory() {
    let (code, summary, _dir) = import_generated(|w| {
        w.write_all(b"[Event \"huge comment\"]\n\n1. e4 { ")?;
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..1024 {
            w.write_all(&chunk)?;
        }
        w.write_all(b" } e5 1-0\n")
    });
    assert_eq!(code, Some(0));
    // 1 GiB and the 16 bytes before the comment in 32 MiB pieces (cut at
    // exactly 32 MiB, whatever the read sizes), then a last piece of 16
    // bytes of comment text and ` } e5 1-0`.
    assert_eq!(summary["rejected_by_reason"]["oversized_game"], 32);
    assert_eq!(summary["rejected_by_reason"]["unknown_token"], 1);
    assert_eq!(summary["games_read"], 33);
}

#[test]
fn a_200_000_ply_game_replays_in_bounded_memory() {
    let (code, summary, dir) = import_generated(|w| {
        w.write_all(b"[Event \"long\"]\n\n")?;
        let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
        for ply in 0..200_000usize {
            if ply % 2 == 0 {
                write!(w, "{}. ", ply / 2 + 1)?;
            }
            write!(w, "{} ", cycle[ply % 4])?;
            if ply % 16 == 15 {
                w.write_all(b"\n")?;
            }
        }
        w.write_all(b"1/2-1/2\n")
    });
    assert_eq!(code, Some(0));
    assert_eq!(summary["accepted"], 1);
    let games = common::read_table(&dir.path().join("out/games.parquet"));
    assert_eq!(common::u32_at(&games, "plies", 0), Some(200_000));
    assert_eq!(
        common::str_at(&games, "end_state", 0).as_deref(),
        Some("fivefold_repetition")
    );
    // Fivefold repetition comes first, at ply 16 (the start position's
    // fifth occurrence), long before the 75-move rule.
    assert_eq!(common::u32_at(&games, "automatic_end_ply", 0), Some(16));
}

fn nested_variations(w: &mut dyn Write) -> std::io::Result<()> {
    w.write_all(b"[Event \"nested\"]\n\n1. e4 ")?;
    for _ in 0..100_000 {
        w.write_all(b"(1. d4 ")?;
    }
    for _ in 0..100_000 {
        w.write_all(b")")?;
    }
    w.write_all(b" e5 1-0\n")
}

#[test]
fn a_hundred_thousand_nested_variations_do_not_overflow_the_stack() {
    let (code, summary, _dir) = import_generated(nested_variations);
    assert_eq!(code, Some(0));
    assert_eq!(summary["accepted"], 1);
    // clean builds and writes variations (recursively): this was a stack
    // overflow before variations deeper than 64 were dropped.
    let dir = tmp();
    let clean = dir.path().join("clean.pgn");
    let mut child = bin()
        .args(["clean", "-", "-o", &path_str(&clean), "-q"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(mut stdin) = child.stdin.take() {
        nested_variations(&mut stdin).unwrap_or_else(|e| panic!("{e}"));
    }
    let (output, _) = wait_timed(child);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = std::fs::read_to_string(&clean).unwrap_or_default();
    assert_eq!(text.matches('(').count(), 64);
    assert!(
        text.trim_end().ends_with(") 1... e5 1-0"),
        "{}",
        &text[text.len().saturating_sub(80)..]
    );
}

#[test]
fn a_10_mb_tag_value_is_a_malformed_tag_in_bounded_memory() {
    let (code, summary, _dir) = import_generated(|w| {
        w.write_all(b"[Event \"")?;
        w.write_all(&vec![b'x'; 10 << 20])?;
        w.write_all(b"\"]\n\n1. e4 e5 1-0\n")
    });
    assert_eq!(code, Some(0));
    assert_eq!(summary["rejected_by_reason"]["malformed_tag"], 1);
    assert_eq!(summary["games_read"], 1);
}

#[test]
fn a_zst_bomb_expanding_20000_times_streams_in_bounded_memory() {
    // One 50-byte frame of 1 MiB of spaces, 1024 times: 1 GiB from 50 KiB.
    let frame = zstd::encode_all(&vec![b' '; 1 << 20][..], 19).unwrap_or_default();
    let bomb: Vec<u8> = (0..1024).flat_map(|_| frame.iter().copied()).collect();
    assert!(bomb.len() * 1000 < 1 << 30, "{}", bomb.len());
    let (code, summary, _dir) = import_generated(move |w| w.write_all(&bomb));
    assert_eq!(code, Some(0));
    assert_eq!(summary["games_read"], 0);
    assert_eq!(summary["inputs"][0]["uncompressed_bytes"], 1u64 << 30);
}

#[test]
fn random_binary_is_refused_as_not_text() {
    let dir = tmp();
    let out = dir.path().join("out");
    let mut child = import_from_stdin(&out);
    let stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        let Some(mut stdin) = stdin else { return };
        // xorshift: deterministic bytes without a dependency.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut block = vec![0u8; 1 << 20];
        for _ in 0..16 {
            for byte in block.iter_mut() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *byte = (state >> 24) as u8;
            }
            // pgnlake stops reading after the first 64 KiB: a closed
            // pipe ends the feed.
            if stdin.write_all(&block).is_err() {
                return;
            }
        }
    });
    let (output, _) = wait_timed(child);
    let _ = writer.join();
    // Refused after 64 KiB instead of read as thousands of garbage games.
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(
        stderr(&output).trim_end(),
        "pgnlake: -: not PGN text: unknown compression or binary file"
    );
    assert!(!out.join("summary.json").exists());
    assert!(!out.join("games.parquet").exists());
}

#[test]
fn a_million_empty_lines_are_no_game() {
    let (code, summary, _dir) = import_generated(|w| w.write_all(&vec![b'\n'; 1_000_000]));
    assert_eq!(code, Some(0));
    assert_eq!(summary["games_read"], 0);
    assert_eq!(summary["inputs"][0]["uncompressed_bytes"], 1_000_000);
}
