"""Compiled measuring of every (shooter, base) pair at once: `fire_batch`'s candidate pairs and
their parts in arc, ranges and centroids.

The answers are, bit for bit, those of `engine.geometry.arc_kernel`'s one-pair geometry
(`within_status`, `clip_to_arc`, `front_distance`, `ring_centroid`, `meets_status`,
`near_status`) applied pair by pair (tests/test_engine_pairs_fast.py); faster because:

- what depends on one shape only (edge normals and lengths, orientations) is computed once per
  arc or base, by the same operations, instead of once per pair;
- a sign test needs no division where the numerator alone is sure by far (2 TOL), and a base
  that lies deep inside an arc is its own part without clipping;
- of the point-to-segment distances whose least is the range, those whose lower bound (a
  distance to a line, or to a rectangle) exceeds one already found by SKIP_MARGIN are skipped:
  the least, and so the float, is unchanged;
- the per-pair steps are closures over the arrays: numba counts references to every array
  passed to a function, atomically, at each call (more than most steps cost).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from campo.engine.geometry.arc_kernel import (
    FALLBACK,
    MAX_VERTS,
    THRESHOLD_TOL,
    TOL,
    WITHIN,
    copy_quad,
    near_status,
    orientation,
    separation,
    limit_status,
    front_distance,
    point_segment_distance,
    ring_centroid,
    segment_distance,
    segments_apart,
)

SKIP_MARGIN = 1e-6  # mm: a distance whose lower bound exceeds the least found by this is skipped


@njit(cache=True)
def edge_normals(quads: np.ndarray) -> np.ndarray:
    """Per quad (n, 4, 2) and edge i (vertex i to i + 1): its outward unit normal, as
    `separation` computes it (nan for an edge of length 0, which it skips)."""
    out = np.empty((len(quads), 4, 2))
    for k in range(len(quads)):
        orient = orientation(quads[k], 4)
        for i in range(4):
            j = (i + 1) % 4
            ex, ey = quads[k, j, 0] - quads[k, i, 0], quads[k, j, 1] - quads[k, i, 1]
            length = math.sqrt(ex * ex + ey * ey)
            if length == 0.0:
                out[k, i, 0] = out[k, i, 1] = np.nan
            else:
                out[k, i, 0], out[k, i, 1] = orient * ey / length, -orient * ex / length
    return out


@njit(cache=True)
def _arc_edges(arcs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per quad (n, 4, 2) and edge e (vertex e to e + 1): (ex, ey, length), as `clip_to_arc`
    and `meets_status` compute them; and each quad's `orientation`."""
    edges = np.empty((len(arcs), 4, 3))
    orients = np.empty(len(arcs))
    for s in range(len(arcs)):
        orients[s] = orientation(arcs[s], 4)
        for e in range(4):
            e2 = (e + 1) % 4
            ex, ey = arcs[s, e2, 0] - arcs[s, e, 0], arcs[s, e2, 1] - arcs[s, e, 1]
            edges[s, e, 0], edges[s, e, 1] = ex, ey
            edges[s, e, 2] = math.sqrt(ex * ex + ey * ey)
    return edges, orients


@njit(cache=True)
def _rectangles(normals: np.ndarray) -> np.ndarray:
    """Whether each quad, by its edges' unit normals (`edge_normals`), is a rectangle (to 1e-12:
    for lower bounds only)."""
    out = np.zeros(len(normals), dtype=np.bool_)
    for k in range(len(normals)):
        n = normals[k]
        out[k] = (abs(n[0, 0] + n[2, 0]) < 1e-12 and abs(n[0, 1] + n[2, 1]) < 1e-12
                  and abs(n[1, 0] + n[3, 0]) < 1e-12 and abs(n[1, 1] + n[3, 1]) < 1e-12
                  and abs(n[0, 0] * n[1, 0] + n[0, 1] * n[1, 1]) < 1e-12)
    return out


@njit(cache=True)
def _front_frames(fronts: np.ndarray) -> np.ndarray:
    """Per front (n, 2, 2): its unit direction and length (for lower bounds only)."""
    out = np.empty((len(fronts), 3))
    for s in range(len(fronts)):
        fx, fy = fronts[s, 1, 0] - fronts[s, 0, 0], fronts[s, 1, 1] - fronts[s, 0, 1]
        length = math.sqrt(fx * fx + fy * fy)
        scale = 1.0 / length if length > 0 else 0.0
        out[s, 0], out[s, 1], out[s, 2] = fx * scale, fy * scale, length
    return out


