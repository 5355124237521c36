"""Fire resolved with the dice in each rulebook (issue 14 item 4): golden readings of the fire
tables, each expectation worked out by hand from the rule cited (not by the code under test)."""

from __future__ import annotations

from typing import Any

import pytest

from campo.engine import GameState
from campo.engine.registry import get_ruleset
from campo.engine.resolution import DiceTest
from campo.errors import CampoInputError


def base(id_: str, side: str, type_: str, x: float, y: float, heading: float, w: float, d: float,
         **traits: Any) -> dict[str, Any]:
    return {"id": id_, "side": side, "type": type_, "x_mm": x, "y_mm": y, "heading_deg": heading,
            "width_mm": w, "depth_mm": d, "traits": traits}


def fire(ruleset: str, bases: list[dict[str, Any]], shooter: str, target: str,
         **extra: Any) -> DiceTest:
    scenario = {"ruleset": ruleset, "table": {"width_mm": 1800, "depth_mm": 1200}, "terrain": [],
                "bases": bases, **extra}
    return get_ruleset(ruleset).fire_test(GameState.from_dict(scenario), shooter, target)


def effects(test: DiceTest, dice: list[list[int]]) -> list[tuple[str, dict[str, Any], bool]]:
    return [(e.base, e.traits, e.remove) for e in test.read(dice).effects]


# --- ISD §6 bombardment ------------------------------------------------------------------------
# A divisional gun whose front is 8" (200 mm) from a unit B: band «oltre 3" a 12"», +1 (ISD §6).

def isd_gun(target_traits: dict[str, Any] | None = None, **gun: Any) -> DiceTest:
    return fire("italia-se-desta",
                [base("g", "A", "gun", 500, 100, 90, 25, 40, battery="divisional", **gun),
                 base("t", "B", "B", 500, 340, 270, 80, 40, **(target_traits or {}))], "g", "t")


@pytest.mark.parametrize("dice, row, expected", [
    # 3 + 3 + 1 = 7: «da 3 a 7» no effect
    ([[3, 3]], "3–7", []),
    # 4 + 4 + 1 = 9: «da 8 a 10» «Il bersaglio si disordina»
    ([[4, 4]], "8–10", [("t", {"disordered": True}, False)]),
    # 5 + 5 + 1 = 11: «1 perdita, si disordina e arretra 3"»
    ([[5, 5]], "11–12", [("t", {"losses": 1, "disordered": True}, False)]),
    # 6 + 6 + 1 = 13: «oltre 12» 2 losses
    ([[6, 6]], "13+", [("t", {"losses": 2, "disordered": True}, False)]),
    # natural double 1: reduced ammunition whatever the modifiers, on the battery
    ([[1, 1]], "2", [("g", {"reduced_ammunition": True}, False)]),
])
def test_isd_bombardment_reads_the_artillery_fire_table(dice: list[list[int]], row: str,
                                                        expected: list[Any]) -> None:
    test = isd_gun()
    assert [m["label"] for m in test.modifiers] == ['range over 3 to 12", divisional artillery: +1']
    assert test.rolls[0].count == 2 and test.rolls[0].sides == 6
    outcome = test.read(dice)
    assert outcome.rows == (row,) and row in [r[0] for r in test.table["rows"]]
    assert effects(test, dice) == expected


def test_isd_bombardment_natural_12_and_the_fall_back_ghost() -> None:
    # ISD §6 modifiers: range +1, the firing gun disordered -1, the target a gun in battery -1
    test = fire("italia-se-desta",
                [base("g", "A", "gun", 500, 100, 90, 25, 40, battery="divisional",
                      disordered=True),
                 base("h", "B", "gun", 500, 340, 270, 25, 40, battery="divisional")], "g", "h")
    assert sum(m["score_delta"] for m in test.modifiers) == -1   # +1 range, -1, -1
    outcome = test.read([[6, 6]])
    # ISD §6 natural 12: at least "1 loss, disordered, falls back 3""; ISD A45: a gun limbers
    (effect,) = outcome.effects
    assert effect.traits == {"losses": 1, "disordered": True, "limbered": True}
    # it faces 270 (toward y = 0): 3" = 75 mm back is toward +y
    assert effect.ghost is not None
    assert (effect.ghost.x_mm, effect.ghost.y_mm, effect.ghost.heading_deg) == \
        pytest.approx((500, 415, 270))
    # 2 + 3 - 1 = 4: no effect (a modified low total is not reduced ammunition, ISD A51)
    assert test.read([[2, 3]]).effects == ()


