//! Report, the charts: SVG drawn with plotters (its SVG backend, no font
//! files: text is SVG `<text>` the browser sets), in fixed sizes and the
//! Okabe–Ito colour-blind-safe palette. Each chart is one `<svg>`: its
//! legend in a strip of its own above the plot (`<g class="legend">`, so
//! that it never covers a bar or a line), the plot below it (`<g
//! class="plot">`, its plotting area's pixels in `data-plot`); a value
//! axis ends at the data's greatest value (a share's at 100 %), time runs
//! on a continuous axis, and the grid is the axes' major steps only.

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

/// The Okabe–Ito palette.
pub(crate) const ORANGE: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
pub(crate) const SKY_BLUE: RGBColor = RGBColor(0x56, 0xB4, 0xE9);
pub(crate) const GREEN: RGBColor = RGBColor(0x00, 0x9E, 0x73);
pub(crate) const YELLOW: RGBColor = RGBColor(0xF0, 0xE4, 0x42);
pub(crate) const BLUE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
pub(crate) const VERMILLION: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
pub(crate) const PURPLE: RGBColor = RGBColor(0xCC, 0x79, 0xA7);
pub(crate) const GREY: RGBColor = RGBColor(0x99, 0x99, 0x99);
/// Series colours in order.
pub(crate) const PALETTE: [RGBColor; 8] = [
    ORANGE, SKY_BLUE, GREEN, BLUE, VERMILLION, PURPLE, YELLOW, GREY,
];
/// White wins, draws, black wins.
pub(crate) const RESULT_COLOURS: [RGBColor; 3] = [ORANGE, GREY, BLUE];

const WIDTH: u32 = 760;
const FONT: &str = "sans-serif";
/// plotters writes `font-size` at about 0.8 of the size asked: 16 gives
/// 12.9 px, the smallest text of the report.
const TEXT_PX: u32 = 16;

/// A chart drawn: its SVG, and every number it plots as a table (header,
/// rows), so that none is only a length on the screen.
#[derive(Debug, Default)]
pub(crate) struct Drawn {
    pub svg: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// The categories (or x values) it has data at: one is a table, not
    /// a chart.
    pub categories: usize,
}

/// Named series of values, one value per category.
pub(crate) struct Series {
    pub name: String,
    pub values: Vec<f64>,
    pub colour: RGBColor,
}

/// A stacked bar chart: categories along one axis, each series stacked.
pub(crate) struct Bars {
    pub x_label: String,
    pub y_label: String,
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    /// Categories down the side (long names), values across.
    pub horizontal: bool,
    /// The values are shares in percent: the axis ends at 100.
    pub percent: bool,
}

/// Stacked bars along a continuous time axis: each period from its start
/// to its end (years as numbers), nothing where there is no period.
pub(crate) struct Timeline {
    pub x_label: String,
    pub y_label: String,
    /// Each period's start, end and name.
    pub periods: Vec<(f64, f64, String)>,
    /// A value per period.
    pub series: Vec<Series>,
}

/// A line chart of (x, y) points per series.
pub(crate) struct Lines {
    pub x_label: String,
    pub y_label: String,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    pub series: Vec<Line>,
    /// Points further apart along x than this are not joined (a time
    /// axis's months without games); None: every point is joined.
    pub gap: Option<f64>,
    /// x is a year with its fraction: ticks are years.
    pub time: bool,
    /// y is a share in percent (`y_range` ends at 100).
    pub percent: bool,
}

/// One line of a line chart: its name, points and colour.
pub(crate) struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub colour: RGBColor,
    /// A reference curve (the Elo expectation), not data: it does not
    /// count as a category.
    pub reference: bool,
}

