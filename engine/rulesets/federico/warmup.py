"""A small Federico battle the server analyses while it starts (`Ruleset.warmup_scenario`): a
regiment, a battery, a squadron and a general a side, a wood, a hill with its crest and a town.
Its first analysis pays the imports and first-call costs before the first real frame."""

from __future__ import annotations

from typing import Any

from campo.engine.warmup import SMALL_TERRAIN, base_entry


def _federico_side(side: str, y: float, heading: float) -> list[dict[str, Any]]:
    """A battalion line of four, a battery of two, a cavalry squadron and a general."""
    back = -1.0 if heading == 90.0 else 1.0
    r = f"{side}1"
    bases = [base_entry(f"{r}-inf{k}", side, "infantry", 140.0 + 40.0 * k, y, heading, 40, 20,
                   regiment=r, **{"class": 4}) for k in range(4)]
    bases += [base_entry(f"{r}-art{k}", side, "artillery", 330.0 + 42.0 * k, y + 25.0 * back, heading,
                    40, 40, regiment=f"{side}2", weight="medium") for k in range(2)]
    bases.append(base_entry(f"{r}-cav", side, "cavalry", 470.0, y + 40.0 * back, heading, 40, 30,
                       regiment=f"{side}3", weight="heavy"))
    bases.append(base_entry(f"{r}-cmd", side, "commander", 220.0, y + 110.0 * back, heading, 30, 30,
                       rank="general", ability=2))
    return bases


WARMUP_SCENARIO: dict[str, Any] = {
    "ruleset": "federico", "table": {"width_mm": 900, "depth_mm": 700}, "terrain": SMALL_TERRAIN,
    "bases": [*_federico_side("A", 220.0, 90.0), *_federico_side("B", 380.0, 270.0)], "turn": 2}
