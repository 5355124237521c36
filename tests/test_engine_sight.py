"""`SightField` (engine.geometry.sight) against a deliberately naive oracle: every line tested
one shapely call at a time against every obstacle, on random tables of bodies, walls and deep
areas, with corridors, left-out bodies, thin bodies and uncounted areas; and the answers the
rulebooks rely on, case by case."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Polygon

from campo.engine.geometry.contact import RectTable
from campo.engine.geometry.rect import Rect
from campo.engine.geometry.sight import (
    BODY,
    CLEAR,
    CORRIDOR,
    DEPTH,
    WALL,
    SightField,
    sight_lines,
)
from campo.engine.geometry import sight_bodies
from campo.engine.geometry.sight_bodies import range_min
from tests.sight_questions import SightQuery, clear, clear_many

# table coordinates as the tracker gives them (micrometre steps)
_coord = st.integers(0, 600_000).map(lambda um: um / 1000.0)


@st.composite
def _rects(draw: Any) -> Rect:
    return Rect(draw(_coord), draw(_coord), draw(st.floats(0, 359.9)),
                draw(st.sampled_from([25.0, 40.0, 80.0])), draw(st.sampled_from([20.0, 40.0])))


@contextmanager
def _few_pairs(limit: int) -> Iterator[None]:
    """`sight_bodies.FEW_PAIRS` set to ``limit`` (0: every question goes through the sweep)."""
    saved = sight_bodies.FEW_PAIRS
    sight_bodies.FEW_PAIRS = limit
    try:
        yield
    finally:
        sight_bodies.FEW_PAIRS = saved


def _oracle(field: SightField, line: Any, q: SightQuery) -> bool:
    """The rule itself, one shapely call at a time."""
    for body, bid in zip(field.bodies, field.body_ids):
        if bid in q.exclude or bid in q.ignore_bodies:
            continue
        if shapely.intersects(line, body) or (q.corridor > 0 and bid not in q.corridor_exclude
                                              and shapely.dwithin(line, body, q.corridor)):
            return False
    ends = shapely.union_all(list(q.ends)) if q.ends else None
    for wall in field.walls:
        part = wall if ends is None else shapely.difference(wall, ends)
        if not part.is_empty and shapely.dwithin(line, part, q.corridor):
            return False
    for area, aid in zip(field.deep_areas, field.deep_area_ids):
        if aid in q.uncounted_areas:
            continue
        if shapely.length(shapely.intersection(line, area)) > field.max_depth + 1e-6:
            return False
    return True


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.lists(_rects(), min_size=1, max_size=14),
       st.lists(st.tuples(_coord, _coord), min_size=1, max_size=4),
       st.lists(st.tuples(_coord, _coord), min_size=1, max_size=10),
       st.sampled_from([0.0, 0.5]), st.sampled_from([0.0, 12.5]), st.booleans())
def test_field_equals_the_naive_oracle(bodies: list[Rect], origins: list[tuple[float, float]],
                                       ends: list[tuple[float, float]], graze: float,
                                       corridor: float, terrain: bool) -> None:
    ids = [f"b{i}" for i in range(len(bodies))]
    walls = [LineString([(100.0, 50.0), (300.0, 450.0), (520.0, 480.0)])] if terrain else []
    areas = ([Rect(300.0, 300.0, 20.0, 150.0, 90.0).polygon,
              Polygon([(50, 50), (200, 60), (120, 120), (180, 200), (40, 180)])]
             if terrain else [])
    # the bodies shrunk by a graze, as ISD gives its bases (`RectTable.inset_corners`)
    shapes = shapely.polygons(RectTable(bodies).inset_corners(graze))
    field = SightField(shapes, ids, walls, [], areas, ["wood", "town"][:len(areas)],
                       max_depth=50.0 if terrain else float("inf"))
    queries = [SightQuery(frozenset({"b0"}), corridor, frozenset({"b1"}),
                          (bodies[0].polygon,), uncounted_areas=frozenset({"wood"})),
               SightQuery(frozenset(), 0.0, ignore_bodies=frozenset(ids[2:4])),
               SightQuery(frozenset({ids[-1]}), corridor)]
    lines = sight_lines(origins, ends)
    owners = np.arange(len(lines)) % len(queries)
    want = [_oracle(field, lines[i], queries[o]) for i, o in enumerate(owners.tolist())]
    for few in (sight_bodies.FEW_PAIRS, 0):     # a few lines tested directly; many, swept
        with _few_pairs(few):
            got = clear_many(field, lines, owners, queries)
        assert got.tolist() == want, few


def test_a_line_from_inside_a_body_and_one_ending_in_it() -> None:
    body = Rect(100.0, 0.0, 0.0, 40.0, 40.0).polygon
    field = SightField([body], ["u"])
    lines = shapely.linestrings([[(100, 0), (300, 0)], [(0, 0), (100, 0)], [(0, 0), (79, 0)],
                                 [(0, 0), (80, 0)]])
    assert clear(field, lines).tolist() == [False, False, True, False]


def test_lines_all_round_an_origin() -> None:
    """Directions on both sides of the half turn (the sweep's wrap) meet the same bodies."""
    rng = np.random.default_rng(4)
    bodies = [Rect(float(x), float(y), float(h), 30.0, 20.0).polygon
              for x, y, h in rng.uniform(-200, 200, (25, 3))]
    field = SightField(bodies, [f"b{i}" for i in range(len(bodies))])
    angles = np.linspace(-np.pi, np.pi, 73)
    ends = np.stack([250 * np.cos(angles), 250 * np.sin(angles)], axis=1)
    lines = shapely.linestrings(np.stack([np.zeros_like(ends), ends], axis=1))
    want = [not any(shapely.intersects(line, b) for b in bodies) for line in lines]
    with _few_pairs(0):
        assert clear(field, lines).tolist() == want


def test_trace_names_each_kind_of_obstacle() -> None:
    unit = Rect(100.0, 0.0, 0.0, 20.0, 20.0).polygon
    crest = LineString([(200.0, -50.0), (200.0, 50.0)])
    wood = Polygon([(300, -50), (400, -50), (400, 50), (300, 50)])
    field = SightField([unit], ["unit"], [crest], ["hill"], [wood], ["wood"], max_depth=50.0)
    xy = np.array([[(0, 0), (500, 0)], [(150, 0), (500, 0)], [(250, 0), (500, 0)],
                   [(250, 0), (340, 0)], [(0, 14), (90, 14)]], dtype=float)
    from campo.engine.geometry.sight import Sightlines

    trace = field.trace(Sightlines(xy, np.array([0.0, 0, 0, 0, 5.0])))
    assert trace.kind.tolist() == [BODY, WALL, DEPTH, CLEAR, CORRIDOR]
    assert [field.name(b) for b in trace.blocker] == ["unit", "hill", "wood", "", "unit"]


def test_range_min_equals_brute_force() -> None:
    rng = np.random.default_rng(7)
    for n in (1, 7, 64, 300):
        start = rng.integers(0, n, 80)
        stop = np.minimum(n, start + rng.integers(0, n + 1, 80))
        value = rng.uniform(0, 10, 80).round(1)
        value_got, who = range_min(n, start, stop, value, np.arange(80))
        for p in range(n):
            holding = [k for k in range(80) if start[k] <= p < stop[k]]
            want = min((value[k] for k in holding), default=np.inf)
            assert value_got[p] == want
            assert (who[p] in holding and value[who[p]] == want) if holding else who[p] == -1


@pytest.mark.parametrize("graze", [0.0, 0.5])
def test_a_grazing_line_is_not_blocked(graze: float) -> None:
    def field(y: float) -> SightField:
        inset = RectTable([Rect(50.0, y, 0.0, 20.0, 20.0)]).inset_corners(graze)
        return SightField(shapely.polygons(inset), ["u"])

    line = sight_lines([(0.0, 0.0)], [(100.0, 0.0)])
    assert clear(field(10.2), line).tolist() == [True]   # its lower edge 0.2 mm above the line
    assert clear(field(9.8), line).tolist() == [graze > 0]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_coord, _coord), min_size=3, max_size=8),
       st.lists(st.tuples(_coord, _coord, _coord, _coord), min_size=1, max_size=6))
