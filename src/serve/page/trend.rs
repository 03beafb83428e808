//! Serve, the explorer page's trends: each move's share of the position's
//! games month by month as a small line (broken where the position had no
//! games), and the position's games month by month as bars, both drawn as
//! SVG coordinates for the templates from `/lichess`' `history` (each
//! move's with `history=true`).

/// A move's small line: one polyline per run of months with games of the
/// position, in a box of [`SPARK_WIDTH`] × [`SPARK_HEIGHT`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spark {
    /// `x,y x,y …` of each run.
    pub lines: Vec<String>,
    /// What the line shows, in words (its title and label).
    pub label: String,
}

pub(crate) const SPARK_WIDTH: f64 = 80.0;
pub(crate) const SPARK_HEIGHT: f64 = 20.0;

/// The share line of a move whose games each month are `games`, in a
/// position whose games each month are `months` (the same months, in
/// order); None with fewer than two months.
pub(crate) fn spark(months: &[(String, u64)], games: &[u64]) -> Option<Spark> {
    if months.len() < 2 || games.len() != months.len() {
        return None;
    }
    let shares: Vec<Option<f64>> = months
        .iter()
        .zip(games)
        .map(|((_, all), &n)| (*all > 0).then(|| 100.0 * n as f64 / *all as f64))
        .collect();
    let top = shares.iter().flatten().copied().fold(0.0, f64::max);
    let step = SPARK_WIDTH / (months.len() - 1) as f64;
    // A pixel of room at the top and bottom for the stroke.
    let y = |share: f64| match top > 0.0 {
        true => SPARK_HEIGHT - 1.0 - (SPARK_HEIGHT - 2.0) * share / top,
        false => SPARK_HEIGHT - 1.0,
    };
    let mut lines = Vec::new();
    let mut run: Vec<String> = Vec::new();
    for (i, share) in shares.iter().enumerate() {
        match share {
            Some(share) => run.push(format!("{:.1},{:.1}", i as f64 * step, y(*share))),
            None if !run.is_empty() => lines.push(std::mem::take(&mut run).join(" ")),
            None => {}
        }
    }
    if !run.is_empty() {
        lines.push(run.join(" "));
    }
    let (first, last) = (&months[0].0, &months[months.len() - 1].0);
    Some(Spark {
        lines,
        label: format!(
            "share of the position's games by month, {first} to {last}: up to {top:.0}%"
        ),
    })
}

/// The position's games month by month as bars in a box
/// [`BARS_WIDTH`] × [`BARS_HEIGHT`], the tallest the month with most.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MonthBars {
    pub bars: Vec<MonthBar>,
    pub first: String,
    pub last: String,
    /// The most games of a month (the top of the scale).
    pub most: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MonthBar {
    pub x: String,
    pub y: String,
    pub width: String,
    pub height: String,
    /// `2025-05: 12 games`.
    pub title: String,
}

pub(crate) const BARS_WIDTH: f64 = 300.0;
pub(crate) const BARS_HEIGHT: f64 = 60.0;

/// The bars of `months`; None with fewer than two months.
pub(crate) fn month_bars(months: &[(String, u64)]) -> Option<MonthBars> {
    if months.len() < 2 {
        return None;
    }
    let most = months.iter().map(|(_, n)| *n).max().unwrap_or(0);
    let slot = BARS_WIDTH / months.len() as f64;
    // A gap between bars while they are wide enough to have one.
    let gap = (slot / 6.0).min(1.0);
    let bars = months
        .iter()
        .enumerate()
        .filter(|(_, (_, n))| *n > 0)
        .map(|(i, (month, n))| {
            let height = BARS_HEIGHT * *n as f64 / most.max(1) as f64;
            MonthBar {
                x: format!("{:.2}", i as f64 * slot + gap / 2.0),
                y: format!("{:.2}", BARS_HEIGHT - height),
                width: format!("{:.2}", slot - gap),
                height: format!("{height:.2}"),
                title: format!("{month}: {n} games"),
            }
        })
        .collect();
    Some(MonthBars {
        bars,
        first: months[0].0.clone(),
        last: months[months.len() - 1].0.clone(),
        most,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn months(counts: &[u64]) -> Vec<(String, u64)> {
        counts
            .iter()
            .enumerate()
            .map(|(i, n)| (format!("2025-{:02}", i + 1), *n))
            .collect()
    }

    #[test]
    fn a_spark_breaks_where_the_position_had_no_games() {
        let line = spark(&months(&[4, 0, 2, 2]), &[2, 0, 2, 0]);
        let line = line.unwrap_or_else(|| panic!("a line"));
        // 50 %, a gap, 100 % (the top), 0 %.
        assert_eq!(line.lines, ["0.0,10.0", "53.3,1.0 80.0,19.0"]);
        assert!(line.label.contains("up to 100%"), "{}", line.label);
        assert_eq!(spark(&months(&[4]), &[2]), None);
    }

    #[test]
    fn month_bars_scale_to_the_busiest_month_and_skip_empty_ones() {
        let bars = month_bars(&months(&[2, 0, 4])).unwrap_or_else(|| panic!("bars"));
        assert_eq!(bars.bars.len(), 2);
        assert_eq!(bars.most, 4);
        assert_eq!(bars.bars[1].height, "60.00");
        assert_eq!(bars.bars[0].height, "30.00");
        assert_eq!(
            (bars.first.as_str(), bars.last.as_str()),
            ("2025-01", "2025-03")
        );
    }
}
