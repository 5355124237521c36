"""Shared fixtures: the example files under tests/data and a CLI runner."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


class _FailOnErrorLog(logging.Handler):
    """Error logs fail the test that produced them (as python-chess does)."""

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "campo_expected", False):
            return
        raise AssertionError(f"unexpected error log: {record.getMessage()}")


@pytest.fixture(autouse=True)
def _error_logs_fail() -> object:
    handler = _FailOnErrorLog(level=logging.ERROR)
    root = logging.getLogger()
    root.addHandler(handler)
    yield
    root.removeHandler(handler)


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def run_campo(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run `campo ARGS...` in-process; returns (exit code, stdout, stderr)."""
    from server.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return run
