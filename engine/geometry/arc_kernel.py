"""GEOS's segment distance in compiled code, kept only for `gap_kernel` (ISD charges and ATTILA,
owned by their engineers), which imports it: delete this module with that one. The fire and
sight rules no longer use compiled kernels (issue 13)."""

from __future__ import annotations

import math

from numba import njit

TOL = 1e-7          # mm: answers closer than this to a boundary are left to GEOS


@njit(cache=True)
def point_distance(px: float, py: float, ax: float, ay: float) -> float:
    """GEOS ``Coordinate::distance``."""
    dx = px - ax
    dy = py - ay
    return math.sqrt(dx * dx + dy * dy)


@njit(cache=True)
def point_segment_distance(px: float, py: float, ax: float, ay: float, bx: float,
                           by: float) -> float:
    """GEOS ``Distance::pointToSegment``, operation for operation."""
    if ax == bx and ay == by:
        return point_distance(px, py, ax, ay)
    len2 = (bx - ax) * (bx - ax) + (by - ay) * (by - ay)
    r = ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / len2
    if r <= 0.0:
        return point_distance(px, py, ax, ay)
    if r >= 1.0:
        return point_distance(px, py, bx, by)
    s = ((ay - py) * (bx - ax) - (ax - px) * (by - ay)) / len2
    return abs(s) * math.sqrt(len2)


@njit(cache=True)
def segments_apart(ax: float, ay: float, bx: float, by: float, cx: float, cy: float,
                    dx: float, dy: float) -> bool:
    """`segment_distance`'s test that segments AB and CD (of lengths > 0) do not cross."""
    if (min(cx, dx) > max(ax, bx) or max(cx, dx) < min(ax, bx)
            or min(cy, dy) > max(ay, by) or max(cy, dy) < min(ay, by)):
        return True
    denom = (bx - ax) * (dy - cy) - (by - ay) * (dx - cx)
    if denom == 0:
        return True
    r_num = (ay - cy) * (dx - cx) - (ax - cx) * (dy - cy)
    s_num = (ay - cy) * (bx - ax) - (ax - cx) * (by - ay)
    s = s_num / denom
    r = r_num / denom
    return r < 0 or r > 1 or s < 0 or s > 1


@njit(cache=True)
def segment_distance(ax: float, ay: float, bx: float, by: float, cx: float, cy: float,
                     dx: float, dy: float) -> float:
    """GEOS ``Distance::segmentToSegment`` (segments AB and CD), operation for operation."""
    if ax == bx and ay == by:
        return point_segment_distance(ax, ay, cx, cy, dx, dy)
    if cx == dx and cy == dy:
        return point_segment_distance(dx, dy, ax, ay, bx, by)
    if segments_apart(ax, ay, bx, by, cx, cy, dx, dy):
        return min(point_segment_distance(ax, ay, cx, cy, dx, dy),
                   point_segment_distance(bx, by, cx, cy, dx, dy),
                   point_segment_distance(cx, cy, ax, ay, bx, by),
                   point_segment_distance(dx, dy, ax, ay, bx, by))
    return 0.0
