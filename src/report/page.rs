//! Report, the page: one self-contained HTML file (inline SVG and CSS, no
//! script, nothing fetched), a section per question, each a chart with its
//! title, axis labels, a caption naming its table, and its numbers in a
//! small table beside it; an empty section says so. The sections are plain
//! data (blocks of text, tables and charts) written by askama's template
//! (`templates/report.html`), which escapes every value; the style is its
//! own file (`assets/report.css`), put in the page at build time.

use std::collections::BTreeMap;

use askama::Template;

use crate::report::charts::{self, Bars, Drawn, Line, Lines, Series};
use crate::report::data::{MATERIAL_PLIES, ReportData, TOP_ENDGAMES, TOP_OPENINGS};
use crate::stats::counts::Counts;

/// The page's style.
const STYLE: &str = include_str!("assets/report.css");

/// One section: its anchor, title, caption and body (charts and tables),
/// or why it is empty.
struct Section {
    id: &'static str,
    title: &'static str,
    caption: String,
    body: Result<Vec<Block>, String>,
}

/// A part of a section's body.
enum Block {
    /// A paragraph.
    Text(String),
    /// A paragraph saying what is missing.
    Empty(String),
    /// A sub-heading.
    Heading(String),
    Table(Table),
    Chart(Chart),
}

/// A table of text cells, its header first (none when empty).
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn new(header: &[impl AsRef<str>], rows: &[Vec<String>]) -> Table {
        Table {
            header: header.iter().map(|h| h.as_ref().to_owned()).collect(),
            rows: rows.to_vec(),
        }
    }
}

/// A chart (plotters' SVG, its labels escaped by plotters), every number
/// it plots (folded under it) and its summary table beside it.
struct Chart {
    svg: String,
    numbers: Table,
    summary: Table,
}

/// The whole page, as its template takes it.
#[derive(Template)]
#[template(path = "report/templates/report.html", config = "src/askama.toml")]
struct ReportPage<'a> {
    /// The import's folder, as given.
    source: &'a str,
    sections: Vec<Section>,
}

/// Blocks alone, as the page writes them (for the tests of a section's
/// parts).
#[cfg(test)]
#[derive(Template)]
#[template(path = "report/templates/blocks.html", config = "src/askama.toml")]
struct Blocks<'a> {
    blocks: &'a [Block],
}

/// The whole page.
pub(crate) fn render(data: &ReportData, source: &str) -> Result<String, String> {
    let sections = [
        run(data),
        years(data),
        end_states(data),
        rating(data),
        draws(data),
        openings(data),
        tree(data)?,
        material(data),
        endgames(data),
    ];
    let page = ReportPage {
        source,
        sections: sections.into(),
    };
    let mut html = page.render().map_err(|e| e.to_string())?;
    html.push('\n');
    Ok(html)
}

/// A chart with every number it plots (folded under it) and its summary
/// table beside it.
fn chart_and_table(
    chart: Result<Drawn, String>,
    header: &[&str],
    rows: &[Vec<String>],
) -> Result<Block, String> {
    let chart = chart?;
    Ok(Block::Chart(Chart {
        numbers: Table::new(&chart.header, &chart.rows),
        svg: chart.svg,
        summary: Table::new(header, rows),
    }))
}

fn percent(value: Option<f64>) -> String {
    value.map_or("–".into(), |v| format!("{:.1}%", v * 100.0))
}

/// Shares of white wins, draws and black wins (percent of finished games).
fn result_series(counts: &[Counts], names: [&str; 3]) -> Vec<Series> {
    let share = |n: fn(&Counts) -> u64| -> Vec<f64> {
        counts
            .iter()
            .map(|c| match c.finished() {
                0 => 0.0,
                finished => 100.0 * n(c) as f64 / finished as f64,
            })
            .collect()
    };
    let values = [
        share(|c| c.white_wins),
        share(|c| c.draws),
        share(|c| c.black_wins),
    ];
    names
        .iter()
        .zip(values)
        .zip(charts::RESULT_COLOURS)
        .map(|((name, values), colour)| Series {
            name: (*name).to_owned(),
            values,
            colour,
        })
        .collect()
}

const WDB: [&str; 3] = ["white wins", "draws", "black wins"];

fn counts_row(label: String, c: &Counts) -> Vec<String> {
    vec![
        label,
        c.games.to_string(),
        percent(share(c.white_wins, c.finished())),
        percent(share(c.draws, c.finished())),
        percent(share(c.black_wins, c.finished())),
    ]
}

fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// Named counts as horizontal bars, with their table.
fn counts_chart(counts: &[(String, u64)], what: &str, unit: &str) -> Result<Block, String> {
    let chart = Bars {
        x_label: unit.into(),
        y_label: what.into(),
        categories: counts.iter().map(|c| c.0.clone()).collect(),
        series: vec![Series {
            name: unit.into(),
            values: counts.iter().map(|c| c.1 as f64).collect(),
            colour: charts::VERMILLION,
        }],
        horizontal: true,
    };
    let rows: Vec<Vec<String>> = counts
        .iter()
        .map(|(name, n)| vec![name.clone(), n.to_string()])
        .collect();
    chart_and_table(charts::bars(&chart), &[what, unit], &rows)
}

/// The result audit: how many declared results the board confirms, and a
/// chart of the others (beside hundreds of thousands of consistent games
/// a few dozen contradictions would not show as bars).
fn audit(checks: &[(String, u64)]) -> Result<Vec<Block>, String> {
    let (consistent, contradicted): (Vec<_>, Vec<_>) = checks
        .iter()
        .cloned()
        .partition(|(check, _)| check == "consistent");
    let confirmed: u64 = consistent.iter().map(|(_, n)| n).sum();
    let said = format!("{confirmed} games: the declared result is consistent with the board.");
    if contradicted.is_empty() {
        return Ok(vec![Block::Text(format!(
            "{said} No declared result contradicts it."
        ))]);
    }
    Ok(vec![
        Block::Text(format!("{said} The others, by what the board shows:")),
        counts_chart(&contradicted, "result check", "games")?,
    ])
}

fn run(data: &ReportData) -> Section {
    let body = match &data.run {
        None => Err("No summary.json in this folder.".to_owned()),
        Some(run) if run.rejected_by_reason.is_empty() => Ok(vec![
            run_table(run),
            Block::Text("No game was rejected.".into()),
        ]),
        Some(run) => counts_chart(&run.rejected_by_reason, "reason", "games rejected")
            .map(|chart| vec![run_table(run), chart]),
    };
    Section {
        id: "run",
        title: "The run",
        caption: "Games read, accepted and rejected, the rejects by reason, and the inputs (summary.json).".into(),
        body,
    }
}

fn run_table(run: &crate::report::data::RunFacts) -> Block {
    let pair = |name: &str, value: String| vec![name.to_owned(), value];
    let mut rows = vec![
        pair("games read", run.games_read.to_string()),
        pair("accepted", run.accepted.to_string()),
        pair("rejected", run.rejected.to_string()),
        pair(
            "read = accepted + rejected",
            if run.balanced { "yes" } else { "NO (mismatch)" }.to_owned(),
        ),
    ];
    if run.repaired > 0 {
        rows.push(pair(
            "accepted after repair (--repair)",
            run.repaired.to_string(),
        ));
    }
    for (path, games) in &run.inputs {
        rows.push(pair(path, games.to_string()));
    }
    Block::Table(Table {
        header: Vec::new(),
        rows,
    })
}

/// Most bars the years chart draws: a longer span is drawn by decade (an
/// archive of masters' games spans two centuries: 180 bars would be thinner
/// than the gaps between them), or by century.
const MOST_PERIODS: i64 = 40;

/// The games per time class of each year, or of each decade (`1950s`) or
/// century (`1800–1899`) when the years span more than [`MOST_PERIODS`].
fn periods(by_year: &BTreeMap<i32, BTreeMap<String, u64>>) -> Vec<(String, BTreeMap<String, u64>)> {
    let (Some(first), Some(last)) = (by_year.keys().next(), by_year.keys().next_back()) else {
        return Vec::new();
    };
    let span = i64::from(*last) - i64::from(*first);
    let width = [1, 10, 100, 1000]
        .into_iter()
        .find(|w| span / w < MOST_PERIODS)
        .unwrap_or(10_000);
    let mut periods: BTreeMap<i64, BTreeMap<String, u64>> = BTreeMap::new();
    for (year, m) in by_year {
        let period = periods
            .entry(i64::from(*year).div_euclid(width) * width)
            .or_default();
        for (class, games) in m {
            *period.entry(class.clone()).or_default() += games;
        }
    }
    let name = |start: i64| match width {
        1 => start.to_string(),
        10 => format!("{start}s"),
        _ => format!("{start}–{}", start + width - 1),
    };
    periods
        .into_iter()
        .map(|(start, m)| (name(start), m))
        .collect()
}

