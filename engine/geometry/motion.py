"""Moving bases: how far a convex shape can slide before it touches another, wheels, sweeps.

>>> from engine.geometry.rect import Rect
>>> a = Rect(0.0, 0.0, 90.0, 80.0, 40.0)
>>> b = Rect(0.0, 100.0, 270.0, 80.0, 40.0)
>>> round(slide_distance(outline(a), outline(b), (0.0, 1.0)), 6)   # 100 - 20 - 20
60.0
>>> round(wheel_cost(a, 30.0), 3)                          # outer corner: 80 mm * pi/6
41.888
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from engine.geometry.rect import Point, Rect

_INF = float("inf")


def outline(shape: Rect | Polygon | tuple[Point, Point]) -> np.ndarray:
    """Vertices (n, 2) of a rectangle, a polygon's exterior or a segment, in order."""
    if isinstance(shape, Rect):
        return np.array(shape.corners, dtype=float)
    if isinstance(shape, tuple):
        return np.array(shape, dtype=float)
    return np.asarray(shape.exterior.coords, dtype=float)[:-1]


def _edges(vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if len(vertices) == 2:
        return vertices[:1], vertices[1:] - vertices[:1]
    return vertices, np.roll(vertices, -1, axis=0) - vertices


def _ray_hits(origins: np.ndarray, d: np.ndarray, starts: np.ndarray, spans: np.ndarray) -> float:
    """Smallest t >= 0 such that some origin + t*d lies on some segment start + s*span."""
    # Solve o + t d = q + s e for every (origin, segment) pair.
    o = origins[:, None, :]
    q = starts[None, :, :]
    e = spans[None, :, :]
    denom = d[0] * e[..., 1] - d[1] * e[..., 0]
    w = q - o
    # (Nearly) parallel pairs have no crossing: divide them by 1 instead of a denominator that
    # may be tiny enough to overflow the quotient; they are masked out below either way.
    usable = np.abs(denom) > 1e-12
    safe = np.where(usable, denom, 1.0)
    t = (w[..., 0] * e[..., 1] - w[..., 1] * e[..., 0]) / safe
    s = (w[..., 0] * d[1] - w[..., 1] * d[0]) / safe
    good = usable & (t >= -1e-9) & (s >= -1e-9) & (s <= 1 + 1e-9)
    return float(t[good].min()) if good.any() else _INF


def slide_distance(moving: np.ndarray, obstacle: np.ndarray, direction: Point) -> float:
    """How far ``moving`` (convex polygon or segment vertices) slides along ``direction`` (unit
    vector) before touching the convex ``obstacle``; 0 if they already touch, inf if never."""
    d = np.asarray(direction, dtype=float)
    a = Polygon(moving) if len(moving) > 2 else shapely.linestrings(moving)
    b = Polygon(obstacle) if len(obstacle) > 2 else shapely.linestrings(obstacle)
    if shapely.intersects(a, b):
        return 0.0
    s_a, e_a = _edges(moving)
    s_b, e_b = _edges(obstacle)
    return max(0.0, min(_ray_hits(moving, d, s_b, e_b), _ray_hits(obstacle, -d, s_a, e_a)))


def slide_convex(moving: Sequence[Point], moving_shape: BaseGeometry | None,
                 obstacle: Sequence[Point], obstacle_shape: BaseGeometry | None,
                 direction: Point) -> float:
    """`slide_distance` in plain floats, for a handful of vertices (two bases: the charge
    searches try dozens of slides, and numpy's per-call overhead dominated them).

    Same products, differences and order as `slide_distance`, so the answers are identical to
    the last bit. ``*_shape`` are the same shapes as shapely geometries (bases cache theirs) for
    the "already touching" test; None builds them, and only when the bounding boxes meet.

    >>> from engine.geometry.rect import Rect
    >>> a, b = Rect(0.0, 0.0, 90.0, 80.0, 40.0), Rect(10.0, 100.0, 265.0, 80.0, 40.0)
    >>> slide_convex(a.corners, a.polygon, b.corners, b.polygon, a.front) == \\
    ...     slide_distance(outline(a), outline(b), a.front)
    True
    """
    if _boxes_meet(moving, obstacle):
        a = moving_shape if moving_shape is not None else _shape_of(moving)
        b = obstacle_shape if obstacle_shape is not None else _shape_of(obstacle)
        if shapely.intersects(a, b):
            return 0.0
    if len(moving) * len(obstacle) > 1000:   # long outlines: numpy wins (a rectangle against a
        # 2" zone's 36-point outline is still 2.5x faster in plain floats)
        m, o = np.asarray(moving, dtype=float), np.asarray(obstacle, dtype=float)
        d = np.asarray(direction, dtype=float)
        (s_m, e_m), (s_o, e_o) = _edges(m), _edges(o)
        return max(0.0, min(_ray_hits(m, d, s_o, e_o), _ray_hits(o, -d, s_m, e_m)))
    d0, d1 = float(direction[0]), float(direction[1])
    s_a, e_a = _edges_py(moving)
    s_b, e_b = _edges_py(obstacle)
    return max(0.0, min(_ray_hits_py(moving, d0, d1, s_b, e_b),
                        _ray_hits_py(obstacle, -d0, -d1, s_a, e_a)))


def _shape_of(vertices: Sequence[Point]) -> BaseGeometry:
    return Polygon(vertices) if len(vertices) > 2 else shapely.linestrings(vertices)


def _edges_py(v: Sequence[Point]) -> tuple[Sequence[Point], list[Point]]:
    if len(v) == 2:
        return v[:1], [(v[1][0] - v[0][0], v[1][1] - v[0][1])]
    n = len(v)
    return v, [(v[(i + 1) % n][0] - v[i][0], v[(i + 1) % n][1] - v[i][1]) for i in range(n)]


def _ray_hits_py(origins: Sequence[Point], d0: float, d1: float, starts: Sequence[Point],
                 spans: Sequence[Point]) -> float:
    """`_ray_hits` operation for operation, in Python floats."""
    best = _INF
    for (q0, q1), (e0, e1) in zip(starts, spans):
        denom = d0 * e1 - d1 * e0
        if not abs(denom) > 1e-12:
            continue
        for o0, o1 in origins:
            w0, w1 = q0 - o0, q1 - o1
            t = (w0 * e1 - w1 * e0) / denom
            if t >= -1e-9 and t < best:
                s = (w0 * d1 - w1 * d0) / denom
                if s >= -1e-9 and s <= 1 + 1e-9:
                    best = t
    return best


def _boxes_meet(a: Sequence[Point], b: Sequence[Point]) -> bool:
    """The bounding boxes overlap or touch (shapes whose boxes are apart cannot intersect)."""
    ax = [p[0] for p in a]
    bx = [p[0] for p in b]
    if max(ax) < min(bx) or max(bx) < min(ax):
        return False
    ay = [p[1] for p in a]
    by = [p[1] for p in b]
    return not (max(ay) < min(by) or max(by) < min(ay))


def wheel_cost(rect: Rect, turn_deg: float) -> float:
    """Distance travelled by the outer moving corner of a wheel on a front corner (the frontage
    times the angle in radians)."""
    return rect.width * math.radians(abs(turn_deg))


def wheel(rect: Rect, turn_deg: float) -> Rect:
    """The base wheeled by ``turn_deg`` (CCW positive) pivoting on the front corner on the side it
    turns toward (left corner for a left/CCW wheel)."""
    pivot = rect.front_left if turn_deg > 0 else rect.front_right
    return rect.pivoted(pivot, turn_deg)


def wheel_poses(rect: Rect, turn_deg: float, step_deg: float = 10.0) -> list[Rect]:
    """Intermediate poses of a wheel, every ``step_deg`` degrees, both ends included."""
    steps = max(1, math.ceil(abs(turn_deg) / step_deg))
    pivot = rect.front_left if turn_deg > 0 else rect.front_right
    return [rect.pivoted(pivot, turn_deg * i / steps) for i in range(steps + 1)]


def swept_area(poses: list[Rect]) -> Polygon:
    """Area covered moving through ``poses`` in order (hull of each consecutive pair)."""
    if len(poses) == 1:
        return poses[0].polygon
    corners = np.array([p.corners for p in poses], dtype=float)            # (n, 4, 2)
    pairs = np.concatenate([corners[:-1], corners[1:]], axis=1)            # (n-1, 8, 2)
    return shapely.union_all(shapely.convex_hull(shapely.multipoints(pairs)))
