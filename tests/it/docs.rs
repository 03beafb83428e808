//! The documentation checked against the code: the tables reference equals
//! the schema declaration, every relative link resolves (file and anchor),
//! every repository path a doc names in a code span exists (and so does
//! every path of DEVELOPMENT.md's layout, which has an entry for every
//! module of `src/`), and every `sh` example of the README and the guide
//! that uses `sample-data` runs and exits 0.
//!
//! `PGNLAKE_BLESS=1 cargo test docs` rewrites the column tables of
//! `docs/tables.md` from the declaration (the prose around them stays).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use pgnlake::sink::schema::{self, Table};

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every Markdown file of the project a user or contributor reads.
fn markdown_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["README.md", "DEVELOPMENT.md", "CHANGELOG.md"]
        .iter()
        .map(|name| manifest().join(name))
        .collect();
    let docs = std::fs::read_dir(manifest().join("docs")).unwrap_or_else(|e| panic!("docs/: {e}"));
    let mut pages: Vec<PathBuf> = docs
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    files.extend(pages);
    files
}

// ------------------------------------------------------------ tables.md

const BEGIN: &str = "<!-- columns: ";
const END: &str = "<!-- /columns -->";

/// `docs/tables.md` with every marked column table replaced by the
/// declaration's, and the tables it marks.
fn tables_page_from_schema(page: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(page.len());
    let mut marked = Vec::new();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        out.push_str(line);
        out.push('\n');
        let Some(name) = line
            .strip_prefix(BEGIN)
            .and_then(|rest| rest.strip_suffix(" -->"))
        else {
            continue;
        };
        let table = schema::table(name)
            .unwrap_or_else(|| panic!("docs/tables.md marks {name}: no such table"));
        out.push_str(&table.markdown());
        for skipped in lines.by_ref() {
            if skipped == END {
                out.push_str(END);
                out.push('\n');
                break;
            }
        }
        marked.push(name.to_owned());
    }
    (out, marked)
}

#[test]
fn tables_reference_is_the_schema_declaration() {
    let path = manifest().join("docs/tables.md");
    let page = read(&path);
    let (generated, marked) = tables_page_from_schema(&page);
    if std::env::var_os("PGNLAKE_BLESS").is_some() && generated != page {
        std::fs::write(&path, &generated).unwrap_or_else(|e| panic!("{e}"));
        return;
    }
    let declared: Vec<String> = schema::all_tables().map(|t| t.name.to_owned()).collect();
    assert_eq!(
        marked.iter().collect::<BTreeSet<_>>(),
        declared.iter().collect::<BTreeSet<_>>(),
        "docs/tables.md must hold one marked column table per declared table"
    );
    assert!(
        generated == page,
        "docs/tables.md differs from the schema declared in src/sink/schema.rs; \
         run `PGNLAKE_BLESS=1 scripts/test docs` and review the diff"
    );
}

#[test]
fn schema_command_prints_the_declaration() {
    let output = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(["schema", "endgames", "--format", "markdown"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(0));
    let table: &Table = &schema::endgames::TABLE;
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("## `endgames.parquet`\n\n{}", table.markdown())
    );
    let output = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(["schema", "--format", "json"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let json: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}"));
    let openings = json
        .as_array()
        .and_then(|tables| tables.iter().find(|t| t["name"] == "openings"))
        .unwrap_or_else(|| panic!("{json}"));
    let keys: Vec<&str> = openings["columns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["merge"] == "key")
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "position_key",
            "move_uci",
            "time_class",
            "rating_band",
            "month"
        ]
    );
    let unknown = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(["schema", "game"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&unknown.stderr),
        "pgnlake: game: no such table (tables: games, rejects, openings, opening_lines, \
         results, material, endgames, moves, clean_report)\n"
    );
}

// ------------------------------------------------------------ links

