"""Compiled (numba) cheap prefilters for the charge judge: which of many boxes come near one
box, and the gap between two convex shapes in plain floats.

The charge judge asks, per path, which bases' boxes come within 2" of the path's box (a cheap
superset before any exact test); numpy spent more on dispatching its handful of array operations
over 200 boxes than on the comparisons. The gap decides "certainly within 2"" without building a
shapely polygon for a pose; it is not GEOS's float, so callers keep a margin.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from campo.engine.geometry.sight_kernel import point_to_segment


@njit(cache=True)
def boxes_near(boxes: np.ndarray, x0: float, y0: float, x1: float, y1: float,
               distance: float) -> np.ndarray:
    """Rows of ``boxes`` (n, 4: x0, y0, x1, y1) within ``distance`` of the box (x0, y0, x1, y1)
    on each axis, in order."""
    out = np.empty(boxes.shape[0], dtype=np.int64)
    n = 0
    for k in range(boxes.shape[0]):
        if boxes[k, 0] <= x1 + distance and boxes[k, 2] >= x0 - distance and \
                boxes[k, 1] <= y1 + distance and boxes[k, 3] >= y0 - distance:
            out[n] = k
            n += 1
    return out[:n]


@njit(cache=True)
def _cross(ox: float, oy: float, ax: float, ay: float, bx: float, by: float) -> float:
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@njit(cache=True)
def convex_hull(pts: np.ndarray) -> np.ndarray:
    """Convex hull (counter-clockwise, no repeated end) of a few points (n, 2): Andrew's
    monotone chain in plain floats."""
    n = pts.shape[0]
    idx = np.arange(n)
    for i in range(1, n):     # insertion sort by (x, y): a handful of points
        j = i
        while j > 0 and (pts[idx[j - 1], 0] > pts[idx[j], 0] or (
                pts[idx[j - 1], 0] == pts[idx[j], 0] and pts[idx[j - 1], 1] > pts[idx[j], 1])):
            idx[j - 1], idx[j] = idx[j], idx[j - 1]
            j -= 1
    hull = np.empty((2 * n, 2))
    k = 0
    for i in range(n):
        p = idx[i]
        while k >= 2 and _cross(hull[k - 2, 0], hull[k - 2, 1], hull[k - 1, 0], hull[k - 1, 1],
                                pts[p, 0], pts[p, 1]) <= 0:
            k -= 1
        hull[k, 0], hull[k, 1] = pts[p, 0], pts[p, 1]
        k += 1
    low = k + 1
    for i in range(n - 2, -1, -1):
        p = idx[i]
        while k >= low and _cross(hull[k - 2, 0], hull[k - 2, 1], hull[k - 1, 0], hull[k - 1, 1],
                                  pts[p, 0], pts[p, 1]) <= 0:
            k -= 1
        hull[k, 0], hull[k, 1] = pts[p, 0], pts[p, 1]
        k += 1
    return hull[:max(k - 1, 1)]


@njit(cache=True)
def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Separating-axis test on the edge normals of ``a``: -1 when some axis separates the two,
    else the least overlap along them (the depth ``b`` reaches into ``a``, at most)."""
    n = a.shape[0]
    depth = np.inf
    for i in range(n):
        j = i + 1 if i + 1 < n else 0
        nx, ny = a[j, 1] - a[i, 1], a[i, 0] - a[j, 0]
        length = math.hypot(nx, ny)
        if length == 0.0:
            continue
        nx, ny = nx / length, ny / length
        a_lo, a_hi = np.inf, -np.inf
        for k in range(n):
            v = a[k, 0] * nx + a[k, 1] * ny
            a_lo, a_hi = min(a_lo, v), max(a_hi, v)
        b_lo, b_hi = np.inf, -np.inf
        for k in range(b.shape[0]):
            v = b[k, 0] * nx + b[k, 1] * ny
            b_lo, b_hi = min(b_lo, v), max(b_hi, v)
        if b_lo > a_hi or b_hi < a_lo:
            return -1.0
        depth = min(depth, min(a_hi, b_hi) - max(a_lo, b_lo))
    return depth


