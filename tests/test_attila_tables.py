"""ATTILA's rulebook numbers live in one place (`engine/rulesets/attila/tables.py`): the verdicts,
the quick reference and the terrain editor read them, and agree at every band and range edge
under every reading of the bands (ATT 6.A, ATT T; AT6, AT18)."""

from __future__ import annotations

from typing import Any

import pytest

from campo.engine.registry import get_ruleset
from campo.engine.rulesets.attila import tables
from campo.engine.rulesets.attila.reference import band_range, reference
from campo.engine.rulesets.attila.settings import AttilaSettings
from campo.engine.rulesets.attila.shooting import band_table
from campo.engine.state import GameState
from campo.engine.terrain import TERRAIN_KINDS

ATTILA = get_ruleset("attila")


def _target(gap_mm: float, weapon: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The one target of a shooter at (900, 400) facing +y (front edge y = 410) whose facing
    enemy's front edge is ``gap_mm`` straight ahead."""
    bases = [{"id": "s", "side": "A", "type": "FL", "x_mm": 900, "y_mm": 400, "heading_deg": 90,
              "width_mm": 40, "depth_mm": 20, "traits": {"missile": weapon}},
             {"id": "t", "side": "B", "type": "FL", "x_mm": 900, "y_mm": 420 + gap_mm,
              "heading_deg": 270, "width_mm": 40, "depth_mm": 20}]
    state = GameState.from_dict({"ruleset": "attila", "settings": settings,
                                 "table": {"width_mm": 1800, "depth_mm": 1200}, "bases": bases})
    (found,) = state.analyze()["bases"]["s"]["targets"]
    return found


def _oracle(d_cm: float, max_cm: float, edges: str, k: float) -> str | None:
    """The band the rulebook gives, written out plainly (ATT 6.A; ATT T for 'summary_table')."""
    if d_cm > max_cm:
        return None
    if d_cm < 5 * k:
        return "short"
    if edges == "chapter_6":
        return "medium" if d_cm <= 10 * k else "long"
    return "medium" if d_cm < 11 * k else "long"


READINGS = [{"at6_band_edges": edges, "at18_distance_scale": k}
            for edges in ("chapter_6", "summary_table") for k in (1.0, 0.5)]


@pytest.mark.parametrize("settings", READINGS, ids=lambda s: f"{s['at6_band_edges']}-x{s['at18_distance_scale']}")
@pytest.mark.parametrize("weapon", list(tables.MAX_RANGE_CM))
def test_verdicts_and_tables_agree_at_every_edge(weapon: str, settings: dict[str, Any]) -> None:
    s = AttilaSettings.load(settings)
    max_cm = tables.MAX_RANGE_CM[weapon] * s.at18_distance_scale
    rows = band_table(s, max_cm)
    edges = sorted({r.lower for r in rows} | {r.upper for r in rows} | {max_cm})
    for edge in edges:
        for delta_mm in (-2.0, 0.0, 2.0):         # beyond the 1 mm close call either way
            d_cm = edge + delta_mm / 10
            if d_cm <= 0:
                continue
            found = _target(d_cm * 10, weapon, settings)
            assert found["distance"] == pytest.approx(d_cm, abs=1e-6)
            want = _oracle(d_cm, max_cm, s.at6_band_edges, s.at18_distance_scale)
            assert want == next((r.band.value for r in rows if r.holds(d_cm)), None)
            in_range = d_cm <= max_cm
            assert found["in_range"] is in_range, (edge, delta_mm)
            assert found["band"] == want, (edge, delta_mm)
            assert (found["band"] is None) == (not found["in_range"])   # never in range unbanded
            assert found["legal"] is in_range
            if found["legal"]:
                assert found["score_needed"] == tables.SCORE_NEEDED[want]
                assert found["die"] == tables.SHOOTING_DIE[weapon]


def test_a_target_exactly_at_the_maximum_is_in_range_in_the_last_band_and_a_close_call() -> None:
    found = _target(50.0, "javelins", {})                  # 5 cm: javelins' maximum (ATT T)
    assert found["in_range"] and found["legal"] and found["band"] == "medium"
    assert found["close_calls"] == ["range"]
    beyond = _target(50.5, "javelins", {})                 # 0.5 mm beyond: out, too close to call
    assert not beyond["in_range"] and beyond["band"] is None and beyond["close_calls"] == ["range"]
    assert any(r.endswith("(too close to call: measure)") for r in beyond["reasons"])


@pytest.mark.parametrize("settings", READINGS, ids=lambda s: f"{s['at6_band_edges']}-x{s['at18_distance_scale']}")
def test_the_reference_shows_the_bands_the_verdicts_use(settings: dict[str, Any]) -> None:
    s = AttilaSettings.load(settings)
    shown = next(t for t in reference(s) if t["title"] == "Shooting bands")
    rows = band_table(s, max(tables.MAX_RANGE_CM.values()) * s.at18_distance_scale)
    assert [r[0] for r in shown["rows"]] == [r.band.value for r in rows]
    assert [r[1] for r in shown["rows"]] == [band_range(r) for r in rows]
    assert [r[2] for r in shown["rows"]] == [f"{tables.SCORE_NEEDED[r.band.value]}+" for r in rows]
    weapons = next(t for t in reference(s) if t["title"] == "Missile weapons")
    assert [r[2] for r in weapons["rows"]] == [
        f"{cm * s.at18_distance_scale:g} cm" for cm in tables.MAX_RANGE_CM.values()]


def test_band_ranges_read_as_the_rulebook_writes_them() -> None:
    chapter, summary = (band_table(AttilaSettings.load({"at6_band_edges": e}), 15.0)
                        for e in ("chapter_6", "summary_table"))
    assert [band_range(r) for r in chapter] == ["< 5 cm", "5–10 cm (inclusive)",
                                                "over 10 cm, up to 15 cm"]     # ATT 6.A
    assert [band_range(r) for r in summary] == ["< 5 cm", "from 5 to under 11 cm",
                                                "11–15 cm (inclusive)"]       # ATT T
    # the maximum cuts the bands a shorter weapon never reaches: javelins have no long band
    assert [r.band.value for r in band_table(AttilaSettings.load({}), 5.0)] == ["short", "medium"]


def test_control_point_costs_in_the_reference_are_the_table() -> None:
    costs = next(t for t in reference(AttilaSettings.load({})) if t["title"].startswith("Control"))
    assert [r[1:] for r in costs["rows"]] == [
        [str(tables.PC_COST[(False, False)]), str(tables.PC_COST[(True, False)])],
        [str(tables.PC_COST[(False, True)]), str(tables.PC_COST[(True, True)])]]


def test_every_terrain_kind_says_what_it_does() -> None:
    assert set(ATTILA.terrain_kinds) == set(TERRAIN_KINDS)
    kinds = ATTILA.terrain_kinds
    for kind in tables.WOODS | tables.MARSHES:
        assert "only infantry and Generals enter" in kinds[kind]
    for kind in tables.WATER_LINES:
        assert "only at bridges or fords" in kinds[kind]
    for kind in tables.DEFENCES | tables.DEFENDED_AREAS:
        assert "saved on 4-6" in kinds[kind]
    assert "stops the unit" in kinds["ford"] and "column" in kinds["road"]
    assert kinds["crest"].endswith("no rule of ATTILA names it")
