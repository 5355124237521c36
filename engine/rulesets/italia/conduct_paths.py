"""The shapes of straight moves that keep facing: falling back, routing and pursuing (ISD §1,
§9, A26, A38–A40). Shared by the per-base answers (`conduct`) and the all-bases fast path
(`conduct_batch`), so both build exactly the same geometry."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import shapely
from shapely.geometry import Polygon

from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.italia.board import GRAZE_MM, Board
from campo.engine.rulesets.italia.charges import full_move_in

FALL_BACK_IN = 3.0           # ISD §9 «muove 3"»
PURSUIT_IN = {"infantry": 3.0, "cavalry": 6.0}   # ISD §9 pursuit table
ROUTER_GAP_IN = 2.0          # ISD §1 «uno spazio di almeno 2"»


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
    columns = np.array([(r.cx, r.cy, r.front[0], r.front[1], r.right[0], r.right[1], r.width,
                         r.depth) for r in rects], dtype=float).T
    return inner_corners_of(*columns, shrink)


def inner_corners_of(cx: np.ndarray, cy: np.ndarray, f0: np.ndarray, f1: np.ndarray,
                     r0: np.ndarray, r1: np.ndarray, w: np.ndarray, d: np.ndarray,
                     shrink: float) -> np.ndarray:
    """`_inner_corners` from the rectangles' columns (centre, front and right unit vectors,
    width, depth), for callers that hold them as arrays."""
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


def rout_captured(board: Board, base_id: str, enemies: list[str], swept: _Band | Polygon,
                  end: Rect, on_table: bool) -> bool:
    """Whether the enemies a rout meets catch the router (ISD A39): they do unless they leave a
    2" wide way, between themselves and (by the default reading) the table edge and ground it
    cannot enter, from where it stands to where it ends."""
    half_gap = board.mm(ROUTER_GAP_IN) / 2
    corridor = swept.rect().polygon if isinstance(swept, _Band) else swept
    walls = [board.rect(e).polygon.buffer(half_gap) for e in enemies]
    if board.settings.a39_router_gap == "enemy_or_edge":
        walls += _router_walls(board, base_id, corridor, half_gap, on_table)
    way = shapely.difference(corridor, shapely.union_all(walls))
    start = board.rect(base_id).polygon
    return not any(g.intersects(end.polygon.buffer(-1)) and g.intersects(start)
                   for g in getattr(way, "geoms", [way]) if not g.is_empty)


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
