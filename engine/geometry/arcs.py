"""Arcs of fire (and of charge) as polygons, and measuring to the part of a target inside one.

An arc is bounded by two rays starting at the ends of a front segment, each turned outward from
straight ahead by a half-angle; it is the region ahead of the front between the rays
("a trapezoid widening forward"). Cut at a range it is intersected with the set of points within
that range of the front segment.

>>> from campo.engine.geometry.rect import Rect
>>> r = Rect(0.0, 0.0, 90.0, 80.0, 40.0)
>>> arc = arc_polygon(r.front_left, r.front_right, r.front, 30.0, 100.0)
>>> round(arc.area)  # 80 * 100 + 100 * tan(30°) * 100
13774
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from campo.engine.geometry.rect import Point, rotate


def arc_polygon(left: Point, right: Point, facing: Point, half_angle_deg: float,
                reach: float) -> Polygon:
    """The arc ahead of the segment ``left``-``right`` out to perpendicular distance ``reach``.

    ``facing`` is the unit vector straight ahead; rays are turned ``half_angle_deg`` outward
    (the left ray to the left, the right ray to the right).
    """
    return shapely.polygons(arc_vertices(left, right, facing, half_angle_deg, reach))


def arc_vertices(left: Point, right: Point, facing: Point, half_angle_deg: float,
                 reach: float) -> list[Point]:
    """The outline of `arc_polygon` (4 points; 3 when the front is a point), for building many
    arcs with one vectorised ``shapely.polygons`` call."""
    if not 0.0 <= half_angle_deg < 90.0:
        raise ValueError(f"arc half-angle must be in [0, 90) degrees, got {half_angle_deg}")
    length = reach / math.cos(math.radians(half_angle_deg))
    dl = rotate(facing, half_angle_deg)
    dr = rotate(facing, -half_angle_deg)
    far_left = (left[0] + dl[0] * length, left[1] + dl[1] * length)
    far_right = (right[0] + dr[0] * length, right[1] + dr[1] * length)
    if math.dist(left, right) < 1e-9:
        return [left, far_right, far_left]
    return [left, right, far_right, far_left]


def arc_vertices_many(lefts: np.ndarray, rights: np.ndarray, facings: np.ndarray,
                      half_angles_deg: np.ndarray, reaches: np.ndarray) -> np.ndarray | None:
    """`arc_vertices` of many fronts ((n, 2) arrays; angles and reaches (n,)) as (n, 4, 2), or
    None when some front is a point (3 vertices). The same float operations: the cosines and
    sines come from `math`, once per distinct angle, and numpy does the products and sums."""
    n = len(lefts)
    if any(math.dist(a, b) < 1e-9 for a, b in zip(lefts.tolist(), rights.tolist())):
        return None
    if n and not ((half_angles_deg >= 0.0) & (half_angles_deg < 90.0)).all():
        bad = half_angles_deg[~((half_angles_deg >= 0.0) & (half_angles_deg < 90.0))][0]
        raise ValueError(f"arc half-angle must be in [0, 90) degrees, got {bad}")
    cos_h = np.empty(n)
    turns = {}   # signed angle -> (cos, sin), as `rect.rotate` computes them
    for h in set(half_angles_deg.tolist()):
        cos_h[half_angles_deg == h] = math.cos(math.radians(h))
        for a in (h, -h):
            r = math.radians(a)
            turns[a] = (math.cos(r), math.sin(r))
    length = reaches / cos_h
    out = np.empty((n, 4, 2))
    out[:, 0], out[:, 1] = lefts, rights
    fx, fy = facings[:, 0], facings[:, 1]
    for corner, origin, sign in ((3, lefts, 1.0), (2, rights, -1.0)):
        c = np.array([turns[sign * h][0] for h in half_angles_deg.tolist()])
        s = np.array([turns[sign * h][1] for h in half_angles_deg.tolist()])
        dx, dy = fx * c - fy * s, fx * s + fy * c          # rect.rotate(facing, ±h)
        out[:, corner, 0] = origin[:, 0] + dx * length
        out[:, corner, 1] = origin[:, 1] + dy * length
    return out


def rotate_many(vectors: np.ndarray, degrees: np.ndarray) -> np.ndarray:
    """`rect.rotate` of many vectors ((n, 2); angles (n,)) with the same float operations: the
    cosine and sine from `math`, once per distinct angle, and numpy for the products and sums."""
    c, s = np.empty(len(degrees)), np.empty(len(degrees))
    negative = np.signbit(degrees)      # 0.0 and -0.0 apart: their sines differ in sign
    for d, neg in set(zip(degrees.tolist(), negative.tolist())):
        a = math.radians(d)
        at = (degrees == d) & (negative == neg)
        c[at], s[at] = math.cos(a), math.sin(a)
    x, y = vectors[:, 0], vectors[:, 1]
    return np.column_stack([x * c - y * s, x * s + y * c])


def within_range_of_segment(left: Point, right: Point, reach: float, quad_segs: int = 16) -> Polygon:
    """Every point within ``reach`` of the segment (a stadium shape)."""
    return LineString([left, right]).buffer(reach, quad_segs=quad_segs)


def arc_to_range(arc: Polygon, left: Point, right: Point, reach: float) -> Polygon:
    """``arc`` cut off at ``reach`` from the front segment (for drawing and range tests)."""
    return shapely.intersection(arc, within_range_of_segment(left, right, reach))


def band_rings(arc: Polygon, left: Point, right: Point, edges: list[float]) -> list[Polygon]:
    """The arc split into bands: [0, e0], (e0, e1], ... as polygons (for the overlay)."""
    rings, inner = [], None
    for reach in edges:
        outer = arc_to_range(arc, left, right, reach)
        rings.append(outer if inner is None else shapely.difference(outer, inner))
        inner = outer
    return rings
