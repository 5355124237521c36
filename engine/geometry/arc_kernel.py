"""Compiled (numba) measuring of targets in arcs of fire: the pair geometry of `fire_batch`.

A battle of 200 bases has some 10,000 (shooter, enemy base) candidate pairs. For each, GEOS was
asked whether the base lies within 1e-6 mm of the arc (cut 3" beyond range, else unbounded), for
the part of the base inside the arc (an intersection) and for the distance from the firing front
to that part. Arcs are convex quads (front segment, two side rays, far edge) and bases are
rectangles, so here: a separating-axis gap and segment distances decide "within 1e-6 mm",
Sutherland–Hodgman clipping against the arc's four half-planes gives the part in arc, and the
distance is GEOS's own segment arithmetic (`Distance::segmentToSegment`).

Exactness: compiled arithmetic and GEOS may differ in the last bits, so a pair is decided here
only when every answer is certain by more than ``TOL`` mm: no corner of the base within TOL of an
arc edge's line, no arc corner within TOL of the base's outline, the gap to the arc not within
TOL of 0 or of 1e-6 mm, the distance not within TOL of 0 nor the range and band thresholds
within 1e-9 in. Any other pair is flagged and measured by GEOS as before (`fire_batch`). In
general position the clipped polygon has exactly GEOS's vertices (up to rounding and start);
rectangles kept whole keep their exact coordinates, so their distances and centroids are GEOS's
to the bit (tests/test_engine_arc_kernel.py).

Here the geometry of one pair at a time (the reference); `engine.geometry.pair_kernel` measures
every pair at once with the same arithmetic (tests/test_engine_pairs_fast.py).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

TOL = 1e-7          # mm: answers closer than this to a boundary are left to GEOS
WITHIN = 1e-6       # mm: "in arc" is "within 1e-6 mm of the arc" (shapely.dwithin)
THRESHOLD_TOL = 1e-9  # in: distances this close to a range or band threshold are left to GEOS
MAX_VERTS = 8       # a rectangle clipped by 4 half-planes

OK, FALLBACK = 0, 1


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


@njit(cache=True)
def orientation(p: np.ndarray, n: int) -> float:
    """+1 for a counter-clockwise ring of ``n`` vertices (not closed), -1 clockwise."""
    a = 0.0
    for i in range(n):
        j = (i + 1) % n
        a += p[i, 0] * p[j, 1] - p[j, 0] * p[i, 1]
    return 1.0 if a > 0 else -1.0


@njit(cache=True)
def separation(p: np.ndarray, q: np.ndarray, stop: float) -> float:
    """The largest gap between two convex quads along the outward normals of either's edges:
    > 0 exactly when they are disjoint (a lower bound of their distance), < 0 when they
    overlap by at least that much along every such axis. Returns the first gap found above
    ``stop`` as soon as it is found."""
    best = -math.inf
    for which in range(2):
        a = p if which == 0 else q
        b = q if which == 0 else p
        orient = orientation(a, 4)
        for i in range(4):
            j = (i + 1) % 4
            ex, ey = a[j, 0] - a[i, 0], a[j, 1] - a[i, 1]
            length = math.sqrt(ex * ex + ey * ey)
            if length == 0.0:
                continue
            nx, ny = orient * ey / length, -orient * ex / length   # outward unit normal
            gap = math.inf
            for k in range(4):
                gap = min(gap, (b[k, 0] - a[i, 0]) * nx + (b[k, 1] - a[i, 1]) * ny)
            best = max(best, gap)
            if best > stop:
                return best
    return best


@njit(cache=True)
def limit_status(d: float, limit: float) -> int:
    """Whether a distance ``d`` is within ``limit``: 1 yes, 0 no, -1 within TOL of it (too
    close to call in plain floats)."""
    if d < limit - TOL:
        return 1
    if d > limit + TOL:
        return 0
    return -1


@njit(cache=True)
def within_status(arc: np.ndarray, rect: np.ndarray) -> int:
    """Whether the quads lie within WITHIN mm of each other (``shapely.dwithin``): 1 yes, 0 no,
    -1 too close to call."""
    gap = separation(arc, rect, WITHIN + TOL)
    if gap < -TOL:
        return 1
    if gap <= TOL:
        return -1
    if gap > WITHIN + TOL:
        return 0
    d = math.inf
    for i in range(4):
        i2 = (i + 1) % 4
        for j in range(4):
            j2 = (j + 1) % 4
            d = min(d, segment_distance(arc[i, 0], arc[i, 1], arc[i2, 0], arc[i2, 1],
                                        rect[j, 0], rect[j, 1], rect[j2, 0], rect[j2, 1]))
    return limit_status(d, WITHIN)


@njit(cache=True)
def clip_to_arc(rect: np.ndarray, arc: np.ndarray, out: np.ndarray, cur: np.ndarray,
                nxt: np.ndarray, side: np.ndarray) -> int:
    """Sutherland–Hodgman clip of a rectangle (4 x 2) to a convex quad: writes the vertices into
    ``out`` (MAX_VERTS x 2), the rectangle's order and orientation kept, and returns their
    number; -1 when a vertex lies within TOL of an edge line of the quad, or a quad corner within
    TOL of the rectangle's outline (GEOS would node there: too close to call). ``cur``, ``nxt``
    (MAX_VERTS x 2) and ``side`` (MAX_VERTS): scratch space."""
    lo_x = min(rect[0, 0], rect[1, 0], rect[2, 0], rect[3, 0]) - 2 * TOL
    hi_x = max(rect[0, 0], rect[1, 0], rect[2, 0], rect[3, 0]) + 2 * TOL
    lo_y = min(rect[0, 1], rect[1, 1], rect[2, 1], rect[3, 1]) - 2 * TOL
    hi_y = max(rect[0, 1], rect[1, 1], rect[2, 1], rect[3, 1]) + 2 * TOL
    for i in range(4):
        if not (lo_x <= arc[i, 0] <= hi_x and lo_y <= arc[i, 1] <= hi_y):
            continue    # farther than TOL from the rectangle
        for k in range(4):
            k2 = (k + 1) % 4
            if point_segment_distance(arc[i, 0], arc[i, 1], rect[k, 0], rect[k, 1],
                                      rect[k2, 0], rect[k2, 1]) <= TOL:
                return -1
    orient = orientation(arc, 4)
    n = 4
    for k in range(4):
        cur[k, 0], cur[k, 1] = rect[k, 0], rect[k, 1]
    for e in range(4):
        e2 = (e + 1) % 4
        px, py = arc[e, 0], arc[e, 1]
        ex, ey = arc[e2, 0] - px, arc[e2, 1] - py
        length = math.sqrt(ex * ex + ey * ey)
        for k in range(n):
            s = orient * (ex * (cur[k, 1] - py) - ey * (cur[k, 0] - px)) / length
            if abs(s) <= TOL:
                return -1
            side[k] = s
        m = 0
        for k in range(n):
            k2 = (k + 1) % n
            if side[k] > 0:
                nxt[m, 0], nxt[m, 1] = cur[k, 0], cur[k, 1]
                m += 1
            if (side[k] > 0) != (side[k2] > 0):
                t = side[k] / (side[k] - side[k2])
                nxt[m, 0] = cur[k, 0] + (cur[k2, 0] - cur[k, 0]) * t
                nxt[m, 1] = cur[k, 1] + (cur[k2, 1] - cur[k, 1]) * t
                m += 1
        for k in range(m):
            cur[k, 0], cur[k, 1] = nxt[k, 0], nxt[k, 1]
        n = m
        if n == 0:
            return 0
    for k in range(n):
        out[k, 0], out[k, 1] = cur[k, 0], cur[k, 1]
    return n


@njit(cache=True)
def ring_centroid(p: np.ndarray, n: int) -> tuple[float, float]:
    """GEOS ``Centroid`` of a polygon whose shell is ``p[:n]`` (closed implicitly): triangles
    fanned from the first vertex, in GEOS's order of operations."""
    a = 0.0
    for i in range(n):
        j = (i + 1) % n
        a += p[i, 0] * p[j, 1] - p[j, 0] * p[i, 1]
    sign = 1.0 if a < 0 else -1.0     # GEOS: positive area for a clockwise shell
    bx, by = p[0, 0], p[0, 1]
    cgx = cgy = area = 0.0
    for i in range(n):
        j = (i + 1) % n
        tx = bx + p[i, 0] + p[j, 0]
        ty = by + p[i, 1] + p[j, 1]
        a2 = (p[i, 0] - bx) * (p[j, 1] - by) - (p[j, 0] - bx) * (p[i, 1] - by)
        cgx += sign * a2 * tx
        cgy += sign * a2 * ty
        area += sign * a2
    return cgx / 3 / area, cgy / 3 / area


