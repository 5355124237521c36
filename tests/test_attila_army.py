"""Control Points, reorganisation, morale, victory, deployment and the deck under ATTILA,
hand-derived (ATT 4, 9.A, 10, 11, 12, 14, 15; readings AT14, AT28-AT33)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from campo.engine.rulesets.attila.deck import Deck, deck_cards
from campo.engine.rulesets.attila.settings import AttilaSettings
from campo.engine.state import GameState


def B(i: str, side: str, t: str, x: float, y: float, h: float, w: float = 40, d: float = 20,
      **traits: Any) -> dict[str, Any]:
    return {"id": i, "side": side, "type": t, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": w, "depth_mm": d, "traits": traits}


def analyze(bases: list, terrain: tuple = (), **kw: Any) -> dict[str, Any]:
    return GameState.from_dict({"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200},
                                "terrain": list(terrain), "bases": bases, **kw}).analyze()


GEN = B("gen", "A", "general", 900, 200, 90)                     # spans y 190..210


def test_move_costs_by_distance_from_the_general() -> None:
    near = B("n", "A", "FP", 900, 210 + 399 + 10, 90)            # gap 39.9 cm
    far = B("f", "A", "FP", 1500, 210 + 401 + 10, 90)            # gap > 40 cm
    a = analyze([GEN, near, far])
    assert a["bases"]["n"]["move_cost"] == 1 and a["bases"]["f"]["move_cost"] == 2  # ATT 4.C
    assert a["bases"]["gen"]["move_cost"] == 0                                      # ATT 4.A
    assert a["control_points"]["A"]["die"] == "d6"                                  # regular
    assert a["control_points"]["A"]["groups"]["~f"]["forced_march_extra"] == 1      # ATT 4.D


def test_group_distance_is_to_its_nearest_base() -> None:
    line = [B("a1", "A", "FP", 900, 640, 90, group="g"), B("a2", "A", "FP", 940, 640, 90, group="g")]
    a = analyze([GEN] + line)       # gap 42 cm to both
    assert a["control_points"]["A"]["groups"]["g"]["cost"] == 2
    line[0]["y_mm"] = 600           # 4 cm forward: the sides no longer touch, the group splits
    a = analyze([GEN] + line)       # a1 alone is 38 cm from the General
    assert a["control_points"]["A"]["groups"]["g.1"]["cost"] == 1


@pytest.mark.parametrize("reading, cost, reasons", [
    ("nearest_base_of_group", 1, []),                        # its nearest base: 39 cm
    ("each_base", 2, ["40.8 cm from the General, more than 40 cm (ATT 4.C, AT14)"]),
])
def test_group_distance_under_each_reading(reading: str, cost: int, reasons: list[str]) -> None:
    """Five bases side by side, fronts 39 cm from the General's; the farthest (x 1040..1080)
    lies hypot(12, 39) = 40.8 cm from his nearest corner (920, 210)."""
    line = [B(f"a{k}", "A", "FP", 900 + 40 * k, 610, 90, group="g") for k in range(5)]
    a = analyze([GEN] + line, settings={"at14_general_distance": reading})
    group = a["control_points"]["A"]["groups"]["g"]
    assert (group["cost"], group["reasons"]) == (cost, reasons)


def test_general_dead_or_in_contact_costs_two() -> None:
    unit = B("u", "A", "FP", 900, 300, 90)
    a = analyze([unit], armies={"A": {"general_killed": True, "start_bases": 20, "bases_lost": 0}})
    assert a["bases"]["u"]["move_cost"] == 2
    foe = B("e", "B", "FP", 900, 221, 270)                       # touches the General's front
    a = analyze([GEN, unit, foe])
    assert a["control_points"]["A"]["general_status"] == "in_contact"
    assert a["bases"]["u"]["move_cost"] == 2


def test_demoralised_costs() -> None:
    unit = B("u", "A", "FP", 900, 300, 90)
    a = analyze([GEN, unit], armies={"A": {"demoralised": True, "discipline": "irregular"}})
    g = a["control_points"]["A"]["groups"]["~u"]
    assert (g["cost"], g["cost_to_own_edge"]) == (2, 1)                              # ATT 10.A
    assert a["control_points"]["A"]["die"] == "d4"
    far = dict(unit, y_mm=800)
    a = analyze([GEN, far], armies={"A": {"demoralised": True}})
    assert a["control_points"]["A"]["groups"]["~u"]["cost"] == 3


def test_reorganisation_needs_no_enemy_within_30_cm() -> None:
    unit = B("u", "A", "FP", 900, 300, 90, disordered=True)
    close = B("e", "B", "FP", 900, 310 + 290 + 10, 270)          # 29 cm
    a = analyze([GEN, unit, close], armies={"A": {"discipline": "veteran"}})
    r = a["bases"]["u"]["reorganisation"]
    assert not r["eligible"] and r["rally_on"] == "5-8 on 1d8"                        # ATT 9.A
    away = dict(close, y_mm=310 + 310 + 10)                      # 31 cm
    assert analyze([GEN, unit, away])["bases"]["u"]["reorganisation"]["eligible"]


def test_morale_counts_general_and_camp_as_five() -> None:
    army = {"start_bases": 20, "has_camp": True, "bases_lost": 2, "general_killed": True}
    m = analyze([GEN], armies={"A": army})["army_morale"]["A"]
    assert (m["total"], m["losses"], m["break_point"]) == (30, 7, 12)     # ATT 10.A-C, AT29
    assert not m["demoralised"] and m["losses_to_demoralise"] == 5
    m = analyze([GEN], armies={"A": dict(army, bases_lost=6)})["army_morale"]["A"]
    assert m["losses"] == 11 and not m["demoralised"]
    m = analyze([GEN], armies={"A": dict(army, bases_lost=7)})["army_morale"]["A"]
    assert m["losses"] == 12 and m["demoralised"]                         # 40% of 30
    m = analyze([GEN], armies={"A": dict(army, camp_lost=True)})["army_morale"]["A"]
    assert m["losses"] == 12 and m["demoralised"]                         # Camp lost: 5 more


def test_break_point_rounds_up() -> None:
    m = analyze([GEN], armies={"A": {"start_bases": 21}})["army_morale"]["A"]
    assert m["total"] == 26 and m["break_point"] == 11                    # 10.4 -> 11 (ATT 10.A)
    m = analyze([GEN], armies={"A": {"start_bases": 21, "bases_lost": 11}})["army_morale"]["A"]
    assert m["demoralised"]


@pytest.mark.parametrize("own_lost, level", [(5, "decisive"), (6, "partial"), (8, "partial"),
                                             (9, "pyrrhic")])
def test_victory_levels(own_lost: int, level: str) -> None:
    # B: 20 bases + General = 25; 10 bases + General = 15 lost = 60%. A: 15 bases + General = 20,
    # so 5 lost = 25% (< 30%), 6 = 30% and 8 = 40% (30-40% inclusive), 9 = 45%.
    armies = {"A": {"start_bases": 15, "bases_lost": own_lost},
              "B": {"start_bases": 20, "bases_lost": 10, "general_killed": True}}
    v = analyze([GEN, B("bg", "B", "general", 900, 1000, 270)], armies=armies)["victory"]
    assert v["winner"] == "A" and v["level"] == level                    # ATT 15.A


def test_end_of_game() -> None:
    armies = {"A": {"start_bases": 10, "bases_lost": 1},
              "B": {"start_bases": 10, "bases_lost": 2, "demoralised": True}}
    bases = [GEN, B("bg", "B", "general", 900, 1000, 270)]
    v = analyze(bases, armies=armies, turn=16)["victory"]
    assert v == {"winner": "A", "level": "partial", "reason": v["reason"]}   # ATT 15.B
    v = analyze(bases, armies={"A": {"start_bases": 10, "bases_lost": 1},
                               "B": {"start_bases": 10, "bases_lost": 2}}, turn=16)["victory"]
    assert v["level"] == "draw"


def test_bad_army_data_names_the_key() -> None:
    with pytest.raises(Exception) as err:
        analyze([GEN], armies={"A": {"discipline": "elite"}})
    assert "armies.A.discipline" in str(err.value)


# --- deployment (15 mm: area 30 cm, margins 10 cm) -----------------------------------------
def placements(bases: list, **kw: Any) -> dict[str, bool]:
    return {i: v["legal"] for i, v in analyze(bases, phase="deployment", **kw)["deployment"]["bases"].items()}


def test_deployment_area_by_scale() -> None:
    ok = B("ok", "A", "FP", 900, 200, 90)
    too_close_to_edge = B("own", "A", "FP", 900, 95, 90)          # within 10 cm of own edge
    side = B("side", "A", "FP", 110, 200, 90)                      # x 90..130: within 10 cm of side
    forward = B("fwd", "A", "FP", 900, 300, 90)                    # spans 290..310: beyond 30 cm
    enemy_ok = B("b", "B", "FP", 900, 1000, 270)
    p = placements([ok, too_close_to_edge, side, forward, enemy_ok])
    assert p == {"ok": True, "own": False, "side": False, "fwd": False, "b": True}
    p = placements([forward], settings={"figure_scale": "25mm"})   # 45 cm area
    assert p == {"fwd": True}


def test_misplaced_bases_warn_only_while_deploying() -> None:
    wrong = B("w", "A", "FP", 900, 95, 90)
    a = analyze([wrong], phase="deployment")
    assert any(p["key"] == "bases(w)" for p in a["problems"])
    assert not any(p["key"] == "bases(w)" for p in analyze([wrong])["problems"])


def rect(x: float, y: float, w: float, h: float) -> list[list[float]]:
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def test_terrain_sizes_spacing_and_position() -> None:
    terrain = [
        {"id": "hill-ok", "kind": "hill", "polygon_mm": rect(200, 100, 200, 100)},
        {"id": "hill-big", "kind": "hill", "polygon_mm": rect(700, 100, 250, 100)},
        {"id": "wood-ok", "kind": "wood", "polygon_mm": rect(1200, 250, 200, 200)},   # touches A
        {"id": "td-far", "kind": "rough", "polygon_mm": rect(200, 500, 150, 150)},   # no area
        {"id": "wood-near", "kind": "wood", "polygon_mm": rect(1500, 950, 100, 100)},
        {"id": "wood-near2", "kind": "wood", "polygon_mm": rect(1500, 1100 - 10, 50, 50)},
    ]
    t = analyze([GEN], terrain, phase="deployment")["deployment"]["terrain"]
    assert t["hill-ok"]["legal"] and t["wood-ok"]["legal"] and t["wood-ok"]["areas"] == ["A"]
    assert not t["hill-big"]["legal"] and "hill measures" in t["hill-big"]["reasons"][0]
    assert not t["td-far"]["legal"]
    assert not t["wood-near"]["legal"] and not t["wood-near2"]["legal"]      # closer than 20 cm


# --- the deck ---------------------------------------------------------------------------------
def test_deck_has_the_eight_listed_cards_once_per_turn() -> None:
    d = Deck(seed=3)
    d.new_turn()
    drawn = [d.draw() for _ in range(8)]
    assert d.draw() is None and d.turn_over                                  # ATT 14
    assert Counter((c.player, c.action) for c in drawn) == Counter(
        (p, a) for p in "AB" for a in ("melee", "reorganise", "shoot", "move"))


def test_deck_is_reshuffled_each_turn_and_seeded() -> None:
    a, b = Deck(seed="game-1"), Deck(seed="game-1")
    orders_a, orders_b = [], []
    for _ in range(5):
        a.new_turn()
        b.new_turn()
        orders_a.append([a.draw() for _ in range(8)])
        orders_b.append([b.draw() for _ in range(8)])
    assert orders_a == orders_b
    assert len({tuple(o) for o in orders_a}) > 1


def test_nine_card_reading() -> None:
    assert len(deck_cards(AttilaSettings(at28_deck="nine_with_blank"))) == 9
    assert len(deck_cards(AttilaSettings())) == 8


def test_deck_doctest() -> None:
    import doctest

    from campo.engine.rulesets.attila import deck

    assert doctest.testmod(deck).failed == 0


def test_gaps_are_reported_until_the_group_confirms_its_rates() -> None:
    cav = B("c", "A", "CP", 900, 400, 90, d=30)
    foe = B("t", "B", "FP", 900, 565, 270)
    a = analyze([cav, foe])
    assert a["gaps"]["settings"] == {"melee_die_cp": "d8", "melee_die_fp": "d8", "move_cm_cp": 20.0,
                                     "move_cm_fp": 10.0}
    assert a["gaps"]["note"] == "not in the rulebook: set for your group"
    assert any("not in the rulebook" in n for n in a["bases"]["c"]["charges"][0]["notes"])
    a = analyze([cav, foe], settings={"at11_rates_confirmed": True, "move_cm_cp": 30})
    assert "notes" not in a["bases"]["c"]["charges"][0]
    assert a["bases"]["c"]["charges"][0]["allowance"] == 30.0


def test_general_moves_24_cm_or_10_when_wounded() -> None:
    a = analyze([GEN])
    assert a["control_points"]["A"]["general_move_cm"] == 24.0                    # ATT 5.E
    hurt = dict(GEN, traits={"wounded": True})
    assert analyze([hurt])["control_points"]["A"]["general_move_cm"] == 10.0      # ATT 8.C
