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
def overlay_server(tmp_path_factory: pytest.TempPathFactory, token: str) -> Iterator[Any]:
    """The live server (`ServerThread`) on a loopback port, fed the four-base layout of
    tests/server_fixtures.py, with ``token`` as the umpire's; once its state has every base."""
    from campo.server.rig import ServerSettings
    from campo.server.runner import ServerThread, free_port
    from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames, wait_for

    frames = tmp_path_factory.mktemp("frames")
    render_frames(frames, [LAYOUT])
    setup = tmp_path_factory.mktemp("setup") / "terrain.json"
    settings = ServerSettings(source=str(frames), table=TABLE, roster=ROSTER, setup_file=setup,
                              port=free_port(), token=token, fps=5.0, status_interval_s=0.25)
    with ServerThread(settings) as srv:
        assert wait_for(lambda: srv.services.tracker.state is not None
                        and len(srv.services.tracker.state["bases"]) == len(LAYOUT), timeout=20)
        yield srv


@contextmanager
def replay_server(recording: Path) -> Iterator[str]:
    """`campo replay`'s app for ``recording`` served by uvicorn on a loopback port (its URL),
    stopped on exit."""
    import threading
    import time

    import uvicorn

    from campo.server.recording.replay_app import create_replay_app
    from campo.server.runner import free_port, uvicorn_config

    port = free_port()
    srv = uvicorn.Server(uvicorn_config(create_replay_app(recording), "127.0.0.1", port))
    srv.install_signal_handlers = lambda: None  # type: ignore[method-assign]
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    end = time.monotonic() + 20
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < end, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


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
