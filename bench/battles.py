"""Dense battles on a 6' x 4' table (1800 x 1200 mm) for the engine benchmarks, in all three
rulebooks: two armies in ragged lines with supports and reserves, generals behind, a wood, a town,
a hill with its crest and a wall in and around no-man's land.

Unlike the older spread-out series (bench/engine_analysis.py, bench/rulesets_analysis.py, whose
tables grow with the number of bases), the table stays 6' x 4' however many bases stand on it, so
200 bases are packed four or five lines deep: every shooter sees dozens of enemies, sight lines
cross friends, and most charges have something in the way. Deterministic for a given seed.

    from battles import dense_battle
    scenario = dense_battle("italia-se-desta", 100)
"""

from __future__ import annotations

import math
import random
from typing import Any

TABLE_MM = (1800.0, 1200.0)
RULESETS = ("italia-se-desta", "federico", "attila")


def terrain() -> list[dict[str, Any]]:
    """A wood, a town, a hill with its crest and a wall, between and inside the lines."""
    return [
        {"id": "wood", "kind": "wood", "polygon_mm": [[380, 520], [560, 500], [600, 640], [400, 680]]},
        {"id": "town", "kind": "town", "polygon_mm": [[1180, 560], [1320, 560], [1320, 660], [1180, 660]]},
        {"id": "hill", "kind": "hill", "polygon_mm": [[760, 250], [1060, 250], [1060, 420], [760, 420]],
         "crest_mm": [[760, 335], [1060, 335]]},
        {"id": "wall", "kind": "wall", "line_mm": [[1400, 450], [1650, 450]]},
    ]


def _base(id_: str, side: str, type_: str, x: float, y: float, heading: float, w: float, d: float,
          **traits: Any) -> dict[str, Any]:
    return {"id": id_, "side": side, "type": type_, "x_mm": round(x, 1), "y_mm": round(y, 1),
            "heading_deg": round(heading % 360.0, 1), "width_mm": w, "depth_mm": d,
            "traits": traits}


# (type, width, depth, traits) of each rulebook's line units, cycled along a line; the
# "support" entries stand directly behind the unit before them (a second rank).
_LINES: dict[str, list[tuple[str, float, float, dict[str, Any]]]] = {
    "italia-se-desta": [
        ("B", 80, 40, {"arm": "infantry", "weapon": "MR"}),
        ("B", 80, 40, {"arm": "infantry", "weapon": "ML", "quality": "veteran"}),
        ("gun", 25, 40, {"arm": "artillery", "battery": "divisional"}),
        ("gun", 25, 40, {"arm": "artillery", "battery": "divisional"}),
        ("E", 50, 30, {"arm": "infantry", "weapon": "FRR", "light": True}),
        ("B", 80, 40, {"arm": "infantry", "weapon": "MR", "quality": "green"}),
        ("C", 80, 30, {"arm": "cavalry", "cavalry": "line"}),
    ],
    "federico": [
        ("infantry", 40, 20, {"class": 4}),
        ("infantry", 40, 20, {"class": 4}),
        ("infantry", 40, 20, {"class": 3}),
        ("artillery", 40, 40, {"weight": "medium"}),
        ("infantry", 40, 20, {"class": 5, "light": True}),
        ("cavalry", 40, 30, {"weight": "heavy"}),
        ("cavalry", 40, 30, {"weight": "light"}),
    ],
    "attila": [
        ("FP", 40, 20, {"melee_die": "d8"}),
        ("FP", 40, 20, {"pikes": True}),
        ("FL", 40, 20, {"missile": "bows"}),
        ("SI", 40, 20, {"missile": "slings"}),
        ("CP", 40, 30, {}),
        ("CL", 40, 30, {"missile": "javelins"}),
        ("FLP", 40, 20, {"missile": "javelins"}),
    ],
}
_GENERAL = {"italia-se-desta": ("general", 40, 40), "federico": ("commander", 30, 30),
            "attila": ("general", 40, 40)}
UNIT_SIZE = {"italia-se-desta": 3, "federico": 4, "attila": 4}
"""Bases per unit: a brigade front (ISD), a regiment (Federico), a deployment group (ATTILA)."""


