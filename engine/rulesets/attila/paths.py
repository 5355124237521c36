"""A charge's path: what it runs into (ATT 5.B, 5.C, 5.F; reading AT16).

The path is the area swept by the charger through its wheel and straight move, shrunk by the
contact tolerance (a base merely touching it is not in the way): enemy bases block it, friends
are passed through and disordered, woods, marshes and difficult terrain stop the unit on entering
(mounted units may not enter woods and marshes), rivers are crossed only at bridges and fords.
`engine.geometry.motion.SweptArea` (as `sweeps.ChargeSweep`) answers "does this shape reach into
the path" in plain floats when certain and builds the exact shapely area only for close calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from campo.engine.geometry.motion import slide_convex
from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.attila.board import (
    CROSSINGS, MARSHES, ROUGH, WATER_AREAS, WATER_LINES, WOODS, Board,
)
from campo.engine.rulesets.attila.sweeps import ChargeSweep

if TYPE_CHECKING:
    from campo.engine.rulesets.attila.charges import _Try


def stopping_kinds(board: Board, mounted: bool) -> frozenset[str]:
    """Features whose entry stops the unit (ATT 5.B «devono arrestarsi immediatamente», 5.F)."""
    kinds = WOODS | MARSHES
    if board.settings.at17_broken_is_difficult or not mounted:
        kinds = kinds | ROUGH
    return kinds


def forbidden_kinds(board: Board, mounted: bool) -> frozenset[str]:
    """Features the unit may not enter: mounted units and woods/marshes (ATT 5.B), and difficult
    terrain unless at16_mounted_enter_difficult."""
    if not mounted:
        return WATER_AREAS
    kinds = WATER_AREAS | WOODS | MARSHES
    if not board.settings.at16_mounted_enter_difficult:
        kinds = kinds | ROUGH
    return kinds


def sweep_of(board: Board, t: _Try) -> ChargeSweep:
    """The try's swept area (built once per try)."""
    found = t.__dict__.get("_sweep")
    if found is None:
        found = t.__dict__["_sweep"] = ChargeSweep(t.poses, board.contact_tol)
    return found


def _others_near(board: Board, charger: str, target: str, t: _Try) -> list[str]:
    """Present bases (not the charger or target) within the path's length whose bounding box
    meets the path's, in id order (once per try: `enemy_blocks` then `path_checks` ask)."""
    found = t.__dict__.get("_others")
    if found is None:
        found = t.__dict__["_others"] = _find_others_near(board, charger, target, t)
    return found


def _find_others_near(board: Board, charger: str, target: str, t: _Try) -> list[str]:
    sweep = sweep_of(board, t)
    reach = t.total_mm + board.contact_tol
    if board.state.use_index and reach <= board.near_limit_mm:
        pool = _present_neighbours(board, charger)
        return [o for gap, o, box in pool
                if gap <= reach and o != target and not sweep.box_misses(box)]
    return [o for o in board.near(charger, reach)
            if o not in (charger, target) and not board.units[o].absent
            and not sweep.box_misses(board.box(o))]


def _present_neighbours(board: Board, charger: str
                        ) -> list[tuple[float, str, tuple[float, float, float, float]]]:
    """(gap, id, bounding box) of the present bases near the charger (`Board.near` at its
    widest, id order), cached per charger."""
    cache = board.__dict__.setdefault("_present_neighbours", {})
    found = cache.get(charger)
    if found is None:
        found = cache[charger] = [
            (gap, o, board.box(o)) for gap, o in board.neighbours_with_gaps(charger)
            if not board.units[o].absent]
    return found


def enemy_blocks(board: Board, charger: str, target: str, t: _Try) -> bool:
    """Certainly not clear: an enemy base lies well inside the path (ATT 5.C). A quick test so
    that the search skips blocked paths without the full `path_checks`."""
    side = board.units[charger].side
    sweep = sweep_of(board, t)
    outside = t.__dict__.setdefault("_outside", set())   # enemies not certainly in the way
    for o in _others_near(board, charger, target, t):
        if board.units[o].side != side:
            if sweep.certainly_meets_rect(board.rect(o)):
                return True
            outside.add(o)
    return False


def terrain_blocks(board: Board, charger: str, t: _Try) -> bool:
    """Certainly not clear because of terrain (ATT 5.B, 5.F): the path certainly goes into a
    wood, marsh or difficult terrain the unit may not enter, or enters one (not already under
    its front) during the wheel or before reaching the target — the cases `path_checks` gives
    a reason for, decided only when the swept area certainly reaches the feature."""
    terrain = board.state.scenario.terrain
    if not terrain:
        return False
    cu = board.units[charger]
    forbidden = forbidden_kinds(board, cu.mounted)
    stopping = stopping_kinds(board, cu.mounted)
    sweep = sweep_of(board, t)
    for f in terrain:
        if not f.is_area or (f.kind not in forbidden and f.kind not in stopping):
            continue
        poly = board.areas[f.id]
        if sweep.box_misses(_box_of(board, f.id, _vertices(board, f.id))) or \
                not sweep.certainly_meets(poly, _outline(board, f.id)):
            continue
        if f.kind in forbidden:
            return True
        if poly.intersects(board.rect(charger).front_edge):
            continue
        if abs(t.wheel_deg) > 0 and any(poly.intersects(p.front_edge) for p in t.poses[1:-1]):
            return True
        w = t.wheeled
        entry = slide_convex((w.front_left, w.front_right), w.front_edge,
                             board.area_vertices(f.id), poly, w.front)
        if entry < t.d_front - board.contact_tol:
            return True
    return False