fn years(data: &ReportData) -> Section {
    let mut classes: Vec<String> = data
        .games_by_year
        .values()
        .flat_map(|m| m.keys().cloned())
        .collect();
    classes.sort();
    classes.dedup();
    let periods = periods(&data.games_by_year);
    let body = if periods.is_empty() {
        Err("No game has a year (no Date tag with one).".to_owned())
    } else {
        let chart = Bars {
            x_label: "year".into(),
            y_label: "games".into(),
            categories: periods.iter().map(|(name, _)| name.clone()).collect(),
            series: classes
                .iter()
                .zip(charts::PALETTE.iter().cycle())
                .map(|(class, colour)| Series {
                    name: class.clone(),
                    values: periods
                        .iter()
                        // A period without games of the class: none.
                        .map(|(_, m)| m.get(class).copied().unwrap_or_default() as f64)
                        .collect(),
                    colour: *colour,
                })
                .collect(),
            horizontal: false,
        };
        let rows: Vec<Vec<String>> = periods
            .iter()
            .rev()
            .take(12)
            .map(|(name, m)| vec![name.clone(), m.values().sum::<u64>().to_string()])
            .collect();
        chart_and_table(charts::bars(&chart), &["latest 12", "games"], &rows).map(|b| vec![b])
    };
    Section {
        id: "years",
        title: "Games per year and time class",
        caption: "Accepted games per year (per decade over a long span), stacked by time class \
             (results table)."
            .into(),
        body,
    }
}

fn end_states(data: &ReportData) -> Section {
    let body = if data.by_end_state.is_empty() {
        Err("No results table in this folder.".to_owned())
    } else {
        let counts: Vec<Counts> = data.by_end_state.iter().map(|e| e.1).collect();
        let chart = Bars {
            x_label: "share of finished games (%)".into(),
            y_label: "end state".into(),
            categories: data.by_end_state.iter().map(|e| e.0.clone()).collect(),
            series: result_series(&counts, WDB),
            horizontal: true,
        };
        let rows: Vec<Vec<String>> = data
            .by_end_state
            .iter()
            .map(|(state, c)| counts_row(state.clone(), c))
            .collect();
        let by_end_state = chart_and_table(
            charts::bars(&chart),
            &["end state", "games", "white", "draws", "black"],
            &rows,
        );
        // Without summary.json there is no audit to show.
        let checks = data
            .run
            .as_ref()
            .map(|r| r.result_checks.as_slice())
            .unwrap_or_default();
        by_end_state.and_then(|chart| {
            let mut body = vec![chart];
            if !checks.is_empty() {
                body.push(Block::Heading(
                    "The result audit: the declared result against the board".into(),
                ));
                body.extend(audit(checks)?);
            }
            Ok(body)
        })
    };
    Section {
        id: "results",
        title: "Results by end state, and the result audit",
        caption: "How the games ended on the board and the declared results of each (results \
                  table); what the audit found when it compared the two (summary.json)."
            .into(),
        body,
    }
}

