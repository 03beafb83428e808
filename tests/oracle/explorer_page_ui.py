"""The explorer page of `pgnlake serve` as a user sees it, measured in a
real browser (headless Chromium driven by Playwright, the system's
Chromium), for `tests/it/serve_page.rs`.

Usage: explorer_page_ui.py BASE_URL [SCREENSHOT_DIR]

The data served is sample-data. Checks, in order, one `ok ...` line each:
1. coordinates: the ranks 8..1 beside the board, each level with its
   rank's squares, and the files a..h under it, each under its file;
2. the last move: after 1.e4 c5, c7 and c5 (only they) are tinted, in
   another colour than the squares of their shade;
3. results and months never wrap: in a 360 px window every result and
   month cell of the games tables is one line; the control: the same
   cells with wrapping allowed, in a table squeezed to its narrowest, do
   break (so the measure sees a wrap when there is one);
4. games tables have a header row: White, Black, Result, Speed, Month, Game;
5. the icon is inline: the page's `link[rel=icon]` is an SVG data URL
   that loads as an image, and no answer of the session was a 404;
6. the Σ row and "show all moves": with `moves=1` one move is listed, the
   Σ is the position's total from `/lichess`, and the link lists them all;
7. a bad FEN: a 400 whose page shows the error, the start position's
   board and the FEN box holding what was typed; a good FEN typed in that
   box shows its position, with no error.
Any failure raises (exit 1).
"""

import json
import os
import sys
import urllib.request

from chromium import launch
from playwright.sync_api import sync_playwright

base = sys.argv[1].rstrip("/")
shots = sys.argv[2] if len(sys.argv) > 2 else None


def shot(page, name):
    if shots:
        page.screenshot(path=os.path.join(shots, name + ".png"), full_page=True)


def box(page, selector):
    found = page.locator(selector).first.bounding_box()
    assert found is not None, selector
    return found


def api(path):
    with urllib.request.urlopen(base + path) as answer:
        return json.load(answer)


# Lines a cell's text takes: one client rect per line box of its text.
LINES = """el => { const r = document.createRange(); r.selectNodeContents(el);
  const tops = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
  return tops.size; }"""

