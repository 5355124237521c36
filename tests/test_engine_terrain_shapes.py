"""`engine.terrain_shapes`: one terrain's shapes are shared by every state with that terrain,
and a change of terrain gives new ones."""

from __future__ import annotations

import copy

from campo.engine.rulesets.italia.warmup import WARMUP_SCENARIO
from campo.engine.scenario import parse_scenario
from campo.engine.state import GameState
from campo.engine.terrain_shapes import terrain_shapes


def _state(data: dict) -> GameState:
    return GameState(parse_scenario(copy.deepcopy(data)))


def test_states_with_equal_terrain_share_its_shapes_and_a_change_rebuilds_them() -> None:
    data = copy.deepcopy(WARMUP_SCENARIO)
    assert data["terrain"], "the warm-up scenario has terrain"
    first, again = terrain_shapes(_state(data)), terrain_shapes(_state(data))
    assert first is again
    feature = next(t for t in data["terrain"] if t.get("polygon_mm"))
    feature["polygon_mm"] = [[x + 10.0, y] for x, y in feature["polygon_mm"]]
    moved = terrain_shapes(_state(data))
    assert moved is not first
    before = dict((tid, shape) for tid, _, shape in first.areas)[feature["id"]]
    after = dict((tid, shape) for tid, _, shape in moved.areas)[feature["id"]]
    assert after.bounds[0] == before.bounds[0] + 10.0