def test_isd_losses_stop_at_the_efficacy_limit() -> None:
    # ISD §4: unit B shaken at 5, dispersed at 5 + 4 = 9
    test = isd_gun({"losses": 4})
    (effect,) = test.read([[5, 5]]).effects
    assert effect.traits["losses"] == 5 and "now shaken" in effect.text
    test = isd_gun({"losses": 8})
    (effect,) = test.read([[6, 6]]).effects
    assert effect.traits["losses"] == 9 and "now dispersed" in effect.text


def test_isd_rockets_disorder_only() -> None:
    # ISD §6 rocket table: «8 e oltre» disordered, never a loss nor a fall back; +1 at cavalry
    test = isd_gun(rockets=True)
    assert test.table["title"] == "Rocket fire table (2d6)"
    assert effects(test, [[4, 3]]) == [("t", {"disordered": True}, False)]   # 4 + 3 + 1 = 8
    assert effects(test, [[3, 3]]) == []                                     # 7
    assert test.read([[6, 6]]).effects[0].ghost is None


# --- ISD §7 musketry -----------------------------------------------------------------------------

def test_isd_musketry_counts_hits_per_die() -> None:
    # unit B with MR (3 d6, re-roll 1s) 4" from a unit in march column: +1 to each die (ISD §7)
    test = fire("italia-se-desta",
                [base("a", "A", "B", 500, 100, 90, 80, 40, weapon="MR"),
                 base("t", "B", "B", 500, 240, 270, 80, 40, formation="march_column")], "a", "t")
    roll = test.rolls[0]
    assert (roll.count, roll.sides, roll.reroll_ones) == (3, 6, True)
    # 4 + 1 = 5 hits; a 1 always misses; 6 hits: 2 losses
    outcome = test.read([[4, 1, 6]])
    assert outcome.score["hits"] == 2 and outcome.rows == ("4", "1", "6")
    assert effects(test, [[4, 1, 6]]) == [("t", {"losses": 2}, False)]
    assert test.read([[3, 2, 1]]).effects == ()
    assert [r[1] for r in test.table["rows"]] == ["miss", "miss", "miss", "hit: 1 loss",
                                                  "hit: 1 loss", "hit: 1 loss"]


def test_isd_musketry_out_of_range_is_refused_with_the_reason() -> None:
    with pytest.raises(CampoInputError, match="cannot fire at t"):
        fire("italia-se-desta", [base("a", "A", "B", 500, 100, 90, 80, 40, weapon="MR"),
                                 base("t", "B", "B", 500, 400, 270, 80, 40)], "a", "t")


# --- Federico "Esecuzione del tiro" ------------------------------------------------------------
# A line infantry base (class 4) firing for the first time (-1) at 10 cm (long range).

FED = [base("a", "A", "infantry", 800, 400, 90, 40, 20, **{"class": 4, "regiment": "r1"}),
       base("b", "B", "infantry", 800, 520, 270, 40, 20, **{"class": 4, "regiment": "r2"})]


