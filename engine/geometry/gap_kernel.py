"""Compiled (numba) neighbour pairs of rectangles and the gaps between them.

Every rule that asks "which bases lie within so many inches" reads one table of the pairs of
bases within a neighbourhood and their gaps (`italia.board.Board.near`). A 200-base battle has
some 8,500 such pairs; an STRtree query and `shapely.distance` on each took about 6 ms. Here a
sweep over the bases sorted by their left edge finds the pairs whose boxes, grown by the
neighbourhood, meet, and each gap is GEOS's own arithmetic (`DistanceOp`: 0 when one outline
holds the other, else its walk over the edge pairs with `Distance::segmentToSegment`).

Exactness: a gap within ``TOL`` of 0 but not 0 (touching, overlapping: where GEOS's robust
containment test and the walk could part) is flagged, and the caller asks GEOS for it. A walk
that meets an edge pair exactly 0 apart (bases side by side, overlapping) ends there with 0, as
GEOS's does (its containment test, run first, can only answer 0 too).
tests/test_engine_gap_kernel.py checks the rest equal to `shapely.distance` bit for bit.

Speed: the two gaps of a pair (GEOS's walk depends on the operand order) share their segment
distances, and the sweep's helpers are closures over its arrays (numba counts references to
arrays passed to a function, atomically, at every call: that cost more than the arithmetic).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from campo.engine.geometry.arc_kernel import TOL, segment_distance

UNSURE = -1.0   # the gap of a pair left to GEOS
PAIRS_PER_QUAD = 64   # room guessed for the pairs (a 200-base battle has some 43 per base)


@njit(cache=True, inline="always")
def _box_distance2(ax0: float, ax1: float, ay0: float, ay1: float, bx0: float, bx1: float,
                   by0: float, by1: float) -> float:
    """GEOS ``Envelope::distanceSquared`` of boxes [ax0, ax1] x [ay0, ay1] and [bx0, bx1] x
    [by0, by1], operation for operation."""
    dx = max(0.0, max(ax1, bx1) - min(ax0, bx0) - (ax1 - ax0) - (bx1 - bx0))
    dy = max(0.0, max(ay1, by1) - min(ay0, by0) - (ay1 - ay0) - (by1 - by0))
    return dx * dx + dy * dy


def quad_gap(quads: np.ndarray, a: int, b: int) -> float:
    """GEOS's distance from quad ``quads[a]`` to quad ``quads[b]`` (a != b), or UNSURE: the
    sweep's own walk (`_sweep`), for one pair."""
    i, j, gaps = near_pairs(np.asarray(quads, dtype=float)[[a, b]], np.inf)
    return float(gaps[(i == 0) & (j == 1)][0])


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
    room = PAIRS_PER_QUAD * n
    while True:   # one walk when the guessed room suffices (a crowded table walks twice)
        pi, pj = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
        pg = np.empty(room)
        count = _sweep(corners, lo, hi, order, reach, pi, pj, pg)
        if count <= room:
            break
        room = count
    keep = np.argsort(pi[:count] * n + pj[:count], kind="stable")
    return pi[keep], pj[keep], pg[keep]


