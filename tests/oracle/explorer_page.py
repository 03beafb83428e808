"""The explorer page of `pgnlake serve`, clicked through in a real browser
(headless Chromium driven by Playwright, the system's Chromium).

Usage: explorer_page.py BASE_URL HOSTILE_NAME [SCREENSHOT_DIR]

The data served holds sample-data plus a game whose white player is
HOSTILE_NAME (markup with a script). Checks, in order:
1. the start position lists moves; clicking e4 then c5 changes the move
   table and the opening's name (King's Pawn Game, then Sicilian Defense);
   the arrow key goes back;
2. a speed filter narrows the counts;
3. a top game's PGN link opens the game's PGN, and its view page steps;
4. the hostile name typed in the player box is shown as text, and no
   script of it runs (no dialog, no global it would set).
Prints one `ok ...` line per check; any failure raises (exit 1).
"""

import os
import sys

from chromium import launch
from playwright.sync_api import sync_playwright

base, hostile = sys.argv[1].rstrip("/"), sys.argv[2]
shots = sys.argv[3] if len(sys.argv) > 3 else None


def shot(page, name):
    if shots:
        page.screenshot(path=os.path.join(shots, name + ".png"), full_page=True)


def moves(page):
    return page.locator("#moves a.move").all_inner_texts()


def total(page):
    return int(page.locator("#total").inner_text())


with sync_playwright() as p:
    browser = launch(p)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    # 1. Start → e4 → c5.
    page.goto(base + "/")
    start_moves = moves(page)
    assert "e4" in start_moves, start_moves
    start_opening = page.locator("#opening").inner_text()
    start_total = total(page)
    page.locator("#moves a.move", has_text="e4").first.click()
    page.wait_for_load_state()
    assert "King's Pawn" in page.locator("#opening").inner_text(), page.locator("#opening").inner_text()
    after_e4 = moves(page)
    assert after_e4 != start_moves and "c5" in after_e4, after_e4
    assert total(page) < start_total
    page.locator("#moves a.move", has_text="c5").first.click()
    page.wait_for_load_state()
    opening = page.locator("#opening").inner_text()
    assert "Sicilian Defense" in opening and opening != start_opening, opening
    assert moves(page) != after_e4
    assert page.locator("p.line").inner_text().startswith("1. e4 c5")
    shot(page, "sicilian")
    print("ok start → e4 → c5: moves", start_moves[:3], "→", after_e4[:3], "→", moves(page)[:3], "opening", repr(opening))
    page.keyboard.press("ArrowLeft")
    page.wait_for_load_state()
    assert "King's Pawn" in page.locator("#opening").inner_text()
    page.keyboard.press("ArrowRight")
    page.wait_for_load_state()
    assert "Sicilian" in page.locator("#opening").inner_text()
    print("ok arrow keys step back and forward")

    # 2. A filter narrows the counts.
    page.goto(base + "/")
    before = total(page)
    page.locator("input[name='speeds[]'][value='blitz']").check()
    page.locator("#apply").click()
    page.wait_for_load_state()
    after = total(page)
    assert 0 < after < before, (before, after)
    assert page.locator("input[name='speeds[]'][value='blitz']").is_checked()
    print(f"ok speed filter blitz narrows the games from {before} to {after}")

    # 3. A top game's PGN, and its page.
    page.goto(base + "/")
    link = page.locator("#top-games a.pgn").first
    href = link.get_attribute("href")
    with page.expect_navigation():
        link.click()
    text = page.content()
    assert "[Event " in text and "[White " in text, text[:300]
    print("ok a top game's PGN link opens its PGN:", href)
    page.goto(base + "/")
    page.locator("#top-games a.view").first.click()
    page.wait_for_load_state()
    assert page.locator("table.board").count() == 1
    page.locator("#first").click()
    page.wait_for_load_state()
    page.locator("#forward").click()
    page.wait_for_load_state()
    assert "ply=1" in page.url
    shot(page, "game")
    print("ok a top game's page steps through it:", page.url)

    # 4. A hostile name is text.
    page.goto(base + "/")
    page.fill("form.player input[name='player']", hostile)
    page.locator("form.player button").click()
    page.wait_for_load_state()
    shot(page, "hostile")
    heading = page.locator("header h1").inner_text()
    assert hostile in heading, heading
    names = page.locator("#recent-games").inner_text()
    assert hostile in names, names
    pwned = page.evaluate("() => window.__pwned === undefined && document.querySelectorAll('img[src=x]').length === 0")
    assert pwned, "a script of the name ran"
    assert not dialogs, dialogs
    assert not errors, errors
    print("ok the hostile name is shown as text and nothing of it runs")
    browser.close()
