"""A small ISD battle the server analyses while it starts (`Ruleset.warmup_scenario`): two lines
facing each other across a wood, a hill with its crest and a town, close enough for charges. Its
first analysis pays the imports and first-call costs before the first real frame."""

from __future__ import annotations

from typing import Any

from campo.engine.warmup import SMALL_TERRAIN, base_entry


def _line(side: str, y: float, heading: float, x0: float, prefix: str) -> list[dict[str, Any]]:
    """Three infantry bases side by side, a battery of two guns and a cavalry base behind."""
    bases = [base_entry(f"{prefix}-i{k}", side, "B", x0 + 80.0 * k, y, heading, 80.0, 40.0,
                        weapon="MR") for k in range(3)]
    bases += [base_entry(f"{prefix}-g{k}", side, "gun", x0 + 260.0 + 25.0 * k, y, heading, 25.0,
                         40.0) for k in range(2)]
    back = -60.0 if heading == 90.0 else 60.0
    bases.append(base_entry(f"{prefix}-c", side, "C", x0 + 80.0, y + back, heading, 80.0, 30.0))
    return bases


WARMUP_SCENARIO: dict[str, Any] = {
    "ruleset": "italia-se-desta", "table": {"width_mm": 900, "depth_mm": 600},
    "terrain": SMALL_TERRAIN,
    "bases": [*_line("A", 180.0, 90.0, 120.0, "a"), *_line("B", 420.0, 270.0, 130.0, "b")]}