/// A stacked bar chart drawn.
pub(crate) fn bars(chart: &Bars) -> Result<Drawn, String> {
    let n = chart.categories.len().max(1) as u32;
    let total = |i: usize| -> f64 {
        chart
            .series
            .iter()
            .map(|s| s.values.get(i).copied().unwrap_or(0.0))
            .sum()
    };
    let max = (0..chart.categories.len()).map(total).fold(0.0, f64::max);
    let top = value_top(max, chart.percent);
    // At most 20 category labels down the side, 12 along the bottom (a
    // year is about 40 px wide): every step-th one.
    let most_labels = if chart.horizontal { 20 } else { 12 };
    let step = chart.categories.len().div_ceil(most_labels).max(1);
    // Three pixels between bars, less when there are so many bars that the
    // gaps would swallow them.
    let gap = bar_gap(
        chart.categories.len(),
        if chart.horizontal { 500 } else { 660 },
    );
    // Where each series' segment of category i starts and ends.
    let segments = |series: usize| -> Vec<(u32, f64, f64)> {
        (0..chart.categories.len())
            .map(|i| {
                let below: f64 = chart
                    .series
                    .iter()
                    .take(series)
                    .map(|s| s.values.get(i).copied().unwrap_or(0.0))
                    .sum();
                let value = chart
                    .series
                    .get(series)
                    .and_then(|s| s.values.get(i))
                    .copied()
                    .unwrap_or(0.0);
                (i as u32, below, below + value)
            })
            .collect()
    };
    // Down the side the first category goes on top, as in its table:
    // plotters counts upwards, so category i sits in slot n - 1 - i.
    let slot = |i: u32| if chart.horizontal { n - 1 - i } else { i };
    let name = |v: &SegmentValue<u32>| match v {
        SegmentValue::CenterOf(at) if *at < n => {
            let i = slot(*at) as usize;
            match chart.categories.get(i) {
                Some(name) if i.is_multiple_of(step) => name.clone(),
                // Between the labelled ones, and in the one slot of a
                // chart without categories: no label.
                _ => String::new(),
            }
        }
        _ => String::new(),
    };
    // plotters' integer ranges are inclusive when segmented: 0..n - 1
    // gives the n slots (0..n left an empty one at the end).
    let slots = 0u32..n.saturating_sub(1).max(1);
    let height = if chart.horizontal { 560 } else { 380 };
    let mut svg = String::new();
    let plot;
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(text)?;
        if chart.horizontal {
            let mut ctx = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(44)
                .y_label_area_size(300)
                .build_cartesian_2d(0.0..top, slots.into_segmented())
                .map_err(text)?;
            ctx.configure_mesh()
                .disable_y_mesh()
                .light_line_style(WHITE.mix(0.0))
                .bold_line_style(BLACK.mix(0.1))
                .y_labels(n as usize)
                .y_label_formatter(&name)
                .x_label_formatter(&tick)
                .x_desc(chart.x_label.as_str())
                .y_desc(chart.y_label.as_str())
                .label_style((FONT, TEXT_PX))
                .axis_desc_style((FONT, TEXT_PX))
                .draw()
                .map_err(text)?;
            draw_stacks(&mut ctx, chart, &segments, |i, from, to, style| {
                let mut rect = Rectangle::new(
                    [
                        (from, SegmentValue::Exact(slot(i))),
                        (to, SegmentValue::Exact(slot(i) + 1)),
                    ],
                    style,
                );
                rect.set_margin(gap, gap, 0, 0);
                rect
            })?;
            plot = ctx.plotting_area().get_pixel_range();
        } else {
            let mut ctx = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(44)
                .y_label_area_size(88)
                .build_cartesian_2d(slots.into_segmented(), 0.0..top)
                .map_err(text)?;
            ctx.configure_mesh()
                .disable_x_mesh()
                .light_line_style(WHITE.mix(0.0))
                .bold_line_style(BLACK.mix(0.1))
                .x_labels(n as usize)
                .x_label_formatter(&name)
                .y_label_formatter(&tick)
                .x_desc(chart.x_label.as_str())
                .y_desc(chart.y_label.as_str())
                .label_style((FONT, TEXT_PX))
                .axis_desc_style((FONT, TEXT_PX))
                .draw()
                .map_err(text)?;
            draw_stacks(&mut ctx, chart, &segments, |i, from, to, style| {
                let mut rect = Rectangle::new(
                    [
                        (SegmentValue::Exact(i), from),
                        (SegmentValue::Exact(i + 1), to),
                    ],
                    style,
                );
                rect.set_margin(0, 0, gap, gap);
                rect
            })?;
            plot = ctx.plotting_area().get_pixel_range();
        }
        root.present().map_err(text)?;
    }
    let swatches = chart
        .series
        .iter()
        .map(|s| (s.name.as_str(), s.colour, Swatch::Box));
    let attributes = format!(
        "data-percent=\"{}\" data-time=\"false\" data-horizontal=\"{}\"",
        chart.percent, chart.horizontal
    );
    Ok(Drawn {
        svg: framed(&svg, &legend_strip(swatches), plot, &attributes),
        categories: chart.categories.len(),
        header: header(
            if chart.horizontal {
                &chart.y_label
            } else {
                &chart.x_label
            },
            chart.series.iter().map(|s| s.name.as_str()),
        ),
        rows: chart
            .categories
            .iter()
            .enumerate()
            .map(|(i, category)| {
                let values = chart.series.iter().map(|s| s.values.get(i).copied());
                std::iter::once(category.clone())
                    .chain(values.map(|v| v.map_or_else(String::new, number)))
                    .collect()
            })
            .collect(),
    })
}

