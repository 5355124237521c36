"""Moving bases: how far convex shapes slide before they touch others, wheels, sweeps.

>>> from campo.engine.geometry.rect import Rect
>>> a = Rect(0.0, 0.0, 90.0, 80.0, 40.0)
>>> round(wheel_cost(a, 30.0), 3)                          # outer corner: 80 mm * pi/6
41.888
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from campo.engine.geometry.rect import Rect


def wheel_cost(rect: Rect, turn_deg: float) -> float:
    """Distance travelled by the outer moving corner of a wheel on a front corner (the frontage
    times the angle in radians)."""
    return rect.width * math.radians(abs(turn_deg))


def wheel(rect: Rect, turn_deg: float) -> Rect:
    """The base wheeled by ``turn_deg`` (CCW positive) pivoting on the front corner on the side it
    turns toward (left corner for a left/CCW wheel)."""
    pivot = rect.front_left if turn_deg > 0 else rect.front_right
    return rect.pivoted(pivot, turn_deg)


# --- many at once (array-first) ------------------------------------------------------------

_EPS = 1e-9
BOX_MARGIN_MM = 1e-6
"""Boxes farther apart than the reach by more than this hold shapes GEOS would find apart too
(the float rounding of a box's gap is far smaller)."""


def convex_slides(moving: np.ndarray, obstacle: np.ndarray, directions: np.ndarray,
                  reach: float | np.ndarray = 0.0) -> np.ndarray:
    """How far each convex shape ``moving[k]`` slides along ``directions[k]`` (unit vectors)
    before it comes within ``reach`` (mm) of the convex ``obstacle[k]``: 0 when it already is,
    inf when it never does.

    Shapes are vertex arrays, (K, m, 2) and (K, n, 2), in order around the outline (2 vertices:
    a segment, such as a front edge). Exact for convex shapes: the first contact is a vertex of
    one meeting an edge of the other pushed out by ``reach``, or a vertex coming within
    ``reach`` of a vertex; whether they are already within ``reach`` is GEOS's answer.

    >>> a = np.array([[[-40.0, 20.0], [40.0, 20.0], [40.0, -20.0], [-40.0, -20.0]]])
    >>> b = a + [0.0, 100.0]
    >>> convex_slides(a, b, np.array([[0.0, 1.0]])).tolist()          # 100 - 20 - 20
    [60.0]
    >>> convex_slides(a, b, np.array([[0.0, 1.0]]), 10.0).round(6).tolist()
    [50.0]
    >>> convex_slides(a, b + [500.0, 0.0], np.array([[0.0, 1.0]])).tolist()
    [inf]
    """
    return _slides([np.asarray(moving, dtype=float)], obstacle, directions, reach)[0]


def front_and_body_slides(bodies: np.ndarray, obstacle: np.ndarray, directions: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """`convex_slides` of each body's front edge (its first two vertices, as `Poses.corners`)
    and of the whole body against the same obstacles, in one pass: (front, body).

    >>> a = np.array([[[-40.0, 20.0], [40.0, 20.0], [40.0, -20.0], [-40.0, -20.0]]])
    >>> [s.tolist() for s in front_and_body_slides(a, a + [0.0, 100.0], np.array([[0.0, 1.0]]))]
    [[60.0], [60.0]]
    """
    bodies = np.asarray(bodies, dtype=float)
    front, body = _slides([bodies[:, :2], bodies], obstacle, directions, 0.0)
    return front, body


def _slides(groups: list[np.ndarray], obstacle: np.ndarray, directions: np.ndarray,
            reach: float | np.ndarray) -> list[np.ndarray]:
    """`convex_slides` of each group of moving shapes against the same rows of obstacles, all
    groups in one pass (each row's answer is the one it gets alone)."""
    obstacle = np.asarray(obstacle, dtype=float)
    d = np.asarray(directions, dtype=float)
    k, g = len(obstacle), len(groups)
    if k == 0:
        return [np.zeros(0) for _ in groups]
    r = np.asarray(reach, dtype=float)
    r = np.full(k, float(r)) if not r.ndim else r
    # the moving vertices against the obstacle, and the obstacle's against the moving shape
    # going the other way, in one pass, with the rows last (`_vertex_hits`)
    width = max(obstacle.shape[1], *(m.shape[1] for m in groups))
    a = np.ascontiguousarray(np.concatenate([padded(m, width) for m in groups]).transpose(2, 1, 0))
    b = np.ascontiguousarray(padded(obstacle, width).transpose(2, 1, 0))
    if g > 1:
        b, d, r = np.concatenate([b] * g, axis=2), np.concatenate([d] * g), np.concatenate([r] * g)
    hits = _vertex_hits(np.concatenate([a, b], axis=2), np.concatenate([b, a], axis=2),
                        np.concatenate([d, -d]), np.concatenate([r, r]), bool(r.any()))
    # GEOS asked only of the pairs whose boxes come that near (farther apart along x or y,
    # farther apart outright)
    low, high = np.minimum.reduce, np.maximum.reduce   # (the ufuncs' own: no wrapper)
    apart = np.maximum(low(b, axis=1) - high(a, axis=1), low(a, axis=1) - high(b, axis=1))
    near = np.maximum(apart[0], apart[1]) <= r + BOX_MARGIN_MM
    out = []
    for n, moving in enumerate(groups):
        rows = slice(n * k, (n + 1) * k)
        ask = np.nonzero(near[rows])[0]
        within = np.zeros(k, dtype=bool)
        if len(ask):
            within[ask] = shapely.dwithin(_shapes(moving[ask]), _shapes(obstacle[ask]),
                                          r[rows][ask])
        out.append(np.where(within, 0.0, np.minimum(hits[rows], hits[g * k:][rows])))
    return out


def padded(vertices: np.ndarray, width: int) -> np.ndarray:
    """Outlines padded to ``width`` vertices by repeating their last: the edges added have no
    length and the closing edge is the same, so `_vertex_hits` reads the same outline."""
    extra = width - vertices.shape[1]
    return vertices if not extra else \
        np.concatenate([vertices, np.repeat(vertices[:, -1:], extra, axis=1)], axis=1)


def _shapes(vertices: np.ndarray) -> np.ndarray:
    """Polygons (or, for 2 vertices, segments) from vertex arrays."""
    if vertices.shape[1] == 2:
        return shapely.linestrings(vertices)
    return shapely.polygons(vertices)


def _vertex_hits(p: np.ndarray, q: np.ndarray, d: np.ndarray, reach: np.ndarray,
                 pushed: bool) -> np.ndarray:
    """Least t >= 0 at which some point ``p[:, i, k] + t d[k]`` comes within ``reach[k]`` of
    the convex shape ``q[:, :, k]``'s boundary from outside: on an edge pushed out by ``reach``
    or within ``reach`` of a vertex (``pushed``: some reach is not 0). (K,), inf where none
    does. The rows come last, (2, m, K) and (2, n, K), so that every array operation runs along
    contiguous rows (broadcasting over the first axes instead costs numpy a buffered copy per
    operation)."""
    following = np.concatenate([q[:, 1:], q[:, :1]], axis=1)
    e = following - q
    qx, qy, ex, ey = q[0], q[1], e[0], e[1]                          # (n, K)
    length = np.hypot(ex, ey)
    sx, sy = qx, qy
    if pushed:   # pushed-out edges: outward normals (ey, -ex) for a counter-clockwise
        # outline; both sides of a segment
        area = np.add.reduce(qx * following[1] - following[0] * qy, axis=0)
        scale = np.where(area < 0, -1.0, 1.0) / np.where(length > _EPS, length, 1.0)
        sx, sy = qx + ey * scale * reach, qy - ex * scale * reach
    px, py = p[0][:, None], p[1][:, None]                              # (m, 1, K)
    wx, wy = sx - px, sy - py                                          # (m, n, K)
    d0, d1 = np.ascontiguousarray(d.T)
    denom = d0 * ey - d1 * ex
    usable = (np.abs(denom) > 1e-12) & (length > _EPS)
    den = np.where(usable, denom, 1.0)
    t = (wx * ey - wy * ex) / den
    s = (wx * d1 - wy * d0) / den
    t = np.where(usable & (t >= -_EPS) & (s >= -_EPS) & (s <= 1 + _EPS), t, np.inf)
    best = np.maximum(np.minimum.reduce(t, axis=(0, 1)), 0.0)
    if pushed:
        vx, vy = qx - px, qy - py                                      # vertex - point
        along = vx * d0 + vy * d1
        across2 = np.maximum(vx * vx + vy * vy - along * along, 0.0)
        r2 = reach * reach
        tc = along - np.sqrt(np.maximum(r2 - across2, 0.0))
        tc = np.where((across2 <= r2) & (tc >= -_EPS), tc, np.inf)
        best = np.minimum(best, np.maximum(np.minimum.reduce(tc, axis=(0, 1)), 0.0))
    return best


def hull_pieces(corners: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The area swept moving through consecutive poses, as pieces (their union is the area):
    the convex hull of each pose and the next of the same ``owner``. ``corners`` (n, 4, 2) in
    path order, owners grouped; returns (piece polygons, owner of each piece). An owner with a
    single pose gets that pose."""
    owner = np.asarray(owner)
    if not len(owner):
        return np.zeros(0, dtype=object), np.zeros(0, dtype=int)
    same = owner[1:] == owner[:-1]
    lone = np.ones(len(owner), dtype=bool)
    lone[1:] &= ~same
    lone[:-1] &= ~same
    pairs = np.concatenate([corners[:-1][same], corners[1:][same]], axis=1)
    pieces = shapely.convex_hull(shapely.multipoints(pairs)) if len(pairs) \
        else np.zeros(0, dtype=object)
    if not lone.any():
        return pieces, owner[:-1][same]
    return (np.concatenate([pieces, shapely.polygons(corners[lone])]),
            np.concatenate([owner[:-1][same], owner[lone]]))


def wheel_steps(turn_deg: np.ndarray, step_deg: float = 10.0) -> np.ndarray:
    """How many steps of ``step_deg`` a wheel is cut into (at least 1)."""
    return np.maximum(1, np.ceil(np.abs(turn_deg) / step_deg)).astype(int)
