"""A small ATTILA battle the server analyses while it starts (`Ruleset.warmup_scenario`): three
groups, a General and a Camp a side, a wood, a hill with its crest and a town. Its first
analysis pays the imports and first-call costs before the first real frame."""

from __future__ import annotations

from typing import Any


def _base(id_: str, side: str, type_: str, x: float, y: float, heading: float, width: float,
          depth: float, **traits: Any) -> dict[str, Any]:
    return {"id": id_, "side": side, "type": type_, "x_mm": x, "y_mm": y,
            "heading_deg": heading, "width_mm": width, "depth_mm": depth, "traits": traits}


def _attila_side(side: str, y: float, heading: float) -> list[dict[str, Any]]:
    """A group of heavy foot, one of archers, one of light horse, a General and a Camp."""
    back = -1.0 if heading == 90.0 else 1.0
    bases = [_base(f"{side}-fp{k}", side, "FP", 140.0 + 40.0 * k, y, heading, 40, 20,
                   group=f"{side}g1") for k in range(3)]
    bases += [_base(f"{side}-fl{k}", side, "FL", 300.0 + 40.0 * k, y - 30.0 * back, heading, 40,
                    20, group=f"{side}g2", missile="bows") for k in range(2)]
    bases += [_base(f"{side}-cl{k}", side, "CL", 420.0 + 40.0 * k, y, heading, 40, 30,
                    group=f"{side}g3", missile="javelins") for k in range(2)]
    bases.append(_base(f"{side}-gen", side, "general", 260.0, y + 120.0 * back, heading, 40, 40))
    bases.append(_base(f"{side}-camp", side, "camp", 200.0, y + 180.0 * back, heading, 80, 60))
    return bases


_TERRAIN = [
    {"id": "wood", "kind": "wood", "polygon_mm": [[120, 270], [230, 262], [240, 320], [130, 330]]},
    {"id": "hill", "kind": "hill", "polygon_mm": [[330, 260], [470, 260], [470, 340], [330, 340]],
     "crest_mm": [[330, 300], [470, 300]]},
    {"id": "town", "kind": "town", "polygon_mm": [[520, 270], [600, 270], [600, 330], [520, 330]]},
]
WARMUP_SCENARIO: dict[str, Any] = {
    "ruleset": "attila", "table": {"width_mm": 900, "depth_mm": 900}, "terrain": _TERRAIN,
    "bases": [*_attila_side("A", 240.0, 90.0), *_attila_side("B", 380.0, 270.0)], "turn": 3,
    "armies": {"A": {"discipline": "regular"}, "B": {"discipline": "veteran"}}}
