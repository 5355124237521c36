"""Shared pieces of the browser tests (Debian's chromium driven by Playwright): where chromium is,
how it is launched, and a page that fails the test on any page error or console error.

The ``browser`` fixture itself lives in tests/conftest.py (module scope, flags from the
``chromium_args`` fixture, which a test module may override to add its own).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SIDE_RGB = {"A": (30, 110, 235), "B": (220, 40, 40)}  # style.css --side-a / --side-b


def require_chromium() -> None:
    """Skip the calling test module (at import) when Debian's chromium is not installed."""
    if not Path(CHROMIUM).exists():  # pragma: no cover - .ci/run installs it
        pytest.skip("Debian's chromium is not installed", allow_module_level=True)


@contextmanager
def launched_chromium(args: Sequence[str]) -> Iterator[Any]:
    """A headless chromium (Playwright ``Browser``) started with ``args``, closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=list(args))
        yield b
        b.close()


@contextmanager
def checked_page(browser: Any, url: str, ready: Sequence[str], *,
                 timeout_ms: float = 15000, size: tuple[int, int] = (1280, 800),
                 touch: bool = False) -> Iterator[Any]:
    """A page of ``size`` (default 1280x800; ``touch``: a tablet's touch screen) at ``url``,
    once every ``ready`` selector is present; on exit the page's context is closed and any page
    error or console error seen meanwhile fails the test."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=touch)
    pg = context.new_page()
    problems: list[str] = []
    pg.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    pg.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
          if m.type == "error" else None)
    pg.goto(url)
    for selector in ready:
        pg.wait_for_selector(selector, timeout=timeout_ms)
    yield pg
    context.close()
    assert problems == []
