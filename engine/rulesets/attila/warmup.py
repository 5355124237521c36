"""A small ATTILA battle the server analyses while it starts (`Ruleset.warmup_scenario`): three
groups, a General and a Camp a side, a wood, a hill with its crest and a town. Its first
analysis pays the imports and first-call costs before the first real frame."""

from __future__ import annotations

from typing import Any

from campo.engine.warmup import SMALL_TERRAIN, base_entry


def _attila_side(side: str, y: float, heading: float) -> list[dict[str, Any]]:
    """A group of heavy foot, one of archers, one of light horse, a General and a Camp."""
    back = -1.0 if heading == 90.0 else 1.0
    bases = [base_entry(f"{side}-fp{k}", side, "FP", 140.0 + 40.0 * k, y, heading, 40, 20,
                   group=f"{side}g1") for k in range(3)]
    bases += [base_entry(f"{side}-fl{k}", side, "FL", 300.0 + 40.0 * k, y - 30.0 * back, heading, 40,
                    20, group=f"{side}g2", missile="bows") for k in range(2)]
    bases += [base_entry(f"{side}-cl{k}", side, "CL", 420.0 + 40.0 * k, y, heading, 40, 30,
                    group=f"{side}g3", missile="javelins") for k in range(2)]
    bases.append(base_entry(f"{side}-gen", side, "general", 260.0, y + 120.0 * back, heading, 40, 40))
    bases.append(base_entry(f"{side}-camp", side, "camp", 200.0, y + 180.0 * back, heading, 80, 60))
    return bases


WARMUP_SCENARIO: dict[str, Any] = {
    "ruleset": "attila", "table": {"width_mm": 900, "depth_mm": 900}, "terrain": SMALL_TERRAIN,
    "bases": [*_attila_side("A", 240.0, 90.0), *_attila_side("B", 380.0, 270.0)], "turn": 3,
    "armies": {"A": {"discipline": "regular"}, "B": {"discipline": "veteran"}}}