@njit(cache=True)
def measure_pairs(pair_s: np.ndarray, pair_b: np.ndarray, near_arcs: np.ndarray,
                  whole_arcs: np.ndarray, fronts: np.ndarray, corners: np.ndarray,
                  mm_per_in: float, thresholds: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                             np.ndarray]:
    """Per pair k (shooter ``pair_s[k]``, base ``pair_b[k]``): (status OK or FALLBACK, in arc,
    distance in mm from the front to the part measured, the part's vertex count and vertices,
    its centroid). The part is the base clipped to the arc (cut short when the base is within
    1e-6 mm of the near arc, else the whole arc), or the whole base when not in arc.

    ``near_arcs``/``whole_arcs``: (shooters, 4, 2); ``fronts``: (shooters, 2, 2); ``corners``:
    (bases, 4, 2); ``thresholds``: (shooters, t) inches a distance must not lie within
    THRESHOLD_TOL of (range and band edges; pad with nan).

    The arithmetic is that of `within_status`, `clip_to_arc` and `front_distance`, with what
    depends on one shape only (edge normals, lengths) computed once per shape, and the
    per-pair steps closures over the arrays: numba would count references to every array
    passed to a function, atomically, at each call (more than the steps cost)."""
    n = len(pair_s)
    status = np.zeros(n, dtype=np.int8)
    in_arc = np.zeros(n, dtype=np.bool_)
    dist = np.zeros(n)
    count = np.zeros(n, dtype=np.int64)
    verts = np.zeros((n, MAX_VERTS, 2))
    centre = np.zeros((n, 2))
    arcs = np.empty((2, len(near_arcs), 4, 2))     # [0]: near arcs, [1]: whole arcs
    arcs[0], arcs[1] = near_arcs, whole_arcs
    arc_normals = np.empty((2, len(near_arcs), 4, 2))
    arc_normals[0], arc_normals[1] = edge_normals(near_arcs), edge_normals(whole_arcs)
    rect_normals = edge_normals(corners)
    arc_edges = np.empty((2, len(near_arcs), 4, 3))   # each edge's ex, ey, length
    arc_orient = np.empty((2, len(near_arcs)))
    arc_edges[0], arc_orient[0] = _arc_edges(near_arcs)
    arc_edges[1], arc_orient[1] = _arc_edges(whole_arcs)
    rect_orient = np.empty(len(corners))
    for b in range(len(corners)):
        rect_orient[b] = orientation(corners[b], 4)
    rect_shaped = _rectangles(rect_normals)
    front_frames = _front_frames(fronts)
    # `front_to_base` needs every front and base edge of length > 0 (else `front_distance`)
    fast_fronts = not np.isnan(rect_normals).any() and (front_frames[:, 2] > 0).all()
    base_centre = np.full((len(corners), 2), np.nan)     # each whole base's `ring_centroid`
    beyond = np.empty((2, 4))
    bound2 = np.empty(4)
    part = np.empty((MAX_VERTS, 2))
    nxt = np.empty((MAX_VERTS, 2))
    side = np.empty(MAX_VERTS)

    def arc_gap(w: int, s: int, b: int, stop: float) -> float:
        """`separation` of arc ``arcs[w, s]`` and base ``b``."""
        best = -math.inf
        for i in range(4):
            nx, ny = arc_normals[w, s, i, 0], arc_normals[w, s, i, 1]
            if nx != nx:
                continue
            gap = math.inf
            for k in range(4):
                gap = min(gap, (corners[b, k, 0] - arcs[w, s, i, 0]) * nx
                          + (corners[b, k, 1] - arcs[w, s, i, 1]) * ny)
            best = max(best, gap)
            if best > stop:
                return best
        for i in range(4):
            nx, ny = rect_normals[b, i, 0], rect_normals[b, i, 1]
            if nx != nx:
                continue
            gap = math.inf
            for k in range(4):
                gap = min(gap, (arcs[w, s, k, 0] - corners[b, i, 0]) * nx
                          + (arcs[w, s, k, 1] - corners[b, i, 1]) * ny)
            best = max(best, gap)
            if best > stop:
                return best
        return best

    def within(w: int, s: int, b: int) -> int:
        """`within_status` of arc ``arcs[w, s]`` and base ``b``."""
        found = arc_gap(w, s, b, WITHIN + TOL)
        if found < -TOL:
            return 1
        if found <= TOL:
            return -1
        if found > WITHIN + TOL:
            return 0
        d = math.inf
        for i in range(4):
            i2 = (i + 1) % 4
            for j in range(4):
                j2 = (j + 1) % 4
                d = min(d, segment_distance(
                    arcs[w, s, i, 0], arcs[w, s, i, 1], arcs[w, s, i2, 0], arcs[w, s, i2, 1],
                    corners[b, j, 0], corners[b, j, 1], corners[b, j2, 0], corners[b, j2, 1]))
        return limit_status(d, WITHIN)

    def deep_inside(w: int, s: int, b: int) -> bool:
        """Whether every corner of base ``b`` is inside every edge of arc ``arcs[w, s]`` by
        more than 2 TOL (with no division: then `clip_to_arc` keeps the base whole)."""
        for e in range(4):
            px, py = arcs[w, s, e, 0], arcs[w, s, e, 1]
            ex, ey, length = arc_edges[w, s, e, 0], arc_edges[w, s, e, 1], arc_edges[w, s, e, 2]
            for k in range(4):
                cross = arc_orient[w, s] * (ex * (corners[b, k, 1] - py)
                                            - ey * (corners[b, k, 0] - px))
                if not cross > 2 * TOL * length:
                    return False
        return True

    def arc_corner_on_base(w: int, s: int, b: int) -> bool:
        """Whether a corner of arc ``arcs[w, s]`` lies within TOL of base ``b``'s outline
        (`clip_to_arc`'s first test: GEOS would node there)."""
        lo_x = min(corners[b, 0, 0], corners[b, 1, 0], corners[b, 2, 0], corners[b, 3, 0]) - 2 * TOL
        hi_x = max(corners[b, 0, 0], corners[b, 1, 0], corners[b, 2, 0], corners[b, 3, 0]) + 2 * TOL
        lo_y = min(corners[b, 0, 1], corners[b, 1, 1], corners[b, 2, 1], corners[b, 3, 1]) - 2 * TOL
        hi_y = max(corners[b, 0, 1], corners[b, 1, 1], corners[b, 2, 1], corners[b, 3, 1]) + 2 * TOL
        for i in range(4):
            x, y = arcs[w, s, i, 0], arcs[w, s, i, 1]
            if not (lo_x <= x <= hi_x and lo_y <= y <= hi_y):
                continue    # farther than TOL from the rectangle
            for k in range(4):
                k2 = (k + 1) % 4
                if point_segment_distance(x, y, corners[b, k, 0], corners[b, k, 1],
                                          corners[b, k2, 0], corners[b, k2, 1]) <= TOL:
                    return True
        return False

    def clip(w: int, s: int, b: int) -> int:
        """`clip_to_arc`'s clipping of base ``b`` to arc ``arcs[w, s]``, into ``part``."""
        orient = arc_orient[w, s]
        n = 4
        for k in range(4):
            part[k, 0], part[k, 1] = corners[b, k, 0], corners[b, k, 1]
        for e in range(4):
            px, py = arcs[w, s, e, 0], arcs[w, s, e, 1]
            ex, ey, length = arc_edges[w, s, e, 0], arc_edges[w, s, e, 1], arc_edges[w, s, e, 2]
            for k in range(n):
                v = orient * (ex * (part[k, 1] - py) - ey * (part[k, 0] - px)) / length
                if abs(v) <= TOL:
                    return -1
                side[k] = v
            m = 0
            for k in range(n):
                k2 = (k + 1) % n
                if side[k] > 0:
                    nxt[m, 0], nxt[m, 1] = part[k, 0], part[k, 1]
                    m += 1
                if (side[k] > 0) != (side[k2] > 0):
                    t = side[k] / (side[k] - side[k2])
                    nxt[m, 0] = part[k, 0] + (part[k2, 0] - part[k, 0]) * t
                    nxt[m, 1] = part[k, 1] + (part[k2, 1] - part[k, 1]) * t
                    m += 1
            for k in range(m):
                part[k, 0], part[k, 1] = nxt[k, 0], nxt[k, 1]
            n = m
            if n == 0:
                return 0
        return n

    def end_inside(x: float, y: float, b: int) -> bool:
        """`front_distance`'s test that a front end lies inside base ``b``."""
        for i in range(4):
            j = (i + 1) % 4
            ex, ey = corners[b, j, 0] - corners[b, i, 0], corners[b, j, 1] - corners[b, i, 1]
            if rect_orient[b] * (ex * (y - corners[b, i, 1]) - ey * (x - corners[b, i, 0])) <= 0:
                return False
        return True

    def front_to_base(s: int, b: int) -> float:
        """`front_distance` from shooter ``s``'s front to the whole base ``b``: the least of
        `segment_distance`'s point-to-segment distances, skipping those that a lower bound
        shows to exceed one already found by SKIP_MARGIN (far above rounding): the minimum,
        and so the float, is the same. The exact tests run where a bound cannot decide."""
        fx0, fy0, fx1, fy1 = fronts[s, 0, 0], fronts[s, 0, 1], fronts[s, 1, 0], fronts[s, 1, 1]
        for end in range(2):    # each end's distances beyond the base's edge lines
            x = fx0 if end == 0 else fx1
            y = fy0 if end == 0 else fy1
            outside = -math.inf
            for i in range(4):
                o = ((x - corners[b, i, 0]) * rect_normals[b, i, 0]
                     + (y - corners[b, i, 1]) * rect_normals[b, i, 1])
                beyond[end, i] = o
                outside = max(outside, o)
            if outside <= SKIP_MARGIN and end_inside(x, y, b):
                return -1.0
        for i in range(4):
            j = (i + 1) % 4
            if not segments_apart(fx0, fy0, fx1, fy1, corners[b, i, 0], corners[b, i, 1],
                                   corners[b, j, 0], corners[b, j, 1]):
                return -1.0    # the front meets the base: distance 0
        # the corners to the front, the nearest by a lower bound first
        ux, uy, length = front_frames[s, 0], front_frames[s, 1], front_frames[s, 2]
        first = 0
        for k in range(4):
            vx, vy = corners[b, k, 0] - fx0, corners[b, k, 1] - fy0
            along = vx * ux + vy * uy
            across = vy * ux - vx * uy
            over = max(-along, along - length, 0.0)
            bound2[k] = across * across + over * over     # the distance squared, roughly
            if bound2[k] < bound2[first]:
                first = k
        best = point_segment_distance(corners[b, first, 0], corners[b, first, 1],
                                      fx0, fy0, fx1, fy1)
        for k in range(4):
            if k != first and bound2[k] <= (best + SKIP_MARGIN) ** 2:
                best = min(best, point_segment_distance(corners[b, k, 0], corners[b, k, 1],
                                                        fx0, fy0, fx1, fy1))
        # the front's ends to the edges
        for end in range(2):
            if rect_shaped[b]:      # the end's distance to the rectangle, roughly
                gx = max(beyond[end, 0], beyond[end, 2], 0.0)
                gy = max(beyond[end, 1], beyond[end, 3], 0.0)
                near2 = gx * gx + gy * gy
            else:
                near2 = max(beyond[end, 0], beyond[end, 1], beyond[end, 2], beyond[end, 3],
                            0.0) ** 2
            if near2 > (best + SKIP_MARGIN) ** 2:
                continue
            x = fx0 if end == 0 else fx1
            y = fy0 if end == 0 else fy1
            for i in range(4):
                j = (i + 1) % 4
                across = beyond[end, i]
                over = max(beyond[end, (i + 3) % 4], beyond[end, j], 0.0) if rect_shaped[b] \
                    else 0.0    # how far beyond the edge's ends, for a rectangle
                if across * across + over * over <= (best + SKIP_MARGIN) ** 2:
                    best = min(best, point_segment_distance(
                        x, y, corners[b, i, 0], corners[b, i, 1], corners[b, j, 0],
                        corners[b, j, 1]))
        return best if best > TOL else -1.0

    for k in range(n):
        s, b = pair_s[k], pair_b[k]
        w = 0
        st = within(0, s, b)
        deep = False
        if st == 0:
            w = 1
            # a base deep inside the arc is within it (every separating gap is below -2 TOL)
            # and no corner of the arc lies within TOL of it: `clip_to_arc` keeps it whole
            deep = deep_inside(1, s, b)
            st = 1 if deep else within(1, s, b)
        if st < 0:
            status[k] = FALLBACK
            continue
        whole = True        # the part is the whole base
        if st == 1 and not deep:
            if arc_corner_on_base(w, s, b):
                status[k] = FALLBACK
                continue
            whole = w == 0 and deep_inside(0, s, b)
        if whole:
            m = 4
            for i in range(4):
                part[i, 0], part[i, 1] = corners[b, i, 0], corners[b, i, 1]
        else:
            m = clip(w, s, b)
            if m < 3:
                status[k] = FALLBACK
                continue
        in_arc[k] = st == 1
        for i in range(m):
            verts[k, i, 0], verts[k, i, 1] = part[i, 0], part[i, 1]
        if whole and fast_fronts:
            d = front_to_base(s, b)
        else:
            d = front_distance(fronts[s, 0, 0], fronts[s, 0, 1], fronts[s, 1, 0],
                               fronts[s, 1, 1], part, m)
        if d < 0:
            status[k] = FALLBACK
            continue
        d_in = d / mm_per_in
        for t in range(thresholds.shape[1]):
            if abs(d_in - thresholds[s, t]) <= THRESHOLD_TOL:
                status[k] = FALLBACK
        count[k] = m
        dist[k] = d
        if not whole:
            centre[k, 0], centre[k, 1] = ring_centroid(part, m)
        else:       # the same for every pair of the base
            if base_centre[b, 0] != base_centre[b, 0]:
                base_centre[b, 0], base_centre[b, 1] = ring_centroid(part, 4)
            centre[k, 0], centre[k, 1] = base_centre[b, 0], base_centre[b, 1]
    return status, in_arc, dist, count, verts, centre


