"""Array geometry of convex polygons for the Federico verdicts: many pairs in one numpy pass.

Bases, arcs of fire, the hulls a move sweeps and most terrain areas are convex polygons. These
functions take them as vertex arrays ``(n, k, 2)`` (pair ``i`` is row ``i`` of each argument; a
shorter polygon repeats its last vertex) and answer for every row at once:

* `margins`: signed clearance of two polygons, positive = how deep they overlap (the shortest
  move that parts them), negative = how far apart (at least): the number a verdict "in the arc",
  "touching" is decided on, within a tolerance (`campo.engine.boundary`);
* `slides`: how far one polygon moves along a direction before touching another.

>>> import numpy as np
>>> square = np.array([[[0.0, 0.0], [0.0, 10.0], [10.0, 10.0], [10.0, 0.0]]])
>>> float(margins(square, square + [[13.0, 0.0]])[0]), float(margins(square, square + 4.0)[0])
(-3.0, 6.0)
>>> float(slides(square, square + [[20.0, 2.0]], np.array([[1.0, 0.0]]))[0])
10.0
"""

from __future__ import annotations

import numpy as np

INF = float("inf")


def amax(a: np.ndarray) -> np.ndarray:
    """``a.max(axis=-1)`` for a short last axis (corners, edges): folded slice by slice,
    several times faster than numpy's reduction over a short inner axis."""
    out = a[..., 0].copy()
    for i in range(1, a.shape[-1]):
        np.maximum(out, a[..., i], out=out)
    return out


def amin(a: np.ndarray) -> np.ndarray:
    """``a.min(axis=-1)``, as `amax`."""
    out = a[..., 0].copy()
    for i in range(1, a.shape[-1]):
        np.minimum(out, a[..., i], out=out)
    return out


def _next(a: np.ndarray, axis: int = -2) -> np.ndarray:
    """Each vertex's successor around its ring (``np.roll(a, -1, axis)``, cheaper)."""
    return np.concatenate([np.delete(a, 0, axis=axis), np.take(a, [0], axis=axis)], axis=axis)


def normals(poly: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unit outward normals (n, k, 2), plane offsets (n, k)) of each edge: a point p is inside
    where ``normal . p <= offset`` for every edge. A repeated vertex's edge gets a zero normal
    and an offset of 1 (no constraint)."""
    edge = _next(poly) - poly
    nx, ny = edge[..., 1], -edge[..., 0]
    length = np.hypot(nx, ny)
    flat = length < 1e-12
    # twice the signed area: the sign of the winding turns the normals outward
    ahead = _next(poly)
    cross = poly[..., 0] * ahead[..., 1] - ahead[..., 0] * poly[..., 1]
    area = cross[..., 0].copy()
    for i in range(1, cross.shape[-1]):
        area += cross[..., i]
    scale = np.where(flat, 0.0, np.where(area[..., None] > 0, 1.0, -1.0) / np.where(flat, 1.0,
                                                                                 length))
    n = np.stack([nx * scale, ny * scale], axis=-1)
    offset = np.where(flat, 1.0, (n * poly).sum(axis=-1))
    return n, offset


def margins(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row, the separating-axis clearance of convex polygons ``a`` and ``b``: the smallest
    overlap of their projections over every edge normal of both (> 0: they overlap by that
    much; exactly the penetration depth), or minus the largest gap (< 0: they are at least that
    far apart; the distance itself when the closest features are an edge and a vertex)."""
    axes = np.concatenate([normals(a)[0], normals(b)[0]], axis=-2)            # (n, A, 2)
    ax, ay = axes[..., 0, None], axes[..., 1, None]
    pa = ax * a[:, None, :, 0] + ay * a[:, None, :, 1]                        # (n, A, V)
    pb = ax * b[:, None, :, 0] + ay * b[:, None, :, 1]
    overlap = np.minimum(amax(pa), amax(pb)) - np.maximum(amin(pa), amin(pb))
    real = (axes[..., 0] != 0) | (axes[..., 1] != 0)
    depth = amin(np.where(real, overlap, INF))
    gap = amax(np.where(real, -overlap, -INF))
    return np.where(gap > 0, -gap, depth)


def _edges(poly: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, spans) of each row's edges; a 2-vertex row is one segment."""
    if poly.shape[1] == 2:
        return poly[:, :1], poly[:, 1:] - poly[:, :1]
    return poly, _next(poly, axis=1) - poly


def _ray_hits(origins: np.ndarray, d: np.ndarray, starts: np.ndarray,
              spans: np.ndarray) -> np.ndarray:
    """Per row, the least t >= 0 with ``origins[i, j] + t * d[i]`` on a segment
    ``starts[i, k] + s * spans[i, k]`` (inf if none)."""
    d0, d1 = d[:, 0, None, None], d[:, 1, None, None]
    e0, e1 = spans[:, None, :, 0], spans[:, None, :, 1]
    denom = d0 * e1 - d1 * e0
    usable = np.abs(denom) > 1e-12
    safe = np.where(usable, denom, 1.0)
    w0 = starts[:, None, :, 0] - origins[:, :, None, 0]
    w1 = starts[:, None, :, 1] - origins[:, :, None, 1]
    t = (w0 * e1 - w1 * e0) / safe
    s = (w0 * d1 - w1 * d0) / safe
    good = usable & (t >= -1e-9) & (s >= -1e-9) & (s <= 1 + 1e-9)
    hits = np.where(good, t, INF).reshape(len(t), -1)
    return amin(hits) if hits.shape[1] else np.full(len(t), INF)


def slides(moving: np.ndarray, target: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Per row, how far convex ``moving`` (vertices ``(n, a, 2)``; a = 2: a segment) moves along
    the unit ``direction`` before touching convex ``target``: 0 where they already meet, inf
    where it never does."""
    hits = np.minimum(_ray_hits(moving, direction, *_edges(target)),
                      _ray_hits(target, -direction, *_edges(moving)))
    return np.where(margins(moving, target) >= 0, 0.0, np.maximum(hits, 0.0))