/// A value axis's tick: thousands grouped, no fraction where the step has
/// none (plotters would write `20000.0`).
fn tick(value: &f64) -> String {
    let v = *value;
    if v.fract().abs() > 1e-9 {
        return format!("{v:.1}");
    }
    let digits = format!("{}", v.abs() as u64);
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if v < 0.0 {
        format!("-{grouped}")
    } else {
        grouped
    }
}

/// Pixels between neighbouring bars: 3, or less when `bars` bars share
/// `extent` pixels (a bar keeps at least two thirds of its slot).
fn bar_gap(bars: usize, extent: u32) -> u32 {
    let slot = extent / (bars.max(1) as u32);
    (slot / 6).min(3)
}

/// The numbers table's header: the category (or x) axis, then a column a
/// series.
fn header<'a>(category: &'a str, names: impl Iterator<Item = &'a str>) -> Vec<String> {
    std::iter::once(category)
        .chain(names)
        .map(str::to_owned)
        .collect()
}

/// A plotted value as the table shows it: whole numbers without a
/// fraction, others to three decimals.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value:.3}")
    }
}

/// Each series' segments of every bar, as `rect` places them (category,
/// from, to), with its legend entry.
fn draw_stacks<'a, DB, CT>(
    ctx: &mut ChartContext<'a, DB, CT>,
    chart: &Bars,
    segments: &dyn Fn(usize) -> Vec<(u32, f64, f64)>,
    rect: impl Fn(u32, f64, f64, ShapeStyle) -> Rectangle<CT::From>,
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    CT: CoordTranslate,
    CT::From: Clone + 'static,
{
    for (index, series) in chart.series.iter().enumerate() {
        let colour = series.colour;
        let rects = segments(index)
            .into_iter()
            .map(|(i, from, to)| rect(i, from, to, colour.filled()));
        ctx.draw_series(rects).map_err(text)?;
    }
    Ok(())
}

/// A line chart drawn.
pub(crate) fn lines(chart: &Lines) -> Result<Drawn, String> {
    let mut svg = String::new();
    let plot;
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 380)).into_drawing_area();
        root.fill(&WHITE).map_err(text)?;
        let mut ctx = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d(
                chart.x_range.0..chart.x_range.1,
                chart.y_range.0..chart.y_range.1,
            )
            .map_err(text)?;
        let year = |x: &f64| format!("{}", x.floor());
        let mut mesh = ctx.configure_mesh();
        mesh.light_line_style(WHITE.mix(0.0))
            .bold_line_style(BLACK.mix(0.1))
            .x_desc(chart.x_label.as_str())
            .y_desc(chart.y_label.as_str())
            .label_style((FONT, TEXT_PX))
            .axis_desc_style((FONT, TEXT_PX));
        mesh.y_label_formatter(&tick);
        if chart.time {
            mesh.x_label_formatter(&year);
        }
        mesh.draw().map_err(text)?;
        for line in &chart.series {
            let colour = line.colour;
            for run in runs(&line.points, chart.gap) {
                ctx.draw_series(LineSeries::new(run.iter().copied(), colour.stroke_width(2)))
                    .map_err(text)?;
            }
            ctx.draw_series(
                line.points
                    .iter()
                    .map(|&(x, y)| Circle::new((x, y), 3, colour.filled())),
            )
            .map_err(text)?;
        }
        plot = ctx.plotting_area().get_pixel_range();
        root.present().map_err(text)?;
    }
    let swatches = chart
        .series
        .iter()
        .map(|l| (l.name.as_str(), l.colour, Swatch::Line));
    let attributes = format!(
        "data-percent=\"{}\" data-time=\"{}\"",
        chart.percent, chart.time
    );
    let categories = chart
        .series
        .iter()
        .filter(|l| !l.reference)
        .map(|l| {
            let mut xs: Vec<f64> = l.points.iter().map(|&(x, _)| x).collect();
            xs.sort_by(f64::total_cmp);
            xs.dedup();
            xs.len()
        })
        .max()
        .unwrap_or(0);
    Ok(Drawn {
        svg: framed(&svg, &legend_strip(swatches), plot, &attributes),
        header: header(&chart.x_label, chart.series.iter().map(|l| l.name.as_str())),
        rows: line_rows(&chart.series),
        categories,
    })
}

