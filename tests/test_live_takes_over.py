"""A live update takes over from the moment before what only unchanged bases decide: their
parsed models (`scenario.parse_scenario(before=...)`) and the placement warnings of the bases
that have not moved (`GameState.hand_on`). Whatever changes, the snapshot is the one a fresh
analysis of the same moment gives, errors included."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from campo.engine.live import LiveAnalysis
from campo.engine.scenario import same_json
from tests.bench_modules import bench_module

battles = bench_module("battles")


def _shuffled(rng: random.Random, scenario: dict[str, Any]) -> dict[str, Any]:
    """The next moment: a few bases moved onto others, off the table or turned, the list
    reordered, the table resized, a trait given as 4.0 for 4."""
    out = copy.deepcopy(scenario)
    for _ in range(rng.randint(1, 5)):
        b, other = rng.choice(out["bases"]), rng.choice(out["bases"])
        r = rng.random()
        if r < 0.4:
            b["x_mm"] = other["x_mm"] + rng.uniform(-30, 30)
            b["y_mm"] = other["y_mm"] + rng.uniform(-20, 20)
        elif r < 0.5:
            b["x_mm"] = rng.choice([5.0, 1795.0])
        elif r < 0.6:
            rng.shuffle(out["bases"])
        elif r < 0.65:
            out["table"] = {"width_mm": rng.choice([1800, 1700]), "depth_mm": 1200}
        elif r < 0.7:
            b["width_mm"] = float(b["width_mm"])   # the same number, another type
        else:
            b["heading_deg"] = rng.uniform(0, 360)
    return out


@pytest.mark.parametrize("ruleset", ["italia-se-desta", "federico", "attila"])
def test_a_live_game_says_what_a_fresh_analysis_says(ruleset: str) -> None:
    rng = random.Random(7)
    scenario = battles.dense_battle(ruleset, 60)
    live = LiveAnalysis()
    live.update(scenario)
    overlaps = 0
    for _ in range(12):
        scenario = _shuffled(rng, scenario)
        kept, fresh = live.update(scenario), LiveAnalysis().update(scenario)
        assert kept.error == fresh.error
        assert kept.summary == fresh.summary
        assert kept.scenario == fresh.scenario and same_json(kept.scenario, fresh.scenario)
        overlaps += sum("overlap" in p["message"] for p in kept.summary["problems"])
    assert overlaps > 10


@pytest.mark.parametrize(("mutate", "error"), [
    (lambda d: d["bases"][3].update(x_mm=float("nan")),
     "bases[3](Au1-2).x_mm: must be a finite number (got nan)"),
    (lambda d: d["bases"][3]["traits"].update(bad=float("inf")),
     "bases[3](Au1-2).traits.bad: must be a finite number (got inf)"),
    (lambda d: d["bases"][5].update(side="C"), "bases[5](Au2-0).side: Input should be 'A' or 'B'"),
    (lambda d: d["bases"][5].update(id=d["bases"][4]["id"]), "duplicate bases id 'Au1-3'"),
])
def test_a_bad_value_in_a_changed_base_is_named_as_in_a_fresh_parse(mutate: Any,
                                                                    error: str) -> None:
    scenario = battles.dense_battle("attila", 40)
    live = LiveAnalysis()
    live.update(scenario)
    bad = copy.deepcopy(scenario)
    mutate(bad)
    assert error in (live.update(bad).error or "")
    assert live.latest is not None and live.latest.error == LiveAnalysis().update(bad).error


def test_traits_equal_to_python_but_not_in_json_are_read_again() -> None:
    """A class of 4.0 where 4 was is not the same trait: taking the parsed base over would
    hide the error a fresh parse reports."""
    scenario = battles.dense_battle("federico", 20)
    live = LiveAnalysis()
    live.update(scenario)
    again = copy.deepcopy(scenario)
    again["bases"][0]["traits"]["class"] = float(again["bases"][0]["traits"]["class"])
    assert live.update(again).error == LiveAnalysis().update(again).error == \
        "bases[0](Au1-0).traits.class: must be a whole number (got 4.0)"
    assert type(live.update(again).scenario["bases"][0]["traits"]["class"]) is float
