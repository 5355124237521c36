"""Shared pieces of the rulesets' property tests (tests/test_*_properties.py): hypothesis settings,
terrain strategies, and the "move the whole table, the verdicts stay the same" comparison.

Each ruleset keeps its own base strategy (troop types and traits differ) and its own test functions;
what the three files repeated lives here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from campo import engine
from campo.engine.summary import base_summary
from tests.engine_golden import load_golden, transform_scenario

# Whole-table moves applied to every golden scenario: (turn in degrees, dx, dy) in mm.
GOLDEN_MOVES = ((90.0, 1200.0, 0.0), (37.0, 250.0, -400.0), (211.5, 1900.0, 1500.0))

# Numbers written inside reason strings (rounded to 0.1 by the engine).
_TEXT_NUMBER = re.compile(r"\d+\.\d+")


def property_settings(max_examples: int) -> Any:
    """Hypothesis settings for the rulesets' properties: reproducible, no per-example deadline."""
    return settings(max_examples=max_examples, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def rect_mm(x: float, y: float, w: float, h: float) -> list[list[float]]:
    """An axis-aligned rectangle polygon with its first corner at (x, y), in table mm."""
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def corner(draw: Any, lo: int, hi: int) -> tuple[int, int]:
    """A random (x, y) corner for a terrain piece, both coordinates in [lo, hi]."""
    return draw(st.integers(lo, hi)), draw(st.integers(lo, hi))


def assert_close(a: Any, b: Any, where: str = "", *, numbers_in_text: bool = False) -> None:
    """Structural equality with numbers compared to 0.02 of a unit.

    With ``numbers_in_text``, strings that differ only in their 0.1-rounded numbers are equal when
    each number is within 0.11.
    """
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), f"{where}: keys {sorted(a)} != {sorted(b)}"
        for k in a:
            assert_close(a[k], b[k], f"{where}.{k}", numbers_in_text=numbers_in_text)
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), f"{where}: {a} != {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_close(x, y, f"{where}[{i}]", numbers_in_text=numbers_in_text)
    elif isinstance(a, float):
        assert isinstance(b, (int, float)) and math.isclose(a, b, abs_tol=0.02), f"{where}: {a} != {b}"
    elif numbers_in_text and isinstance(a, str) and isinstance(b, str):
        na, nb = _TEXT_NUMBER.findall(a), _TEXT_NUMBER.findall(b)
        assert _TEXT_NUMBER.sub("#", a) == _TEXT_NUMBER.sub("#", b), f"{where}: {a!r} != {b!r}"
        assert all(abs(float(x) - float(y)) <= 0.11 for x, y in zip(na, nb)), f"{where}: {a!r} != {b!r}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def verdicts(sc: dict[str, Any], *, drop: Iterable[str], strip: Callable[[Any], Any]) -> Any:
    """The analysis of ``sc`` without the members that depend on where the table is (``drop``),
    passed through ``strip`` (which removes table-frame coordinates)."""
    out = engine.analyze(sc)
    for key in drop:
        out.pop(key)
    return strip(out)


def check_table_move(verdicts_of: Callable[[dict[str, Any]], Any], sc: dict[str, Any], turn: float,
                     dx: float, dy: float, where: str = "", *, numbers_in_text: bool = False) -> None:
    """Turning the whole table by ``turn`` degrees and shifting it by (dx, dy) changes no verdict."""
    assert_close(verdicts_of(sc), verdicts_of(transform_scenario(sc, turn, dx, dy)), where,
                 numbers_in_text=numbers_in_text)


def check_goldens_moved(verdicts_of: Callable[[dict[str, Any]], Any], paths: Iterable[Path], *,
                        numbers_in_text: bool = False) -> None:
    """Every golden scenario gives the same verdicts after each of GOLDEN_MOVES."""
    for path in paths:
        sc = load_golden(path)["scenario"]
        for turn, dx, dy in GOLDEN_MOVES:
            check_table_move(verdicts_of, sc, turn, dx, dy, path.stem, numbers_in_text=numbers_in_text)


def check_summary_reach(ruleset: Any, before: dict[str, Any],
                        moves: Iterable[dict[str, Any]]) -> set[str]:
    """The promise `LiveAnalysis` relies on: after each move (a scenario like ``before`` with
    some bases moved), every base whose summary changed lies within
    ``ruleset.summary_reach_mm`` of where a moved base was or is. The bases whose summary
    changed, moved ones aside, over all the moves."""
    from campo.engine.state import GameState

    seen: set[str] = set()
    old = GameState.from_dict(before)
    for after in moves:
        new = GameState.from_dict(after)
        changed = {i for i, s in ruleset.summaries(new, new.ids).items()
                   if ruleset.summaries(old, [i])[i] != s}
        moved = {b["id"] for b, c in zip(before["bases"], after["bases"]) if b != c}
        reach = ruleset.summary_reach_mm(new)
        shapes = [new.rect(i).polygon for i in moved] + [old.rect(i).polygon for i in moved]
        near = {i for i in new.ids if any(new.rect(i).polygon.distance(s) <= reach
                                          for s in shapes)}
        assert changed <= near | moved, sorted(changed - near - moved)
        seen |= changed - moved
    return seen


def summary_of_entry(entry: dict[str, Any], badges: Iterable[str] = ()) -> dict[str, Any]:
    """The summary a base's full analysis entry implies (contacts, commanded_by, supported_by):
    what `Ruleset.summaries` must agree with."""
    return base_summary(contacts={c["id"]: c["aspect"] for c in entry.get("contacts", [])},
                        commanded_by=entry.get("commanded_by", ()),
                        supported_by=entry.get("supported_by", ()), badges=badges)
