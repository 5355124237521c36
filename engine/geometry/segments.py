"""Row-wise segment tests in numpy, for testing thousands of sight lines at once: a segment
against a convex quadrilateral, against another segment, its length inside a box or a convex
polygon. Touching counts as meeting, as in shapely's ``intersects``.

>>> import numpy as np
>>> qx, qy = np.array([[40.0] * 2, [60] * 2, [60] * 2, [40] * 2]), np.array([[-10.0] * 2,
...                                                                         [-10] * 2, [10] * 2, [10] * 2])
>>> p0, p1 = np.array([[0.0, 0.0], [0.0, 20.0]]), np.array([[100.0, 0.0], [100.0, 20.0]])
>>> [a.tolist() for a in segments_near_quads(np.stack([p0, p1], axis=1), qx, qy, 10.0)]
[[True, True], [True, False]]
>>> segments_within(p0, p1, np.array([[50.0, -5], [50, 5]]), np.array([[50.0, 15], [50, 25]]),
...                 0.0).tolist()
[True, True]
"""

from __future__ import annotations

import numpy as np
import shapely

CHUNK = 8192   # rows per numpy pass: temporaries stay in cache (2x faster on 100k lines)


def successors(a: np.ndarray, axis: int = 0) -> np.ndarray:
    """Each vertex's successor around its polygon along ``axis`` (the first after the last):
    ``np.roll(a, -1, axis)`` without its overhead (these arrays are small and many)."""
    lead = (slice(None),) * (axis % a.ndim)
    return np.concatenate([a[(*lead, slice(1, None))], a[(*lead, slice(0, 1))]], axis=axis)


