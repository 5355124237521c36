"""Compiled (numba) depth of sight lines inside woods and towns (ISD §6: at most 2" inside).

`segments.clipped_lengths` (a line's length inside a box) and `segments.convex_chords` (its
length inside a convex polygon) element by element, operation for operation, so the floats are
those of the numpy functions (tests/test_engine_depth_kernel.py); the numpy versions made a
dozen temporary arrays for each of a few thousand lines.
"""

from __future__ import annotations

import numpy as np
from numba import njit

PARALLEL_EPS = 1e-12   # `segments._PARALLEL_EPS`
ON_EDGE_MM = 1e-9      # `segments._ON_EDGE_MM`


@njit(cache=True, inline="always")
def clipped_length(x0: float, y0: float, x1: float, y1: float, x_lo: float, y_lo: float,
                   x_hi: float, y_hi: float) -> float:
    """`clipped_lengths` of one segment and one box."""
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for axis in range(2):
        lo = x_lo if axis == 0 else y_lo
        hi = x_hi if axis == 0 else y_hi
        x = x0 if axis == 0 else y0
        d = dx if axis == 0 else dy
        flat = d == 0
        lo_t = -np.inf if flat else (lo - x) / d
        hi_t = np.inf if flat else (hi - x) / d
        lo_t, hi_t = min(lo_t, hi_t), max(lo_t, hi_t)
        t0 = max(t0, lo_t)
        t1 = -1.0 if flat and (x < lo or x > hi) else min(t1, hi_t)
    return max(t1 - t0, 0.0) * np.hypot(dx, dy)


@njit(cache=True)
def deep_in_boxes(xy: np.ndarray, boxes: np.ndarray, max_depth: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(line, box) of every line ``xy[i]`` (2 x 2) running more than ``max_depth`` inside box
    ``boxes[a]``, grouped by box."""
    n, m = len(xy), len(boxes)
    lines = np.empty(n * m, dtype=np.int64)
    areas = np.empty(n * m, dtype=np.int64)
    k = 0
    for a in range(m):
        for i in range(n):
            if clipped_length(xy[i, 0, 0], xy[i, 0, 1], xy[i, 1, 0], xy[i, 1, 1], boxes[a, 0],
                              boxes[a, 1], boxes[a, 2], boxes[a, 3]) > max_depth:
                lines[k], areas[k] = i, a
                k += 1
    return lines[:k], areas[:k]


@njit(cache=True, inline="always")
def chord_step(x0: float, y0: float, dx: float, dy: float, length: float, vx: float, vy: float,
               nx: float, ny: float, t_in: float, t_out: float, outside: bool
               ) -> tuple[float, float, bool]:
    """One edge (vertex v, outward normal n) of `convex_chords`' clipping: the new (t_in,
    t_out, outside)."""
    scale = np.hypot(nx, ny)
    num = (vx - x0) * nx + (vy - y0) * ny
    den = dx * nx + dy * ny
    if abs(den) <= PARALLEL_EPS * length * scale:
        if num < -ON_EDGE_MM * scale:
            outside = True
    elif den < 0:
        t_in = max(t_in, num / den)
    elif den > 0:
        t_out = min(t_out, num / den)
    return t_in, t_out, outside


@njit(cache=True, inline="always")
def chord_length(length: float, t_in: float, t_out: float, outside: bool) -> float:
    """`convex_chords`' length from the clipping's (t_in, t_out, outside)."""
    t_in = min(max(t_in, 0.0), 1.0)
    t_out = min(max(t_out, 0.0), 1.0)
    return 0.0 if outside else max(t_out - t_in, 0.0) * length


@njit(cache=True)
def convex_chord_lengths(xy: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """`convex_chords` of each line ``xy[i]`` (2 x 2) and one convex polygon as (vertex,
    outward normal) rows ``edges`` (k, 4)."""
    out = np.empty(len(xy))
    for i in range(len(xy)):
        x0, y0 = xy[i, 0, 0], xy[i, 0, 1]
        dx, dy = xy[i, 1, 0] - x0, xy[i, 1, 1] - y0
        length = np.hypot(dx, dy)
        t_in, t_out = -np.inf, np.inf
        outside = False
        for e in range(len(edges)):
            t_in, t_out, outside = chord_step(x0, y0, dx, dy, length, edges[e, 0], edges[e, 1],
                                              edges[e, 2], edges[e, 3], t_in, t_out, outside)
        out[i] = chord_length(length, t_in, t_out, outside)
    return out
