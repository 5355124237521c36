"""What geometry decides about movement (ISD §1, §8, §9): allowances, the Manoeuvre Table's
proximity modifiers (ISD A25), hidden units (ISD §9 note 4), fall-back, rout and pursuit paths
(ISD A26, A38–A40).

The analysis asks base by base. Movement and manoeuvre answers are worked out for every base in
one pass; retreat and pursuit answers come from `conduct_batch` (every base at once, in numpy)
when the state uses its spatial index, and from the per-base code here otherwise: the plain
reference path, which also answers the settings the batch does not cover."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Polygon

from campo.engine.geometry.arcs import arc_vertices
from campo.engine.geometry.rect import Rect
from campo.engine.geometry.sight import sample_outline, sample_segment, sight_lines
from campo.engine.rulesets.italia.board import NEAR_MM, Board
from campo.engine.rulesets.italia.charges import full_move_in
from campo.engine.rulesets.italia.conduct_batch import pursuits, retreats
# ROUTER_GAP_IN, _inner_corners and _inner_rect stay importable from here (tests use them)
from campo.engine.rulesets.italia.conduct_paths import (  # noqa: F401
    FALL_BACK_IN, PURSUIT_IN, ROUTER_GAP_IN, _Band, _end_centre, _inner_corners, _inner_rect,
    _inner_shapes, _polygons, _pursuit_direction, _retreat_direction, _straight, rout_captured)
from campo.engine.rulesets.italia.pieces import CHARGE_ARC_HALF_DEG
from campo.engine.rulesets.italia.relations_batch import columns

NEAR_INFANTRY_IN = 6.0       # ISD ManTab «a 6" da fanteria»
NEAR_ARTILLERY_IN = 3.0      # ISD ManTab «a 3" dall'artiglieria»


def terrain_under(board: Board, base_id: str) -> list[str]:
    """Ids of terrain the base stands on or touches."""
    return sorted(t.id for t, _ in board.terrain_on(base_id))


def movement_of(board: Board, base_id: str) -> dict[str, Any]:
    """Full move in the open and over the terrain the base stands on (ISD §8 table)."""
    if board.infos[base_id].kind == "limber":
        return {}
    full, here, under = _movements(board)[base_id]
    return {"full_move": full, "here": here, "terrain": list(under)}


def _movements(board: Board) -> dict[str, tuple[float, float, list[str]]]:
    """Base id -> (full move, full move over the terrain under it, that terrain's ids), limbers
    left out: all bases in one pass (cached; the analysis asks base by base)."""
    found = board.__dict__.get("_movements")
    if found is None:
        found = board.__dict__["_movements"] = {}
        for i, info in board.infos.items():
            if info.kind != "limber":
                on = board.terrain_on(i)
                full = full_move_in(board, i)
                found[i] = (full, full, []) if not on else (   # most stand on open ground
                    full, full_move_in(board, i, sorted({t.kind for t, _ in on})),
                    sorted(t.id for t, _ in on))   # `terrain_under`
    return found


def _cavalry_sees(board: Board, cav: str, unit: str) -> bool:
    cr, ur = board.rect(cav), board.rect(unit)
    lines = sight_lines(sample_segment(cr.front_left, cr.front_right, 3),
                        sample_outline(ur.polygon, per_edge=1))
    return bool(board.sight_field.clear(lines, exclude={cav, unit},
                                        ends=[cr.polygon, ur.polygon]).any())


def _foes_near(board: Board, reach: float) -> dict[str, list[tuple[str, float | None]]]:
    """Base id -> (enemy, gap mm) of the enemies (generals and unseen bases left out) within
    ``reach`` (at most NEAR_MM), in index order: `Board.near_gaps` filtered for all bases in
    one numpy pass (cached per reach)."""
    cache = board.__dict__.setdefault("_foes_near", {})
    found = cache.get(reach)
    if found is None:
        found = cache[reach] = {}
        _, starts, others, gaps = board._neighbours
        names = board.state.index.ids
        infos = board.infos
        col = columns(board)   # each base's side (a number) and whether it is a general
        side = col.side
        skip = col.general | np.array([infos[i].stale for i in names], dtype=bool)
        rows = np.repeat(np.arange(len(names)), np.diff(starts))
        keep = (gaps <= reach) & (side[others] != side[rows]) & ~skip[others] \
            if len(others) else np.zeros(0, dtype=bool)
        for k, b, gap in zip(rows[keep].tolist(), others[keep].tolist(), gaps[keep].tolist()):
            found.setdefault(names[k], []).append((names[b], gap))
    return found


def manoeuvre_of(board: Board, base_id: str) -> dict[str, Any] | None:
    """ISD ManTab proximity facts (ISD A25): enemy infantry within 6", artillery within 3",
    and, for infantry, enemy cavalry in sight within charge distance."""
    if not board.infos[base_id].is_unit:
        return None
    inf, art, cav = _manoeuvres(board)[base_id]
    modifier = -(bool(inf) + bool(art)) - (2 if cav else 0)
    return {"near_infantry": list(inf), "near_artillery": list(art), "cavalry_in_sight": list(cav),
            "proximity_modifier": modifier}


def _manoeuvres(board: Board) -> dict[str, tuple[list[str], list[str], list[str]]]:
    """Unit id -> (enemy infantry near, enemy artillery near, enemy cavalry in sight within
    charge distance), in index order: all units in one pass (cached)."""
    found = board.__dict__.get("_manoeuvres")
    if found is not None:
        return found
    found = board.__dict__["_manoeuvres"] = {}
    cav_in = board.settings.a25_cavalry_charge_distance_in
    reach = board.mm(max(NEAR_INFANTRY_IN, cav_in))
    foes = _foes_near(board, reach + 1e-6) if reach + 1e-6 <= NEAR_MM else None
    infos = board.infos
    for base_id, info in infos.items():
        if not info.is_unit:
            continue
        poly = board.rect(base_id).polygon
        if foes is not None:   # the gaps of the board's one bulk neighbour query
            near = foes.get(base_id, [])
        else:
            near = [(o, None) for o in board.near(base_id, reach + 1e-6)]
        inf, art, cav = [], [], []
        for other, gap in near:
            o = infos[other]
            if o.side == info.side or o.is_general or o.stale:
                continue
            d = board.inches(float(shapely.distance(poly, board.rect(other).polygon))
                             if gap is None else gap)
            if o.is_unit and o.arm == "infantry" and d <= NEAR_INFANTRY_IN + 1e-6:
                inf.append(other)
            if o.arm == "artillery" and d <= NEAR_ARTILLERY_IN + 1e-6:
                art.append(other)
            if info.arm == "infantry" and o.is_unit and o.arm == "cavalry" \
                    and d <= cav_in + 1e-6 and _cavalry_sees(board, other, base_id):
                cav.append(other)
        found[base_id] = (inf, art, cav)
    return found


def hidden_of(board: Board, base_id: str) -> str | None:
    """"wood" when wholly inside a wood (ISD §9 note 4); crest hiding depends on the enemy and is
    given per charge."""
    poly = board.rect(base_id).polygon
    for feat, area in board.terrain_on(base_id):
        if feat.kind == "wood" and feat.polygon_mm is not None and area.covers(poly):
            return "wood"
    return None


def _bulk_hits(board: Board, key: str, build: Any) -> dict[str, list[str]]:
    """For each base id -> the bases meeting its shape (``build()`` gives id -> shape): one
    STRtree query for all, cached under ``key``."""
    cache = board.__dict__.setdefault("_bulk_hits", {})
    if key not in cache:
        shapes: dict[str, Polygon] = build()
        ids = list(shapes)
        si, bi = board.state.index.query_many([shapes[i] for i in ids], 0.0)
        hits: dict[str, list[str]] = {i: [] for i in ids}
        names = board.state.index.ids
        for a, b in zip(si.tolist(), bi.tolist()):
            hits[ids[a]].append(names[b])
        cache[key] = hits
    return cache[key]


def _rout_geometry(board: Board) -> dict[str, tuple[float, Rect, _Band | Polygon]]:
    """Base id -> (rout distance, end pose, swept rectangle) for units and guns (cached)."""
    cache = board.__dict__.setdefault("_rout_geometry", {})
    if not cache:
        for i, info in board.infos.items():
            if info.is_unit or info.is_gun:
                rout_in = full_move_in(board, i)
                end, swept = _straight(board, i, rout_in, True, _retreat_direction(board, i))
                cache[i] = (rout_in, end, swept)
    return cache


def retreat_of(board: Board, base_id: str) -> dict[str, Any] | None:
    """Fall back 3" and rout a full move straight back, keeping facing (ISD A26, A38), with what
    the rout meets (ISD §1, A39)."""
    info = board.infos[base_id]
    if not (info.is_unit or info.is_gun):
        return None
    fast = retreats(board)   # every base at once (None: this per-base path answers)
    if fast is not None:
        return fast[base_id].to_dict()
    r = board.rect(base_id)
    direction = _retreat_direction(board, base_id)
    fb_x, fb_y = _end_centre(board, base_id, FALL_BACK_IN, True, direction)
    routs = _rout_geometry(board)
    rout_in, rt_end, swept = routs[base_id]
    hits = _bulk_hits(board, "rout", lambda: dict(zip(routs, _inner_shapes(
        board, [sw for _, _, sw in routs.values()]))))
    enemies, friends = [], []
    for other in hits[base_id]:
        if other == base_id or board.infos[other].is_general:
            continue
        (friends if board.infos[other].side == info.side else enemies).append(other)
    table = board.state.scenario.table
    on_table = all(-1.0 <= x <= table.width_mm + 1.0 and -1.0 <= y <= table.depth_mm + 1.0
                   for x, y in rt_end.corners)
    captured = bool(enemies) and rout_captured(board, base_id, enemies, swept, rt_end, on_table)
    return {
        "direction_deg": round((r.heading_deg + 180.0) % 360.0 if direction is None
                               else math.degrees(math.atan2(direction[1], direction[0])) % 360.0, 1),
        "fall_back": [[round(r.cx, 1), round(r.cy, 1)], [round(fb_x, 1), round(fb_y, 1)]],
        "rout": [[round(r.cx, 1), round(r.cy, 1)], [round(rt_end.cx, 1), round(rt_end.cy, 1)]],
        "rout_distance": rout_in,
        "rout_passes_through": sorted(friends),
        "rout_meets": sorted(enemies),
        "rout_captured": captured,
        "rout_leaves_table": not on_table,
    }


def _pursuit_shapes(board: Board) -> dict[str, tuple[float, Rect, Polygon, Polygon]]:
    """Unit id -> (distance, end pose, shrunk corridor, 30° arc to that distance) (cached)."""
    cache = board.__dict__.setdefault("_pursuit_shapes", {})
    if not cache:
        found = []
        for i, info in board.infos.items():
            if not info.is_unit:
                continue
            dist = PURSUIT_IN["cavalry" if info.arm == "cavalry" else "infantry"]
            r = board.rect(i)
            direction = _pursuit_direction(board, i)
            end, swept = _straight(board, i, dist, False, direction)
            # the 30° arc out to the pursuit distance (a trapezoid ahead of the front, ISD A27)
            facing = r.front if direction is None else direction
            reach = arc_vertices(r.front_left, r.front_right, facing, CHARGE_ARC_HALF_DEG,
                                 board.mm(dist))
            if direction is not None:
                # turned off the front's normal, the trapezoid's sides may cross: its hull
                reach = list(shapely.convex_hull(shapely.MultiPoint(reach)).exterior.coords)[:-1]
            found.append((i, dist, end, swept, reach))
        corridors = _inner_shapes(board, [f[3] for f in found])
        if found and all(len(f[4]) == 4 for f in found):
            reaches = _polygons([f[4] for f in found])
        else:
            reaches = [Polygon(f[4]) for f in found]
        for (i, dist, end, _, _), corridor, reach in zip(found, corridors, reaches):
            cache[i] = (dist, end, corridor, reach)
    return cache


def _pursuit_arc_hits(board: Board, in_corridor: dict[str, list[str]],
                      in_reach: dict[str, list[str]]) -> dict[str, set[str]]:
    """Unit -> the enemies (generals and those it touches left out) its pursuit arc overlaps by
    more than 1 mm² (one vectorised intersection for every pair), those in its corridor left
    out (cached)."""
    cache = board.__dict__.setdefault("_pursuit_arc_hits", {})
    if not cache:
        shapes = _pursuit_shapes(board)
        # only enemies (not generals) it does not touch yet: `pursuit_of` keeps no other
        infos, touching = board.infos, board.touching
        pairs = []
        for u, hits in in_reach.items():
            side, corridor, now = infos[u].side, set(in_corridor[u]), touching[u]
            pairs += [(u, o) for o in hits if infos[o].side != side and not infos[o].is_general
                      and o not in corridor and o not in now]
        out: dict[str, set[str]] = {u: set() for u in in_reach}
        if pairs:
            areas = shapely.area(shapely.intersection(
                np.array([shapes[u][3] for u, _ in pairs], dtype=object),
                np.array([board.rect(o).polygon for _, o in pairs], dtype=object)))
            for (u, o), area in zip(pairs, areas.tolist()):
                if area > 1.0:
                    out[u].add(o)
        cache.update(out)
        cache.setdefault("", set())   # built (even with no units)
    return cache


def pursuit_of(board: Board, base_id: str) -> dict[str, Any] | None:
    """Straight ahead 3" (infantry) / 6" (cavalry); enemies within 30° on that path may be hit
    (ISD §9, ISD A40). Artillery never pursues."""
    info = board.infos[base_id]
    if not info.is_unit:
        return None
    fast = pursuits(board)   # every unit at once (None: this per-base path answers)
    if fast is not None:
        return fast[base_id].to_dict()
    shapes = _pursuit_shapes(board)
    dist, end, corridor, reach = shapes[base_id]
    in_corridor = _bulk_hits(board, "pursuit", lambda: {i: c for i, (_, _, c, _) in shapes.items()})
    in_reach = _bulk_hits(board, "pursuit-arc", lambda: {i: a for i, (_, _, _, a) in shapes.items()})
    found = set(in_corridor[base_id])
    found |= _pursuit_arc_hits(board, in_corridor, in_reach)[base_id]   # more than a mere touch
    now = set(board.touching[base_id])
    new = [o for o in found
           if board.infos[o].side != info.side and not board.infos[o].is_general and o not in now]
    r = board.rect(base_id)
    return {"distance": dist, "path": [[round(r.cx, 1), round(r.cy, 1)],
                                       [round(end.cx, 1), round(end.cy, 1)]],
            "may_contact": sorted(new)}