def dense_battle(ruleset: str, n: int, seed: int = 1) -> dict[str, Any]:
    """``n`` bases of ``ruleset`` on a 6' x 4' table, half a side, front lines 20 cm apart.

    Each unit is one kind of troop, its bases side by side along the unit's (slightly turned)
    front; the first base of a front-line unit has a support directly behind it; lines behind
    the first are staggered; generals stand behind the lines."""
    if ruleset not in RULESETS:
        raise ValueError(f"unknown ruleset {ruleset!r}")
    rng = random.Random(seed)
    width, _ = TABLE_MM
    kinds = _LINES[ruleset]
    per_side = n // 2
    generals = max(1, per_side // 12)
    bases: list[dict[str, Any]] = []
    for side, front_y, heading in (("A", 500.0, 90.0), ("B", 700.0, 270.0)):
        back = -1.0 if side == "A" else 1.0
        side_bases: list[dict[str, Any]] = []
        line, unit_no = 0, 0
        while len(side_bases) < per_side - generals:
            y_line = front_y + back * (0 if line == 0 else 110 + 95 * (line - 1))
            x = 30.0 + rng.uniform(0, 40) + (45 if line % 2 else 0)
            while len(side_bases) < per_side - generals:
                type_, w, d, traits = kinds[(unit_no + line) % len(kinds)]
                size = UNIT_SIZE[ruleset]
                if x + size * (w + 3) > width - 30:
                    break
                unit_no += 1
                unit = f"{side}u{unit_no}"
                turn = rng.uniform(-6, 6)
                forward = -back * 60 if line == 0 and unit_no % 4 == 0 else 0.0  # pushed forward
                y0 = y_line + forward + rng.uniform(-20, 20)
                along = math.radians(turn)     # along the table, the unit turned slightly
                ux, uy = math.cos(along), math.sin(along)
                fx, fy = math.cos(math.radians(heading + turn)), math.sin(math.radians(heading + turn))
                extra = dict(traits, **_grouping(ruleset, side, unit, unit_no))
                step = w + rng.uniform(0.5, 2.5)
                for j in range(size):
                    bx, by = x + w / 2 + j * step * ux, y0 + j * step * uy
                    side_bases.append(_base(f"{unit}-{j}", side, type_, bx, by, heading + turn,
                                            w, d, **extra))
                    if j == 0 and line == 0 and type_ not in ("gun", "artillery"):
                        gap = d + 0.5      # a support directly behind the unit's first base
                        side_bases.append(_base(f"{unit}-{j}s", side, type_, bx - gap * fx,
                                                by - gap * fy, heading + turn, w, d, **extra))
                x += size * step + rng.uniform(20, 70)
            line += 1
        side_bases = side_bases[:per_side - generals]
        gtype, gw, gd = _GENERAL[ruleset]
        for g in range(generals):
            gx = (g + 0.5) * width / generals
            gy = front_y + back * (150 + 40 * (g % 2) + 95 * max(0, line - 2))
            gy = min(max(gy, 30.0), TABLE_MM[1] - 30.0)
            side_bases.append(_base(f"{side}-gen{g}", side, gtype, gx, gy, heading, gw, gd,
                                    **_general_traits(ruleset, side, g, generals)))
        bases += side_bases
    scenario: dict[str, Any] = {"ruleset": ruleset,
                                "table": {"width_mm": TABLE_MM[0], "depth_mm": TABLE_MM[1]},
                                "terrain": terrain(), "bases": bases}
    if ruleset == "attila":
        scenario["turn"] = 3
        scenario["armies"] = {"A": {"discipline": "regular"}, "B": {"discipline": "veteran"}}
    elif ruleset == "federico":
        scenario["turn"] = 2
    return scenario


def _grouping(ruleset: str, side: str, unit: str, unit_no: int) -> dict[str, Any]:
    if ruleset == "italia-se-desta":
        return {"division": f"{side}-div{unit_no % 4}"}
    if ruleset == "federico":
        return {"regiment": unit}
    return {"group": unit}


def _general_traits(ruleset: str, side: str, g: int, count: int) -> dict[str, Any]:
    if ruleset == "italia-se-desta":
        return {"rank": "division", "quality": "capable", "commands": f"{side}-div{g % 4}"}
    if ruleset == "federico":
        return {"rank": "chief" if g == 0 else "general", "ability": 1 + g % 4}
    return {}


def moved_unit(scenario: dict[str, Any], unit_index: int = 5, dx: float = 0.0,
               dy: float = 40.0) -> dict[str, Any]:
    """A copy of ``scenario`` with every base of one unit (its ids share the prefix before the
    last "-") moved by (dx, dy) mm toward the enemy: "one unit moves"."""
    import copy

    out = copy.deepcopy(scenario)
    units = sorted({b["id"].rsplit("-", 1)[0] for b in out["bases"] if "u" in b["id"]})
    unit = units[unit_index % len(units)]
    for b in out["bases"]:
        if b["id"].rsplit("-", 1)[0] == unit:
            sign = 1.0 if b["side"] == "A" else -1.0
            b["x_mm"] = round(b["x_mm"] + dx, 1)
            b["y_mm"] = round(b["y_mm"] + sign * dy, 1)
    return out
