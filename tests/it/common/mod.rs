//! Helpers shared by the integration tests: run an import into a temporary
//! folder and read its tables back with polars.

pub mod games;

use std::fs::File;
use std::path::{Path, PathBuf};

use pgnlake::import::{DEFAULT_MEMORY_LIMIT, DEFAULT_OPENING_PLIES, ImportOptions, run_import};
use pgnlake::sink::summary::Summary;
use polars::prelude::*;

/// Every table an import writes (`moves` with `--moves`: [`import_moves`]),
/// as the schema declares them.
pub fn table_names() -> impl Iterator<Item = &'static str> {
    pgnlake::sink::schema::TABLES.into_iter().map(|t| t.name)
}

pub fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-data")
        .join(name)
}

/// `../shared/data` beside the project, when present.
pub fn shared_data() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    dir.is_dir().then_some(dir)
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
        opening_min_games: 1,
        memory_limit,
        piece_values: Default::default(),
        shard: None,
        moves: false,
        unwinnable_nodes: pgnlake::replay::dead::DEFAULT_NODES,
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
