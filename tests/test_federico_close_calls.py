"""Federico verdicts within the tracking's tolerance of their boundary (``close_call_mm``, 1 mm):
range, arc, contact and an attack's reach are flagged "too close to call", take the measured
side in a one-off analysis, and keep the side last shown in a live game while the measurement
stays that close (engine.boundary). Hand-derived positions: bases 40 x 20 mm, facing each other
along y; line infantry fires 18 cm and moves 9 cm."""

from __future__ import annotations

import copy
import math
from typing import Any

from campo import engine
from campo.engine.boundary import CLOSE_CALL
from campo.engine.live import LiveAnalysis


def _pair(gap_mm: float, dx: float = 0.0, **traits: Any) -> dict[str, Any]:
    """'a' (A, facing +y, front edge at y = 210) and 'b' (B, facing -y) whose front edge is
    ``gap_mm`` ahead of a's, shifted ``dx`` to the side."""
    return {"ruleset": "federico", "table": {"width_mm": 1800, "depth_mm": 1200}, "turn": 2,
            "bases": [{"id": "a", "side": "A", "type": "infantry", "x_mm": 900, "y_mm": 200,
                       "heading_deg": 90, "width_mm": 40, "depth_mm": 20, "traits": traits},
                      {"id": "b", "side": "B", "type": "infantry", "x_mm": 900 + dx,
                       "y_mm": 220 + gap_mm, "heading_deg": 270, "width_mm": 40,
                       "depth_mm": 20}]}


def _target(analysis: dict[str, Any]) -> dict[str, Any]:
    return analysis["bases"]["a"]["targets"][0]


def test_long_range_held_while_too_close_to_call() -> None:
    live = LiveAnalysis()
    live.update(_pair(170.0))                        # 17 cm: in range
    assert _target(live.latest.analysis())["in_range"]
    edge = _pair(180.5)                              # 0.5 mm beyond 18 cm
    t = _target(live.update(edge).analysis())
    assert (t["in_range"], t["band"], t["legal"], t["close_calls"]) == \
        (True, "long", True, ["range"])
    one_off = _target(engine.analyze(edge))          # no memory: the measured side, flagged
    assert (one_off["in_range"], one_off["close_calls"]) == (False, ["range"])
    assert one_off["reasons"] == [f"out of range: 0.1 cm beyond long range ({CLOSE_CALL})"]
    t = _target(live.update(_pair(183.0)).analysis())   # 3 mm beyond: clearly out
    assert (t["in_range"], "close_calls" in t) == (False, False)


def test_arc_edge() -> None:
    # a's right ray starts at its front-right corner (920, 210) at 45°; b faces along it
    # (heading 45), its left edge parallel to the ray, 40-60 mm along it, ``offset`` mm outside
    # (a negative offset: overlapping the arc by that much)
    def beside_the_ray(offset: float) -> dict[str, Any]:
        sc = _pair(0.0)
        half = math.sqrt(0.5)
        out, along = offset + 20.0, 50.0
        sc["bases"][1].update(x_mm=920 + (out + along) * half, y_mm=210 + (along - out) * half,
                              heading_deg=45)
        return sc

    outside = _target(engine.analyze(beside_the_ray(0.4)))
    assert (outside["in_arc"], outside["close_calls"]) == (False, ["arc"])
    assert outside["reasons"] == [f"not in the 45° arc of fire ({CLOSE_CALL})"]
    inside = _target(engine.analyze(beside_the_ray(-3.0)))
    assert inside["in_arc"] and "close_calls" not in inside
    assert "close_calls" not in _target(engine.analyze(beside_the_ray(3.0)))


def test_contact_within_the_tolerance() -> None:
    # contact tolerance 0.2 cm = 2 mm: a 2.5 mm gap is 0.5 mm outside it, a 1.5 mm gap inside
    assert engine.analyze(_pair(2.5))["bases"]["a"]["contacts"] == []
    touching = engine.analyze(_pair(1.5))["bases"]["a"]["contacts"]
    assert [(c["id"], c["close_calls"]) for c in touching] == [("b", ["contact"])]
    assert "close_calls" not in engine.analyze(_pair(0.0))["bases"]["a"]["contacts"][0]
    live = LiveAnalysis()
    live.update(_pair(1.0))
    held = live.update(_pair(2.5))                   # drifted 0.5 mm past: still touching
    assert held.summary["bases"]["a"]["contacts"] == {"b": "front"}
    assert live.update(_pair(4.0)).summary["bases"]["a"].get("contacts") is None


def test_reach_within_the_tolerance() -> None:
    # infantry in line moves 9 cm: an enemy front 90.5 mm ahead is 0.5 mm out of reach
    sc = _pair(90.5)
    charge = engine.analyze(sc)["bases"]["a"]["charges"][0]
    assert (charge["legal"], charge["close_calls"]) == (False, ["reach"])
    assert charge["reasons"] == [
        f"out of reach: needs 9.1 cm, may move 9.0 cm (0.1 cm short) ({CLOSE_CALL})"]
    live = LiveAnalysis()
    assert live.update(_pair(89.0)).base_analysis("a")["charges"][0]["legal"]   # shown
    snapshot = live.update(sc)
    held = snapshot.base_analysis("a")["charges"][0]
    assert (held["legal"], held["close_calls"], held["reasons"]) == (True, ["reach"], [])


def test_close_calls_off() -> None:
    sc = copy.deepcopy(_pair(180.5))
    sc["settings"] = {"close_call_mm": 0.0}
    t = _target(engine.analyze(sc))
    assert (t["in_range"], "close_calls" in t) == (False, False)
    assert t["reasons"] == ["out of range: 0.1 cm beyond long range"]
