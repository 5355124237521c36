"""A compiled point-to-segment distance, kept only for `box_kernel` (ISD charges, owned by its
engineer), which imports it from here: delete this module with that one. The fire and sight
rules no longer use compiled kernels (issue 13)."""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, inline="always")
def point_to_segment(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """`segments._point_segment_distance` for one point and one segment (`box_kernel`'s)."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = ((px - ax) * dx + (py - ay) * dy) / length2 if length2 > 0 else 0.0
    t = min(max(t, 0.0), 1.0)
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))
