//! The lake under faults: commit records whole or not at all (a record cut
//! between its creation and its write is no commit), a full disk at every
//! write, damaged folders refused by `lake --add`, a listed import whose
//! partition is gone stops readers and compaction, signals during
//! `--compact`, and random kill -9s of every lake command, each read after
//! them exactly the lake before or after.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{self, ok, pgnlake, text};
use crate::lake::{error, import_into, input, lake_of, lake_state, staging_left};

/// A copy of the folder `from` at `to` (files copied, not linked).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `pgnlake ARGS` with `env` set.
fn pgnlake_with(args: &[String], env: &[(&str, String)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pgnlake"));
    command.args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap_or_else(|e| panic!("pgnlake: {e}"))
}

/// Strings from `&str`s.
fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

/// After any run on `lake`: a lake command succeeds, leaves nothing in
/// `_staging/`, and the lake reads as `state`.
fn settled(lake: &Path, state: &[String], what: &str) {
    ok(pgnlake(&["lake", &text(lake)]));
    assert_eq!(staging_left(lake), Vec::<String>::new(), "{what}");
    assert_eq!(lake_state(lake), state, "{what}");
}

/// An import's folder (`import --out`) of `input_name`, with `--moves`.
fn import_folder(dir: &Path, input_name: &str) -> PathBuf {
    let folder = dir.join(format!("folder-{input_name}"));
    ok(pgnlake(&[
        "import",
        &input(input_name),
        "--out",
        &text(&folder),
        "--moves",
        "--quiet",
    ]));
    folder
}

/// The temporary files of commit records (`.COMMIT.tmp`) under `dir`.
fn record_temporaries(dir: &Path) -> Vec<PathBuf> {
    common::files_under(dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == ".COMMIT.tmp"))
        .collect()
}

#[test]
fn a_commit_record_cut_between_its_creation_and_its_write_is_no_commit() {
    let dir = tempfile::tempdir().unwrap();
    let only_a = lake_of(&dir.path().join("only-a"), &[("a", "openings.pgn")]);
    let a_and_b = lake_of(
        &dir.path().join("a-and-b"),
        &[("a", "openings.pgn"), ("b", "results.pgn")],
    );
    let before_add = lake_state(&only_a);
    let before_compact = lake_state(&a_and_b);
    // (what, the lake it starts from, its state, the command)
    let scenarios: [(&str, &Path, &Vec<String>, Vec<&str>); 3] = [
        (
            "import b",
            &only_a,
            &before_add,
            vec!["import", "results.pgn", "--name", "b"],
        ),
        (
            "replace a",
            &only_a,
            &before_add,
            vec!["import", "results.pgn", "--name", "a", "--replace"],
        ),
        ("compact", &a_and_b, &before_compact, vec!["compact"]),
    ];
    for (what, template, before, command) in scenarios {
        let mut cut = 0;
        for step in 1.. {
            let lake = dir.path().join(format!("{what}-{step}"));
            copy_tree(template, &lake);
            let args = match command[0] {
                "import" => {
                    let mut args = strings(&["import", &input(command[1]), "--into", &text(&lake)]);
                    args.extend(strings(&command[2..]));
                    args.push("--moves".into());
                    args.push("--quiet".into());
                    args
                }
                _ => strings(&["lake", &text(&lake), "--compact"]),
            };
            let output = pgnlake_with(&args, &[("PGNLAKE_LAKE_CRASH_AFTER", step.to_string())]);
            if output.status.signal().is_none() {
                assert!(output.status.success(), "{what} {step}: {output:?}");
                break;
            }
            // A record cut short by the kill: made an empty, then a
            // damaged record under its final name, as a file system
            // without atomic renames could leave it. It is no commit.
            for (i, temporary) in record_temporaries(&lake.join("_staging"))
                .into_iter()
                .enumerate()
            {
                let record = temporary.with_file_name("COMMIT");
                let content = if i % 2 == 0 { "" } else { "12-" };
                std::fs::write(&record, content).unwrap();
                std::fs::remove_file(&temporary).unwrap();
                cut += 1;
                assert_eq!(&lake_state(&lake), before, "{what}, cut record at {step}");
                settled(&lake, before, what);
            }
        }
        assert!(
            cut >= 1,
            "{what}: no step between a COMMIT's creation and its write"
        );
    }
}

