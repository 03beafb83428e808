//! Every command that writes, under faults at random moments: kill -9,
//! SIGINT or SIGTERM, and a full disk (a file-size limit). Each output
//! afterwards is exactly its old bytes or its new ones; an import's folder
//! is its old import or its new one, or (after a kill -9 inside the
//! commit) has no summary, which every reader refuses, naming it; a
//! folder the run made is gone unless the run finished; and but for kill
//! -9, no temporary file is left. The lake's commands have their own
//! (`lake_faults.rs`).

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{self, ok, pgnlake, sample, text};

/// The files under `dir` (relative names, hidden ones too), with their
/// bytes; a summary with its timings and peak memory left out.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for path in crate::common::files_under(dir) {
        let name = path
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let bytes = match name.ends_with("summary.json") {
            true => normalised_summary(&bytes),
            false => bytes,
        };
        files.insert(name, bytes);
    }
    files
}

fn normalised_summary(bytes: &[u8]) -> Vec<u8> {
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return bytes.to_vec();
    };
    if let Some(map) = value.as_object_mut() {
        for field in ["elapsed_seconds", "games_per_second", "peak_rss_bytes"] {
            map.remove(field);
        }
    }
    serde_json::to_vec(&value).unwrap()
}

/// Puts `files` back under `dir` (emptied first).
fn restore(dir: &Path, files: &BTreeMap<String, Vec<u8>>, raw: &BTreeMap<String, Vec<u8>>) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    for name in files.keys() {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &raw[name]).unwrap();
    }
}

