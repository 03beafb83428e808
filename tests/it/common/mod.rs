//! Helpers shared by the integration tests: run an import into a temporary
//! folder and read its tables back with polars.

pub mod app;
pub mod games;
pub mod server;
pub mod tree;

use std::fs::File;
use std::path::{Path, PathBuf};

use pgnlake::import::{DEFAULT_MEMORY_LIMIT, DEFAULT_OPENING_PLIES, ImportOptions, run_import};
use pgnlake::sink::summary::Summary;
use pgnlake::stats::dimensions::OpeningPeriod;
use polars::prelude::*;

/// Every table an import writes (`moves` with `--moves`: [`import_moves`]),
/// as the schema declares them.
pub fn table_names() -> impl Iterator<Item = &'static str> {
    pgnlake::sink::schema::TABLES.into_iter().map(|t| t.name)
}

/// `file` of two outputs is not empty and the same byte for byte.
pub fn assert_same_bytes(a: &Path, b: &Path, file: &str, what: &str) {
    let (a, b) = (
        std::fs::read(a.join(file)).unwrap_or_default(),
        std::fs::read(b.join(file)).unwrap_or_default(),
    );
    assert!(!a.is_empty(), "{file} is empty");
    assert!(a == b, "{file} differs between {what}");
}

pub fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-data")
        .join(name)
}

/// `../shared/data` beside the project, when present (for a test that
/// reads the corpus when it is there and runs without it too).
pub fn shared_data() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    dir.is_dir().then_some(dir)
}

/// `../shared/data`, for a corpus test: the suite's one way for a test
/// that cannot run without it. Such a test carries
/// `#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]`
/// (`build.rs` sets the cfg when the corpus is absent), so that it is
/// reported as ignored with that reason; run anyway (`--ignored`), it
/// fails saying why, and never passes without having run.
pub fn corpus_data() -> PathBuf {
    shared_data().unwrap_or_else(|| {
        panic!(
            "../shared/data is absent: this corpus test needs it \
             (it is ignored when the build finds no corpus)"
        )
    })
}

pub struct Imported {
    pub dir: tempfile::TempDir,
    pub summary: Summary,
}

impl Imported {
    pub fn table(&self, name: &str) -> DataFrame {
        read_table(&self.dir.path().join(format!("{name}.parquet")))
    }
}

pub fn import(inputs: &[PathBuf], threads: usize) -> Imported {
    import_with(inputs, threads, DEFAULT_OPENING_PLIES, DEFAULT_MEMORY_LIMIT)
}

/// An import with `--moves`: every table of [`TABLES`].
pub fn import_moves(inputs: &[PathBuf], threads: usize) -> Imported {
    import_with_moves(inputs, threads, DEFAULT_OPENING_PLIES, DEFAULT_MEMORY_LIMIT)
}

/// [`import_with`], and `--moves`.
pub fn import_with_moves(
    inputs: &[PathBuf],
    threads: usize,
    opening_plies: usize,
    memory_limit: u64,
) -> Imported {
    run(ImportOptions {
        moves: true,
        ..options(inputs, threads, opening_plies, memory_limit)
    })
}

/// [`import`] with `--repair`.
pub fn import_repair(inputs: &[PathBuf], threads: usize) -> Imported {
    run(ImportOptions {
        repair: true,
        ..options(inputs, threads, DEFAULT_OPENING_PLIES, DEFAULT_MEMORY_LIMIT)
    })
}

/// [`import`] with `--moves` and `--repair`.
pub fn import_moves_repair(inputs: &[PathBuf], threads: usize) -> Imported {
    run(ImportOptions {
        moves: true,
        repair: true,
        ..options(inputs, threads, DEFAULT_OPENING_PLIES, DEFAULT_MEMORY_LIMIT)
    })
}

/// [`import`] with `--unwinnable-nodes N`.
pub fn import_unwinnable_nodes(inputs: &[PathBuf], nodes: u64) -> Imported {
    run(ImportOptions {
        unwinnable_nodes: nodes,
        ..options(inputs, 1, DEFAULT_OPENING_PLIES, DEFAULT_MEMORY_LIMIT)
    })
}

pub fn import_with(
    inputs: &[PathBuf],
    threads: usize,
    opening_plies: usize,
    memory_limit: u64,
) -> Imported {
    run(options(inputs, threads, opening_plies, memory_limit))
}