/// GitHub's anchor for a heading: lowercase; letters, digits, spaces, `-`
/// and `_` kept; spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks), with
/// GitHub's `-1`, `-2` suffixes for repeats.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let base = slug(line.trim_start_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// The targets of a Markdown file's inline links `[text](target)`, outside
/// code blocks and code spans.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans hold examples, not links.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, part)| part)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                targets.push(rest[..end].to_owned());
                rest = &rest[end..];
            }
        }
    }
    targets
}

#[test]
fn relative_links_resolve() {
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = read(&file);
        let dir = file.parent().unwrap_or(manifest());
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            let name = file.strip_prefix(manifest()).unwrap_or(&file).display();
            if !linked.exists() {
                broken.push(format!("{name}: {target}: no such file"));
                continue;
            }
            if let Some(anchor) = anchor
                && linked.extension().is_some_and(|e| e == "md")
                && !anchors(&read(&linked)).contains(anchor)
            {
                broken.push(format!("{name}: {target}: no such heading"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn slugs_follow_github() {
    assert_eq!(
        slug(" `pgnlake import INPUT... --out DIR`"),
        "pgnlake-import-input---out-dir"
    );
    assert_eq!(
        slug(" Outcomes (FIDE Laws, articles 5 and 9)"),
        "outcomes-fide-laws-articles-5-and-9"
    );
    let text = "# A\n## Tables\n```sh\n# not a heading\n```\n## Tables\n";
    let found: Vec<String> = anchors(text).into_iter().collect();
    assert_eq!(found, ["a", "tables", "tables-1"]);
}

// ------------------------------------------------------------ paths

/// The top folders of the repository whose paths the docs name in code
/// spans: a span's word starting with one of them is a path from the root.
const ROOT_FOLDERS: [&str; 12] = [
    "src/",
    "tests/",
    "spark/",
    "benches/",
    "fuzz/",
    "queries/",
    "scripts/",
    ".ci/",
    "docs/",
    "examples/",
    "sample-data/",
    "data/",
];

/// The Markdown files whose paths must exist: the README, DEVELOPMENT.md
/// and the pages of `docs/` (the CHANGELOG is history: it names what was).
fn current_markdown_files() -> Vec<PathBuf> {
    markdown_files()
        .into_iter()
        .filter(|file| !file.ends_with("CHANGELOG.md"))
        .collect()
}

/// The code spans of a Markdown text outside fenced blocks, with the line
/// each starts on (1-based). A span may wrap: spans pair within a
/// paragraph, its line breaks read as spaces.
fn code_spans(text: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    let mut paragraph: Vec<(usize, &str)> = Vec::new();
    let mut fenced = false;
    let flush = |paragraph: &mut Vec<(usize, &str)>, spans: &mut Vec<(usize, String)>| {
        let mut open: Option<(usize, String)> = None;
        for &(number, line) in paragraph.iter() {
            for (i, part) in line.split('`').enumerate() {
                if i > 0 {
                    match open.take() {
                        Some(span) => spans.push(span),
                        None => open = Some((number, String::new())),
                    }
                }
                if let Some((_, span)) = &mut open {
                    if i == 0 {
                        span.push(' ');
                    }
                    span.push_str(part);
                }
            }
        }
        paragraph.clear();
    };
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            flush(&mut paragraph, &mut spans);
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if line.trim().is_empty() {
            flush(&mut paragraph, &mut spans);
        } else {
            paragraph.push((index + 1, line));
        }
    }
    flush(&mut paragraph, &mut spans);
    spans
}

/// A word of a code span as the path it names: quotes, brackets and
/// punctuation around it dropped, a trailing `#anchor` or `:LINE` cut.
fn path_of_word(word: &str) -> &str {
    let word = word
        .trim_start_matches(['(', '[', '"', '\''])
        .trim_end_matches([')', ']', '"', '\'', ',', ';', '.']);
    let word = word.split_once('#').map_or(word, |(path, _)| path);
    match word.split_once(':') {
        Some((path, line)) if line.chars().all(|c| c.is_ascii_digit() || c == ':') => path,
        _ => word,
    }
}

/// A path that stands for many or for one to fill in: a glob (`*`, `?`,
/// `[`, `{`), an ellipsis, an angle-bracketed `<name>`, or an upper-case
/// word as a placeholder (`NAME` in `queries/NAME.sql`, `K` in `shard=K`).
fn is_pattern(path: &str) -> bool {
    path.contains(['*', '?', '[', '{', '<', '…']) || path.contains("...") || {
        path.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|word| {
                word.chars().any(|c| c.is_ascii_uppercase())
                    && word
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            })
    }
}

/// The folder of the repository a path in a doc's code span is read from:
/// the root for a path under one of `ROOT_FOLDERS`, `src/` for a path
/// whose first folder is one of `src/`'s (`sink/schema.rs`, `clean/`), as
/// DEVELOPMENT.md writes module paths; none for any other word.
fn doc_path_base(path: &str) -> Option<PathBuf> {
    if ROOT_FOLDERS.iter().any(|folder| path.starts_with(folder)) {
        return Some(manifest().to_owned());
    }
    let (first, _) = path.split_once('/')?;
    let src = manifest().join("src");
    let is_module_folder = !first.is_empty()
        && first
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && src.join(first).is_dir();
    is_module_folder.then_some(src)
}

/// Every path a doc names in a code span exists, a file or a folder.
///
/// The rule, for the README, DEVELOPMENT.md and `docs/*.md` (not the
/// CHANGELOG: history), inline code spans only (fenced blocks are
/// examples): each whitespace-separated word of a span, with quotes,
/// brackets and trailing punctuation dropped and a trailing `#anchor` or
/// `:LINE` cut, is a path when it starts with one of `ROOT_FOLDERS`
/// (`src/`, `tests/`, `queries/`, … : read from the repository's root) or
/// with a folder of `src/` followed by `/` (`clean/repair.rs`, `stats/`:
/// read from `src/`). A path that is a pattern is skipped: a glob (`*`,
/// `?`, `[`, `{`), `…` or `...`, `<name>`, or an upper-case placeholder
/// word (`queries/NAME.sql`, `cmd/NAME.rs`, `OUT/TABLE/`; so an upper-case
/// file name such as `README.md` under those folders would be skipped too).
/// A bare file name (`cli.rs`, `faults.rs`) is prose: its folder is the
/// sentence's, not checked here (the layout's are, by
/// `layout_names_existing_modules`).
#[test]
fn doc_paths_exist() {
    let mut stale = Vec::new();
    for file in current_markdown_files() {
        let name = file.strip_prefix(manifest()).unwrap_or(&file).display();
        for (line, span) in code_spans(&read(&file)) {
            for word in span.split_whitespace() {
                let path = path_of_word(word);
                if is_pattern(path) {
                    continue;
                }
                if let Some(base) = doc_path_base(path)
                    && !base.join(path).exists()
                {
                    stale.push(format!("{name}:{line}: `{path}`: no such file or folder"));
                }
            }
        }
    }
    assert!(stale.is_empty(), "stale paths:\n{}", stale.join("\n"));
}

/// The fenced block after DEVELOPMENT.md's "## The layout" heading.
fn layout_block(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|line| !line.starts_with("## The layout"))
        .skip_while(|line| !line.starts_with("```"))
        .skip(1)
        .take_while(|line| !line.starts_with("```"))
        .collect()
}

/// The paths DEVELOPMENT.md's layout block names. An entry is a line whose
/// first word starts at column 0 (a path from the root: `src/`,
/// `tests/it/`, `build.rs`) or at column 2 (a module of `src/`:
/// `interrupt.rs`, `input/`), ending in `/` or `.rs`; the lines indented
/// deeper continue its description. In a description, a word naming a
/// `.rs` file (`counts.rs`, `cmd/schema.rs`, `tests/it/lake.rs`, with
/// punctuation around it dropped) is read as `doc_path_base` reads it, and
/// else relative to the entry's folder (`counts.rs` of `stats/`).
fn layout_paths(block: &[&str]) -> Vec<(String, PathBuf)> {
    let root = manifest();
    let mut paths = Vec::new();
    let mut folder = root.to_owned();
    for line in block {
        let indent = line.len() - line.trim_start().len();
        let mut words = line.split_whitespace();
        if indent <= 2 {
            let Some(entry) = words.next() else { continue };
            if !(entry.ends_with('/') || entry.ends_with(".rs")) {
                continue;
            }
            let base = if indent == 0 {
                root.to_owned()
            } else {
                root.join("src")
            };
            let path = base.join(entry);
            if entry.ends_with('/') {
                folder = path.clone();
            }
            paths.push((entry.to_owned(), path));
        }
        for word in words {
            let name = word.trim_matches(|c: char| {
                !(c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.'))
            });
            let name = name.trim_end_matches('.');
            let is_file = name.strip_suffix(".rs").is_some_and(|stem| {
                !stem.is_empty()
                    && stem.chars().all(|c| {
                        c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '/')
                    })
            });
            if !is_file {
                continue;
            }
            let path = match doc_path_base(name) {
                Some(base) => base.join(name),
                None => folder.join(name),
            };
            paths.push((name.to_owned(), path));
        }
    }
    paths
}

/// DEVELOPMENT.md's layout names only paths that exist (by
/// `layout_paths`' reading) and has an entry for every module of `src/`.
#[test]
fn layout_names_existing_modules() {
    let text = read(&manifest().join("DEVELOPMENT.md"));
    let block = layout_block(&text);
    let paths = layout_paths(&block);
    assert!(
        paths.len() >= 30,
        "DEVELOPMENT.md's layout block names the modules: {paths:?}"
    );
    let stale: Vec<String> = paths
        .iter()
        .filter(|(_, path)| !path.exists())
        .map(|(name, path)| {
            let path = path.strip_prefix(manifest()).unwrap_or(path);
            format!("`{name}` ({}): no such file or folder", path.display())
        })
        .collect();
    assert!(
        stale.is_empty(),
        "DEVELOPMENT.md's layout names stale paths:\n{}",
        stale.join("\n")
    );
    let named: BTreeSet<&PathBuf> = paths.iter().map(|(_, path)| path).collect();
    let src = manifest().join("src");
    let entries = std::fs::read_dir(&src).unwrap_or_else(|e| panic!("src/: {e}"));
    let mut missing: Vec<String> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_dir() || path.extension().is_some_and(|e| e == "rs"))
        .filter(|path| !named.contains(path))
        .map(|path| {
            path.strip_prefix(&src)
                .unwrap_or(&path)
                .display()
                .to_string()
        })
        .collect();
    missing.sort();
    assert!(
        missing.is_empty(),
        "DEVELOPMENT.md's layout has no entry for src/ {missing:?}"
    );
}

