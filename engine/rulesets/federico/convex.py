"""Array geometry of convex polygons for the Federico verdicts: many pairs in one numpy pass.

Bases, arcs of fire, the hulls a move sweeps and most terrain areas are convex polygons. These
functions take them as vertex arrays ``(n, k, 2)`` (pair ``i`` is row ``i`` of each argument; a
shorter polygon repeats its last vertex) and answer for every row at once:

* `margins`: signed clearance of two polygons, positive = how deep they overlap (the shortest
  move that parts them), negative = how far apart (at least): the number a verdict "in the arc",
  "touching" is decided on, within a tolerance (`campo.engine.boundary`);
* `normals`: each edge's outward normal and plane offset.

How far one polygon slides before it touches another is the shared geometry's
(`campo.engine.geometry.motion.convex_slides`).

>>> import numpy as np
>>> square = np.array([[[0.0, 0.0], [0.0, 10.0], [10.0, 10.0], [10.0, 0.0]]])
>>> float(margins(square, square + [[13.0, 0.0]])[0]), float(margins(square, square + 4.0)[0])
(-3.0, 6.0)
"""

from __future__ import annotations

import numpy as np

from campo.engine.geometry.folds import highest, lowest
from campo.engine.geometry.segments import successors

INF = float("inf")


def normals(poly: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unit outward normals (n, k, 2), plane offsets (n, k)) of each edge: a point p is inside
    where ``normal . p <= offset`` for every edge. A repeated vertex's edge gets a zero normal
    and an offset of 1 (no constraint)."""
    edge = successors(poly, axis=-2) - poly
    nx, ny = edge[..., 1], -edge[..., 0]
    length = np.hypot(nx, ny)
    flat = length < 1e-12
    # twice the signed area: the sign of the winding turns the normals outward
    ahead = successors(poly, axis=-2)
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
    overlap = np.minimum(highest(pa), highest(pb)) - np.maximum(lowest(pa), lowest(pb))
    real = (axes[..., 0] != 0) | (axes[..., 1] != 0)
    depth = lowest(np.where(real, overlap, INF))
    gap = highest(np.where(real, -overlap, -INF))
    return np.where(gap > 0, -gap, depth)

