"""A recorded move measured the rules' way: distance in the ruleset's unit and the allowance.

Every ruleset answers through the engine's protocol: the unit is
``engine.rulesets.get_ruleset(name).unit`` / ``mm_per_unit``, and the allowance is
``Ruleset.movement_allowance`` asked of the recorded state (read as an `engine.GameState`, the
base at the pose where the move ended) for the kinds of terrain its footprint crossed. A state the
engine rejects (unknown ruleset, a type the ruleset does not know) still gets its move measured,
in mm, with ``allowance = None`` and the reason in ``allowance_basis.why``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from shapely.geometry import LineString, MultiPoint, Polygon

from campo.engine import GameState
from campo.engine.geometry.rect import Rect, angle_diff
from campo.engine.results import Allowance
from campo.engine.rulesets import get_ruleset
from campo.engine.sequence import judge_move
from campo.errors import CampoInputError

EXCEEDED_TOLERANCE_MM = 3.0
"""A move is flagged only when it is longer than its allowance by more than this (marker noise)."""


def unit_of(ruleset: str) -> tuple[str, float]:
    """(unit name, mm per unit) of a ruleset; raises `UnknownRulesetError` for an unknown one."""
    rs = get_ruleset(ruleset)
    return str(rs.unit), float(rs.mm_per_unit)


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


def state_with(scenario: Mapping[str, Any], base: Mapping[str, Any]) -> GameState:
    """The recorded state as a `GameState`, with ``base`` (the mover where its move ended) in it
    even when the state no longer holds it (a base lifted off the table mid-move)."""
    data = {k: v for k, v in scenario.items() if k not in ("analysis", "live")}
    others = [b for b in data.get("bases") or [] if b.get("id") != base.get("id")]
    data["bases"] = [*others, dict(base)]
    return GameState.from_dict(data)


def allowance_for(scenario: Mapping[str, Any], base: Mapping[str, Any],
                  kinds: list[str]) -> tuple[Allowance | None, dict[str, Any]]:
    """The ruleset's full move for the base over the terrain crossed, and the basis recorded
    with it (``type``, ``formation``, ``terrain``, ``text``, ``cites``, ``gap``; or ``why``)."""
    traits = base.get("traits") or {}
    basis: dict[str, Any] = {"type": base.get("type"), "formation": traits.get("formation"),
                             "terrain": kinds}
    try:
        state = state_with(scenario, base)
        allowance = state.ruleset.movement_allowance(state, str(base["id"]), kinds)
    except CampoInputError as exc:
        return None, {**basis, "why": str(exc)}
    if allowance is None:
        return None, {**basis, "why": f"{scenario.get('ruleset')} gives this base no move"}
    return allowance, {**basis, "text": allowance.basis, "cites": list(allowance.cites),
                       "gap": allowance.gap}


def phase_check(scenario: Mapping[str, Any], side: Any, phase: str, first: str,
                furthest_mm: float, allowance_mm: float | None) -> dict[str, Any]:
    """The move judged against the phase it began in (`campo.engine.sequence.judge_move`): may
    this side's bases move now, and how far."""
    try:
        seq = get_ruleset(str(scenario.get("ruleset"))).sequence_of_play()
        entry = seq.phase(phase)
    except CampoInputError as exc:
        return {"verdict": "unknown", "reason": str(exc), "cites": []}
    verdict = judge_move(entry, first, side, furthest_mm=furthest_mm, allowance_mm=allowance_mm,
                         tolerance_mm=EXCEEDED_TOLERANCE_MM)
    out = verdict.to_dict()
    if "limit_mm" in out:
        _, mm = unit_of(seq.ruleset)
        out["limit"] = round(out.pop("limit_mm") / mm, 3)
    return out


def measure_move(scenario: Mapping[str, Any], start: Mapping[str, Any], end: Mapping[str, Any],
                 path_mm: Sequence[Sequence[float]], *, phase: str | None = None,
                 first: str = "A") -> dict[str, Any]:
    """The measured part of a move event: distances (rules units), allowance, exceeded; with
    the ``phase`` it began in (the turn clock's), ``phase_check`` judges it against the phase."""
    try:
        unit, mm = unit_of(str(scenario.get("ruleset")))
    except CampoInputError:
        unit, mm = "mm", 1.0     # allowance_for says why (the same error)
    pts = ([tuple(p) for p in path_mm]
           or [(start["x_mm"], start["y_mm"]), (end["x_mm"], end["y_mm"])])
    path_len = sum(math.dist(pts[i], pts[i + 1]) for i in range(len(pts) - 1))
    straight = math.dist((start["x_mm"], start["y_mm"]), (end["x_mm"], end["y_mm"]))
    furthest = furthest_point_mm(start, end)
    kinds = terrain_crossed(start, end, pts, scenario.get("terrain") or [])
    allow, basis = allowance_for(scenario, end, kinds)
    exceeded = (None if allow is None
                else furthest > allow.amount * mm + EXCEEDED_TOLERANCE_MM)
    checked = ({} if phase is None else {"phase_check": phase_check(
        scenario, end.get("side"), phase, first, furthest,
        None if allow is None else allow.amount * mm)})
    return checked | {
        "unit": unit,
        "distance": round(straight / mm, 3),
        "path_length": round(path_len / mm, 3),
        "furthest": round(furthest / mm, 3),
        "turned_deg": round(angle_diff(float(end["heading_deg"]), float(start["heading_deg"])), 2),
        "allowance": None if allow is None else round(allow.amount, 3),
        "allowance_basis": basis,
        "exceeded": exceeded,
    }