#[test]
fn doc_path_rule() {
    let text =
        "a `src/a.rs:12` b `tests/it/x.rs#L3 and\nqueries/y.sql`\n```sh\n`src/no.rs`\n```\n`c`";
    let spans: Vec<(usize, String)> = code_spans(text);
    assert_eq!(
        spans,
        [
            (1, "src/a.rs:12".to_owned()),
            (1, "tests/it/x.rs#L3 and queries/y.sql".to_owned()),
            (6, "c".to_owned()),
        ]
    );
    assert_eq!(path_of_word("src/a.rs:12"), "src/a.rs");
    assert_eq!(path_of_word("(tests/it/x.rs#L3),"), "tests/it/x.rs");
    for pattern in [
        "queries/NAME.sql",
        "cmd/NAME.rs",
        "tests/it/snapshots/it__query__*.snap",
        "OUT/_shards/TABLE/shard=K/",
        "LAKE/<table>/",
    ] {
        assert!(is_pattern(pattern), "{pattern}");
    }
    assert!(!is_pattern("src/replay/unwinnable/blocked.rs"));
    assert_eq!(
        doc_path_base("sink/schema.rs"),
        Some(manifest().join("src"))
    );
    assert_eq!(doc_path_base("benches/floor/"), Some(manifest().to_owned()));
    assert_eq!(doc_path_base("out/rejects.parquet"), None);
    assert_eq!(doc_path_base("../shared/data"), None);
    assert_eq!(doc_path_base("cli.rs"), None);
}

