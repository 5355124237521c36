"""Every example in the engine's docstrings and in docs/engine.md runs and prints what it says:
a newcomer copies them first."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import campo.engine

ROOT = Path(__file__).resolve().parents[1]


def _engine_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(campo.engine.__path__, "campo.engine."))


@pytest.mark.parametrize("name", _engine_modules())
def test_engine_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_engine_doc_examples() -> None:
    result = doctest.testfile(str(ROOT / "docs" / "engine.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
