//! Every output path of the commands that write a file (`-o` of `export`,
//! `clean`, `query`, `report`; `clean`'s `--rejects`, `--duplicates` and
//! `--report`), onto what is not a plain new file: a character device (a
//! `/dev/full` and a `/dev/null` made with `mknod`), a fifo and a chain of
//! symbolic links. A device or fifo is written into and stays what it is
//! (a full one is exit 2 naming the path); a link stays a link and the file
//! it ends at gets the output. A run that fails on one output leaves the
//! others as they were.

use std::os::unix::fs::{FileTypeExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{ok, pgnlake, sample, text};

/// The four writers' arguments with `-o OUT`, over the import in `tables`.
fn commands(tables: &Path, out: &Path) -> Vec<(&'static str, Vec<String>)> {
    let (tables_dir, out_path) = (tables, out);
    let (tables, out) = (text(tables), text(out));
    let input = text(&sample("openings.pgn"));
    let strings = |args: &[&str]| args.iter().map(|s| (*s).to_owned()).collect();
    vec![
        (
            "export",
            strings(&[
                "export",
                "--data",
                &tables,
                "-e",
                "SELECT game_id FROM games",
                "-o",
                &out,
                "-q",
            ]),
        ),
        ("clean", strings(&["clean", &input, "-o", &out, "-q"])),
        (
            "query",
            strings(&[
                "query",
                "--data",
                &tables,
                "-e",
                "SELECT game_id, white, black FROM games ORDER BY game_id",
                "--format",
                "csv",
                "-o",
                &out,
            ]),
        ),
        (
            "report",
            strings(&["report", "--data", &tables, "-o", &out]),
        ),
        clean_side("--rejects", tables_dir, out_path),
        clean_side("--duplicates", tables_dir, out_path),
        clean_side("--report", tables_dir, out_path),
    ]
}

/// `clean` with `OPTION OUT`: its own `-o` goes to a file beside the
/// tables; the games have rejects and duplicates (`--dedupe exact` over
/// two copies of one file).
fn clean_side(option: &'static str, tables: &Path, out: &Path) -> (&'static str, Vec<String>) {
    let main = tables.with_file_name(format!("clean-main{option}.pgn"));
    let copy = tables.with_file_name("openings-copy.pgn");
    if !copy.exists() {
        std::fs::copy(sample("openings.pgn"), &copy).unwrap();
    }
    let args = [
        "clean",
        &text(&sample("edge-cases.pgn")),
        &text(&sample("openings.pgn")),
        &text(&copy),
        "--dedupe",
        "exact",
        "-o",
        &text(&main),
        option,
        &text(out),
        "-q",
    ];
    let name = match option {
        "--rejects" => "clean --rejects",
        "--duplicates" => "clean --duplicates",
        _ => "clean --report",
    };
    (name, args.iter().map(|s| (*s).to_owned()).collect())
}

fn run(args: &[String]) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    pgnlake(&args)
}