// ------------------------------------------------------------ examples

/// The commands of the ```` ```sh ```` blocks of `text` that mention
/// `sample-data`, in order: continuation lines joined, comments dropped.
fn runnable_commands(text: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut block: Option<Vec<String>> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        match &mut block {
            None if trimmed == "```sh" => block = Some(Vec::new()),
            None => {}
            Some(lines) if trimmed == "```" => {
                if lines.iter().any(|l| l.contains("sample-data")) {
                    commands.extend(join_continuations(lines));
                }
                block = None;
            }
            Some(lines) => lines.push(line.to_owned()),
        }
    }
    commands
}

fn join_continuations(lines: &[String]) -> Vec<String> {
    let mut commands = Vec::new();
    let mut current = String::new();
    for line in lines {
        let line = line.trim();
        if current.is_empty() && (line.is_empty() || line.starts_with('#')) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(part) => {
                current.push_str(part);
                current.push(' ');
            }
            None => {
                current.push_str(line);
                commands.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.trim().is_empty() {
        commands.push(current);
    }
    commands
}

/// A command line's words, as a POSIX shell splits them (quotes, no
/// expansion); an unquoted `#` starts a comment.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                w.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        c => w.push(c),
                    }
                }
            }
            '#' if word.is_none() => break,
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

