"""Generic geometry (engine.geometry): rectangles, zones, arcs, contact, sight, sliding, index.

Fixture catalogue in the spirit of shapely's tests/common.py: touching at a corner, exactly on an
arc boundary, exactly at maximum range, overlapping, rotated by odd angles.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Polygon

from campo.engine.geometry import (
    BaseIndex,
    Rect,
    SightField,
    arc_polygon,
    beyond_front_line,
    in_contact,
    sight_lines,
    touched_edge,
    wheel,
    wheel_cost,
    zone_of,
)
from campo.engine.geometry.motion import convex_slides
from campo.engine.results import Zone
from tests.sight_questions import clear

IN = 25.0


def at(x: float, y: float, h: float, w: float = 80.0, d: float = 40.0) -> Rect:
    return Rect(x, y, h, w, d)


@pytest.mark.parametrize("heading", [0.0, 37.0, 90.0, 211.5, 359.0])
def test_corners_and_frame_round_trip(heading: float) -> None:
    r = at(123.0, -45.0, heading)
    for u, v in [(-40, 20), (40, 20), (40, -20), (-40, -20), (7.5, -3.25)]:
        x, y = r.from_local(u, v)
        assert r.to_local(x, y) == pytest.approx((u, v))
    assert r.polygon.area == pytest.approx(80 * 40)
    # the front edge faces the heading
    fx, fy = r.front
    mid = r.front_centre
    assert (mid[0] - r.cx, mid[1] - r.cy) == pytest.approx((fx * 20, fy * 20))


def test_right_is_right_as_seen_from_behind() -> None:
    r = at(0, 0, 90.0)  # facing +y: right is +x
    assert r.right == pytest.approx((1.0, 0.0))
    assert r.front_right[0] > r.front_left[0]


@pytest.mark.parametrize(("point", "zone"), [
    ((0, 21), Zone.FRONT), ((500, 20.0), Zone.FRONT),     # on the extended front line = front
    ((41, 0), Zone.RIGHT), ((-41, 0), Zone.LEFT), ((60, -100), Zone.RIGHT),
    ((0, -21), Zone.REAR), ((40, -21), Zone.REAR), ((0, 0), Zone.INSIDE),
])
def test_zones_front_halfplane(point: tuple[float, float], zone: Zone) -> None:
    assert zone_of(at(0, 0, 90.0), *point) is zone


def test_zones_rotated_odd_angle() -> None:
    r = at(300, 200, 211.0)
    for (u, v), zone in [((0, 30), Zone.FRONT), ((50, 0), Zone.RIGHT), ((-50, 0), Zone.LEFT),
                         ((0, -30), Zone.REAR)]:
        assert zone_of(r, *r.from_local(u, v)) is zone


def test_beyond_front_line_tolerance() -> None:
    r = at(0, 0, 90.0)
    assert not beyond_front_line(r, (0, 20.0), 2.5)      # on the line: not beyond
    assert not beyond_front_line(r, (0, 18.0), 2.5)      # within tolerance: not beyond
    assert beyond_front_line(r, (0, 17.0), 2.5)


def test_arc_exact_boundary_and_corner() -> None:
    r = at(0, 0, 90.0)
    arc = arc_polygon(r.front_left, r.front_right, r.front, 30.0, 500.0)
    # a point exactly on the right ray, 100 mm out
    a = math.radians(30)
    p = (40 + 100 * math.sin(a), 20 + 100 * math.cos(a))
    assert shapely.dwithin(arc, shapely.Point(p), 1e-6)
    q = (p[0] + 0.01, p[1])
    assert not shapely.dwithin(arc, shapely.Point(q), 1e-6)


def test_contact_tolerance_and_overlap() -> None:
    a = at(0, 0, 90.0)
    assert in_contact(a, at(0, 40.0 + 2.4, 270.0), 2.5)
    assert not in_contact(a, at(0, 40.0 + 2.6, 270.0), 2.5)
    assert in_contact(a, at(0, 39.0, 270.0), 2.5)          # overlapping by 1 mm


@pytest.mark.parametrize(("other", "edge"), [
    (at(0, 40, 270.0), "front"),
    (at(0, -40, 90.0), "rear"),
    (at(-60, 0, 0.0, 80, 40), "left"),          # side on, flush on the left edge
    (at(80, 0, 90.0), "right"),                 # side by side
    (at(80, 40, 90.0), "front"),                # corner to corner at the front right: tie -> front
    (at(80, -40, 90.0), "right"),               # corner to corner at the rear right: flank before rear
])
def test_touched_edge(other: Rect, edge: str) -> None:
    assert touched_edge(at(0, 0, 90.0), other, 2.5) == edge


def test_touched_edge_rotated_table() -> None:
    a, b = at(0, 0, 90.0), at(-60, 0, 0.0)
    for turn in (17.0, 133.0, 251.0):
        def rot(r: Rect) -> Rect:
            x, y = r.cx, r.cy
            c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
            return Rect(x * c - y * s, x * s + y * c, r.heading_deg + turn, r.width, r.depth)
        assert touched_edge(rot(a), rot(b), 2.5) == "left"


def test_slide_distance_and_flank_first() -> None:
    def slide(a: Rect, b: Rect, reach: float = 0.0) -> float:
        corners = np.array([a.corners, b.corners], dtype=float)
        return float(convex_slides(corners[:1], corners[1:], np.array([[0.0, 1.0]]), reach)[0])

    a = at(0, 0, 90.0)
    assert slide(a, at(0, 100, 270.0)) == pytest.approx(60.0)
    assert slide(a, at(500, 100, 0.0)) == math.inf
    assert slide(a, at(0, 30, 270)) == 0.0
    assert slide(a, at(0, 100, 270.0), reach=2 * IN) == pytest.approx(10.0)
    # a front edge (two vertices) slides as far as the rectangle does, face to face
    front = np.array([a.corners[:2]], dtype=float)
    b = np.array([at(0, 100, 270.0).corners], dtype=float)
    assert convex_slides(front, b, np.array([[0.0, 1.0]]))[0] == pytest.approx(60.0)


def test_wheel_pivots_on_front_corner() -> None:
    a = at(0, 0, 90.0)
    w = wheel(a, 90.0)   # left wheel on the front-left corner
    assert w.front_left == pytest.approx(a.front_left)
    assert w.heading_deg == pytest.approx(180.0)
    assert wheel_cost(a, 90.0) == pytest.approx(80 * math.pi / 2)


def test_sight_field_blocks_and_depth() -> None:
    wood = Polygon([(40, -50), (100, -50), (100, 50), (40, 50)])      # 60 mm deep
    field = SightField(deep_areas=[wood], deep_area_ids=["w"], max_depth=2 * IN)
    assert not clear(field, sight_lines([(0, 0)], [(200, 0)])).any()
    shallow = SightField(deep_areas=[wood], deep_area_ids=["w"], max_depth=2.5 * IN)
    assert clear(shallow, sight_lines([(0, 0)], [(200, 0)])).all()
    crest = SightField(walls=[LineString([(50, -100), (50, 100)])])
    assert not clear(crest, sight_lines([(0, 0)], [(200, 0)])).any()
    body = Polygon([(90, 20), (110, 20), (110, 40), (90, 40)])
    corridor = SightField(bodies=[body], body_ids=["u"])
    lines = sight_lines([(0, 0)], [(200, 0)])
    assert clear(corridor, lines).all()
    assert not clear(corridor, lines, corridor=IN / 2 * 1.7).any()   # 21 mm corridor touches it
    assert clear(corridor, lines, corridor=IN / 2 * 1.7, exclude={"u"}).all()


def test_index_answers_what_a_scan_of_every_base_answers() -> None:
    rng = np.random.default_rng(3)
    rects = [at(float(x), float(y), float(h)) for x, y, h in rng.uniform(0, 600, (60, 3))]
    ids = [f"b{i}" for i in range(len(rects))]
    shapes = [r.polygon for r in rects]
    index = BaseIndex(ids, shapes)
    for d in (0.0, 2.5, 50.0, 150.0):
        scanned = [(ids[i], ids[j]) for i in range(len(shapes)) for j in range(i + 1, len(shapes))
                   if shapes[i].distance(shapes[j]) <= d]
        assert index.pairs_within(d) == sorted(scanned)
        assert index.within(shapes[0], d) == [ids[i] for i in range(len(shapes))
                                              if shapes[0].distance(shapes[i]) <= d]


@pytest.mark.parametrize("module", [
    "campo.engine.geometry.rect", "campo.engine.geometry.zones", "campo.engine.geometry.arcs",
    "campo.engine.geometry.contact", "campo.engine.geometry.sight", "campo.engine.geometry.motion",
    "campo.engine.geometry.index", "campo.engine.state", "campo.engine.connected",
])
def test_docstring_examples(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
