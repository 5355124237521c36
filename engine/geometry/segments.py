"""Vectorised segment-versus-quadrilateral tests (numpy), for testing thousands of sight lines.

``segments_near_quads(p0, p1, quads, reach)`` is True where segment p0-p1 comes within ``reach``
of the convex quadrilateral (touching counts). Same answers as shapely's ``intersects`` /
``dwithin`` for convex quads, without a Python call per pair.

>>> import numpy as np
>>> quad = np.array([[[40, -10], [60, -10], [60, 10], [40, 10]]], dtype=float)
>>> p0, p1 = np.array([[0.0, 0.0], [0.0, 20.0]]), np.array([[100.0, 0.0], [100.0, 20.0]])
>>> segments_near_quads(p0, p1, np.repeat(quad, 2, axis=0), 0.0).tolist()
[True, False]
>>> segments_near_quads(p0, p1, np.repeat(quad, 2, axis=0), 10.0).tolist()
[True, True]
"""

from __future__ import annotations

import math

import numpy as np
import shapely


CHUNK = 8192   # rows per numpy pass: temporaries stay in cache (2x faster on 100k lines)


def _cross(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    return ax * by - ay * bx


def point_segment_distance(px: np.ndarray, py: np.ndarray, ax: np.ndarray, ay: np.ndarray,
                           bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    """Row-wise distance from points (px, py) to segments a-b."""
    n = len(px)
    if n <= CHUNK or px.ndim != 1:
        return _point_segment_distance(px, py, ax, ay, bx, by)
    out = np.empty(n)
    for s in range(0, n, CHUNK):
        e = s + CHUNK
        out[s:e] = _point_segment_distance(px[s:e], py[s:e], ax[s:e], ay[s:e], bx[s:e], by[s:e])
    return out


def _point_segment_distance(px: np.ndarray, py: np.ndarray, ax: np.ndarray, ay: np.ndarray,
                            bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(length2 > 0, ((px - ax) * dx + (py - ay) * dy) / length2, 0.0)
    t = np.clip(t, 0.0, 1.0)
    return np.hypot(px - (ax + t * dx), py - (ay + t * dy))


def segments_near_quads(p0: np.ndarray, p1: np.ndarray, quads: np.ndarray,
                        reach: float | np.ndarray = 0.0) -> np.ndarray:
    """Row-wise: does segment ``p0[i]``-``p1[i]`` come within ``reach`` of ``quads[i]`` (4 x 2)?"""
    n = len(p0)
    if n <= CHUNK:
        return _segments_near_quads(p0, p1, quads, reach)
    reach = np.broadcast_to(np.asarray(reach, dtype=float), (n,))
    out = np.empty(n, dtype=bool)
    for s in range(0, n, CHUNK):
        e = s + CHUNK
        out[s:e] = _segments_near_quads(p0[s:e], p1[s:e], quads[s:e], reach[s:e])
    return out


def _segments_near_quads(p0: np.ndarray, p1: np.ndarray, quads: np.ndarray,
                         reach: float | np.ndarray) -> np.ndarray:
    x0, y0, x1, y1 = p0[:, 0:1], p0[:, 1:2], p1[:, 0:1], p1[:, 1:2]
    ax, ay = quads[:, :, 0], quads[:, :, 1]
    bx, by = np.roll(ax, -1, axis=1), np.roll(ay, -1, axis=1)
    ex, ey = bx - ax, by - ay
    # an end inside (or on) the quad: the same side of every edge
    s0 = _cross(ex, ey, x0 - ax, y0 - ay)
    s1 = _cross(ex, ey, x1 - ax, y1 - ay)
    inside0 = (s0 >= 0).all(axis=1) | (s0 <= 0).all(axis=1)
    inside1 = (s1 >= 0).all(axis=1) | (s1 <= 0).all(axis=1)
    # the segment crosses or touches an edge
    dx, dy = x1 - x0, y1 - y0
    o1 = _cross(dx, dy, ax - x0, ay - y0)
    o2 = _cross(dx, dy, bx - x0, by - y0)
    crossing = (o1 * o2 <= 0) & (s0 * s1 <= 0)
    collinear = (o1 == 0) & (o2 == 0)
    if collinear.any():   # on the same line: the extents must overlap
        lo_x, hi_x = np.minimum(ax, bx), np.maximum(ax, bx)
        lo_y, hi_y = np.minimum(ay, by), np.maximum(ay, by)
        overlap = ((np.maximum(x0, x1) >= lo_x) & (np.minimum(x0, x1) <= hi_x)
                   & (np.maximum(y0, y1) >= lo_y) & (np.minimum(y0, y1) <= hi_y))
        crossing = np.where(collinear, overlap, crossing)
    hit = inside0 | inside1 | crossing.any(axis=1)
    reach = np.broadcast_to(np.asarray(reach, dtype=float), hit.shape)
    near = ~hit & (reach > 0)
    if near.any():
        r = np.nonzero(near)[0]
        d = np.minimum.reduce([
            point_segment_distance(x0[r], y0[r], ax[r], ay[r], bx[r], by[r]),
            point_segment_distance(x1[r], y1[r], ax[r], ay[r], bx[r], by[r]),
            point_segment_distance(ax[r], ay[r], x0[r], y0[r], x1[r], y1[r]),
            point_segment_distance(bx[r], by[r], x0[r], y0[r], x1[r], y1[r]),
        ]).min(axis=1)
        hit[r] = d <= reach[r]
    return hit


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
    # it; one lying along the edge counts as inside, as GEOS counts the boundary.
    parallel = np.abs(den) <= _PARALLEL_EPS * length[:, None] * scale
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = num / np.where(parallel, 1.0, den)
    t_in = np.where(~parallel & (den < 0), t, -np.inf).max(axis=1).clip(0.0, 1.0)
    t_out = np.where(~parallel & (den > 0), t, np.inf).min(axis=1).clip(0.0, 1.0)
    outside = (parallel & (num < -_ON_EDGE_MM * scale)).any(axis=1)
    return np.where(outside, 0.0, np.maximum(t_out - t_in, 0.0) * length)


def convex_edges(polygons: np.ndarray) -> list[np.ndarray | None]:
    """Per polygon: its (vertex, outward normal) rows (k, 4) for `convex_chords` when it is
    convex without holes, else None. Convex means equal to its convex hull (GEOS); a ring
    that surely turns one way once around is, without asking GEOS."""
    found: list[np.ndarray | None] = [None] * len(polygons)
    simple = np.nonzero((shapely.get_type_id(polygons) == 3)
                        & (shapely.get_num_interior_rings(polygons) == 0)
                        & ~shapely.is_empty(polygons))[0]
    rings = shapely.get_exterior_ring(polygons[simple])
    stops = np.cumsum(shapely.get_num_coordinates(rings))
    coords = shapely.get_coordinates(rings)
    for k, ring, stop, count in zip(simple.tolist(), rings, stops.tolist(),
                                    shapely.get_num_coordinates(rings).tolist()):
        v = coords[stop - count:stop - 1]          # without the closing vertex
        turn = _certain_turn(v.tolist())
        if turn == 0 and not shapely.equals(polygons[k], shapely.convex_hull(polygons[k])):
            continue
        e = np.concatenate([v[1:], v[:1]]) - v
        ccw = turn > 0 if turn != 0 else ring.is_ccw
        found[k] = np.concatenate([v, np.stack([e[:, 1], -e[:, 0]], axis=1)
                                   * (1.0 if ccw else -1.0)], axis=1)
    return found


def _certain_turn(v: list[list[float]]) -> int:
    """+1 (-1) when the ring of vertices ``v`` (not closed) turns left (right) at every vertex
    by far more than rounding, once around: a strictly convex polygon, its own convex hull and
    counter-clockwise (clockwise) for GEOS too; 0 when not certain of that. (Plain Python:
    rings are short.)"""
    n = len(v)
    if n < 3:
        return 0
    sign = 0
    turning = 0.0
    for i in range(n):
        (px, py), (x, y), (nx, ny) = v[i - 1], v[i], v[(i + 1) % n]
        ax, ay, bx, by = x - px, y - py, nx - x, ny - y
        left, right = ax * by, ay * bx
        cross = left - right
        if not abs(cross) > 1e-12 * (abs(left) + abs(right)):
            return 0
        s = 1 if cross > 0 else -1
        if sign not in (0, s):
            return 0
        sign = s
        turning += math.atan2(cross, ax * bx + ay * by)
    return sign if abs(turning) < 3 * math.pi else 0   # once around: 2 pi


class Segments:
    """Sight lines as coordinates (n, 2, 2), with their GEOS linestrings made only for the rows
    a GEOS test needs (most lines meet no terrain at all)."""

    def __init__(self, xy: np.ndarray, geoms: np.ndarray | None = None) -> None:
        self.xy = xy
        self._geoms = geoms

    @staticmethod
    def of(lines: np.ndarray) -> Segments:
        """From two-point linestrings, or from their coordinates (n, 2, 2)."""
        if isinstance(lines, Segments):
            return lines
        if lines.dtype != object:
            return Segments(np.asarray(lines, dtype=float).reshape(-1, 2, 2))
        if len(lines) and not (shapely.get_num_coordinates(lines) == 2).all():
            raise ValueError("sight lines are straight segments of two points")
        return Segments(shapely.get_coordinates(lines).reshape(-1, 2, 2), lines)

    def __len__(self) -> int:
        return len(self.xy)

    def geoms(self, rows: np.ndarray) -> np.ndarray:
        """The linestrings of ``rows`` (the same geometries whichever way they were given)."""
        if self._geoms is not None:
            return self._geoms[rows]
        return shapely.linestrings(self.xy[rows])

    def bounds(self, rows: np.ndarray) -> np.ndarray:
        """(xmin, ymin, xmax, ymax) of ``rows`` (`shapely.bounds` of the lines)."""
        xy = self.xy[rows]
        return np.concatenate([xy.min(axis=1), xy.max(axis=1)], axis=1)