#[test]
fn a_damaged_commit_record_left_by_hand_is_no_commit() {
    // The reproduction: the import killed after its first step,
    // then `: > L/_staging/b/COMMIT`.
    let dir = tempfile::tempdir().unwrap();
    let lake = lake_of(dir.path(), &[("a", "openings.pgn")]);
    let before = lake_state(&lake);
    let count = || {
        ok(pgnlake(&[
            "query",
            "--data",
            &text(&lake),
            "-e",
            "select count(*) as n from games",
        ]))
    };
    let games = count();
    for replace in [false, true] {
        let name = if replace { "a" } else { "b" };
        let mut args = strings(&[
            "import",
            &input("results.pgn"),
            "--into",
            &text(&lake),
            "--name",
            name,
            "--quiet",
        ]);
        if replace {
            args.push("--replace".into());
        }
        let output = pgnlake_with(&args, &[("PGNLAKE_LAKE_CRASH_AFTER", "1".into())]);
        assert!(output.status.signal().is_some(), "{output:?}");
        std::fs::write(lake.join("_staging").join(name).join("COMMIT"), "").unwrap();
        assert_eq!(lake_state(&lake), before, "{name}");
        settled(&lake, &before, name);
        assert_eq!(count(), games, "{name}");
    }
}

#[test]
fn a_commit_record_whose_id_was_cut_short_but_still_parses_is_no_commit() {
    // Issue 63: `COMMIT` holding `PID-NANOS` cut to a shorter id was taken
    // as a commit: every partition of the import, old and staged, deleted.
    // Cut at every step of an import and a `--replace` that has a record:
    // before a table moved it is no commit (the lake as before), after it
    // the commit is finished (the lake as after), never anything else.
    let dir = tempfile::tempdir().unwrap();
    let template = lake_of(&dir.path().join("template"), &[("a", "openings.pgn")]);
    let before = lake_state(&template);
    for (name, replace) in [("b", false), ("a", true)] {
        let args = |lake: &Path| {
            let mut args = strings(&[
                "import",
                &input("results.pgn"),
                "--into",
                &text(lake),
                "--name",
                name,
                "--quiet",
            ]);
            if replace {
                args.push("--replace".into());
            }
            args
        };
        let after_lake = dir.path().join(format!("{name}-after"));
        copy_tree(&template, &after_lake);
        ok(pgnlake_with(&args(&after_lake), &[]));
        let after = lake_state(&after_lake);
        let (mut cut_before, mut cut_after) = (0, 0);
        for step in 1.. {
            let lake = dir.path().join(format!("{name}-{step}"));
            copy_tree(&template, &lake);
            let output = pgnlake_with(
                &args(&lake),
                &[("PGNLAKE_LAKE_CRASH_AFTER", step.to_string())],
            );
            if output.status.signal().is_none() {
                assert!(output.status.success(), "{name} {step}: {output:?}");
                break;
            }
            let staging = lake.join("_staging").join(name);
            let (record, temporary) = (staging.join("COMMIT"), staging.join(".COMMIT.tmp"));
            let written = record.is_file();
            if !written && !temporary.is_file() {
                continue;
            }
            // The id the tables were staged under, and its check line;
            // cut by three digits it still reads as `PID-NANOS`.
            let sealed = std::fs::read_to_string(staging.join("_parts").join("_id")).unwrap();
            let (id, check) = sealed.split_once('\n').unwrap();
            let cut = &id[..id.len() - 3];
            for (i, content) in [cut.to_owned(), format!("{cut}\n{check}")]
                .iter()
                .enumerate()
            {
                let copy = dir.path().join(format!("{name}-{step}-{i}"));
                copy_tree(&lake, &copy);
                let staging = copy.join("_staging").join(name);
                let _ = std::fs::remove_file(staging.join(".COMMIT.tmp"));
                std::fs::write(staging.join("COMMIT"), content).unwrap();
                let expected = if written { &after } else { &before };
                assert_eq!(
                    &lake_state(&copy),
                    expected,
                    "{name} {step}: COMMIT {content:?}"
                );
                settled(&copy, expected, name);
            }
            if written {
                cut_after += 1;
            } else {
                cut_before += 1;
            }
        }
        assert!(
            cut_before >= 1 && cut_after >= 1,
            "{name}: {cut_before} {cut_after}"
        );
    }
}

