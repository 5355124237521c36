"""ISD ambiguities A1–A51 as settings: each exists once, cites itself, defaults = digest proposal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from engine.rulesets.italia.doc_tables import refresh
from engine.rulesets.italia.settings import (
    ItaliaSettings,
    ambiguity_number,
    describe_settings,
    load_settings,
)
from vision.errors import CampoInputError

DIGEST = Path("/work/shared/rules/italia-se-desta.md")
DOC = Path(__file__).resolve().parents[1] / "docs" / "rulesets" / "italia-se-desta.md"


def test_every_ambiguity_has_exactly_one_field() -> None:
    numbers = [ambiguity_number(n) for n in ItaliaSettings.model_fields]
    numbers = [n for n in numbers if n is not None]
    assert sorted(numbers) == list(range(1, 52))


@pytest.mark.parametrize("row", [r for r in describe_settings() if r["ambiguity"]], ids=str)
def test_ambiguity_field_cites_itself_and_a_section(row: dict) -> None:
    n = row["ambiguity"]
    assert f"ISD A{n}" in row["cites"], row["name"]
    assert any(c.startswith("ISD §") or c == "ISD ManTab" for c in row["cites"]), row["name"]


def test_every_setting_has_a_citation_and_a_default() -> None:
    for row in describe_settings():
        assert row["cites"], row["name"]
        assert row["default"] is not None, row["name"]
        if row["choices"] is not None:
            assert row["default"] in row["choices"], row["name"]


@pytest.mark.skipif(not DIGEST.exists(), reason="shared digest not present")
def test_digest_lists_exactly_51_ambiguities() -> None:
    items = re.findall(r"^- \*\*A(\d+)\.", DIGEST.read_text(encoding="utf-8"), flags=re.M)
    assert [int(i) for i in items] == list(range(1, 52))


def test_defaults_are_the_digest_proposals() -> None:
    s = ItaliaSettings()
    # Hand-checked against the digest's "Proposed:" sentences.
    assert s.a2_beyond_front_tolerance_in == 0.1  # "e.g. 0.1\""
    assert s.a3_rear_counts_as_flank is True
    assert s.a4_arc_origin == "front_corners"
    assert s.a5_in_arc_test == "any_part"
    assert s.a7_band_edges == "upper_inclusive"
    assert s.a8_nearest_target == "nearest_legal_target"
    assert s.equal_distance_tolerance_in == 0.25  # A8 "e.g. 0.25\""
    assert s.a11_split_fire_artillery_share == 0.5
    assert s.a17_cavalry_blocks_sight is True
    assert s.a18_artillery_corridor_in == 1.0
    assert s.a19_artillery_terrain_columns == "merged_cells"
    assert s.a24_contact_tolerance_in == 0.1
    assert s.support_heading_tolerance_deg == 5.0
    assert s.a25_cavalry_charge_distance_in == 12.0
    assert s.a32_cavalry_flank_minus2 == "note3_half_move"
    assert s.a35_area_protection == "soft_1_hard_2"
    assert s.a36_general_melee_bonus == "flat_plus_1"
    assert s.a37_cavalry_classes == "three_classes"
    assert s.a43_off_table_value == "half"
    assert s.a46_reduced_ammunition == "no_fire_until_rested"
    assert s.a51_low_artillery_rolls == "natural_double_1_only"
    assert s.weather == "clear" and s.twilight is False


def test_model_is_strict_and_frozen() -> None:
    with pytest.raises(ValidationError):
        ItaliaSettings(a1_zonez="front_halfplane")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        ItaliaSettings(a7_band_edges="sometimes")  # type: ignore[arg-type]
    s = ItaliaSettings()
    with pytest.raises(ValidationError):
        s.weather = "snow"  # type: ignore[misc]


def test_load_settings_names_file_and_every_bad_key() -> None:
    assert load_settings(None) == ItaliaSettings()
    assert load_settings({"weather": "snow"}).weather == "snow"
    with pytest.raises(CampoInputError) as ei:
        load_settings({"a1_zones": "x", "bogus": 1}, path="game.json")
    text = str(ei.value)
    assert text.startswith("game.json: a1_zones:")
    assert "bogus" in text


def test_describe_settings_shape() -> None:
    rows = describe_settings()
    assert [r["name"] for r in rows] == list(ItaliaSettings.model_fields)
    by_name = {r["name"]: r for r in rows}
    assert by_name["weather"]["choices"] == ["clear", "storm", "fog", "snow"]
    assert by_name["a3_rear_counts_as_flank"]["type"] == "bool"
    assert by_name["a2_beyond_front_tolerance_in"]["type"] == "number"
    assert by_name["a2_beyond_front_tolerance_in"]["choices"] is None


def test_doc_lists_every_setting_with_its_default() -> None:
    text = DOC.read_text(encoding="utf-8")
    for row in describe_settings():
        assert f"| `{row['name']}` |" in text, f"{row['name']} missing from {DOC}"


def test_doc_generated_tables_are_current() -> None:
    """The doc's settings, movement and army-list tables equal what the data generates now."""
    text = DOC.read_text(encoding="utf-8")
    assert refresh(text) == text, (
        "docs/rulesets/italia-se-desta.md is stale: run "
        "`.venv/bin/python -m engine.rulesets.italia.doc_tables docs/rulesets/italia-se-desta.md`"
    )


def test_doc_refresh_rejects_a_doc_without_blocks() -> None:
    with pytest.raises(ValueError, match="generated:settings"):
        refresh("# no blocks here\n")
