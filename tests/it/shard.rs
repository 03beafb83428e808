//! `import --shard K/N` and `merge`: every game in exactly one shard, and
//! the merged shards equal to one import of the same inputs, table by table
//! (schema and rows in order), on the sample and on the corpus.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use pgnlake::import::{
    DEFAULT_MEMORY_LIMIT, DEFAULT_OPENING_PLIES, ImportOptions, MergeOptions, run_import, run_merge,
};
use pgnlake::input::shard::Shard;

use crate::common::{self, read_table, sample, table_names};

fn options(inputs: &[PathBuf], out: &Path, shard: Option<Shard>, min_games: u32) -> ImportOptions {
    ImportOptions {
        inputs: inputs.to_vec(),
        out: out.to_path_buf(),
        threads: 2,
        quiet: true,
        strict: false,
        opening_plies: DEFAULT_OPENING_PLIES,
        opening_period: Default::default(),
        opening_min_games: min_games,
        memory_limit: DEFAULT_MEMORY_LIMIT,
        piece_values: Default::default(),
        shard,
        moves: true,
        unwinnable_nodes: pgnlake::replay::dead::DEFAULT_NODES,
        // The repaired games (the samples' untidy archive, the book
        // collection's old notations) are split and summed like any other.
        repair: true,
        compression: Default::default(),
    }
}

/// Imports shard K of `count` for every K under `root/shard-K`; the folders.
fn import_shards(inputs: &[PathBuf], root: &Path, count: u32) -> Vec<PathBuf> {
    (1..=count)
        .map(|index| {
            let out = root.join(format!("shard-{index}"));
            let shard = Shard { index, count };
            run_import(&options(inputs, &out, Some(shard), 1))
                .unwrap_or_else(|e| panic!("shard {shard}: {e}"));
            out
        })
        .collect()
}

/// The (source, offset) of every game a run read, accepted or rejected.
fn places(dir: &Path) -> Vec<(String, i64)> {
    let mut all = Vec::new();
    for table in ["games", "rejects"] {
        let frame = read_table(&dir.join(format!("{table}.parquet")));
        let sources = frame
            .column("source")
            .and_then(|c| c.str().cloned())
            .unwrap_or_else(|e| panic!("{e}"));
        let offsets = frame
            .column("offset")
            .and_then(|c| c.i64().cloned())
            .unwrap_or_else(|e| panic!("{e}"));
        for i in 0..frame.height() {
            let source = sources.get(i).unwrap_or_default().to_owned();
            all.push((source, offsets.get(i).unwrap_or(-1)));
        }
    }
    all.sort();
    all
}

/// Every table of `merged` as in `single`: schema and every row, in order.
pub(crate) fn assert_same_tables(single: &Path, merged: &Path, what: &str) {
    for table in table_names() {
        let file = format!("{table}.parquet");
        let (a, b) = (
            read_table(&single.join(&file)),
            read_table(&merged.join(&file)),
        );
        assert_eq!(a.schema(), b.schema(), "{what}: {table} schema");
        assert!(
            a.equals_missing(&b),
            "{what}: {table} differs ({} vs {} rows)",
            a.height(),
            b.height()
        );
    }
}