@pytest.mark.parametrize("face, expected", [
    # 5 - 1 = 4, «uguale alla classe del tiratore»: one base eliminated
    (5, [("a", {"fired": True}, False), ("b", {}, True)]),
    # 1 - 1 = 0, «inferiore»: halts and «scenderà di una Classe»
    (1, [("a", {"fired": True}, False), ("b", {"class": 3}, False)]),
    # 6 - 1 = 5, «maggiore»: «il tiro è nullo»
    (6, [("a", {"fired": True}, False)]),
])
def test_federico_each_die_against_the_firers_class(face: int, expected: list[Any]) -> None:
    test = fire("federico", FED, "a", "b")
    assert [m["delta"] for m in test.modifiers] == [-1]
    assert effects(test, [[face]]) == expected


def test_federico_class_drops_below_3_eliminate() -> None:
    # F11 "cumulative": each lower result drops a class; «se si scende sotto un valore di 3, si
    # viene eliminati»: a class 3 target dropping one is eliminated
    bases = [FED[0], base("b", "B", "infantry", 800, 520, 270, 40, 20,
                          **{"class": 3, "regiment": "r2"})]
    test = fire("federico", bases, "a", "b")
    assert effects(test, [[2]])[-1] == ("b", {}, True)


def test_federico_a_battery_drops_a_class_too() -> None:
    # «Causa il tiro o la mischia si può calare di classe»: a medium battery (class 4) at 10 cm
    # whose die is lower than the firer's class halts and drops to 3, recorded on the base
    bases = [FED[0], base("b", "B", "artillery", 800, 530, 270, 40, 40,
                          **{"weight": "medium", "regiment": "g2"})]
    test = fire("federico", bases, "a", "b")
    assert effects(test, [[1]]) == [("a", {"fired": True}, False), ("b", {"class": 3}, False)]


# --- ATTILA 6.B, 6.C -----------------------------------------------------------------------------
# Skirmishers with bows (d8) shooting a heavy foot base 6 cm away: medium range, 6 needed (T);
# Heavy units save on 4, 5, 6 (6.C).

def attila(target_disordered: bool = False, shooter_disordered: bool = False) -> DiceTest:
    return fire("attila",
                [base("a", "A", "SI", 800, 400, 90, 40, 20, missile="bows", melee_die="d6",
                      disordered=shooter_disordered),
                 base("b", "B", "FP", 800, 480, 270, 40, 20, melee_die="d8",
                      disordered=target_disordered)], "a", "b",
                armies={"A": {"discipline": "regular"}, "B": {"discipline": "regular"}})


@pytest.mark.parametrize("dice, row, expected", [
    ([[6], [3]], "hit", [("b", {"disordered": True}, False)]),   # 6 >= 6, save fails on 3
    ([[8], [4]], "saved", []),                                  # «con 4, 5 e 6 non vengono Disordinati»
    ([[5], [1]], "miss", []),                                   # 5 < 6
])
def test_attila_shooting_die_then_save(dice: list[list[int]], row: str, expected: list[Any]) -> None:
    test = attila()
    assert [(r.count, r.sides, r.only_if) for r in test.rolls] == [(1, 8, ""), (1, 6, "hit")]
    assert test.read(dice).row == row
    assert effects(test, dice) == expected


def test_attila_disordered_twice_is_destroyed_and_a_disordered_shooter_steps_down() -> None:
    # ATT 8.A: a base Disordered again is destroyed; a disordered shooter rolls a die one size
    # smaller (d8 -> d6)
    assert effects(attila(target_disordered=True), [[7], [2]]) == [("b", {}, True)]
    assert attila(shooter_disordered=True).rolls[0].sides == 6


def test_dice_that_do_not_fit_the_test_are_refused_naming_the_die() -> None:
    test = attila()
    with pytest.raises(CampoInputError, match=r"dice\[0\]\[0\]"):
        test.read([[9], [1]])
    with pytest.raises(CampoInputError, match="2 group"):
        test.read([[6]])


# --- ISD §9 melee --------------------------------------------------------------------------------
# A veteran unit B (combat factor 2 «Unità B», veteran +2: +4) front to front with a unit D
# (factor 1, regular +1: +2) (ISD §4, §9).

