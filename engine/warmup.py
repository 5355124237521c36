"""Compile the engine's numba kernels before the first real analysis needs them.

The first analysis after installing compiles the sight walk (with its terrain tests), the pair
geometry, the neighbour gaps, the graze shrink, the corridor sweeps, the charge slides and the
Federico and ATTILA kernels (about 30–40 s on the project machine; numba caches them beside the
code afterwards, and loading the cache takes about a second). `campo serve` calls `prepare`
while it starts, so a new user's first frame is not the one that waits, and the test suite
calls it once before the tests that run a live server. tests/test_engine_warmup.py checks that
the bench battles of every rulebook compile nothing more.
"""

from __future__ import annotations

import time
from typing import Any

from campo.engine.analysis import analyze


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


def _base(id_: str, side: str, type_: str, x: float, y: float, heading: float, width: float,
          depth: float, **traits: Any) -> dict[str, Any]:
    return {"id": id_, "side": side, "type": type_, "x_mm": x, "y_mm": y,
            "heading_deg": heading, "width_mm": width, "depth_mm": depth, "traits": traits}


def _federico_side(side: str, y: float, heading: float) -> list[dict[str, Any]]:
    """A battalion line of four, a battery of two, a cavalry squadron and a general."""
    back = -1.0 if heading == 90.0 else 1.0
    r = f"{side}1"
    bases = [_base(f"{r}-inf{k}", side, "infantry", 140.0 + 40.0 * k, y, heading, 40, 20,
                   regiment=r, **{"class": 4}) for k in range(4)]
    bases += [_base(f"{r}-art{k}", side, "artillery", 330.0 + 42.0 * k, y + 25.0 * back, heading,
                    40, 40, regiment=f"{side}2", weight="medium") for k in range(2)]
    bases.append(_base(f"{r}-cav", side, "cavalry", 470.0, y + 40.0 * back, heading, 40, 30,
                       regiment=f"{side}3", weight="heavy"))
    bases.append(_base(f"{r}-cmd", side, "commander", 220.0, y + 110.0 * back, heading, 30, 30,
                       rank="general", ability=2))
    return bases


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


# the same ground for the other two rulebooks, whose analyses have kernels of their own
_TERRAIN = [
    {"id": "wood", "kind": "wood", "polygon_mm": [[120, 270], [230, 262], [240, 320], [130, 330]]},
    {"id": "hill", "kind": "hill", "polygon_mm": [[330, 260], [470, 260], [470, 340], [330, 340]],
     "crest_mm": [[330, 300], [470, 300]]},
    {"id": "town", "kind": "town", "polygon_mm": [[520, 270], [600, 270], [600, 330], [520, 330]]},
]
FEDERICO_WARMUP: dict[str, Any] = {
    "ruleset": "federico", "table": {"width_mm": 900, "depth_mm": 700}, "terrain": _TERRAIN,
    "bases": [*_federico_side("A", 220.0, 90.0), *_federico_side("B", 380.0, 270.0)], "turn": 2}
ATTILA_WARMUP: dict[str, Any] = {
    "ruleset": "attila", "table": {"width_mm": 900, "depth_mm": 900}, "terrain": _TERRAIN,
    "bases": [*_attila_side("A", 240.0, 90.0), *_attila_side("B", 380.0, 270.0)], "turn": 3,
    "armies": {"A": {"discipline": "regular"}, "B": {"discipline": "veteran"}}}


def prepare() -> float:
    """Run one small analysis per rulebook (compiling or loading every kernel they use);
    seconds taken."""
    start = time.perf_counter()
    for scenario in (WARMUP_SCENARIO, FEDERICO_WARMUP, ATTILA_WARMUP):
        analyze(scenario)
    return time.perf_counter() - start
