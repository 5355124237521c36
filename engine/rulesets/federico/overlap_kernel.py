"""Overlap areas of a polygon with a convex window, compiled (numba), to settle "shares more than
1 mm²" tests without GEOS when the answer is certain (Federico F16, F18).

Charges measure the area each swept piece of a path (a convex hull of two poses) shares with
every base and terrain area it meets: one GEOS intersection per pair, most of them far from the
1 mm² line. Sutherland-Hodgman clipping of the shape against the convex piece gives the same area
up to rounding (it is exact for any simple polygon clipped by a convex window); the caller trusts
it only ``AREA_SLACK_MM2`` away from the line and asks GEOS for the rest.
"""

from __future__ import annotations

import numpy as np
import shapely
from numba import njit

AREA_SLACK_MM2 = 1e-3   # far above the rounding of either area, far below the 1 mm² tests


def ring_arrays(shapes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(xy, start, usable): the exterior vertices of every shape (closing point dropped),
    shape k's from ``start[k]`` to ``start[k + 1]``; ``usable`` is False for a shape that is
    not a plain polygon (empty, multi-part, with holes), whose overlaps only GEOS measures."""
    usable = ((shapely.get_type_id(shapes) == 3) & ~shapely.is_empty(shapes)
              & (shapely.get_num_interior_rings(shapes) == 0))
    rings = shapely.get_exterior_ring(np.where(usable, shapes, None))
    xy, owner = shapely.get_coordinates(rings, return_index=True)
    counts = np.bincount(owner, minlength=len(shapes))
    last = np.cumsum(counts) - 1
    keep = np.ones(len(xy), dtype=bool)
    keep[last[counts > 0]] = False                   # each ring's closing point
    counts = np.maximum(counts - 1, 0)
    start = np.zeros(len(shapes) + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    return np.ascontiguousarray(xy[keep]), start, usable & (counts >= 3)


@njit(cache=True)
def overlap_areas(sub_xy: np.ndarray, sub_start: np.ndarray, sub: np.ndarray,
                  win_xy: np.ndarray, win_start: np.ndarray, win: np.ndarray) -> np.ndarray:
    """Area of shape ``sub[p]`` (a simple polygon) inside convex window ``win[p]``, for every
    pair p (Sutherland-Hodgman clipping, then the shoelace formula); NaN where the clipped
    outline outgrows the buffers (a very concave shape)."""
    out = np.zeros(len(sub))
    size = 8
    for p in range(len(sub)):
        size = max(size, 2 * (sub_start[sub[p] + 1] - sub_start[sub[p]])
                   + 2 * (win_start[win[p] + 1] - win_start[win[p]]) + 4)
    bx, by = np.empty(size), np.empty(size)
    cx, cy = np.empty(size), np.empty(size)
    for p in range(len(sub)):
        s0, s1 = sub_start[sub[p]], sub_start[sub[p] + 1]
        w0, w1 = win_start[win[p]], win_start[win[p] + 1]
        n = s1 - s0
        for i in range(n):
            bx[i], by[i] = sub_xy[s0 + i, 0], sub_xy[s0 + i, 1]
        turn = 0.0                     # the window's orientation (twice its signed area)
        for i in range(w0, w1):
            j = i + 1 if i + 1 < w1 else w0
            turn += win_xy[i, 0] * win_xy[j, 1] - win_xy[j, 0] * win_xy[i, 1]
        sign = 1.0 if turn > 0 else -1.0
        for i in range(w0, w1):
            if n == 0:
                break
            j = i + 1 if i + 1 < w1 else w0
            ax, ay = win_xy[i, 0], win_xy[i, 1]
            ex, ey = win_xy[j, 0] - ax, win_xy[j, 1] - ay
            m = 0
            for q in range(n):
                r = q + 1 if q + 1 < n else 0
                px, py, qx, qy = bx[q], by[q], bx[r], by[r]
                dp = sign * (ex * (py - ay) - ey * (px - ax))     # >= 0: inside
                dq = sign * (ex * (qy - ay) - ey * (qx - ax))
                if m + 2 > size:           # more vertices than the buffers hold
                    break
                if dp >= 0:
                    cx[m], cy[m] = px, py
                    m += 1
                if (dp >= 0) != (dq >= 0):
                    t = dp / (dp - dq)
                    cx[m], cy[m] = px + t * (qx - px), py + t * (qy - py)
                    m += 1
            if m + 2 > size:
                n = -1
                break
            n = m
            for q in range(n):
                bx[q], by[q] = cx[q], cy[q]
        if n < 0:
            out[p] = np.nan              # unmeasured: the caller asks GEOS
            continue
        twice = 0.0
        for q in range(n):
            r = q + 1 if q + 1 < n else 0
            twice += bx[q] * by[r] - bx[r] * by[q]
        out[p] = abs(twice) / 2
    return out


def overlap_estimates(windows: np.ndarray, win: np.ndarray,
                      shapes: tuple[np.ndarray, np.ndarray, np.ndarray],
                      sub: np.ndarray) -> np.ndarray:
    """Estimated area of ``shapes`` (`ring_arrays` of them) number ``sub[p]`` inside convex
    polygon ``windows[win[p]]``, for every pair p; NaN where GEOS must measure."""
    if not len(win):
        return np.zeros(0)
    w_xy, w_start, w_ok = ring_arrays(windows)
    s_xy, s_start, s_ok = shapes
    win, sub = win.astype(np.int64), sub.astype(np.int64)
    out = overlap_areas(s_xy, s_start, sub, w_xy, w_start, win)
    out[~(w_ok[win] & s_ok[sub])] = np.nan
    return out