/// White's expected score at a rating difference (the Elo curve).
pub(crate) fn expected_score(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

fn rating(data: &ReportData) -> Section {
    let points: Vec<(f64, f64)> = data
        .by_rating_diff
        .iter()
        .filter_map(|(bucket, c)| c.white_score().map(|s| (f64::from(*bucket) + 25.0, s)))
        .collect();
    let body = if points.is_empty() {
        Err("No game has both ratings.".to_owned())
    } else {
        let expected: Vec<(f64, f64)> = (-16..=16)
            .map(|i| {
                let d = f64::from(i) * 50.0;
                (d, expected_score(d))
            })
            .collect();
        let chart = Lines {
            x_label: "white Elo − black Elo (50-point buckets)".into(),
            y_label: "white's score".into(),
            x_range: (-800.0, 850.0),
            y_range: (0.0, 1.0),
            series: vec![
                Line {
                    name: "observed".into(),
                    points,
                    colour: charts::VERMILLION,
                },
                Line {
                    name: "expected (Elo)".into(),
                    points: expected,
                    colour: charts::BLUE,
                },
            ],
        };
        let rows: Vec<Vec<String>> = data
            .by_rating_diff
            .iter()
            .map(|(bucket, c)| {
                vec![
                    bucket.to_string(),
                    c.games.to_string(),
                    percent(c.white_score()),
                ]
            })
            .collect();
        chart_and_table(
            charts::lines(&chart),
            &["bucket", "games", "white score"],
            &rows,
        )
        .map(|b| vec![b])
    };
    Section {
        id: "rating",
        title: "White's score against the rating difference",
        caption: "White's score (wins and half the draws over finished games) per 50-point bucket \
                  of the rating difference, beside the Elo expectation (results table)."
            .into(),
        body,
    }
}

fn draws(data: &ReportData) -> Section {
    let mut reasons: Vec<String> = data
        .by_time_class
        .values()
        .flat_map(|(_, r)| r.keys().cloned())
        .collect();
    reasons.sort();
    reasons.dedup();
    let body = if data.by_time_class.is_empty() {
        Err("No results table in this folder.".to_owned())
    } else if reasons.is_empty() {
        Err("No drawn game.".to_owned())
    } else {
        let chart = Bars {
            x_label: "time class".into(),
            y_label: "drawn games".into(),
            categories: data.by_time_class.keys().cloned().collect(),
            series: reasons
                .iter()
                .zip(charts::PALETTE.iter().cycle())
                .map(|(reason, colour)| Series {
                    name: reason.clone(),
                    values: data
                        .by_time_class
                        .values()
                        // A time class without draws of the reason: none.
                        .map(|(_, r)| r.get(reason).copied().unwrap_or_default() as f64)
                        .collect(),
                    colour: *colour,
                })
                .collect(),
            horizontal: false,
        };
        let rows: Vec<Vec<String>> = data
            .by_time_class
            .iter()
            .map(|(class, (c, _))| vec![class.clone(), c.games.to_string(), percent(c.draw_rate())])
            .collect();
        chart_and_table(
            charts::bars(&chart),
            &["time class", "games", "draw rate"],
            &rows,
        )
        .map(|b| vec![b])
    };
    Section {
        id: "draws",
        title: "Draw rate and draw reasons by time class",
        caption:
            "Drawn games of each time class stacked by why they were drawn, and the draw rate \
                  (results table)."
                .into(),
        body,
    }
}

fn openings(data: &ReportData) -> Section {
    let body = if data.top_openings.is_empty() {
        Err("No named opening (no opening_lines table, or no standard game).".to_owned())
    } else {
        let counts: Vec<Counts> = data.top_openings.iter().map(|o| o.2).collect();
        let chart = Bars {
            x_label: "share of finished games (%)".into(),
            y_label: "opening".into(),
            categories: data
                .top_openings
                .iter()
                .map(|(name, eco, _)| short(&format!("{eco} {name}"), 44))
                .collect(),
            series: result_series(&counts, WDB),
            horizontal: true,
        };
        let rows: Vec<Vec<String>> = data
            .top_openings
            .iter()
            .map(|(name, eco, c)| counts_row(format!("{eco} {name}"), c))
            .collect();
        chart_and_table(
            charts::bars(&chart),
            &["opening", "games", "white", "draws", "black"],
            &rows,
        )
        .map(|b| vec![b])
    };
    Section {
        id: "openings",
        title: "The most played openings",
        caption: format!(
            "The {TOP_OPENINGS} most played named openings and their results (opening_lines table)."
        ),
        body,
    }
}

fn short(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_owned();
    }
    let cut: String = text.chars().take(chars - 1).collect();
    format!("{cut}…")
}

fn tree(data: &ReportData) -> Result<Section, String> {
    let mut body = Vec::new();
    for (label, moves) in &data.first_moves {
        let moves: Vec<_> = moves.iter().take(8).collect();
        if moves.is_empty() {
            let position = match label.as_str() {
                "start" => "the start position".to_owned(),
                after => format!("the position after {after}"),
            };
            body.push(Block::Empty(format!(
                "No game of the opening tree reaches {position} (an import with \
                 --opening-plies 0 has no tree)."
            )));
            continue;
        }
        let counts: Vec<Counts> = moves
            .iter()
            .map(|m| Counts {
                games: m.games,
                white_wins: m.white_wins,
                draws: m.draws,
                black_wins: m.black_wins,
            })
            .collect();
        let chart = Bars {
            x_label: "share of finished games (%)".into(),
            y_label: format!("move ({label})"),
            categories: moves.iter().map(|m| m.san.clone()).collect(),
            series: result_series(&counts, WDB),
            horizontal: true,
        };
        let rows: Vec<Vec<String>> = moves
            .iter()
            .zip(&counts)
            .map(|(m, c)| counts_row(m.san.clone(), c))
            .collect();
        body.push(Block::Heading(if label == "start" {
            "The start position".to_owned()
        } else {
            format!("After {label}")
        }));
        body.push(chart_and_table(
            charts::bars(&chart),
            &["move", "games", "white", "draws", "black"],
            &rows,
        )?);
    }
    Ok(Section {
        id: "tree",
        title: "The first moves of the opening tree",
        caption: "The moves played from the start position, after 1.e4 and after 1.d4, with their \
                  results (openings table, transpositions included)."
            .into(),
        body: if data.first_moves.is_empty() {
            Err("No opening tree (openings table) in this folder.".to_owned())
        } else {
            Ok(body)
        },
    })
}

