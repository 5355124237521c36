"""Contacts by side, flank attacks, support and groups under ATTILA, hand-derived
(ATT 4.B-M, 7.A, 7.C, 8.D; readings AT1-AT3, AT12, AT13)."""

from __future__ import annotations

from typing import Any

from campo.engine.state import GameState


def B(i: str, side: str, t: str, x: float, y: float, h: float, w: float = 40, d: float = 20,
      **traits: Any) -> dict[str, Any]:
    return {"id": i, "side": side, "type": t, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": w, "depth_mm": d, "traits": traits}


def S(bases: list, terrain: tuple = (), **kw: Any) -> dict[str, Any]:
    return GameState.from_dict({"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200},
                                "terrain": list(terrain), "bases": bases, **kw}).analyze()


# Target "t" faces -y at (900, 600): its front edge is y = 590, its right side is x = 880.
T = B("t", "B", "FP", 900, 600, 270)
FRONT = B("f", "A", "FP", 900, 579, 90)                 # 1 mm gap: in contact (AT2, 2 mm)
RIGHT = B("r", "A", "FP", 870, 600, 0)                  # its front touches t's right side
LEFT = B("l", "A", "FP", 930, 600, 180)
REAR = B("b", "A", "FP", 900, 620, 270)


def sides(a: dict, base: str = "t") -> dict[str, str]:
    return {c["id"]: c["side"] for c in a["bases"][base]["contacts"]}


def test_contacts_by_side_and_aspect() -> None:
    a = S([T, FRONT, RIGHT, LEFT, REAR])
    assert sides(a) == {"f": "front", "r": "right", "l": "left", "b": "rear"}
    aspects = {c["id"]: c["aspect"] for c in a["bases"]["t"]["contacts"]}
    assert aspects == {"f": "front", "r": "flank", "l": "flank", "b": "rear"}
    assert sides(a, "r") == {"t": "front"}                  # the aspect of THIS base
    assert a["bases"]["t"]["melee"]["flanked_by"] == ["b", "l", "r"]


def test_gap_beyond_tolerance_and_corner_touch_are_not_contact() -> None:
    assert sides(S([T, B("f", "A", "FP", 900, 577, 90)])) == {}          # 3 mm gap
    corner = B("c", "A", "FP", 940, 580, 90)                            # corner to corner
    assert sides(S([T, corner])) == {}


def test_flank_attack_needs_two_sides() -> None:
    assert S([T, RIGHT])["bases"]["t"]["melee"]["flanked_by"] == []           # ATT 7.C, AT3
    assert S([T, FRONT, RIGHT])["bases"]["t"]["melee"]["flanked_by"] == ["r"]
    alone = GameState.from_dict({"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200},
                                 "bases": [T, RIGHT],
                                 "settings": {"at3_flank_attack": "any_flank_or_rear"}}).analyze()
    assert alone["bases"]["t"]["melee"]["flanked_by"] == ["r"]


def test_one_attacker_per_side() -> None:
    two_in_front = [B("t", "B", "FP", 900, 600, 270, w=80), B("f1", "A", "FP", 880, 579, 90),
                    B("f2", "A", "FP", 920, 579, 90)]
    assert S(two_in_front)["bases"]["t"]["melee"]["crowded_sides"] == ["front"]


def test_generals_and_disordered_may_not_attack() -> None:
    a = S([T, B("f", "A", "FP", 900, 579, 90, disordered=True)])
    assert a["bases"]["f"]["melee"]["may_attack"] is False
    assert a["bases"]["f"]["melee"]["die"] == "d6"                    # d8 one step down (ATT 8.A)


def line(label: str = "g", **kw: Any) -> list[dict[str, Any]]:
    return [B("a1", "A", "FP", 900, 400, 90, group=label, **kw),
            B("a2", "A", "FP", 940, 400, 90, group=label, **kw),
            B("a3", "A", "FP", 980, 400, 90, group=label, **kw)]


def groups(a: dict) -> dict[str, list[str]]:
    return {g["id"]: g["members"] for g in a["groups"]}


def test_side_by_side_line_is_one_group() -> None:
    a = S(line())
    assert groups(a) == {"g": ["a1", "a2", "a3"]}
    assert a["groups"][0]["aligned"] is True and a["groups"][0]["kind"] == "heavy"


def test_echelon_stays_one_group_but_is_not_aligned() -> None:
    bases = line()
    bases[1]["y_mm"] = 410                                  # 1 cm forward, sides still touching
    a = S(bases)
    assert groups(a) == {"g": ["a1", "a2", "a3"]} and a["groups"][0]["aligned"] is False


def test_a_gap_splits_the_group_and_labels_are_suggested() -> None:
    bases = line()
    bases[2]["x_mm"] = 990                                  # 1 cm gap: ATT 4.L/4.M
    a = S(bases)
    assert groups(a) == {"g.1": ["a1", "a2"], "g.2": ["a3"]}
    assert a["group_splits"] == {"a1": "g.1", "a2": "g.1", "a3": "g.2"}


def test_a_base_the_camera_lost_does_not_split_its_group() -> None:
    bases = line()
    bases[1]["stale"] = True
    assert groups(S(bases)) == {"g": ["a1", "a2", "a3"]}


def test_groups_never_merge() -> None:
    bases = line()
    bases[2]["traits"]["group"] = "h"                       # touching, but another group
    assert groups(S(bases)) == {"g": ["a1", "a2"], "h": ["a3"]}


def test_light_and_heavy_never_share_a_group() -> None:
    bases = line()
    bases[1]["type"] = "FL"
    a = S(bases)
    assert sorted(groups(a)) == ["g.1", "g.2", "g.3"]
    assert any("never mixed" in p["message"] for p in a["problems"])
    mixed_light = line()
    mixed_light[0]["type"], mixed_light[1]["type"], mixed_light[2]["type"] = "SI", "FL", "CL"
    assert groups(S(mixed_light)) == {"g": ["a1", "a2", "a3"]}                  # ATT 4.G


def test_facing_must_match() -> None:
    bases = line()
    bases[1]["heading_deg"] = 97                              # 7° off: more than 5° (AT12)
    assert len(S(bases)["groups"]) == 3


def test_column_and_support_behind() -> None:
    front = B("a1", "A", "FP", 900, 400, 90, group="g")
    rear = B("a2", "A", "FP", 900, 380, 90, group="g")       # its front touches a1's rear
    a = S([front, rear])
    assert groups(a) == {"g": ["a1", "a2"]}
    assert a["bases"]["a1"]["supported_by"] == ["a2"]         # ATT 8.D
    assert a["bases"]["a2"]["supported_by"] == []
    other_type = dict(rear, type="FLP")
    assert S([front, other_type])["bases"]["a1"]["supported_by"] == []
    side_only = GameState.from_dict({"ruleset": "attila", "table": {"width_mm": 1800,
                                     "depth_mm": 1200}, "bases": [front, rear],
                                     "settings": {"at12_group_links": "side_only"}}).analyze()
    assert len(side_only["groups"]) == 2 and side_only["bases"]["a1"]["supported_by"] == []


def test_commanded_by_within_40_cm() -> None:
    gen = B("gen", "A", "general", 900, 400, 90)
    near = B("n", "A", "FP", 900, 400 + 20 + 400 - 1, 90)     # gap 39.9 cm
    far = B("f", "A", "FP", 1500, 400 + 20 + 400 + 10, 90)
    a = S([gen, near, far])
    assert a["bases"]["n"]["commanded_by"] == ["gen"]
    assert a["bases"]["f"]["commanded_by"] == []
