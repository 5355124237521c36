"""Wheels and reduced moves under ATTILA, hand-derived (ATT 5.B, 5.G, 5.I; AT15, AT16).

Geometry as tests/data/engine/attila/wheel_limit.json: an FP charger (front y = 410, 31 mm wide,
normal move 10 cm) with an enemy to its left reached only by a 90° left wheel (31 x pi/2 =
4.87 cm) and then 3 cm straight on."""

from __future__ import annotations

import math
from typing import Any

import pytest

from campo.errors import ScenarioError
from campo.engine.state import GameState


def B(i: str, side: str, t: str, x: float, y: float, h: float, w: float = 40, d: float = 20,
      **traits: Any) -> dict[str, Any]:
    return {"id": i, "side": side, "type": t, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": w, "depth_mm": d, "traits": traits}


def state(bases: list, rolls: dict[str, int] | None = None, **settings: Any) -> GameState:
    sc: dict[str, Any] = {"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200},
                          "bases": bases, "settings": settings}
    if rolls is not None:
        sc["armies"] = {"A": {"move_rolls": rolls}}
    return GameState.from_dict(sc)


C31 = B("c", "A", "FP", 300, 400, 90, w=31)
LEFT = B("t", "B", "FP", 244.5, 400, 0)          # front edge x = 254.5, 3 cm left of the corner
WHEEL_CM = 31 * math.pi / 2 / 10                  # 4.87 cm


def test_wheel_used_in_full_even_when_the_roll_leaves_less_move() -> None:
    # ATT 5.G: rolled 6 -> 4 cm of move, but the wheel may still use 5 cm; nothing is left for
    # the 3 cm straight on, so the charge fails on the straight part, not on the wheel.
    c = state([C31, LEFT], {"c": 6}).charge("c", "t").to_dict()
    assert not c["legal"] and c["allowance"] == pytest.approx(4.0)
    assert c["reasons"] == ["after its wheel of 4.9 cm (allowed in full, ATT 5.G) no move is left "
                            "for the 3.0 cm straight on: its move is 4 cm after the 1D6 (ATT 5.B)"]


def test_wheel_reaching_contact_needs_no_move_left() -> None:
    # The target's front edge right at the corner's arc end: the wheel alone makes contact.
    near = B("t", "B", "FP", 274.5, 432, 0)       # front edge on the pivot line x = 284.5, y 412-452
    c = state([C31, near], {"c": 6}).charge("c", "t").to_dict()
    assert c["legal"] and c["wheel_deg"] == pytest.approx(90.0)
    assert c["distance"] == pytest.approx(WHEEL_CM, abs=0.01)


def test_roll_shortens_a_straight_charge() -> None:
    ahead = B("t", "B", "FP", 300, 490, 270)     # front edge y = 480: 7 cm straight ahead
    assert state([C31, ahead]).charge("c", "t").legal
    assert state([C31, ahead], {"c": 3}).charge("c", "t").legal      # 7 cm left: exactly enough
    c = state([C31, ahead], {"c": 4}).charge("c", "t").to_dict()
    assert not c["legal"] and "(10 cm less the 1D6 of 4, ATT 5.B)" in c["reasons"][0]
    assert any("less the 1D6 rolled (4)" in n for n in c["notes"])


def test_setting_halves_the_available_move_instead() -> None:
    assert state([C31, LEFT], {"c": 1}).charge("c", "t").wheel_deg == pytest.approx(90.0)
    # Rolled 1: half of 9 cm = 4.5 cm = 45/31 rad = 83°: the square 90° wheel (4.87 cm) is too
    # wide, so the charge takes a narrower 5° step: 80°, whose front lies within 2 mm of the
    # target's along more than 5 mm (AT2; at 75° the corner lands 2 mm from the target's end).
    c = state([C31, LEFT], {"c": 1}, at15_wheel_limit="half_available_move").charge("c", "t")
    assert c.legal and c.wheel_deg == pytest.approx(80.0)
    assert any("it may wheel up to 4.5 cm, half its available move of 9 cm" in n for n in c.notes)


def test_wheels_are_forward_only() -> None:
    # The charger pivots on the front corner it turns toward: every pose of the wheel keeps its
    # front centre ahead of (or on) the starting front line.
    c = state([C31, LEFT]).charge("c", "t")
    assert c.legal and c.wheel_deg == pytest.approx(90.0)
    assert all(y >= 410.0 - 1e-6 for _, y in c.path)


def test_movement_allowance_names_the_wheel_limit_and_the_roll() -> None:
    st = state([C31, LEFT], {"c": 2})
    a = st.ruleset.movement_allowance(st, "c", ["open"])
    assert a.amount == pytest.approx(8.0)
    assert "8 cm after the 1D6 rolled (2)" in a.basis
    assert "wheels up to 5 cm of the moving corner's arc (half its normal move of 10 cm)" in a.basis
    assert {"ATT 5.B", "ATT 5.G", "ATT 5.I", "ATT AT15"} <= set(a.cites)


def test_bad_rolls_are_reported() -> None:
    st = state([C31, LEFT], {"c": 7})
    problems = {p.key: p for p in st.validate()}
    assert "1 to 6" in problems["armies.A.move_rolls"].message
    with pytest.raises(ScenarioError):
        st.check()
    unknown = {p.key: p for p in state([C31, LEFT], {"nobody": 2}).validate()}
    assert unknown["armies.A.move_rolls.nobody"].severity == "warning"


# --- the Camp's placement (ATT 8.B, 11.C-E; setting camp_placement) ------------------------
def _camp_legal(y_mm: float, **settings: Any) -> bool:
    st = GameState.from_dict({"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200},
                              "phase": "deployment", "settings": settings,
                              "bases": [B("camp", "A", "camp", 900, y_mm, 90, w=80, d=60)]})
    legal = st.analyze()["deployment"]["bases"]["camp"]["legal"]
    warned = any(p.key == "bases(camp)" for p in st.validate())
    assert warned == (not legal)                     # a misplaced Camp warns while deploying
    return legal


def test_camp_in_the_own_edge_strip_by_setting() -> None:
    assert _camp_legal(40)                                        # y 10-70: own-edge strip
    assert not _camp_legal(40, camp_placement="like_units")      # troops may not (ATT 11.E)
    assert _camp_legal(150, camp_placement="like_units")         # y 120-180
    assert not _camp_legal(290)                                   # y 260-320: beyond 30 cm
    assert _camp_legal(290, camp_placement="anywhere")


def test_groups_off_roads_have_no_column_member() -> None:
    st = GameState.from_dict({"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200},
                              "terrain": [{"id": "f", "kind": "ford", "line_mm": [[0, 700], [1800, 700]]}],
                              "bases": [B("a", "A", "CL", 900, 600, 90, d=30, group="g"),
                                        B("b", "A", "CL", 940, 600, 90, d=30, group="g"),
                                        B("c", "A", "CL", 900, 690, 90, d=30, group="h")]})
    groups = {g["id"]: g for g in st.analyze()["groups"]}
    assert "column" not in groups["g"]                           # y 585-615: off the ford
    assert groups["h"]["column"]["on"] == ["f"] and groups["h"]["column"]["in_column"]
