//! Report, the openings' sections: the most played named openings, the
//! top families' shares month by month, results by rating band, and the
//! opening tree's first moves.

use std::collections::BTreeMap;

use super::blocks::{Block, Section, WDB, chart_and_table, counts_row, percent, result_series};
use crate::report::charts::{self, Bars, Line, Lines};
use crate::report::data::{ReportData, TOP_OPENINGS};
use crate::stats::counts::Counts;

pub(super) fn openings(data: &ReportData) -> Section {
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
            percent: true,
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

/// How many opening families the families chart follows.
const TOP_FAMILIES: usize = 5;

/// The share of the most played opening families month by month, on a
/// continuous time axis (a month without named games breaks the lines).
pub(super) fn families(data: &ReportData) -> Section {
    let mut totals: BTreeMap<&str, u64> = BTreeMap::new();
    for families in data.families_by_month.values() {
        for (family, games) in families {
            *totals.entry(family.as_str()).or_default() += games;
        }
    }
    let mut top: Vec<(&str, u64)> = totals.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    top.truncate(TOP_FAMILIES);
    let (periods, step) = family_periods(&data.families_by_month);
    let body = if top.is_empty() {
        Err("No named game has a month.".to_owned())
    } else {
        let series: Vec<Line> = top
            .iter()
            .zip(charts::PALETTE)
            .map(|((family, _), colour)| Line {
                name: (*family).to_owned(),
                points: periods
                    .iter()
                    .map(|(x, _, families)| {
                        let all: u64 = families.values().sum();
                        let games = families.get(*family).copied().unwrap_or(0);
                        (*x, 100.0 * games as f64 / all.max(1) as f64)
                    })
                    .collect(),
                colour,
                reference: false,
            })
            .collect();
        let first = periods.first().map_or(0.0, |p| p.0);
        let last = periods.last().map_or(1.0, |p| p.0);
        let by_year = step == 1.0;
        let chart = Lines {
            x_label: if by_year { "year" } else { "month" }.into(),
            y_label: format!(
                "share of the {}'s named games (%)",
                if by_year { "year" } else { "month" }
            ),
            x_range: (first, last + step),
            y_range: (0.0, 100.0),
            series,
            // Periods one after another are joined; a gap breaks the line.
            gap: Some(1.5 * step),
            time: true,
            percent: true,
        };
        let rows: Vec<Vec<String>> = top
            .iter()
            .map(|(family, games)| vec![(*family).to_owned(), games.to_string()])
            .collect();
        chart_and_table(charts::lines(&chart), &["family", "games"], &rows).map(|mut block| {
            // The numbers name their periods as numbers: say them as
            // months (or years).
            let table = match &mut block {
                Block::Table(table) => table,
                Block::Chart(chart) => &mut chart.numbers,
                _ => return vec![block],
            };
            for (row, (_, label, _)) in table.rows.iter_mut().zip(&periods) {
                if let Some(cell) = row.first_mut() {
                    *cell = label.clone();
                }
            }
            if let Block::Chart(chart) = &mut block {
                chart.csv = chart.numbers.csv_link();
            }
            vec![block]
        })
    };
    Section {
        id: "families",
        title: "The most played opening families over time",
        caption: format!(
            "The share of each month's named games (each year's, over more than ten years) of \
             the {TOP_FAMILIES} most played opening families (opening_lines table)."
        ),
        body,
    }
}

/// A families chart's period: its place on the time axis (a year and its
/// fraction), its name and its games per family.
type FamilyPeriod = (f64, String, BTreeMap<String, u64>);

/// The months of `months`, or its years when they span more than ten
/// years (a month a point over a century is noise); with the step
/// between periods, in years.
fn family_periods(
    months: &BTreeMap<crate::model::Month, BTreeMap<String, u64>>,
) -> (Vec<FamilyPeriod>, f64) {
    let (Some(first), Some(last)) = (months.keys().next(), months.keys().next_back()) else {
        return (Vec::new(), 1.0 / 12.0);
    };
    if last.year() - first.year() <= 10 {
        let periods = months
            .iter()
            .map(|(m, f)| {
                let x = m.year() as f64 + (m.month() - 1) as f64 / 12.0;
                (x, m.to_string(), f.clone())
            })
            .collect();
        return (periods, 1.0 / 12.0);
    }
    let mut years: BTreeMap<i64, BTreeMap<String, u64>> = BTreeMap::new();
    for (m, families) in months {
        let year = years.entry(m.year()).or_default();
        for (family, games) in families {
            *year.entry(family.clone()).or_default() += games;
        }
    }
    let periods = years
        .into_iter()
        .map(|(y, f)| (y as f64, y.to_string(), f))
        .collect();
    (periods, 1.0)
}

/// Results by rating band: white wins, draws and black wins as shares,
/// a bar a band.
pub(super) fn bands(data: &ReportData) -> Section {
    let body = if data.by_rating_band.is_empty() {
        Err("No named game has both ratings.".to_owned())
    } else {
        let counts: Vec<Counts> = data.by_rating_band.values().copied().collect();
        let chart = Bars {
            x_label: "average rating (band's lower bound)".into(),
            y_label: "share of finished games (%)".into(),
            categories: data.by_rating_band.keys().map(i32::to_string).collect(),
            series: result_series(&counts, WDB),
            horizontal: false,
            percent: true,
        };
        let rows: Vec<Vec<String>> = data
            .by_rating_band
            .iter()
            .map(|(band, c)| {
                vec![
                    band.to_string(),
                    c.games.to_string(),
                    percent(c.white_score()),
                ]
            })
            .collect();
        chart_and_table(
            charts::bars(&chart),
            &["band", "games", "white score"],
            &rows,
        )
        .map(|b| vec![b])
    };
    Section {
        id: "bands",
        title: "Results by rating band",
        caption: "White wins, draws and black wins as shares of the finished games of each band \
                  of the two players' average rating, and white's score (opening_lines table)."
            .into(),
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

pub(super) fn tree(data: &ReportData) -> Result<Section, String> {
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
            percent: true,
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