ISD_MELEE = [base("a", "A", "B", 800, 400, 90, 80, 40, quality="veteran"),
             base("b", "B", "D", 800, 440, 270, 80, 40, quality="regular")]


@pytest.mark.parametrize("dice, row, expected", [
    # 3 + 4 = 7 against 4 + 2 = 6: difference 1, «Parità»: both take 1 loss
    ([[3], [4]], "0–1", [("a", {"losses": 1}, False), ("b", {"losses": 1}, False)]),
    # 4 + 4 = 8 against 4 + 2 = 6: difference 2-3, the loser falls back 3" in disorder, 1 loss
    ([[4], [4]], "2–3", [("b", {"losses": 1, "disordered": True}, False)]),
    # 6 + 4 = 10 against 1 + 2 = 3: difference 7, 6 or more: 3 losses (D: shaken at 3, ISD §4)
    ([[6], [1]], "6+", [("b", {"losses": 3, "disordered": True}, False)]),
    # 1 + 4 = 5 against 6 + 2 = 8: the attacker loses by 3
    ([[1], [6]], "2–3", [("a", {"losses": 1, "disordered": True}, False)]),
])
def test_isd_melee_reads_the_results_table(dice: list[list[int]], row: str,
                                           expected: list[Any]) -> None:
    test = fire_or_melee("italia-se-desta", ISD_MELEE)
    assert test.read(dice).rows == (row,)
    assert effects(test, dice) == expected


def test_isd_melee_loser_falls_back_away_from_its_front() -> None:
    (effect,) = fire_or_melee("italia-se-desta", ISD_MELEE).read([[6], [1]]).effects
    # b faces 270 (toward y = 0): 3" = 75 mm back is toward +y
    assert effect.ghost is not None and (effect.ghost.x_mm, effect.ghost.y_mm) == \
        pytest.approx((800, 515))


def fire_or_melee(ruleset: str, bases: list[dict[str, Any]], **extra: Any) -> DiceTest:
    scenario = {"ruleset": ruleset, "table": {"width_mm": 1800, "depth_mm": 1200}, "terrain": [],
                "bases": bases, **extra}
    return get_ruleset(ruleset).melee_test(GameState.from_dict(scenario), "a", "b")


# --- ATTILA 7 ------------------------------------------------------------------------------------
# Heavy foot (d8) against light foot (d6), front to front (ATT 7.A: each its own melee die).

ATT_MELEE = [base("a", "A", "FP", 800, 400, 90, 40, 20, melee_die="d8"),
             base("b", "B", "FL", 800, 420, 270, 40, 20, melee_die="d6")]
ARMIES = {"armies": {"A": {"discipline": "regular"}, "B": {"discipline": "regular"}}}


@pytest.mark.parametrize("dice, expected", [
    ([[7], [3]], [("b", {"disordered": True}, False)]),   # the lower score is Disordered
    ([[2], [5]], [("a", {"disordered": True}, False)]),
    ([[4], [4]], []),                                     # a tie: no effect
])
def test_attila_melee_lower_die_is_disordered(dice: list[list[int]], expected: list[Any]) -> None:
    test = fire_or_melee("attila", ATT_MELEE, **ARMIES)
    assert [(r.count, r.sides) for r in test.rolls] == [(1, 8), (1, 6)]
    assert effects(test, dice) == expected


def test_attila_melee_loser_retreats_5_cm() -> None:
    (effect,) = fire_or_melee("attila", ATT_MELEE, **ARMIES).read([[7], [3]]).effects
    # ATT 7.E: «deve ritirarsi di 5 cm»: b's centre 50 mm away from a
    assert effect.ghost is not None and effect.ghost.y_mm == pytest.approx(470)


# --- Federico "Mischie" --------------------------------------------------------------------------
# Two line bases (class 4) front to front, one to one: no modifier on either roll.