/// A tmpfs of `bytes` mounted at `dir` while it lives (root only: None,
/// with a notice, where mounting is not allowed).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, bytes: u64) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}")])
            .arg("tmpfs")
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            eprintln!("notice: cannot mount a tmpfs here (not root?): full-disk test skipped");
        }
        mounted.then(|| Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Free bytes of the file system holding `dir`.
fn free_bytes(dir: &Path) -> u64 {
    let path = std::ffi::CString::new(text(dir)).unwrap();
    // SAFETY: a NUL-terminated path and a zeroed struct statvfs fills.
    unsafe {
        let mut stat: libc::statvfs = std::mem::zeroed();
        assert_eq!(libc::statvfs(path.as_ptr(), &mut stat), 0);
        stat.f_bavail as u64 * stat.f_frsize as u64
    }
}

/// Fills the file system of `dir` but for `left` bytes (a file `filler`).
fn fill(dir: &Path, left: u64) -> PathBuf {
    use std::io::Write;
    let filler = dir.join("filler");
    let mut file = std::fs::File::create(&filler).unwrap();
    let mut to_write = free_bytes(dir).saturating_sub(left);
    let block = vec![0u8; 1 << 16];
    while to_write > 0 {
        let n = to_write.min(block.len() as u64) as usize;
        if file.write_all(&block[..n]).is_err() {
            break;
        }
        to_write -= n as u64;
    }
    filler
}

#[test]
fn a_full_disk_at_any_write_of_a_commit_or_compaction_leaves_the_lake_as_it_was_or_committed() {
    let dir = tempfile::tempdir().unwrap();
    // The states to expect, from lakes on the ordinary disk.
    let a_only = lake_of(&dir.path().join("a"), &[("a", "results.pgn")]);
    let before = lake_state(&a_only);
    let with_b = lake_of(
        &dir.path().join("ab"),
        &[("a", "results.pgn"), ("b", "openings.pgn")],
    );
    let after = lake_state(&with_b);
    let Some(mount) = Tmpfs::mount(&dir.path().join("mnt"), 64 << 20) else {
        return;
    };
    let mnt = mount.0.clone();
    let folder = import_folder(&mnt, "openings.pgn");
    let template = dir.path().join("template");
    copy_tree(&a_only, &template);
    let mut failed = 0;
    // From no byte free to enough for the whole commit, a page at a time.
    for left in (0..=24u64).map(|pages| pages * 4096) {
        for command in ["add", "compact"] {
            let what = format!("{command} with {left} bytes free");
            let lake = mnt.join("lake");
            let _ = std::fs::remove_dir_all(&lake);
            match command {
                "add" => copy_tree(&template, &lake),
                _ => copy_tree(&with_b, &lake),
            }
            let filler = fill(&mnt, left);
            let args = match command {
                "add" => strings(&["lake", &text(&lake), "--add", &text(&folder), "--name", "b"]),
                _ => strings(&["lake", &text(&lake), "--compact"]),
            };
            let output = pgnlake_with(&args, &[]);
            std::fs::remove_file(&filler).unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            let expected = match (command, output.status.code()) {
                ("compact", _) => &after,
                (_, Some(0)) => &after,
                (_, Some(2)) if stderr.contains("committed, but not finished") => &after,
                (_, Some(2)) => &before,
                _ => panic!("{what}: {output:?}"),
            };
            if output.status.code() == Some(2) {
                failed += 1;
                assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
            }
            assert_eq!(&lake_state(&lake), expected, "{what}: {stderr}");
            settled(&lake, expected, &what);
            if command == "compact" && output.status.success() {
                assert!(lake.join("openings/import=_compacted").is_dir(), "{what}");
            }
        }
    }
    assert!(failed > 0, "no run found the disk full");
}

#[test]
fn lake_add_refuses_a_folder_with_a_table_missing_damaged_or_miscounted() {
    let dir = tempfile::tempdir().unwrap();
    let lake = lake_of(&dir.path().join("lake"), &[("a", "results.pgn")]);
    let before = lake_state(&lake);
    let good = import_folder(dir.path(), "openings.pgn");
    let other = import_folder(dir.path(), "edge-cases.pgn");
    type Damage = fn(&Path, &Path);
    let damages: [(&str, Damage, &str); 6] = [
        (
            "tables missing",
            |f, _| {
                std::fs::remove_file(f.join("openings.parquet")).unwrap();
                std::fs::remove_file(f.join("results.parquet")).unwrap();
            },
            "openings.parquet: missing",
        ),
        (
            "a truncated table",
            |f, _| {
                let games = f.join("games.parquet");
                let len = std::fs::metadata(&games).unwrap().len();
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&games)
                    .unwrap();
                file.set_len(len / 2).unwrap();
            },
            "games.parquet: not a Parquet file",
        ),
        (
            "a Spark layout with a part file twice",
            |f, _| {
                let parts = f.join("games");
                std::fs::create_dir(&parts).unwrap();
                std::fs::rename(f.join("games.parquet"), parts.join("part-00000.parquet")).unwrap();
                std::fs::copy(
                    parts.join("part-00000.parquet"),
                    parts.join("part-00001.parquet"),
                )
                .unwrap();
            },
            "rows, summary.json says",
        ),
        (
            "a Spark layout with an empty part file",
            |f, _| {
                let parts = f.join("games");
                std::fs::create_dir(&parts).unwrap();
                std::fs::rename(f.join("games.parquet"), parts.join("part-00000.parquet")).unwrap();
                std::fs::write(parts.join("part-00001.parquet"), "").unwrap();
            },
            "part-00001.parquet: not a Parquet file",
        ),
        (
            "another import's table",
            |f, other| {
                std::fs::copy(other.join("games.parquet"), f.join("games.parquet")).unwrap();
            },
            "rows, summary.json says",
        ),
        (
            "another table's file",
            |f, _| {
                std::fs::copy(f.join("results.parquet"), f.join("endgames.parquet")).unwrap();
            },
            "endgames.parquet: not the endgames table",
        ),
    ];
    for (i, (what, damage, expected)) in damages.into_iter().enumerate() {
        let folder = dir.path().join(format!("damaged-{i}"));
        copy_tree(&good, &folder);
        damage(&folder, &other);
        let line = error(pgnlake(&[
            "lake",
            &text(&lake),
            "--add",
            &text(&folder),
            "--name",
            "b",
        ]));
        assert!(line.contains(expected), "{what}: {line}");
        assert!(
            line.contains(&text(&folder)),
            "{what}: names the file: {line}"
        );
        assert_eq!(lake_state(&lake), before, "{what}");
        assert_eq!(staging_left(&lake), Vec::<String>::new(), "{what}");
    }
    // A folder an import is writing (its lock held) is not added.
    let lock = std::fs::File::create(good.join(".pgnlake.lock")).unwrap();
    lock.lock().unwrap();
    let busy = error(pgnlake(&[
        "lake",
        &text(&lake),
        "--add",
        &text(&good),
        "--name",
        "b",
    ]));
    assert!(busy.contains("another pgnlake run"), "{busy}");
    drop(lock);
    ok(pgnlake(&[
        "lake",
        &text(&lake),
        "--add",
        &text(&good),
        "--name",
        "b",
    ]));
    assert_ne!(lake_state(&lake), before);
}

