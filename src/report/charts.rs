//! Report, the charts: SVG drawn with plotters (its SVG backend, no font
//! files: text is SVG `<text>` the browser sets), in fixed sizes and the
//! Okabe–Ito colour-blind-safe palette.

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
}

/// A line chart of (x, y) points per series.
pub(crate) struct Lines {
    pub x_label: String,
    pub y_label: String,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    pub series: Vec<Line>,
}

/// One line of a line chart: its name, points and colour.
pub(crate) struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub colour: RGBColor,
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
    // Head room above the longest bar for the legend (upper right).
    let room = 1.08 + 0.07 * chart.series.len() as f64;
    let top = if max > 0.0 { max * room } else { 1.0 };
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
            // The shortest bars are at the bottom now.
            legend(&mut ctx, SeriesLabelPosition::LowerRight)?;
        } else {
            let mut ctx = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(44)
                .y_label_area_size(88)
                .build_cartesian_2d(slots.into_segmented(), 0.0..top)
                .map_err(text)?;
            ctx.configure_mesh()
                .disable_x_mesh()
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
            legend(&mut ctx, SeriesLabelPosition::UpperRight)?;
        }
        root.present().map_err(text)?;
    }
    Ok(Drawn {
        svg,
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
        ctx.draw_series(rects)
            .map_err(text)?
            .label(series.name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], colour.filled()));
    }
    Ok(())
}

/// A line chart drawn.
pub(crate) fn lines(chart: &Lines) -> Result<Drawn, String> {
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
    Ok(Drawn {
        svg,
        header: header(&chart.x_label, chart.series.iter().map(|l| l.name.as_str())),
        rows: line_rows(&chart.series),
    })
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

/// The marks of a chart's data in its SVG, for tests here and in the
/// browser: filled rectangles of a palette colour at least a pixel wide and
/// high, less one legend swatch per colour (a series has a colour of its
/// own), and the points of lines.
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
    let mut used = std::collections::BTreeSet::new();
    let mut rects = 0usize;
    for element in svg.split("<rect").skip(1) {
        let Some(element) = element.split('>').next() else {
            continue;
        };
        let Some(colour) = colours.iter().find(|c| element.contains(c.as_str())) else {
            continue;
        };
        if attribute(element, "width") >= 1.0 && attribute(element, "height") >= 1.0 {
            used.insert(colour.clone());
            rects += 1;
        }
    }
    // A legend has no points: every circle is a line's point.
    rects.saturating_sub(used.len()) + svg.matches("<circle").count()
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
        let drawn = bars(&chart).unwrap_or_else(|e| panic!("{e}"));
        let svg = drawn.svg.as_str();
        assert!(svg.starts_with("<svg"), "{svg}");
        // Three bar segments of non-zero size (the fourth value is 0),
        // beyond the two legend swatches.
        assert_eq!(data_marks(svg), 3, "{svg}");
        assert_eq!(drawn.header, ["year", "blitz", "classical"]);
        assert_eq!(drawn.rows, [["2020", "3", "2"], ["2021", "1", "0"]]);
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
        let drawn = lines(&Lines {
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
