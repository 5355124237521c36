"""A small ISD battle the server analyses while it starts (`Ruleset.warmup_scenario`): two lines
facing each other across a wood and a hill with its crest, close enough for charges. Its first
analysis pays the imports and first-call costs before the first real frame."""

from __future__ import annotations

from typing import Any


def _line(side: str, y: float, heading: float, x0: float, prefix: str) -> list[dict[str, Any]]:
    """Three infantry bases side by side, a battery of two guns and a cavalry base behind."""
    bases = [{"id": f"{prefix}-i{k}", "side": side, "type": "B", "x_mm": x0 + 80.0 * k,
              "y_mm": y, "heading_deg": heading, "width_mm": 80.0, "depth_mm": 40.0,
              "traits": {"weapon": "MR"}} for k in range(3)]
    bases += [{"id": f"{prefix}-g{k}", "side": side, "type": "gun", "x_mm": x0 + 260.0 + 25.0 * k,
               "y_mm": y, "heading_deg": heading, "width_mm": 25.0, "depth_mm": 40.0,
               "traits": {}} for k in range(2)]
    back = -60.0 if heading == 90.0 else 60.0
    bases.append({"id": f"{prefix}-c", "side": side, "type": "C", "x_mm": x0 + 80.0,
                  "y_mm": y + back, "heading_deg": heading, "width_mm": 80.0, "depth_mm": 30.0,
                  "traits": {}})
    return bases


# two lines facing each other across a wood and a hill with its crest, close enough for charges
WARMUP_SCENARIO: dict[str, Any] = {
    "ruleset": "italia-se-desta",
    "table": {"width_mm": 900, "depth_mm": 600},
    "terrain": [
        {"id": "wood", "kind": "wood",
         "polygon_mm": [[120, 260], [260, 250], [270, 330], [130, 340]]},
        {"id": "hill", "kind": "hill",
         "polygon_mm": [[420, 250], [640, 250], [640, 350], [420, 350]],
         "crest_mm": [[420, 300], [640, 300]]},
    ],
    "bases": [*_line("A", 180.0, 90.0, 120.0, "a"), *_line("B", 420.0, 270.0, 130.0, "b")],
}
