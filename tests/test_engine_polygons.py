"""`engine.geometry.polygons` (convex polygons in batches, numpy) against GEOS, one shape at a
time: clipping by half-planes, centroids, distance from a segment; on random rectangles and
arcs, with points exactly on the cutting lines."""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from campo.engine.geometry.polygons import centroids, clip_convex, segment_distances
from campo.engine.geometry.rect import Rect

_coord = st.integers(0, 400_000).map(lambda um: um / 1000.0)


@st.composite
def _rects(draw: Any) -> Rect:
    return Rect(draw(_coord), draw(_coord), draw(st.sampled_from([0.0, 30.0, 90.0, 123.4])),
                draw(st.sampled_from([25.0, 80.0])), draw(st.sampled_from([20.0, 40.0])))


def _batch(rects: list[Rect]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    c = np.array([r.corners for r in rects], dtype=float)
    return c[:, :, 0].T.copy(), c[:, :, 1].T.copy(), np.full(len(rects), 4)


def _polygon(x: np.ndarray, y: np.ndarray, n: int) -> Any:
    pts = list(zip(x[:n].tolist(), y[:n].tolist()))
    if n >= 3:
        return shapely.Polygon(pts)
    return shapely.MultiPoint(pts) if n else shapely.Polygon()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(_rects(), min_size=1, max_size=6), _coord, _coord,
       st.floats(0, 359.0), st.booleans())
def test_clip_is_geos_intersection(rects: list[Rect], px: float, py: float, turn: float,
                                   two: bool) -> None:
    """Cut by the half-plane left of a line (and a second, square to it): the same area and
    outline as GEOS's intersection with that region."""
    a = np.radians(turn)
    d = np.array([np.cos(a), np.sin(a)])       # along the line
    left = np.array([-d[1], d[0]])             # the kept side
    big = 1e4
    planes = [lambda x, y: (x - px) * left[0] + (y - py) * left[1]]
    back = -big if not two else 0.0
    if two:                                    # and ahead of the point along the line
        planes.append(lambda x, y: (x - px) * d[0] + (y - py) * d[1])
    p = np.array([px, py])
    region = shapely.Polygon([p + back * d, p + big * d, p + big * d + big * left,
                              p + back * d + big * left])
    x, y, n = clip_convex(*_batch(rects), planes)
    cx, cy = centroids(x, y, n)
    for k, r in enumerate(rects):
        want = shapely.intersection(r.polygon, region)
        got = _polygon(x[:, k], y[:, k], int(n[k]))
        assert abs(got.area - want.area) < 1e-6 * max(1.0, want.area)
        if want.area > 1e-3:
            assert shapely.hausdorff_distance(got, want) < 1e-6
            c = shapely.centroid(want)
            assert abs(cx[k] - c.x) < 1e-6 and abs(cy[k] - c.y) < 1e-6


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(_rects(), min_size=1, max_size=6),
       st.lists(st.tuples(_coord, _coord, _coord, _coord), min_size=6, max_size=6))
def test_segment_distance_is_geos_distance(rects: list[Rect],
                                           segs: list[tuple[float, ...]]) -> None:
    x, y, n = _batch(rects)
    s = np.array(segs[:len(rects)], dtype=float).reshape(-1, 2, 2)
    got = segment_distances(x, y, n, s[:, 0], s[:, 1])
    want = shapely.distance(shapely.linestrings(s), np.array([r.polygon for r in rects]))
    assert np.allclose(got, want, atol=1e-9)


def test_a_polygon_outside_comes_back_empty_and_one_touching_as_its_contact() -> None:
    x, y, n = _batch([Rect(0.0, 0.0, 0.0, 10.0, 10.0)])
    _, _, gone = clip_convex(x, y, n, [lambda px, py: px - 20.0])
    assert gone.tolist() == [0]
    tx, ty, edge = clip_convex(x, y, n, [lambda px, py: px - 5.0])     # only its edge x = 5
    assert edge.tolist() == [2] and sorted(ty[:2, 0].tolist()) == [-5.0, 5.0]
    assert centroids(tx, ty, edge)[0].tolist() == [5.0]


def test_segment_distance_to_a_rectangle_in_contact_or_in_a_padded_batch() -> None:
    """Whole targets are measured in the same batch as parts cut by their arc (padded by
    repeating their last vertex): a front along an edge, touching a corner or in line with an
    edge beyond it reads the same distance padded or not, 0 when they meet."""
    r = Rect(100.0, 50.0, 30.0, 80.0, 40.0)
    c = np.array(r.corners, dtype=float)
    fl, fr = c[0], c[1]
    segs = np.array([[fl, fr], [fr, fl], [fl, fl + [0.0, 30.0]],
                     [fr + (fr - fl), fr + 2 * (fr - fl)], [fl + [0.0, 1e-3], fr + [0.0, 1e-3]]])
    x, y, n = _batch([r] * len(segs))
    plain = segment_distances(x, y, n, segs[:, 0], segs[:, 1])
    padded = segment_distances(np.concatenate([x, x[-1:]]), np.concatenate([y, y[-1:]]), n,
                               segs[:, 0], segs[:, 1])
    assert plain.tobytes() == padded.tobytes()
    assert plain[:3].tolist() == [0.0, 0.0, 0.0]
    want = shapely.distance(shapely.linestrings(segs), r.polygon)
    assert np.allclose(plain, want, atol=1e-9)
