//! `pgnlake report`: the numbers each chart gets from the sample import's
//! tables, and the page opened in a real browser (headless Chromium): every
//! section there, every chart an SVG with marks, no console error, and a
//! screenshot kept under the target folder.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use pgnlake::report::charts::data_marks;
use pgnlake::report::data;

fn sample_import() -> common::Imported {
    common::import(
        &[Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data")],
        2,
    )
}

#[test]
fn each_chart_gets_its_numbers_from_the_tables() {
    let run = sample_import();
    let numbers = data::read(run.dir.path()).unwrap_or_else(|e| panic!("{e:?}"));
    let facts = numbers.run.clone().unwrap_or_default();
    assert_eq!(
        (
            facts.games_read,
            facts.accepted,
            facts.rejected,
            facts.balanced
        ),
        (144, 113, 31, true)
    );
    assert_eq!(
        facts.rejected_by_reason.first(),
        Some(&("unknown_token".to_owned(), 12))
    );
    assert_eq!(facts.inputs.len(), 9);
    let end_states: Vec<(&str, u64, u64, u64, u64)> = numbers
        .by_end_state
        .iter()
        .map(|(s, c)| (s.as_str(), c.games, c.white_wins, c.draws, c.black_wins))
        .collect();
    assert_eq!(
        end_states,
        [
            ("none", 72, 26, 10, 17),
            ("checkmate", 20, 8, 0, 12),
            ("variant_loss", 10, 6, 0, 4),
            ("stalemate", 3, 0, 3, 0),
            ("dead_position", 2, 0, 2, 0),
            ("variant_win", 2, 1, 0, 1),
            ("fivefold_repetition", 1, 0, 1, 0),
            ("insufficient_material", 1, 0, 1, 0),
            ("seventyfive_moves", 1, 0, 1, 0),
            ("variant_draw", 1, 0, 1, 0),
        ]
    );
    let first = numbers
        .top_openings
        .first()
        .map(|o| (o.0.as_str(), o.1.as_str(), o.2.games));
    assert_eq!(
        first,
        Some(("King's Knight Opening: Normal Variation", "C44", 15))
    );
    assert_eq!(
        numbers
            .endgames
            .first()
            .map(|e| (e.signature.as_str(), e.games)),
        Some(("KQvK", 4))
    );
    // The tree's first moves: the start position holds the 70 standard games.
    let start = numbers
        .first_moves
        .first()
        .map(|(_, moves)| moves.iter().map(|m| m.games).sum::<u64>());
    assert_eq!(start, Some(70));
    assert_eq!(numbers.first_moves.len(), 3);
}

/// What the years, draws, rating and material charts plot, against DuckDB's
/// sums over the same Parquet tables.
#[test]
fn duckdb_sums_the_charts_numbers_alike() {
    let run = sample_import();
    let numbers = data::read(run.dir.path()).unwrap_or_else(|e| panic!("{e:?}"));
    let mut ours = Vec::new();
    for (year, classes) in &numbers.games_by_year {
        for (class, games) in classes {
            ours.push(format!("year {year} {class} {games}"));
        }
    }
    for (class, (_, reasons)) in &numbers.by_time_class {
        for (reason, draws) in reasons {
            ours.push(format!("draws {class} {reason} {draws}"));
        }
    }
    for (bucket, counts) in &numbers.by_rating_diff {
        ours.push(format!(
            "rating {bucket} {} {}",
            counts.games, counts.white_wins
        ));
    }
    for (ply, diffs) in &numbers.material {
        for (diff, counts) in diffs {
            ours.push(format!(
                "material {ply} {diff} {} {}",
                counts.games, counts.white_wins
            ));
        }
    }
    ours.sort();
    let theirs = common::run_oracle("report_numbers.py", &[run.dir.path().as_os_str()]);
    assert_eq!(ours, theirs);
    // The sample has every kind: years, draw reasons, ratings, material.
    for chart in ["year", "draws", "rating", "material"] {
        assert!(ours.iter().any(|l| l.starts_with(chart)), "{chart}");
    }
}

/// Chromium, installed by scripts/test (`PGNLAKE_CHROMIUM` to choose one).
fn chromium() -> String {
    let candidates = std::env::var("PGNLAKE_CHROMIUM")
        .into_iter()
        .chain(["chromium", "chromium-browser", "google-chrome"].map(String::from));
    for candidate in candidates {
        let found = Command::new(&candidate).arg("--version").output();
        if found.is_ok_and(|o| o.status.success()) {
            return candidate;
        }
    }
    panic!("no Chromium: run scripts/test (or: apt-get install chromium)");
}

/// Headless Chromium on `page` with `extra` arguments: stdout and stderr.
fn headless(page: &Path, profile: &Path, extra: &[String]) -> (String, String) {
    let output = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap_or_else(|e| panic!("chromium: {e}"));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The folder the test binary runs from (`target/debug`), for artefacts.
fn artefact_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent().map(Path::to_path_buf))
        .unwrap_or_else(std::env::temp_dir)
}