/// The import options the helpers start from, into a new temporary folder
/// (set as `out` by [`run`]).
fn options(
    inputs: &[PathBuf],
    threads: usize,
    opening_plies: usize,
    memory_limit: u64,
) -> ImportOptions {
    ImportOptions {
        inputs: inputs.to_vec(),
        out: PathBuf::new(),
        threads,
        quiet: true,
        strict: false,
        opening_plies,
        opening_period: Default::default(),
        opening_min_games: 1,
        memory_limit,
        piece_values: Default::default(),
        shard: None,
        moves: false,
        unwinnable_nodes: pgnlake::replay::dead::DEFAULT_NODES,
        repair: false,
        compression: Default::default(),
    }
}

fn run(options: ImportOptions) -> Imported {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let options = ImportOptions {
        out: dir.path().to_path_buf(),
        ..options
    };
    let summary = run_import(&options).unwrap_or_else(|e| panic!("import failed: {e}"));
    Imported { dir, summary }
}

pub fn read_table(path: &Path) -> DataFrame {
    let file = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    ParquetReader::new(file)
        .finish()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The one row whose `event` column equals `event`, as a one-row frame.
pub fn row_by_event(frame: &DataFrame, event: &str) -> DataFrame {
    let mask = frame
        .column("event")
        .and_then(|c| c.str().cloned())
        .map(|c| c.equal(event))
        .unwrap_or_else(|e| panic!("event column: {e}"));
    let rows = frame
        .filter(&mask)
        .unwrap_or_else(|e| panic!("filter: {e}"));
    assert_eq!(rows.height(), 1, "expected one row for event {event:?}");
    rows
}

pub fn str_at(frame: &DataFrame, column: &str, row: usize) -> Option<String> {
    frame
        .column(column)
        .and_then(|c| c.str().map(|s| s.get(row).map(str::to_owned)))
        .unwrap_or_else(|e| panic!("{column}: {e}"))
}

/// A count or ordinal (stored as i32) read as u32.
pub fn u32_at(frame: &DataFrame, column: &str, row: usize) -> Option<u32> {
    frame
        .column(column)
        .and_then(|c| c.i32().map(|s| s.get(row)))
        .unwrap_or_else(|e| panic!("{column}: {e}"))
        .and_then(|n| u32::try_from(n).ok())
}

/// A count or ordinal (stored as i64) read as u64.
pub fn u64_at(frame: &DataFrame, column: &str, row: usize) -> Option<u64> {
    i64_at(frame, column, row).and_then(|n| u64::try_from(n).ok())
}

pub fn i32_at(frame: &DataFrame, column: &str, row: usize) -> Option<i32> {
    frame
        .column(column)
        .and_then(|c| c.i32().map(|s| s.get(row)))
        .unwrap_or_else(|e| panic!("{column}: {e}"))
}

pub fn bool_at(frame: &DataFrame, column: &str, row: usize) -> Option<bool> {
    frame
        .column(column)
        .and_then(|c| c.bool().map(|s| s.get(row)))
        .unwrap_or_else(|e| panic!("{column}: {e}"))
}

/// Distinct values of a string column.
pub fn distinct(frame: &DataFrame, column: &str) -> std::collections::BTreeSet<String> {
    frame
        .column(column)
        .and_then(|c| {
            c.str().map(|s| {
                (0..s.len())
                    .filter_map(|i| s.get(i))
                    .map(str::to_owned)
                    .collect()
            })
        })
        .unwrap_or_else(|e| panic!("{column}: {e}"))
}

pub fn f64_at(frame: &DataFrame, column: &str, row: usize) -> Option<f64> {
    frame
        .column(column)
        .and_then(|c| c.f64().map(|s| s.get(row)))
        .unwrap_or_else(|e| panic!("{column}: {e}"))
}

/// A date column's cells as `YYYY-MM-DD`.
pub fn dates(frame: &DataFrame, column: &str) -> Vec<Option<String>> {
    frame
        .column(column)
        .and_then(|c| c.cast(&DataType::String))
        .and_then(|c| {
            c.str()
                .map(|s| (0..s.len()).map(|i| s.get(i).map(str::to_owned)).collect())
        })
        .unwrap_or_else(|e| panic!("{column}: {e}"))
}

pub fn i64_at(frame: &DataFrame, column: &str, row: usize) -> Option<i64> {
    frame
        .column(column)
        .and_then(|c| c.i64().map(|s| s.get(row)))
        .unwrap_or_else(|e| panic!("{column}: {e}"))
}

/// The Python that runs the oracles: `PGNLAKE_PYTHON` (set by
/// `scripts/test` to its virtual environment) or `python3`, checked once for
/// the packages of `requirements-test.txt`; without them a test fails with
/// one line naming the command that installs them.
pub fn python() -> &'static str {
    static PYTHON: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    let checked = PYTHON.get_or_init(|| {
        let python = std::env::var("PGNLAKE_PYTHON").unwrap_or_else(|_| "python3".into());
        let imports = std::process::Command::new(&python)
            .args(["-c", "import chess, duckdb, pyarrow, pyspark"])
            .output();
        match imports {
            Ok(output) if output.status.success() => Ok(python),
            _ => Err(format!(
                "{python} lacks python-chess, DuckDB, pyarrow or PySpark: run scripts/test \
                 (or: {python} -m pip install -r requirements-test.txt)"
            )),
        }
    });
    match checked {
        Ok(python) => python,
        Err(message) => panic!("{message}"),
    }
}

