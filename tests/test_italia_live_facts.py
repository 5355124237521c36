"""ISD's live-board members (`summaries`, `summary_reach_mm`, `board_summary`, `terrain_kinds`)
and the verdicts held steady near a boundary (contact, command, a charge's reach and arc).

Summaries are checked against the whole analysis they abbreviate, on every golden scenario; the
summary reach against its promise on a dense battle (a moved unit changes no summary beyond it);
close calls on positions built a hair either side of each boundary, in a live game's memory."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from campo.engine.boundary import CLOSE_CALL, HeldVerdicts
from campo.engine.live import LiveAnalysis
from campo.engine.rulesets.italia.ruleset import RULESET
from campo.engine.state import GameState
from tests.ruleset_properties import summary_of_entry
from campo.engine.terrain import TERRAIN_KINDS
from tests.bench_modules import bench_module
from tests.engine_golden import GOLDEN_FILES, load_golden

dense_battle = bench_module("battles").dense_battle
moved_unit = bench_module("battles").moved_unit


def _base(i: str, side: str, t: str, x: float, y: float, h: float, w: float = 80.0,
          d: float = 40.0, **traits: Any) -> dict[str, Any]:
    return {"id": i, "side": side, "type": t, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": w, "depth_mm": d, "traits": traits}


def _scenario(*bases: dict[str, Any], **settings: Any) -> dict[str, Any]:
    return {"ruleset": "italia-se-desta", "table": {"width_mm": 1800, "depth_mm": 1200},
            "bases": list(bases), "settings": settings}


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_summaries_abbreviate_the_analysis(path: Path) -> None:
    """Contacts, commanders and supports of each base's summary are its full entry's."""
    state = GameState.from_dict(load_golden(path)["scenario"])
    whole = state.analyze()["bases"]
    summaries = RULESET.summaries(state, state.ids)
    for base_id, entry in whole.items():
        got = dict(summaries[base_id])
        got.pop("badges", None)
        assert got == summary_of_entry(entry), base_id


def test_board_summary_is_the_analysis_groups_and_batteries() -> None:
    for path in GOLDEN_FILES:
        state = GameState.from_dict(load_golden(path)["scenario"])
        whole = state.analyze()
        assert RULESET.board_summary(state) == {"groups": whole["groups"],
                                                "batteries": whole["batteries"]}, path.stem


def test_badges() -> None:
    """Disordered and shaken from the traits; out of command: a unit no radius reaches (ISD §3)."""
    state = GameState.from_dict(_scenario(
        _base("gen", "A", "general", 300, 100, 90, 40, 40, rank="division"),
        _base("near", "A", "B", 300, 200, 90, disordered=True),
        _base("far", "A", "B", 900, 700, 90, shaken=True),
        _base("gun", "A", "gun", 1500, 700, 90, 25, 40)))
    found = RULESET.summaries(state, state.ids)
    assert found["near"] == {"commanded_by": ["gen"], "badges": ["disordered"]}
    assert found["far"] == {"badges": ["shaken", "out of command"]}
    assert found["gun"] == {} and found["gen"] == {}


def test_a_move_changes_no_summary_beyond_the_reach() -> None:
    """The promise `LiveAnalysis` relies on: every base whose summary a unit's move changes
    lies within `summary_reach_mm` of where a moved base was or is."""
    before = dense_battle("italia-se-desta", 100)
    seen = set()
    for unit, dy in ((5, 40.0), (9, 120.0), (2, 200.0), (4, 190.0)):
        after = moved_unit(before, unit, dy=dy)
        old, new = GameState.from_dict(before), GameState.from_dict(after)
        changed = {i for i, s in RULESET.summaries(new, new.ids).items()
                   if RULESET.summaries(old, [i])[i] != s}
        moved = {b["id"] for b, c in zip(before["bases"], after["bases"]) if b != c}
        reach = RULESET.summary_reach_mm(new)
        shapes = [new.rect(i).polygon for i in moved] + [old.rect(i).polygon for i in moved]
        near = {i for i in new.ids if any(new.rect(i).polygon.distance(s) <= reach
                                          for s in shapes)}
        assert changed <= near | moved
        seen |= changed
    assert len(seen) > 3


def test_live_update_resummarises_only_the_neighbourhood() -> None:
    live = LiveAnalysis()
    scenario = dense_battle("italia-se-desta", 100)
    live.update(scenario)
    snapshot = live.update(moved_unit(scenario))
    assert 0 < len(snapshot.changed) < 60
    fresh = LiveAnalysis().update(moved_unit(scenario))
    assert snapshot.summary["bases"] == fresh.summary["bases"]
    assert snapshot.summary["board"] == fresh.summary["board"]


def test_terrain_kinds_cover_every_kind_from_the_tables() -> None:
    kinds = RULESET.terrain_kinds
    assert set(kinds) == set(TERRAIN_KINDS) and all(kinds.values())
    assert kinds["rough"].startswith('area terrain: moves capped at 3" (infantry), 6" (cavalry)')
    assert "impassable" in kinds["river"] and "cannot be attacked in the flank" in kinds["town"]


# --- verdicts too close to call --------------------------------------------------------------

def _contact_pair(gap_mm: float) -> dict[str, Any]:
    """Two enemy units face to face, ``gap_mm`` apart (contact tolerance 0.1" = 2.5 mm)."""
    return _scenario(_base("a", "A", "B", 300, 300, 90), _base("b", "B", "B", 300, 340 + gap_mm, 270))


def _contacts(scenario: dict[str, Any], held: HeldVerdicts) -> list[dict[str, Any]]:
    return GameState.from_dict(scenario, held=held).analyze()["bases"]["a"]["contacts"]


def test_contact_near_the_tolerance_is_held() -> None:
    held = HeldVerdicts()
    assert _contacts(_contact_pair(2.0), held) == [
        {"id": "b", "aspect": "front", "edge": "front", "close_calls": ["contact"]}]
    # 3 mm is beyond the tolerance, but within the 1 mm close call of it: held touching
    assert [c["id"] for c in _contacts(_contact_pair(3.0), held)] == ["b"]
    assert _contacts(_contact_pair(4.0), held) == []              # clearly apart now
    assert _contacts(_contact_pair(3.0), held) == []              # held apart
    assert _contacts(_contact_pair(0.0), HeldVerdicts()) == [
        {"id": "b", "aspect": "front", "edge": "front"}]          # clearly touching
    assert _contacts(_contact_pair(3.0), HeldVerdicts()) == []   # a one-off: as measured


def test_close_call_setting_zero_turns_holding_off() -> None:
    held = HeldVerdicts()
    scenario = _contact_pair(2.0)
    scenario["settings"] = {"close_call_mm": 0.0}
    assert _contacts(scenario, held) == [{"id": "b", "aspect": "front", "edge": "front"}]
    scenario = _contact_pair(3.0)
    scenario["settings"] = {"close_call_mm": 0.0}
    assert _contacts(scenario, held) == []


def _command(gap_mm: float, held: HeldVerdicts) -> list[dict[str, Any]]:
    """A division general 9" = 225 mm (plus ``gap_mm``) from a unit of its division."""
    scenario = _scenario(_base("gen", "A", "general", 300, 100, 90, 40, 40, rank="division"),
                         _base("u", "A", "B", 300, 120 + 225 + 20 + gap_mm, 90))
    return GameState.from_dict(scenario, held=held).analyze()["bases"]["u"]["command"]


def test_command_radius_near_its_edge_is_held() -> None:
    held = HeldVerdicts()
    first = _command(-0.5, held)
    assert [(c["id"], c["close_calls"]) for c in first] == [("gen", ["command"])]
    assert [c["id"] for c in _command(0.5, held)] == ["gen"]      # held inside
    assert _command(5.0, held) == []
    assert _command(-5.0, held) == [{"id": "gen", "distance": 8.8, "margin": 0.2}]


def _charge(distance_mm: float, held: HeldVerdicts) -> dict[str, Any]:
    """Infantry charging straight at an enemy ``distance_mm`` ahead (may move 6" = 150 mm)."""
    scenario = _scenario(_base("c", "A", "B", 300, 300, 90),
                         _base("t", "B", "B", 300, 340 + distance_mm, 270))
    state = GameState.from_dict(scenario, held=held)
    return state.charge("c", "t").to_dict()


def test_reach_near_the_limit_is_held() -> None:
    held = HeldVerdicts()
    first = _charge(149.6, held)
    assert first["legal"] and first["close_calls"] == ["reach"]
    assert first["notes"] == [f"reach: {CLOSE_CALL}"]
    second = _charge(150.4, held)                                  # 0.4 mm short: held
    assert second["legal"] and second["close_calls"] == ["reach"]
    out = _charge(153.0, held)
    assert not out["legal"] and "close_calls" not in out
    again = _charge(150.4, held)                                   # held out of reach now
    assert not again["legal"]
    assert again["reasons"] == ["out of reach: needs 6.0 in, may move 6.0 in (0.0 in short) — "
                                f"{CLOSE_CALL}"]


def test_a_target_on_the_charge_arc_edge_is_a_close_call() -> None:
    """The left ray of the 30° arc leaves the front-left corner (260, 320) north-west at 120°:
    a target's corner 0.3 mm outside it is too close to call (taken in, measured), 3 mm out."""
    import math

    def charge(out_mm: float) -> dict[str, Any]:
        along, (ux, uy) = 100.0, (math.cos(math.radians(120)), math.sin(math.radians(120)))
        nx, ny = -uy, ux                                    # outward normal of the left ray
        x, y = 260 + ux * along + nx * out_mm, 320 + uy * along + ny * out_mm
        # a target facing south whose north-east corner is (x, y): the rest lies farther out
        scenario = _scenario(_base("c", "A", "B", 300, 300, 90),
                             _base("t", "B", "B", x - 40, y - 20, 270))
        return GameState.from_dict(scenario).charge("c", "t").to_dict()

    near = charge(0.3)
    assert "charge_arc" in near["close_calls"]
    assert near["reasons"][0] == f"t is not within 30° of c's front ({CLOSE_CALL})"
    far = charge(3.0)
    assert "charge_arc" not in far.get("close_calls", [])
    assert far["reasons"][0] == "t is not within 30° of c's front"
    inside = charge(-0.3)
    assert "charge_arc" in inside["close_calls"] and not any("30°" in r for r in inside["reasons"])


def test_summaries_do_not_change_the_analysis() -> None:
    """Asking for summaries first, then the whole analysis, gives the analysis of a fresh state."""
    scenario = dense_battle("italia-se-desta", 50)
    state = GameState.from_dict(copy.deepcopy(scenario))
    RULESET.summaries(state, state.ids[:10])
    RULESET.board_summary(state)
    assert state.analyze() == GameState.from_dict(scenario).analyze()


def test_a_zone_entered_with_the_targets_is_a_close_call() -> None:
    """ISD A29: charging t 110 mm ahead, the front right corner (340, 270) comes within 2" =
    50 mm of the neighbour n (left edge x = 340.5) 0.0025 mm after the front comes within 2"
    of t's front (60 mm on): the bases of one line are reached together, too close to call; a
    neighbour 10 mm nearer intercepts, its zone entered 10 mm sooner (front centre at y 320)."""
    def charge(n_y: float) -> dict[str, Any]:
        scenario = _scenario(_base("c", "A", "B", 300, 250, 90), _base("t", "B", "B", 300, 400, 270),
                             _base("n", "B", "B", 380.5, n_y, 270))
        return GameState.from_dict(scenario).charge("c", "t").to_dict()

    level = charge(400.0)
    assert level["close_calls"] == ["interception"] and "intercepted_by" not in level
    assert level["legal"]
    ahead = charge(390.0)
    assert ahead["intercepted_by"] == "n" and "close_calls" not in ahead
    assert ahead["intercepted_at"] == [300.0, 320.0]
