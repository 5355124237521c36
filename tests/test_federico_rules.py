"""Federico verdicts an umpire can check by hand, and how each reading (setting) changes them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from campo import engine
from campo.engine.state import GameState

GOLDEN = Path(__file__).parent / "data" / "engine" / "federico"
SIZES = {"infantry": (40, 20), "cavalry": (40, 30), "artillery": (40, 40), "commander": (30, 30)}


def golden(name: str, **settings: Any) -> dict[str, Any]:
    sc = copy.deepcopy(json.loads((GOLDEN / f"{name}.json").read_text())["scenario"])
    if settings:
        sc["settings"] = settings
    return sc


def base(id: str, side: str, type: str, x: float, y: float, h: float, **traits: Any) -> dict:
    w, d = SIZES[type]
    return {"id": id, "side": side, "type": type, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": w, "depth_mm": d, "traits": traits}


def scenario(*bases: dict, terrain: list | None = None, **extra: Any) -> dict[str, Any]:
    return {"ruleset": "federico", "table": {"width_mm": 1800, "depth_mm": 1200},
            "terrain": terrain or [], "bases": list(bases), **extra}


def target(analysis: dict, firer: str, tid: str) -> dict:
    return next(t for t in analysis["bases"][firer]["targets"] if t["id"] == tid)


def attack(analysis: dict, attacker: str, tid: str) -> dict:
    return next(c for c in analysis["bases"][attacker]["charges"] if c["target"] == tid)


def labels(entry: dict) -> list[str]:
    return [m["label"] for m in entry["modifiers"]]


# --- fire ---------------------------------------------------------------------------------------
def test_f2_half_arc_reading_puts_the_corner_target_out_of_arc() -> None:
    assert target(engine.analyze(golden("fire_arc_sight_modifiers")), "f", "t-in")["in_arc"]
    narrow = engine.analyze(golden("fire_arc_sight_modifiers", f2_arc_half_angle_deg=22.5))
    t = target(narrow, "f", "t-in")
    assert not t["in_arc"] and not t["legal"]


def test_f3_straight_ahead_artillery_arc() -> None:
    # heavy gun facing +y; infantry ahead and 20 mm to the side of its frontage
    sc = scenario(base("g", "A", "artillery", 600, 300, 90, weight="heavy"),
                  base("t", "B", "infantry", 680, 500, 270))
    assert target(engine.analyze(sc), "g", "t")["in_arc"]
    sc["settings"] = {"f3_artillery_arc": "straight_ahead"}
    assert not target(engine.analyze(sc), "g", "t")["in_arc"]


def test_f6_nearest_legal_target_only_may_be_declared() -> None:
    sc = scenario(base("f", "A", "infantry", 600, 300, 90, fired=True),
                  base("near", "B", "infantry", 560, 400, 270),
                  base("far", "B", "infantry", 650, 450, 270))
    free = engine.analyze(sc)
    assert [t["may_declare"] for t in free["bases"]["f"]["targets"]] == [True, True]
    sc["settings"] = {"f6_target_choice": "nearest_legal"}
    nearest = engine.analyze(sc)
    assert {t["id"]: t["may_declare"] for t in nearest["bases"]["f"]["targets"]} == \
        {"near": True, "far": False}


def test_f7_cover_twice_adds_two() -> None:
    once = target(engine.analyze(golden("fire_arc_sight_modifiers")), "g3", "t3")
    twice = target(engine.analyze(golden("fire_arc_sight_modifiers", f7_cover_count="twice")),
                   "g3", "t3")
    assert twice["modifier_total"] == once["modifier_total"] + 1 == 2


def test_f9_limbered_artillery_counts_as_mounted_only_if_set() -> None:
    sc = scenario(base("f", "A", "infantry", 600, 300, 90, fired=True),
                  base("gun", "B", "artillery", 600, 450, 270, weight="light", formation="limbered"))
    assert "target mounted" not in labels(target(engine.analyze(sc), "f", "gun"))
    sc["settings"] = {"f9_mounted": "cavalry_and_limbered"}
    assert "target mounted" in labels(target(engine.analyze(sc), "f", "gun"))


def test_f10_target_class_reading_changes_the_halt_odds() -> None:
    # line infantry (4) at long range, no modifier, on light infantry (3, +1 to the die)
    sc = scenario(base("f", "A", "infantry", 600, 300, 90, fired=True),
                  base("li", "B", "infantry", 600, 430, 270, light=True))
    t = target(engine.analyze(sc), "f", "li")
    assert t["modifier_total"] == 1
    # die + 1: equal to 4 on a 3 (hit), lower than 4 on 1-2 (halt)
    assert (t["odds"]["hit"], t["odds"]["halt"]) == (0.1667, 0.3333)
    sc["settings"] = {"f10_low_result_compares": "target_class"}
    t = target(engine.analyze(sc), "f", "li")
    # lower than the target's class 3: only a 1 (die + 1 = 2)
    assert (t["odds"]["hit"], t["odds"]["halt"]) == (0.1667, 0.1667)


def test_f11_cumulative_drops_report_expected_drops() -> None:
    sc = golden("artillery_ranges", f11_class_drops="cumulative")
    t = target(engine.analyze(sc), "g-h-long", "t-h-long")
    assert t["odds"]["expected_class_drops"] == pytest.approx(4 * 4 / 6, abs=1e-4)
    assert "halt_chance" not in t["odds"]


def test_f13_first_fire_from_traits_then_turn() -> None:
    sc = scenario(base("f", "A", "infantry", 600, 300, 90), base("t", "B", "infantry", 600, 430, 270))
    first = "infantry firing for the first time"
    assert first in labels(target(engine.analyze(sc), "f", "t"))
    sc["turn"] = 2
    assert first not in labels(target(engine.analyze(sc), "f", "t"))
    sc["settings"] = {"f13_fire_history": "traits_only"}
    assert first in labels(target(engine.analyze(sc), "f", "t"))
    sc["bases"][0]["traits"]["fired"] = True
    assert first not in labels(target(engine.analyze(sc), "f", "t"))


def test_no_sight_reading_ignores_the_wood() -> None:
    sc = golden("fire_arc_sight_modifiers", f5_line_of_sight="ignore")
    assert target(engine.analyze(sc), "f", "t-hidden")["legal"]


def test_cavalry_and_limbered_artillery_do_not_fire() -> None:
    sc = scenario(base("c", "A", "cavalry", 600, 300, 90, weight="light"),
                  base("gun", "A", "artillery", 800, 300, 90, weight="light", formation="limbered"),
                  base("t", "B", "infantry", 700, 400, 270))
    out = engine.analyze(sc)
    assert out["bases"]["c"]["targets"] == [] and out["bases"]["gun"]["targets"] == []


# --- melee ---------------------------------------------------------------------------------------
def test_f18_distance_only_ignores_the_friend_in_the_way() -> None:
    assert not attack(engine.analyze(golden("attacks")), "a-blocked", "t-blocked")["legal"]
    loose = engine.analyze(golden("attacks", f18_attack_reach="distance_only"))
    assert attack(loose, "a-blocked", "t-blocked")["legal"]


def test_f15_free_turn_makes_the_wheel_free() -> None:
    free = attack(engine.analyze(golden("attacks", f15_wheels="free_turn")), "c-wheel", "t-wheel")
    costed = attack(engine.analyze(golden("attacks")), "c-wheel", "t-wheel")
    assert costed["distance"] - free["distance"] == pytest.approx(40 * 3.14159265 / 6 / 10,
                                                                  abs=0.011)


def test_f20_contact_only_drops_the_supports() -> None:
    sc = golden("melees", f20_outnumbering="contact_only")
    melee = {m["defender"]: m for m in engine.analyze(sc)["melees"]}
    gr = melee["GR"]
    assert gr["counts"]["defender"] == 1 and gr["counts"]["defender_supports"] == []
    # now 2 attacking bases against 1: the attacker outnumbers, -1 on each die
    assert [d["modifier_total"] for d in gr["per_die"]] == [0, 0]


def test_f21_dice_per_base_of_regiment() -> None:
    sc = golden("melees")
    sc["bases"].append(base("a3", "A", "infantry", 380, 290, 90, regiment="IR1"))
    assert {m["defender"]: m["dice"] for m in engine.analyze(sc)["melees"]}["GR"] == 2
    sc["settings"] = {"f21_melee_dice": "per_base_of_regiment"}
    assert {m["defender"]: m["dice"] for m in engine.analyze(sc)["melees"]}["GR"] == 3


def test_highlanders_and_indians_in_ambush_unsettle_the_defender() -> None:
    wood = [{"id": "w", "kind": "wood", "polygon_mm": [[500, 250], [700, 250], [700, 330],
                                                        [500, 330]]}]
    for traits, label in (({"highlanders": True}, "attacked by a Highlander clan"),
                          ({"indians": True}, "attacked by Indians out of a wood in ambush")):
        sc = scenario(base("h", "A", "infantry", 600, 300, 90, **traits),
                      base("t", "B", "infantry", 600, 380, 270), terrain=wood)
        morale = attack(engine.analyze(sc), "h", "t")["defender_morale"]
        assert label in labels(morale) and morale["modifier_total"] == 1


def test_artillery_in_battery_attacked() -> None:
    sc = scenario(base("c", "A", "cavalry", 600, 300, 90, weight="medium"),
                  base("gun", "B", "artillery", 600, 420, 270, weight="heavy"))
    morale = attack(engine.analyze(sc), "c", "gun")["defender_morale"]
    assert morale["automatic"].startswith("eliminated unless it passes the test")
    assert engine.analyze(sc)["bases"]["gun"]["charges"] == []   # artillery does not attack


def test_legal_charges_and_overlay_geometry() -> None:
    state = GameState.from_dict(golden("attacks"))
    assert "t-ok" in state.legal_charges("a-ok")
    assert "t-far" not in state.legal_charges("a-far")
    assert list(state.legal_charges("a-ok")) == ["t-ok"]
    shapes = engine.overlay_geometry(golden("musket_ranges"), "f0")
    assert shapes["arc"] and [b["band"] for b in shapes["bands"]] == ["short", "long"]
    assert shapes["charges"] and shapes["charges"][0]["target"] == "t0"


def test_command_radius_setting() -> None:
    sc = scenario(base("a", "A", "infantry", 600, 300, 90),
                  base("gen", "A", "commander", 600, 200, 90, rank="general"))
    assert engine.analyze(sc)["bases"]["a"]["commanded_by"] == []
    sc["settings"] = {"command_radius_cm": 10}
    assert engine.analyze(sc)["bases"]["a"]["commanded_by"] == ["gen"]


def test_f24_threshold_scales_with_the_setting() -> None:
    sc = golden("movement_objectives_morale", f24_loss_percent_per_capacity=20.0)
    a = engine.analyze(sc)["army_morale"]["A"]
    assert (a["threshold_percent"], a["threshold_bases"], a["test_due"]) == (60.0, 8, False)


# --- problems -------------------------------------------------------------------------------------
def test_problems_name_the_base_and_key() -> None:
    sc = scenario(base("a", "A", "infantry", 600, 300, 90, **{"class": 7}),
                  base("b", "B", "cavalry", 600, 500, 270, wieght="heavy"))
    problems = GameState.from_dict(sc).validate()
    keys = {p.key for p in problems if p.severity == "error"}
    assert keys == {"bases[0](a).traits.class", "bases[1](b).traits.wieght"}


def test_warnings_for_basing_mixed_class_and_army_keys() -> None:
    odd = base("a2", "A", "infantry", 640, 300, 90, regiment="R", **{"class": 5})
    odd["width_mm"] = 60
    sc = scenario(base("a1", "A", "infantry", 600, 300, 90, regiment="R"), odd,
                  armies={"A": {"bases_at_start": 1, "lossses": 2}})
    problems = {p.key: p for p in GameState.from_dict(sc).validate()}
    assert problems["bases[1](a2).width_mm"].severity == "warning"
    assert problems["regiments(R)"].severity == "warning"
    assert problems["armies.A.lossses"].severity == "error"
    assert problems["armies.A.bases_at_start"].severity == "error"
    sc["settings"] = {"f14_base_sizes": "off"}
    assert "bases[1](a2).width_mm" not in {p.key for p in GameState.from_dict(sc).validate()}


def test_cli_reports_a_bad_setting_without_traceback(run_campo, tmp_path: Path) -> None:
    sc = golden("musket_ranges", f4_range_measure="by_eye")
    path = tmp_path / "s.json"
    path.write_text(json.dumps(sc))
    code, out, err = run_campo("analyze", path, "--json")
    assert code == 2 and "f4_range_measure" in err and "Traceback" not in err


def test_module_doctests() -> None:
    import doctest

    from campo.engine.rulesets.federico import modifiers

    assert doctest.testmod(modifiers).failed == 0


def test_f16_portion_only_counts_the_marsh_double() -> None:
    # the front centre runs 2 cm through the marsh: 8 + 2 = 10 cm against a full 9 cm move
    a = attack(engine.analyze(golden("attacks", f16_halved_move="portion_only")),
               "a-marsh", "t-marsh")
    assert (a["legal"], a["distance"], a["allowance"]) == (False, 10.0, 9.0)
    assert a["reasons"] == ["out of reach: needs 10.0 cm, may move 9.0 cm (1.0 cm short)"]


def test_f12_regiment_targets_are_units_or_bases() -> None:
    assert engine.analyze(golden("fire_arc_sight_modifiers"))["regiments"]["IR1"]["targets"] == \
        ["X1"]
    by_base = engine.analyze(golden("fire_arc_sight_modifiers", f12_target_unit="base"))
    assert by_base["regiments"]["IR1"]["targets"] == ["t-in"]


def test_f23_one_round_melees_do_not_repeat() -> None:
    assert all(m["repeats_next_turn"] for m in engine.analyze(golden("melees"))["melees"])
    once = engine.analyze(golden("melees", f23_melee_repeats="one_round"))
    assert not any(m["repeats_next_turn"] for m in once["melees"])


def test_f22_fall_back_direction() -> None:
    # flanker (B) faces +x and is struck on its front by c1: it turns about and goes 10 cm
    away = engine.analyze(golden("melees"))["bases"]["flanker"]["fall_back"]
    assert (away["distance_cm"], away["direction_deg"], away["turn_deg"]) == (10.0, 180.0, 180.0)
    home = engine.analyze(golden("melees", f22_fall_back="toward_own_table_edge"))
    assert home["bases"]["flanker"]["fall_back"]["direction_deg"] == 90.0   # B's edge is y max


def test_defender_behind_a_fordable_stream_is_in_favourable_terrain() -> None:
    stream = [{"id": "brook", "kind": "stream", "line_mm": [[500, 365], [700, 365]]}]
    sc = scenario(base("a", "A", "infantry", 600, 300, 90), base("d", "B", "infantry", 600, 380, 270),
                  terrain=stream)
    a = attack(engine.analyze(sc), "a", "d")
    assert "defender in favourable terrain (behind stream brook)" in labels(a["defender_morale"])
    assert a["defender_morale"]["modifier_total"] == -1
    assert "defender in favourable terrain (behind stream brook)" in labels(a["melee"])
    # crossing the stream halves line infantry's 9 cm: 6 cm needed, 4.5 allowed
    assert (a["legal"], a["allowance"]) == (False, 4.5)


def test_same_regiment_name_on_both_sides_stays_two_units() -> None:
    sc = scenario(base("a", "A", "infantry", 600, 300, 90, regiment="IR1"),
                  base("b", "B", "infantry", 600, 700, 270, regiment="IR1"))
    out = engine.analyze(sc)
    assert sorted(out["regiments"]) == ["A:IR1", "B:IR1"]
    assert out["bases"]["a"]["regiment"] == "A:IR1"
