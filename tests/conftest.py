"""Shared fixtures: the example files under tests/data and a CLI runner."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# CI explores the same examples on every run, so a red build always means a real regression and
# can be reproduced; local runs keep exploring new examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

DATA = Path(__file__).parent / "data"

# Each checkout keeps its test folders under its own temporary root: pytest prunes old numbered
# folders under the root it shares, so two checkouts tested at once (several worktrees on one
# machine) would delete each other's folders mid-run.
os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", str(
    Path(tempfile.gettempdir()) / f"campo-tests-{hashlib.sha1(str(DATA).encode()).hexdigest()[:10]}"))
Path(os.environ["PYTEST_DEBUG_TEMPROOT"]).mkdir(parents=True, exist_ok=True)


class _FailOnErrorLog(logging.Handler):
    """Error logs fail the test that produced them (as python-chess does)."""

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "campo_expected", False):
            return
        raise AssertionError(f"unexpected error log: {record.getMessage()}")


@pytest.fixture(scope="session", autouse=True)
def _engine_warm() -> None:
    """Import the engine and analyse each rulebook's warm-up scenario once, before any test, as
    `campo serve` does while it starts: a live server test's waiting time is not spent on imports."""
    from campo.engine.warmup import prepare

    prepare()


@pytest.fixture(autouse=True)
def _error_logs_fail() -> object:
    handler = _FailOnErrorLog(level=logging.ERROR)
    root = logging.getLogger()
    root.addHandler(handler)
    yield
    root.removeHandler(handler)


@pytest.fixture(scope="session")
def still_frames(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of two rendered frames of the server tests' table (`server_fixtures.LAYOUT`),
    standing still: the camera a live server test watches (read only; shared by the session)."""
    from tests.server_fixtures import LAYOUT, render_frames

    folder = tmp_path_factory.mktemp("still")
    render_frames(folder, [LAYOUT] * 2)
    return folder


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def run_campo(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run `campo ARGS...` in-process; returns (exit code, stdout, stderr)."""
    from campo.server.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture(scope="module")
def chromium_args() -> list[str]:
    """Flags for the ``browser`` fixture; a browser test module may override this fixture."""
    from tests.browser_fixtures import CHROMIUM_ARGS

    return list(CHROMIUM_ARGS)


@pytest.fixture(scope="module")
def browser(chromium_args: list[str]) -> Iterator[Any]:
    """Debian's headless chromium through Playwright, one per test module (tests/browser_fixtures.py)."""
    from tests.browser_fixtures import launched_chromium

    with launched_chromium(chromium_args) as b:
        yield b
