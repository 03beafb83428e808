"""The system's Chromium for the page tests, headless, driven by
Playwright: one way to find and start it for every script that clicks
through a page (`explorer_page.py`, `explorer_page_ui.py`,
`game_steps_ui.py`). PGNLAKE_CHROMIUM names another binary."""

import os

CHROMIUM = os.environ.get("PGNLAKE_CHROMIUM") or next(
    (p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
     if os.path.exists(p)),
    "chromium",
)


def launch(playwright):
    """A headless Chromium: no sandbox, GPU, sync or background traffic."""
    return playwright.chromium.launch(
        executable_path=CHROMIUM,
        headless=True,
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run"],
    )
