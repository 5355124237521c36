"""Golden ATTILA scenarios (tests/data/engine/attila/*.json): a position, the expected answers
(derived by hand), the rule cited. Checked as written, base by base (`Ruleset.analyze` of one
id gives the whole analysis's entry), and through `campo analyze --json`.

``expect`` is per base, in the shared golden format (tests/engine_golden.py); ``expect_extra``
holds ATTILA's extra members (groups, mandatory_charges, control_points, army_morale, victory,
deployment), compared as subsets: objects by the keys given, lists item by item.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from campo import engine
from campo.engine.state import GameState
from tests.engine_golden import (analyze_through_cli, assert_cites_match, check_expectations,
                                  golden_files, load_golden)

GOLDEN_DIR = Path(__file__).parent / "data" / "engine" / "attila"
GOLDEN_FILES = golden_files("attila")
CITE = re.compile(r"^ATT (\d+\.[A-Z]|\d+|T|AT\d+)$")


def subset(actual: Any, expected: Any, where: str) -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for k, v in expected.items():
            assert k in actual, f"{where}: missing {k!r}"
            subset(actual[k], v, f"{where}.{k}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), \
            f"{where}: {actual!r} != {expected!r}"
        for n, (a, e) in enumerate(zip(actual, expected)):
            subset(a, e, f"{where}[{n}]")
    elif isinstance(expected, float):
        assert actual == pytest.approx(expected, abs=0.011), f"{where}: {actual} != {expected}"
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def test_there_are_golden_files() -> None:
    assert len(GOLDEN_FILES) >= 8


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden(path: Path) -> None:
    golden = load_golden(path)
    assert_cites_match(golden, CITE)
    analysis = engine.analyze(golden["scenario"])
    check_expectations(analysis, golden.get("expect", {}))
    subset(analysis, golden.get("expect_extra", {}), "analysis")


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_one_base_alone_equals_the_whole_table(path: Path) -> None:
    """A base's entry is the same whether asked alone (the live page's tap) or with every
    other base (`campo analyze`)."""
    scenario = load_golden(path)["scenario"]
    whole = engine.analyze(scenario)["bases"]
    for base in scenario["bases"]:
        state = GameState.from_dict(scenario)
        alone = state.ruleset.analyze(state, [base["id"]])["bases"]
        assert alone == {base["id"]: whole[base["id"]]}, base["id"]


def test_golden_through_the_cli(run_campo, tmp_path: Path) -> None:
    golden = load_golden(GOLDEN_DIR / "shooting_bands.json")
    scenario = tmp_path / "scenario.json"
    result = analyze_through_cli(run_campo, scenario, golden["scenario"])
    assert (result["ruleset"], result["unit"], result["mm_per_unit"]) == ("attila", "cm", 10.0)
    check_expectations(result, golden["expect"])
    code, out, err = run_campo("analyze", scenario)          # the readable summary works too
    assert code == 0 and "target e7" in out, err
