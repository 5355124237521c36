"""ISD tables as the engine holds them, checked cell by cell against the Italian text."""

from __future__ import annotations

import pytest

from campo.engine.rulesets.italia.army_lists import (
    ARMY_LISTS,
    ARTILLERY_COSTS,
    ROCKET_BATTERY_COST,
    entries,
)
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.tables_fire import (
    RANGE_MODIFIER,
    artillery_band,
    bombardment_result,
    band_row,
    musketry_die_hits,
    rocket_result,
    split_fire_dice,
)
from campo.engine.rulesets.italia.tables_generals import (
    general_captured,
    general_hit,
    initiative_total,
    replacement_arrives,
)
from campo.engine.rulesets.italia.tables_manoeuvre import (
    allows_about_face,
    deploys_from_march_column,
    limbering_succeeds,
    manoeuvre_result,
)
from campo.engine.rulesets.italia.tables_melee import (
    may_pursue,
    PURSUIT_DISTANCE_IN,
    melee_result,
    pursuit_succeeds,
    resolve_melee,
)
from campo.engine.rulesets.italia.tables_movement import (
    MOVEMENT_TABLE,
    Mover,
    can_enter,
    movement_allowance,
    mover_for,
)
from campo.engine.rulesets.italia.tables_morale import (
    MoraleUnit,
    army_morale_after_failure,
    army_morale_start,
    army_routed,
    morale_test,
)
from campo.engine.rulesets.italia.troops import (
    BASE_SIZES,
    EFFICACY,
    MM_PER_INCH,
    Quality,
    combat_factor,
    command_radius_in,
    efficacy_state,
    general_quality_roll,
    morale_factor,
    musketry_base_dice,
    resolve_arm,
)
from campo.engine.rulesets.italia.weather import WEATHER
from campo.errors import CampoInputError

# --- units (ISD Intro, §3, §4, §7) -------------------------------------------------------------


def test_inch_is_25_mm() -> None:  # ISD Intro «POLLICI (2,5 cm.)»
    assert MM_PER_INCH == 25.0


@pytest.mark.parametrize(
    ("unit_type", "arm", "size"),
    [
        ("A", None, (100.0, 40.0)),  # «10 cm di fronte x 4 cm»
        ("B", None, (80.0, 40.0)),
        ("C", None, (80.0, 30.0)),
        ("D", None, (80.0, 20.0)),
        ("E", "infantry", (50.0, 20.0)),
        ("E", "cavalry", (50.0, 30.0)),
        ("gun", None, (25.0, 40.0)),
        ("limber", None, (25.0, 45.0)),
        ("B", "cavalry", None),  # in ISD Lists, no size printed
    ],
)
def test_base_sizes_isd_intro(unit_type: str, arm: str | None, size: tuple | None) -> None:
    found = BASE_SIZES.get((unit_type, resolve_arm(unit_type, arm)))
    assert (None if found is None else (found.frontage_mm, found.depth_mm)) == size


def test_arm_resolution_errors_name_the_key() -> None:
    with pytest.raises(CampoInputError, match="traits.arm"):
        resolve_arm("E", None)
    with pytest.raises(CampoInputError, match="cannot be cavalry"):
        resolve_arm("A", "cavalry")
    with pytest.raises(CampoInputError, match="unknown arm"):
        resolve_arm("B", "dragoons")


def test_efficacy_isd_4() -> None:
    assert (EFFICACY["A"].to_shaken, EFFICACY["A"].further_to_dispersed) == (6, 5)
    assert (EFFICACY["C"].to_shaken, EFFICACY["C"].further_to_dispersed) == (3, 2)
    # the text's example: B shaken after 5, disperses after 4 more
    assert efficacy_state("B", 4) == "fresh"
    assert efficacy_state("B", 5) == "shaken"
    assert efficacy_state("B", 9) == "dispersed"
    # E «diventa automaticamente "dispersa"»
    assert efficacy_state("E", 2) == "fresh" and efficacy_state("E", 3) == "dispersed"
    # artillery: 2 / 3 / 4 losses; fresh until hit (ISD §8)
    assert efficacy_state("gun", 1, quality="green") == "shaken"
    assert efficacy_state("gun", 2, quality="green") == "dispersed"
    assert efficacy_state("gun", 3, quality="veteran") == "shaken"
    assert efficacy_state("gun", 4, quality="veteran") == "dispersed"
    assert efficacy_state("gun", 0) == "fresh"


