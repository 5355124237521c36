"""Federico's live-board members (`summaries`, `summary_reach_mm`, `board_summary`): the
summaries say what the full entries say, the badges, the board summary is the analysis's table
without target lists, and the summary reach keeps its promise on a dense battle (a moved unit
changes no summary beyond it), so a live update re-summarises only the neighbourhood."""

from __future__ import annotations

from typing import Any

from campo import engine
from campo.engine.live import LiveAnalysis
from campo.engine.rulesets.federico.ruleset import RULESET
from campo.engine.state import GameState
from tests.ruleset_properties import summary_of_entry
from tests.bench_modules import bench_module
from tests.ruleset_properties import check_summary_reach

battles = bench_module("battles")


def _base(id_: str, side: str, type_: str, x: float, y: float, h: float,
          **traits: Any) -> dict[str, Any]:
    size = {"infantry": (40, 20), "commander": (30, 30)}[type_]
    return {"id": id_, "side": side, "type": type_, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": size[0], "depth_mm": size[1], "traits": traits}


def test_summaries_and_badges() -> None:
    # r1 and r2 side by side (edge to edge), r3 20 cm away: isolated (F17); the general touches
    # r1's rear (attached: it commands the regiment); the enemy e touches r1's front; cmd-b, not
    # touching a friend, is 5 mm from r3: lost (F27); e (x 270-310) does not reach r2 (x 320-360)
    state = GameState.from_dict({
        "ruleset": "federico", "table": {"width_mm": 1800, "depth_mm": 1200}, "bases": [
            _base("r1", "A", "infantry", 300, 300, 90, regiment="R"),
            _base("r2", "A", "infantry", 340, 300, 90, regiment="R"),
            _base("r3", "A", "infantry", 540, 300, 90, regiment="R"),
            _base("gen", "A", "commander", 300, 275, 90, rank="general"),
            _base("e", "B", "infantry", 290, 320, 270, regiment="E"),
            _base("cmd-b", "B", "commander", 540, 330, 270, rank="general")]})
    found = RULESET.summaries(state, state.ids)
    assert found["r1"] == {"contacts": {"e": "front"}, "commanded_by": ["gen"]}
    assert found["r2"] == {"commanded_by": ["gen"]}
    assert found["r3"] == {"commanded_by": ["gen"], "badges": ["isolated"]}
    assert found["e"] == {"contacts": {"r1": "front"}}
    assert found["cmd-b"] == {"badges": ["lost commander"]} and found["gen"] == {}
    whole = engine.analyze(state)
    for i, entry in whole["bases"].items():
        expected = summary_of_entry(entry, found[i].get("badges", ()))
        assert found[i] == expected, i


def test_board_summary_is_the_table_without_target_lists() -> None:
    scenario = battles.dense_battle("federico", 60)
    state = GameState.from_dict(scenario)
    board = RULESET.board_summary(state)
    whole = engine.analyze(scenario)
    for key in ("isolated", "objectives", "initiative", "army_morale"):
        assert board[key] == whole[key], key
    for name, regiment in whole["regiments"].items():
        assert board["regiments"][name] == {k: v for k, v in regiment.items() if k not in
                                            ("targets", "contacts", "supported_by",
                                             "commanded_by")}


def test_a_move_changes_no_summary_beyond_the_reach() -> None:
    before = battles.dense_battle("federico", 100)
    moves = [battles.moved_unit(before, unit, dy=dy)
             for unit, dy in ((5, 40.0), (9, 120.0), (2, 200.0), (4, 190.0), (11, 15.0))]
    assert len(check_summary_reach(RULESET, before, moves)) > 3


def test_live_update_resummarises_only_the_neighbourhood() -> None:
    live = LiveAnalysis()
    scenario = battles.dense_battle("federico", 100)
    live.update(scenario)
    snapshot = live.update(battles.moved_unit(scenario))
    assert 0 < len(snapshot.changed) < 50
    fresh = LiveAnalysis().update(battles.moved_unit(scenario))
    assert snapshot.summary["bases"] == fresh.summary["bases"]
    assert snapshot.summary["board"] == fresh.summary["board"]

