"""Federico oblique attacks (setting ``oblique_attack_max_deg``; Federico F15, F18): off by
default (F15's proposal: straight ahead and wheels only), the limit respected, the reason when no
path exists, the overlay's path, and the hand-derived golden case through `campo analyze`.
The expected numbers are derived in tests/data/engine/federico/oblique_attacks.json."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from campo import engine
from campo.errors import CampoInputError
from tests.engine_golden import analyze_through_cli, check_expectations, load_golden

GOLDEN = Path(__file__).parent / "data" / "engine" / "federico" / "oblique_attacks.json"


def _scenario(limit: float | None) -> dict[str, Any]:
    sc = copy.deepcopy(load_golden(GOLDEN)["scenario"])
    sc.pop("settings", None)
    if limit is not None:
        sc["settings"] = {"oblique_attack_max_deg": limit}
    return sc


def _charge(analysis: dict[str, Any], attacker: str, target: str) -> dict[str, Any]:
    return next(c for c in analysis["bases"][attacker]["charges"] if c["target"] == target)


def test_off_by_default_the_wheel_is_the_only_way() -> None:
    c = _charge(engine.analyze(_scenario(None)), "a-right", "t-right")
    # wheel right 38.66 deg on the front-right corner (40 mm x 0.6747 rad) + 64.03 mm = 9.10 cm
    assert (c["legal"], c["distance"], c["wheel_deg"]) == (False, 9.1, -38.7)
    assert c["reasons"] == ["out of reach: needs 9.1 cm, may move 9.0 cm (0.1 cm short)"]
    assert "oblique_deg" not in c


def test_beyond_the_limit_no_oblique() -> None:
    # the nearest point is 38.66 deg off; at 30 deg the front slides 50 x tan 30 = 28.9 mm
    # sideways, never reaching t-right's front (40 mm aside): only the wheel remains
    c = _charge(engine.analyze(_scenario(30)), "a-right", "t-right")
    assert (c["legal"], c["distance"], c["wheel_deg"], c["oblique_deg"]) == (False, 9.1, -38.7, 0.0)


def test_within_the_limit_the_oblique_slide_is_legal() -> None:
    c = _charge(engine.analyze(_scenario(40)), "a-right", "t-right")
    assert (c["legal"], c["distance"], c["wheel_deg"], c["oblique_deg"]) == (True, 6.4, 0.0, -38.7)


def test_no_path_reason_names_the_oblique_moves() -> None:
    sc = _scenario(45)
    # an enemy straight behind a-right: no wheel (<= 90 deg) and no oblique slide reaches it
    sc["bases"].append({"id": "t-behind", "side": "B", "type": "infantry", "x_mm": 300,
                        "y_mm": 150, "heading_deg": 90, "width_mm": 40, "depth_mm": 20,
                        "traits": {"regiment": "B9"}})
    c = _charge(engine.analyze(sc), "a-right", "t-behind")
    assert (c["legal"], c["oblique_deg"], c["path"]) == (False, 0.0, [])
    assert c["reasons"] == ["a-right cannot bring its front into contact with t-behind moving "
                            "straight ahead, obliquely (up to 45°) or after one wheel"]


def test_overlay_draws_the_oblique_path() -> None:
    shapes = engine.overlay_geometry(_scenario(45), "a-right")
    assert shapes["charges"] == [{"target": "t-right", "legal": True,
                                  "path": [[300.0, 210.0], [340.0, 260.0]]}]


def test_bad_limit_names_the_key() -> None:
    sc = _scenario(None)
    sc["settings"] = {"oblique_attack_max_deg": -5}
    with pytest.raises(CampoInputError, match="oblique_attack_max_deg"):
        engine.analyze(sc)


def test_hand_derived_case_through_the_cli(run_campo, tmp_path: Path) -> None:
    golden = load_golden(GOLDEN)
    result = analyze_through_cli(run_campo, tmp_path / "oblique.json", golden["scenario"])
    check_expectations(result, golden["expect"])
