"""Compiled (numba) `shapely.buffer(rectangle, -d, join_style="mitre")` for many bases, with
GEOS's coordinates to the last bit, or "not sure" (the caller then asks GEOS).

The sight field shrinks every body by the graze allowance (`SightField`); GEOS's buffer cost
about 5 us a base (1 ms at 200 bases), most of it building and noding a planar graph whose
answer, for a convex quadrilateral with long sides, is known in advance. GEOS (3.14) offsets
each side inward (`OffsetSegmentGenerator::computeOffsetSegment`, replicated operation for
operation) and, every corner being an inside turn, joins consecutive offset sides at their
intersection point (`LineIntersector` -> `CGAlgorithmsDD::intersection`, in double-double
arithmetic). Here that point is computed in double-double as well (error-free products and
sums) and kept only when its rounding to a double is certain: the point lies farther than
a generous error bound from a rounding tie, so GEOS's double-double value rounds the same way.
The ring GEOS returns starts at the first corner's point and runs clockwise (the graph's
result shells are clockwise): inset corners 0, 3, 2, 1 of a counter-clockwise input, 0, 1, 2, 3
of a clockwise one (tests/test_engine_sight_fast_erode.py compares against GEOS).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from campo.engine.geometry.wall_kernel import certain_orientation

VERIFIED_GEOS = (3, 14)
"""The GEOS (major, minor) whose buffer this replicates; under another, `SightField` asks GEOS."""
MIN_SIDE_MM = 1.0     # shorter sides, or flatter corners (GEOS may simplify them): GEOS's
DD_EPS = 1e-26        # relative error bound of either double-double evaluation (~1e-30)
SPLITTER = 134217729.0   # 2^27 + 1 (Dekker's split)


@njit(cache=True, inline="always")
def _two_sum(a: float, b: float) -> tuple[float, float]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit(cache=True, inline="always")
def _quick_two_sum(a: float, b: float) -> tuple[float, float]:
    s = a + b
    return s, b - (s - a)


@njit(cache=True, inline="always")
def _two_prod(a: float, b: float) -> tuple[float, float]:
    p = a * b
    t = SPLITTER * a
    ah = t - (t - a)
    al = a - ah
    t = SPLITTER * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@njit(cache=True, inline="always")
def _dd_add(ah: float, al: float, bh: float, bl: float) -> tuple[float, float]:
    s, e = _two_sum(ah, bh)
    t, f = _two_sum(al, bl)
    s, e = _quick_two_sum(s, e + t)
    return _quick_two_sum(s, e + f)


@njit(cache=True, inline="always")
def _dd_mul(ah: float, al: float, bh: float, bl: float) -> tuple[float, float]:
    p, e = _two_prod(ah, bh)
    return _quick_two_sum(p, e + (ah * bl + al * bh))


@njit(cache=True, inline="always")
def _dd_div(ah: float, al: float, bh: float, bl: float) -> tuple[float, float]:
    """a / b with one correction step (relative error about 1e-31, far inside DD_EPS)."""
    q1 = ah / bh
    ph, pl = _dd_mul(q1, 0.0, bh, bl)
    s1, s2 = _two_sum(ah, -ph)
    q2 = (s1 + ((s2 - pl) + al)) / bh
    return _quick_two_sum(q1, q2)


@njit(cache=True, inline="always")
def _rounds_surely(h: float, lo: float, bound: float) -> bool:
    """Whether every value within ``bound`` of ``h + lo`` (a normalised double-double)
    rounds to the double ``h``: more than ``bound`` from both neighbouring ties."""
    if h == 0.0 or not math.isfinite(h):
        return False
    m, e = math.frexp(abs(h))
    ulp = math.ldexp(1.0, e - 53)
    up = ulp                                  # the gap to the next double away from zero
    down = ulp / 2 if m == 0.5 else ulp       # ... and toward zero (half at a power of two)
    away = lo if h > 0 else -lo               # lo's part away from zero
    return away < up / 2 - bound and -away < down / 2 - bound


@njit(cache=True, inline="always")
def _offset(x0: float, y0: float, x1: float, y1: float, side_sign: float, distance: float
            ) -> tuple[float, float, float, float]:
    """GEOS `computeOffsetSegment`: the side moved ``distance`` to its left (sign +1) or
    right (-1), the same floating operations in the same order."""
    dx = x1 - x0
    dy = y1 - y0
    length = math.sqrt(dx * dx + dy * dy)
    ux = side_sign * distance * dx / length
    uy = side_sign * distance * dy / length
    return x0 - uy, y0 + ux, x1 - uy, y1 + ux


@njit(cache=True)
def eroded_quads(quads: np.ndarray, distance: float) -> tuple[np.ndarray, np.ndarray]:
    """(GEOS's exterior ring of each quad buffered by -``distance`` with mitre joins, without
    its closing vertex (n, 4, 2); whether that row is certain). Quads: (n, 4, 2), convex."""
    n = len(quads)
    out = np.zeros((n, 4, 2))
    sure = np.zeros(n, dtype=np.bool_)
    off = np.empty((4, 4))
    inset = np.empty((4, 2))
    for k in range(n):
        turn = 0.0
        ok = True
        for i in range(4):   # convex, every corner surely turning the same way, long sides
            a, b, c = (i + 3) % 4, i, (i + 1) % 4
            t = certain_orientation(quads[k, a, 0], quads[k, a, 1], quads[k, b, 0],
                                    quads[k, b, 1], quads[k, c, 0], quads[k, c, 1])
            sx, sy = quads[k, c, 0] - quads[k, b, 0], quads[k, c, 1] - quads[k, b, 1]
            cx, cy = quads[k, c, 0] - quads[k, a, 0], quads[k, c, 1] - quads[k, a, 1]
            least_side = 4 * distance + MIN_SIDE_MM
            least_height = MIN_SIDE_MM + distance    # of the corner above its chord
            if t == 0.0 or (turn != 0.0 and (t > 0) != (turn > 0)) or \
                    sx * sx + sy * sy < least_side * least_side or \
                    t * t < least_height * least_height * (cx * cx + cy * cy):
                ok = False
            turn = t
        if not ok:
            continue
        sign = 1.0 if turn > 0 else -1.0    # inward: left of a counter-clockwise ring
        for i in range(4):
            j = (i + 1) % 4
            x0, y0, x1, y1 = _offset(quads[k, i, 0], quads[k, i, 1], quads[k, j, 0],
                                     quads[k, j, 1], sign, distance)
            off[i, 0], off[i, 1], off[i, 2], off[i, 3] = x0, y0, x1, y1
        for i in range(4):   # corner i: offset side i - 1 meets offset side i
            p = (i + 3) % 4
            p1x, p1y, p2x, p2y = off[p, 0], off[p, 1], off[p, 2], off[p, 3]
            q1x, q1y, q2x, q2y = off[i, 0], off[i, 1], off[i, 2], off[i, 3]
            o1 = certain_orientation(p1x, p1y, p2x, p2y, q1x, q1y)
            o2 = certain_orientation(p1x, p1y, p2x, p2y, q2x, q2y)
            o3 = certain_orientation(q1x, q1y, q2x, q2y, p1x, p1y)
            o4 = certain_orientation(q1x, q1y, q2x, q2y, p2x, p2y)
            if o1 == 0 or o2 == 0 or o3 == 0 or o4 == 0 or (o1 > 0) == (o2 > 0) or \
                    (o3 > 0) == (o4 > 0):
                ok = False   # not a proper crossing for sure: GEOS's endpoint rules apply
                break
            # the homogeneous line intersection, in double-double
            pxh, pxl = _two_sum(p1y, -p2y)
            pyh, pyl = _two_sum(p2x, -p1x)
            ah, al = _two_prod(p1x, p2y)
            bh, bl = _two_prod(p2x, p1y)
            pwh, pwl = _dd_add(ah, al, -bh, -bl)
            qxh, qxl = _two_sum(q1y, -q2y)
            qyh, qyl = _two_sum(q2x, -q1x)
            ah, al = _two_prod(q1x, q2y)
            bh, bl = _two_prod(q2x, q1y)
            qwh, qwl = _dd_add(ah, al, -bh, -bl)
            ah, al = _dd_mul(pyh, pyl, qwh, qwl)
            bh, bl = _dd_mul(qyh, qyl, pwh, pwl)
            xh, xl = _dd_add(ah, al, -bh, -bl)
            ah, al = _dd_mul(qxh, qxl, pwh, pwl)
            bh, bl = _dd_mul(pxh, pxl, qwh, qwl)
            yh, yl = _dd_add(ah, al, -bh, -bl)
            ah, al = _dd_mul(pxh, pxl, qyh, qyl)
            bh, bl = _dd_mul(qxh, qxl, pyh, pyl)
            wh, wl = _dd_add(ah, al, -bh, -bl)
            ix, ixl = _dd_div(xh, xl, wh, wl)
            iy, iyl = _dd_div(yh, yl, wh, wl)
            # error bound: every term is at most (2m)^3 and w is exact to 1e-30 of (2m)^2
            m = max(abs(p1x), abs(p1y), abs(p2x), abs(p2y), abs(q1x), abs(q1y), abs(q2x),
                    abs(q2y))
            scale = 8.0 * m * m * m / abs(wh)
            if not (_rounds_surely(ix, ixl, DD_EPS * (2 * scale + abs(ix)))
                    and _rounds_surely(iy, iyl, DD_EPS * (2 * scale + abs(iy)))):
                ok = False
                break
            inset[i, 0], inset[i, 1] = ix, iy
        if not ok:
            continue
        for r in range(4):   # clockwise from corner 0
            i = r if sign < 0 else (4 - r) % 4
            out[k, r, 0], out[k, r, 1] = inset[i, 0], inset[i, 1]
        sure[k] = True
    return out, sure
