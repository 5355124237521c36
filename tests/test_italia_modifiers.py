"""ISD modifiers from facts: representative situations an umpire would rule on (ISD §6–§10)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from campo.engine.rulesets.italia.modifier import score_total
from campo.engine.rulesets.italia.modifiers_fire import (
    FireFacts,
    bombardment_modifier_total,
    can_bombard,
    fire_modifiers,
    musketry_pool,
)
from campo.engine.rulesets.italia.modifiers_melee import (
    MeleeFacts,
    MeleeUnit,
    counted_supports,
    melee_modifiers,
    melee_score,
)
from campo.engine.rulesets.italia.modifiers_other import (
    GeneralRiskFacts,
    LimberFacts,
    ManoeuvreFacts,
    PursuitFacts,
    general_risk_modifiers,
    limbering_modifiers,
    manoeuvre_modifiers,
    pursuit_modifiers,
    pursuit_total,
)
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.tables_fire import bombardment_result


def labels(mods) -> list[str]:
    return [m.label for m in mods]


# --- bombardment (ISD §6) --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("distance", "battery", "expected"),
    [(2.0, "divisional", 2), (3.0, "divisional", 2), (10.0, "divisional", 1), (15.0, "divisional", 0),
     (20.0, "divisional", -1), (2.0, "reserve", 3), (12.0, "reserve", 2), (18.0, "reserve", 1),
     (24.0, "reserve", 0)],
)
def test_range_modifiers_isd_6(distance: float, battery: str, expected: int) -> None:
    assert bombardment_modifier_total(FireFacts("gun", distance, battery=battery)) == expected


def test_bombardment_reserve_battery_into_flank_of_column_behind_wall() -> None:
    facts = FireFacts("gun", 8.0, battery="reserve", flank_fire=True, target_march_column=True,
                      target_cover="hard", firer_disordered=True)
    mods = fire_modifiers(facts)
    # +2 range, -1 disordered, -2 hard cover, +1 once for flank/march column (one row, «o»)
    assert score_total(mods) == 0
    assert any(m.label.startswith("hit in the flank / target in march column") for m in mods)
    assert all(m.cites.startswith("ISD") for m in mods)


def test_bombardment_weather_and_difficult_terrain_do_not_stack() -> None:
    storm = ItaliaSettings(weather="storm")
    f = FireFacts("gun", 15.0, gun_on_difficult_terrain=True)
    assert bombardment_modifier_total(f, storm) == -1  # 0 range, one -1 row
    assert bombardment_modifier_total(FireFacts("gun", 15.0), storm) == -1
    assert bombardment_modifier_total(FireFacts("gun", 15.0)) == 0


def test_bombardment_soft_cover_single_rank_in_battery() -> None:
    f = FireFacts("gun", 15.0, target_cover="soft", target_single_rank=True, target_arm="infantry")
    assert bombardment_modifier_total(f) == -2
    g = FireFacts("gun", 15.0, target_arm="artillery", target_in_battery=True)
    assert bombardment_modifier_total(g) == -1


def test_rockets_fire_as_divisional_and_add_one_at_cavalry() -> None:
    f = FireFacts("gun", 10.0, battery="reserve", rockets=True, target_arm="cavalry")
    assert bombardment_modifier_total(f) == 2  # +1 divisional range, +1 cavalry
    result = bombardment_result(6, bombardment_modifier_total(f), rockets=True)
    assert result.outcome.value == "disorder" and result.losses == 0 and result.fall_back_in == 0


def test_voloire_moved_and_unlimbered_and_reduced_ammunition() -> None:
    f = FireFacts("gun", 15.0, moved_and_unlimbered=True, reduced_ammunition=True)
    assert bombardment_modifier_total(f) == -1
    minus = ItaliaSettings(a46_reduced_ammunition="minus_1")
    assert bombardment_modifier_total(f, minus) == -2
    assert can_bombard(True) is False and can_bombard(False) is True
    assert can_bombard(True, minus) is True


# --- musketry (ISD §7) ---------------------------------------------------------------------------------


def test_musketry_flank_fire_double_dice() -> None:
    pool = musketry_pool(FireFacts("B", 4.0, weapon="ML", flank_fire=True))
    assert pool.dice == 6 and pool.score_delta == 0 and pool.reroll_ones is False
    assert "flank fire: double dice" in labels(pool.modifiers)


def test_musketry_shaken_frr_marksmen_in_soft_cover() -> None:
    # Jagers (E, 2 d6) with FRR: +1 weapon, +1 marksmen, -1 shaken, -1 soft cover = 2 d6, re-roll 1s
    pool = musketry_pool(FireFacts("E", 5.0, firer_arm="infantry", weapon="FRR", marksmen=True,
                                   firer_shaken=True, target_cover="soft"))
    assert (pool.dice, pool.score_delta, pool.reroll_ones) == (2, 0, True)


def test_musketry_hard_cover_minimum_one_die() -> None:
    pool = musketry_pool(FireFacts("E", 5.0, firer_arm="infantry", weapon="FO", firer_shaken=True,
                                   target_cover="hard"))
    assert pool.dice == 1  # 2 - 1 - 1 - 1 = -1 -> at least 1 d6
    assert pool.score_delta == -1


def test_musketry_single_rank_not_behind_cover() -> None:
    open_target = musketry_pool(FireFacts("A", 3.0, weapon="MR", target_single_rank=True))
    assert open_target.dice == 4 and open_target.score_delta == -1
    covered = musketry_pool(FireFacts("A", 3.0, weapon="MR", target_single_rank=True, target_cover="soft"))
    assert covered.dice == 3 and covered.score_delta == 0  # note [*]: no -1 behind cover


def test_musketry_march_column_limbered_and_storm() -> None:
    pool = musketry_pool(FireFacts("D", 3.0, weapon="MR", target_march_column=True),
                         ItaliaSettings(weather="storm"))
    assert pool.dice == 2 and pool.score_delta == 1


def test_musketry_dice_order_setting_a12() -> None:
    f = FireFacts("B", 4.0, weapon="FO", flank_fire=True, firer_shaken=True)
    assert musketry_pool(f).dice == 2  # (3 - 1 - 1) x 2
    assert musketry_pool(f, ItaliaSettings(a12_dice_order="double_then_adjust")).dice == 4  # 6 - 2


def test_cavalry_does_not_fire_musketry() -> None:
    assert musketry_pool(FireFacts("C", 2.0)).dice == 0
    assert fire_modifiers(FireFacts("E", 2.0, firer_arm="cavalry")) == []


# --- melee (ISD §9) ----------------------------------------------------------------------------------

INF_B = MeleeUnit("B")
CAV_C = MeleeUnit("C", cavalry_class="line")


def test_melee_brigade_attacks_in_flank_with_support() -> None:
    facts = MeleeFacts(
        unit=MeleeUnit("A", quality="veteran"), enemy=INF_B, attacker=True, flank_attack=True,
        supports=(MeleeUnit("B"), MeleeUnit("D"), MeleeUnit("gun")), general_quality="capable",
        general_rank="division",
    )
    mods = melee_modifiers(facts)
    # factor 3, supports (2-1)+(1-1)=1, artillery +1, general +1, attack +1, veteran +2, flank +3
    assert score_total(mods) == 12
    assert melee_score(4, facts) == 16
    assert "flank attack: +3" in labels(mods)


def test_melee_flank_attack_impossible_on_covered_enemy() -> None:
    f = MeleeFacts(unit=INF_B, enemy=INF_B, attacker=True, flank_attack=True, enemy_in_cover=True)
    assert "flank attack: +3" not in labels(melee_modifiers(f))


def test_cavalry_against_steady_infantry_minus_two_and_note_3() -> None:
    frontal = MeleeFacts(unit=CAV_C, enemy=INF_B, attacker=True)
    assert "cavalry attacking infantry not shaken: -2" in labels(melee_modifiers(frontal))
    # note (3): flank contact having moved no more than half its move: no -2
    flank_short = MeleeFacts(unit=CAV_C, enemy=INF_B, attacker=True, flank_attack=True, moved_half_or_less=True)
    assert "cavalry attacking infantry not shaken: -2" not in labels(melee_modifiers(flank_short))
    flank_long = MeleeFacts(unit=CAV_C, enemy=INF_B, attacker=True, flank_attack=True)
    assert "cavalry attacking infantry not shaken: -2" in labels(melee_modifiers(flank_long))
    never = ItaliaSettings(a32_cavalry_flank_minus2="never_on_flank")
    assert "cavalry attacking infantry not shaken: -2" not in labels(melee_modifiers(flank_long, never))
    # shaken infantry: no -2 for the cavalry; the infantry takes -1 and -1
    shaken = MeleeUnit("B", shaken=True)
    assert "cavalry attacking infantry not shaken: -2" not in labels(
        melee_modifiers(MeleeFacts(unit=CAV_C, enemy=shaken, attacker=True)))
    inf_side = melee_modifiers(MeleeFacts(unit=shaken, enemy=CAV_C))
    assert score_total(inf_side) == 2 + 1 - 1 - 1  # factor, regular, shaken, shaken v cavalry


def test_march_column_fights_as_shaken() -> None:
    col = MeleeUnit("D", march_column=True)
    mods = melee_modifiers(MeleeFacts(unit=col, enemy=CAV_C))
    assert "march column fights as shaken: -1" in labels(mods)
    assert "shaken infantry attacked by cavalry: -1" in labels(mods)


def test_attack_bonus_rules_note_2_and_snow() -> None:
    def has_bonus(f: MeleeFacts, s: ItaliaSettings | None = None) -> bool:
        return "attacker: +1" in labels(melee_modifiers(f, s))

    assert has_bonus(MeleeFacts(unit=INF_B, enemy=INF_B, attacker=True))
    assert not has_bonus(MeleeFacts(unit=INF_B, enemy=INF_B, attacker=True, first_round=False))
    assert not has_bonus(MeleeFacts(unit=INF_B, enemy=CAV_C, attacker=True))  # infantry v cavalry
    assert not has_bonus(MeleeFacts(unit=INF_B, enemy=INF_B, attacker=True, pursuit=True))
    assert has_bonus(MeleeFacts(unit=INF_B, enemy=INF_B, attacker=True, pursuit=True,
                                attack_bonus_in_pursuit=True))
    assert has_bonus(MeleeFacts(unit=CAV_C, enemy=CAV_C, attacker=True, pursuit=True))
    assert not has_bonus(MeleeFacts(unit=CAV_C, enemy=CAV_C, attacker=True), ItaliaSettings(weather="snow"))


@pytest.mark.parametrize(
    ("own", "enemy", "bonus"),
    [("heavy", "line", 1), ("line", "light", 1), ("heavy", "light", 2), ("light", "heavy", 0),
     ("line", "line", 0)],
)
def test_cavalry_class_modifiers(own: str, enemy: str, bonus: int) -> None:
    f = MeleeFacts(unit=MeleeUnit("C", cavalry_class=own), enemy=MeleeUnit("C", cavalry_class=enemy))
    got = [m.score_delta for m in melee_modifiers(f) if "cavalry v" in m.label]
    assert sum(got) == bonus


def test_cavalry_two_classes_setting() -> None:
    f = MeleeFacts(unit=MeleeUnit("C", cavalry_class="heavy"), enemy=MeleeUnit("C", cavalry_class="line"))
    s = ItaliaSettings(a37_cavalry_classes="two_classes")
    assert not [m for m in melee_modifiers(f, s) if "cavalry v" in m.label]


def test_supports_at_most_two_same_arm_or_one_of_each() -> None:
    # supporting infantry with three units: A (2), B (1), C cavalry (1): best legal pair = A + B
    got = counted_supports(INF_B, [MeleeUnit("A"), MeleeUnit("B"), MeleeUnit("C")])
    assert sorted(u.unit_type for u in got) == ["A", "B"]
    # supporting infantry with two cavalry: not allowed together (neither same arm nor one of each)
    got = counted_supports(INF_B, [MeleeUnit("C"), MeleeUnit("C")])
    assert len(got) == 1


def test_terrain_slope_general_hidden_and_a35_a36() -> None:
    f = MeleeFacts(unit=INF_B, enemy=INF_B, defending_linear_obstacle=True, area_protection="hard",
                   slope="steep", general_quality="decisive", general_rank="division", enemy_hidden="wood")
    mods = melee_modifiers(f)
    assert score_total(mods) == 2 + 1 + 1 + 2 + 2 + 1 - 2  # factor regular obstacle hard steep general hidden
    quality = ItaliaSettings(a36_general_melee_bonus="by_quality", a35_area_protection="all_1")
    assert score_total(melee_modifiers(f, quality)) == score_total(mods) + 2 - 1
    corps = MeleeFacts(unit=INF_B, enemy=INF_B, general_quality="decisive", general_rank="corps")
    assert not [m for m in melee_modifiers(corps) if "general" in m.label]  # ISD §8: no bonus
    other_side = ItaliaSettings(a34_hidden_penalty_side="hidden_unit")
    assert not [m for m in melee_modifiers(f, other_side) if "hidden" in m.label]


def test_cavalry_in_wood_and_snow_halves_factors() -> None:
    f = MeleeFacts(unit=MeleeUnit("C", quality="green"), enemy=INF_B, in_marsh_or_wood=True)
    assert score_total(melee_modifiers(f)) == 2 - 2
    g = MeleeFacts(unit=MeleeUnit("A", quality="green"), enemy=INF_B)
    assert score_total(melee_modifiers(g, ItaliaSettings(weather="snow"))) == 2  # ceil(3/2)


# --- manoeuvre, limbering, pursuit, generals ---------------------------------------------------------


def test_manoeuvre_modifiers_mantab() -> None:
    f = ManoeuvreFacts(fresh=True, general_quality="capable", light_infantry=True,
                       enemy_infantry_within_6=True, enemy_artillery_within_3=True)
    assert score_total(manoeuvre_modifiers(f)) == 2 + 2 + 1 - 1 - 1
    g = ManoeuvreFacts(fresh=False, losses=3, march_column=True, enemy_cavalry_in_sight=True)
    assert score_total(manoeuvre_modifiers(g)) == 1 - 1 - 2
    # cavalry ignores the enemy-cavalry penalty and the light-infantry bonus
    h = ManoeuvreFacts(arm="cavalry", fresh=False, light_infantry=True, enemy_cavalry_in_sight=True)
    assert manoeuvre_modifiers(h) == []
    assert score_total(manoeuvre_modifiers(ManoeuvreFacts(fresh=False), ItaliaSettings(twilight=True))) == -1
    assert manoeuvre_modifiers(ManoeuvreFacts(corps_commander=True, general_quality="decisive")) == []


def test_limbering_modifiers_isd_8() -> None:
    f = LimberFacts(general_quality="mediocre", horse=True, quality="veteran", flanked_by_gun=True)
    assert score_total(limbering_modifiers(f)) == 4
    assert score_total(limbering_modifiers(LimberFacts(quality="green", has_losses=True))) == -2


def test_pursuit_choice_and_fixed_modifiers() -> None:
    f = PursuitFacts(arm="cavalry", cavalry_class="light", quality="veteran", disordered=True)
    mods = pursuit_modifiers(f)
    assert score_total(mods) == -1
    assert pursuit_total(3, mods, want_pursuit=True) == 3 - 1 + 2 + 1
    assert pursuit_total(3, mods, want_pursuit=False) == 3 - 1 - 2 - 1
    inf = pursuit_modifiers(PursuitFacts(shaken=True, defensive_terrain="hard", quality="green",
                                         french_infantry_or_garibaldini=True))
    assert score_total(inf) == -2 - 2 - 1 + 1


def test_general_risk_modifiers_isd_10() -> None:
    f = GeneralRiskFacts(quality="decisive", unit_dispersed=True, fought_or_supported=True)
    assert score_total(general_risk_modifiers(f)) == -5
    assert score_total(general_risk_modifiers(GeneralRiskFacts(unit_shaken=True, quality="capable"))) == -2


def test_every_modifier_cites_a_section() -> None:
    samples = [
        *fire_modifiers(FireFacts("gun", 2.0, flank_fire=True, target_cover="soft", firer_disordered=True)),
        *musketry_pool(FireFacts("A", 2.0, weapon="FRR", flank_fire=True, target_cover="hard")).modifiers,
        *melee_modifiers(MeleeFacts(unit=CAV_C, enemy=INF_B, attacker=True, slope="gentle")),
        *manoeuvre_modifiers(ManoeuvreFacts(general_quality="mediocre")),
    ]
    for m in samples:
        assert m.cites.startswith("ISD "), m
        assert m.to_dict()["label"] == m.label


# --- properties (hypothesis) ---------------------------------------------------------------------------

_ORDER = ["no_effect", "disorder", "one_loss", "two_losses"]

fire_facts = st.builds(
    FireFacts,
    firer_type=st.sampled_from(["A", "B", "D", "E"]),
    distance_in=st.floats(0.0, 6.0),
    firer_arm=st.just("infantry"),
    weapon=st.sampled_from([None, "FO", "ML", "MR", "FRR"]),
    marksmen=st.booleans(),
    french_guard=st.booleans(),
    firer_shaken=st.booleans(),
    flank_fire=st.booleans(),
    target_cover=st.sampled_from(["none", "soft", "hard"]),
    target_arm=st.sampled_from(["infantry", "cavalry", "artillery"]),
    target_in_battery=st.booleans(),
    target_limbered=st.booleans(),
    target_single_rank=st.booleans(),
    target_march_column=st.booleans(),
)


@given(st.integers(3, 11), st.integers(-6, 6))
def test_bombardment_never_worse_with_a_better_modifier(natural: int, mods: int) -> None:
    worse, better = bombardment_result(natural, mods), bombardment_result(natural, mods + 1)
    assert _ORDER.index(better.outcome.value) >= _ORDER.index(worse.outcome.value)


@given(fire_facts, st.sampled_from(["clear", "storm", "fog", "snow"]))
def test_musketry_pool_bounds(facts: FireFacts, weather: str) -> None:
    s = ItaliaSettings(weather=weather)
    pool = musketry_pool(facts, s)
    assert pool.dice >= 1
    assert -1 <= pool.score_delta <= 1
    assert pool.reroll_ones == (facts.weapon in ("MR", "FRR"))
    flat = musketry_pool(dataclasses.replace(facts, flank_fire=False), s)
    raw = sum(m.dice_delta for m in flat.modifiers)  # base and every d6 change (ISD A12)
    assert flat.dice == max(1, raw)
    assert pool.dice == (max(1, 2 * raw) if facts.flank_fire else flat.dice)


@given(st.booleans(), st.booleans(), st.sampled_from(["infantry", "cavalry"]))
def test_flank_attack_is_exactly_plus_three(in_cover: bool, attacker: bool, arm: str) -> None:
    unit = MeleeUnit("C" if arm == "cavalry" else "B", arm=arm, cavalry_class="line" if arm == "cavalry" else None)
    plain = MeleeFacts(unit=unit, enemy=CAV_C, attacker=attacker, enemy_in_cover=in_cover)
    flank = MeleeFacts(unit=unit, enemy=CAV_C, attacker=attacker, enemy_in_cover=in_cover, flank_attack=True)
    gain = score_total(melee_modifiers(flank)) - score_total(melee_modifiers(plain))
    assert gain == (0 if in_cover else 3)


def test_a_modifier_dict_holds_every_field_in_order() -> None:
    from campo.engine.rulesets.italia.modifier import Modifier

    m = Modifier("flank fire", "ISD §7", 1, 2, 3, True, True)
    assert list(m.to_dict().items()) == list(dataclasses.asdict(m).items())
