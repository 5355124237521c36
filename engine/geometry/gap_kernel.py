"""Compiled (numba) neighbour pairs of rectangles and the gaps between them.

Every rule that asks "which bases lie within so many inches" reads one table of the pairs of
bases within a neighbourhood and their gaps (`italia.board.Board.near`). A 200-base battle has
some 8,500 such pairs; an STRtree query and `shapely.distance` on each took about 6 ms. Here a
sweep over the bases sorted by their left edge finds the pairs whose boxes, grown by the
neighbourhood, meet, and each gap is GEOS's own arithmetic (`DistanceOp`: 0 when one outline
holds the other, else its walk over the edge pairs with `Distance::segmentToSegment`).

Exactness: a gap within ``TOL`` of 0 (touching, overlapping: where the two computations could
part in the last bits) is flagged, and the caller asks GEOS for it
(tests/test_engine_gap_kernel.py checks the rest equal to `shapely.distance` bit for bit).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.geometry.arc_kernel import TOL, segment_distance

UNSURE = -1.0   # the gap of a pair left to GEOS


@njit(cache=True)
def _inside_at(quads: np.ndarray, k: int, x: float, y: float) -> bool:
    """Whether the point lies inside the convex quad ``quads[k]`` (either winding)."""
    pos = neg = False
    for i in range(4):
        j = (i + 1) % 4
        c = ((quads[k, j, 0] - quads[k, i, 0]) * (y - quads[k, i, 1])
             - (quads[k, j, 1] - quads[k, i, 1]) * (x - quads[k, i, 0]))
        if c > 0:
            pos = True
        elif c < 0:
            neg = True
    return not (pos and neg)


@njit(cache=True, inline="always")
def _box_distance2(ax0: float, ax1: float, ay0: float, ay1: float, bx0: float, bx1: float,
                   by0: float, by1: float) -> float:
    """GEOS ``Envelope::distanceSquared`` of boxes [ax0, ax1] x [ay0, ay1] and [bx0, bx1] x
    [by0, by1], operation for operation."""
    dx = max(0.0, max(ax1, bx1) - min(ax0, bx0) - (ax1 - ax0) - (bx1 - bx0))
    dy = max(0.0, max(ay1, by1) - min(ay0, by0) - (ay1 - ay0) - (by1 - by0))
    return dx * dx + dy * dy


@njit(cache=True)
def quad_gap(quads: np.ndarray, a: int, b: int) -> float:
    """GEOS's distance from quad ``quads[a]`` to quad ``quads[b]``, or UNSURE.

    `DistanceOp::computeMinDistance` of the two rings, step for step: segment pairs whose boxes
    lie further apart than the least distance found so far are skipped, so GEOS's answer is
    not always the least of all 16 segment distances in the last bit; this is that answer.
    The quads are read in place: numba counts references to array views atomically, which
    would cost more than the arithmetic."""
    qx0, qx1 = quads[b, 0, 0], quads[b, 0, 0]
    qy0, qy1 = quads[b, 0, 1], quads[b, 0, 1]
    for j in range(1, 4):
        qx0, qx1 = min(qx0, quads[b, j, 0]), max(qx1, quads[b, j, 0])
        qy0, qy1 = min(qy0, quads[b, j, 1]), max(qy1, quads[b, j, 1])
    d = np.inf
    for i in range(4):
        i2 = (i + 1) % 4
        px, py, px2, py2 = quads[a, i, 0], quads[a, i, 1], quads[a, i2, 0], quads[a, i2, 1]
        ax0, ax1 = min(px, px2), max(px, px2)
        ay0, ay1 = min(py, py2), max(py, py2)
        if _box_distance2(ax0, ax1, ay0, ay1, qx0, qx1, qy0, qy1) > d * d:
            continue
        for j in range(4):
            j2 = (j + 1) % 4
            qx, qy, qx2, qy2 = quads[b, j, 0], quads[b, j, 1], quads[b, j2, 0], quads[b, j2, 1]
            bx0, bx1 = min(qx, qx2), max(qx, qx2)
            by0, by1 = min(qy, qy2), max(qy, qy2)
            if _box_distance2(ax0, ax1, ay0, ay1, bx0, bx1, by0, by1) > d * d:
                continue
            d = min(d, segment_distance(px, py, px2, py2, qx, qy, qx2, qy2))
            if d <= TOL:
                return UNSURE
    # the outlines are apart: either disjoint, or one holds the other (GEOS: distance 0)
    if _inside_at(quads, b, quads[a, 0, 0], quads[a, 0, 1]) or \
            _inside_at(quads, a, quads[b, 0, 0], quads[b, 0, 1]):
        return 0.0
    return d


def near_pairs(corners: np.ndarray, reach: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, gap) of every ordered pair of quads where box i, grown by ``reach``, meets box j
    (each quad with itself too, gap 0), sorted by (i, j); gaps UNSURE are left to the caller.
    The sorting is numpy's (numba's sorts take longer to compile than they save)."""
    n = len(corners)
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), np.zeros(0)
    corners = np.ascontiguousarray(corners, dtype=float)
    lo, hi = corners.min(axis=1), corners.max(axis=1)
    order = np.argsort(lo[:, 0], kind="stable")
    count = _sweep(corners, lo, hi, order, reach, np.empty(0, dtype=np.int64),
                   np.empty(0, dtype=np.int64), np.empty(0))
    pi, pj, pg = np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64), np.empty(count)
    _sweep(corners, lo, hi, order, reach, pi, pj, pg)
    keep = np.argsort(pi * n + pj, kind="stable")
    return pi[keep], pj[keep], pg[keep]


@njit(cache=True)
def _sweep(corners: np.ndarray, lo: np.ndarray, hi: np.ndarray, order: np.ndarray,
           reach: float, pi: np.ndarray, pj: np.ndarray, pg: np.ndarray) -> int:
    """Walk the boxes sorted by their left edge (``order``) and, when ``pi`` has room, write
    each meeting pair and its gap; how many pairs (a first call with empty arrays counts)."""
    fill = len(pi) > 0
    m = 0
    n = len(order)
    for oa in range(n):
        a = order[oa]
        for ob in range(oa, n):
            b = order[ob]
            if lo[b, 0] - reach > hi[a, 0] + reach:
                break   # sorted by left edge: every later box starts further right
            ab = _meets(lo, hi, a, b, reach)
            ba = a != b and _meets(lo, hi, b, a, reach)
            if ab:
                if fill:
                    pi[m], pj[m] = a, b
                    pg[m] = 0.0 if a == b else quad_gap(corners, a, b)
                m += 1
            if ba:
                if fill:
                    pi[m], pj[m], pg[m] = b, a, quad_gap(corners, b, a)
                m += 1
    return m


@njit(cache=True)
def _meets(lo: np.ndarray, hi: np.ndarray, a: int, b: int, reach: float) -> bool:
    """Whether box ``a`` grown by ``reach`` meets box ``b`` (`BaseIndex.candidate_pairs`'s
    STRtree test, the same float operations)."""
    return (lo[b, 0] <= hi[a, 0] + reach and hi[b, 0] >= lo[a, 0] - reach
            and lo[b, 1] <= hi[a, 1] + reach and hi[b, 1] >= lo[a, 1] - reach)