/// A line's points split where they are further apart along x than
/// `gap` (none: one run).
fn runs(points: &[(f64, f64)], gap: Option<f64>) -> Vec<Vec<(f64, f64)>> {
    let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
    for &point in points {
        let joined = match (runs.last().and_then(|r| r.last()), gap) {
            (Some(&(x, _)), Some(gap)) => point.0 - x <= gap,
            (Some(_), None) => true,
            (None, _) => false,
        };
        match runs.last_mut() {
            Some(run) if joined => run.push(point),
            _ => runs.push(vec![point]),
        }
    }
    runs
}

/// Stacked bars on a continuous time axis drawn: each period's bar from
/// its start to its end, none where there is no period.
pub(crate) fn timeline(chart: &Timeline) -> Result<Drawn, String> {
    let first = chart.periods.first().map_or(0.0, |p| p.0);
    let last = chart.periods.last().map_or(1.0, |p| p.1);
    let total = |i: usize| -> f64 { chart.series.iter().filter_map(|s| s.values.get(i)).sum() };
    let max = (0..chart.periods.len()).map(total).fold(0.0, f64::max);
    let top = value_top(max, false);
    let mut svg = String::new();
    let plot;
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 380)).into_drawing_area();
        root.fill(&WHITE).map_err(text)?;
        let mut ctx = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(88)
            .build_cartesian_2d(first..last, 0.0..top)
            .map_err(text)?;
        let year = |x: &f64| format!("{}", x.floor());
        ctx.configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(BLACK.mix(0.1))
            .x_label_formatter(&year)
            .y_label_formatter(&tick)
            .x_desc(chart.x_label.as_str())
            .y_desc(chart.y_label.as_str())
            .label_style((FONT, TEXT_PX))
            .axis_desc_style((FONT, TEXT_PX))
            .draw()
            .map_err(text)?;
        // A tenth of a period between bars (a pixel at least when wide).
        for (index, series) in chart.series.iter().enumerate() {
            let rects = chart
                .periods
                .iter()
                .enumerate()
                .map(|(i, (start, end, _))| {
                    let below: f64 = chart
                        .series
                        .iter()
                        .take(index)
                        .filter_map(|s| s.values.get(i))
                        .sum();
                    let value = series.values.get(i).copied().unwrap_or(0.0);
                    let inset = (end - start) * 0.05;
                    Rectangle::new(
                        [(start + inset, below), (end - inset, below + value)],
                        series.colour.filled(),
                    )
                });
            ctx.draw_series(rects).map_err(text)?;
        }
        plot = ctx.plotting_area().get_pixel_range();
        root.present().map_err(text)?;
    }
    let swatches = chart
        .series
        .iter()
        .map(|s| (s.name.as_str(), s.colour, Swatch::Box));
    Ok(Drawn {
        svg: framed(
            &svg,
            &legend_strip(swatches),
            plot,
            "data-percent=\"false\" data-time=\"true\" data-horizontal=\"false\"",
        ),
        header: header(&chart.x_label, chart.series.iter().map(|s| s.name.as_str())),
        rows: chart
            .periods
            .iter()
            .enumerate()
            .map(|(i, (_, _, name))| {
                let values = chart.series.iter().map(|s| s.values.get(i).copied());
                std::iter::once(name.clone())
                    .chain(values.map(|v| v.map_or_else(String::new, number)))
                    .collect()
            })
            .collect(),
        categories: chart.periods.len(),
    })
}