#[test]
fn lake_add_refuses_another_imports_table_of_the_same_rows_copied_or_linked() {
    // Issue 63: a copy of (or a link to) another import's games.parquet
    // with the same row count was added: the summary and tree one
    // import's, the games another's.
    let dir = tempfile::tempdir().unwrap();
    let lake = lake_of(&dir.path().join("lake"), &[("a", "results.pgn")]);
    let before = lake_state(&lake);
    let good = import_folder(dir.path(), "openings.pgn");
    // The same games under other event names: every table the same length.
    let renamed = dir.path().join("renamed.pgn");
    let text_of = std::fs::read_to_string(common::sample("openings.pgn")).unwrap();
    std::fs::write(
        &renamed,
        text_of.replace("[Event \"Fixture: ", "[Event \"Other: "),
    )
    .unwrap();
    let twin = dir.path().join("twin");
    ok(pgnlake(&[
        "import",
        &text(&renamed),
        "--out",
        &text(&twin),
        "--moves",
        "--quiet",
    ]));
    let add =
        |folder: &Path| pgnlake(&["lake", &text(&lake), "--add", &text(folder), "--name", "b"]);
    let games = |folder: &Path| folder.join("games.parquet");
    for linked in [false, true] {
        let folder = dir.path().join(format!("mixed-{linked}"));
        copy_tree(&good, &folder);
        std::fs::remove_file(games(&folder)).unwrap();
        if linked {
            std::os::unix::fs::symlink(games(&twin), games(&folder)).unwrap();
        } else {
            std::fs::copy(games(&twin), games(&folder)).unwrap();
        }
        let line = error(add(&folder));
        assert!(
            line.contains(&text(&games(&folder)))
                && line.contains("is not the one summary.json recorded"),
            "linked {linked}: {line}"
        );
        assert_eq!(lake_state(&lake), before, "linked {linked}");
        assert_eq!(staging_left(&lake), Vec::<String>::new());
    }
    // A link to the right content is taken, and the lake keeps a file.
    let folder = dir.path().join("linked-right");
    copy_tree(&good, &folder);
    let elsewhere = dir.path().join("elsewhere.parquet");
    std::fs::rename(games(&folder), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, games(&folder)).unwrap();
    ok(add(&folder));
    let stored = lake.join("games/import=b/part-0.parquet");
    assert!(std::fs::symlink_metadata(&stored).unwrap().is_file());
    // A summary without digests (an older pgnlake's) is refused too.
    let older = dir.path().join("older");
    copy_tree(&good, &older);
    let summary_path = older.join("summary.json");
    let mut summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary_path).unwrap()).unwrap();
    summary.as_object_mut().unwrap().remove("table_digests");
    std::fs::write(&summary_path, summary.to_string()).unwrap();
    let line = error(pgnlake(&[
        "lake",
        &text(&lake),
        "--add",
        &text(&older),
        "--name",
        "c",
    ]));
    assert!(line.contains("missing field `table_digests`"), "{line}");
}