@njit(cache=True)
def front_distance(fx0: float, fy0: float, fx1: float, fy1: float, p: np.ndarray,
                   n: int) -> float:
    """GEOS's distance from the front segment to the polygon ``p[:n]``, or -1 when it is within
    TOL of 0 (touching, crossing or inside: left to GEOS)."""
    orient = orientation(p, n)
    for end in range(2):
        x = fx0 if end == 0 else fx1
        y = fy0 if end == 0 else fy1
        inside = True
        for i in range(n):
            j = (i + 1) % n
            ex, ey = p[j, 0] - p[i, 0], p[j, 1] - p[i, 1]
            if orient * (ex * (y - p[i, 1]) - ey * (x - p[i, 0])) <= 0:
                inside = False
                break
        if inside:
            return -1.0
    d = math.inf
    for i in range(n):
        j = (i + 1) % n
        d = min(d, segment_distance(fx0, fy0, fx1, fy1, p[i, 0], p[i, 1], p[j, 0], p[j, 1]))
    return d if d > TOL else -1.0


@njit(cache=True)
def copy_quad(quads: np.ndarray, k: int, out: np.ndarray) -> None:
    """``out[:] = quads[k]`` without making a view of ``quads``."""
    for i in range(4):
        out[i, 0], out[i, 1] = quads[k, i, 0], quads[k, i, 1]


