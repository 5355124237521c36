"""Federico ambiguities F1–F27 as settings: each exists once, cites itself and a heading, defaults
= the digest's proposal; what the rulebook lacks is a setting that says so; the docs table is
current."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from campo import engine
from campo.engine.rulesets.doc_common import refresh_blocks
from campo.engine.rulesets.federico.doc_tables import GENERATORS
from campo.engine.rulesets.federico.settings import GAP_PREFIX, FedericoSettings
from campo.errors import CampoInputError

DIGEST = Path("/work/shared/rules/federico.md")
DOC = Path(__file__).resolve().parents[1] / "docs" / "rulesets" / "federico.md"


def test_every_ambiguity_has_exactly_one_field() -> None:
    numbers = [n for n in map(FedericoSettings.ambiguity_number, FedericoSettings.model_fields) if n is not None]
    assert sorted(numbers) == list(range(1, 28))


@pytest.mark.skipif(not DIGEST.exists(), reason="shared digest not present")
def test_digest_lists_exactly_27_ambiguities() -> None:
    items = re.findall(r"^- \*\*F(\d+)\.", DIGEST.read_text(encoding="utf-8"), flags=re.M)
    assert [int(i) for i in items] == list(range(1, 28))


@pytest.mark.parametrize("row", [r for r in FedericoSettings.describe() if r["ambiguity"]],
                         ids=lambda r: r["name"])
def test_ambiguity_field_cites_itself_and_a_heading(row: dict) -> None:
    assert f"Federico F{row['ambiguity']}" in row["cites"], row["name"]
    assert any(c.startswith('Federico "') for c in row["cites"]), row["name"]


def test_every_other_setting_is_a_gap_with_a_citation() -> None:
    from campo.engine.rulesets.settings_common import RulesetSettings

    for row in FedericoSettings.describe():
        if row["name"] in RulesetSettings.model_fields:
            continue   # Campo's own settings (close_call_mm), not the rulebook's
        assert row["cites"], row["name"]
        if row["ambiguity"] is None:
            assert row["gap"] and row["description"].startswith(GAP_PREFIX), row["name"]
        if row["choices"] is not None:
            assert row["default"] in row["choices"], row["name"]


def test_base_sizes_and_line_of_sight_are_shown_as_gaps() -> None:
    for name in ("f5_line_of_sight", "f14_base_sizes", "base_size_infantry_mm",
                 "base_size_cavalry_mm", "base_size_artillery_mm", "sight_blocking_areas"):
        assert FedericoSettings.is_gap(name), name
    assert not FedericoSettings.is_gap("f2_arc_half_angle_deg")


def test_defaults_are_the_digest_proposals() -> None:
    s = FedericoSettings()
    # Hand-checked against the digest's "Proposed:" sentences.
    assert s.f1_zones == "front_halfplane"
    assert s.f2_arc_half_angle_deg == 45.0           # "45° each side"
    assert s.f3_artillery_arc == "as_infantry"
    assert s.f4_range_measure == "front_edge_to_part_in_arc"
    assert s.f5_line_of_sight == "any_line"
    assert s.f6_target_choice == "free_choice"
    assert s.f7_cover_count == "once" and s.cover_area_share == 0.5   # "at least half inside"
    assert s.f8_enfilade == "whole_front_beyond"
    assert s.f9_mounted == "cavalry_only"
    assert s.f10_low_result_compares == "firer_class"
    assert s.f11_class_drops == "one_per_phase"
    assert s.f12_target_unit == "regiment"
    assert s.f15_wheels == "wheel_outer_corner"
    assert s.f16_halved_move == "whole_move"
    assert s.f18_attack_reach == "front_contact_within_move"
    assert s.f19_flank_attack == "centre_beyond_and_side_edge"
    assert s.f20_outnumbering == "contact_plus_adjacent"
    assert s.f21_melee_dice == "per_base_in_contact"
    assert s.f22_fall_back == "away_from_contacted_edge"
    assert s.f23_melee_repeats == "while_in_contact"
    assert s.f24_loss_percent_per_capacity == 10.0   # "Command Capacity x 10%"
    assert s.f25_further_losses == "any_base_eliminated"
    assert s.f26_initiative_ties == "roll_again"


def test_model_is_strict_and_frozen() -> None:
    with pytest.raises(ValidationError):
        FedericoSettings(f1_zonez="front_halfplane")  # type: ignore[call-arg]
    s = FedericoSettings()
    with pytest.raises(ValidationError):
        s.f2_arc_half_angle_deg = 10.0  # type: ignore[misc]


def test_bad_setting_names_the_key() -> None:
    with pytest.raises(CampoInputError) as err:
        FedericoSettings.load({"f2_arc_half_angle_deg": 95})
    assert err.value.key == "f2_arc_half_angle_deg"
    with pytest.raises(CampoInputError, match="f99_nothing"):
        engine.analyze({"ruleset": "federico", "table": {"width_mm": 100, "depth_mm": 100},
                        "settings": {"f99_nothing": 1}})


def test_lists_and_sizes_load_from_json_values() -> None:
    s = FedericoSettings.load({"sight_blocking_areas": ["wood"], "base_size_infantry_mm": [60, 30]})
    assert s.sight_blocking_areas == ("wood",) and s.base_size_infantry_mm == (60.0, 30.0)


def test_docs_settings_table_is_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert refresh_blocks(text, GENERATORS) == text, \
        "run: python -m campo.engine.rulesets.federico.doc_tables docs/rulesets/federico.md"
