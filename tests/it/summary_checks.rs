//! A `summary.json` that no longer adds up is refused, in one line naming
//! the file and the field, by `merge`, by `lake --add` and by the lake's
//! readers (issue 64: `merge` summed shards whose `end_states` or
//! `result_checks` no longer added up to the accepted games, and whose
//! `tables` lacked a table that was on disk).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{self, ok, pgnlake, sample, text};

/// The maps of a summary whose keys are data (names of reasons, states,
/// tables…), not fields: deleting one of their keys unbalances them.
const MAPS: [&str; 6] = [
    "rejected_by_reason",
    "end_states",
    "result_checks",
    "repairs",
    "tables",
    "table_digests",
];

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn write_json(path: &Path, value: &Value) {
    std::fs::write(path, value.to_string()).unwrap_or_else(|e| panic!("{e}"));
}

/// Every key of `value`, as paths (`a`, `a.b`, `inputs.0.c`; a map's
/// entries as `end_states.checkmate`), each array's elements' keys too.
fn key_paths(value: &Value, at: &[String], out: &mut Vec<Vec<String>>) {
    match value {
        Value::Object(fields) => {
            for (name, inner) in fields {
                let mut path = at.to_vec();
                path.push(name.clone());
                out.push(path.clone());
                key_paths(inner, &path, out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let mut path = at.to_vec();
                path.push(i.to_string());
                key_paths(item, &path, out);
            }
        }
        _ => {}
    }
}

/// `value` without the key at `path`.
fn without(value: &Value, path: &[String]) -> Value {
    let mut value = value.clone();
    let Some((last, parents)) = path.split_last() else {
        return value;
    };
    let mut at = &mut value;
    for step in parents {
        at = match step.parse::<usize>() {
            Ok(i) if at.is_array() => &mut at[i],
            _ => &mut at[step.as_str()],
        };
    }
    if let Some(object) = at.as_object_mut() {
        object.remove(last);
    }
    value
}

/// What a refusal of a summary without the key at `path` must name: a
/// map's name for one of its entries, else the key itself.
fn named(path: &[String]) -> &str {
    match path {
        [.., map, _] if MAPS.contains(&map.as_str()) => map,
        [.., key] => key,
        [] => "",
    }
}

/// Shards 1/2 and 2/2 of the sample data, with `--moves` (every table).
fn two_shards(root: &Path) -> [PathBuf; 2] {
    let input = text(&sample(""));
    ["1/2", "2/2"].map(|shard| {
        let out = root.join(format!("s{}", &shard[..1]));
        ok(pgnlake(&[
            "import",
            &input,
            "--shard",
            shard,
            "--moves",
            "-q",
            "-o",
            &text(&out),
        ]));
        out
    })
}

/// `merge SHARDS -o OUT`'s output.
fn merge(shards: &[PathBuf; 2], out: &Path) -> std::process::Output {
    pgnlake(&[
        "merge",
        &text(&shards[0]),
        &text(&shards[1]),
        "-o",
        &text(out),
        "-q",
    ])
}

/// The one-line refusal of a run, exit 2, naming `file` and `field`.
fn refusal(output: &std::process::Output, file: &Path, field: &str, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{what}: accepted ({stderr})");
    let line = common::usage_error(output);
    assert!(
        line.contains(&text(file)) && line.contains(field),
        "{what}: the refusal names not {} and {field}: {line}",
        file.display()
    );
    assert!(!line.contains("internal error"), "{what}: {line}");
    line
}

/// The identity the summary checks hold on a fresh import: each accepted
/// game is counted once in `end_states` and once in `result_checks`.
fn assert_adds_up(summary: &Value, what: &str) {
    let total = |map: &str| -> u64 {
        summary[map]
            .as_object()
            .unwrap_or_else(|| panic!("{what}: no {map}"))
            .values()
            .map(|n| n.as_u64().unwrap_or_else(|| panic!("{what}: {map}: {n}")))
            .sum()
    };
    let accepted = summary["accepted"].as_u64();
    assert!(accepted > Some(0), "{what}: {summary}");
    assert_eq!(Some(total("end_states")), accepted, "{what}: end_states");
    assert_eq!(
        Some(total("result_checks")),
        accepted,
        "{what}: result_checks"
    );
}

#[test]
fn merge_refuses_a_shard_summary_without_any_of_its_keys_naming_it() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let shards = two_shards(root.path());
    let path = shards[0].join("summary.json");
    let original = read_json(&path);
    assert_adds_up(&original, "shard 1");
    assert_adds_up(&read_json(&shards[1].join("summary.json")), "shard 2");
    ok(merge(&shards, &root.path().join("merged")));
    assert_adds_up(
        &read_json(&root.path().join("merged/summary.json")),
        "merged",
    );
    let mut keys = Vec::new();
    key_paths(&original, &[], &mut keys);
    // Every field of every struct, and every entry of the maps of counts.
    for map in [
        "end_states",
        "result_checks",
        "tables",
        "rejected_by_reason",
    ] {
        assert!(
            keys.iter()
                .filter(|k| k.first().is_some_and(|f| f == map))
                .count()
                > 1,
            "{map}: {keys:?}"
        );
    }
    let mut accepted = Vec::new();
    for (n, key) in keys.iter().enumerate() {
        write_json(&path, &without(&original, key));
        let output = merge(&shards, &root.path().join(format!("m{n}")));
        if output.status.success() {
            accepted.push(key.join("."));
            continue;
        }
        refusal(&output, &path, named(key), &key.join("."));
    }
    write_json(&path, &original);
    assert_eq!(accepted, Vec::<String>::new(), "merged without these keys");
}

