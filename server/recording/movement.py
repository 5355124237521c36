"""A recorded move measured the rules' way: distance in the ruleset's unit and the allowance.

The allowance comes from the ruleset's own movement table (for "L'Italia s'è desta!" that is
`engine.rulesets.italia.tables_movement.movement_allowance_in`), given the base's type, its
``traits.formation`` and the kinds of terrain its footprint crossed during the move. Rulesets
without a movement table here get ``allowance = None`` (the move is still measured).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from shapely.geometry import LineString, MultiPoint, Polygon

from engine.geometry.rect import Rect, angle_diff

MM_PER_UNIT = {"italia-se-desta": ("in", 25.0), "federico": ("cm", 10.0), "attila": ("cm", 10.0)}
"""Each ruleset's unit (shared/interfaces.md, "Rules units"); the engine's own value wins."""

EXCEEDED_TOLERANCE_MM = 3.0
"""A move is flagged only when it is longer than its allowance by more than this (marker noise)."""


def unit_of(ruleset: str) -> tuple[str, float]:
    """(unit name, mm per unit) for a ruleset."""
    try:
        from engine.rulesets import get_ruleset  # type: ignore[attr-defined]

        rs = get_ruleset(ruleset)
        return str(rs.unit), float(rs.mm_per_unit)
    except (ImportError, AttributeError):
        pass
    except ValueError:  # unknown ruleset (a CampoInputError): fall through to the table
        pass
    return MM_PER_UNIT.get(ruleset, ("mm", 1.0))


def rect_of(base: Mapping[str, Any]) -> Rect:
    return Rect(float(base["x_mm"]), float(base["y_mm"]), float(base["heading_deg"]),
                float(base["width_mm"]), float(base["depth_mm"]))


def furthest_point_mm(start: Mapping[str, Any], end: Mapping[str, Any]) -> float:
    """How far the base's furthest-moving corner went (a wheel moves the outer corner most)."""
    a, b = rect_of(start).corners, rect_of(end).corners
    return max(math.dist(p, q) for p, q in zip(a, b, strict=True))


def terrain_crossed(start: Mapping[str, Any], end: Mapping[str, Any],
                    path_mm: Sequence[Sequence[float]],
                    terrain: Sequence[Mapping[str, Any]]) -> list[str]:
    """Kinds of terrain the footprint touched on its way (hull of both poses and the path)."""
    pts = [*rect_of(start).corners, *rect_of(end).corners, *(tuple(p) for p in path_mm)]
    swept = MultiPoint(pts).convex_hull
    kinds: list[str] = []
    for feature in terrain:
        shape = (Polygon(feature["polygon_mm"]) if feature.get("polygon_mm")
                 else LineString(feature["line_mm"]))
        if swept.intersects(shape) and feature["kind"] not in kinds:
            kinds.append(str(feature["kind"]))
    return kinds or ["open"]


@dataclass(frozen=True)
class Allowance:
    value: float | None
    basis: dict[str, Any]


def allowance_for(scenario: Mapping[str, Any], base: Mapping[str, Any],
                  kinds: list[str]) -> Allowance:
    """The base's full move for its type, formation and the terrain crossed, in rules units."""
    traits = base.get("traits") or {}
    formation = str(traits.get("formation", "line"))
    basis: dict[str, Any] = {"type": base.get("type"), "formation": formation, "terrain": kinds}
    if scenario.get("ruleset") != "italia-se-desta":
        return Allowance(None, {**basis, "why": "no movement table for this ruleset yet"})
    from engine.rulesets.italia import tables_movement as tm
    from engine.rulesets.italia.settings import ItaliaSettings

    settings = ItaliaSettings.model_validate(scenario.get("settings") or {})
    known = [k for k in kinds if k in tm.TERRAIN_KIND_CLASS]
    value = tm.movement_allowance_in(
        str(base.get("type")), traits.get("arm"), formation, known or "open",
        horse=bool(traits.get("horse") or traits.get("rockets")), rank=traits.get("rank"),
        settings=settings)
    basis["cites"] = "ISD §8"
    if len(known) < len(kinds):
        basis["ignored_terrain"] = [k for k in kinds if k not in known]
    return Allowance(value, basis)


def measure_move(scenario: Mapping[str, Any], start: Mapping[str, Any], end: Mapping[str, Any],
                 path_mm: Sequence[Sequence[float]]) -> dict[str, Any]:
    """The measured part of a move event: distances (rules units), allowance, exceeded."""
    unit, mm = unit_of(str(scenario.get("ruleset")))
    pts = [tuple(p) for p in path_mm] or [(start["x_mm"], start["y_mm"]), (end["x_mm"], end["y_mm"])]
    path_len = sum(math.dist(pts[i], pts[i + 1]) for i in range(len(pts) - 1))
    straight = math.dist((start["x_mm"], start["y_mm"]), (end["x_mm"], end["y_mm"]))
    furthest = furthest_point_mm(start, end)
    kinds = terrain_crossed(start, end, pts, scenario.get("terrain") or [])
    allow = allowance_for(scenario, end, kinds)
    exceeded = (None if allow.value is None
                else furthest > allow.value * mm + EXCEEDED_TOLERANCE_MM)
    return {
        "unit": unit,
        "distance": round(straight / mm, 3),
        "path_length": round(path_len / mm, 3),
        "furthest": round(furthest / mm, 3),
        "turned_deg": round(angle_diff(float(end["heading_deg"]), float(start["heading_deg"])), 2),
        "allowance": allow.value,
        "allowance_basis": allow.basis,
        "exceeded": exceeded,
    }
