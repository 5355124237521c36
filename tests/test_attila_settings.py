"""ATTILA ambiguities AT1-AT34 as settings: each exists once, cites itself, defaults = the digest's
proposals; what the rulebook lacks is labelled 'not in the rulebook: set for your group'."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from campo.engine.rulesets.attila.settings import GAP_PREFIX, AttilaSettings
from campo.errors import CampoInputError

DIGEST = Path("/work/shared/rules/attila.md")
DOC = Path(__file__).resolve().parents[1] / "docs" / "rulesets" / "attila.md"


def test_every_ambiguity_has_exactly_one_field() -> None:
    numbers = [n for n in map(AttilaSettings.ambiguity_number, AttilaSettings.model_fields) if n is not None]
    assert sorted(numbers) == list(range(1, 35))


@pytest.mark.parametrize("row", [r for r in AttilaSettings.describe() if r["ambiguity"]],
                         ids=lambda r: r["name"])
def test_ambiguity_field_cites_itself_and_a_rule(row: dict) -> None:
    assert f"ATT AT{row['ambiguity']}" in row["cites"], row["name"]
    assert any(re.fullmatch(r"ATT (\d+\.[A-Z]|\d+|T|OB)", c) for c in row["cites"]), row["name"]


def test_every_setting_cites_and_has_a_valid_default() -> None:
    from campo.engine.rulesets.settings_common import RulesetSettings

    for row in AttilaSettings.describe():
        if row["name"] in RulesetSettings.model_fields:
            continue   # Campo's own settings (close_call_mm), not the rulebook's
        assert row["cites"], row["name"]
        if row["choices"] is not None:
            assert row["default"] in row["choices"], row["name"]


@pytest.mark.skipif(not DIGEST.exists(), reason="shared digest not present")
def test_digest_lists_exactly_34_ambiguities() -> None:
    items = re.findall(r"^- \*\*AT(\d+)\.", DIGEST.read_text(encoding="utf-8"), flags=re.M)
    assert [int(i) for i in items] == list(range(1, 35))


def test_gaps_are_labelled_for_the_players() -> None:
    gaps = {r["name"] for r in AttilaSettings.describe() if r["gap"]}
    for t in ("fp", "flp", "si", "fl", "cp", "cl", "chariot_light", "chariot_heavy"):
        assert f"move_cm_{t}" in gaps
        assert f"melee_die_{t}" in gaps
    for name in gaps:
        assert AttilaSettings.model_fields[name].description.startswith(GAP_PREFIX)
    # Values the text gives are not labelled as gaps.
    assert not {"at6_band_edges", "figure_scale", "at25_general_killed_from"} & gaps


def test_defaults_are_the_digest_proposals() -> None:
    s = AttilaSettings()
    assert s.at1_contact_side == "longest_shared_segment"
    assert s.at2_contact_tolerance_mm == 2.0          # "e.g. 2 mm"
    assert s.at3_flank_attack == "two_sides"          # "keep the literal rule"
    assert s.at4_arc_origin == "front_corners"
    assert s.at6_band_edges == "chapter_6"
    assert s.at8_wood_edge_cm == 1.0                  # "e.g. 1 cm"
    assert s.at9_saves == "one_save" and s.heavy_types == ("FP", "CP", "chariot_heavy")
    assert s.group_heading_tolerance_deg == 5.0       # AT12 "within e.g. 5°"
    assert s.at13_group_composition == "light_heavy"
    assert s.at15_wheel_limit == "half_normal_move"
    assert s.at18_distance_scale == 1.0
    assert s.at20_winner_advance_cm == 5.0
    assert s.at22_disorder_ladder == ("d12", "d10", "d8", "d6", "d4", "d4-1")
    assert s.at25_general_killed_from == 6
    assert s.at27_skirmishers_close_order is False
    assert s.at28_deck == "eight_as_listed"
    assert s.at29_loss_counting == "general_and_camp_five"
    assert s.at30_break_point_rounding == "round_up"
    assert s.at32_deploy_inside == "whole_base"
    assert s.at33_terrain_placement == "inside_or_touching"


def test_bad_setting_names_the_key() -> None:
    with pytest.raises(CampoInputError) as err:
        AttilaSettings.load({"move_cm_fp": -3})
    assert "settings.move_cm_fp" in str(err.value)
    with pytest.raises(CampoInputError) as err:
        AttilaSettings.load({"at3_flank": "two_sides"})
    assert "at3_flank" in str(err.value)


def test_overrides_apply() -> None:
    s = AttilaSettings.load({"move_cm_cp": 30, "at3_flank_attack": "any_flank_or_rear"})
    assert s.move_cm_cp == 30.0 and s.at3_flank_attack == "any_flank_or_rear"


@pytest.mark.skipif(not DOC.exists(), reason="players' doc not written yet")
def test_players_doc_lists_every_setting() -> None:
    text = DOC.read_text(encoding="utf-8")
    for row in AttilaSettings.describe():
        assert f"`{row['name']}`" in text, row["name"]
