"""What geometry decides about movement (ISD §1, §8, §9): allowances, the Manoeuvre Table's
proximity modifiers (ISD A25), hidden units (ISD §9 note 4), fall-back, rout and pursuit paths
(ISD A26, A38–A40)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import shapely
from shapely.geometry import Polygon

from engine.geometry.rect import Rect
from engine.geometry.sight import sample_outline, sample_segment, sight_lines
from engine.rulesets.italia.board import GRAZE_MM, NEAR_MM, Board
from engine.geometry.arcs import arc_vertices
from engine.rulesets.italia.charges import full_move_in
from engine.rulesets.italia.pieces import CHARGE_ARC_HALF_DEG

FALL_BACK_IN = 3.0           # ISD §9 «muove 3"»
PURSUIT_IN = {"infantry": 3.0, "cavalry": 6.0}   # ISD §9 pursuit table
NEAR_INFANTRY_IN = 6.0       # ISD ManTab «a 6" da fanteria»
NEAR_ARTILLERY_IN = 3.0      # ISD ManTab «a 3" dall'artiglieria»
ROUTER_GAP_IN = 2.0          # ISD §1 «uno spazio di almeno 2"»


def terrain_under(board: Board, base_id: str) -> list[str]:
    """Ids of terrain the base stands on or touches."""
    return sorted(t.id for t, _ in board.terrain_on(base_id))


def movement_of(board: Board, base_id: str) -> dict[str, Any]:
    """Full move in the open and over the terrain the base stands on (ISD §8 table)."""
    info = board.infos[base_id]
    if info.kind == "limber":
        return {}
    under = terrain_under(board, base_id)
    kinds = sorted({t.kind for t, _ in board.terrain_on(base_id)})
    return {"full_move": full_move_in(board, base_id), "here": full_move_in(board, base_id, kinds),
            "terrain": under}


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
        sides = {side: n for n, side in enumerate(sorted({infos[i].side for i in names}))}
        side = np.array([sides[infos[i].side] for i in names], dtype=int)
        skip = np.array([infos[i].is_general or infos[i].stale for i in names], dtype=bool)
        rows = np.repeat(np.arange(len(names)), np.diff(starts))
        keep = (gaps <= reach) & (side[others] != side[rows]) & ~skip[others] \
            if len(others) else np.zeros(0, dtype=bool)
        for k, b, gap in zip(rows[keep].tolist(), others[keep].tolist(), gaps[keep].tolist()):
            found.setdefault(names[k], []).append((names[b], gap))
    return found


def manoeuvre_of(board: Board, base_id: str) -> dict[str, Any] | None:
    """ISD ManTab proximity facts (ISD A25): enemy infantry within 6", artillery within 3",
    and, for infantry, enemy cavalry in sight within charge distance."""
    info = board.infos[base_id]
    if not info.is_unit:
        return None
    poly = board.rect(base_id).polygon
    cav_in = board.settings.a25_cavalry_charge_distance_in
    reach = board.mm(max(NEAR_INFANTRY_IN, cav_in))
    if reach + 1e-6 <= NEAR_MM:   # the gaps of the board's one bulk neighbour query
        near = _foes_near(board, reach + 1e-6).get(base_id, [])
    else:
        near = [(o, None) for o in board.near(base_id, reach + 1e-6)]
    inf, art, cav = [], [], []
    for other, gap in near:
        o = board.infos[other]
        if o.side == info.side or o.is_general or o.stale:
            continue
        d = board.inches(float(shapely.distance(poly, board.rect(other).polygon))
                         if gap is None else gap)
        if o.is_unit and o.arm == "infantry" and d <= NEAR_INFANTRY_IN + 1e-6:
            inf.append(other)
        if o.arm == "artillery" and d <= NEAR_ARTILLERY_IN + 1e-6:
            art.append(other)
        if info.arm == "infantry" and o.is_unit and o.arm == "cavalry" and d <= cav_in + 1e-6 \
                and _cavalry_sees(board, other, base_id):
            cav.append(other)
    modifier = -(bool(inf) + bool(art)) - (2 if cav else 0)
    return {"near_infantry": inf, "near_artillery": art, "cavalry_in_sight": cav,
            "proximity_modifier": modifier}


def hidden_of(board: Board, base_id: str) -> str | None:
    """"wood" when wholly inside a wood (ISD §9 note 4); crest hiding depends on the enemy and is
    given per charge."""
    poly = board.rect(base_id).polygon
    for feat, area in board.terrain_on(base_id):
        if feat.kind == "wood" and feat.polygon_mm is not None and area.covers(poly):
            return "wood"
    return None


class _Band(NamedTuple):
    """A straight move's swept rectangle, not built: its `Rect` arguments, and the unit vectors
    of the base that moved (the same heading, so the same vectors as the rectangle's)."""

    cx: float
    cy: float
    heading_deg: float
    width: float
    depth: float
    front: tuple[float, float]
    right: tuple[float, float]

    def rect(self) -> Rect:
        return Rect(self.cx, self.cy, self.heading_deg, self.width, self.depth)


def _straight(board: Board, base_id: str, distance_in: float, backward: bool,
              direction: tuple[float, float] | None = None) -> tuple[Rect, _Band | Polygon]:
    """(end pose, the area swept) of a straight move keeping facing: forward or back along the
    base's own axis (a rectangle, as a `_Band`), or along ``direction`` (a unit vector; the
    convex hull of start and end)."""
    r = board.rect(base_id)
    if direction is None:
        d = board.mm(distance_in) * (-1.0 if backward else 1.0)
        end = r.moved(r.front[0] * d, r.front[1] * d)
        swept = _Band((r.cx + end.cx) / 2, (r.cy + end.cy) / 2, r.heading_deg, r.width,
                      r.depth + abs(d), r.front, r.right)
        return end, swept
    d = board.mm(distance_in)
    end = r.moved(direction[0] * d, direction[1] * d)
    return end, shapely.convex_hull(shapely.MultiPoint([*r.corners, *end.corners]))


def _end_centre(board: Board, base_id: str, distance_in: float, backward: bool,
                direction: tuple[float, float] | None = None) -> tuple[float, float]:
    """The centre of `_straight`'s end pose (the same arithmetic), without building it."""
    r = board.rect(base_id)
    if direction is None:
        d = board.mm(distance_in) * (-1.0 if backward else 1.0)
        return r.cx + r.front[0] * d, r.cy + r.front[1] * d
    d = board.mm(distance_in)
    return r.cx + direction[0] * d, r.cy + direction[1] * d


def _retreat_direction(board: Board, base_id: str) -> tuple[float, float] | None:
    """Where falling back and routing go (ISD A26, A38): None for straight back along the
    base's axis; with "toward_own_edge", straight toward its side's table edge (side A's edge is
    y = 0, shared/interfaces.md)."""
    if board.settings.a38_fall_back_direction != "toward_own_edge":
        return None
    return (0.0, -1.0) if board.infos[base_id].side == "A" else (0.0, 1.0)


def _pursuit_direction(board: Board, base_id: str) -> tuple[float, float] | None:
    """Where a pursuit goes (ISD A40): None for straight ahead; with "toward_enemy", toward the
    centre of the enemy touching its front along the longest stretch (straight ahead if none)."""
    if board.settings.a40_pursuit_direction != "toward_enemy":
        return None
    foes = [(board.shared_lengths(base_id, o)["front"], o) for o in board.touching[base_id]
            if board.is_enemy(base_id, o) and not board.infos[o].is_general]
    foes = [f for f in foes if f[0] > 0]
    if not foes:
        return None
    r, t = board.rect(base_id), board.rect(max(foes)[1])
    dx, dy = t.cx - r.cx, t.cy - r.cy
    norm = (dx * dx + dy * dy) ** 0.5
    return None if norm == 0 else (dx / norm, dy / norm)


def _inner_shapes(board: Board, swept: list[Rect | _Band | Polygon]) -> list[Polygon]:
    """Each swept area shrunk by the contact tolerance and the graze: bases merely touching it
    do not count (rectangles by arithmetic, hulls by GEOS)."""
    shrink = board.contact_tol + GRAZE_MM
    if swept and all(isinstance(sw, (Rect, _Band)) for sw in swept):
        return list(shapely.polygons(_inner_corners(swept, shrink)))
    return [_inner(sw.rect() if isinstance(sw, _Band) else sw, shrink)
            if isinstance(sw, (Rect, _Band))
            else sw.buffer(-shrink, join_style="mitre") for sw in swept]


def _inner_corners(rects: list[Rect | _Band], shrink: float) -> np.ndarray:
    """(n, 4, 2) corners of `_inner_rect` of each rectangle, for all at once: the same heading,
    so the same unit vectors, and `Rect`'s corner arithmetic operation for operation (the same
    floats), without building the rectangles."""
    cx, cy, f0, f1, r0, r1, w, d = np.array(
        [(r.cx, r.cy, r.front[0], r.front[1], r.right[0], r.right[1], r.width, r.depth)
         for r in rects], dtype=float).T
    hw = np.maximum(w - 2 * shrink, 0.1) / 2
    hd = np.maximum(d - 2 * shrink, 0.1) / 2
    xs = [cx - hw * r0 + hd * f0, cx + hw * r0 + hd * f0, cx + hw * r0 - hd * f0,
          cx - hw * r0 - hd * f0]
    ys = [cy - hw * r1 + hd * f1, cy + hw * r1 + hd * f1, cy + hw * r1 - hd * f1,
          cy - hw * r1 - hd * f1]
    return np.stack([np.stack(xs, axis=1), np.stack(ys, axis=1)], axis=2)


def _inner_rect(rect: Rect, shrink: float) -> Rect:
    """The rectangle shrunk by ``shrink`` on every side: bases merely touching do not count."""
    return Rect(rect.cx, rect.cy, rect.heading_deg, max(rect.width - 2 * shrink, 0.1),
                max(rect.depth - 2 * shrink, 0.1))


def _inner(rect: Rect, shrink: float) -> Polygon:
    return _inner_rect(rect, shrink).polygon


def _polygons(rings: list) -> list[Polygon]:
    """Many polygons (rectangles' corners, or 4-point outlines) from one shapely call; the
    same geometries as building them one by one."""
    if not rings:
        return []
    return list(shapely.polygons(np.array(rings, dtype=float)))


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
    captured = False
    if enemies:
        # A39: the router squeezes through if the enemies met leave a 2" wide way, between
        # themselves and (by the default reading) the table edge and ground it cannot enter
        half_gap = board.mm(ROUTER_GAP_IN) / 2
        corridor = swept.rect().polygon if isinstance(swept, _Band) else swept
        walls = [board.rect(e).polygon.buffer(half_gap) for e in enemies]
        if board.settings.a39_router_gap == "enemy_or_edge":
            walls += _router_walls(board, base_id, corridor, half_gap, on_table)
        way = shapely.difference(corridor, shapely.union_all(walls))
        captured = not any(g.intersects(rt_end.polygon.buffer(-1)) and g.intersects(r.polygon)
                           for g in getattr(way, "geoms", [way]) if not g.is_empty)
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


def _router_walls(board: Board, base_id: str, corridor: Polygon, half_gap: float,
                  on_table: bool) -> list[Polygon]:
    """What narrows a router's way besides the enemies (ISD A39, "enemy_or_edge"): the table
    edge (unless the rout leaves the table anyway: `rout_leaves_table` says so) and area terrain
    its troops may not enter (ISD §8 table: no move there), each grown by half the 2" gap."""
    table = board.state.scenario.table
    walls = []
    if on_table:
        inside = shapely.box(half_gap, half_gap, table.width_mm - half_gap, table.depth_mm - half_gap)
        walls.append(shapely.difference(corridor, inside))
    for feature, shape in board.terrain_near(corridor, half_gap):
        if feature.polygon_mm is not None and full_move_in(board, base_id, [feature.kind]) <= 0:
            walls.append(shape.buffer(half_gap))
    return walls


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
