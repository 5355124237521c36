"""Golden scenarios (tests/data/engine/italia/*.json): a position, the expected answers, the rule
cited. Each is checked as written, base by base, and through the `campo analyze --json`
command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from campo import engine
from campo.engine.state import GameState
from tests.engine_golden import GOLDEN_FILES, check_expectations, load_golden

CITE = re.compile(r"^ISD (§\d+|A\d+|ManTab|Lists|Intro)$")


def test_there_are_golden_files() -> None:
    assert len(GOLDEN_FILES) >= 5


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden(path: Path) -> None:
    golden = load_golden(path)
    assert golden["cites"] and all(CITE.match(c) for c in golden["cites"]), golden["cites"]
    check_expectations(engine.analyze(golden["scenario"]), golden["expect"])


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden_base_by_base(path: Path) -> None:
    """Each base's entry asked alone, on a fresh state, is its entry in the whole table's."""
    sc = load_golden(path)["scenario"]
    whole = GameState.from_dict(sc).analyze()["bases"]
    for base_id in whole:
        state = GameState.from_dict(sc)
        assert state.ruleset.analyze(state, [base_id])["bases"][base_id] == whole[base_id]


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden_through_the_cli(run_campo, tmp_path: Path, path: Path) -> None:
    golden = load_golden(path)
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(golden["scenario"]))
    code, out, err = run_campo("analyze", scenario, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["ruleset"] == "italia-se-desta" and result["unit"] == "in"
    assert result["mm_per_unit"] == 25.0
    check_expectations(result, golden["expect"])