def test_convex_chords_equal_geos_lengths(points: list[tuple[float, float]],
                                          segs: list[tuple[float, ...]]) -> None:
    """`segments.convex_chords` (the depth inside convex woods) = GEOS's length of the
    intersection, for random convex polygons (hulls of random points) and segments."""
    from campo.engine.geometry.segments import convex_chords, convex_edges

    hull = shapely.convex_hull(shapely.MultiPoint(points))
    if hull.geom_type != "Polygon" or hull.area < 1.0:
        return
    edges = convex_edges(np.array([hull], dtype=object))[0]
    assert edges is not None
    xy = np.array(segs, dtype=float).reshape(-1, 2, 2)
    got = convex_chords(xy[:, 0], xy[:, 1], edges)
    want = shapely.length(shapely.intersection(shapely.linestrings(xy), hull))
    assert np.allclose(got, want, atol=1e-6), (got, want)


def test_surely_crossed_lines_cross() -> None:
    """`SightField.crosses` (the cheap certain test) never says "crosses" of a line that does
    not, and says it of a line clearly through a body."""
    rng = np.random.default_rng(11)
    bodies = [Rect(float(x), float(y), float(h), 80.0, 40.0).polygon
              for x, y, h in rng.uniform(100, 500, (30, 3))]
    field = SightField(bodies, [f"b{i}" for i in range(30)])
    starts = rng.uniform(0, 600, (400, 2))
    body = rng.integers(0, 30, 400)
    group = rng.integers(0, 400, 4000)
    ends = rng.uniform(0, 600, (4000, 2))
    got = field.crosses(starts, body, ends, group)
    lines = shapely.linestrings(np.stack([starts[group], ends], axis=1))
    assert not (got & ~shapely.intersects(lines, field.bodies[body[group]])).any()
    wall = SightField([Rect(300.0, 300.0, 0.0, 80.0, 40.0).polygon], ["w"])
    assert wall.crosses(np.array([[0.0, 300.0]]), np.array([0]), np.array([[600.0, 300.0]]),
                        np.array([0])).tolist() == [True]
    assert got.sum() > 100