fn material(data: &ReportData) -> Section {
    let series: Vec<Line> = MATERIAL_PLIES
        .iter()
        .zip([charts::ORANGE, charts::GREEN, charts::BLUE])
        .filter_map(|(ply, colour)| {
            let points: Vec<(f64, f64)> = data
                .material
                .get(ply)?
                .iter()
                .filter(|(_, c)| c.finished() > 0)
                .filter_map(|(diff, c)| c.white_score().map(|s| (f64::from(*diff), s)))
                .collect();
            (!points.is_empty()).then(|| Line {
                name: format!("ply {ply}"),
                points,
                colour,
            })
        })
        .collect();
    let body = if series.is_empty() {
        Err("No game reaches ply 20 (no material table rows).".to_owned())
    } else {
        let chart = Lines {
            x_label: "white − black material (pawns)".into(),
            y_label: "white's score".into(),
            x_range: (-9.0, 9.0),
            y_range: (0.0, 1.0),
            series,
        };
        let rows: Vec<Vec<String>> = MATERIAL_PLIES
            .iter()
            .filter_map(|ply| {
                let at = data.material.get(ply)?;
                let mut lead = Counts::default();
                for (_, counts) in at.iter().filter(|(diff, _)| **diff >= 1) {
                    lead += counts;
                }
                Some(vec![
                    format!("ply {ply}, white ahead"),
                    lead.games.to_string(),
                    percent(lead.white_score()),
                ])
            })
            .collect();
        chart_and_table(
            charts::lines(&chart),
            &["checkpoint", "games", "white score"],
            &rows,
        )
        .map(|b| vec![b])
    };
    Section {
        id: "material",
        title: "Converting a material lead",
        caption:
            "White's score against the material difference at plies 20, 40 and 60 (material table)."
                .into(),
        body,
    }
}

