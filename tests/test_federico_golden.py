"""Federico golden scenarios (tests/data/engine/federico/*.json): a position, the expected
answers derived by hand, and the rule cited (Federico "Heading" or Federico F<n>). Each is checked
as written, base by base (a base's entry asked alone is its entry in the whole table), and one
through `campo analyze --json`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from campo import engine
from campo.engine.state import GameState
from tests.engine_golden import (_same, analyze_through_cli, assert_cites_match,
                                  check_expectations, golden_files, load_golden)

GOLDEN_DIR = Path(__file__).parent / "data" / "engine" / "federico"
GOLDEN_FILES = golden_files("federico")
CITE = re.compile(r'^Federico ("[A-Z][^"]+"|F\d+)$')
HEADINGS = {"Scala di gioco", "Classificazione truppe", "Comandanti", "Iniziativa",
            "Esecuzione del tiro", "Modificatori", "Raggio di tiro", "Movimenti", "Mischie",
            "Morale dell'esercito", "Condizioni di vittoria"}


def _subset(actual: Any, expected: Any, where: str) -> None:
    """Like `_same`, but lists of objects are compared element by element as subsets."""
    if isinstance(expected, list) and expected and all(isinstance(e, dict) for e in expected):
        assert isinstance(actual, list) and len(actual) == len(expected), \
            f"{where}: {len(actual) if isinstance(actual, list) else actual!r} items != {len(expected)}"
        for n, (a, e) in enumerate(zip(actual, expected)):
            _subset(a, e, f"{where}[{n}]")
    elif isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for k, v in expected.items():
            assert k in actual, f"{where}: missing {k!r}"
            _subset(actual[k], v, f"{where}.{k}")
    else:
        _same(actual, expected, where)


def check_top(analysis: dict[str, Any], expect: dict[str, Any]) -> None:
    """Top-level members: dicts compared as subsets; ``melees`` matched by defender,
    ``objectives`` by id; other lists exactly."""
    for key, value in expect.items():
        got = analysis[key]
        if key == "melees":
            by = {m["defender"]: m for m in got}
            assert sorted(by) == sorted(m["defender"] for m in value), f"melees: {sorted(by)}"
            for m in value:
                _subset(by[m["defender"]], m, f"melees[{m['defender']}]")
        elif key == "objectives":
            by = {o["id"]: o for o in got}
            assert sorted(by) == sorted(value), f"objectives: {sorted(by)}"
            for oid, fields in value.items():
                _subset(by[oid], fields, f"objectives[{oid}]")
        else:
            _subset(got, value, key)


def test_there_are_golden_files() -> None:
    assert len(GOLDEN_FILES) >= 6


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden(path: Path) -> None:
    golden = load_golden(path)
    assert_cites_match(golden, CITE)
    for c in golden["cites"]:
        m = re.match(r'^Federico "(.+)"$', c)
        assert m is None or m.group(1) in HEADINGS, c
    analysis = engine.analyze(golden["scenario"])
    assert [p for p in analysis["problems"] if p["severity"] == "error"] == []
    check_expectations(analysis, golden["expect"])
    check_top(analysis, golden.get("expect_top", {}))


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden_base_by_base(path: Path) -> None:
    """Each base's entry asked alone (a tap on the board) is its entry in the whole table, and
    its summary says what the entry says."""
    from tests.ruleset_properties import summary_of_entry

    scenario = load_golden(path)["scenario"]
    whole = engine.analyze(scenario)
    for base_id, entry in whole["bases"].items():
        state = GameState.from_dict(scenario)
        assert state.ruleset.analyze(state, [base_id])["bases"][base_id] == entry, base_id
        summary = state.ruleset.summaries(state, [base_id])[base_id]
        assert {k: v for k, v in summary.items() if k != "badges"} == summary_of_entry(entry)


def test_golden_through_the_cli(run_campo, tmp_path: Path) -> None:
    golden = load_golden(GOLDEN_DIR / "musket_ranges.json")
    result = analyze_through_cli(run_campo, tmp_path / "scenario.json", golden["scenario"])
    assert (result["ruleset"], result["unit"], result["mm_per_unit"]) == ("federico", "cm", 10.0)
    check_expectations(result, golden["expect"])
