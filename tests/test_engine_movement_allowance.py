"""`Ruleset.movement_allowance`: every ruleset's full move for a base over kinds of terrain, with
the rule it comes from. Expected numbers are the rulebooks' (cited beside each), so a changed
table or a wrong reading fails here.

ISD §8 table: infantry 6", cavalry 12", road in march column 12"/18", obstacle -2"/-3", area
terrain and marsh cap 3"/6", foot artillery may not enter woods (A19 merged cells).
Federico "Movimenti": infantry in line 9 cm, in march column 12 cm, cavalry 15/18 cm, limbered
artillery 9 cm, commanders 18 cm; halved on broken ground, across obstacles and fordable streams
except Light Infantry and Indians (F16); woods and villages only in march column along roads.
ATTILA: rates are not in the text (ATT 5, AT11): group settings; General 24 cm (5.E), wounded
10 cm (8.C), Camp never moves (8.B); mounted units may not enter woods (5.B).
"""

from __future__ import annotations

from typing import Any

import pytest

from campo.engine.results import Allowance
from campo.engine.ruleset import Ruleset
from campo.engine.registry import get_ruleset, ruleset_names
from campo.engine.state import GameState


def base(id_: str, type_: str, x: float, **traits: Any) -> dict[str, Any]:
    return {"id": id_, "side": "A", "type": type_, "x_mm": x, "y_mm": 300.0, "heading_deg": 90.0,
            "width_mm": 40.0, "depth_mm": 20.0, "traits": traits}


def state(ruleset: str, *bases: dict[str, Any], **settings: Any) -> GameState:
    return GameState.from_dict({"ruleset": ruleset, "table": {"width_mm": 1800, "depth_mm": 1200},
                                "bases": list(bases), "settings": settings or None})


def allowance(st: GameState, base_id: str, *kinds: str) -> Allowance:
    got = st.ruleset.movement_allowance(st, base_id, list(kinds))
    assert isinstance(got, Allowance)
    assert got.unit == st.ruleset.unit
    return got


@pytest.mark.parametrize("name", ruleset_names())
def test_every_ruleset_implements_the_protocol(name: str) -> None:
    rs = get_ruleset(name)
    assert isinstance(rs, Ruleset) and callable(rs.movement_allowance)


# --- L'Italia s'è desta! (inches) -------------------------------------------------------------
ISD = state("italia-se-desta", base("inf", "B", 100), base("cav", "C", 200),
            base("col", "D", 300, formation="march_column"), base("gun", "gun", 400),
            base("div", "general", 500, rank="division"))


def test_italia_open_ground_is_the_table_row() -> None:
    a = allowance(ISD, "inf")
    assert (a.amount, a.gap) == (6.0, False) and a.cites == ("ISD §8",)
    assert "open ground: 6 in" in a.basis
    assert allowance(ISD, "cav", "open").amount == 12.0
    div = allowance(ISD, "div")
    assert div.amount == 12.0 and "ISD A23" in div.cites        # Division generals: cavalry row


def test_italia_broken_ground_caps_and_obstacles_deduct() -> None:
    wood = allowance(ISD, "inf", "wood")
    assert wood.amount == 3.0 and "ISD A21" in wood.cites and "wood: 3 in" in wood.basis
    assert allowance(ISD, "cav", "marsh").amount == 6.0
    hedge = allowance(ISD, "inf", "hedge")
    assert hedge.amount == 4.0 and "ISD A20" in hedge.cites


def test_italia_road_rate_only_in_march_column_on_road_only() -> None:
    assert allowance(ISD, "col", "road").amount == 12.0            # D infantry: 12" on road
    assert allowance(ISD, "col", "road", "wood").amount == 3.0      # left the road: capped
    assert allowance(ISD, "inf", "road").amount == 6.0             # in line: no road rate
    assert "line" in allowance(ISD, "inf", "road").basis