def path_checks(board: Board, charger: str, target: str, wheeled: Rect, d_front: float,
                 t: _Try) -> None:
    cu = board.units[charger]
    # What the path runs into: the swept area shrunk by the contact tolerance (a base merely
    # touching the path is not in it); `SweptArea` answers the certain cases in plain floats
    # and builds the exact shapely area only for close calls.
    sweep = sweep_of(board, t)
    others = _others_near(board, charger, target, t)
    outside = t.__dict__.get("_outside", ())
    for other in others:
        if not sweep.meets_rect(board.rect(other), other in outside):
            continue
        if board.units[other].side != cu.side:
            t.reasons.append(f"enemy {other} is in the way: enemies cannot be passed through "
                             "(ATT 5.C)")
        else:
            t.passes.append(other)
    if t.passes:
        t.notes.append(f"passes through {', '.join(t.passes)}, disordering "
                       f"{'it' if len(t.passes) == 1 else 'them'} (ATT 5.C)")
    terrain = board.state.scenario.terrain
    if not terrain:
        return
    forbidden = forbidden_kinds(board, cu.mounted)
    stopping = stopping_kinds(board, cu.mounted)
    crossings = [f for f in terrain if f.kind in CROSSINGS]

    def reaches(fid: str) -> bool:
        vertices = _vertices(board, fid)
        if sweep.box_misses(_box_of(board, fid, vertices)):
            return False
        return sweep.meets(vertices, _shape(board, fid), _outline(board, fid))

    for f in terrain:
        if f.kind in WATER_LINES and reaches(f.id):
            if not any(reaches(c.id) for c in crossings):
                t.reasons.append(f"cannot cross {f.kind} {f.id!r} except at bridges or fords "
                                 "(ATT 5.B)")
            elif any(c.kind == "ford" and reaches(c.id) for c in crossings):
                t.reasons.append(f"reaching the ford on {f.id!r} stops the unit (ATT 5.B)")
        if not f.is_area or (f.kind not in forbidden and f.kind not in stopping):
            continue                   # no effect on a charge (hills, towns, open features)
        poly = board.areas[f.id]
        start_front = board.rect(charger).front_edge
        in_path = reaches(f.id)
        if not in_path and not poly.intersects(start_front):
            continue                   # the path does not go into it (beyond the tolerance)
        if f.kind in forbidden and in_path:
            t.reasons.append(f"{'mounted units' if cu.mounted else 'no unit'} may not enter "
                             f"{f.kind} {f.id!r} (ATT 5.B)")
            continue
        if f.kind not in stopping:
            continue
        if poly.intersects(start_front):
            t.terrain.append(f.id)
            t.notes.append(f"front line on {f.kind} {f.id!r}: the move is reduced by 1D6 "
                           "(ATT 5.B, 5.F)")
            continue
        if abs(t.wheel_deg) > 0 and any(poly.intersects(p.front_edge) for p in t.poses[1:-1]):
            t.reasons.append(f"the wheel enters {f.kind} {f.id!r} and stops there (ATT 5.B)")
            continue
        entry = slide_convex((wheeled.front_left, wheeled.front_right), wheeled.front_edge,
                             board.area_vertices(f.id), poly, wheeled.front)
        if entry < d_front - board.contact_tol:
            t.reasons.append(f"stops on entering {f.kind} {f.id!r} before reaching the target "
                             "(ATT 5.B, 5.F, AT16)")
        elif poly.intersects(t.final.polygon.buffer(-board.contact_tol)):
            t.terrain.append(f.id)


def _box_of(board: Board, fid: str, vertices: np.ndarray) -> tuple[float, float, float, float]:
    """A terrain feature's bounding box (cached per state)."""
    cache = board.__dict__.setdefault("_feature_boxes", {})
    found = cache.get(fid)
    if found is None:
        (x0, y0), (x1, y1) = vertices.min(axis=0).tolist(), vertices.max(axis=0).tolist()
        found = cache[fid] = (x0, y0, x1, y1)
    return found


def _vertices(board: Board, fid: str) -> np.ndarray:
    """A terrain feature's outline or line vertices as an array (cached per state)."""
    cache = board.__dict__.setdefault("_feature_vertices", {})
    found = cache.get(fid)
    if found is None:
        shape = _shape(board, fid)
        coords = shape.exterior.coords if fid in board.areas else shape.coords
        found = cache[fid] = np.asarray(coords, dtype=float)
    return found


def _outline(board: Board, fid: str) -> list[list[float]] | None:
    """An area's ring as a list (closing point included) when it has no holes, else None (a
    line, or holes): what `ChargeSweep.certainly_meets` tests in plain floats (cached)."""
    cache = board.__dict__.setdefault("_feature_outlines", {})
    if fid not in cache:
        shape = board.areas.get(fid)
        simple = shape is not None and shape.geom_type == "Polygon" and not shape.interiors
        cache[fid] = _vertices(board, fid).tolist() if simple else None
    return cache[fid]


def _shape(board: Board, fid: str) -> Any:
    return board.areas.get(fid) or board.lines[fid]
