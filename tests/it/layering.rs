//! The layout's one rule, checked on the source: a top-level module uses only
//! modules of lower layers (data flows input → pgn → replay → stats → sink;
//! no stage uses a later stage or a command, and no command uses another).
//! Unit tests inside a module may reach anywhere and are not read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Top-level modules of `src/`, lowest first. A module may use the modules
/// of the layers before its own, never its own layer or a later one.
const LAYERS: &[&[&str]] = &[
    // The dimensions' types (speed, month, rating band), below every stage.
    &["model"],
    &["interrupt", "profile"],
    // Work handed to the pipeline's workers from any stage.
    &["jobs"],
    // The stages, in the order data flows.
    &["input"],
    &["pgn"],
    &["replay"],
    &["stats"],
    &["sink"],
    // A lake's layout and commits (imports kept as Hive partitions), over
    // the tables the sink writes.
    &["lake"],
    // The run error wraps the stages' errors.
    &["error"],
    // The ordered parallel engine and the per-game path import and clean share.
    &["pipeline", "check"],
    // The commands.
    &["import", "clean", "read"],
    // The report draws what `read` reads (the opening tree's positions);
    // export writes what `read` selects as `clean` writes it.
    &["report", "export"],
    // The explorer's HTTP server answers from `read`, and gives a game's
    // PGN as `export` writes it.
    &["serve"],
    // Fuzz entry points, the command line, and its wiring.
    &["fuzzing", "cli"],
    &["cmd"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`replay/mod.rs` → `replay`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    first.unwrap_or_default().trim_end_matches(".rs").to_owned()
}

/// The code of a file without comments and without its unit tests.
fn code_of(text: &str) -> String {
    let text = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// Every top-level module named by a `crate::` path, grouped imports
/// (`use crate::{a::x, b};`) included.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && !c.is_whitespace() => {
                        used.insert(identifier(&group[i..]).to_owned());
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            used.insert(identifier(rest).to_owned());
        }
    }
    used
}

#[test]
fn every_module_uses_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for file in &files {
        let module = module_of(&src, file);
        if module == "lib" || module == "main" {
            continue;
        }
        seen.insert(module.clone());
        let Some(own) = layer_of(&module) else {
            problems.push(format!("{module}: not in LAYERS (add it where it belongs)"));
            continue;
        };
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for used in crate_paths(&code_of(&text)) {
            if used == module {
                continue;
            }
            match layer_of(&used) {
                Some(layer) if layer < own => {}
                _ => problems.push(format!("{}: {module} uses {used}", file.display())),
            }
        }
    }
    assert!(seen.len() > 10, "read too few modules: {seen:?}");
    assert!(
        problems.is_empty(),
        "layering broken:\n{}",
        problems.join("\n")
    );
}

#[test]
fn crate_paths_reads_grouped_imports() {
    let code = "use crate::{pgn::{a, b}, replay};\nlet x = crate::stats::f();";
    let found: Vec<String> = crate_paths(code).into_iter().collect();
    assert_eq!(found, ["pgn", "replay", "stats"]);
}

/// Files allowed past [`MAX_CODE_LINES`]: declarative tables, whose length
/// is their content.
const LONG_TABLES: &[&str] = &["sink/schema.rs"];

/// A room holds one concept: a file past this many lines of code (blank
/// lines, comments and its unit tests not counted) holds several.
const MAX_CODE_LINES: usize = 800;

#[test]
fn no_file_holds_more_than_800_lines_of_code() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut long = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap_or(file);
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let lines = code_of(&text)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count();
        if lines > MAX_CODE_LINES && !LONG_TABLES.iter().any(|t| rel == Path::new(t)) {
            long.push(format!("{}: {lines} lines of code", rel.display()));
        }
    }
    assert!(long.is_empty(), "split these:\n{}", long.join("\n"));
}

/// The siblings a file of `folder` names: `super::NAME`, `super::{NAME, …}`
/// and `crate::FOLDER::NAME` (and in `mod.rs`, only the latter).
fn sibling_uses(
    code: &str,
    me: &str,
    crate_path: &str,
    siblings: &BTreeSet<String>,
) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut after = |prefix: &str| {
        for (at, _) in code.match_indices(prefix) {
            let rest = &code[at + prefix.len()..];
            match rest.strip_prefix('{') {
                Some(group) => {
                    let group = &group[..group.find('}').unwrap_or(group.len())];
                    names.extend(
                        group
                            .split(',')
                            .map(|item| identifier(item.trim()).to_owned()),
                    );
                }
                None => {
                    names.insert(identifier(rest).to_owned());
                }
            }
        }
    };
    if !["mod", "lib", "main"].contains(&me) {
        after("super::");
    }
    if !crate_path.is_empty() {
        after(&format!("crate::{crate_path}::"));
    }
    names.retain(|n| n != me && siblings.contains(n));
    names
}

/// Whether `from` reaches itself through the graph.
fn on_a_circle(graph: &std::collections::BTreeMap<String, BTreeSet<String>>, from: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<&str> = graph
        .get(from)
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    while let Some(next) = stack.pop() {
        if next == from {
            return true;
        }
        if seen.insert(next) {
            stack.extend(graph.get(next).into_iter().flatten().map(String::as_str));
        }
    }
    false
}

/// The files of one folder use each other one way: no import circle inside
/// a folder (as `../shared/tools/folder_cycles.py` checks).
#[test]
fn no_import_circle_inside_a_folder() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders = vec![src.clone()];
    let mut circles = Vec::new();
    while let Some(folder) = folders.pop() {
        let mut siblings = BTreeSet::new();
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                folders.push(path);
                siblings.insert(name);
            } else if path.extension().is_some_and(|e| e == "rs") {
                siblings.insert(name.clone());
                files.push((name, path));
            }
        }
        let rel = folder.strip_prefix(&src).unwrap();
        let crate_path = rel.to_string_lossy().replace('/', "::");
        let mut graph = std::collections::BTreeMap::new();
        for (name, path) in &files {
            let code = code_of(&std::fs::read_to_string(path).unwrap());
            graph.insert(
                name.clone(),
                sibling_uses(&code, name, &crate_path, &siblings),
            );
        }
        let on: Vec<&String> = graph.keys().filter(|n| on_a_circle(&graph, n)).collect();
        if !on.is_empty() {
            circles.push(format!("{}/: {on:?}", rel.display()));
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn sibling_uses_reads_super_and_crate_paths() {
    let siblings: BTreeSet<String> = ["a", "b", "c", "mod"].map(String::from).into();
    let code = "use super::{a::X, b};\nuse crate::stats::c::f;\nuse super::super::d;";
    let found: Vec<String> = sibling_uses(code, "a", "stats", &siblings)
        .into_iter()
        .collect();
    assert_eq!(found, ["b", "c"]);
}
