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

from campo.engine.geometry.rect import Point


def arc_polygon(left: Point, right: Point, facing: Point, half_angle_deg: float,
                reach: float) -> Polygon:
    """The arc ahead of the segment ``left``-``right`` out to perpendicular distance ``reach``.

    ``facing`` is the unit vector straight ahead; rays are turned ``half_angle_deg`` outward
    (the left ray to the left, the right ray to the right).
    """
    return shapely.polygons(arc_vertices(left, right, facing, half_angle_deg, reach))


def arc_vertices(left: Point, right: Point, facing: Point, half_angle_deg: float,
                 reach: float) -> list[Point]:
    """The outline of `arc_polygon` (4 points; 3 when the front is a point): `arc_vertices_many`
    of one arc."""
    ring = arc_vertices_many(np.array([left], dtype=float), np.array([right], dtype=float),
                             np.array([facing], dtype=float), np.array([half_angle_deg], dtype=float),
                             np.array([reach], dtype=float))[0]
    points = [(float(x), float(y)) for x, y in ring.tolist()]
    return points[1:] if math.dist(left, right) < 1e-9 else points


def arc_vertices_many(lefts: np.ndarray, rights: np.ndarray, facings: np.ndarray,
                      half_angles_deg: np.ndarray, reaches: np.ndarray) -> np.ndarray:
    """The outlines of many arcs ((n, 2) fronts and facings; half-angles and reaches (n,)) as
    (n, 4, 2): the front's left and right ends, then the far ends of the right and left rays
    (a point front repeats its point)."""
    if len(half_angles_deg) and not ((half_angles_deg >= 0.0) & (half_angles_deg < 90.0)).all():
        bad = half_angles_deg[~((half_angles_deg >= 0.0) & (half_angles_deg < 90.0))][0]
        raise ValueError(f"arc half-angle must be in [0, 90) degrees, got {bad}")
    a = np.radians(half_angles_deg)
    c, s = np.cos(a), np.sin(a)
    length = (reaches / c)[:, None]
    fx, fy = facings[:, 0], facings[:, 1]
    turned_left = np.stack([fx * c - fy * s, fx * s + fy * c], axis=1)
    turned_right = np.stack([fx * c + fy * s, -fx * s + fy * c], axis=1)
    return np.stack([lefts, rights, rights + turned_right * length, lefts + turned_left * length],
                    axis=1)


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