#[test]
fn shell_words_split_as_a_shell_does() {
    assert_eq!(
        words(r#"pgnlake query -e "select 'a' as x" --data out   # a comment"#),
        ["pgnlake", "query", "-e", "select 'a' as x", "--data", "out"]
    );
    assert_eq!(words("a 'b c'd"), ["a", "b cd"]);
}

/// Runs the examples of `file` in a fresh folder holding `sample-data/` and
/// `queries/` (links to the project's), one after another.
fn run_examples(file: &str) -> usize {
    let text = read(&manifest().join(file));
    let commands = runnable_commands(&text);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for linked in ["sample-data", "queries"] {
        std::os::unix::fs::symlink(manifest().join(linked), dir.path().join(linked))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    for command in &commands {
        let words = words(command);
        assert_eq!(
            words.first().map(String::as_str),
            Some("pgnlake"),
            "{file}: a runnable example runs pgnlake only: {command}"
        );
        let output = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
            .args(&words[1..])
            .current_dir(dir.path())
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            output.status.success(),
            "{file}: `{command}` exited {:?}:\n{}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    commands.len()
}

#[test]
fn readme_examples_run() {
    assert!(run_examples("README.md") >= 4, "the README's tour runs");
}

#[test]
fn guide_examples_run() {
    assert!(
        run_examples("docs/guide.md") >= 10,
        "the guide's examples run"
    );
}

#[test]
fn every_help_names_its_guide_section() {
    let guide = anchors(&read(&manifest().join("docs/guide.md")));
    for command in [
        "import",
        "merge",
        "explore",
        "serve",
        "key",
        "clean",
        "query",
        "report",
        "unwinnable",
        "schema",
        "lake",
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
            .args([command, "--help"])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let help = String::from_utf8_lossy(&output.stdout);
        let link = format!("docs/guide.md#{command}");
        assert!(help.contains(&link), "{command} --help: {help}");
        assert!(guide.contains(command), "docs/guide.md has no #{command}");
    }
    let output = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .arg("--help")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(String::from_utf8_lossy(&output.stdout).contains("docs/guide.md"));
}
