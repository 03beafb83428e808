"""The report's charts measured as drawn, in a real browser (headless
Chromium driven by Playwright, the system's Chromium), for
`tests/it/report.rs`.

Usage: report_layout.py REPORT.html

For every chart (`svg.chart`), on the SVG as laid out:
1. the legend (`g.legend`) overlaps no mark of the data (bars, lines,
   points) and lies outside the plotting area (`data-plot`);
2. a share in percent (`data-percent`) has its value axis end at 100: its
   greatest tick label is 100;
3. a count's value axis ends near the data's greatest value: the longest
   bar (or stack) reaches within 10 % of the plot's far edge;
4. time (`data-time`) runs on a continuous axis: the bars' centres are
   proportional to their periods' first years (gaps where there is no
   game), within 2 px;
5. no chart has a single category: its numbers table has two rows or more;
6. its CSV link (`a.csv`) downloads exactly its numbers table.
Prints one JSON line: the charts measured and the checks each passed.
Any failure raises (exit 1).
"""

import csv
import io
import json
import re
import sys
import urllib.parse

from chromium import launch
from playwright.sync_api import sync_playwright

PALETTE = {"#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#999999"}

MEASURE = """
svg => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const colour = v => (v || '').toLowerCase();
  const view = svg.viewBox.baseVal;
  const outer = svg.getBoundingClientRect();
  const scale = outer.width / view.width;
  const plotGroup = svg.querySelector('g.plot');
  const p = plotGroup.getAttribute('data-plot').split(' ').map(Number);
  const plot = [outer.left + p[0] * scale, outer.top + p[1] * scale,
                outer.left + p[2] * scale, outer.top + p[3] * scale];
  const legend = svg.querySelector('g.legend');
  const marks = [];
  for (const r of plotGroup.querySelectorAll('rect')) {
    const b = box(r);
    if (b[2] - b[0] >= 1 && b[3] - b[1] >= 1) marks.push({kind: 'rect', fill: colour(r.getAttribute('fill')), box: b});
  }
  for (const l of plotGroup.querySelectorAll('polyline')) {
    marks.push({kind: 'line', fill: colour(l.getAttribute('stroke')), box: box(l)});
  }
  for (const c of plotGroup.querySelectorAll('circle')) {
    marks.push({kind: 'point', fill: colour(c.getAttribute('fill')), box: box(c)});
  }
  // Every bar's box, however short (a period of few games among many is
  // under a pixel high, but it is placed).
  const columns = [...plotGroup.querySelectorAll('rect')]
    .filter(r => ['#e69f00', '#56b4e9', '#009e73', '#f0e442', '#0072b2', '#d55e00', '#cc79a7', '#999999']
      .includes(colour(r.getAttribute('fill'))))
    .map(box).filter(b => b[2] - b[0] >= 1);
  const texts = [...plotGroup.querySelectorAll('text')].map(t => ({text: t.textContent.trim(), box: box(t)}));
  const node = svg.parentElement.closest('div.chart');
  const table = node ? node.querySelector('details table') : null;
  const rows = table ? [...table.querySelectorAll('tr')].map(tr => [...tr.children].map(c => c.textContent)) : [];
  const link = node ? node.querySelector('a.csv') : null;
  return {
    percent: svg.dataset.percent === 'true', time: svg.dataset.time === 'true',
    horizontal: svg.dataset.horizontal === 'true',
    plot, legend: legend && legend.childElementCount ? box(legend) : null,
    marks, columns, texts, rows, csv: link ? link.getAttribute('href') : null,
    section: svg.closest('section').id,
  };
}
"""


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def number(text):
    cleaned = text.replace(",", "")
    return float(cleaned) if re.fullmatch(r"-?\d+(\.\d+)?", cleaned) else None


def check(chart, passed):
    name = chart["section"]
    data = [m for m in chart["marks"] if m["fill"] in PALETTE]
    assert data, f"{name}: a chart without marks"
    if chart["legend"]:
        legend = chart["legend"]
        assert not overlap(legend, chart["plot"]), f"{name}: the legend is in the plot"
        for mark in data:
            assert not overlap(legend, mark["box"]), f"{name}: the legend covers a {mark['kind']}"
        passed["legend"] += 1
    # The value axis's tick labels: left of the plot, or under it when the
    # bars run across.
    x0, y0, x1, y1 = chart["plot"]
    on_axis = [t for t in chart["texts"]
               if (t["box"][1] >= y1 - 2 if chart["horizontal"] else t["box"][2] <= x0 + 2)]
    ticks = [n for n in (number(t["text"]) for t in on_axis) if n is not None]
    if chart["percent"]:
        assert max(ticks) == 100, f"{name}: a share's axis ends at {max(ticks)}"
        passed["percent"] += 1
    bars = [m["box"] for m in data if m["kind"] == "rect"]
    if bars and not chart["percent"]:
        if chart["horizontal"]:
            reach = (max(b[2] for b in bars) - x0) / (x1 - x0)
        else:
            reach = (y1 - min(b[1] for b in bars)) / (y1 - y0)
        assert reach >= 0.9, f"{name}: the longest bar reaches {reach:.0%} of the axis"
        passed["count"] += 1
    rows = chart["rows"]
    assert len(rows) >= 3, f"{name}: a chart of {len(rows) - 1} category"
    passed["categories"] += 1
    if chart["time"] and bars:
        centres = sorted({round((b[0] + b[2]) / 2, 1) for b in chart["columns"]})
        starts = [int(re.match(r"-?\d+", r[0]).group()) for r in rows[1:]]
        assert len(centres) == len(starts), f"{name}: {len(centres)} bars, {len(starts)} periods"
        if len(starts) >= 3:
            step = (centres[-1] - centres[0]) / (starts[-1] - starts[0])
            for c, s in zip(centres, starts):
                expected = centres[0] + step * (s - starts[0])
                assert abs(c - expected) <= 2, f"{name}: {s} at {c}, not {expected:.1f}"
            passed["time"] += 1
    assert chart["csv"] and chart["csv"].startswith("data:text/csv"), f"{name}: no CSV link"
    text = urllib.parse.unquote(chart["csv"].split(",", 1)[1])
    assert list(csv.reader(io.StringIO(text))) == rows, f"{name}: the CSV is not the table"
    passed["csv"] += 1


def main():
    path = sys.argv[1]
    passed = dict.fromkeys(["legend", "percent", "count", "categories", "time", "csv"], 0)
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto("file://" + path)
        charts = page.locator("svg.chart")
        measured = [charts.nth(i).evaluate(MEASURE) for i in range(charts.count())]
        browser.close()
    for chart in measured:
        check(chart, passed)
    sections = sorted({c["section"] for c in measured})
    print(json.dumps({"charts": len(measured), "sections": sections, "passed": passed}))


if __name__ == "__main__":
    main()