def test_italia_cannot_enter_is_zero_with_the_reason() -> None:
    gun = allowance(ISD, "gun", "wood")
    assert gun.amount == 0.0 and "cannot enter wood" in gun.basis and "ISD A19" in gun.cites
    right = state("italia-se-desta", base("gun", "gun", 400),
                  a19_artillery_terrain_columns="right_aligned")
    assert allowance(right, "gun", "wood").amount == 3.0           # the other A19 reading


def test_italia_unknown_kinds_do_not_change_the_move_and_are_named() -> None:
    a = allowance(ISD, "inf", "crest", "orchard")
    assert a.amount == 6.0 and "no effect on moves: crest, orchard" in a.basis


def test_italia_weather_cuts_by_the_ford_amount() -> None:
    storm = state("italia-se-desta", base("inf", "B", 100), weather="storm")
    a = allowance(storm, "inf")
    assert a.amount == 4.0 and "ISD §13" in a.cites and "storm" in a.basis


# --- Federico (cm) ---------------------------------------------------------------------------
FED = state("federico", base("inf", "infantry", 100), base("col", "infantry", 200,
                                                           formation="march_column"),
            base("light", "infantry", 300, light=True), base("ind", "infantry", 400, indians=True),
            base("cav", "cavalry", 500, weight="light"),
            base("limb", "artillery", 600, weight="light", formation="limbered"),
            base("bat", "artillery", 700, weight="light"),
            base("cmd", "commander", 800, rank="chief", ability=2))
MOVES = 'Federico "Movimenti"'


def test_federico_open_ground_rates_by_arm_and_formation() -> None:
    got = {b: allowance(FED, b).amount for b in ("inf", "col", "cav", "limb", "cmd")}
    assert got == {"inf": 9.0, "col": 12.0, "cav": 15.0, "limb": 9.0, "cmd": 18.0}
    a = allowance(FED, "inf")
    assert a.cites == (MOVES,) and not a.gap and a.basis == "infantry in line, open ground: 9 cm"


def test_federico_broken_ground_obstacles_and_streams_halve() -> None:
    rough = allowance(FED, "inf", "rough")
    assert rough.amount == 4.5 and rough.basis == "infantry in line, rough: half of 9 cm"
    assert rough.cites == (MOVES, "Federico F16")
    assert allowance(FED, "col", "hedge").amount == 6.0           # march column: half of 12
    assert allowance(FED, "cav", "stream").amount == 7.5
    assert allowance(FED, "inf", "hill").amount == 9.0            # a hill is not broken ground


def test_federico_light_infantry_and_indians_are_not_halved() -> None:
    for b in ("light", "ind"):
        a = allowance(FED, b, "rough", "hedge")
        assert a.amount == 9.0 and "not halved" in a.basis and "Federico F16" in a.cites
    assert allowance(FED, "light", "wood").amount == 9.0          # and may enter woods


def test_federico_commanders_are_halved_like_troops() -> None:
    # «il movimento si dimezza, tranne per Fanteria Leggera e Indiani»: commanders are not excepted
    a = allowance(FED, "cmd", "rough")
    assert a.amount == 9.0 and a.basis == "commander, rough: half of 18 cm"
    assert allowance(FED, "cmd", "stream").amount == 9.0


def test_federico_woods_and_villages_only_in_march_column_along_a_road() -> None:
    line = allowance(FED, "inf", "village")
    assert line.amount == 0.0 and "only in march column along a road" in line.basis
    assert allowance(FED, "col", "wood").amount == 0.0            # off the road
    assert allowance(FED, "col", "wood", "road").amount == 6.0    # on it: broken ground halves


def test_federico_settings_choose_the_reading() -> None:
    portion = state("federico", base("inf", "infantry", 100), f16_halved_move="portion_only")
    a = allowance(portion, "inf", "rough")
    assert a.amount == 9.0 and "portion_only" in a.basis
    assert allowance(portion, "inf", "hedge").amount == 4.5       # obstacles still halve
    bat = allowance(FED, "bat")
    assert bat.amount == 0.0 and bat.gap and "artillery_in_battery_move_cm" in bat.basis
    moved = state("federico", base("bat", "artillery", 100, weight="light"),
                  artillery_in_battery_move_cm=4.0)
    assert allowance(moved, "bat").amount == 4.0


