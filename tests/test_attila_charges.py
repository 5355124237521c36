"""Charges and mandatory charges under ATTILA, hand-derived (ATT 5, 7.D, 8.A-B, 13; AT15, AT16,
AT26, AT27). Default moves (not in the rulebook): FP 10 cm, CP 20 cm, CL 24 cm."""

from __future__ import annotations

import math
from typing import Any

import pytest

from campo.engine.state import GameState


def B(i: str, side: str, t: str, x: float, y: float, h: float, w: float = 40, d: float = 20,
      **traits: Any) -> dict[str, Any]:
    return {"id": i, "side": side, "type": t, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": w, "depth_mm": d, "traits": traits}


def state(bases: list, terrain: tuple = (), **kw: Any) -> GameState:
    return GameState.from_dict({"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200},
                                "terrain": list(terrain), "bases": bases, **kw})


def charge(st: GameState, charger: str, target: str) -> dict[str, Any]:
    return st.charge(charger, target).to_dict()


CAV = B("c", "A", "CP", 900, 400, 90, d=30)                 # front edge y = 415
FOE = B("t", "B", "FP", 900, 565, 270)                      # front edge y = 555: 14 cm ahead


def test_straight_charge_distance_and_aspect() -> None:
    c = charge(state([CAV, FOE]), "c", "t")
    assert c["legal"] and c["distance"] == pytest.approx(14.0) and c["contact_aspect"] == "front"
    assert c["margin"] == pytest.approx(6.0) and c["wheel_deg"] == 0.0
    assert any("not in the rulebook" in n for n in c["notes"])


def test_too_far() -> None:
    far = dict(FOE, y_mm=565 + 61)                          # 20.1 cm
    c = charge(state([CAV, far]), "c", "t")
    assert not c["legal"] and "more than its move" in c["reasons"][0]
    st = state([CAV, far], settings={"move_cm_cp": 25})
    assert charge(st, "c", "t")["legal"]


def test_flank_charge_strikes_the_flank() -> None:
    side_on = B("t", "B", "FP", 900, 520, 0)                # faces +x; its right side is y = 500
    c = charge(state([CAV, side_on]), "c", "t")
    assert c["legal"] and c["contact_aspect"] == "flank"


def test_wheel_costs_the_outer_corner_arc() -> None:
    # Target 30° to the left: wheel 30° on the front-left corner, outer corner travels 40 * pi/6.
    foe = B("t", "B", "FP", 800, 560, 300)                  # faces 300°: squarely met after 30°
    c = charge(state([CAV, foe]), "c", "t")
    assert c["legal"] and c["wheel_deg"] == pytest.approx(30.0)
    assert c["distance"] > 40 * math.pi / 6 / 10           # wheel cost included


def test_wheel_over_half_the_move_is_refused() -> None:
    foe = B("t", "B", "FP", 760, 420, 0)                    # to the left, needs a 90° wheel
    st = state([B("c", "A", "FP", 900, 400, 90, w=80), foe])  # 80 mm wide: 12.6 cm wheel > 5 cm
    c = charge(st, "c", "t")
    assert not c["legal"]


def test_enemy_in_the_way_blocks_friend_is_passed_through() -> None:
    blocker = B("x", "B", "FP", 900, 480, 270)
    c = charge(state([CAV, FOE, blocker]), "c", "t")
    assert not c["legal"] and any("ATT 5.C" in r for r in c["reasons"])
    friend = dict(blocker, side="A", id="y")
    c = charge(state([CAV, FOE, friend]), "c", "t")
    assert c["legal"] and c["passes_through"] == ["y"]


WOOD = {"id": "w", "kind": "wood", "polygon_mm": [[700, 450], [1100, 450], [1100, 700], [700, 700]]}


def test_mounted_may_not_enter_woods() -> None:
    c = charge(state([CAV, FOE], [WOOD]), "c", "t")
    assert not c["legal"] and any("mounted units may not enter" in r for r in c["reasons"])


def test_infantry_stops_on_entering_a_wood() -> None:
    foot = B("c", "A", "FP", 900, 420, 90)                   # front y = 430; wood from y = 450
    foe = B("t", "B", "FP", 900, 530, 270)                   # front y = 520: 9 cm
    c = charge(state([foot, foe], [WOOD]), "c", "t")
    assert not c["legal"] and any("stops on entering" in r for r in c["reasons"])
    edge = dict(WOOD, polygon_mm=[[700, 520], [1100, 520], [1100, 700], [700, 700]])
    assert charge(state([foot, foe], [edge]), "c", "t")["legal"]   # target right at the edge


def test_rivers_only_at_bridges() -> None:
    river = {"id": "r", "kind": "river", "line_mm": [[0, 480], [1800, 480]]}
    c = charge(state([CAV, FOE], [river]), "c", "t")
    assert not c["legal"] and any("bridges or fords" in r for r in c["reasons"])
    bridge = {"id": "br", "kind": "bridge", "line_mm": [[900, 470], [900, 490]]}
    assert charge(state([CAV, FOE], [river, bridge]), "c", "t")["legal"]


@pytest.mark.parametrize("who, why", [
    (B("c", "A", "general", 900, 400, 90), "ATT 7.D"),
    (B("c", "A", "camp", 900, 400, 90), "ATT 8.B"),
    (dict(CAV, traits={"disordered": True}), "ATT 8.A"),
])
def test_who_may_not_charge(who: dict, why: str) -> None:
    c = charge(state([who, FOE]), "c", "t")
    assert not c["legal"] and any(why in r for r in c["reasons"])


def test_absent_target_cannot_be_charged() -> None:
    c = charge(state([CAV, dict(FOE, stale=True)]), "c", "t")
    assert not c["legal"] and any("absent" in r for r in c["reasons"])
    assert "t" not in state([CAV, dict(FOE, stale=True)]).legal_charges("c")


def test_legal_charges_collection() -> None:
    st = state([CAV, FOE, B("u", "B", "FP", 1500, 900, 270)])
    assert list(st.legal_charges("c")) == ["t"] and "u" not in st.legal_charges("c")


def mandatory(st: GameState) -> dict[str, dict]:
    return {m["base"]: m for m in st.analyze()["mandatory_charges"]}


def test_mounted_d6_or_more_must_charge_potential_targets() -> None:
    assert mandatory(state([CAV, FOE]))["c"]["targets"] == ["t"]               # CP d8 v FP d8


@pytest.mark.parametrize("foe_type, traits", [("FL", {}), ("FLP", {}), ("SI", {"melee_die": "d8"}),
                                              ("FP", {"melee_die": "d6"})])
def test_not_potential_targets(foe_type: str, traits: dict) -> None:
    assert mandatory(state([CAV, dict(FOE, type=foe_type, traits=traits)])) == {}


def test_who_is_obliged() -> None:
    weak_cav = dict(CAV, traits={"melee_die": "d4"})
    assert mandatory(state([weak_cav, FOE])) == {}
    tribal = B("c", "A", "FP", 900, 460, 90, tribal=True)      # 8.5 cm from FOE
    assert mandatory(state([tribal, FOE]))["c"]["targets"] == ["t"]
    plain = B("c", "A", "FP", 900, 460, 90)
    assert mandatory(state([plain, FOE])) == {}


def test_mounted_excused_from_difficult_terrain() -> None:
    rough = {"id": "td", "kind": "rough", "polygon_mm": [[850, 555], [950, 555], [950, 600],
                                                          [850, 600]]}
    m = mandatory(state([CAV, FOE], [rough]))
    assert m["c"]["targets"] == [] and m["c"]["excused_terrain"] == ["t"]


def test_whole_group_follows() -> None:
    pair = [dict(CAV, traits={"group": "g"}),
            B("c2", "A", "FP", 940, 400, 90, d=30, group="g")]
    m = mandatory(state(pair + [FOE]))
    assert m["c"]["whole_group"] == ["c", "c2"]


def test_phalanx_charges_only_straight_ahead() -> None:
    foe = B("t", "B", "FP", 800, 560, 300)                   # needs a 30° wheel (see above)
    phalanx = dict(CAV, type="FP", traits={"phalanx": True})
    st = state([phalanx, foe], settings={"move_cm_fp": 20})
    c = charge(st, "c", "t")
    assert not c["legal"] and "ATT 5.L" in c["reasons"][0]
    ahead = state([phalanx, FOE], settings={"move_cm_fp": 20})
    assert charge(ahead, "c", "t")["legal"]