def _cross(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    return ax * by - ay * bx


def point_segment_distance(px: np.ndarray, py: np.ndarray, ax: np.ndarray, ay: np.ndarray,
                           bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    """Row-wise distance from points (px, py) to segments a-b."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    some = length2 > 0
    along = (px - ax) * dx + (py - ay) * dy       # (a segment of no length: its point)
    t = along / length2 if some.all() else np.where(some, along / np.where(some, length2, 1.0), 0.0)
    t = np.minimum(np.maximum(t, 0.0), 1.0)              # `np.clip` without its overhead
    ex, ey = px - (ax + t * dx), py - (ay + t * dy)
    return np.sqrt(ex * ex + ey * ey)


def segments_near_quads(seg: np.ndarray, qx: np.ndarray, qy: np.ndarray,
                        reach: float | np.ndarray = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise: (does segment ``seg[i]`` (n, 2, 2: start, end) come within ``reach`` of the
    convex quadrilateral with corners ``qx[:, i]``, ``qy[:, i]`` ((4, n), corner-major: numpy
    reduces the short axis of such arrays fastest), does it meet it: cross or touch it)."""
    n = len(seg)
    reach = np.full(n, reach) if np.ndim(reach) == 0 else np.asarray(reach, dtype=float)
    if n <= CHUNK:
        return _segments_near_quads(seg, qx, qy, reach)
    near, meet = np.empty(n, dtype=bool), np.empty(n, dtype=bool)
    for s in range(0, n, CHUNK):
        e = s + CHUNK
        near[s:e], meet[s:e] = _segments_near_quads(seg[s:e], qx[:, s:e], qy[:, s:e], reach[s:e])
    return near, meet


def _segments_near_quads(seg: np.ndarray, ax: np.ndarray, ay: np.ndarray,
                         reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x0, y0, x1, y1 = seg[:, 0, 0], seg[:, 0, 1], seg[:, 1, 0], seg[:, 1, 1]
    bx, by = successors(ax), successors(ay)
    ex, ey = bx - ax, by - ay
    # an end inside (or on) the quad: the same side of every edge (both ends in one pass:
    # (end, corner, segment); each numpy call costs more than its arithmetic here)
    px, py = seg[:, :, 0].T[:, None], seg[:, :, 1].T[:, None]
    s = _cross(ex, ey, px - ax, py - ay)
    inside = ((s >= 0).all(axis=1) | (s <= 0).all(axis=1)).any(axis=0)
    # the segment crosses or touches an edge
    dx, dy = x1 - x0, y1 - y0
    o1 = _cross(dx, dy, ax - x0, ay - y0)
    o2 = successors(o1)                 # the same at each edge's other end
    crossing = (o1 * o2 <= 0) & (s[0] * s[1] <= 0)
    collinear = (o1 == 0) & (o2 == 0)
    point = (dx == 0) & (dy == 0)       # a segment of no length meets only what holds it
    if point.any():
        crossing &= ~point
        collinear &= ~point
    if collinear.any():   # on the same line: the extents must overlap
        crossing = np.where(collinear, _boxes_overlap(x0, y0, x1, y1, ax, ay, bx, by), crossing)
    meet = inside | crossing.any(axis=0)
    hit = meet.copy()
    near = ~meet & (reach > 0)
    if near.any():
        r = near.nonzero()[0]
        d = segments_apart(x0[r], y0[r], x1[r], y1[r], ax[:, r], ay[:, r], bx[:, r], by[:, r])
        hit[r] = d.min(axis=0) <= reach[r]
    return hit, meet


def segments_apart(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray,
                   ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    """The distance between segments 0-1 and a-b that do not meet: the least from an end of
    one to the other (the four distances in one call)."""
    # to one shape (`np.broadcast_arrays` costs more than the arithmetic on these small arrays;
    # a zero added changes no distance)
    shape = np.broadcast(x0, y0, x1, y1, ax, ay, bx, by).shape
    zero = np.zeros(shape)
    x0, y0, x1, y1, ax, ay, bx, by = (a if a.shape == shape else a + zero
                                      for a in (x0, y0, x1, y1, ax, ay, bx, by))
    cat = np.concatenate
    four = point_segment_distance(cat([x0, x1, ax, bx]), cat([y0, y1, ay, by]),
                                  cat([ax, ax, x0, x0]), cat([ay, ay, y0, y0]),
                                  cat([bx, bx, x1, x1]), cat([by, by, y1, y1]))
    return four.reshape(4, *x0.shape).min(axis=0)


def _boxes_overlap(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray,
                   ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    """Whether the boxes of segments 0-1 and a-b overlap (collinear segments: they meet)."""
    return ((np.maximum(x0, x1) >= np.minimum(ax, bx)) & (np.minimum(x0, x1) <= np.maximum(ax, bx))
            & (np.maximum(y0, y1) >= np.minimum(ay, by))
            & (np.minimum(y0, y1) <= np.maximum(ay, by)))


def segments_within(p0: np.ndarray, p1: np.ndarray, q0: np.ndarray, q1: np.ndarray,
                    reach: float | np.ndarray = 0.0) -> np.ndarray:
    """Row-wise: do segments ``p0``-``p1`` and ``q0``-``q1`` come within ``reach`` of each
    other (0: they meet)?"""
    x0, y0, x1, y1 = p0[:, 0], p0[:, 1], p1[:, 0], p1[:, 1]
    ax, ay, bx, by = q0[:, 0], q0[:, 1], q1[:, 0], q1[:, 1]
    dx, dy, ex, ey = x1 - x0, y1 - y0, bx - ax, by - ay
    o1, o2 = _cross(dx, dy, ax - x0, ay - y0), _cross(dx, dy, bx - x0, by - y0)
    o3, o4 = _cross(ex, ey, x0 - ax, y0 - ay), _cross(ex, ey, x1 - ax, y1 - ay)
    meet = (o1 * o2 <= 0) & (o3 * o4 <= 0)
    collinear = (o1 == 0) & (o2 == 0)
    if collinear.any():
        meet = np.where(collinear, _boxes_overlap(x0, y0, x1, y1, ax, ay, bx, by), meet)
    point = (dx == 0) & (dy == 0)       # a point meets the other segment only on it
    if point.any():
        meet = np.where(point, point_segment_distance(x0, y0, ax, ay, bx, by) == 0, meet)
    reach = np.full(meet.shape, reach, dtype=float)
    near = ~meet & (reach > 0)
    if near.any():
        r = near.nonzero()[0]
        meet[r] = segments_apart(x0[r], y0[r], x1[r], y1[r], ax[r], ay[r], bx[r], by[r]) <= reach[r]
    return meet


def clipped_lengths(p0: np.ndarray, p1: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Row-wise length of segment ``p0[i]``-``p1[i]`` inside the box ``boxes[i]`` (xmin, ymin,
    xmax, ymax), Liang-Barsky; 0 when it misses. An upper bound of the length inside any shape
    in that box.

    >>> clipped_lengths(np.array([[0.0, 5.0]]), np.array([[20.0, 5.0]]),
    ...                 np.array([[5.0, 0.0, 10.0, 10.0]])).tolist()
    [5.0]
    """
    d = p1 - p0
    t0 = np.zeros(len(p0))
    t1 = np.ones(len(p0))
    # a near-zero step overflows to an infinite slab bound, which is the right limit
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for axis in (0, 1):
            lo, hi = boxes[:, axis], boxes[:, axis + 2]
            x, dx = p0[:, axis], d[:, axis]
            flat = dx == 0
            a = np.where(flat, -np.inf, (lo - x) / dx)
            b = np.where(flat, np.inf, (hi - x) / dx)
            a, b = np.minimum(a, b), np.maximum(a, b)
            outside = flat & ((x < lo) | (x > hi))
            t0 = np.maximum(t0, a)
            t1 = np.where(outside, -1.0, np.minimum(t1, b))
    return np.maximum(t1 - t0, 0.0) * np.hypot(d[:, 0], d[:, 1])


_PARALLEL_EPS = 1e-12
"""|sin| of the angle below which a segment is taken as parallel to a polygon edge."""
_ON_EDGE_MM = 1e-9
"""How far outside an edge (mm) a parallel segment may lie and still count as on it."""


def convex_chords(p0: np.ndarray, p1: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Row-wise length of segment ``p0[i]``-``p1[i]`` inside one convex polygon given as
    (vertex, outward normal) rows ``edges`` (k, 4): Cyrus-Beck clipping, numpy.

    >>> sq = np.array([[0, 0, 0, -1], [10, 0, 1, 0], [10, 10, 0, 1], [0, 10, -1, 0]], float)
    >>> convex_chords(np.array([[-5.0, 5.0]]), np.array([[5.0, 5.0]]), sq).tolist()
    [5.0]
    """
    d = p1 - p0
    length = np.hypot(d[:, 0], d[:, 1])
    v, nrm = edges[None, :, 0:2], edges[None, :, 2:4]
    scale = np.hypot(nrm[..., 0], nrm[..., 1])
    num = ((v - p0[:, None, :]) * nrm).sum(axis=2)
    den = (d[:, None, :] * nrm).sum(axis=2)
    # A segment parallel to an edge (to rounding) is cut by that edge only if it lies outside
    # it; one lying along the edge counts as inside, as the polygon's boundary does.
    parallel = np.abs(den) <= _PARALLEL_EPS * length[:, None] * scale
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = num / np.where(parallel, 1.0, den)
    t_in = np.where(~parallel & (den < 0), t, -np.inf).max(axis=1).clip(0.0, 1.0)
    t_out = np.where(~parallel & (den > 0), t, np.inf).min(axis=1).clip(0.0, 1.0)
    outside = (parallel & (num < -_ON_EDGE_MM * scale)).any(axis=1)
    return np.where(outside, 0.0, np.maximum(t_out - t_in, 0.0) * length)


def convex_edges(polygons: np.ndarray) -> list[np.ndarray | None]:
    """Per polygon: its (vertex, outward normal) rows (k, 4) for `convex_chords` when it is
    convex without holes (equal to its convex hull), else None."""
    found: list[np.ndarray | None] = [None] * len(polygons)
    if not len(polygons):
        return found
    simple = ((shapely.get_type_id(polygons) == 3)
              & (shapely.get_num_interior_rings(polygons) == 0)
              & ~shapely.is_empty(polygons)).nonzero()[0]
    simple = simple[shapely.equals(polygons[simple], shapely.convex_hull(polygons[simple]))]
    for k in simple.tolist():
        ring = shapely.get_exterior_ring(polygons[k])
        v = shapely.get_coordinates(ring)[:-1]        # without the closing vertex
        e = successors(v) - v
        sign = 1.0 if shapely.is_ccw(ring) else -1.0
        found[k] = np.concatenate([v, np.stack([e[:, 1], -e[:, 0]], axis=1) * sign], axis=1)
    return found
