//! The client examples of docs/serve.md, run as written against a real
//! `pgnlake serve`: an example a reader copies must work (issue 64: the
//! berserk example passed ratings as integers and raised a `TypeError`
//! inside berserk).

use std::path::Path;
use std::process::Command;

use crate::common::server::Server;
use crate::common::{ok, pgnlake, python, sample, text};

/// The fenced `python` blocks of a Markdown page that contain `needle`,
/// each as written (its list indentation taken off).
fn python_blocks(page: &str, needle: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed != "```python" {
            continue;
        }
        let indent = line.len() - trimmed.len();
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| l.trim_start() != "```")
            .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
            .collect();
        let block = body.join("\n") + "\n";
        if block.contains(needle) {
            blocks.push(block);
        }
    }
    blocks
}

#[test]
fn the_berserk_example_of_serve_md_runs_as_written() {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/serve.md"))
        .unwrap_or_else(|e| panic!("docs/serve.md: {e}"));
    let blocks = python_blocks(&page, "import berserk");
    let [example] = blocks.as_slice() else {
        panic!(
            "docs/serve.md: {} berserk examples, expected 1",
            blocks.len()
        );
    };
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("out");
    ok(pgnlake(&[
        "import",
        &text(&sample("")),
        "--out",
        &text(&data),
        "-q",
    ]));
    let server = Server::start(&data, &[]);
    // The one change: the address the example names is the test server's.
    const DOCUMENTED: &str = "http://127.0.0.1:9002";
    assert!(example.contains(DOCUMENTED), "{example}");
    let script = example.replace(DOCUMENTED, server.url());
    let output = Command::new(python())
        .args(["-c", &script])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python()));
    assert!(
        output.status.success(),
        "the example of docs/serve.md fails:\n{script}\n{}\nserver: {}",
        String::from_utf8_lossy(&output.stderr),
        server.stderr()
    );
}