#[test]
fn a_listed_import_whose_partition_is_missing_stops_readers_and_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let lake = lake_of(dir.path(), &[("a", "openings.pgn"), ("b", "results.pgn")]);
    let lake_text = text(&lake);
    let state = lake_state(&lake);
    let games_b = lake.join("games/import=b");
    let away = dir.path().join("away");
    let readers: [&[&str]; 3] = [
        &[
            "query",
            "--data",
            &lake_text,
            "-e",
            "select count(*) from games",
        ],
        &["explore", "--data", &lake_text, "e4"],
        &["lake", &lake_text, "--compact"],
    ];
    for broken in ["missing", "a file"] {
        std::fs::rename(&games_b, &away).unwrap();
        if broken == "a file" {
            std::fs::write(&games_b, "").unwrap();
        }
        for args in readers {
            let line = error(pgnlake(args));
            assert!(
                line.contains("import=b")
                    && line.contains("missing, but import b lists its games table"),
                "{broken} {args:?}: {line}"
            );
        }
        assert!(!lake.join("_compacted").exists(), "{broken}");
        if broken == "a file" {
            std::fs::remove_file(&games_b).unwrap();
        }
        std::fs::rename(&away, &games_b).unwrap();
        assert_eq!(lake_state(&lake), state);
    }
    // The compacted partition of a compacted lake, too.
    crate::lake::compact(&lake);
    let compacted = lake.join("openings/import=_compacted");
    std::fs::rename(&compacted, &away).unwrap();
    let line = error(pgnlake(readers[1]));
    assert!(line.contains("import=_compacted"), "{line}");
    std::fs::rename(&away, &compacted).unwrap();
    assert_eq!(lake_state(&lake), state);
}

#[test]
fn a_signal_during_compaction_exits_130_and_leaves_the_lake_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let template = lake_of(
        &dir.path().join("template"),
        &[("a", "openings.pgn"), ("b", "results.pgn")],
    );
    let state = lake_state(&template);
    for (signal, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        let lake = dir.path().join(name);
        copy_tree(&template, &lake);
        // Stalled at its first step: the inputs linked, nothing summed yet.
        let child = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
            .args(["lake", &text(&lake), "--compact"])
            .env("PGNLAKE_LAKE_STALL_AT", "1")
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let work = lake.join("_staging/_compact");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !work.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(work.exists(), "{name}: the compaction never started");
        std::thread::sleep(Duration::from_millis(100));
        // SAFETY: signalling our own child.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(130), "{name}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            stderr.trim(),
            "pgnlake: interrupted by a signal: no output was written"
        );
        assert!(!work.exists(), "{name}: _staging/_compact left");
        assert!(!lake.join("_compacted").exists(), "{name}");
        settled(&lake, &state, name);
    }
}