@njit(cache=True)
def _sweep(quads: np.ndarray, lo: np.ndarray, hi: np.ndarray, order: np.ndarray,
           reach: float, pi: np.ndarray, pj: np.ndarray, pg: np.ndarray) -> int:
    """Walk the boxes sorted by their left edge (``order``) and write each meeting pair and its
    gap (`walk`) while ``pi`` has room; how many pairs there are (more than the room: call
    again). A box meets another when, grown by ``reach``, it meets it: `BaseIndex.
    candidate_pairs`'s STRtree test, the same float operations, each way."""
    measured = np.empty(16)

    def inside(k: int, x: float, y: float) -> bool:
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

    def walk(a: int, b: int, swapped: bool) -> float:
        """GEOS's distance from quad ``a`` to quad ``b``, or UNSURE.

        `DistanceOp::computeMinDistance` of the two rings, step for step: segment pairs whose
        boxes lie further apart than the least distance found so far are skipped, so GEOS's
        answer is not always the least of all 16 segment distances in the last bit; this is
        that answer. ``measured`` keeps the pair's segment distances (NaN: not yet), by
        ``4 i + j`` for edge i of the first quad of the pair and edge j of the second
        (``swapped``: ``a`` is the second): the walk the other way round reuses them, as a
        segment distance does not depend on the operand order (`segment_distance` takes the
        least of the same four point distances, and its crossing test swaps r and s, sign for
        sign)."""
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
                qx, qy = quads[b, j, 0], quads[b, j, 1]
                qx2, qy2 = quads[b, j2, 0], quads[b, j2, 1]
                bx0, bx1 = min(qx, qx2), max(qx, qx2)
                by0, by1 = min(qy, qy2), max(qy, qy2)
                if _box_distance2(ax0, ax1, ay0, ay1, bx0, bx1, by0, by1) > d * d:
                    continue
                k = 4 * j + i if swapped else 4 * i + j
                s = measured[k]
                if s != s:   # not measured yet
                    s = segment_distance(px, py, px2, py2, qx, qy, qx2, qy2)
                    measured[k] = s
                d = min(d, s)
                if d <= TOL:   # touching: 0 is GEOS's answer too (its walk ends there)
                    return 0.0 if d == 0.0 else UNSURE
        # the outlines are apart: either disjoint, or one holds the other (GEOS: distance 0)
        if inside(b, quads[a, 0, 0], quads[a, 0, 1]) or inside(a, quads[b, 0, 0], quads[b, 0, 1]):
            return 0.0
        return d

    room = len(pi)
    m = 0
    n = len(order)
    for oa in range(n):
        a = order[oa]
        ax0, ay0, ax1, ay1 = lo[a, 0], lo[a, 1], hi[a, 0], hi[a, 1]
        for ob in range(oa, n):
            b = order[ob]
            bx0, by0, bx1, by1 = lo[b, 0], lo[b, 1], hi[b, 0], hi[b, 1]
            if bx0 - reach > ax1 + reach:
                break   # sorted by left edge: every later box starts further right
            ab = (bx0 <= ax1 + reach and bx1 >= ax0 - reach
                  and by0 <= ay1 + reach and by1 >= ay0 - reach)
            ba = a != b and (ax0 <= bx1 + reach and ax1 >= bx0 - reach
                             and ay0 <= by1 + reach and ay1 >= by0 - reach)
            need = ab + ba
            if m + need > room:   # out of room: only count (the caller walks again)
                m += need
                continue
            if need == 0:
                continue
            for k in range(16):   # a new pair: no segment distance measured yet
                measured[k] = np.nan
            if ab:
                pi[m], pj[m] = a, b
                pg[m] = 0.0 if a == b else walk(a, b, False)
                m += 1
            if ba:
                pi[m], pj[m], pg[m] = b, a, walk(b, a, True)
                m += 1
    return m


@njit(cache=True)
def overlap_areas(quads: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """The area quad ``left[k]`` shares with quad ``right[k]`` (both convex, either winding),
    NaN where either is too thin to orient (the caller asks GEOS): quad ``left[k]`` clipped
    by the half-planes of ``right[k]``'s edges (Sutherland–Hodgman), by the shoelace formula.
    Not GEOS's arithmetic: equal to its intersection's area within far less than 1e-6 mm²."""
    out = np.empty(len(left))
    poly = np.empty((8, 2))   # a quad clipped by 4 half-planes has at most 8 vertices
    nxt = np.empty((8, 2))
    for k in range(len(left)):
        a, b = left[k], right[k]
        if abs(_signed_area(quads, a)) <= 1e-9 or abs(_signed_area(quads, b)) <= 1e-9:
            out[k] = np.nan
            continue
        turn = 1.0 if _signed_area(quads, b) > 0 else -1.0   # inside: left of CCW edges
        n = 4
        for i in range(4):
            poly[i, 0], poly[i, 1] = quads[a, i, 0], quads[a, i, 1]
        for e in range(4):
            e2 = (e + 1) % 4
            ex, ey = quads[b, e, 0], quads[b, e, 1]
            dx, dy = quads[b, e2, 0] - ex, quads[b, e2, 1] - ey
            m = 0
            for i in range(n):
                j = (i + 1) % n
                si = turn * (dx * (poly[i, 1] - ey) - dy * (poly[i, 0] - ex))
                sj = turn * (dx * (poly[j, 1] - ey) - dy * (poly[j, 0] - ex))
                if si >= 0:
                    nxt[m, 0], nxt[m, 1] = poly[i, 0], poly[i, 1]
                    m += 1
                if (si >= 0) != (sj >= 0):
                    t = si / (si - sj)
                    nxt[m, 0] = poly[i, 0] + t * (poly[j, 0] - poly[i, 0])
                    nxt[m, 1] = poly[i, 1] + t * (poly[j, 1] - poly[i, 1])
                    m += 1
            n = m
            for i in range(n):
                poly[i, 0], poly[i, 1] = nxt[i, 0], nxt[i, 1]
            if n == 0:
                break
        area = 0.0   # about the first vertex: table coordinates would cancel
        for i in range(1, n - 1):
            area += ((poly[i, 0] - poly[0, 0]) * (poly[i + 1, 1] - poly[0, 1])
                     - (poly[i + 1, 0] - poly[0, 0]) * (poly[i, 1] - poly[0, 1]))
        out[k] = abs(area) / 2
    return out


@njit(cache=True)
def _signed_area(quads: np.ndarray, k: int) -> float:
    """Twice the signed area of quad ``k`` (> 0 counter-clockwise)."""
    area = 0.0
    for i in range(4):
        j = (i + 1) % 4
        area += quads[k, i, 0] * quads[k, j, 1] - quads[k, j, 0] * quads[k, i, 1]
    return area