FED_MELEE = [base("a", "A", "infantry", 800, 400, 90, 40, 20, **{"class": 4, "regiment": "r1"}),
             base("b", "B", "infantry", 800, 420, 270, 40, 20, **{"class": 4, "regiment": "r2"})]


@pytest.mark.parametrize("dice, expected", [
    # morale 5 > class 4: the defender «arretra spalle al nemico» and drops a class; no melee
    ([[5], [1]], [("b", {"class": 3}, False)]),
    # morale 4 = class: it stands; melee 1 «1 o 2 il Difensore è eliminato»
    ([[4], [1]], [("b", {}, True)]),
    # melee 4: «3 o 4 il Difensore arretra»
    ([[1], [4]], [("b", {"class": 3}, False)]),
    # melee 6: «5 o 6 l'Attaccante arretra» (no class is said for the attacker)
    ([[1], [6]], [("a", {}, False)]),
])
def test_federico_melee_morale_test_then_the_attackers_die(dice: list[list[int]],
                                                           expected: list[Any]) -> None:
    test = fire_or_melee("federico", FED_MELEE)
    assert test.modifiers == [] and [r.only_if for r in test.rolls] == ["", "stands"]
    assert effects(test, dice) == expected


def test_federico_fall_back_is_10_cm_for_infantry_back_to_the_enemy() -> None:
    (effect,) = fire_or_melee("federico", FED_MELEE).read([[6], [1]]).effects
    # Federico "Mischie": 10 cm for infantry; F22: straight away from the contacted edge
    assert effect.ghost is not None
    assert (effect.ghost.y_mm, effect.ghost.heading_deg) == pytest.approx((520, 90))


# --- ISD ManTab, ATTILA 9.A ---------------------------------------------------------------------

def test_isd_manoeuvre_table_disordered_column() -> None:
    # a disordered unit B with 3 losses (still fresh: shaken at 5, ISD §4) and a capable
    # Division general in command: fresh +2, capable +2, at least 3 losses -1 (ISD ManTab)
    bases = [base("a", "A", "B", 800, 400, 90, 80, 40, disordered=True, losses=3),
             base("g", "A", "general", 700, 300, 90, 30, 30, rank="division",
                  quality="capable")]
    scenario = {"ruleset": "italia-se-desta", "table": {"width_mm": 1800, "depth_mm": 1200},
                "bases": bases}
    test = get_ruleset("italia-se-desta").manoeuvre_test(GameState.from_dict(scenario), "a")
    assert sum(m["score_delta"] for m in test.modifiers) == 3
    # 2 + 3 = 5: «Disordine», falls back ½ move in disorder and takes 1 loss
    (effect,) = test.read([[1, 1]]).effects
    assert effect.traits == {"losses": 4, "disordered": True} and effect.ghost is not None
    # 4 + 4 + 3 = 11: «Riordinato con slancio», recovers from disorder
    assert effects(test, [[4, 4]]) == [("a", {"disordered": False}, False)]
    # 3 + 3 + 3 = 9: «Riordinato»
    assert test.read([[3, 3]]).rows == ("9–10",)


def test_attila_reorganisation_on_the_armys_discipline() -> None:
    # ATT 9.A: a Regular army rallies on 6-8 of 1d8
    scenario = {"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200},
                "armies": {"A": {"discipline": "regular"}, "B": {"discipline": "regular"}},
                "bases": [base("a", "A", "FP", 300, 300, 90, 40, 20, melee_die="d8",
                               disordered=True),
                          base("b", "B", "FP", 1500, 900, 270, 40, 20, melee_die="d8")]}
    test = get_ruleset("attila").manoeuvre_test(GameState.from_dict(scenario), "a")
    assert effects(test, [[6]]) == [("a", {"disordered": False}, False)]
    assert effects(test, [[5]]) == []


@pytest.mark.parametrize("module", ["campo.engine.resolution",
                                    "campo.engine.rulesets.attila.resolution",
                                    "campo.engine.rulesets.italia.tables_fire"])
def test_docstring_examples(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