#[test]
fn the_report_opens_in_a_real_browser() {
    let run = sample_import();
    let page = run.dir.path().join("report.html");
    let output = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(["report", "--data"])
        .arg(run.dir.path())
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap_or_default();
    // Self-contained: nothing fetched (the SVG namespace is a name, not a
    // fetch), no script.
    for fetch in ["<script", "<link", "src=", "href=\"http", "url(", "@import"] {
        assert!(!html.contains(fetch), "{fetch}");
    }
    let profile = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (dom, log) = headless(&page, profile.path(), &["--dump-dom".to_owned()]);
    let sections = [
        "run", "years", "results", "rating", "draws", "openings", "families", "bands", "tree",
        "material", "endgames",
    ];
    for id in sections {
        let start = dom
            .find(&format!("<section id=\"{id}\">"))
            .unwrap_or_else(|| panic!("section {id} missing"));
        let body = dom.get(start..).unwrap_or_default();
        let body = body
            .get(..body.find("</section>").unwrap_or(body.len()))
            .unwrap_or_default();
        assert!(body.contains("<h2>"), "{id}: no title");
        assert!(body.contains("class=\"caption\""), "{id}: no caption");
        // Every section of the sample has data: each is a chart with marks.
        assert!(body.contains("<svg"), "{id}: no chart");
        for svg in body.split("<svg").skip(1) {
            let svg = svg
                .get(..svg.find("</svg>").unwrap_or(svg.len()))
                .unwrap_or_default();
            // Marks of the data, not only the background and the legend.
            assert!(data_marks(svg) > 0, "{id}: a chart without marks");
            assert!(svg.contains("<text"), "{id}: a chart without labels");
        }
    }
    // The rating chart draws the Elo expectation beside the games' scores,
    // and every chart's numbers are in the page.
    assert!(dom.contains("expected (Elo)"));
    assert_eq!(
        dom.matches("<details>").count(),
        dom.matches("<svg").count()
    );
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "{console:?}");
    // The control: a page that does write to the console is seen to.
    let noisy = run.dir.path().join("noisy.html");
    std::fs::write(&noisy, "<script>console.error('control')</script>")
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, noisy_log) = headless(&noisy, profile.path(), &["--dump-dom".to_owned()]);
    assert!(
        noisy_log
            .lines()
            .any(|l| l.contains("CONSOLE") && l.contains("control")),
        "{noisy_log}"
    );
    let screenshot = artefact_dir().join("report-sample.png");
    let _ = std::fs::remove_file(&screenshot);
    headless(
        &page,
        profile.path(),
        &[
            format!("--screenshot={}", screenshot.display()),
            "--window-size=1280,6000".to_owned(),
        ],
    );
    let png = std::fs::read(&screenshot).unwrap_or_default();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{}",
        screenshot.display()
    );
}