def test_combat_factors_isd_4() -> None:
    assert [combat_factor(t) for t in "ABCD"] == [3, 2, 2, 1]
    assert combat_factor("E", "cavalry") == 1
    assert combat_factor("E", "infantry") == 0
    assert combat_factor("gun") == 1
    assert combat_factor("gun", rockets=True) == 0
    # ISD §13 snow: halved rounding up
    assert [combat_factor(t, snow=True) for t in "ABCD"] == [2, 1, 1, 1]


def test_musketry_dice_isd_7() -> None:
    assert musketry_base_dice("A") == 4
    assert musketry_base_dice("B") == 3 and musketry_base_dice("D") == 3
    assert musketry_base_dice("E", "infantry") == 2
    assert musketry_base_dice("E", "cavalry") == 0  # «La cavalleria non può mai» fire
    assert musketry_base_dice("C") == 0
    assert musketry_base_dice("gun") == 0


def test_generals_isd_3() -> None:
    assert command_radius_in("division") == 9.0
    assert command_radius_in("corps") == 6.0
    assert command_radius_in("division", weather="fog") == 4.5  # ISD §13
    assert command_radius_in("division", attached=True) == 0.0  # ISD §8
    assert general_quality_roll("france", 4).value == "decisive"
    assert general_quality_roll("austria", 4).value == "capable"
    assert general_quality_roll("piedmont", 2).value == "mediocre"
    assert general_quality_roll("garibaldini", 2).value == "capable"
    assert general_quality_roll("bourbon", 5).value == "capable"  # "ALTRI"


# --- movement table (ISD §8) --------------------------------------------------------------------


def test_movement_table_printed_cells() -> None:
    inf, cav = MOVEMENT_TABLE[Mover.INFANTRY], MOVEMENT_TABLE[Mover.CAVALRY]
    assert (inf.move_in, inf.road_march_column_in, inf.linear_deduction_in) == (6.0, 12.0, 2.0)
    assert (inf.area_cap_in, inf.marsh_cap_in) == (3.0, 3.0)
    assert (cav.move_in, cav.road_march_column_in, cav.linear_deduction_in) == (12.0, 18.0, 3.0)
    assert (cav.area_cap_in, cav.marsh_cap_in) == (6.0, 6.0)
    foot, horse = MOVEMENT_TABLE[Mover.FOOT_ARTILLERY], MOVEMENT_TABLE[Mover.HORSE_ARTILLERY]
    assert (foot.move_in, foot.road_march_column_in) == (6.0, 12.0)
    assert (horse.move_in, horse.road_march_column_in) == (12.0, 18.0)


@pytest.mark.parametrize(
    ("args", "kwargs", "expected"),
    [
        (("B",), {}, 6.0),
        (("C",), {}, 12.0),
        (("E", "cavalry"), {}, 12.0),
        (("B", None, "march_column", "road"), {}, 12.0),
        (("C", None, "march_column", ["road"]), {}, 18.0),
        (("B", None, "line", "road"), {}, 6.0),  # road rate needs march column
        (("B", None, "march_column", ["road", "hedge"]), {}, 4.0),  # off the road: 6 - 2
        (("B", None, "line", "hedge"), {}, 4.0),  # 6 - 2
        (("C", None, "line", "stream"), {}, 9.0),  # 12 - 3
        (("B", None, "line", "wood"), {}, 3.0),
        (("C", None, "line", "hill"), {}, 6.0),
        (("C", None, "line", "marsh"), {}, 6.0),
        (("B", None, "line", ["wood", "hedge"]), {}, 3.0),  # min(6-2, 3)
        (("B", None, "line", "river"), {}, 0.0),
        (("general",), {"rank": "division"}, 12.0),  # ISD A23: cavalry row
        (("general",), {"rank": "corps"}, 6.0),
        (("gun",), {}, 6.0),
        (("gun",), {"horse": True}, 12.0),
        (("gun", None, "line", "hedge"), {}, 3.0),  # A19 merged: -3
        (("gun", None, "line", "hill"), {}, 0.0),  # «non può entrare»
        (("gun", None, "line", "hill"), {"horse": True}, 3.0),
        (("gun", None, "line", "ford"), {"horse": True}, 6.0),  # 12 - 6
    ],
)
def test_movement_allowance(args: tuple, kwargs: dict, expected: float) -> None:
    assert movement_allowance(*args, **kwargs)[0] == expected