/// Where a value axis ends: at 100 for shares in percent, else a little
/// above the greatest value (1 when there is none).
fn value_top(max: f64, percent: bool) -> f64 {
    match (percent, max > 0.0) {
        (true, _) => 100.0,
        (false, true) => max * 1.04,
        (false, false) => 1.0,
    }
}

/// How a legend shows a series: a box (bars) or a short line (lines).
#[derive(Debug, Clone, Copy)]
enum Swatch {
    Box,
    Line,
}

/// The legend's strip above the plot: its height and its SVG (nothing
/// for a single series, which the axis names). Entries run left to right
/// and wrap; text is measured at 7.5 px a character, above what a
/// 13 px sans-serif takes.
struct Legend {
    height: u32,
    svg: String,
}

fn legend_strip<'a>(entries: impl Iterator<Item = (&'a str, RGBColor, Swatch)>) -> Legend {
    let entries: Vec<_> = entries.collect();
    if entries.len() < 2 {
        return Legend {
            height: 0,
            svg: String::new(),
        };
    }
    const ROW: u32 = 22;
    let (mut x, mut row) = (12.0, 0u32);
    let mut svg = String::new();
    for (name, RGBColor(r, g, b), swatch) in entries {
        let width = 18.0 + 7.5 * name.chars().count() as f64 + 18.0;
        if x + width > f64::from(WIDTH) - 12.0 && x > 12.0 {
            (x, row) = (12.0, row + 1);
        }
        let y = f64::from(row * ROW) + 14.0;
        let colour = format!("#{r:02X}{g:02X}{b:02X}");
        svg.push_str(&match swatch {
            Swatch::Box => format!(
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{colour}\"/>",
                y - 6.0
            ),
            Swatch::Line => format!(
                "<line x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" stroke-width=\"2\"/>",
                x + 12.0
            ),
        });
        svg.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" font-family=\"{FONT}\" font-size=\"13\">{}</text>",
            x + 18.0,
            y + 4.5,
            escape(name)
        ));
        x += width;
    }
    Legend {
        height: (row + 1) * ROW + 6,
        svg,
    }
}

