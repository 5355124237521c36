"""`engine.warmup.prepare`: each rulebook brings a small warm-up scenario that `campo serve`
analyses while it starts; it must be a real game of that rulebook that analyses cleanly."""

from __future__ import annotations

import pytest

from campo import engine
from campo.engine.registry import get_ruleset, ruleset_names
from campo.engine.warmup import prepare


@pytest.mark.parametrize("name", ruleset_names())
def test_each_rulebook_warms_up_on_a_clean_game_of_its_own(name: str) -> None:
    scenario = get_ruleset(name).warmup_scenario
    assert scenario["ruleset"] == name
    result = engine.analyze(scenario)
    assert result["ruleset"] == name
    assert len(result["bases"]) >= 2
    assert [p for p in result.get("problems", []) if p.get("severity") == "error"] == []


def test_prepare_takes_the_rulebooks_asked_for() -> None:
    assert prepare(("federico",)) >= 0.0
    with pytest.raises(Exception, match="no-such-rulebook"):
        prepare(("no-such-rulebook",))
