"""Federico's rulebook numbers live in one place (engine/rulesets/federico/units.py): the verdicts
at every range and band edge, the movement allowance and the quick reference agree with those
tables, under every reading of how a range is measured (F4) and with or without the close-call
tolerance; every terrain kind the engine knows says what it does under Federico."""

from __future__ import annotations

from typing import Any

import pytest

from campo import engine
from campo.engine.boundary import CLOSE_CALL
from campo.engine.registry import get_ruleset
from campo.engine.rulesets.federico import units
from campo.engine.rulesets.federico.settings import FedericoSettings
from campo.engine.state import GameState
from campo.engine.terrain import TERRAIN_KINDS

WEAPONS = {"musket": ("infantry", {}), "light_artillery": ("artillery", {"weight": "light"}),
           "medium_artillery": ("artillery", {"weight": "medium"}),
           "heavy_artillery": ("artillery", {"weight": "heavy"})}
DEPTH = {"infantry": 20.0, "artillery": 40.0}
READINGS = ("front_edge_to_part_in_arc", "front_edge_to_nearest_point", "centre_to_centre")


def _shot(weapon: str, reading: str, distance_mm: float, close_call_mm: float) -> dict[str, Any]:
    """The target entry of a firer shooting straight ahead at an enemy ``distance_mm`` away as
    ``reading`` measures it (front edge to the facing edge, or centre to centre)."""
    arm, traits = WEAPONS[weapon]
    y0 = 200.0
    if reading == "centre_to_centre":
        y_target = y0 + distance_mm
    else:
        y_target = y0 + DEPTH[arm] / 2 + distance_mm + 10.0   # the target is 20 mm deep
    scenario = {"ruleset": "federico", "table": {"width_mm": 1800, "depth_mm": 1200}, "turn": 2,
                "settings": {"f4_range_measure": reading, "close_call_mm": close_call_mm},
                "bases": [
                    {"id": "f", "side": "A", "type": arm, "x_mm": 900, "y_mm": y0,
                     "heading_deg": 90, "width_mm": 40, "depth_mm": DEPTH[arm], "traits": traits},
                    {"id": "t", "side": "B", "type": "infantry", "x_mm": 900, "y_mm": y_target,
                     "heading_deg": 270, "width_mm": 40, "depth_mm": 20}]}
    return engine.analyze(scenario)["bases"]["f"]["targets"][0]


@pytest.mark.parametrize("close_call_mm", [1.0, 0.0])
@pytest.mark.parametrize("reading", READINGS)
@pytest.mark.parametrize("weapon", list(WEAPONS))
def test_bands_and_ranges_end_where_the_tables_say(weapon: str, reading: str,
                                                   close_call_mm: float) -> None:
    short, long_ = (units.MM_PER_CM * cm for cm in units.RANGES_CM[weapon])
    edges = [(short, "short", True), (short + 2.0, "long", True), (long_, "long", True),
             (long_ + 2.0, None, False)]
    for distance, band, in_range in edges:
        t = _shot(weapon, reading, distance, close_call_mm)
        where = f"{weapon} {reading} at {distance} mm"
        assert (t["band"], t["in_range"], t["legal"]) == (band, in_range, in_range), where
        assert t["distance"] == pytest.approx(distance / units.MM_PER_CM, abs=1e-6), where
        assert t["dice"] == (units.DICE[weapon] if in_range else 0), where
        short_mod = [m["delta"] for m in t["modifiers"] if m["label"] == "target at short range"]
        assert short_mod == ([units.FIRE_MODIFIERS["short"].delta] if band == "short" else [])
    at_short, at_long = _shot(weapon, reading, short, close_call_mm), \
        _shot(weapon, reading, long_, close_call_mm)
    if close_call_mm:    # exactly on an edge: the measured side (inclusive), flagged
        assert at_short["close_calls"] == ["band"] and at_long["close_calls"] == ["range"]
    else:
        assert "close_calls" not in at_short and "close_calls" not in at_long


def test_within_the_tolerance_of_long_range_is_a_close_call() -> None:
    long_ = units.MM_PER_CM * units.RANGES_CM["musket"][1]
    t = _shot("musket", READINGS[0], long_ + 0.5, 1.0)
    assert (t["in_range"], t["legal"], t["close_calls"]) == (False, False, ["range"])
    assert t["reasons"] == [f"out of range: 0.1 cm beyond long range ({CLOSE_CALL})"]


def test_movement_allowance_reads_the_movement_table() -> None:
    rs = get_ruleset("federico")
    kinds = {("infantry", "line"): {}, ("infantry", "march_column"): {"formation": "march_column"},
             ("cavalry", "line"): {"weight": "light"},
             ("cavalry", "march_column"): {"weight": "light", "formation": "march_column"},
             ("artillery", "limbered"): {"weight": "light", "formation": "limbered"},
             ("artillery", "march_column"): {"weight": "light", "formation": "march_column"},
             ("commander", "line"): {}}
    bases = [{"id": f"b{k}", "side": "A", "type": arm, "x_mm": 100 + 60 * k, "y_mm": 100,
              "heading_deg": 90, "width_mm": 40, "depth_mm": 20, "traits": traits}
             for k, ((arm, _), traits) in enumerate(kinds.items())]
    state = GameState.from_dict({"ruleset": "federico", "bases": bases,
                                 "table": {"width_mm": 1800, "depth_mm": 1200}})
    for k, key in enumerate(kinds):
        assert rs.movement_allowance(state, f"b{k}", ["open"]).amount == units.MOVE_CM[key]
    assert rs.movement_allowance(state, "b0", ["marsh"]).amount == \
        units.MOVE_CM[("infantry", "line")] * units.HALVED_MOVE


def test_the_quick_reference_shows_the_tables() -> None:
    ref = {t["title"]: t for t in get_ruleset("federico").reference(FedericoSettings())}
    fire = ref["Fire ranges (cm)"]
    assert [r[1:] for r in fire["rows"]] == [[f"{s:g} cm", f"{lg:g} cm", str(units.DICE[w])]
                                             for w, (s, lg) in units.RANGES_CM.items()]
    mods = ref["Fire modifiers (each die)"]["rows"]
    assert mods == [[r.text, f"{r.delta:+d}"] for r in units.FIRE_MODIFIERS.values()]
    assert ref["Melee die modifiers"]["rows"] == [[r.text, f"{r.delta:+d}"]
                                                   for r in units.MELEE_MODIFIERS.values()]
    assert ref["Melee die results"]["rows"] == [
        ["2 or less", "the Defender is eliminated"], ["3–4", "the Defender falls back"],
        ["5–6", "the Attacker falls back"], ["7 or more", "the Attacker is eliminated"]]
    morale = ref["Army morale"]["rows"]
    assert morale[0] == ["4", "40%", "1–4"] and morale[-1] == ["1", "10%", "1"]


def test_every_terrain_kind_says_what_it_does() -> None:
    kinds = get_ruleset("federico").terrain_kinds
    assert set(kinds) == set(TERRAIN_KINDS)
    assert all(kinds.values())
    assert "blocks sight" in kinds["wood"] and "march column along a road" in kinds["wood"]
    assert "halves a move" in kinds["marsh"] and "objective" in kinds["bridge"]
    assert "favourable terrain" in kinds["stream"] and kinds["water"].startswith("no rule for it")
