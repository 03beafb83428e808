//! The layout's one rule, checked on the source: a top-level module uses only
//! modules of lower layers (data flows input → pgn → replay → stats → sink;
//! no stage uses a later stage or a command, and no command uses another).
//! Unit tests inside a module may reach anywhere and are not read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Top-level modules of `src/`, lowest first. A module may use the modules
/// of the layers before its own, never its own layer or a later one.
const LAYERS: &[&[&str]] = &[
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