@njit(cache=True)
def ring_coordinates(rows: np.ndarray, count: np.ndarray, verts: np.ndarray,
                     offsets: np.ndarray, out: np.ndarray) -> None:
    """Write the closed ring of each pair ``rows[i]`` at ``out[offsets[i]:]`` (as
    ``shapely.get_coordinates`` lists a polygon: the first vertex repeated at the end)."""
    for i in range(len(rows)):
        k = rows[i]
        at = offsets[i]
        m = count[k]
        for j in range(m + 1):
            out[at + j, 0] = verts[k, j % m, 0]
            out[at + j, 1] = verts[k, j % m, 1]


@njit(cache=True)
def sight_ends_of_rings(xy: np.ndarray, starts: np.ndarray, centres: np.ndarray,
                        inset: float) -> tuple[np.ndarray, np.ndarray]:
    """`fire.sight_ends_flat` (same arithmetic) of parts whose coordinates are
    ``xy[starts[i]:starts[i + 1]]``: per part its centre, then each vertex (the closing repeat
    of the first left out) moved ``inset`` toward the centre (at most onto it)."""
    n = len(starts) - 1
    points = np.empty((len(xy) + n, 2))
    belongs = np.empty(len(xy) + n, dtype=np.int64)
    m = 0
    for i in range(n):
        cx, cy = centres[i, 0], centres[i, 1]
        points[m, 0], points[m, 1] = cx, cy
        belongs[m] = i
        m += 1
        a = starts[i]
        for j in range(a, starts[i + 1]):
            x, y = xy[j, 0], xy[j, 1]
            if j != a and x == xy[a, 0] and y == xy[a, 1]:
                continue
            d = math.hypot(x - cx, y - cy)
            k = min(1.0, inset / d) if d > 0 else 0.0
            points[m, 0] = x + (cx - x) * k
            points[m, 1] = y + (cy - y) * k
            belongs[m] = i
            m += 1
    return points[:m], belongs[:m]


