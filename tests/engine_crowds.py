"""Crowded random ISD positions for the fast-path tests: many bases touch, some overlap or
stick out of a small 700 x 600 mm table; a third stand side by side in lines (the common
case), the rest at random headings."""

from __future__ import annotations

import random
from typing import Any

SIZES = {"B": (80, 40), "C": (80, 30), "gun": (25, 40), "general": (40, 40)}


def crowd_bases(seed: int, n: int, square_headings: tuple[float, ...]) -> list[dict[str, Any]]:
    """``n`` bases from ``seed``; the turned ones face one of ``square_headings`` or a random
    heading."""
    rng = random.Random(seed)
    bases: list[dict[str, Any]] = []
    for i in range(n):
        kind = rng.choice(list(SIZES))
        w, d = SIZES[kind]
        traits: dict[str, Any] = {"rank": "division"} if kind == "general" else {}
        if i % 3 == 0:   # in line: side by side, touching
            x, y, h = 60.0 + 80.0 * (i % 9), 200.0 + 300.0 * (i % 2), 90.0
        else:
            x, y, h = rng.uniform(-20, 720), rng.uniform(-20, 620), rng.choice(
                [*square_headings, rng.uniform(0, 360)])
        bases.append({"id": f"b{i:02d}", "side": rng.choice("AB"), "type": kind, "x_mm": x,
                      "y_mm": y, "heading_deg": h, "width_mm": w, "depth_mm": d,
                      "traits": traits})
    return bases