#[test]
fn a_missing_folder_is_one_line_and_exit_2() {
    let output = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(["report", "--data", "no/such/folder", "-o", "-"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no/such/folder"), "{stderr}");
}

/// An import without the opening tree, of games without ratings: those
/// sections say why they are empty, the others still draw.
#[test]
fn sections_without_data_say_so_on_a_real_import() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out");
    let import = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .arg("import")
        .arg(common::sample("walled-kings.pgn"))
        .args(["--opening-plies", "0", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(import.status.success(), "{import:?}");
    let report = Command::new(env!("CARGO_BIN_EXE_pgnlake"))
        .args(["report", "-o", "-", "--data"])
        .arg(&out)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(report.status.success(), "{report:?}");
    let page = String::from_utf8_lossy(&report.stdout);
    let section = |id: &str| {
        page.split(&format!("<section id=\"{id}\">"))
            .nth(1)
            .and_then(|s| s.split("</section>").next())
            .unwrap_or_default()
            .to_owned()
    };
    for id in ["tree", "rating", "openings"] {
        assert!(
            section(id).contains("class=\"empty\""),
            "{id}: {}",
            section(id)
        );
        assert!(!section(id).contains("<svg"), "{id}");
    }
    assert!(section("run").contains("No game was rejected."));
    assert!(
        section("results").contains("<svg"),
        "{}",
        section("results")
    );
}

/// The report of `data` measured in Chromium (`tests/oracle/report_layout.py`):
/// its JSON line, and the page.
fn layout(data: &Path) -> (serde_json::Value, String) {
    let page = data.join("report.html");
    let d = common::text(data);
    let p = common::text(&page);
    common::ok(common::pgnlake(&["report", "--data", &d, "-o", &p]));
    let lines = common::run_oracle("report_layout.py", &[page.as_os_str()]);
    let line = lines.last().cloned().unwrap_or_default();
    let json = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    (json, std::fs::read_to_string(&page).unwrap_or_default())
}

/// The lichess sample's games, each its own text.
fn lichess_games() -> Vec<String> {
    let text = std::fs::read_to_string(common::sample("lichess-2025-05-30games.pgn"))
        .unwrap_or_else(|e| panic!("{e}"));
    let games: Vec<String> = text
        .split("\n\n[Event ")
        .enumerate()
        .map(|(i, g)| match i {
            0 => format!("{}\n\n", g.trim_end()),
            _ => format!("[Event {}\n\n", g.trim_end()),
        })
        .collect();
    assert_eq!(games.len(), 30);
    games
}

/// The charts as drawn, for an import of one game, of one month, of one
/// year and a lake of thirty years: no legend over a bar or a line, shares
/// up to 100 %, counts up to their greatest, years on a continuous axis,
/// a table (not a chart) where there is one category, and each chart's
/// numbers as CSV.
#[test]
fn the_charts_are_laid_out_without_flaws_from_one_game_to_a_lake_of_many_years() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let games = lichess_games();
    let sections = |json: &serde_json::Value| -> Vec<String> {
        serde_json::from_value(json["sections"].clone()).unwrap_or_default()
    };

    // One game: every section with data is a table.
    let one = dir.path().join("one.pgn");
    std::fs::write(&one, &games[0]).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("one");
    common::app::import_to(&[one], &out);
    let (json, page) = layout(&out);
    assert_eq!(json["charts"], 0, "{json}");
    assert!(!page.contains("<svg"), "a chart of one game");
    assert!(page.contains("<section id=\"bands\">"), "{page}");

    // One month: no time chart (one month, one year), the others drawn.
    let out = dir.path().join("month");
    common::app::import_to(&[common::sample("lichess-2025-05-30games.pgn")], &out);
    let (json, _) = layout(&out);
    let drawn = sections(&json);
    assert!(!drawn.contains(&"years".to_owned()) && !drawn.contains(&"families".to_owned()));
    assert!(drawn.contains(&"bands".to_owned()), "{json}");

    // One year, a month each of its twelve: the families month by month.
    let year = dir.path().join("year.pgn");
    let moved: String = games
        .iter()
        .enumerate()
        .map(|(i, g)| g.replace("2025.05.01", &format!("2024.{:02}.01", i % 12 + 1)))
        .collect();
    std::fs::write(&year, moved).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("year");
    common::app::import_to(&[year], &out);
    let (json, _) = layout(&out);
    let drawn = sections(&json);
    assert!(drawn.contains(&"families".to_owned()), "{json}");
    assert!(!drawn.contains(&"years".to_owned()), "{json}");

    // A lake of thirty years (1995 to 2025, with gaps).
    let lake = dir.path().join("lake");
    for name in ["openings.pgn", "results.pgn", "lichess-2025-05-30games.pgn"] {
        let input = common::text(&common::sample(name));
        common::ok(common::pgnlake(&[
            "import",
            &input,
            "--into",
            &common::text(&lake),
            "-q",
        ]));
    }
    let (json, _) = layout(&lake);
    let drawn = sections(&json);
    for id in ["years", "families", "bands", "rating", "results"] {
        assert!(drawn.contains(&id.to_owned()), "{id}: {json}");
    }
    assert!(json["passed"]["time"].as_u64() >= Some(1), "{json}");
    assert!(json["passed"]["legend"].as_u64() >= Some(5), "{json}");
    eprintln!("report layout, lake of thirty years: {json}");
}
