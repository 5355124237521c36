"""Compiled (numba) slides of convex shapes: `motion.slide_convex`'s ray searches, many at once.

An ISD charge tries up to four straight or oblique slides from each start (the front edge and the
whole base against the target) and slides the base against the 2" zones near its path (a
36-point outline). In plain Python floats those ray searches were a third of judging a charge.

The arithmetic is `motion._ray_hits_py`'s, operation for operation (numba keeps IEEE order and
does not fuse multiplies and adds unless asked), so the distances are the same floats
(tests/test_engine_charge_fast.py). The "already touching" test (GEOS) stays with the caller:
it does not depend on the direction, so it is asked once per pair of shapes. `flank_contact_mm`
measures, at the contact pose, how much of the charger's flanks and rear lies along the target
(`contact.shared_lengths`; there the last bit may differ, see its docstring).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def _ray_hits(origins: np.ndarray, d0: float, d1: float, verts: np.ndarray) -> float:
    """`motion._ray_hits_py(origins, d0, d1, *_edges_py(verts))`: smallest t >= 0 with some
    origin + t*d on an edge of ``verts`` (one edge for two vertices, else the closed ring)."""
    best = np.inf
    m = verts.shape[0]
    n_edges = 1 if m == 2 else m
    for j in range(n_edges):
        k = j + 1 if j + 1 < m else 0
        q0 = verts[j, 0]
        q1 = verts[j, 1]
        e0 = verts[k, 0] - q0
        e1 = verts[k, 1] - q1
        denom = d0 * e1 - d1 * e0
        if not abs(denom) > 1e-12:
            continue
        for i in range(origins.shape[0]):
            w0 = q0 - origins[i, 0]
            w1 = q1 - origins[i, 1]
            t = (w0 * e1 - w1 * e0) / denom
            if t >= -1e-9 and t < best:
                s = (w0 * d1 - w1 * d0) / denom
                if s >= -1e-9 and s <= 1 + 1e-9:
                    best = t
    return best


@njit(cache=True)
def slide_apart(moving: np.ndarray, obstacle: np.ndarray, d0: float, d1: float) -> float:
    """`slide_convex` of two shapes known not to touch: how far ``moving`` slides along the
    unit vector (d0, d1) before touching ``obstacle`` (inf if never)."""
    # Python's min/max spelled out (which operand wins a tie decides the sign of a zero)
    ahead = _ray_hits(moving, d0, d1, obstacle)
    back = _ray_hits(obstacle, -d0, -d1, moving)
    nearest = back if back < ahead else ahead
    return nearest if nearest > 0.0 else 0.0


@njit(cache=True)
def front_and_body_slides(body: np.ndarray, target: np.ndarray, dirs: np.ndarray,
                          front_touches: bool, body_touches: bool) -> np.ndarray:
    """For each direction (k, 2): the slide of the front edge (the first two corners of
    ``body``) and of the whole base (4 corners) before touching ``target`` (convex vertices),
    as `slide_convex` gives them; (k, 2). A shape already touching slides 0."""
    out = np.empty((dirs.shape[0], 2))
    front = body[:2]
    for k in range(dirs.shape[0]):
        d0 = dirs[k, 0]
        d1 = dirs[k, 1]
        out[k, 0] = 0.0 if front_touches else slide_apart(front, target, d0, d1)
        out[k, 1] = 0.0 if body_touches else slide_apart(body, target, d0, d1)
    return out


@njit(cache=True)
def _clip_fraction(px: float, py: float, qx: float, qy: float, cx: float, cy: float, f0: float,
                   f1: float, r0: float, r1: float, hw: float, hd: float) -> float:
    """The fraction of segment p-q inside the box centred (cx, cy), front f, right r, half
    sizes hw, hd already grown: `contact.clip_length` before its final product with the
    segment's length, operation for operation (Python's max/min spelled out)."""
    dx, dy = px - cx, py - cy
    u0, v0 = dx * r0 + dy * r1, dx * f0 + dy * f1
    dx, dy = qx - cx, qy - cy
    u1, v1 = dx * r0 + dy * r1, dx * f0 + dy * f1
    t0, t1 = 0.0, 1.0
    for axis in range(2):
        d = u1 - u0 if axis == 0 else v1 - v0
        half = hw if axis == 0 else hd
        x = u0 if axis == 0 else v0
        lo, hi = -half, half
        if abs(d) < 1e-12:
            if x < lo or x > hi:
                return 0.0
            continue
        a, b = (lo - x) / d, (hi - x) / d
        if a > b:
            a, b = b, a
        t0 = a if a > t0 else t0
        t1 = b if b < t1 else t1
        if t0 > t1:
            return 0.0
    return t1 - t0


@njit(cache=True)
def _clip_length(px: float, py: float, qx: float, qy: float, cx: float, cy: float, f0: float,
                 f1: float, r0: float, r1: float, hw: float, hd: float) -> float:
    """`contact.clip_length`, but for the final `hypot` (numba's, not CPython's: the last bit
    may differ, so callers keep a margin)."""
    return _clip_fraction(px, py, qx, qy, cx, cy, f0, f1, r0, r1, hw, hd) * \
        math.hypot(qx - px, qy - py)


@njit(cache=True)
def shared_fractions(corners: np.ndarray, target: np.ndarray, grow: float) -> np.ndarray:
    """For each edge of the rectangle ``corners`` (front, right, rear, left: corner i to i+1),
    the fraction lying within ``grow`` of the target rectangle ``target`` = (cx, cy, f0, f1,
    r0, r1, width, depth); times each edge's length (`math.hypot`, CPython's) they are
    `contact.shared_lengths` to the bit."""
    out = np.empty(4)
    tx, ty, tf0, tf1, tr0, tr1 = target[0], target[1], target[2], target[3], target[4], target[5]
    thw, thd = target[6] / 2 + grow, target[7] / 2 + grow
    for i in range(4):
        j = i + 1 if i < 3 else 0
        out[i] = _clip_fraction(corners[i, 0], corners[i, 1], corners[j, 0], corners[j, 1],
                                tx, ty, tf0, tf1, tr0, tr1, thw, thd)
    return out


@njit(cache=True)
def flank_contact_mm(cx: float, cy: float, f0: float, f1: float, r0: float, r1: float,
                     hw: float, hd: float, target: np.ndarray, grow: float) -> float:
    """The longest of the right, rear and left edges of the base centred (cx, cy) (front f,
    right r, half sizes hw, hd; corners as `Rect` builds them) lying within ``grow`` of the
    target rectangle ``target`` = (cx, cy, f0, f1, r0, r1, width, depth): `shared_lengths`'
    flank and rear entries."""
    fl_x, fl_y = cx - hw * r0 + hd * f0, cy - hw * r1 + hd * f1
    fr_x, fr_y = cx + hw * r0 + hd * f0, cy + hw * r1 + hd * f1
    rr_x, rr_y = cx + hw * r0 - hd * f0, cy + hw * r1 - hd * f1
    rl_x, rl_y = cx - hw * r0 - hd * f0, cy - hw * r1 - hd * f1
    tx, ty, tf0, tf1, tr0, tr1 = target[0], target[1], target[2], target[3], target[4], target[5]
    thw, thd = target[6] / 2 + grow, target[7] / 2 + grow
    right = _clip_length(fr_x, fr_y, rr_x, rr_y, tx, ty, tf0, tf1, tr0, tr1, thw, thd)
    rear = _clip_length(rr_x, rr_y, rl_x, rl_y, tx, ty, tf0, tf1, tr0, tr1, thw, thd)
    left = _clip_length(rl_x, rl_y, fl_x, fl_y, tx, ty, tf0, tf1, tr0, tr1, thw, thd)
    return max(right, rear, left)