@njit(cache=True)
def convex_gap(a: np.ndarray, b: np.ndarray) -> float:
    """Distance between two convex polygons (vertices in order, (n, 2)) when apart; when they
    overlap, minus how deep (the least overlap over the separating axes tried). Plain floats,
    within a few ulps of GEOS's distance, so callers compare it with a margin; NaN for a
    degenerate polygon (fewer than 3 vertices: no answer)."""
    if a.shape[0] < 3 or b.shape[0] < 3:
        return np.nan
    da = _overlap(a, b)
    db = _overlap(b, a) if da >= 0.0 else -1.0
    if da >= 0.0 and db >= 0.0:
        return -min(da, db)
    best = np.inf
    for p, q in ((a, b), (b, a)):
        m = q.shape[0]
        for i in range(p.shape[0]):
            for j in range(m):
                k = j + 1 if j + 1 < m else 0
                best = min(best, point_to_segment(p[i, 0], p[i, 1], q[j, 0], q[j, 1],
                                                  q[k, 0], q[k, 1]))
    return best


@njit(cache=True)
def swept_gap(poses: np.ndarray, other: np.ndarray) -> float:
    """`convex_gap` between convex ``other`` and the area `motion.swept_area` covers moving
    through ``poses`` (k, 4, 2): the least over its pieces (the hull of each consecutive pair
    of poses, or the one pose). NaN if any piece is degenerate."""
    k = poses.shape[0]
    if k == 1:
        return convex_gap(poses[0], other)
    best = np.inf
    pair = np.empty((8, 2))
    for i in range(k - 1):
        pair[:4] = poses[i]
        pair[4:] = poses[i + 1]
        g = convex_gap(convex_hull(pair), other)
        if np.isnan(g):
            return np.nan
        best = min(best, g)
    return best


@njit(cache=True)
def quad_box_pairs(quads: np.ndarray, boxes: np.ndarray, by_x0: np.ndarray, x0s: np.ndarray,
                   widest: float) -> tuple[np.ndarray, np.ndarray]:
    """(quad row, box row) of every quad (n, 4, 2) whose bounding box meets (overlaps or
    touches) one of ``boxes`` (m, 4: x0, y0, x1, y1): the candidates an STRtree query of the
    quads' polygons returns (its envelopes are these boxes). ``by_x0``: the box rows sorted by
    x0, ``x0s`` those x0s, ``widest`` the widest box, so each quad scans only the boxes whose x0
    lies within ``widest`` left of it (and 1 mm more: the widths' rounding cannot lose a box
    that touches); each box scanned is tested exactly. Pairs in no particular order."""
    cap = 4 * (quads.shape[0] + boxes.shape[0]) + 16
    qi = np.empty(cap, dtype=np.int64)
    bi = np.empty(cap, dtype=np.int64)
    n = 0
    for q in range(quads.shape[0]):
        x0, y0 = quads[q, 0, 0], quads[q, 0, 1]
        x1, y1 = x0, y0
        for c in range(1, quads.shape[1]):
            x0, x1 = min(x0, quads[q, c, 0]), max(x1, quads[q, c, 0])
            y0, y1 = min(y0, quads[q, c, 1]), max(y1, quads[q, c, 1])
        start = np.searchsorted(x0s, x0 - widest - 1.0, side="left")
        for s in range(start, x0s.shape[0]):
            if x0s[s] > x1:
                break
            b = by_x0[s]
            if boxes[b, 2] >= x0 and boxes[b, 1] <= y1 and boxes[b, 3] >= y0:
                if n == cap:
                    cap *= 2
                    grown_q = np.empty(cap, dtype=np.int64)
                    grown_b = np.empty(cap, dtype=np.int64)
                    grown_q[:n] = qi[:n]
                    grown_b[:n] = bi[:n]
                    qi, bi = grown_q, grown_b
                qi[n] = q
                bi[n] = b
                n += 1
    return qi[:n], bi[:n]


@njit(cache=True)
def pair_gaps(a: np.ndarray, b: np.ndarray, ai: np.ndarray, bi: np.ndarray) -> np.ndarray:
    """`convex_gap` of each pair (``a[ai[k]]``, ``b[bi[k]]``) of convex shapes (n, v, 2)."""
    out = np.empty(ai.shape[0])
    for k in range(ai.shape[0]):
        out[k] = convex_gap(a[ai[k]], b[bi[k]])
    return out