#[test]
fn a_signal_during_the_compactions_swap_finishes_it_and_says_so() {
    // Issue 63: a signal in the folder-swap phase finished it with exit 0
    // and no word. The swap is never cut (a lake is never torn): it
    // finishes, exit 0, and one line says the signal came too late.
    let dir = tempfile::tempdir().unwrap();
    let template = lake_of(
        &dir.path().join("template"),
        &[("a", "openings.pgn"), ("b", "results.pgn")],
    );
    let state = lake_state(&template);
    let mut signalled = false;
    for step in 2..40 {
        let lake = dir.path().join(format!("step-{step}"));
        copy_tree(&template, &lake);
        let mut child = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
            .args(["lake", &text(&lake), "--compact"])
            .env("PGNLAKE_LAKE_STALL_AT", step.to_string())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let journal = lake.join("_staging/_layout");
        while !journal.exists() && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(5));
        }
        // Stalled inside the swap (not before it): still there later.
        std::thread::sleep(Duration::from_millis(400));
        if child.try_wait().unwrap().is_some() || !journal.exists() {
            let _ = child.wait();
            continue;
        }
        // SAFETY: signalling our own child.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "step {step}: {stderr}");
        assert!(
            stderr.contains("a signal came during the commit, which is never cut"),
            "step {step}: {stderr}"
        );
        assert!(lake.join("openings/import=_compacted").is_dir());
        settled(&lake, &state, "signalled swap");
        signalled = true;
        break;
    }
    assert!(signalled, "no step of the swap was found");
}

#[test]
fn random_kills_of_every_lake_command_leave_the_lake_before_or_after() {
    let (mut random, seed) = common::Random::seeded("random kills", 0x5eed_1a4e_u64);
    let dir = tempfile::tempdir().unwrap();
    let only_a = lake_of(&dir.path().join("only-a"), &[("a", "openings.pgn")]);
    let a_and_b = lake_of(
        &dir.path().join("a-and-b"),
        &[("a", "openings.pgn"), ("b", "results.pgn")],
    );
    let a_replaced = lake_of(&dir.path().join("replaced"), &[("a", "results.pgn")]);
    let compacted = dir.path().join("compacted");
    copy_tree(&a_and_b, &compacted);
    crate::lake::compact(&compacted);
    let folder = import_folder(dir.path(), "results.pgn");
    let shards: Vec<String> = (1..=2)
        .map(|k| {
            let shard = dir.path().join(format!("shard-{k}"));
            ok(pgnlake(&[
                "import",
                &input("results.pgn"),
                "--out",
                &text(&shard),
                "--shard",
                &format!("{k}/2"),
                "--moves",
                "--quiet",
            ]));
            text(&shard)
        })
        .collect();
    let (s_only_a, s_a_and_b, s_replaced) = (
        lake_state(&only_a),
        lake_state(&a_and_b),
        lake_state(&a_replaced),
    );
    let s_a_and_m = {
        let mut state = s_a_and_b.clone();
        for line in state.iter_mut().filter(|l| l.starts_with("b | ")) {
            *line = line.replacen("b | ", "m | ", 1);
        }
        state
    };
    // (what, template, before, after, the command with LAKE for the lake)
    type Run<'a> = (
        &'a str,
        &'a Path,
        &'a Vec<String>,
        &'a Vec<String>,
        Vec<String>,
    );
    let commands: [Run; 7] = [
        (
            "import b",
            &only_a,
            &s_only_a,
            &s_a_and_b,
            strings(&[
                "import",
                &input("results.pgn"),
                "--into",
                "LAKE",
                "--name",
                "b",
                "--moves",
                "--quiet",
            ]),
        ),
        (
            "replace a",
            &only_a,
            &s_only_a,
            &s_replaced,
            strings(&[
                "import",
                &input("results.pgn"),
                "--into",
                "LAKE",
                "--name",
                "a",
                "--replace",
                "--moves",
                "--quiet",
            ]),
        ),
        (
            "add b",
            &only_a,
            &s_only_a,
            &s_a_and_b,
            strings(&["lake", "LAKE", "--add", &text(&folder), "--name", "b"]),
        ),
        (
            "remove b",
            &a_and_b,
            &s_a_and_b,
            &s_only_a,
            strings(&["lake", "LAKE", "--remove", "b"]),
        ),
        (
            "remove compacted b",
            &compacted,
            &s_a_and_b,
            &s_only_a,
            strings(&["lake", "LAKE", "--remove", "b"]),
        ),
        (
            "compact",
            &a_and_b,
            &s_a_and_b,
            &s_a_and_b,
            strings(&["lake", "LAKE", "--compact"]),
        ),
        (
            "merge m",
            &only_a,
            &s_only_a,
            &s_a_and_m,
            [
                strings(&["merge"]),
                shards.clone(),
                strings(&["--into", "LAKE", "--name", "m", "--quiet"]),
            ]
            .concat(),
        ),
    ];
    let mut kills = 0;
    for (what, template, before, after, command) in &commands {
        let mut kills_here = 0;
        let on = |lake: &Path| -> Vec<String> {
            command
                .iter()
                .map(|a| if a == "LAKE" { text(lake) } else { a.clone() })
                .collect()
        };
        // How long the command takes whole: the kills fall within it.
        let lake = dir.path().join(format!("{what}-whole"));
        copy_tree(template, &lake);
        let started = Instant::now();
        ok(pgnlake_with(&on(&lake), &[]));
        let whole = started.elapsed().as_micros() as u64;
        assert_eq!(&lake_state(&lake), *after, "{what}");
        // At least 15 kills of each command (some runs end first).
        for round in 0..60 {
            if kills_here >= 15 {
                break;
            }
            let lake = dir.path().join(format!("{what}-{round}"));
            copy_tree(template, &lake);
            // Within the first three quarters: most land before the end.
            let delay = Duration::from_micros(random.below(whole * 3 / 4));
            let mut child = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
                .args(on(&lake))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(delay);
            let _ = child.kill();
            let status = child.wait().unwrap();
            let killed = status.signal() == Some(libc::SIGKILL);
            kills += usize::from(killed);
            kills_here += usize::from(killed);
            let seen = lake_state(&lake);
            let context = format!("{what}, killed after {delay:?} (round {round}, seed {seed})");
            if killed {
                assert!(&seen == *before || &seen == *after, "{context}: {seen:#?}");
            } else {
                assert!(status.success(), "{context}: {status:?}");
                assert_eq!(&seen, *after, "{context}");
            }
            settled(&lake, &seen, &context);
            let _ = std::fs::remove_dir_all(&lake);
        }
    }
    eprintln!("random kills: {kills} kills landed, each read before or after");
    assert!(kills >= 100, "only {kills} kills landed");
}

