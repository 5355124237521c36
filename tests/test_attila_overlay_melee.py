"""What the overlay draws for an ATTILA base, and the after-melee moves (ATT 7.E, 8.C; AT19,
AT20, AT25)."""

from __future__ import annotations

from typing import Any

import pytest

from campo.engine.analysis import overlay_geometry
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.melee import advance_pose, general_in_lost_melee, retreat_pose
from campo.engine.state import GameState


def B(i: str, side: str, t: str, x: float, y: float, h: float, w: float = 40, d: float = 20,
      **traits: Any) -> dict[str, Any]:
    return {"id": i, "side": side, "type": t, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": w, "depth_mm": d, "traits": traits}


def state(bases: list, **kw: Any) -> GameState:
    return GameState.from_dict({"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200},
                                "bases": bases, **kw})


A = B("a", "A", "FP", 900, 400, 90, missile="bows")
E = B("e", "B", "FP", 900, 420, 270)           # face to face with a


def test_overlay_draws_arc_bands_zone_and_melee_moves() -> None:
    g = overlay_geometry(state([A, E]), "a")
    assert [b["band"] for b in g["bands"]] == ["short", "medium", "long"]
    assert [b["upto"] for b in g["bands"]] == [5.0, 10.0, 15.0]
    assert len(g["arc"]) >= 4 and g["deployment_zone"]
    assert g["retreats"][0]["from"] == "e" and g["advances"][0]["into"] == "e"


def test_retreat_back_to_the_enemy() -> None:
    turned = state([A, E])          # held: a board refers to its state weakly
    r = retreat_pose(Board.of(turned), "a", "e")
    assert (r.cx, r.cy, r.heading_deg) == pytest.approx((900, 350, 270))    # 5 cm, turned away
    kept = state([A, E], settings={"at19_retreat": "keep_facing"})
    r = retreat_pose(Board.of(kept), "a", "e")
    assert (r.cx, r.cy, r.heading_deg) == pytest.approx((900, 350, 90))


def test_advance_stops_at_other_bases() -> None:
    two = state([A, E])
    assert advance_pose(Board.of(two), "a", "e").cy == pytest.approx(450)   # 5 cm (AT20)
    other = B("o", "B", "FP", 900, 450, 270)                                 # front edge y = 440
    three = state([A, E, other])
    assert advance_pose(Board.of(three), "a", "e").cy == pytest.approx(430)  # stops at contact


def test_a_board_refers_to_its_state_weakly() -> None:
    """No reference cycle: a state nobody holds is freed at once with its board, and a board
    whose state is gone says so."""
    import gc
    import weakref

    gc.disable()
    try:
        s = state([A, E])
        board = Board.of(s)
        gone = weakref.ref(s)
        del s
        assert gone() is None
        with pytest.raises(ReferenceError, match="GameState is gone"):
            board.state
    finally:
        gc.enable()


@pytest.mark.parametrize("roll, wounded, result", [(1, False, "retires"), (2, True, "retires"),
                                                   (3, False, "wounded"), (5, False, "wounded"),
                                                   (4, True, "killed"), (6, False, "killed"),
                                                   (8, False, "killed")])
def test_general_in_a_lost_melee(roll: int, wounded: bool, result: str) -> None:
    assert general_in_lost_melee(roll, wounded=wounded, killed_from=6) == result


def test_general_roll_must_be_a_d8() -> None:
    with pytest.raises(ValueError):
        general_in_lost_melee(9, wounded=False, killed_from=6)