with sync_playwright() as p:
    browser = launch(p)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    missing = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)

    # 1. Coordinates.
    page.goto(base + "/?play=e2e4,c7c5")
    ranks = page.locator(".board-frame ol.ranks li").all_inner_texts()
    files = page.locator(".board-frame ol.files li").all_inner_texts()
    assert ranks == [str(r) for r in range(8, 0, -1)], ranks
    assert files == list("abcdefgh"), files
    for label, square in [("1", "a1"), ("8", "a8"), ("4", "h4")]:
        rank = box(page, f".board-frame ol.ranks li:text-is('{label}')")
        cell = box(page, f"td[data-square='{square}']")
        middle = rank["y"] + rank["height"] / 2
        assert cell["y"] < middle < cell["y"] + cell["height"], (label, rank, cell)
        assert rank["x"] + rank["width"] <= cell["x"] + 1, (label, rank, cell)
    for label, square in [("a", "a1"), ("h", "h1"), ("e", "e1")]:
        file = box(page, f".board-frame ol.files li:text-is('{label}')")
        cell = box(page, f"td[data-square='{square}']")
        middle = file["x"] + file["width"] / 2
        assert cell["x"] < middle < cell["x"] + cell["width"], (label, file, cell)
        assert file["y"] >= cell["y"] + cell["height"] - 1, (label, file, cell)
    print("ok coordinates: ranks", "".join(ranks), "beside, files", "".join(files), "under, each level with its squares")

    # 2. The last move.
    tinted = page.locator("table.board td.last").evaluate_all("els => els.map(e => e.dataset.square)")
    assert sorted(tinted) == ["c5", "c7"], tinted
    colour = lambda square: page.locator(f"td[data-square='{square}']").evaluate("e => getComputedStyle(e).backgroundColor")
    # c7 and c5 are dark squares, as are a7 and e5.
    assert colour("c7") == colour("c5") != colour("a7") == colour("e5"), [colour(s) for s in ("c7", "c5", "a7", "e5")]
    assert page.locator("table.board").get_attribute("data-from") == "c7"
    assert page.locator("table.board").get_attribute("data-to") == "c5"
    shot(page, "last-move")
    print("ok the last move c7c5 is tinted:", colour("c5"), "against", colour("e5"))

    # 3. Results and months on one line in a narrow window.
    narrow = browser.new_page(viewport={"width": 360, "height": 800})
    narrow.goto(base + "/")
    cells = narrow.locator("table.games td.result, table.games td.month")
    assert cells.count() >= 4, cells.count()
    # An empty cell (a game without a month) has no line.
    lines = cells.evaluate_all(f"els => els.map({LINES})")
    assert all(n <= 1 for n in lines) and lines.count(1) >= 4, lines
    shot(narrow, "narrow")
    # The control: wrapping allowed, the table at its narrowest.
    narrow.add_style_tag(content="table.games { width: 1px !important; } "
                                 "table.games td.result, table.games td.month { white-space: normal !important; }")
    wrapped = cells.evaluate_all(f"els => els.map({LINES})")
    assert any(n > 1 for n in wrapped), wrapped
    narrow.close()
    print(f"ok {lines.count(1)} result and month cells are one line each at 360 px (the control wraps {sum(n > 1 for n in wrapped)})")

    # 4. Header rows.
    page.goto(base + "/")
    for table in ["#top-games", "#recent-games"]:
        header = page.locator(f"{table} thead th").all_inner_texts()
        assert header == ["White", "Black", "Result", "Speed", "Month", "Game"], (table, header)
    print("ok the top and recent games tables have a header row")

    # 5. The icon.
    href = page.locator("link[rel=icon]").get_attribute("href")
    assert href.startswith("data:image/svg+xml,"), href
    width = page.evaluate("""href => new Promise(done => { const i = new Image();
        i.onload = () => done(i.naturalWidth); i.onerror = () => done(-1); i.src = href; })""", href)
    assert width > 0, width
    print("ok the icon is an inline SVG that loads; no 404 so far:", missing)
    assert not missing, missing

    # 6. The Σ of the position, and every move.
    total = api("/lichess?moves=1")
    every = api("/lichess?moves=256")
    assert len(every["moves"]) > 1, every["moves"]
    page.goto(base + "/?moves=1")
    assert page.locator("#moves a.move").count() == 1
    shown = int(page.locator("#total").inner_text())
    assert shown == total["white"] + total["draws"] + total["black"], (shown, total)
    page.locator("#all-moves").click()
    page.wait_for_load_state()
    assert page.locator("#moves a.move").count() == len(every["moves"]), page.url
    assert page.locator("#all-moves").count() == 0
    assert int(page.locator("#total").inner_text()) == shown
    print(f"ok Σ {shown} is the position's total; show all moves lists {len(every['moves'])}")

    # 7. A bad FEN, fixed in its box.
    answer = page.goto(base + "/?fen=not-a-fen&speeds=blitz")
    assert answer.status == 400, answer.status
    alert = page.locator("[role=alert]").inner_text()
    assert "fen" in alert.lower(), alert
    assert page.locator("table.board td[data-square]").count() == 64
    assert page.locator("td[data-square='e1']").inner_text() == "♔"
    assert page.locator("form.fen input[name=fen]").input_value() == "not-a-fen"
    assert page.locator("input[name='speeds[]'][value=blitz]").is_checked()
    shot(page, "bad-fen")
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    page.fill("form.fen input[name=fen]", after_e4)
    with page.expect_navigation() as navigation:
        page.locator("form.fen button").click()
    assert navigation.value.status == 200, navigation.value.status
    assert page.locator("[role=alert]").count() == 0
    assert page.locator("td[data-square='e4']").inner_text() == "♙"
    assert page.locator("#moves a.move").count() > 0
    print("ok a bad FEN is a 400 page with the error, the board and the boxes; fixed in its box, it shows", after_e4)

    assert not errors, errors
    browser.close()
