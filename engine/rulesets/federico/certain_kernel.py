"""Compiled (numba) loops of the sight certificates (`sight_certain`, Federico F5).

The numpy form built (pair, origin, corner) and (pair, origin, end, edge) arrays for every shot
meeting a body or a deep area, most of them thrown away by the first test: some 13 ms of a
100-base analysis. These loops do the same arithmetic, operation for operation (the same
``atan2``, products and sums in the same order, so the same floats), one line at a time, and
stop early. A certificate only lets the exact test skip a line it would call blocked, and the
margins are far above float error; tests/test_federico_sight_certain.py checks every certified
line is blocked.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def certify_by_bodies(origins: np.ndarray, ends: np.ndarray, ref: np.ndarray,
                      shot: np.ndarray, body: np.ndarray, outlines: np.ndarray,
                      angle_margin: float, dist_margin: float, cert: np.ndarray) -> None:
    """``cert[s, i, j] = True`` where the line from ``origins[s, i]`` to ``ends[s, j]`` passes
    through the convex body ``outlines[b]`` of some pair (s, b) = (``shot[p]``, ``body[p]``):
    seen from the origin (angles from the shot's reference direction ``ref[s]``), the end lies
    strictly inside the angle the body spans and beyond its farthest corner."""
    n, k, m = cert.shape
    v = outlines.shape[1]
    # the ends seen from each origin of a shot (angle, squared distance): the distances of
    # every shot met first (cheap), the angles only when some body may certify the row
    d2 = np.empty((n, k, m))
    d2_hi = np.full((n, k), -np.inf)
    ph = np.empty((n, k, m))
    has_ph = np.zeros((n, k), dtype=np.bool_)
    for p in range(len(shot)):
        s = shot[p]
        if d2_hi[s, 0] != -np.inf:
            continue
        for i in range(k):
            ox, oy = origins[s, i, 0], origins[s, i, 1]
            hi2 = -1.0
            for j in range(m):
                wx, wy = ends[s, j, 0] - ox, ends[s, j, 1] - oy
                d2[s, i, j] = w2 = wx * wx + wy * wy
                if w2 > hi2:             # False for NaN padding
                    hi2 = w2
            d2_hi[s, i] = hi2
    half = math.pi / 2 - 1e-6
    for p in range(len(shot)):
        s, b = shot[p], body[p]
        rx, ry = ref[s, 0], ref[s, 1]
        for i in range(k):
            ox, oy = origins[s, i, 0], origins[s, i, 1]
            ahead = True
            far = -np.inf
            for c in range(v):
                cx, cy = outlines[b, c, 0] - ox, outlines[b, c, 1] - oy
                if rx * cx + ry * cy < 0:    # then |atan2| >= pi / 2: not wholly ahead
                    ahead = False
                    break
                far = max(far, math.sqrt(cx * cx + cy * cy))
            far = far + dist_margin
            far2 = far * far
            if not ahead or not d2_hi[s, i] > far2:     # no end beyond the body
                continue
            lo, hi = np.inf, -np.inf
            for c in range(v):
                cx, cy = outlines[b, c, 0] - ox, outlines[b, c, 1] - oy
                th = math.atan2(rx * cy - ry * cx, rx * cx + ry * cy)
                if not abs(th) < half:
                    ahead = False
                    break
                lo, hi = min(lo, th), max(hi, th)
            if not ahead:
                continue
            if not has_ph[s, i]:
                has_ph[s, i] = True
                for j in range(m):
                    wx, wy = ends[s, j, 0] - ox, ends[s, j, 1] - oy
                    ph[s, i, j] = math.atan2(rx * wy - ry * wx, rx * wx + ry * wy)
            lo_t, hi_t = lo + angle_margin, hi - angle_margin
            for j in range(m):
                a = ph[s, i, j]
                if a > lo_t and a < hi_t and d2[s, i, j] > far2:
                    cert[s, i, j] = True


@njit(cache=True)
def certify_by_areas(origins: np.ndarray, ends: np.ndarray, shot: np.ndarray,
                     area: np.ndarray, edges: np.ndarray, depth_ok: float,
                     cert: np.ndarray) -> None:
    """``cert[s, i, j] = True`` where the chord of the line from ``origins[s, i]`` to
    ``ends[s, j]`` through the convex area ``edges[a]`` (vertex and outward normal per edge,
    zero normals as padding) of some pair (s, a) is longer than ``depth_ok`` (Cyrus-Beck
    clipping). Shots whose every line is certified already are skipped."""
    n, k, m = cert.shape
    ne = edges.shape[1]
    for p in range(len(shot)):
        s, a = shot[p], area[p]
        full = True
        for i in range(k):
            for j in range(m):
                if not cert[s, i, j] and not math.isnan(ends[s, j, 0]):
                    full = False
        if full:
            continue
        for i in range(k):
            ox, oy = origins[s, i, 0], origins[s, i, 1]
            for j in range(m):
                if cert[s, i, j]:
                    continue
                dx, dy = ends[s, j, 0] - ox, ends[s, j, 1] - oy
                t_in, t_out = -np.inf, np.inf
                outside = False
                for e in range(ne):
                    vx, vy, nx, ny = edges[a, e, 0], edges[a, e, 1], edges[a, e, 2], edges[a, e, 3]
                    num = (vx - ox) * nx + (vy - oy) * ny
                    den = dx * nx + dy * ny
                    if den < 0:
                        t_in = max(t_in, num / den)
                    elif den > 0:
                        t_out = min(t_out, num / den)
                    elif den == 0 and num < 0:
                        outside = True
                t_in = min(max(t_in, 0.0), 1.0)
                t_out = min(max(t_out, 0.0), 1.0)
                chord = (t_out - t_in) * math.sqrt(dx * dx + dy * dy)
                if not outside and chord > depth_ok:
                    cert[s, i, j] = True


@njit(cache=True)
def shot_frames(origins: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                 np.ndarray]:
    """Per shot: the low and high corners of the box holding its origins and ends (NaN
    padding skipped) and the unit reference direction from the mean origin to the mean end
    ((1, 0) when they coincide). The sums run in numpy's order for these shapes (row after
    row), so the reference is the one ``np.nanmean`` and ``mean`` gave."""
    n, k, m = origins.shape[0], origins.shape[1], ends.shape[1]
    lo, hi, ref = np.empty((n, 2)), np.empty((n, 2)), np.empty((n, 2))
    for s in range(n):
        for c in range(2):
            low, high, o_sum = origins[s, 0, c], origins[s, 0, c], origins[s, 0, c]
            for i in range(1, k):
                x = origins[s, i, c]
                low, high, o_sum = min(low, x), max(high, x), o_sum + x
            e_sum, count = 0.0, 0
            for j in range(m):
                x = ends[s, j, c]
                if not math.isnan(x):
                    low, high = min(low, x), max(high, x)
                    e_sum = x if count == 0 else e_sum + x
                    count += 1
            lo[s, c], hi[s, c] = low, high
            ref[s, c] = e_sum / count - o_sum / k
        norm = math.hypot(ref[s, 0], ref[s, 1])
        if norm > 0:
            ref[s, 0], ref[s, 1] = ref[s, 0] / norm, ref[s, 1] / norm
        else:
            ref[s, 0], ref[s, 1] = 1.0, 0.0
    return lo, hi, ref