/// Runs `tests/oracle/SCRIPT` with [`python`] and returns its output lines.
pub fn run_oracle(script: &str, args: &[&std::ffi::OsStr]) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/oracle")
        .join(script);
    let output = std::process::Command::new(python())
        .arg(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python()));
    assert!(
        output.status.success(),
        "the oracle {script} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Every row of a table as `a | b | …`, nulls as `-`, in file order.
pub fn rows(frame: &DataFrame) -> Vec<String> {
    (0..frame.height())
        .map(|i| {
            frame
                .columns()
                .iter()
                .map(|c| match c.get(i) {
                    Ok(AnyValue::Null) | Err(_) => "-".to_owned(),
                    Ok(AnyValue::String(s)) => s.to_owned(),
                    Ok(AnyValue::StringOwned(s)) => s.to_string(),
                    Ok(v) => v.to_string(),
                })
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect()
}

/// The names in `dir` (hidden ones too), sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The recipes of `queries/` (`NAME.sql`), sorted.
pub fn recipes() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("queries");
    listing(&dir)
        .into_iter()
        .filter(|n| n.ends_with(".sql"))
        .collect()
}

/// Plain `clean` options: `inputs` into `output`, nothing else asked.
pub fn clean_options(inputs: Vec<PathBuf>, output: &Path) -> pgnlake::clean::CleanOptions {
    pgnlake::clean::CleanOptions {
        inputs,
        output: output.to_path_buf(),
        rejects: None,
        threads: 2,
        quiet: true,
        fix_results: false,
        report: None,
        repair: false,
        salvage: false,
        dedupe: pgnlake::clean::dedupe::DedupeMode::None,
        duplicates: None,
        memory_limit: 1 << 30,
        enrich: pgnlake::clean::enrich::Enrich::default(),
        split_by: None,
    }
}

/// Every file under `dir`, recursively, sorted by path.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The counts and rating sums `openings` and `opening_lines` share.
const RATED_COUNTS: [&str; 9] = [
    "games",
    "white_wins",
    "draws",
    "black_wins",
    "unfinished",
    "white_elo_sum",
    "white_elo_count",
    "black_elo_sum",
    "black_elo_count",
];

/// The opening tree summed over its dimensions (time class, rating band,
/// month): one line per (position, move) with the sums, minima and maxima,
/// in (position_key, move_uci) order, as the number of lines and an FNV-1a
/// 64 digest of them. Its values for the tree before the dimensions
/// (pgnlake c0b3e60, which had one row per (position, move)) were computed
/// from those tables with the same lines.
pub fn summed_tree_digest(tree: &DataFrame, games: &DataFrame) -> (usize, String) {
    type Sums = ([u64; 9], Option<i32>, Option<i32>, u32, String, String, i64);
    // Rows of one game carry no text: every row spelled from its game.
    let spelled = tree::spell_tree(tree, games);
    let mut summed: std::collections::BTreeMap<(i64, String), Sums> = Default::default();
    for (i, spelled) in spelled.iter().enumerate() {
        let key = (
            i64_at(tree, "position_key", i).unwrap_or_default(),
            str_at(tree, "move_uci", i).unwrap_or_default(),
        );
        let row = summed.entry(key).or_insert_with(|| {
            (
                [0; 9],
                None,
                None,
                u32::MAX,
                spelled.epd.clone(),
                spelled.san.clone(),
                spelled.next_position_key,
            )
        });
        for (sum, column) in row.0.iter_mut().zip(RATED_COUNTS) {
            *sum += u64_at(tree, column, i).unwrap_or_default();
        }
        let (first, last) = (i32_at(tree, "first_year", i), i32_at(tree, "last_year", i));
        row.1 = match (row.1, first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        row.2 = row.2.max(last);
        row.3 = row.3.min(u32_at(tree, "ply", i).unwrap_or(u32::MAX));
    }
    // The digest is the one of the build before rows named their games,
    // when `ply` was the position's earliest over all its moves: the least
    // over a position's rows gives it.
    let mut earliest: std::collections::BTreeMap<i64, u32> = Default::default();
    for ((position, _), row) in &summed {
        let ply = earliest.entry(*position).or_insert(u32::MAX);
        *ply = (*ply).min(row.3);
    }
    for ((position, _), row) in summed.iter_mut() {
        row.3 = earliest[position];
    }
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let text = |v: Option<i32>| v.map_or("-".to_owned(), |v| v.to_string());
    for ((position, uci), (sums, first, last, ply, epd, san, next)) in &summed {
        let sums: Vec<String> = sums.iter().map(u64::to_string).collect();
        let line = format!(
            "{position}\t{uci}\t{}\t{}\t{}\t{ply}\t{epd}\t{san}\t{next}\n",
            sums.join("\t"),
            text(*first),
            text(*last),
        );
        for byte in line.bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    (summed.len(), format!("{hash:016x}"))
}

/// [`import`] with `--opening-period`.
pub fn import_period(inputs: &[PathBuf], period: OpeningPeriod) -> Imported {
    run(ImportOptions {
        opening_period: period,
        ..options(inputs, 2, DEFAULT_OPENING_PLIES, DEFAULT_MEMORY_LIMIT)
    })
}

/// `opening_lines` summed over its dimensions: one line per (eco, name)
/// with the sums, in that order, as the number of lines and an FNV-1a 64
/// digest of them (as [`summed_tree_digest`], for the table before them).
pub fn summed_lines_digest(lines: &DataFrame) -> (usize, String) {
    let columns = RATED_COUNTS
        .iter()
        .chain(&["plies_sum", "elo_diff_sum", "elo_diff_count"]);
    let mut summed: std::collections::BTreeMap<(String, String), [i64; 12]> = Default::default();
    for i in 0..lines.height() {
        let key = (
            str_at(lines, "eco", i).unwrap_or_default(),
            str_at(lines, "opening_name", i).unwrap_or_default(),
        );
        let sums = summed.entry(key).or_insert([0; 12]);
        for (sum, column) in sums.iter_mut().zip(columns.clone()) {
            *sum += i64_at(lines, column, i).unwrap_or_default();
        }
    }
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for ((eco, name), sums) in &summed {
        let sums: Vec<String> = sums.iter().map(i64::to_string).collect();
        for byte in format!("{eco}\t{name}\t{}\n", sums.join("\t")).bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    (summed.len(), format!("{hash:016x}"))
}

/// `pgnlake ARGS` as a user runs it, its exit, stdout and stderr: from the
/// checkout (so that `sample-data/…` and `queries/…` resolve, and the
/// paths the tables record do not depend on where the clone is), and
/// without `RUST_BACKTRACE`, which asks for Rust's own report of a panic
/// beside pgnlake's one line. The one way the tests run the binary.
pub fn pgnlake(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap_or_else(|e| panic!("cannot run pgnlake: {e}"))
}

/// The stdout of a run that must have succeeded (else its exit and stderr).
pub fn ok(output: std::process::Output) -> String {
    stdout_of(&output)
}

/// A path as a command-line argument.
pub fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The stdout of a run that must have succeeded (else its exit and stderr).
pub fn stdout_of(output: &std::process::Output) -> String {
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The one-line error of a failed run, checked to exit 2.
pub fn usage_error(output: &std::process::Output) -> String {
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr.trim_end().to_owned()
}

/// A small deterministic generator (xorshift64*) for the random moments of
/// the fault tests, seeded by `PGNLAKE_TEST_SEED` or `default`; the seed is
/// said on stderr, so that a failure can be run again.
pub struct Random(u64);

impl Random {
    pub fn seeded(what: &str, default: u64) -> (Random, u64) {
        let seed = std::env::var("PGNLAKE_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default);
        eprintln!("{what}: seed {seed} (PGNLAKE_TEST_SEED)");
        (Random(seed), seed)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}
