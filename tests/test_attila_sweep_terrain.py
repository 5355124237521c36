"""`sweeps._quad_in_polygon` (a charge path's inner rectangle certainly overlapping a terrain
area, in plain floats) against GEOS: every "certainly" must be a GEOS intersection, on random
and non-convex polygons, rotated rectangles, and rectangles touching or just crossing an edge
(where it must leave the answer to GEOS)."""

from __future__ import annotations

import math
import random

import shapely

from campo.engine.rulesets.attila.sweeps import _inside, _quad_in_polygon
from campo.engine.geometry.motion import _rect_shapes


def _rect(cx: float, cy: float, heading: float, hw: float, hd: float):
    a = math.radians(heading)
    f = (math.cos(a), math.sin(a))
    return ((cx, cy), f, (f[1], -f[0]), hw, hd)


def _agrees(rect, ring: list[list[float]]) -> bool:
    """The plain-float answer, checked: True only if GEOS says they intersect."""
    certain = _quad_in_polygon(rect, ring)
    if certain:
        assert shapely.intersects(shapely.polygons(ring), _rect_shapes([rect])[0]), (rect, ring)
    return certain


def _star(rng: random.Random, cx: float, cy: float) -> list[list[float]]:
    """A random non-convex (star-shaped) ring, closed."""
    n = rng.randint(4, 9)
    pts = [[cx + rng.uniform(30, 120) * math.cos(2 * math.pi * k / n),
            cy + rng.uniform(30, 120) * math.sin(2 * math.pi * k / n)] for k in range(n)]
    return pts + [pts[0]]


def test_certain_overlaps_are_geos_intersections_on_random_shapes() -> None:
    rng = random.Random(3)
    found = 0
    for _ in range(2000):
        ring = _star(rng, rng.uniform(0, 1000), rng.uniform(0, 600))
        cx, cy = ring[0][0] + rng.uniform(-150, 150), ring[0][1] + rng.uniform(-150, 150)
        found += _agrees(_rect(cx, cy, rng.uniform(0, 360), rng.uniform(5, 30),
                               rng.uniform(5, 80)), ring)
    assert found > 200           # the shortcut settles many


def test_touching_and_grazing_rectangles_are_left_to_geos() -> None:
    square = [[0.0, 0.0], [100.0, 0.0], [100.0, 100.0], [0.0, 100.0], [0.0, 0.0]]
    for heading in (0.0, 90.0, 180.0, 270.0, 45.0):
        for gap in (0.0, 1e-9, 1e-7, -1e-9, -1e-7):
            # a rectangle whose nearest corner or edge lies on the square's right edge (+gap)
            hw, hd = 10.0, 20.0
            a = math.radians(heading)
            reach = abs(hw * math.sin(a)) + abs(hd * math.cos(a))   # half extent along x
            rect = _rect(100.0 + reach + gap, 50.0, heading, hw, hd)
            assert not _quad_in_polygon(rect, square)
            _agrees(rect, square)
    # well inside is certain; a corner just inside the edge by less than the spare is not
    assert _quad_in_polygon(_rect(50.0, 50.0, 30.0, 10.0, 20.0), square)
    assert not _inside(100.0 - 1e-7, 50.0, square)
    assert _inside(100.0 - 1e-3, 50.0, square)


def test_polygon_vertex_inside_a_large_rectangle() -> None:
    # the small polygon sits wholly inside the rectangle: no corner of the rectangle is in it
    tri = [[10.0, 10.0], [12.0, 10.0], [11.0, 12.0], [10.0, 10.0]]
    rect = _rect(11.0, 11.0, 17.0, 40.0, 40.0)
    assert _agrees(rect, tri)
