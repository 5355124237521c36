"""ISD ambiguities A1–A51 as settings: each exists once, cites itself, defaults = digest proposal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from campo.engine.rulesets.doc_common import refresh_blocks
from campo.engine.rulesets.italia.doc_tables import GENERATORS
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.errors import CampoInputError

DIGEST = Path("/work/shared/rules/italia-se-desta.md")
DOC = Path(__file__).resolve().parents[1] / "docs" / "rulesets" / "italia-se-desta.md"


def test_every_ambiguity_has_exactly_one_field() -> None:
    numbers = [ItaliaSettings.ambiguity_number(n) for n in ItaliaSettings.model_fields]
    numbers = [n for n in numbers if n is not None]
    assert sorted(numbers) == list(range(1, 52))


@pytest.mark.parametrize("row", [r for r in ItaliaSettings.describe() if r["ambiguity"]], ids=str)
def test_ambiguity_field_cites_itself_and_a_section(row: dict) -> None:
    n = row["ambiguity"]
    assert f"ISD A{n}" in row["cites"], row["name"]
    assert any(c.startswith("ISD §") or c == "ISD ManTab" for c in row["cites"]), row["name"]


def test_every_setting_has_a_citation_and_a_default() -> None:
    from campo.engine.rulesets.settings_common import RulesetSettings

    for row in ItaliaSettings.describe():
        if row["name"] in RulesetSettings.model_fields:
            continue   # Campo's own settings (close_call_mm), not the rulebook's
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
    assert ItaliaSettings.load(None) == ItaliaSettings()
    assert ItaliaSettings.load({"weather": "snow"}).weather == "snow"
    with pytest.raises(CampoInputError) as ei:
        ItaliaSettings.load({"a1_zones": "x", "bogus": 1}, path="game.json")
    text = str(ei.value)
    assert text.startswith("game.json: a1_zones:")
    assert "bogus" in text


def test_describe_settings_shape() -> None:
    rows = ItaliaSettings.describe()
    assert [r["name"] for r in rows] == list(ItaliaSettings.model_fields)
    by_name = {r["name"]: r for r in rows}
    assert by_name["weather"]["choices"] == ["clear", "storm", "fog", "snow"]
    assert by_name["a3_rear_counts_as_flank"]["type"] == "bool"
    assert by_name["a2_beyond_front_tolerance_in"]["type"] == "number"
    assert by_name["a2_beyond_front_tolerance_in"]["choices"] is None


def test_doc_lists_every_setting_with_its_default() -> None:
    text = DOC.read_text(encoding="utf-8")
    for row in ItaliaSettings.describe():
        assert f"| `{row['name']}` |" in text, f"{row['name']} missing from {DOC}"


def test_doc_generated_tables_are_current() -> None:
    """The doc's settings, movement and army-list tables equal what the data generates now."""
    text = DOC.read_text(encoding="utf-8")
    assert refresh_blocks(text, GENERATORS) == text, (
        "docs/rulesets/italia-se-desta.md is stale: run "
        "`.venv/bin/python -m campo.engine.rulesets.italia.doc_tables docs/rulesets/italia-se-desta.md`"
    )


def test_doc_refresh_rejects_a_doc_without_blocks() -> None:
    with pytest.raises(ValueError, match="generated:settings"):
        refresh_blocks("# no blocks here\n", GENERATORS)


def test_a39_enemy_only_ignores_the_edge_and_the_water() -> None:
    """tests/data/engine/italia/router_gap.json under the other reading of ISD A39: the table
    edge and the water no longer narrow the way, so r1 and r3 squeeze through."""
    import json
    from pathlib import Path

    from campo import engine

    golden = json.loads((Path(__file__).parent / "data" / "engine" / "italia" / "router_gap.json").read_text())
    scenario = {**golden["scenario"], "settings": {"a39_router_gap": "enemy_only"}}
    bases = engine.analyze(scenario)["bases"]
    assert [bases[r]["retreat"]["rout_captured"] for r in ("r1", "r2", "r3")] == [False, False, False]


def _retreat_and_pursuit(settings: dict) -> dict:
    """A (east-facing, at 500, 400), B facing it at an angle: touching A's front, 40 mm of it."""
    from campo import engine

    return engine.analyze({
        "ruleset": "italia-se-desta", "table": {"width_mm": 1200, "depth_mm": 800}, "settings": settings,
        "bases": [{"id": "a", "side": "A", "type": "B", "x_mm": 500, "y_mm": 400, "heading_deg": 90,
                   "width_mm": 80, "depth_mm": 40, "traits": {}},
                  {"id": "b", "side": "B", "type": "B", "x_mm": 540, "y_mm": 440, "heading_deg": 270,
                   "width_mm": 80, "depth_mm": 40, "traits": {}},
                  {"id": "c", "side": "B", "type": "B", "x_mm": 1000, "y_mm": 400, "heading_deg": 0,
                   "width_mm": 80, "depth_mm": 40, "traits": {}}]})["bases"]


def test_a38_falling_back_toward_the_own_edge() -> None:
    """ISD A38: straight back keeping facing (default) or toward the side's own table edge
    (A: y = 0, B: y = depth), keeping facing. c faces east: straight back is west (180°)."""
    plain = _retreat_and_pursuit({})["c"]["retreat"]
    assert plain["direction_deg"] == 180.0 and plain["fall_back"][1] == [925.0, 400.0]
    edge = _retreat_and_pursuit({"a38_fall_back_direction": "toward_own_edge"})
    assert edge["c"]["retreat"]["direction_deg"] == 90.0
    assert edge["c"]["retreat"]["fall_back"][1] == [1000.0, 475.0]
    assert edge["a"]["retreat"]["fall_back"][1] == [500.0, 325.0]
    assert edge["a"]["retreat"]["rout"][1] == [500.0, 250.0]      # 6" = 150 mm toward y = 0


def test_a40_pursuit_toward_the_enemy() -> None:
    """ISD A40: straight ahead 3" (default), or toward the enemy on the front: b's centre is
    40 mm right and 40 mm ahead of a's, so a pursues at 45°: 75 mm / sqrt(2) each way."""
    assert _retreat_and_pursuit({})["a"]["pursuit"]["path"][1] == [500.0, 475.0]
    toward = _retreat_and_pursuit({"a40_pursuit_direction": "toward_enemy"})["a"]["pursuit"]
    assert toward["path"][1] == [553.0, 453.0]


def test_a30_no_flush_pivot() -> None:
    import json

    from campo import engine

    golden = json.loads((Path(__file__).parent / "data" / "engine" / "italia" / "charges.json").read_text())
    flushes = [c for b in engine.analyze(golden["scenario"])["bases"].values() for c in b["charges"]
               if "flush_pose" in c]
    assert flushes   # some charge in the catalogue closes flush after contact
    off = {**golden["scenario"], "settings": {"a30_close_flush_after_contact": False}}
    assert not [c for b in engine.analyze(off)["bases"].values() for c in b["charges"] if "flush_pose" in c]
