//! The Spark job for real (`spark/pgnlake_job.py`, PySpark in `local[2]`):
//! the sample and corpus files imported as shards on Spark's executors and
//! merged with Spark SQL equal a single-machine import table by table, Spark
//! reads every table without a decimal column, and Spark SQL answers every
//! portable recipe in `queries/` with the rows `pgnlake query` gives.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{import_moves_repair, python, run_oracle, shared_data, table_names};
use crate::query::{assert_same_answers, portable_statements, statements_file};

fn inputs() -> Vec<PathBuf> {
    let mut inputs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data")];
    match shared_data() {
        Some(shared) => inputs.extend(
            ["twic0920.pgn", "lichess-2025-05-sample.pgn"]
                .iter()
                .map(|name| shared.join("corpus").join(name)),
        ),
        None => {
            eprintln!("NOTICE: ../shared/data is absent; the Spark job runs on the sample only")
        }
    }
    inputs
}

/// Runs the job on `inputs` into `out`, and with it into the lake `lake`
/// as the import `spark`.
fn run_job(inputs: &[PathBuf], out: &Path, lake: &Path, shards: u32) {
    let job = Path::new(env!("CARGO_MANIFEST_DIR")).join("spark/pgnlake_job.py");
    let output = Command::new(python())
        .arg(job)
        .args([
            "--master",
            "local[2]",
            "--pgnlake",
            env!("CARGO_BIN_EXE_pgnlake"),
        ])
        // --repair: the shards read the untidy archive's games as one
        // import does.
        .args(["--moves", "--repair", "--shards", &shards.to_string()])
        // The final tables (and the shards') uncompressed, checked below.
        .args(["--compression", "none"])
        .arg("--out")
        .arg(out)
        .arg("--into")
        .arg(lake)
        .args(["--name", "spark"])
        .args(inputs)
        // Local mode on loopback: no host name to look up.
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python()));
    assert!(
        output.status.success(),
        "the Spark job failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn summary(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_spark_job_equals_a_single_import_and_answers_the_recipes() {
    let inputs = inputs();
    let single = import_moves_repair(&inputs, 2);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("spark");
    let lake = dir.path().join("lake");
    run_job(&inputs, &out, &lake, 4);

    let statements = portable_statements();
    let file = statements_file(dir.path(), &statements);
    let text = run_oracle(
        "spark_tables.py",
        &[
            single.dir.path().as_os_str(),
            out.as_os_str(),
            file.as_os_str(),
        ],
    )
    .join("\n");
    let spark: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));

    assert_eq!(
        spark["decimals"],
        serde_json::json!([]),
        "Spark reads decimals"
    );
    for table in table_names() {
        let schemas = &spark["schemas"][table];
        assert_eq!(schemas["single"], schemas["spark"], "{table}: schema");
        let rows = &spark["rows"][table];
        assert_eq!(rows["equal"], true, "{table}: {rows}");
    }
    assert!(spark["rows"]["games"]["single"].as_u64() > Some(1000) || shared_data().is_none());

    let ours = summary(&single.dir.path().join("summary.json"));
    let theirs = summary(&out.join("summary.json"));
    for field in [
        "games_read",
        "accepted",
        "rejected",
        "balanced",
        "annotations",
        "repaired",
        "repairs",
        "tables",
    ] {
        assert_eq!(theirs[field], ours[field], "summary {field}");
    }
    assert_eq!(theirs["merged_shards"], 4);
    let codecs = run_oracle("parquet_readers.py", &["codecs".as_ref(), out.as_os_str()]);
    let finals: Vec<&String> = codecs
        .iter()
        .filter(|l| !l.starts_with("_shards"))
        .collect();
    assert!(finals.len() >= table_names().count(), "{codecs:?}");
    for line in finals {
        assert!(
            line.ends_with("\tUNCOMPRESSED"),
            "--compression none: {line}"
        );
    }

    assert_same_answers("Spark SQL", single.dir.path(), &statements, &spark["sql"]);

    // The job's result, a partition of Spark's part files, reads in a lake
    // as the single import added to a lake, before and after compaction.
    let single_lake = dir.path().join("single-lake");
    let lake_cmd = |args: &[&str]| crate::common::ok(crate::common::pgnlake(args));
    let added = lake_cmd(&[
        "lake",
        &single_lake.to_string_lossy(),
        "--add",
        &single.dir.path().to_string_lossy(),
        "--name",
        "spark",
    ]);
    assert_eq!(added, "");
    assert!(
        crate::lake::lake_state(&lake).first().map(String::as_str)
            == Some(&format!("spark | {}", ours["accepted"]))
    );
    crate::lake::assert_lakes_alike(&lake, &single_lake);
    for dir in [&lake, &single_lake] {
        lake_cmd(&["lake", &dir.to_string_lossy(), "--compact"]);
    }
    crate::lake::assert_lakes_alike(&lake, &single_lake);
}
