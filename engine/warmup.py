"""Analyse each rulebook's small warm-up scenario (`Ruleset.warmup_scenario`) once, so the
first real analysis does not pay the imports and first-call costs. `campo serve` runs it while
it starts."""

from __future__ import annotations

import time

from typing import Any

from campo.engine.registry import get_ruleset, ruleset_names

SMALL_TERRAIN: list[dict[str, Any]] = [
    {"id": "wood", "kind": "wood", "polygon_mm": [[120, 270], [230, 262], [240, 320], [130, 330]]},
    {"id": "hill", "kind": "hill", "polygon_mm": [[330, 260], [470, 260], [470, 340], [330, 340]],
     "crest_mm": [[330, 300], [470, 300]]},
    {"id": "town", "kind": "town", "polygon_mm": [[520, 270], [600, 270], [600, 330], [520, 330]]},
]
"""A wood, a hill with its crest and a town across a small table's middle (a warm-up battle's
terrain: every kind of sight and movement question gets asked once)."""


def base_entry(id_: str, side: str, type_: str, x: float, y: float, heading: float, width: float,
               depth: float, **traits: Any) -> dict[str, Any]:
    """One base of a warm-up scenario, as scenario JSON."""
    return {"id": id_, "side": side, "type": type_, "x_mm": x, "y_mm": y,
            "heading_deg": heading, "width_mm": width, "depth_mm": depth, "traits": traits}


def prepare(names: tuple[str, ...] | None = None) -> float:
    """Analyse the warm-up scenario of each rulebook in ``names`` (all when None); seconds."""
    from campo.engine.analysis import analyze

    start = time.perf_counter()
    for name in names or ruleset_names():
        analyze(get_ruleset(name).warmup_scenario)
    return time.perf_counter() - start