#[test]
fn a_lake_and_an_import_folder_are_not_taken_for_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let lake = lake_of(dir.path(), &[("a", "openings.pgn")]);
    let folder = import_folder(dir.path(), "results.pgn");
    let out_into_lake = error(pgnlake(&[
        "import",
        &input("results.pgn"),
        "--out",
        &text(&lake),
        "--quiet",
    ]));
    assert!(out_into_lake.contains("a lake"), "{out_into_lake}");
    let into_folder = error(import_into(&folder, "openings.pgn", &["--name", "x"]));
    assert!(into_folder.contains("an import's folder"), "{into_folder}");
    assert!(!folder.join("_imports").exists());
    let add_into_folder = error(pgnlake(&[
        "lake",
        &text(&folder),
        "--add",
        &text(&import_folder(&dir.path().join("other"), "openings.pgn")),
        "--name",
        "x",
    ]));
    assert!(
        add_into_folder.contains("an import's folder"),
        "{add_into_folder}"
    );
}

#[test]
fn merge_refuses_shards_of_other_inputs_or_other_unwinnable_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let shard = |name: &str, input_name: &str, k: u32, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = strings(&[
            "import",
            &input(input_name),
            "--out",
            &text(&out),
            "--shard",
            &format!("{k}/2"),
            "--quiet",
        ]);
        args.extend(strings(extra));
        ok(pgnlake_with(&args, &[]));
        text(&out)
    };
    let first = shard("first", "results.pgn", 1, &[]);
    let other_input = shard("other-input", "openings.pgn", 2, &[]);
    let other_nodes = shard(
        "other-nodes",
        "results.pgn",
        2,
        &["--unwinnable-nodes", "7"],
    );
    let merged = text(&dir.path().join("merged"));
    let inputs = error(pgnlake(&["merge", &first, &other_input, "--out", &merged]));
    assert!(
        inputs.contains("not a shard of the same inputs"),
        "{inputs}"
    );
    let nodes = error(pgnlake(&["merge", &first, &other_nodes, "--out", &merged]));
    assert!(nodes.contains("--unwinnable-nodes 7"), "{nodes}");
}