def test_movement_settings_change_the_answer() -> None:
    right = ItaliaSettings(a19_artillery_terrain_columns="right_aligned")
    assert movement_allowance("gun", terrain="hill", settings=right)[0] == 3.0
    assert movement_allowance("gun", terrain="marsh", settings=right)[0] == 0.0
    assert movement_allowance("gun", terrain="hill", horse=True, settings=right)[0] == 6.0
    per = ItaliaSettings(a20_linear_deduction="per_obstacle")
    assert movement_allowance("C", terrain=["hedge", "wall"], settings=per)[0] == 6.0
    assert movement_allowance("C", terrain=["hedge", "wall"])[0] == 9.0
    six = ItaliaSettings(a23_commander_move="six_inch_limit_all")
    assert movement_allowance("general", rank="division", settings=six)[0] == 6.0


def test_weather_cuts_moves_by_the_ford_amount() -> None:  # ISD §13
    storm = ItaliaSettings(weather="storm")
    snow = ItaliaSettings(weather="snow")
    assert movement_allowance("B", settings=storm)[0] == 4.0
    assert movement_allowance("C", settings=storm)[0] == 9.0
    assert movement_allowance("B", terrain="hill", settings=snow)[0] == 0.0  # 3 - 2 - 1
    assert movement_allowance("C", terrain="hill", settings=snow)[0] == 2.0  # 6 - 3 - 1
    assert movement_allowance("B", settings=ItaliaSettings(weather="fog"))[0] == 6.0


def test_can_enter_and_unknown_kind() -> None:
    assert can_enter(Mover.FOOT_ARTILLERY, "wood") is False
    assert can_enter(Mover.INFANTRY, "wood") is True
    assert mover_for("E", "cavalry") is Mover.CAVALRY
    with pytest.raises(CampoInputError, match="unknown terrain kind 'lava'"):
        movement_allowance("B", terrain="lava")[0]


# --- bombardment and musketry tables (ISD §6, §7) ---------------------------------------------------


def test_range_table_isd_6() -> None:
    assert list(RANGE_MODIFIER["divisional"].values()) == [2, 1, 0, -1]
    assert list(RANGE_MODIFIER["reserve"].values()) == [3, 2, 1, 0]
    assert artillery_band(12.0).value == "over_3_to_12"  # «oltre 3" a 12"» includes 12 (A7)
    excl = ItaliaSettings(a7_band_edges="upper_exclusive")
    assert artillery_band(12.0, excl).value == "over_12_to_18"
    assert artillery_band(24.0, excl) is None
    assert band_row(6.0, False) is not None and band_row(6.01, False) is None


@pytest.mark.parametrize(
    ("natural", "mods", "outcome", "losses"),
    [
        (3, 0, "no_effect", 0), (7, 0, "no_effect", 0), (8, 0, "disorder", 0), (10, 0, "disorder", 0),
        (11, 0, "one_loss", 1), (12, 0, "one_loss", 1), (11, 2, "two_losses", 2),
        (12, -4, "one_loss", 1),  # natural 12: automatic result «anche in presenza di modificatori negativi»
        (2, 5, "reduced_ammunition", 0),  # natural double 1 «senza tenere conto dei modificatori»
        (4, -2, "no_effect", 0),  # modified 2, not natural: A51
    ],
)
def test_bombardment_table_isd_6(natural: int, mods: int, outcome: str, losses: int) -> None:
    r = bombardment_result(natural, mods)
    assert (r.outcome.value, r.losses) == (outcome, losses)
    assert r.fall_back_in == (3.0 if losses else 0.0)
    assert r.disorder == (outcome in ("disorder", "one_loss", "two_losses"))


def test_bombardment_a51_alternative_and_rockets() -> None:
    alt = ItaliaSettings(a51_low_artillery_rolls="modified_2_or_less")
    assert bombardment_result(4, -2, settings=alt).reduced_ammunition
    assert rocket_result(7).outcome.value == "no_effect"
    assert rocket_result(8).outcome.value == "disorder"
    assert rocket_result(12, 5).losses == 0  # rockets never cause losses
    assert rocket_result(2).reduced_ammunition
    with pytest.raises(ValueError):
        bombardment_result(13)