#[test]
fn merge_refuses_end_states_or_result_checks_that_do_not_add_up() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let shards = two_shards(root.path());
    let path = shards[1].join("summary.json");
    let original = read_json(&path);
    let first_key = |map: &str| -> String {
        original[map]
            .as_object()
            .and_then(|m| m.keys().next().cloned())
            .unwrap_or_else(|| panic!("{map} is empty"))
    };
    let mut cases: Vec<(&str, &str, Value)> = Vec::new();
    for map in ["end_states", "result_checks"] {
        let key = first_key(map);
        let n = original[map][&key].as_u64().unwrap_or_default();
        let mut more = original.clone();
        more[map][&key] = (n + 1).into();
        cases.push(("one more", map, more));
        let mut fewer = original.clone();
        fewer[map][&key] = (n - 1).into();
        cases.push(("one fewer", map, fewer));
        // Counts that add up past 2^64: refused as not adding up, not an
        // overflow (a panic).
        let mut huge = original.clone();
        huge[map]["checkmate_huge"] = u64::MAX.into();
        huge[map]["draw_huge"] = u64::MAX.into();
        cases.push(("past 2^64", map, huge));
    }
    let mut huge = original.clone();
    huge["rejected_by_reason"]["garbage_huge"] = u64::MAX.into();
    huge["rejected_by_reason"]["null_move_huge"] = u64::MAX.into();
    cases.push(("past 2^64", "rejected_by_reason", huge));
    for (n, (what, map, edited)) in cases.into_iter().enumerate() {
        write_json(&path, &edited);
        let output = merge(&shards, &root.path().join(format!("m{n}")));
        let line = refusal(&output, &path, map, &format!("{map} {what}"));
        assert!(line.contains("does not add up"), "{map} {what}: {line}");
    }
    write_json(&path, &original);
    ok(merge(&shards, &root.path().join("merged")));
}

/// `summary` without `table` in `tables` and `table_digests` (both, as a
/// careful edit would leave them).
fn unlisted(summary: &Value, table: &str) -> Value {
    let mut summary = summary.clone();
    for map in ["tables", "table_digests"] {
        if let Some(entries) = summary[map].as_object_mut() {
            entries.remove(table);
        }
    }
    summary
}