@njit(cache=True)
def candidate_pairs(whole_arcs: np.ndarray, fronts: np.ndarray, limits: np.ndarray,
                    corners: np.ndarray, eligible: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every eligible (shooter, base) pair, sorted, whose base meets the shooter's whole arc or
    lies within ``limits[shooter]`` mm of its front: (shooter, base, too close to call: the
    caller asks GEOS whether to keep it). ``eligible``: (shooters, bases) bool.

    `meets_status` is a closure over the arrays (see `measure_pairs`), with each arc's edges
    measured once and its divisions made only where a corner lies within 2 TOL of an edge's
    line (the only place where their rounding could change an answer)."""
    n_s, n_b = eligible.shape
    most = 0
    for s in range(n_s):
        for b in range(n_b):
            most += eligible[s, b]
    out_s = np.empty(most, dtype=np.int64)
    out_b = np.empty(most, dtype=np.int64)
    unsure = np.zeros(most, dtype=np.bool_)
    m = 0
    edges, orients = _arc_edges(whole_arcs)
    arc = np.empty((4, 2))
    rect = np.empty((4, 2))

    def meets(s: int, b: int) -> int:
        """`meets_status` of arc ``s`` and base ``b``."""
        deep = 15    # bit k: corner k lies inside every edge line by more than TOL
        for i in range(4):
            px, py = whole_arcs[s, i, 0], whole_arcs[s, i, 1]
            ex, ey, length = edges[s, i, 0], edges[s, i, 1], edges[s, i, 2]
            sure = 2 * TOL * length
            outside = 0
            for k in range(4):
                cross = orients[s] * (ex * (corners[b, k, 1] - py) - ey * (corners[b, k, 0] - px))
                if cross < -sure:          # below -TOL once divided by the length
                    outside += 1
                    deep &= ~(1 << k)
                elif cross <= sure:
                    v = cross / length
                    if v < -TOL:
                        outside += 1
                    if v <= TOL:
                        deep &= ~(1 << k)
            if outside == 4:
                return 0
        if deep:
            return 1
        copy_quad(whole_arcs, s, arc)
        copy_quad(corners, b, rect)
        found = separation(arc, rect, TOL)
        if found < -TOL:
            return 1
        if found > TOL:
            return 0
        return -1

    for s in range(n_s):
        for b in range(n_b):
            if not eligible[s, b]:
                continue
            st = meets(s, b)
            if st != 1:
                copy_quad(corners, b, rect)
                near = near_status(fronts[s, 0, 0], fronts[s, 0, 1], fronts[s, 1, 0],
                                    fronts[s, 1, 1], rect, limits[s])
                if near == 1:
                    st = 1
                elif near < 0:
                    st = -1
            if st == 0:
                continue
            out_s[m], out_b[m] = s, b
            unsure[m] = st < 0
            m += 1
    return out_s[:m], out_b[:m], unsure[:m]