/// Text for SVG.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One `<svg>`: the legend's strip, then plotters' drawing below it, its
/// plotting area's pixels in `data-plot` (x0 y0 x1 y1, in the whole
/// SVG's coordinates).
fn framed(
    drawn: &str,
    legend: &Legend,
    plot: (std::ops::Range<i32>, std::ops::Range<i32>),
    attributes: &str,
) -> String {
    // plotters writes `<svg width=".." height=".." viewBox=".." xmlns=..>`,
    // its elements, `</svg>`.
    let inner = drawn
        .split_once('>')
        .map_or("", |(_, rest)| rest)
        .trim_end()
        .trim_end_matches("</svg>");
    let height = drawn
        .split("height=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|h| h.parse::<u32>().ok())
        .unwrap_or(380);
    let total = height + legend.height;
    let shift = i32::try_from(legend.height).unwrap_or(0);
    let (xs, ys) = plot;
    format!(
        "<svg width=\"{WIDTH}\" height=\"{total}\" viewBox=\"0 0 {WIDTH} {total}\" \
         xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" {attributes}>\
         <g class=\"legend\">{}</g>\
         <g class=\"plot\" transform=\"translate(0,{})\" data-plot=\"{} {} {} {}\">{inner}</g></svg>",
        legend.svg,
        legend.height,
        xs.start,
        ys.start + shift,
        xs.end,
        ys.end + shift,
    )
}

/// A row per x value of any line, a column per line (empty where a line
/// has no point there), in increasing x.
fn line_rows(series: &[Line]) -> Vec<Vec<String>> {
    let mut xs: Vec<f64> = series
        .iter()
        .flat_map(|l| l.points.iter().map(|&(x, _)| x))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs.into_iter()
        .map(|x| {
            let ys = series.iter().map(|l| {
                l.points
                    .iter()
                    .find(|&&(px, _)| px == x)
                    .map_or_else(String::new, |&(_, y)| number(y))
            });
            std::iter::once(number(x)).chain(ys).collect()
        })
        .collect()
}

fn text(error: impl std::fmt::Display) -> String {
    error.to_string()
}

/// The marks of a chart's data in its SVG, for tests here and in the
/// browser: filled rectangles of a palette colour at least a pixel wide and
/// high in the plot (not the legend above it), and the points of lines.
#[doc(hidden)]
pub fn data_marks(svg: &str) -> usize {
    let colours: Vec<String> = PALETTE
        .iter()
        .map(|RGBColor(r, g, b)| format!("#{r:02X}{g:02X}{b:02X}"))
        .collect();
    let attribute = |element: &str, name: &str| -> f64 {
        element
            .split(&format!(" {name}=\""))
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0)
    };
    // The plot's marks only: the legend's swatches are above it.
    let svg = svg
        .split_once("<g class=\"plot\"")
        .map_or(svg, |(_, plot)| plot);
    let mut rects = 0usize;
    for element in svg.split("<rect").skip(1) {
        let Some(element) = element.split('>').next() else {
            continue;
        };
        if !colours.iter().any(|c| element.contains(c.as_str())) {
            continue;
        }
        if attribute(element, "width") >= 1.0 && attribute(element, "height") >= 1.0 {
            rects += 1;
        }
    }
    // Every circle is a line's point.
    rects + svg.matches("<circle").count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_and_lines_are_svg_with_marks() {
        let chart = Bars {
            x_label: "year".into(),
            y_label: "games".into(),
            categories: vec!["2020".into(), "2021".into()],
            series: vec![
                Series {
                    name: "blitz".into(),
                    values: vec![3.0, 1.0],
                    colour: ORANGE,
                },
                Series {
                    name: "classical".into(),
                    values: vec![2.0, 0.0],
                    colour: BLUE,
                },
            ],
            horizontal: false,
            percent: false,
        };
        let drawn = bars(&chart).unwrap_or_else(|e| panic!("{e}"));
        let svg = drawn.svg.as_str();
        assert!(svg.starts_with("<svg"), "{svg}");
        // Three bar segments of non-zero size (the fourth value is 0);
        // the two legend swatches are above the plot.
        assert_eq!(data_marks(svg), 3, "{svg}");
        assert_eq!(drawn.header, ["year", "blitz", "classical"]);
        assert_eq!(drawn.rows, [["2020", "3", "2"], ["2021", "1", "0"]]);
        assert!(svg.matches("<rect").count() >= 4, "{svg}");
        assert!(
            svg.contains(">\n2021\n<") && svg.contains(">classical<"),
            "{svg}"
        );
        // Every text at least 12 px.
        for size in svg.split("font-size=\"").skip(1) {
            let px: f64 = size
                .split('"')
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0.0);
            assert!(px >= 12.0, "{px}");
        }
        assert!(
            svg.contains("#E69F00") || svg.contains("rgb(230,159,0)") || svg.contains("#e69f00"),
            "{svg}"
        );
        let drawn = lines(&Lines {
            x_label: "x".into(),
            y_label: "y".into(),
            x_range: (0.0, 1.0),
            y_range: (0.0, 1.0),
            series: vec![Line {
                name: "s".into(),
                points: vec![(0.0, 0.0), (1.0, 1.0)],
                colour: BLUE,
                reference: false,
            }],
            gap: None,
            time: false,
            percent: false,
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(drawn.svg.contains("<polyline"), "{}", drawn.svg);
        assert_eq!(data_marks(&drawn.svg), 2, "{}", drawn.svg);
        assert_eq!(drawn.rows, [["0", "0"], ["1", "1"]]);
    }

    #[test]
    fn a_hundred_and_eighty_bars_are_each_visible() {
        let chart = Bars {
            x_label: "year".into(),
            y_label: "games".into(),
            categories: (1845..2025).map(|y: i32| y.to_string()).collect(),
            series: vec![Series {
                name: "classical".into(),
                values: vec![5.0; 180],
                colour: ORANGE,
            }],
            horizontal: false,
            percent: false,
        };
        let svg = bars(&chart).unwrap_or_else(|e| panic!("{e}")).svg;
        assert_eq!(data_marks(&svg), 180);
    }

    #[test]
    fn ticks_group_thousands_and_drop_a_zero_fraction() {
        assert_eq!(tick(&20000.0), "20,000");
        assert_eq!(tick(&1234567.0), "1,234,567");
        assert_eq!(tick(&0.0), "0");
        assert_eq!(tick(&-1500.0), "-1,500");
        assert_eq!(tick(&0.5), "0.5");
    }
}
