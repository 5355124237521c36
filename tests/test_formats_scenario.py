"""Scenario JSON round trips: file -> model -> JSON -> model, with the same analysis each time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from campo import engine
from campo.engine.scenario import parse_scenario

GOLDEN = sorted((Path(__file__).parent / "data" / "engine").glob("*/*.json"))
SCENARIOS = [p for p in GOLDEN if "scenario" in json.loads(p.read_text(encoding="utf-8"))]


def test_there_are_golden_scenarios_of_every_ruleset() -> None:
    rulesets = {json.loads(p.read_text())["scenario"]["ruleset"] for p in SCENARIOS}
    assert rulesets == {"italia-se-desta", "federico", "attila"}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_round_trip(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))["scenario"]
    model = parse_scenario(data, path=path)
    text = json.dumps(model.model_dump(mode="json", exclude_none=True))
    again = parse_scenario(json.loads(text))
    assert again == model
    assert engine.analyze(again) == engine.analyze(model)


def test_demo_game_moment_round_trips() -> None:
    from campo.vision.synthetic import DemoGame

    scenario = DemoGame.load().scenario_at(42.0)
    model = parse_scenario(scenario)
    assert parse_scenario(json.loads(json.dumps(model.model_dump(mode="json", exclude_none=True)))) == model
