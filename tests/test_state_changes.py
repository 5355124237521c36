"""`GameState.changes`: the one answer to "what changed since the moment before" that every
take-over across a live game's moments reads (`engine.state.Changes`)."""

from __future__ import annotations

import copy
from typing import Any

import shapely

from campo.engine.live import LiveAnalysis
from campo.engine.state import Changes, GameState
from tests.bench_modules import bench_module


def _base(i: str, x: float, y: float, **extra: Any) -> dict[str, Any]:
    return {"id": i, "side": "A" if i < "m" else "B", "type": "B", "x_mm": x, "y_mm": y,
            "heading_deg": 90.0, "width_mm": 80.0, "depth_mm": 40.0, **extra}


SCENARIO = {"ruleset": "italia-se-desta", "table": {"width_mm": 1800, "depth_mm": 1200},
            "bases": [_base("a", 200, 200), _base("b", 280, 200), _base("c", 1500, 1000),
                      _base("n", 200, 240), _base("o", 900, 600, traits={"losses": 1})]}


def _changes(edit: Any) -> Changes:
    """The changes a live game's second moment sees after ``edit`` of the first's scenario."""
    live = LiveAnalysis()
    live.update(SCENARIO)
    data = copy.deepcopy(SCENARIO)
    edit(data)
    state = live.update(data).state
    assert state is not None
    return state.changes


def _by_id(data: dict[str, Any], i: str) -> dict[str, Any]:
    return next(b for b in data["bases"] if b["id"] == i)


def test_nothing_changed_says_so_and_reaches_nobody() -> None:
    ch = _changes(lambda d: None)
    assert not ch.scene and not ch.changed and ch.unmoved == {"a", "b", "c", "n", "o"}
    assert ch.near(10_000.0) == set()


def test_a_move_names_the_base_and_reaches_around_where_it_was_and_is() -> None:
    ch = _changes(lambda d: _by_id(d, "c").update(x_mm=900.0, y_mm=700.0))
    assert ch.moved == {"c"} and ch.changed == {"c"} and not ch.scene
    assert ch.unmoved == {"a", "b", "n", "o"}
    assert [(r.cx, r.cy) for r in ch.places] == [(1500, 1000), (900, 700)]
    assert ch.near(50.0) == {"c"} and ch.near(70.0) == {"c", "o"}   # o is 60 mm from c now
    assert ch.near(70.0, among=["a", "o"]) == {"o"}


def test_a_turn_in_place_is_a_move() -> None:
    ch = _changes(lambda d: _by_id(d, "a").update(heading_deg=180.0))
    assert ch.moved == {"a"} and "a" not in ch.unmoved


def test_a_trait_change_stands_where_it_stood() -> None:
    ch = _changes(lambda d: _by_id(d, "o")["traits"].update(losses=2))
    assert ch.retraited == {"o"} and ch.moved == set() and "o" in ch.unmoved
    assert ch.changed == {"o"} and ch.near(0.0) == {"o"}


def test_added_and_removed_bases_reach_around_where_they_are_and_were() -> None:
    def edit(d: dict[str, Any]) -> None:
        d["bases"] = [b for b in d["bases"] if b["id"] != "a"] + [_base("p", 1500, 1040)]

    ch = _changes(edit)
    assert ch.added == {"p"} and ch.removed == {"a"} and ch.changed == {"a", "p"}
    assert ch.near(1.0) == {"b", "n", "c", "p"}   # b and n touch where a was, c where p is


def test_a_scene_change_names_the_member_and_reaches_everybody() -> None:
    ch = _changes(lambda d: d.update(table={"width_mm": 1700, "depth_mm": 1200}, turn=2))
    assert ch.scene == {"table", "turn"} and not ch.changed
    assert not ch.same("table") and ch.same("terrain", "settings")
    assert ch.near(0.0) == {"a", "b", "c", "n", "o"}


def test_a_state_following_no_moment_has_everything_changed() -> None:
    state = GameState.from_dict(SCENARIO)
    assert state.changes.added == {"a", "b", "c", "n", "o"} and not state.changes.same("table")
    assert state.changes.near(0.0, among=["a"]) == {"a"}
    live = LiveAnalysis()
    live.update(SCENARIO)
    moved = live.update(SCENARIO).state
    assert moved is not None and not moved.changes.changed
    moved.move("a", x_mm=250)          # a what-if move in place: derived facts are forgotten
    assert moved.changes.added == {"a", "b", "c", "n", "o"}


def test_a_base_given_otherwise_counts_as_changed_though_equal_to_python() -> None:
    ch = _changes(lambda d: _by_id(d, "a").update(width_mm=80))   # 80.0 before
    assert ch.retraited == {"a"} and ch.moved == set()


def test_near_is_every_base_within_reach_of_a_place_by_geos() -> None:
    battles = bench_module("battles")
    scenario = battles.dense_battle("attila", 100)
    live = LiveAnalysis()
    live.update(scenario)
    state = live.update(battles.moved_unit(scenario)).state
    assert state is not None and len(state.changes.moved) == 5
    places = [r.polygon for r in state.changes.places]
    for reach in (0.0, 35.0, 120.0, 400.0):
        oracle = {i for i in state.ids
                  if min(shapely.distance(state.rect(i).polygon, p) for p in places) <= reach}
        assert state.changes.near(reach) == oracle
        assert state.changes.near(reach, among=state.ids[::3]) == oracle & set(state.ids[::3])
