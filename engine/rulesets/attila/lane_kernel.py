"""Compiled (numba) lane test of a charge's sweep of wheels: which wheels certainly miss.

A charge met at an angle tries a sweep of wheels (every 5°, both ways, within the wheel limit);
most of them turn the front away from the target, and `charges._lane` refuses them. Built one
by one in Python (the wheeled base, then the lane) those refusals were a quarter of trying the
sweep. Here every wheel of one sweep is tested at once from the start pose alone: a wheel on the
corner it turns toward leaves that corner in place, so the wheeled front runs from it (or to
it) along the turned heading.

The floats are not `_lane`'s (no `Rect` is built), so a wheel is dropped only when it misses
by more than `charges.MISS_MARGIN_MM` plus a spare far above the error here (about 1e-12 mm):
`_lane`'s exact test then refuses it too, and every answer is unchanged
(tests/test_attila_lane_kernel.py checks the kernel against `_lane`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def lanes_missed(turns: np.ndarray, heading_deg: float, width: float, left_x: float,
                 left_y: float, right_x: float, right_y: float, goal: np.ndarray,
                 miss: float) -> np.ndarray:
    """Per wheel of ``turns`` (degrees, CCW positive, none zero): True when the wheeled front,
    moving straight on, certainly never meets the quad ``goal`` ((4, 2) corners): every corner
    lies more than ``miss`` beyond one side of the front's lane, or behind the front.
    (``left_*``, ``right_*``: the front corners before the wheel.)"""
    n = turns.shape[0]
    out = np.zeros(n, dtype=np.bool_)
    for k in range(n):
        t = turns[k]
        a = math.radians((heading_deg + t) % 360.0)
        dx = math.cos(a)
        dy = math.sin(a)
        rx = dy
        ry = -dx
        if t > 0:                       # pivot on the front left corner
            fx = left_x
            fy = left_y
        else:                           # pivot on the front right: the left corner swings
            fx = right_x - width * rx
            fy = right_y - width * ry
        lo_across = np.inf
        hi_across = -np.inf
        hi_ahead = -np.inf
        for j in range(goal.shape[0]):
            ux = goal[j, 0] - fx
            uy = goal[j, 1] - fy
            across = ux * rx + uy * ry
            ahead = ux * dx + uy * dy
            lo_across = min(lo_across, across)
            hi_across = max(hi_across, across)
            hi_ahead = max(hi_ahead, ahead)
        out[k] = hi_across < -miss or lo_across > width + miss or hi_ahead < -miss
    return out