#[test]
fn a_compaction_counts_its_imports_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let lake = lake_of(dir.path(), &[("a", "openings.pgn")]);
    let output = pgnlake(&["lake", &text(&lake), "--compact"]);
    ok(output.clone());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.starts_with("pgnlake: 1 import compacted, 1 import in all"),
        "{said}"
    );
}

#[test]
fn a_read_only_lake_is_listed_as_every_reader_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mount) = Tmpfs::mount(&dir.path().join("mnt"), 64 << 20) else {
        return;
    };
    let lake = lake_of(&mount.0, &[("a", "openings.pgn")]);
    let remounted = Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&mount.0)
        .status()
        .is_ok_and(|s| s.success());
    assert!(remounted, "remount read-only");
    let listing = ok(pgnlake(&["lake", &text(&lake)]));
    assert!(
        listing.lines().nth(1).is_some_and(|l| l.starts_with("a\t")),
        "{listing}"
    );
    ok(pgnlake(&[
        "query",
        "--data",
        &text(&lake),
        "-e",
        "select count(*) from games",
    ]));
    // Writers name the read-only file system (issue 63: they said the
    // lake was "being written by another run").
    let folder = import_folder(dir.path(), "results.pgn");
    let shard = dir.path().join("shard");
    ok(pgnlake(&[
        "import",
        &input("results.pgn"),
        "--out",
        &text(&shard),
        "--quiet",
    ]));
    let lake_text = text(&lake);
    for args in [
        vec!["lake", &lake_text, "--compact"],
        vec![
            "import",
            &input("results.pgn"),
            "--into",
            &lake_text,
            "--name",
            "b",
        ],
        vec!["lake", &lake_text, "--add", &text(&folder), "--name", "b"],
        vec!["merge", &text(&shard), "--into", &lake_text, "--name", "b"],
    ]
    .iter()
    .map(|args| {
        args.iter()
            .map(|s| (*s).to_owned())
            .collect::<Vec<String>>()
    }) {
        let line = error(pgnlake_with(&args, &[]));
        assert!(
            line.contains("Read-only file system") && !line.contains("another run"),
            "{}: {line}",
            args[..2].join(" ")
        );
    }
}

#[test]
fn a_summary_whose_counts_do_not_add_up_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let lake = lake_of(dir.path(), &[("a", "openings.pgn")]);
    let summary = lake.join("_imports/a.json");
    let original = std::fs::read_to_string(&summary).unwrap();
    let edits: [(&str, serde_json::Value); 3] = [
        ("games_read", 999.into()),
        ("accepted", 0.into()),
        ("rejected", 7.into()),
    ];
    for (field, value) in edits {
        let mut edited: serde_json::Value = serde_json::from_str(&original).unwrap();
        edited[field] = value;
        std::fs::write(&summary, edited.to_string()).unwrap();
        for args in [
            vec!["lake".to_owned(), text(&lake)],
            strings(&[
                "query",
                "--data",
                &text(&lake),
                "-e",
                "select count(*) as n from games",
            ]),
            strings(&[
                "report",
                "--data",
                &text(&lake),
                "-o",
                &text(&dir.path().join("r.html")),
            ]),
        ] {
            let line = error(pgnlake_with(&args, &[]));
            assert!(
                line.contains("a.json") && line.contains("does not add up"),
                "{field} {args:?}: {line}"
            );
        }
    }
    std::fs::write(&summary, original).unwrap();
    ok(pgnlake(&["lake", &text(&lake)]));
}

#[test]
fn a_damaged_partition_is_named_as_the_lake_file_when_compaction_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let lake = lake_of(dir.path(), &[("a", "openings.pgn"), ("b", "results.pgn")]);
    let part = lake.join("results/import=b/part-0.parquet");
    let len = std::fs::metadata(&part).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&part)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let line = error(pgnlake(&["lake", &text(&lake), "--compact"]));
    assert!(
        line.starts_with(&format!("pgnlake: {}: ", text(&part))),
        "{line}"
    );
    assert!(!lake.join("_compacted").exists());
    assert_eq!(staging_left(&lake), Vec::<String>::new());
}
