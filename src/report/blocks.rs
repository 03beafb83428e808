//! Report, a section's parts: the plain data a section is written as
//! (paragraphs, headings, tables, charts with their numbers and CSV), and
//! the helpers every section builds them with (a chart and its table, the
//! result shares, named counts as bars).

use crate::report::charts::{self, Bars, Drawn, Series};
use crate::stats::counts::Counts;

/// One section: its anchor, title, caption and body (charts and tables),
/// or why it is empty.
pub(super) struct Section {
    pub(super) id: &'static str,
    pub(super) title: &'static str,
    pub(super) caption: String,
    pub(super) body: Result<Vec<Block>, String>,
}

/// A part of a section's body.
pub(super) enum Block {
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
pub(super) struct Table {
    pub(super) header: Vec<String>,
    pub(super) rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as a `data:` URL of CSV (RFC 4180: a field with a comma,
    /// a quote or a line break quoted, its quotes doubled), for a link
    /// that downloads it without a script.
    pub(super) fn csv_link(&self) -> String {
        let field = |cell: &String| match cell.contains([',', '"', '\n', '\r']) {
            true => format!("\"{}\"", cell.replace('"', "\"\"")),
            false => cell.clone(),
        };
        let mut csv = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let line: Vec<String> = row.iter().map(field).collect();
            csv.push_str(&line.join(","));
            csv.push_str("\r\n");
        }
        // Percent-encoded, every byte but the unreserved ones.
        let mut url = String::from("data:text/csv;charset=utf-8,");
        for byte in csv.bytes() {
            match byte {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    url.push(char::from(byte));
                }
                _ => url.push_str(&format!("%{byte:02X}")),
            }
        }
        url
    }

    pub(super) fn new(header: &[impl AsRef<str>], rows: &[Vec<String>]) -> Table {
        Table {
            header: header.iter().map(|h| h.as_ref().to_owned()).collect(),
            rows: rows.to_vec(),
        }
    }
}

/// A chart (plotters' SVG, its labels escaped by plotters), every number
/// it plots (folded under it, and as a CSV file to download) and its
/// summary table beside it.
pub(super) struct Chart {
    pub(super) svg: String,
    pub(super) numbers: Table,
    /// `data:text/csv,…` of `numbers`.
    pub(super) csv: String,
    pub(super) summary: Table,
}

/// A chart with every number it plots (folded under it) and its summary
/// table beside it.
pub(super) fn chart_and_table(
    chart: Result<Drawn, String>,
    header: &[&str],
    rows: &[Vec<String>],
) -> Result<Block, String> {
    let chart = chart?;
    // One category is a table: a chart of one bar shows nothing a number
    // does not.
    if chart.categories < 2 {
        return Ok(Block::Table(Table::new(&chart.header, &chart.rows)));
    }
    let numbers = Table::new(&chart.header, &chart.rows);
    Ok(Block::Chart(Chart {
        csv: numbers.csv_link(),
        numbers,
        svg: chart.svg,
        summary: Table::new(header, rows),
    }))
}

pub(super) fn percent(value: Option<f64>) -> String {
    value.map_or("–".into(), |v| format!("{:.1}%", v * 100.0))
}

/// Shares of white wins, draws and black wins (percent of finished games).
pub(super) fn result_series(counts: &[Counts], names: [&str; 3]) -> Vec<Series> {
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

pub(super) const WDB: [&str; 3] = ["white wins", "draws", "black wins"];

pub(super) fn counts_row(label: String, c: &Counts) -> Vec<String> {
    vec![
        label,
        c.games.to_string(),
        percent(share(c.white_wins, c.finished())),
        percent(share(c.draws, c.finished())),
        percent(share(c.black_wins, c.finished())),
    ]
}

pub(super) fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// Named counts as horizontal bars, with their table.
pub(super) fn counts_chart(
    counts: &[(String, u64)],
    what: &str,
    unit: &str,
) -> Result<Block, String> {
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
        percent: false,
    };
    let rows: Vec<Vec<String>> = counts
        .iter()
        .map(|(name, n)| vec![name.clone(), n.to_string()])
        .collect();
    chart_and_table(charts::bars(&chart), &[what, unit], &rows)
}