#[test]
fn merge_refuses_a_tables_list_without_a_table_that_is_on_disk() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let shards = two_shards(root.path());
    let path = shards[0].join("summary.json");
    let original = read_json(&path);
    let tables: Vec<String> = original["tables"]
        .as_object()
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default();
    assert_eq!(tables.len(), common::table_names().count(), "{tables:?}");
    for (n, table) in tables.iter().enumerate() {
        write_json(&path, &unlisted(&original, table));
        let output = merge(&shards, &root.path().join(format!("m{n}")));
        let line = refusal(&output, &path, "tables", table);
        assert!(
            line.contains(&format!("tables does not list {table}")),
            "{table}: {line}"
        );
    }
    // Listed, and gone from the folder.
    write_json(&path, &original);
    let moves = shards[0].join("moves.parquet");
    let away = root.path().join("moves.parquet");
    std::fs::rename(&moves, &away).unwrap_or_else(|e| panic!("{e}"));
    let line = common::usage_error(&merge(&shards, &root.path().join("gone")));
    assert!(
        line.contains(&format!("{}: missing (summary.json lists", text(&moves))),
        "{line}"
    );
    std::fs::rename(&away, &moves).unwrap_or_else(|e| panic!("{e}"));
    ok(merge(&shards, &root.path().join("merged")));
}

#[test]
fn lake_add_and_the_lakes_readers_refuse_the_same_summaries() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let folder = root.path().join("out");
    ok(pgnlake(&[
        "import",
        &text(&sample("openings.pgn")),
        "--moves",
        "-q",
        "-o",
        &text(&folder),
    ]));
    let path = folder.join("summary.json");
    let original = read_json(&path);
    assert_adds_up(&original, "import");
    let lake = root.path().join("lake");
    let add = |name: &str| {
        pgnlake(&[
            "lake",
            &text(&lake),
            "--add",
            &text(&folder),
            "--name",
            name,
        ])
    };
    let mut unbalanced = original.clone();
    let key = original["end_states"]
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .unwrap_or_default();
    unbalanced["end_states"][&key] = 1_000_000.into();
    write_json(&path, &unbalanced);
    refusal(&add("a"), &path, "end_states", "lake --add, end_states");
    write_json(&path, &unlisted(&original, "moves.parquet"));
    refusal(&add("a"), &path, "tables", "lake --add, tables");
    write_json(&path, &original);
    ok(add("a"));
    // A committed import's summary edited in the lake: every reader of the
    // lake refuses it.
    let committed = lake.join("_imports/a.json");
    let original = read_json(&committed);
    let lake_text = text(&lake);
    let readers: [&[&str]; 2] = [
        &[
            "query",
            "--data",
            &lake_text,
            "-e",
            "SELECT COUNT(*) FROM games",
        ],
        &["explore", "--data", &lake_text, "e4"],
    ];
    for args in readers {
        ok(pgnlake(args));
        write_json(&committed, &unlisted(&original, "moves.parquet"));
        let line = refusal(&pgnlake(args), &committed, "tables", &args.join(" "));
        assert!(
            line.contains("tables does not list moves.parquet"),
            "{line}"
        );
        write_json(&committed, &unbalanced_in(&original, "result_checks"));
        refusal(&pgnlake(args), &committed, "result_checks", &args.join(" "));
        write_json(&committed, &original);
    }
}

/// `summary` with one more game in the first entry of `map`.
fn unbalanced_in(summary: &Value, map: &str) -> Value {
    let mut summary = summary.clone();
    if let Some((_, n)) = summary[map]
        .as_object_mut()
        .and_then(|m| m.iter_mut().next())
    {
        *n = (n.as_u64().unwrap_or_default() + 1).into();
    }
    summary
}