@njit(cache=True)
def arc_margins_of_rings(xy: np.ndarray, starts: np.ndarray, par: np.ndarray) -> np.ndarray:
    """`fire.arc_margins` (same arithmetic, in mm) of shapes whose coordinates are
    ``xy[starts[i]:starts[i + 1]]``, shape i in the arc ``par[i]`` (`fire.arc_params`): the
    deepest of its vertices and of the points where its outline crosses the arc's axis."""
    n = len(starts) - 1
    out = np.full(n, -math.inf)
    for i in range(n):
        p = par[i]
        mid_x = (p[0] + p[2]) / 2
        mid_y = (p[1] + p[3]) / 2
        best = -math.inf
        for j in range(starts[i], starts[i + 1]):
            x, y = xy[j, 0], xy[j, 1]
            best = max(best, min((x - p[0]) * p[4] + (y - p[1]) * p[5],
                                 (x - p[2]) * p[6] + (y - p[3]) * p[7]))
            if j + 1 < starts[i + 1]:
                a = (x - mid_x) * p[9] - (y - mid_y) * p[8]
                x2, y2 = xy[j + 1, 0], xy[j + 1, 1]
                b = (x2 - mid_x) * p[9] - (y2 - mid_y) * p[8]
                if a * b < 0:
                    t = a / (a - b)
                    cx = x + (x2 - x) * t
                    cy = y + (y2 - y) * t
                    best = max(best, min((cx - p[0]) * p[4] + (cy - p[1]) * p[5],
                                         (cx - p[2]) * p[6] + (cy - p[3]) * p[7]))
        out[i] = best
    return out


@njit(cache=True)
def meets_status(arc: np.ndarray, rect: np.ndarray) -> int:
    """Whether a convex quad and a rectangle meet (``shapely.intersects``): 1 yes, 0 no, -1 too
    close to call."""
    orient = orientation(arc, 4)
    deep = 15    # bit k: corner k lies inside every edge line by more than TOL
    for i in range(4):
        j = (i + 1) % 4
        px, py = arc[i, 0], arc[i, 1]
        ex, ey = arc[j, 0] - px, arc[j, 1] - py
        length = math.sqrt(ex * ex + ey * ey)
        outside = 0
        for k in range(4):
            s = orient * (ex * (rect[k, 1] - py) - ey * (rect[k, 0] - px)) / length
            if s < -TOL:
                outside += 1
            if s <= TOL:
                deep &= ~(1 << k)
        if outside == 4:
            return 0
    if deep:
        return 1
    gap = separation(arc, rect, TOL)
    if gap < -TOL:
        return 1
    if gap > TOL:
        return 0
    return -1


@njit(cache=True)
def near_status(fx0: float, fy0: float, fx1: float, fy1: float, rect: np.ndarray,
                 limit: float) -> int:
    """Whether the rectangle lies within ``limit`` of the segment (``shapely.dwithin``): 1 yes,
    0 no, -1 too close to call."""
    lo_x, hi_x = min(rect[0, 0], rect[1, 0], rect[2, 0], rect[3, 0]), \
        max(rect[0, 0], rect[1, 0], rect[2, 0], rect[3, 0])
    lo_y, hi_y = min(rect[0, 1], rect[1, 1], rect[2, 1], rect[3, 1]), \
        max(rect[0, 1], rect[1, 1], rect[2, 1], rect[3, 1])
    reach = limit + TOL
    if (min(fx0, fx1) - hi_x > reach or lo_x - max(fx0, fx1) > reach
            or min(fy0, fy1) - hi_y > reach or lo_y - max(fy0, fy1) > reach):
        return 0
    d = front_distance(fx0, fy0, fx1, fy1, rect, 4)
    if d < 0:            # within TOL of touching, or inside: well within any limit >= 2 TOL
        return 1 if limit > 2 * TOL else -1
    return limit_status(d, limit)
