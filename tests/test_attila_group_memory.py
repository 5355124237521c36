"""ATTILA groups that split stay split in a live game (ATT 4.M), on the real engine: the server
remembers the engine's `group_splits` once a split has lasted, and the pieces never merge again."""

from __future__ import annotations

import copy
from typing import Any

from campo.engine import analyze
from campo.engine.rulesets.attila.memory import GroupMemory


def _line(gap_mm: float) -> dict[str, Any]:
    """Three heavy foot of deployment group "g" side by side; the third ``gap_mm`` away."""
    bases = [{"id": f"a{i}", "side": "A", "type": "FP", "x_mm": 900 + 40 * i + (gap_mm if i == 2 else 0),
              "y_mm": 400, "heading_deg": 90, "width_mm": 40, "depth_mm": 20, "traits": {"group": "g"}}
             for i in range(3)]
    bases.append({"id": "e", "side": "B", "type": "FP", "x_mm": 900, "y_mm": 900, "heading_deg": 270,
                  "width_mm": 40, "depth_mm": 20, "traits": {"group": "e"}})
    return {"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200}, "bases": bases}


def _groups(scenario: dict[str, Any], memory: GroupMemory) -> dict[str, list[str]]:
    sc = copy.deepcopy(scenario)
    memory.apply(sc)
    return {g["id"]: g["members"] for g in analyze(sc)["groups"] if g["label"] != "e"}


def _moment(scenario: dict[str, Any], memory: GroupMemory, now: float) -> dict[str, str]:
    sc = copy.deepcopy(scenario)
    memory.apply(sc)
    return memory.learn(analyze(sc), now)


def test_a_split_that_lasts_is_never_merged_again() -> None:
    memory = GroupMemory(settle_s=2.0)
    assert _moment(_line(0.0), memory, 0.0) == {}
    assert _moment(_line(10.0), memory, 1.0) == {}          # split seen
    assert not memory.due(2.5)
    assert memory.due(3.0)
    assert _moment(_line(10.0), memory, 3.0) == {"a0": "g.1", "a1": "g.1", "a2": "g.2"}
    assert not memory.due(10.0)
    # the third base comes back alongside: without the memory the engine would merge them
    assert _groups(_line(0.0), GroupMemory()) == {"g": ["a0", "a1", "a2"]}
    assert _groups(_line(0.0), memory) == {"g.1": ["a0", "a1"], "g.2": ["a2"]}


def test_a_split_of_a_moment_is_forgotten() -> None:
    """A hand nudges a base apart for a second, then it is back: the group stays whole."""
    memory = GroupMemory(settle_s=2.0)
    _moment(_line(10.0), memory, 0.0)
    assert _moment(_line(0.0), memory, 1.0) == {}
    assert not memory.due(5.0)
    assert _groups(_line(0.0), memory) == {"g": ["a0", "a1", "a2"]}