/// The raw bytes of the files under `dir`.
fn raw(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    crate::common::files_under(dir)
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Is `name` a run's temporary or lock file (not an output)?
fn is_scratch(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    file.starts_with('.')
}

enum Fault {
    Kill,
    Signal(&'static str),
    /// Files limited to this many KiB.
    FullDisk(u64),
}

/// One command that writes into `round/`, its old and new outputs.
struct Case {
    what: &'static str,
    /// The command that writes the old outputs, and the one under test.
    old: Vec<String>,
    new: Vec<String>,
    /// Its output is a folder it makes (no old outputs).
    makes_folder: bool,
}

#[test]
fn faults_at_random_moments_leave_every_output_old_or_new() {
    let (mut random, seed) = common::Random::seeded("write faults", 0x0075_7470_7574_u64);
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("fixtures");
    let round = dir.path().join("round");
    let (old_pgn, new_pgn) = (
        text(&sample("openings.pgn")),
        text(&sample("lichess-2025-05-30games.pgn")),
    );
    let data = |name: &str, input: &str| {
        let folder = fixtures.join(name);
        ok(pgnlake(&["import", input, "--out", &text(&folder), "-q"]));
        text(&folder)
    };
    let (old_data, new_data) = (data("old", &old_pgn), data("new", &new_pgn));
    let shards: Vec<String> = (1..=2)
        .map(|k| {
            let shard = fixtures.join(format!("shard-{k}"));
            let part = format!("{k}/2");
            ok(pgnlake(&[
                "import",
                &new_pgn,
                "--out",
                &text(&shard),
                "--shard",
                &part,
                "-q",
            ]));
            text(&shard)
        })
        .collect();
    let copy = fixtures.join("copy.pgn");
    std::fs::copy(sample("openings.pgn"), &copy).unwrap();
    let out = text(&round.join("out"));
    let file = |name: &str| text(&round.join(name));
    let strings = |args: &[&str]| args.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let clean = |inputs: &[&str]| {
        let mut args = strings(&["clean"]);
        args.extend(strings(inputs));
        args.extend(strings(&[
            "--dedupe",
            "exact",
            "-o",
            &file("clean.pgn"),
            "--rejects",
            &file("rejects.pgn"),
            "--duplicates",
            &file("duplicates.pgn"),
            "--report",
            &file("report.parquet"),
            "-q",
        ]));
        args
    };
    let edge = text(&sample("edge-cases.pgn"));
    let cases = [
        Case {
            what: "import over an import",
            old: strings(&["import", &old_pgn, "--out", &out, "-q"]),
            new: strings(&["import", &new_pgn, "--out", &out, "-q"]),
            makes_folder: false,
        },
        Case {
            what: "import into a new folder",
            old: Vec::new(),
            new: strings(&["import", &new_pgn, "--out", &out, "-q"]),
            makes_folder: true,
        },
        Case {
            what: "merge over an import",
            old: strings(&["import", &old_pgn, "--out", &out, "-q"]),
            new: [
                strings(&["merge"]),
                shards.clone(),
                strings(&["--out", &out, "-q"]),
            ]
            .concat(),
            makes_folder: false,
        },
        Case {
            what: "clean",
            old: clean(&[&old_pgn]),
            new: clean(&[&edge, &new_pgn, &old_pgn, &text(&copy)]),
            makes_folder: false,
        },
        Case {
            what: "export",
            old: strings(&[
                "export",
                "--data",
                &old_data,
                "-e",
                "SELECT game_id FROM games",
                "-o",
                &file("e.pgn"),
                "-q",
            ]),
            new: strings(&[
                "export",
                "--data",
                &new_data,
                "-e",
                "SELECT game_id FROM games",
                "-o",
                &file("e.pgn"),
                "-q",
            ]),
            makes_folder: false,
        },
        Case {
            what: "query",
            old: strings(&[
                "query",
                "--data",
                &old_data,
                "-e",
                "SELECT * FROM games ORDER BY game_id",
                "-o",
                &file("q.parquet"),
            ]),
            new: strings(&[
                "query",
                "--data",
                &new_data,
                "-e",
                "SELECT * FROM games ORDER BY game_id",
                "-o",
                &file("q.parquet"),
            ]),
            makes_folder: false,
        },
        Case {
            what: "report",
            old: strings(&["report", "--data", &old_data, "-o", &file("r.html")]),
            new: strings(&["report", "--data", &new_data, "-o", &file("r.html")]),
            makes_folder: false,
        },
    ];
    let mut landed = BTreeMap::<&str, usize>::new();
    for case in &cases {
        // The old state, and the new one with the time the run takes.
        let _ = std::fs::remove_dir_all(&round);
        std::fs::create_dir_all(&round).unwrap();
        if !case.old.is_empty() {
            ok(pgnlake(
                &case.old.iter().map(String::as_str).collect::<Vec<_>>(),
            ));
        }
        let (old, old_raw) = (snapshot(&round), raw(&round));
        let started = Instant::now();
        ok(pgnlake(
            &case.new.iter().map(String::as_str).collect::<Vec<_>>(),
        ));
        let whole = started.elapsed().as_micros() as u64;
        let new = snapshot(&round);
        let biggest = new.values().map(|b| b.len() as u64).max().unwrap_or(0);
        for n in 0..18u64 {
            restore(&round, &old, &old_raw);
            if case.makes_folder {
                let _ = std::fs::remove_dir_all(&round);
            }
            let fault = match n % 3 {
                0 => Fault::Kill,
                1 => Fault::Signal(if random.below(2) == 0 { "INT" } else { "TERM" }),
                _ => Fault::FullDisk(random.below(biggest / 1024 + 2)),
            };
            let limit = match fault {
                Fault::FullDisk(kib) => kib.to_string(),
                _ => "unlimited".to_owned(),
            };
            let quoted: Vec<String> = case.new.iter().map(|a| format!("'{a}'")).collect();
            let script = format!(
                "trap '' XFSZ; ulimit -f {limit}; exec '{}' {}",
                env!("CARGO_BIN_EXE_pgnlake"),
                quoted.join(" ")
            );
            let mut child = Command::new("bash")
                .args(["-c", &script])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let delay = Duration::from_micros(random.below(whole + whole / 4));
            match fault {
                Fault::Kill => {
                    std::thread::sleep(delay);
                    let _ = child.kill();
                }
                Fault::Signal(name) => {
                    std::thread::sleep(delay);
                    let _ = Command::new("kill")
                        .args([format!("-{name}"), child.id().to_string()])
                        .stderr(Stdio::null())
                        .status();
                }
                Fault::FullDisk(_) => {}
            }
            let output = child.wait_with_output().unwrap();
            let status = output.status;
            let stderr = String::from_utf8_lossy(&output.stderr);
            let context = format!(
                "{} round {n} ({}, after {delay:?}, seed {seed}): {status:?} {stderr}",
                case.what,
                match fault {
                    Fault::Kill => "kill -9".to_owned(),
                    Fault::Signal(name) => format!("SIG{name}"),
                    Fault::FullDisk(kib) => format!("files limited to {kib} KiB"),
                }
            );
            let killed = status.signal() == Some(libc::SIGKILL);
            match fault {
                Fault::Kill => assert!(killed || status.success(), "{context}"),
                Fault::Signal(_) => assert!(
                    matches!(status.code(), Some(0 | 130)) || status.signal().is_some(),
                    "{context}"
                ),
                Fault::FullDisk(_) => assert!(matches!(status.code(), Some(0 | 2)), "{context}"),
            }
            if !status.success() {
                *landed.entry(case.what).or_default() += 1;
            }
            let seen = snapshot(&round);
            if case.makes_folder && !status.success() && !killed {
                assert!(
                    !round.join("out").exists(),
                    "{context}: the folder it made is left"
                );
                continue;
            }
            check_old_or_new(&seen, &old, &new, killed, &context);
            let tables_left = seen
                .keys()
                .any(|n| n.starts_with("out/") && n.ends_with(".parquet") && !is_scratch(n));
            if killed && tables_left && !round.join("out/summary.json").exists() {
                // Cut inside its commit: no reader takes it for an import.
                let refused = pgnlake(&["query", "--data", &out, "-e", "SELECT 1 AS one"]);
                let line = String::from_utf8_lossy(&refused.stderr);
                assert!(
                    refused.status.code() == Some(2) && line.contains("not a finished import"),
                    "{context}: {line}"
                );
            }
        }
    }
    eprintln!("write faults: runs cut short per command: {landed:?}");
    for case in &cases {
        assert!(
            landed.get(case.what).copied().unwrap_or(0) >= 4,
            "{}: {landed:?}",
            case.what
        );
    }
}

/// Each output in `seen` is its old or its new bytes; an import's folder
/// is all old or all new when it has a summary; nothing else is there but
/// (after a kill) the run's hidden temporaries.
fn check_old_or_new(
    seen: &BTreeMap<String, Vec<u8>>,
    old: &BTreeMap<String, Vec<u8>>,
    new: &BTreeMap<String, Vec<u8>>,
    killed: bool,
    context: &str,
) {
    for (name, bytes) in seen {
        if is_scratch(name) {
            let lock = name.ends_with(".lock");
            assert!(lock || killed, "{context}: {name} left");
            continue;
        }
        let is_old = old.get(name) == Some(bytes);
        let is_new = new.get(name) == Some(bytes);
        assert!(is_old || is_new, "{context}: {name} is neither old nor new");
    }
    let outputs = |files: &BTreeMap<String, Vec<u8>>| -> Vec<String> {
        files.keys().filter(|n| !is_scratch(n)).cloned().collect()
    };
    let names = outputs(seen);
    let Some(summary) = seen.get("out/summary.json") else {
        // No import's summary: only after a kill inside the commit, or
        // the files are each old or new (checked above).
        if old.contains_key("out/summary.json") {
            assert!(killed, "{context}: the summary is gone");
        }
        return;
    };
    // An import's folder with a summary is wholly one or the other.
    let state = if Some(summary) == new.get("out/summary.json") {
        new
    } else {
        old
    };
    let expected: Vec<String> = outputs(state)
        .into_iter()
        .filter(|n| n.starts_with("out/"))
        .collect();
    let found: Vec<String> = names
        .into_iter()
        .filter(|n| n.starts_with("out/"))
        .collect();
    assert_eq!(found, expected, "{context}: the folder's files");
    for name in &found {
        assert_eq!(
            seen.get(name),
            state.get(name),
            "{context}: {name} of the other run"
        );
    }
}
