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

import numpy as np
import shapely
from shapely.geometry import Polygon

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
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (w[..., 0] * e[..., 1] - w[..., 1] * e[..., 0]) / denom
        s = (w[..., 0] * d[1] - w[..., 1] * d[0]) / denom
    good = (np.abs(denom) > 1e-12) & (t >= -1e-9) & (s >= -1e-9) & (s <= 1 + 1e-9)
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
    hulls = [shapely.convex_hull(shapely.multipoints(list(a.corners) + list(b.corners)))
             for a, b in zip(poses, poses[1:])]
    return shapely.union_all(hulls)