# --- ATTILA (cm) -----------------------------------------------------------------------------
ATT = state("attila", base("fp", "FP", 100), base("cl", "CL", 200), base("gen", "general", 300),
            base("hurt", "general", 400, wounded=True), base("camp", "camp", 600))


def test_attila_troop_rates_are_group_settings_flagged_as_gaps() -> None:
    a = allowance(ATT, "fp")
    assert a.amount == 10.0 and a.gap and "ATT AT11" in a.cites
    assert "move_cm_fp: not in the rulebook: set for your group" in a.basis
    agreed = state("attila", base("fp", "FP", 100), move_cm_fp=8.0, at11_rates_confirmed=True)
    b = allowance(agreed, "fp")
    assert b.amount == 8.0 and b.gap and "agreed by the group" in b.basis
    assert allowance(ATT, "cl").amount == 24.0


def test_attila_generals_and_camp_are_rulebook_numbers() -> None:
    gen, hurt, camp = allowance(ATT, "gen"), allowance(ATT, "hurt"), allowance(ATT, "camp")
    assert (gen.amount, gen.gap, gen.cites) == (24.0, False, ("ATT 5.E",))
    assert (hurt.amount, hurt.cites) == (10.0, ("ATT 8.C",))
    assert (camp.amount, camp.basis, camp.cites) == (0.0, "the Camp never moves", ("ATT 8.B",))
    scaled = state("attila", base("gen", "general", 100), at18_distance_scale=0.5)
    assert allowance(scaled, "gen").amount == 12.0 and "ATT AT18" in allowance(scaled, "gen").cites


def test_attila_broken_ground_stops_the_unit_rather_than_shortening_the_move() -> None:
    rough = allowance(ATT, "fp", "rough")
    assert rough.amount == 10.0 and "stops the unit" in rough.basis
    assert {"ATT 5.B", "ATT 5.F"} <= set(rough.cites)
    wood = allowance(ATT, "cl", "wood")                            # mounted: may not enter
    assert wood.amount == 0.0 and "mounted units may not enter wood" in wood.basis
    assert allowance(ATT, "fp", "wood").amount == 10.0


def test_attila_watercourses_only_at_bridges_or_fords() -> None:
    assert allowance(ATT, "fp", "stream").amount == 0.0
    assert allowance(ATT, "fp", "stream", "bridge").amount == 10.0
    ford = allowance(ATT, "fp", "river", "ford")
    assert ford.amount == 10.0 and "ford stops the unit" in ford.basis


def test_rocket_battery_charges_and_records_at_horse_artillery_pace() -> None:
    """ISD Lists: rocket batteries are horse artillery; the charge reach and the recorder's
    allowance come from the same reading."""
    from campo.engine.rulesets.italia.charges import full_move_in
    from campo.engine.rulesets.italia.board import Board
    from campo.engine.state import GameState
    from campo.engine.scenario import parse_scenario
    from campo.engine.rulesets import get_ruleset

    scenario = parse_scenario({
        "ruleset": "italia-se-desta", "table": {"width_mm": 1200, "depth_mm": 800}, "terrain": [],
        "bases": [
            {"id": "r", "side": "A", "type": "gun", "x_mm": 300, "y_mm": 300, "heading_deg": 90,
             "width_mm": 40, "depth_mm": 40, "traits": {"arm": "artillery", "rockets": True}},
            {"id": "h", "side": "A", "type": "gun", "x_mm": 500, "y_mm": 300, "heading_deg": 90,
             "width_mm": 40, "depth_mm": 40, "traits": {"arm": "artillery", "horse": True}},
        ]})
    state = GameState(scenario)
    board = Board.of(state)
    allowance = get_ruleset("italia-se-desta").movement_allowance(state, "r", [])
    assert full_move_in(board, "r") == full_move_in(board, "h") == allowance.amount
