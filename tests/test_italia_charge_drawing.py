"""What the overlay draws of a charge: where an interception stops it (ISD §9, A29) and the
charger closed flush against the edge it struck (ISD A30). Hand-derived cases."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from campo import engine
from campo.engine.geometry.rect import Rect

GOLDEN = Path(__file__).parent / "data" / "engine" / "italia" / "charges.json"


def _charge(analysis: dict[str, Any], charger: str, target: str) -> dict[str, Any]:
    return next(c for c in analysis["bases"][charger]["charges"] if c["target"] == target)


def test_interception_stops_at_the_edge_of_the_first_zone() -> None:
    """c5 (cavalry, 80 mm wide, front centre at (900, 715)) charges t5 straight ahead; i5's
    rectangle spans x 970–1050, y 830–870, so its 2" (50 mm) zone's rounded corner about
    (970, 830) meets the charger's right side (x = 940) where (940 − 970)² + (y − 830)² = 50²,
    y = 790: the front centre stops at (900, 790) (GEOS's 8-segment quarter circle lies just
    inside the circle: 0.2 mm later)."""
    scenario = json.loads(GOLDEN.read_text())["scenario"]
    c = _charge(engine.analyze(scenario), "c5", "t5")
    assert c["intercepted_by"] == "i5" and not c["legal"]
    assert c["intercepted_at"][0] == pytest.approx(900.0, abs=0.05)
    assert c["intercepted_at"][1] == pytest.approx(790.0, abs=0.5)
    drawn = engine.overlay_geometry(scenario, "c5")
    assert next(d for d in drawn["charges"] if d["target"] == "t5")["intercepted_at"] == \
        c["intercepted_at"]
    assert "intercepted_at" not in _charge(engine.analyze(scenario), "c1", "t1")


def _tilted(heading: float) -> dict[str, Any]:
    return {"ruleset": "italia-se-desta", "table": {"width_mm": 1000, "depth_mm": 800},
            "settings": {"a28_charge_path": "straight_distance"},
            "bases": [
                {"id": "cav", "side": "A", "type": "C", "x_mm": 500, "y_mm": 200,
                 "heading_deg": heading, "width_mm": 80, "depth_mm": 30, "traits": {}},
                {"id": "inf", "side": "B", "type": "B", "x_mm": 500, "y_mm": 400,
                 "heading_deg": 270, "width_mm": 80, "depth_mm": 40, "traits": {}}]}


@pytest.mark.parametrize("heading", [80.0, 97.0])
def test_charger_closes_flush_on_the_corner_that_touched(heading: float) -> None:
    """A charger turned off square (80° or 97°, the target's front edge is y = 380 facing
    south) first touches with one front corner; pivoting on that corner it closes flush: heading
    90° and both front corners on y = 380, the touching corner where it was."""
    scenario = _tilted(heading)
    c = _charge(engine.analyze(scenario), "cav", "inf")
    assert c["legal"] and c["contact_aspect"] == "front"
    final = Rect(c["final_pose"]["x_mm"], c["final_pose"]["y_mm"],
                 c["final_pose"]["heading_deg"], 80, 30)
    flush = Rect(c["flush_pose"]["x_mm"], c["flush_pose"]["y_mm"],
                 c["flush_pose"]["heading_deg"], 80, 30)
    assert flush.heading_deg == pytest.approx(90.0, abs=0.1)
    for x, y in (flush.front_left, flush.front_right):
        assert y == pytest.approx(380.0, abs=0.2)
    touching = max((final.front_left, final.front_right), key=lambda p: p[1])
    assert touching[1] == pytest.approx(380.0, abs=0.2)
    assert min(math.dist(touching, p) for p in (flush.front_left, flush.front_right)) < 0.3
    outline = next(d for d in engine.overlay_geometry(scenario, "cav")["charges"]
                   if d["target"] == "inf")["contact_outline"]
    assert {round(y, 1) for _, y in outline} == {350.0, 380.0}


def test_square_contact_needs_no_pivot() -> None:
    c = _charge(engine.analyze(_tilted(90.0)), "cav", "inf")
    assert c["legal"] and "flush_pose" not in c