def test_equal_walls_and_areas_share_their_arrays_across_fields() -> None:
    """Terrain-only sight geometry is built once per terrain content, not once per field."""
    def field(y: float) -> SightField:
        wall = LineString([(0.0, y), (100.0, y)])
        wood = Polygon([(0, 0), (50, 0), (50, 50), (0, 50)])
        return SightField(walls=[wall], deep_areas=[wood], max_depth=10.0)

    a, b, c = field(20.0), field(20.0), field(30.0)
    assert a._walls is b._walls and a._areas is b._areas
    assert a._walls is not c._walls


def test_segments_near_quads_agrees_with_shapely() -> None:
    """The numpy segment-quad test (both ends tested in one pass, corner-major quads) answers
    as GEOS does for random segments and turned rectangles, away from the boundary."""
    from campo.engine.geometry.segments import segments_near_quads

    rng = np.random.default_rng(7)
    n = 400
    centre, angle = rng.uniform(-50, 50, (n, 2)), rng.uniform(0, np.pi, n)
    half = rng.uniform(2, 20, (n, 2))
    u = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    v = np.stack([-u[:, 1], u[:, 0]], axis=1)
    signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=float)
    corners = (centre[:, None] + signs[None, :, :1] * (half[:, None, :1] * u[:, None])
               + signs[None, :, 1:] * (half[:, None, 1:] * v[:, None]))           # (n, 4, 2)
    seg = rng.uniform(-80, 80, (n, 2, 2))
    reach = rng.choice([0.0, 3.0], n)
    near, meet = segments_near_quads(seg, corners[:, :, 0].T.copy(), corners[:, :, 1].T.copy(),
                                     reach)
    lines, quads = shapely.linestrings(seg), shapely.polygons(corners)
    gap = shapely.distance(lines, quads)
    clear_cut = (gap == 0) | (np.abs(gap - reach) > 1e-6)
    assert clear_cut.sum() > n * 0.9
    assert (meet == shapely.intersects(lines, quads))[gap > 1e-6].all()
    assert (meet == (gap == 0))[(gap == 0) | (gap > 1e-6)].all()
    assert (near == (gap <= reach))[clear_cut].all()
    assert meet.any() and (~near).any() and (near & ~meet).any()
