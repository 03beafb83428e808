"""The game page of `pgnlake serve` stepped through in a real browser
(headless Chromium driven by Playwright, the system's Chromium), each
position against python-chess's board.

Usage: game_steps_ui.py BASE_URL GAMES.pgn ID [ID ...]

GAMES.pgn holds the games whose pages are stepped, in the order of the
IDs (their ids on the server). For each: open `/game/ID` (at the game's
end), go to its start by the Home key, then at every
ply read the FEN the page shows and the pieces its board draws, compare
them with python-chess's board after as many moves (the game's `Variant`
tag picks the board, its `FEN` tag the start, as chess.pgn does), and go
forward: by clicking `forward ▶`, every third step by the right arrow key
(the page's script). Past the last move, forward is gone. Prints one
`ok ...` line per game; any difference raises (exit 1).
"""

import sys

import chess
import chess.pgn
from chromium import launch
from playwright.sync_api import sync_playwright

base, pgn, ids = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3:]


def boards(game):
    """python-chess's board before the first move and after each."""
    board = game.board()
    out = [board.copy()]
    for move in game.mainline_moves():
        board.push(move)
        out.append(board.copy())
    return out


def drawn(page):
    """The board the page draws: square name → glyph (empty squares left out)."""
    cells = page.locator("td[data-square]")
    squares = cells.evaluate_all("cs => cs.map(c => [c.dataset.square, c.textContent.trim()])")
    return {name: glyph for name, glyph in squares if glyph}


def expected(board):
    return {chess.square_name(sq): piece.unicode_symbol() for sq, piece in board.piece_map().items()}


games = []
with open(pgn, encoding="utf-8") as handle:
    while (game := chess.pgn.read_game(handle)) is not None:
        if game.errors:
            sys.exit(f"python-chess: {game.headers.get('Event')}: {game.errors}")
        games.append(game)
assert len(games) == len(ids), (len(games), ids)

with sync_playwright() as p:
    browser = launch(p)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    for game, game_id in zip(games, ids):
        event = game.headers.get("Event", "?")
        # The page opens at the game's end; Home (the page's script) goes
        # to its start.
        page.goto(f"{base}/game/{game_id}")
        positions = boards(game)
        shown = page.locator("p.fen").inner_text().strip()
        assert shown == positions[-1].fen(), f"{event} opened at {shown!r}"
        with page.expect_navigation():
            page.keyboard.press("Home")
        for ply, board in enumerate(positions):
            shown = page.locator("p.fen").inner_text().strip()
            assert shown == board.fen(), f"{event} at ply {ply}: page {shown!r}, python-chess {board.fen()!r}"
            got = drawn(page)
            assert got == expected(board), f"{event} at ply {ply}: board {got} against {expected(board)}"
            if ply + 1 == len(positions):
                break
            with page.expect_navigation():
                if ply % 3 == 2:
                    page.keyboard.press("ArrowRight")
                else:
                    page.locator("#forward").click()
        assert page.locator("#forward").count() == 0, f"{event}: a forward link past the end"
        print(f"ok {event}: {len(positions)} positions stepped in Chromium equal python-chess's")
    assert not errors, errors
    browser.close()