def test_musketry_hits_and_split_isd_7() -> None:
    assert [musketry_die_hits(d) for d in range(1, 7)] == [False] * 4 + [True] * 2
    assert musketry_die_hits(6, -3) and not musketry_die_hits(1, +5)
    assert musketry_die_hits(4, +1) and not musketry_die_hits(5, -1)
    assert split_fire_dice(5) == (2, 3)  # artillery's share rounded down (A11)


# --- melee and pursuit (ISD §9) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("diff", "name", "loser", "each", "artillery", "pursuit"),
    [
        (0, "draw", 0, 1, "stays", "none"), (1, "draw", 0, 1, "stays", "none"),
        (2, "falls_back_1", 1, 0, "falls_back_limbered", "none"),
        (3, "falls_back_1", 1, 0, "falls_back_limbered", "none"),
        (4, "falls_back_2", 2, 0, "captured", "test"), (5, "falls_back_2", 2, 0, "captured", "test"),
        (6, "falls_back_3", 3, 0, "captured", "must"), (11, "falls_back_3", 3, 0, "captured", "must"),
    ],
)
def test_melee_results_isd_9(diff: int, name: str, loser: int, each: int, artillery: str, pursuit: str) -> None:
    r = melee_result(diff)
    assert (r.name, r.loser_losses, r.each_side_losses, r.supporting_artillery, r.pursuit.value) == (
        name, loser, each, artillery, pursuit)
    assert r.loser_falls_back_in == (0.0 if r.draw else 3.0)


def test_resolve_melee_and_pursuit() -> None:
    out = resolve_melee(9, 4)
    assert out.winner == "a" and out.difference == 5 and out.result.pursuit.value == "test"
    assert resolve_melee(5, 6).winner is None
    assert pursuit_succeeds(5) and not pursuit_succeeds(4)
    assert PURSUIT_DISTANCE_IN == {"infantry": 3.0, "cavalry": 6.0}   # artillery never pursues
    assert not may_pursue("infantry", "cavalry") and may_pursue("cavalry", "infantry")


# --- manoeuvre table and limbering (ISD ManTab, §8) ---------------------------------------------------


@pytest.mark.parametrize(
    ("total", "ordered", "disordered"),
    [
        (2, "retired", "rout"), (3, "moved_away", "disorder_full"), (4, "moved_away", "disorder_full"),
        (5, "halted", "disorder_half"), (6, "halted", "disorder_half"), (7, "slowed", "uncertain"),
        (8, "slowed", "uncertain"), (9, "well_led", "rallied"), (10, "well_led", "rallied"),
        (11, "well_led", "rallied_with_elan"), (15, "well_led", "rallied_with_elan"),
    ],
)
def test_manoeuvre_table_mantab(total: int, ordered: str, disordered: str) -> None:
    assert manoeuvre_result(total).outcome.value == ordered
    assert manoeuvre_result(total, disordered=True).outcome.value == disordered


def test_manoeuvre_rows_effects() -> None:
    assert manoeuvre_result(3, disordered=True).losses == 2
    assert manoeuvre_result(5, disordered=True).losses == 1
    assert manoeuvre_result(5, disordered=True).backward_fraction == 0.5
    assert manoeuvre_result(8).forward_fraction == 0.5 and manoeuvre_result(9).forward_fraction == 1.0
    assert manoeuvre_result(6).forward_fraction == 0.0
    assert manoeuvre_result(1, disordered=True).removed
    assert deploys_from_march_column(9) and not deploys_from_march_column(8)
    assert allows_about_face(manoeuvre_result(7)) and not allows_about_face(manoeuvre_result(6))
    assert not allows_about_face(manoeuvre_result(8), mode="full_move_result")
    assert limbering_succeeds(7) and not limbering_succeeds(6)


# --- generals, morale, weather (ISD §3, §10, §11, §12, §13) --------------------------------------------


