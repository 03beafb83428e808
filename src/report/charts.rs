//! Report, the charts: SVG drawn with plotters (its SVG backend, no font
//! files: text is SVG `<text>` the browser sets), in fixed sizes and the
//! Okabe–Ito colour-blind-safe palette.

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

/// The Okabe–Ito palette.
pub const ORANGE: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
pub const SKY_BLUE: RGBColor = RGBColor(0x56, 0xB4, 0xE9);
pub const GREEN: RGBColor = RGBColor(0x00, 0x9E, 0x73);
pub const YELLOW: RGBColor = RGBColor(0xF0, 0xE4, 0x42);
pub const BLUE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
pub const VERMILLION: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
pub const PURPLE: RGBColor = RGBColor(0xCC, 0x79, 0xA7);
pub const GREY: RGBColor = RGBColor(0x99, 0x99, 0x99);
/// Series colours in order.
pub const PALETTE: [RGBColor; 8] = [
    ORANGE, SKY_BLUE, GREEN, BLUE, VERMILLION, PURPLE, YELLOW, GREY,
];
/// White wins, draws, black wins.
pub const RESULT_COLOURS: [RGBColor; 3] = [ORANGE, GREY, BLUE];

const WIDTH: u32 = 760;
const FONT: &str = "sans-serif";
/// plotters writes `font-size` at about 0.8 of the size asked: 16 gives
/// 12.9 px, the smallest text of the report.
const TEXT_PX: u32 = 16;

/// Named series of values, one value per category.
pub struct Series {
    pub name: String,
    pub values: Vec<f64>,
    pub colour: RGBColor,
}

/// A stacked bar chart: categories along one axis, each series stacked.
pub struct Bars {
    pub x_label: String,
    pub y_label: String,
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    /// Categories down the side (long names), values across.
    pub horizontal: bool,
}

/// A line chart of (x, y) points per series.
pub struct Lines {
    pub x_label: String,
    pub y_label: String,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    pub series: Vec<Line>,
}

/// One line of a line chart: its name, points and colour.
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub colour: RGBColor,
}

/// The SVG of a stacked bar chart.
pub fn bars(chart: &Bars) -> Result<String, String> {
    let n = chart.categories.len().max(1) as u32;
    let total = |i: usize| -> f64 {
        chart
            .series
            .iter()
            .map(|s| s.values.get(i).copied().unwrap_or(0.0))
            .sum()
    };
    let max = (0..chart.categories.len()).map(total).fold(0.0, f64::max);
    // Head room above the longest bar for the legend (upper right).
    let room = 1.08 + 0.07 * chart.series.len() as f64;
    let top = if max > 0.0 { max * room } else { 1.0 };
    // At most about 20 category labels: every step-th one.
    let step = chart.categories.len().div_ceil(20).max(1);
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
    let name = |v: &SegmentValue<u32>| match v {
        SegmentValue::CenterOf(i) if (*i as usize).is_multiple_of(step) => chart
            .categories
            .get(*i as usize)
            .cloned()
            .unwrap_or_default(),
        _ => String::new(),
    };
    let height = if chart.horizontal { 560 } else { 380 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(text)?;
        if chart.horizontal {
            let mut ctx = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(44)
                .y_label_area_size(300)
                .build_cartesian_2d(0.0..top, (0u32..n).into_segmented())
                .map_err(text)?;
            ctx.configure_mesh()
                .disable_y_mesh()
                .y_labels(n as usize)
                .y_label_formatter(&name)
                .x_desc(chart.x_label.as_str())
                .y_desc(chart.y_label.as_str())
                .label_style((FONT, TEXT_PX))
                .axis_desc_style((FONT, TEXT_PX))
                .draw()
                .map_err(text)?;
            draw_stacks(&mut ctx, chart, &segments, |i, from, to, style| {
                let mut rect = Rectangle::new(
                    [
                        (from, SegmentValue::Exact(i)),
                        (to, SegmentValue::Exact(i + 1)),
                    ],
                    style,
                );
                rect.set_margin(3, 3, 0, 0);
                rect
            })?;
            legend(&mut ctx, SeriesLabelPosition::UpperRight)?;
        } else {
            let mut ctx = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(44)
                .y_label_area_size(72)
                .build_cartesian_2d((0u32..n).into_segmented(), 0.0..top)
                .map_err(text)?;
            ctx.configure_mesh()
                .disable_x_mesh()
                .x_labels(n as usize)
                .x_label_formatter(&name)
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
                rect.set_margin(0, 0, 3, 3);
                rect
            })?;
            legend(&mut ctx, SeriesLabelPosition::UpperRight)?;
        }
        root.present().map_err(text)?;
    }
    Ok(svg)
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
        ctx.draw_series(rects)
            .map_err(text)?
            .label(series.name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], colour.filled()));
    }
    Ok(())
}

/// The SVG of a line chart.
pub fn lines(chart: &Lines) -> Result<String, String> {
    let mut svg = String::new();
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
        ctx.configure_mesh()
            .x_desc(chart.x_label.as_str())
            .y_desc(chart.y_label.as_str())
            .label_style((FONT, TEXT_PX))
            .axis_desc_style((FONT, TEXT_PX))
            .draw()
            .map_err(text)?;
        for Line {
            name,
            points,
            colour,
        } in &chart.series
        {
            let colour = *colour;
            ctx.draw_series(LineSeries::new(
                points.iter().copied(),
                colour.stroke_width(2),
            ))
            .map_err(text)?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], colour.stroke_width(2)));
            ctx.draw_series(
                points
                    .iter()
                    .map(|&(x, y)| Circle::new((x, y), 3, colour.filled())),
            )
            .map_err(text)?;
        }
        legend(&mut ctx, SeriesLabelPosition::UpperLeft)?;
        root.present().map_err(text)?;
    }
    Ok(svg)
}

/// The series names and their colours, in a corner of the plot.
fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    ctx: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), String> {
    ctx.configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FONT, TEXT_PX))
        .draw()
        .map_err(text)
}

fn text(error: impl std::fmt::Display) -> String {
    error.to_string()
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
        };
        let svg = bars(&chart).unwrap_or_default();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.matches("<rect").count() >= 4, "{svg}");
        assert!(
            svg.contains(">\n2021\n<") && svg.contains(">\nclassical\n<"),
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
        let line = lines(&Lines {
            x_label: "x".into(),
            y_label: "y".into(),
            x_range: (0.0, 1.0),
            y_range: (0.0, 1.0),
            series: vec![Line {
                name: "s".into(),
                points: vec![(0.0, 0.0), (1.0, 1.0)],
                colour: BLUE,
            }],
        })
        .unwrap_or_default();
        assert!(line.contains("<polyline"), "{line}");
    }
}