/// A folder with the import of `openings.pgn` in `tables/`, and what each
/// command writes to a plain new file.
fn setup() -> (tempfile::TempDir, PathBuf, Vec<(&'static str, Vec<u8>)>) {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let input = text(&sample("openings.pgn"));
    ok(pgnlake(&["import", &input, "--out", &text(&tables), "-q"]));
    let mut expected = Vec::new();
    for (name, _) in commands(&tables, dir.path()) {
        let out = dir.path().join(format!("plain-{name}"));
        let (_, args) = commands(&tables, &out)
            .into_iter()
            .find(|(n, _)| *n == name)
            .unwrap();
        ok(run(&args));
        let bytes = std::fs::read(&out).unwrap();
        assert!(!bytes.is_empty(), "{name}");
        expected.push((name, bytes));
    }
    (dir, tables, expected)
}

/// `mknod PATH c MAJOR MINOR`, or `false` (with a notice) where not
/// permitted.
fn mknod(path: &Path, major: &str, minor: &str) -> bool {
    let made = Command::new("mknod")
        .args([
            path.as_os_str(),
            "c".as_ref(),
            major.as_ref(),
            minor.as_ref(),
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !made {
        eprintln!(
            "NOTICE: mknod is not permitted here; the device case of -o is skipped ({})",
            path.display()
        );
    }
    made
}

fn is_char_device(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

/// No `.NAME.tmp` (or other file) left in `dir` beyond `keep`.
fn only(dir: &Path, keep: &[&str]) {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut keep: Vec<String> = keep.iter().map(|s| (*s).to_owned()).collect();
    keep.sort();
    assert_eq!(names, keep, "{}", dir.display());
}

#[test]
fn a_full_device_as_output_is_exit_2_naming_it_and_stays_a_device() {
    let (dir, tables, _) = setup();
    let devices = dir.path().join("dev");
    std::fs::create_dir(&devices).unwrap();
    let full = devices.join("full");
    if !mknod(&full, "1", "7") {
        return;
    }
    for (name, args) in commands(&tables, &full) {
        let output = run(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {output:?}");
        let line = stderr.lines().last().unwrap_or_default();
        assert!(
            line.contains(&text(&full)) && line.contains("No space left on device"),
            "{name}: {stderr}"
        );
        assert!(
            is_char_device(&full),
            "{name}: {} was replaced",
            full.display()
        );
        only(&devices, &["full"]);
    }
    // One output refused, the others stay as they were: a clean whose
    // `--rejects` is the full device leaves its `-o` file's old bytes.
    let old = dir.path().join("old.pgn");
    std::fs::write(&old, "old bytes").unwrap();
    for option in ["--rejects", "--duplicates", "--report"] {
        let (_, mut args) = clean_side(option, &tables, &full);
        let at = args.iter().position(|a| a == "-o").unwrap();
        args[at + 1] = text(&old);
        let output = run(&args);
        assert_eq!(output.status.code(), Some(2), "{option}: {output:?}");
        assert_eq!(
            std::fs::read_to_string(&old).unwrap(),
            "old bytes",
            "{option}"
        );
        assert!(is_char_device(&full), "{option}");
        only(&devices, &["full"]);
    }
    let temporaries: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(temporaries.is_empty(), "{temporaries:?}");
}

#[test]
fn a_null_device_as_output_is_written_into_and_stays_a_device() {
    let (dir, tables, _) = setup();
    let devices = dir.path().join("dev");
    std::fs::create_dir(&devices).unwrap();
    let null = devices.join("null");
    if !mknod(&null, "1", "3") {
        return;
    }
    for (name, args) in commands(&tables, &null) {
        let output = run(&args);
        assert_eq!(output.status.code(), Some(0), "{name}: {output:?}");
        assert!(
            is_char_device(&null),
            "{name}: {} was replaced",
            null.display()
        );
        only(&devices, &["null"]);
    }
}

#[test]
fn a_fifo_as_output_gets_the_bytes_a_file_would_and_stays_a_fifo() {
    let (dir, tables, expected) = setup();
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for (name, args) in commands(&tables, &fifo) {
        let (send, receive) = mpsc::channel();
        let reader = fifo.clone();
        std::thread::spawn(move || {
            let _ = send.send(std::fs::read(&reader).map_err(|e| e.to_string()));
        });
        let output = run(&args);
        assert_eq!(output.status.code(), Some(0), "{name}: {output:?}");
        let read = receive
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{name}: nothing was written into the fifo"))
            .unwrap();
        let want = &expected.iter().find(|(n, _)| *n == name).unwrap().1;
        assert!(
            read == *want,
            "{name}: the fifo got other bytes than a file"
        );
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{name}: the fifo was replaced");
    }
}

#[test]
fn a_symlink_as_output_stays_a_link_and_its_target_gets_the_output() {
    let (dir, tables, expected) = setup();
    let links = dir.path().join("links");
    let files = dir.path().join("files");
    std::fs::create_dir_all(&links).unwrap();
    std::fs::create_dir_all(&files).unwrap();
    for (name, args) in commands(&tables, &links.join("out")) {
        let want = &expected.iter().find(|(n, _)| *n == name).unwrap().1;
        let target = files.join(format!("{name}.out"));
        // out → middle (relative) → ../files/NAME.out: first absent, then
        // there with other bytes.
        let (out, middle) = (links.join("out"), links.join("middle"));
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(&middle);
        symlink("middle", &out).unwrap();
        symlink(Path::new("../files").join(format!("{name}.out")), &middle).unwrap();
        for round in ["absent", "present"] {
            if round == "present" {
                std::fs::write(&target, b"old bytes").unwrap();
            }
            let output = run(&args);
            assert_eq!(output.status.code(), Some(0), "{name} {round}: {output:?}");
            for link in [&out, &middle] {
                let kind = std::fs::symlink_metadata(link).unwrap().file_type();
                assert!(
                    kind.is_symlink(),
                    "{name} {round}: {} replaced",
                    link.display()
                );
            }
            let written = std::fs::read(&target).unwrap();
            assert!(
                written == *want,
                "{name} {round}: the target got other bytes"
            );
            only(&links, &["middle", "out"]);
        }
        std::fs::remove_file(&target).unwrap();
    }
}