fn endgames(data: &ReportData) -> Section {
    let body = if data.endgames.is_empty() {
        Err("No game reached an endgame (no endgames table rows).".to_owned())
    } else {
        let counts: Vec<Counts> = data
            .endgames
            .iter()
            .map(|e| Counts {
                games: e.games,
                white_wins: e.stronger,
                draws: e.draws,
                black_wins: e.weaker,
            })
            .collect();
        let chart = Bars {
            x_label: "share of finished games (%)".into(),
            y_label: "endgame".into(),
            categories: data.endgames.iter().map(|e| e.signature.clone()).collect(),
            series: result_series(&counts, ["stronger side wins", "draws", "weaker side wins"]),
            horizontal: true,
        };
        let rows: Vec<Vec<String>> = data
            .endgames
            .iter()
            .zip(&counts)
            .map(|(e, c)| counts_row(e.signature.clone(), c))
            .collect();
        chart_and_table(
            charts::bars(&chart),
            &["endgame", "games", "stronger", "draws", "weaker"],
            &rows,
        )
        .map(|b| vec![b])
    };
    Section {
        id: "endgames",
        title: "The most common endgames",
        caption: format!(
            "The {TOP_ENDGAMES} most common first endgames and how they ended, seen from the \
             stronger side (endgames table)."
        ),
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_elo_curve() {
        assert!((expected_score(0.0) - 0.5).abs() < 1e-12);
        assert!((expected_score(400.0) - 10.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn an_empty_import_says_so_in_every_section() {
        let page = render(&ReportData::default(), "out").unwrap_or_else(|e| panic!("{e}"));
        for id in [
            "run", "years", "results", "rating", "draws", "openings", "tree", "material",
            "endgames",
        ] {
            assert!(page.contains(&format!("<section id=\"{id}\">")), "{id}");
        }
        assert_eq!(page.matches("class=\"empty\"").count(), 9);
        assert!(!page.contains("<svg"));
        assert!(!page.contains("<script"));
    }

    fn by_year(years: &[(i32, &str, u64)]) -> BTreeMap<i32, BTreeMap<String, u64>> {
        let mut map: BTreeMap<i32, BTreeMap<String, u64>> = BTreeMap::new();
        for &(year, class, games) in years {
            *map.entry(year)
                .or_default()
                .entry(class.to_owned())
                .or_default() += games;
        }
        map
    }

    #[test]
    fn a_short_span_has_a_bar_a_year_a_long_one_a_bar_a_decade() {
        let short = periods(&by_year(&[(2019, "blitz", 2), (2021, "classical", 3)]));
        let names: Vec<&str> = short.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["2019", "2021"]);
        let long = periods(&by_year(&[
            (1851, "classical", 1),
            (1858, "classical", 2),
            (1999, "classical", 5),
            (1999, "blitz", 4),
            (2024, "blitz", 7),
        ]));
        let rows: Vec<(&str, Option<&u64>, Option<&u64>)> = long
            .iter()
            .map(|(n, m)| (n.as_str(), m.get("classical"), m.get("blitz")))
            .collect();
        assert_eq!(
            rows,
            [
                ("1850s", Some(&3), None),
                ("1990s", Some(&5), Some(&4)),
                ("2020s", None, Some(&7))
            ]
        );
        let wild = periods(&by_year(&[(1, "blitz", 1), (2024, "blitz", 1)]));
        let names: Vec<&str> = wild.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["0–99", "2000–2099"]);
        assert!(periods(&BTreeMap::new()).is_empty());
    }

    /// `blocks` as the page writes them.
    fn blocks(blocks: &Result<Vec<Block>, String>) -> String {
        let blocks = blocks.as_ref().unwrap_or_else(|e| panic!("{e}"));
        Blocks { blocks }.render().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_audit_charts_only_what_the_board_contradicts() {
        let checks = |pairs: &[(&str, u64)]| -> Vec<(String, u64)> {
            pairs.iter().map(|&(c, n)| (c.to_owned(), n)).collect()
        };
        let html = blocks(&audit(&checks(&[
            ("consistent", 454_220),
            ("contradicts_checkmate", 14),
            ("contradicts_stalemate", 1),
        ])));
        assert!(
            html.trim_start()
                .starts_with("<p>454220 games: the declared result is consistent"),
            "{html}"
        );
        assert!(
            html.contains("<td>contradicts_checkmate</td><td>14</td>"),
            "{html}"
        );
        assert!(!html.contains("<td>consistent</td>"), "{html}");
        let all_fine = blocks(&audit(&checks(&[("consistent", 5)])));
        assert!(all_fine.contains("No declared result contradicts it."));
        assert!(!all_fine.contains("<svg"));
    }

    #[test]
    fn names_from_the_archive_are_escaped_and_the_markup_is_ours() {
        let data = ReportData {
            run: Some(crate::report::data::RunFacts {
                inputs: vec![("<b>x</b>&\"y\".pgn".to_owned(), 3)],
                ..Default::default()
            }),
            ..ReportData::default()
        };
        let page = render(&data, "<script>alert(1)</script>").unwrap_or_else(|e| panic!("{e}"));
        assert!(!page.contains("<script"), "{page}");
        assert!(!page.contains("<b>x"), "{page}");
        assert!(page.contains("<code>&#60;script&#62;alert(1)&#60;/script&#62;</code>"));
        assert!(page.contains("<td>&#60;b&#62;x&#60;/b&#62;&#38;&#34;y&#34;.pgn</td><td>3</td>"));
        // The page's own style, from its file.
        assert!(page.contains(".caption { color: #444; }"));
    }

    #[test]
    fn every_plotted_number_is_in_the_page() {
        let data = ReportData {
            games_by_year: by_year(&[(2020, "blitz", 3), (2021, "blitz", 1), (2021, "rapid", 2)]),
            ..ReportData::default()
        };
        let page = render(&data, "out").unwrap_or_else(|e| panic!("{e}"));
        let years = page
            .split("<section id=\"years\">")
            .nth(1)
            .and_then(|s| s.split("</section>").next())
            .unwrap_or_else(|| panic!("no years section in {page}"));
        assert!(years.contains("<details>"), "{years}");
        assert!(
            years.contains("<tr><th>year</th><th>blitz</th><th>rapid</th></tr>")
                && years.contains("<tr><td>2020</td><td>3</td><td>0</td></tr>")
                && years.contains("<tr><td>2021</td><td>1</td><td>2</td></tr>"),
            "{years}"
        );
    }
}
