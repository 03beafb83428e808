//! Report, the page: one self-contained HTML file (inline SVG and CSS, no
//! script, nothing fetched), a section per question, each a chart with its
//! title, axis labels, a caption naming its table, and its numbers in a
//! small table beside it; an empty section says so. The sections are plain
//! data (blocks of text, tables and charts) written by askama's template
//! (`templates/report.html`), which escapes every value; the style is its
//! own file (`assets/report.css`), put in the page at build time.

use std::collections::BTreeMap;

use askama::Template;

use super::blocks::{
    Block, Section, Table, WDB, chart_and_table, counts_chart, counts_row, percent, result_series,
};
use super::openings::{bands, families, openings, tree};
use crate::report::charts::{self, Bars, Line, Lines, Series, Timeline};
use crate::report::data::{MATERIAL_PLIES, ReportData, TOP_ENDGAMES};
use crate::stats::counts::Counts;

/// The page's style.
const STYLE: &str = include_str!("assets/report.css");

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
    /// What names the CSV files (a section's id in the page).
    section: Named,
}

/// A section's id, for [`Blocks`].
#[cfg(test)]
struct Named {
    id: &'static str,
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
        families(data),
        bands(data),
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

/// A period of the years chart: its first year, its width in years, its
/// name and its games per time class.
type Period = (i64, i64, String, BTreeMap<String, u64>);

/// The games per time class of each year, or of each decade (`1950s`) or
/// century (`1800–1899`) when the years span more than [`MOST_PERIODS`].
fn periods(by_year: &BTreeMap<i32, BTreeMap<String, u64>>) -> Vec<Period> {
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
        .map(|(start, m)| (start, width, name(start), m))
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
        let chart = Timeline {
            x_label: "year".into(),
            y_label: "games".into(),
            periods: periods
                .iter()
                .map(|(start, width, name, _)| {
                    (*start as f64, (start + width) as f64, name.clone())
                })
                .collect(),
            series: classes
                .iter()
                .zip(charts::PALETTE.iter().cycle())
                .map(|(class, colour)| Series {
                    name: class.clone(),
                    values: periods
                        .iter()
                        // A period without games of the class: none.
                        .map(|(_, _, _, m)| m.get(class).copied().unwrap_or_default() as f64)
                        .collect(),
                    colour: *colour,
                })
                .collect(),
        };
        let rows: Vec<Vec<String>> = periods
            .iter()
            .rev()
            .take(12)
            .map(|(_, _, name, m)| vec![name.clone(), m.values().sum::<u64>().to_string()])
            .collect();
        chart_and_table(charts::timeline(&chart), &["latest 12", "games"], &rows).map(|b| vec![b])
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
            percent: true,
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
                    reference: false,
                },
                Line {
                    name: "expected (Elo)".into(),
                    points: expected,
                    colour: charts::BLUE,
                    reference: true,
                },
            ],
            gap: None,
            time: false,
            percent: false,
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
            percent: false,
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
                reference: false,
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
            gap: None,
            time: false,
            percent: false,
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
            percent: true,
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
            "run", "years", "results", "rating", "draws", "openings", "families", "bands", "tree",
            "material", "endgames",
        ] {
            assert!(page.contains(&format!("<section id=\"{id}\">")), "{id}");
        }
        assert_eq!(page.matches("class=\"empty\"").count(), 11);
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
        let names: Vec<(i64, i64, &str)> = short
            .iter()
            .map(|(s, w, n, _)| (*s, *w, n.as_str()))
            .collect();
        // On a continuous axis: 2020 has no bar.
        assert_eq!(names, [(2019, 1, "2019"), (2021, 1, "2021")]);
        let long = periods(&by_year(&[
            (1851, "classical", 1),
            (1858, "classical", 2),
            (1999, "classical", 5),
            (1999, "blitz", 4),
            (2024, "blitz", 7),
        ]));
        let rows: Vec<(&str, Option<&u64>, Option<&u64>)> = long
            .iter()
            .map(|(_, _, n, m)| (n.as_str(), m.get("classical"), m.get("blitz")))
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
        let names: Vec<&str> = wild.iter().map(|(_, _, n, _)| n.as_str()).collect();
        assert_eq!(names, ["0–99", "2000–2099"]);
        assert!(periods(&BTreeMap::new()).is_empty());
    }

    /// `blocks` as the page writes them.
    fn blocks(blocks: &Result<Vec<Block>, String>) -> String {
        let blocks = blocks.as_ref().unwrap_or_else(|e| panic!("{e}"));
        Blocks {
            blocks,
            section: Named { id: "test" },
        }
        .render()
        .unwrap_or_else(|e| panic!("{e}"))
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
