"""Compiled (numba) tests of sight lines against walls (hill crests, tree rows), with GEOS's
answers: a line is blocked by a wall it touches (`shapely.intersects`), or, with a corridor of
half-width w (artillery, ISD A18), by a wall within w of it (`shapely.dwithin`).

The sight walk (`sight_kernel.clear_lines`) tests the walls of every line clear of bases here
rather than in GEOS (a 200-base battle has thousands of such lines; GEOS took 1.5 us a pair
through a Python array call). Each pair gets a verdict that is certain whenever the geometry is
not within rounding of a tie: a segment pair crosses or not by the signs of four orientation
determinants, each trusted only when it exceeds a bound far above its rounding error (GEOS's
own orientation test then has the same sign), and a corridor answer is trusted only when the
distance is more than DIST_MARGIN from the width. The rest (touching, collinear, at the width:
rare) are UNSURE and go to GEOS, so the answers are GEOS's (tests/test_engine_sight_fast_walls.py).
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from numba import njit

CLEAR, BLOCKED, UNSURE = 0, 1, 2
ORIENT_EPS = 1e-12   # relative bound on an orientation's rounding (it is about 3e-16)
DIST_MARGIN = 1e-7   # mm: a distance this far from the width decides `dwithin`


@njit(cache=True, inline="always")
def point_to_segment(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """`segments._point_segment_distance` for one point and one segment (the sight walk's
    body test and `box_kernel` use it too, through `sight_kernel`)."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = ((px - ax) * dx + (py - ay) * dy) / length2 if length2 > 0 else 0.0
    t = min(max(t, 0.0), 1.0)
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


@njit(cache=True, inline="always")
def certain_orientation(ax: float, ay: float, bx: float, by: float, cx: float, cy: float
                        ) -> float:
    """Twice the signed area of a-b-c (> 0: c left of a->b), or 0.0 when its sign is not
    certain (GEOS's `orientationIndexFilter` arithmetic, with a much wider error bound;
    `erode_kernel` uses it too)."""
    left = (ax - cx) * (by - cy)
    right = (ay - cy) * (bx - cx)
    det = left - right
    if abs(det) > ORIENT_EPS * (abs(left) + abs(right)):
        return det
    return 0.0


@njit(cache=True, inline="always")
def segment_step(x0: float, y0: float, x1: float, y1: float, cx: float, cy: float, dx: float,
                 dy: float) -> tuple[int, float]:
    """The line against one wall segment c-d: (2 a proper crossing, 1 not sure whether they
    touch, 0 surely apart; the distance between them when not crossing, up to rounding)."""
    oc = certain_orientation(x0, y0, x1, y1, cx, cy)
    od = certain_orientation(x0, y0, x1, y1, dx, dy)
    o0 = certain_orientation(cx, cy, dx, dy, x0, y0)
    o1 = certain_orientation(cx, cy, dx, dy, x1, y1)
    if oc != 0 and od != 0 and o0 != 0 and o1 != 0 and (oc > 0) != (od > 0) \
            and (o0 > 0) != (o1 > 0):
        return 2, 0.0
    d = min(point_to_segment(cx, cy, x0, y0, x1, y1),
            point_to_segment(dx, dy, x0, y0, x1, y1),
            point_to_segment(x0, y0, cx, cy, dx, dy),
            point_to_segment(x1, y1, cx, cy, dx, dy))
    return (1 if oc == 0 or od == 0 or o0 == 0 or o1 == 0 else 0), d


@njit(cache=True, inline="always")
def wall_outcome(width: float, crossing: bool, unsure: bool, lo: float, hi: float) -> int:
    """CLEAR, BLOCKED or UNSURE from a wall's segments: a proper crossing, whether some
    segment was not sure, and the distance's bounds (`segment_step` over the segments)."""
    if width > 0:
        return BLOCKED if hi < width - DIST_MARGIN else \
            CLEAR if lo > width + DIST_MARGIN else UNSURE
    return BLOCKED if crossing else UNSURE if unsure else CLEAR


@njit(cache=True)
def wall_verdicts(xy: np.ndarray, rows: np.ndarray, widths: np.ndarray, wall_of: np.ndarray,
                  coords: np.ndarray, spans: np.ndarray) -> np.ndarray:
    """The walk's wall test (`sight_kernel.clear_lines`) pair by pair, as the tests compare it
    with GEOS: CLEAR, BLOCKED or UNSURE for each pair k: line ``xy[rows[k]]`` (2 x 2) and the wall
    ``w = wall_of[k]``, a polyline of vertices ``coords[spans[w, 0]:spans[w, 1]]``
    (``spans[w, 0]`` < 0: not a plain polyline, UNSURE). ``widths[k]`` > 0: within that
    distance blocks (`dwithin`), else touching blocks (`intersects`)."""
    out = np.empty(len(rows), dtype=np.int8)
    for k in range(len(rows)):
        w = wall_of[k]
        if spans[w, 0] < 0:
            out[k] = UNSURE
            continue
        r = rows[k]
        x0, y0, x1, y1 = xy[r, 0, 0], xy[r, 0, 1], xy[r, 1, 0], xy[r, 1, 1]
        crossing = unsure = False
        lo = np.inf    # the distance is at least this (up to rounding) ...
        hi = np.inf    # ... and at most this
        for j in range(spans[w, 0], spans[w, 1] - 1):
            kind, d = segment_step(x0, y0, x1, y1, coords[j, 0], coords[j, 1],
                                   coords[j + 1, 0], coords[j + 1, 1])
            if kind == 2:
                crossing = True
                lo = hi = 0.0
                break
            hi = min(hi, d)
            if kind == 1:
                unsure = True   # touching, collinear or crossing: not known
                lo = 0.0
            else:
                lo = min(lo, d)   # certainly apart: the distance is an end's
        out[k] = wall_outcome(widths[k], crossing, unsure, lo, hi)
    return out


def wall_arrays(walls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The walls as `wall_verdicts` reads them: every vertex (n, 2), and each wall's
    (first, stop) rows of them ((-1, -1): not a plain linestring, left to GEOS)."""
    plain = shapely.get_type_id(walls) == 1
    counts = np.where(plain, shapely.get_num_coordinates(walls), 0)
    stops = np.cumsum(counts)
    spans = np.stack([stops - counts, stops], axis=1).astype(np.int64)
    spans[~plain] = -1
    coords = shapely.get_coordinates(walls[plain]) if plain.any() else np.zeros((0, 2))
    return np.ascontiguousarray(coords, dtype=float), spans