fn summary(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// Splits `inputs` N ways for each N, checks that every game is in exactly
/// one shard and that the merge equals the single import. Returns, by N and
/// input, how many shards kept games of the input.
fn check_shards_merge_into_one_import(
    inputs: &[PathBuf],
    counts: &[u32],
) -> BTreeMap<(u32, String), usize> {
    let mut split = BTreeMap::new();
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let single = root.path().join("single");
    let whole = run_import(&options(inputs, &single, None, 1)).unwrap_or_else(|e| panic!("{e}"));
    let expected = places(&single);
    assert_eq!(expected.len() as u64, whole.games_read);
    for &count in counts {
        let dirs = import_shards(inputs, &root.path().join(format!("of-{count}")), count);
        for dir in &dirs {
            let sources: std::collections::BTreeSet<String> =
                places(dir).into_iter().map(|(source, _)| source).collect();
            for source in sources {
                *split.entry((count, source)).or_default() += 1;
            }
        }
        let mut seen: Vec<(String, i64)> = dirs.iter().flat_map(|d| places(d)).collect();
        seen.sort();
        assert_eq!(seen, expected, "{count} shards: each game once");
        let merged = root.path().join(format!("merged-{count}"));
        // Any order of the folders.
        let mut given = dirs.clone();
        given.reverse();
        let merged_summary = run_merge(&MergeOptions {
            dirs: given,
            out: merged.clone(),
            opening_min_games: 1,
            compression: Default::default(),
        })
        .map(|summary| serde_json::to_value(summary).unwrap_or_default())
        .unwrap_or_else(|e| panic!("merge of {count}: {e}"));
        assert_same_tables(&single, &merged, &format!("{count} shards"));
        let single_summary = summary(&single);
        for field in [
            "games_read",
            "accepted",
            "rejected",
            "balanced",
            "rejected_by_reason",
            "repaired",
            "repairs",
            "end_states",
            "result_checks",
            "annotations",
            "tables",
            "truncated_inputs",
        ] {
            assert_eq!(
                merged_summary[field], single_summary[field],
                "{count} shards: summary {field}"
            );
        }
        let paths = |s: &serde_json::Value| -> Vec<(serde_json::Value, serde_json::Value)> {
            s["inputs"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|i| (i["path"].clone(), i["games"].clone()))
                .collect()
        };
        assert_eq!(paths(&merged_summary), paths(&single_summary));
        assert_eq!(
            merged_summary["opening_tree"]["rows"],
            single_summary["opening_tree"]["rows"]
        );
    }
    split
}

#[test]
fn the_sample_split_any_number_of_ways_merges_into_the_single_import() {
    let inputs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data")];
    let split = check_shards_merge_into_one_import(&inputs, &[1, 2, 3, 7]);
    // The lichess file, most of the sample's bytes, is cut between shards.
    let lichess = split
        .iter()
        .find(|((n, path), _)| *n == 7 && path.ends_with("lichess-2025-05-30games.pgn"));
    assert!(lichess.is_some_and(|(_, &shards)| shards >= 4), "{split:?}");
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn the_corpus_split_any_number_of_ways_merges_into_the_single_import() {
    let shared = common::corpus_data();
    // Plain files that shard bounds cut, and a compressed one that goes whole.
    let inputs: Vec<PathBuf> = [
        "twic0920.pgn",
        "lichess-2025-05-sample.pgn",
        "book-collections.pgn.zst",
        "twic1599-sample.pgn",
    ]
    .iter()
    .map(|name| shared.join("corpus").join(name))
    .collect();
    let split = check_shards_merge_into_one_import(&inputs, &[1, 2, 3, 7]);
    // The plain files are cut; the single-frame .zst goes whole.
    let twic = inputs[0].display().to_string();
    let book = inputs[2].display().to_string();
    assert!(split[&(7, twic)] >= 2, "{split:?}");
    assert_eq!(split[&(7, book)], 1, "{split:?}");
}

/// Multi-frame `.zst` files are cut at frame starts: one in pzstd's layout
/// (skippable frames before each), and one of 64 KiB frames cut at
/// arbitrary bytes, so that most frames start inside a game.
#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn multi_frame_zstd_split_any_number_of_ways_merges_into_the_single_import() {
    let shared = common::corpus_data();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let text: Vec<u8> = ["twic0920.pgn", "lichess-2025-05-sample.pgn"]
        .iter()
        .flat_map(|name| std::fs::read(shared.join("corpus").join(name)).unwrap_or_default())
        .collect();
    let plain = dir.path().join("mix.pgn");
    std::fs::write(&plain, &text).unwrap_or_else(|e| panic!("{e}"));
    let pzstd = dir.path().join("pzstd.pgn.zst");
    let packed = Command::new("pzstd")
        .args(["-q", "-p", "2", "-1", "-o"])
        .arg(&pzstd)
        .arg(&plain)
        .status();
    assert!(
        packed.is_ok_and(|status| status.success()),
        "pzstd is missing: run scripts/test (or: apt-get install zstd)"
    );
    let mut frames = Vec::new();
    for chunk in text.chunks(64 << 10) {
        frames.extend(zstd::encode_all(chunk, 1).unwrap_or_else(|e| panic!("{e}")));
    }
    let small_frames = dir.path().join("frames.pgn.zst");
    std::fs::write(&small_frames, frames).unwrap_or_else(|e| panic!("{e}"));
    let split = check_shards_merge_into_one_import(&[pzstd, small_frames.clone()], &[1, 2, 3, 7]);
    let name = small_frames.display().to_string();
    assert!(split[&(7, name.clone())] >= 4, "{split:?}");
    assert_eq!(split[&(1, name)], 1);
}

#[test]
fn opening_min_games_applies_after_the_shards_are_summed() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let inputs = vec![sample("openings.pgn"), sample("results.pgn")];
    let single = root.path().join("single");
    run_import(&options(&inputs, &single, None, 2)).unwrap_or_else(|e| panic!("{e}"));
    let dirs = import_shards(&inputs, root.path(), 2);
    let merged = root.path().join("merged");
    let summary = run_merge(&MergeOptions {
        dirs,
        out: merged.clone(),
        opening_min_games: 2,
        compression: Default::default(),
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_same_tables(&single, &merged, "min games 2");
    assert_eq!(summary.opening_tree.min_games, 2);
    assert!(summary.opening_tree.rows_dropped > 0);
}

/// `pgnlake ARGS`: its exit code and stderr.
fn exit_and_stderr(args: &[&str]) -> (Option<i32>, String) {
    let output = crate::common::pgnlake(args);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn shards_and_merges_that_cannot_work_are_refused_in_one_line() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let at = |name: &str| root.path().join(name).display().to_string();
    let results = sample("results.pgn").display().to_string();
    let mut refusals = BTreeMap::new();
    refusals.insert(
        "stdin",
        exit_and_stderr(&["import", "-", "--shard", "1/2", "-o", &at("a"), "-q"]),
    );
    refusals.insert(
        "bad k/n",
        exit_and_stderr(&["import", &results, "--shard", "3/2", "-o", &at("b")]),
    );
    refusals.insert(
        "min games",
        exit_and_stderr(&[
            "import",
            &results,
            "--shard",
            "1/2",
            "--opening-min-games",
            "5",
            "-o",
            &at("c"),
        ]),
    );
    let (code, _) = exit_and_stderr(&["import", &results, "--shard", "1/2", "-o", &at("s1"), "-q"]);
    assert_eq!(code, Some(0));
    let (code, _) = exit_and_stderr(&["import", &results, "-o", &at("whole"), "-q"]);
    assert_eq!(code, Some(0));
    refusals.insert(
        "missing shard",
        exit_and_stderr(&["merge", &at("s1"), "-o", &at("m1")]),
    );
    refusals.insert(
        "not a shard",
        exit_and_stderr(&["merge", &at("whole"), "-o", &at("m2")]),
    );
    refusals.insert(
        "no folder",
        exit_and_stderr(&["merge", &at("nowhere"), "-o", &at("m3")]),
    );
    // Shard 2 with --moves, then with --repair: neither is summed with a
    // shard 1 imported without it.
    for (flag, shard, merged) in [("--moves", "s2", "m4"), ("--repair", "s4", "m7")] {
        let (code, _) = exit_and_stderr(&[
            "import",
            &results,
            "--shard",
            "2/2",
            "-o",
            &at(shard),
            "-q",
            flag,
        ]);
        assert_eq!(code, Some(0));
        let what = if flag == "--moves" {
            "moves in one shard"
        } else {
            "repair in one shard"
        };
        refusals.insert(
            what,
            exit_and_stderr(&["merge", &at("s1"), &at(shard), "-o", &at(merged)]),
        );
    }
    // Regression: a summary with a field missing was read as zeros (a
    // merge of two shards reported the first shard's games alone).
    let (code, _) = exit_and_stderr(&["import", &results, "--shard", "2/2", "-o", &at("s3"), "-q"]);
    assert_eq!(code, Some(0));
    let edit_summary = |dir: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let path = root.path().join(dir).join("summary.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut summary: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        edit(&mut summary);
        std::fs::write(&path, summary.to_string()).unwrap_or_else(|e| panic!("{e}"));
    };
    edit_summary("s3", &|s| {
        s.as_object_mut().map(|o| o.remove("games_read"));
    });
    refusals.insert(
        "field missing",
        exit_and_stderr(&["merge", &at("s1"), &at("s3"), "-o", &at("m5")]),
    );
    edit_summary("s3", &|s| s["version"] = "0.0.9".into());
    refusals.insert(
        "other version",
        exit_and_stderr(&["merge", &at("s1"), &at("s3"), "-o", &at("m6")]),
    );
    for (what, (code, stderr)) in &refusals {
        assert_eq!(*code, Some(2), "{what}: {stderr}");
        // clap's own usage errors add a hint line.
        if *what != "bad k/n" {
            assert_eq!(stderr.trim().lines().count(), 1, "{what}: {stderr}");
        }
    }
    assert!(refusals["bad k/n"].1.contains("expected K/N"));
    assert!(refusals["missing shard"].1.contains("shard 2 is missing"));
    assert!(refusals["not a shard"].1.contains("not a shard"));
    assert!(
        refusals["field missing"].1.contains(
            "summary.json: not a summary.json of pgnlake 0.1.0 (missing field `games_read`"
        ),
        "{}",
        refusals["field missing"].1
    );
    assert!(
        refusals["other version"]
            .1
            .contains("summary.json: written by pgnlake 0.0.9; this is pgnlake 0.1.0"),
        "{}",
        refusals["other version"].1
    );
    assert!(refusals["stdin"].1.contains("standard input"));
    assert!(refusals["min games"].1.contains("pgnlake merge"));
    assert!(
        refusals["moves in one shard"]
            .1
            .contains("imported with --moves, the first shard without"),
        "{}",
        refusals["moves in one shard"].1
    );
    assert!(
        refusals["repair in one shard"]
            .1
            .contains("imported with --repair, the first shard without"),
        "{}",
        refusals["repair in one shard"].1
    );
}
