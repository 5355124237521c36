"""The array-first motion and contact geometry (`motion.convex_slides`, `contact.edge_shares`,
`contact.find_contacts`, `poses.Poses`) against small naive oracles: GEOS distances along the
slide, points sampled along each edge, every pair of bases tested one by one."""

from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import given
from hypothesis import strategies as st

from campo.engine.geometry.contact import edge_shares, find_contacts
from campo.engine.geometry.index import BaseIndex
from campo.engine.geometry.motion import convex_slides
from campo.engine.geometry.poses import Poses
from campo.engine.geometry.rect import Rect
from tests.ruleset_properties import property_settings

PROPS = property_settings(max_examples=150)

rects = st.builds(Rect, st.floats(0, 300), st.floats(0, 300),
                  st.one_of(st.sampled_from([0.0, 90.0, 180.0, 270.0]), st.floats(0, 359.9)),
                  st.sampled_from([25.0, 50.0, 80.0]), st.sampled_from([20.0, 30.0, 40.0]))


def _moved(vertices: np.ndarray, d: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The shape moved by each of ``at`` along ``d``."""
    v = vertices[None] + d[None, None] * np.asarray(at, dtype=float)[:, None, None]
    return shapely.linestrings(v) if vertices.shape[0] == 2 else shapely.polygons(v)


@PROPS
@given(rects, rects, st.floats(0, 2 * math.pi), st.sampled_from([0.0, 10.0, 50.0]),
       st.booleans())
def test_slide_stops_where_the_gap_first_reaches_the_reach(a: Rect, b: Rect, angle: float,
                                                           reach: float, front: bool) -> None:
    """At the slide's end the gap (GEOS) is the reach; a millimetre earlier it was wider; a
    slide that never arrives passes every sampled point farther than the reach."""
    moving = np.array((a.front_left, a.front_right) if front else a.corners)
    d = np.array([math.cos(angle), math.sin(angle)])
    s = float(convex_slides(moving[None], np.array([b.corners]), d[None], reach)[0])
    def gap(*at: float) -> np.ndarray:
        return shapely.distance(_moved(moving, d, np.array(at)), b.polygon)

    if s == 0.0:
        assert gap(0.0)[0] <= reach + 1e-6
    elif math.isinf(s):
        assert (gap(*np.arange(0.0, 1000.0, 0.5)) > reach - 1e-6).all()
    else:
        near, before = gap(s, max(0.0, s - 1.0))
        assert abs(near - reach) < 1e-6 and before > reach


@PROPS
@given(rects, rects, st.sampled_from([0.5, 2.5, 10.0]))
def test_edge_shares_are_the_lengths_of_edge_points_near_the_other(a: Rect, b: Rect,
                                                                   tol: float) -> None:
    """Each edge of ``a``: the length of its points inside ``b`` grown by ``tol`` into a larger
    rectangle, counted on 2,001 samples."""
    got = edge_shares(Poses.of([a]), Poses.of([b]), tol)[0]
    for k, (p, q) in enumerate(zip(a.corners, a.corners[1:] + a.corners[:1])):
        t = np.linspace(0.0, 1.0, 2001)
        dx, dy = (np.array(p) + np.outer(t, np.subtract(q, p)) - (b.cx, b.cy)).T
        u, v = dx * b.right[0] + dy * b.right[1], dx * b.front[0] + dy * b.front[1]
        inside = (np.abs(u) <= b.width / 2 + tol) & (np.abs(v) <= b.depth / 2 + tol)
        length = math.dist(p, q)
        assert abs(got[k] - inside.mean() * length) <= 2 * length / 2000 + 1e-9


@PROPS
@given(st.lists(rects, min_size=2, max_size=12), st.sampled_from([0.0, 2.5, 10.0]))
def test_contacts_are_the_pairs_within_the_tolerance(bases: list[Rect], tol: float) -> None:
    polys = [r.polygon for r in bases]
    index = BaseIndex([f"b{k}" for k in range(len(bases))], polys)
    found = find_contacts(index, Poses.of(bases), tol)
    want = {(i, j) for i in range(len(bases)) for j in range(len(bases))
            if i != j and shapely.distance(polys[i], polys[j]) <= tol}
    assert set(zip(found.a.tolist(), found.b.tolist())) == want


@PROPS
@given(st.lists(rects, min_size=2, max_size=12), st.sampled_from([0.0, 2.5]),
       st.sampled_from([0.0, 1.0]), st.sampled_from([0.0, 25.4]))
def test_contacts_decide_every_pair_within_the_reach(bases: list[Rect], tol: float, close: float,
                                                     watch: float) -> None:
    """The pairs handed to ``decide`` (a live game's memory of close calls learns from each)
    are those within the tolerance, the close call and the watch, each once (i < j), with
    their margins."""
    polys = [r.polygon for r in bases]
    index = BaseIndex([f"b{k}" for k in range(len(bases))], polys)
    asked: dict[tuple[int, int], float] = {}

    def decide(margins: np.ndarray, i: np.ndarray, j: np.ndarray) -> tuple[list[bool], list[bool]]:
        asked.update(zip(zip(i.tolist(), j.tolist()), margins.tolist()))
        return (margins >= 0).tolist(), [False] * len(margins)

    find_contacts(index, Poses.of(bases), tol, close, watch, decide=decide)
    reach = tol + close + watch
    want = {(i, j): tol - shapely.distance(polys[i], polys[j]) for i in range(len(bases))
            for j in range(i + 1, len(bases)) if shapely.distance(polys[i], polys[j]) <= reach}
    assert asked == want


@PROPS
@given(rects, st.floats(-100, 100), st.floats(-100, 100), st.floats(-180, 180))
def test_poses_move_and_turn_as_rects(r: Rect, dx: float, dy: float, turn: float) -> None:
    p = Poses.of([r])
    for got, want in ((p.moved(np.array([[dx, dy]])), r.moved(dx, dy)),
                      (p.pivoted(np.array([r.front_left]), np.array([turn])),
                       r.pivoted(r.front_left, turn)),
                      (p.take(np.array([0, 0])), r)):
        assert np.allclose(got.corners[0], want.corners, atol=1e-9)
        assert np.allclose(got.front[-1], want.front, atol=1e-12)