def test_generals_isd_10() -> None:
    assert general_hit(5) and not general_hit(6)
    assert [replacement_arrives(1, d) for d in range(1, 7)] == [False] * 4 + [True] * 2
    assert [replacement_arrives(2, d) for d in range(1, 7)] == [False] * 3 + [True] * 3
    assert [replacement_arrives(3, d) for d in range(1, 7)] == [False] * 2 + [True] * 4
    assert [replacement_arrives(7, d) for d in range(1, 7)] == [False] + [True] * 5
    assert general_captured(1) and not general_captured(2)
    assert general_captured(2, "heavy") and general_captured(3, "light") and not general_captured(4, "light")
    assert initiative_total(7, ["decisive", "capable", "mediocre"]) == 10  # ISD §3: 2 + 1 + 0


def test_morale_isd_11_12() -> None:
    assert morale_factor("gun") == 1 and morale_factor("C") == 2 and morale_factor("A") == 3
    units = [MoraleUnit(3), MoraleUnit(2, "shaken"), MoraleUnit(2, "routed"), MoraleUnit(1, "off_table")]
    t = morale_test(units, die=3)
    assert t.morale_value == 8 and t.losses_total == 2 + 4 + 0.5 and not t.failed
    assert morale_test(units, die=6).total == 7.5
    base = ItaliaSettings(a43_off_table_value="base")
    assert morale_test(units, die=6, settings=base).failed  # 2 + 4 + 1 + 1 = 8 >= 8
    assert army_morale_start(4) == 12
    assert army_morale_after_failure(3, 5) == 0 and army_routed(0)


def test_weather_isd_13() -> None:
    assert WEATHER["storm"].musketry_dice_delta == -1 and WEATHER["storm"].moves_less_ford_amount
    assert WEATHER["fog"].command_radius_factor == 0.5
    assert WEATHER["snow"].combat_factors_halved and not WEATHER["snow"].cavalry_attack_bonus
    assert WEATHER["snow"].hill_extra_deduction_in == 1.0
    assert set(WEATHER) == {"clear", "storm", "fog", "snow"}


# --- army lists (ISD Lists) ------------------------------------------------------------------------------


def test_army_lists_hand_picked_rows() -> None:
    pied = {e.troop: e for e in entries("piedmont")}
    assert pied["Carabinieri Genovesi"].costs == (("MR", 42), ("FRR", 44))
    assert pied["Carabinieri Genovesi"].grade.value == "veteran"
    assert pied["Cacciatori delle Alpi"].costs == (("D", 51), ("B", 102))
    assert pied["Cavalleria di linea"].arm.value == "cavalry"
    aus = {e.troop: e for e in entries("austria")}
    assert aus["Fanteria di linea"].sizes == ("A",) and aus["Fanteria di linea"].costs == (("ML", 120), ("MR", 128))
    assert aus["Dragoni"].costs == (("C", 84), ("B", 168))
    assert aus["Corazzieri"].cavalry_class.value == "heavy"
    fr = {e.troop: e for e in entries("france")}
    assert fr["Guard: Granatieri e Volteggiatori"].costs == (("", 126),) and fr["Guard: Granatieri e Volteggiatori"].guard
    gar = {e.troop: e for e in entries("garibaldini_1860")}
    assert gar['"I Mille"'].weapons == ("FO",) and gar['"I Mille"'].grade.value == "veteran"
    assert entries("papal_1860")[3].grade is None and entries("papal_1860")[3].note
    assert ARTILLERY_COSTS[(Quality.VETERAN, "horse")] == 50
    assert ARTILLERY_COSTS[(Quality.GREEN, "foot")] == 35
    assert ROCKET_BATTERY_COST == 20
    assert len(ARMY_LISTS) == 67
    for e in ARMY_LISTS:
        assert e.cites == "ISD Lists"
        assert all(s in "ABCDE" for s in e.sizes)
        if e.grade is None or not e.costs:
            assert e.note, e.troop  # every gap in the source is explained


def test_module_doctests() -> None:
    import doctest

    from campo.engine.rulesets.italia import (
        modifiers_fire, tables_fire, tables_generals, tables_manoeuvre, tables_melee,
        tables_morale, tables_movement, troops,
    )

    for mod in (troops, tables_fire, tables_melee, tables_manoeuvre, tables_generals,
                tables_morale, tables_movement, modifiers_fire):
        result = doctest.testmod(mod)
        assert result.failed == 0, mod.__name__
        assert result.attempted > 0, mod.__name__
