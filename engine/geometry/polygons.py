"""Many small convex polygons at once, in numpy: clipped by half-planes, their centroids, their
distance from segments.

A batch of m polygons is corner-major: ``x``, ``y`` (k, m), polygon j's vertices in its first
``count[j]`` rows (in order round it), the rest repeating its last vertex (numpy reduces a short
leading axis fastest, and the padding adds only edges of no length).

>>> x = np.array([[0.0], [10.0], [10.0], [0.0]]); y = np.array([[0.0], [0.0], [10.0], [10.0]])
>>> cx, cy, n = clip_convex(x, y, np.array([4]), [lambda px, py: 5.0 - px])
>>> n.tolist(), sorted(zip(cx[:n[0], 0].tolist(), cy[:n[0], 0].tolist()))
([4], [(0.0, 0.0), (0.0, 10.0), (5.0, 0.0), (5.0, 10.0)])
>>> centroids(cx, cy, n)[0].tolist(), centroids(cx, cy, n)[1].tolist()
([2.5], [5.0])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from campo.engine.geometry.segments import segments_apart, segments_within, successors

HalfPlane = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""A linear function of the points (x, y: (k, m)); the half-plane is where it is >= 0."""


def clip_convex(x: np.ndarray, y: np.ndarray, count: np.ndarray,
                planes: Sequence[HalfPlane]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each convex polygon cut to the half-planes (Sutherland-Hodgman, all polygons at once):
    (x, y, count); a polygon wholly outside comes back with count 0, one only touching a
    plane with the point or segment it touches there."""
    for plane in planes:
        k, m = x.shape
        f = plane(x, y)
        idx = np.arange(k)[:, None]
        real = idx < count
        if ((f >= 0) | ~real).all():      # every polygon inside the half-plane: none is cut
            continue
        nxt = np.where(idx + 1 < count, idx + 1, 0)
        cols = np.arange(m)
        nx, ny, nf = x[nxt, cols], y[nxt, cols], f[nxt, cols]
        keep = real & (f >= 0)
        cross = real & (((f > 0) & (nf < 0)) | ((f < 0) & (nf > 0)))
        t = np.divide(f, f - nf, out=np.zeros((k, m)), where=cross)   # 0 off the crossings
        # slot 2i: vertex i if inside; slot 2i + 1: where edge i -> i + 1 crosses the line
        ox = np.empty((2 * k, m))
        oy = np.empty((2 * k, m))
        ok = np.empty((2 * k, m), dtype=bool)
        ox[0::2], oy[0::2], ok[0::2] = x, y, keep
        ox[1::2], oy[1::2], ok[1::2] = x + t * (nx - x), y + t * (ny - y), cross
        order = np.argsort(~ok, axis=0, kind="stable")
        count = ok.sum(axis=0)
        width = max(1, int(count.max()))
        order = order[:width]
        x, y = ox[order, cols], oy[order, cols]
        pad = np.arange(width)[:, None] >= count
        last = np.maximum(count - 1, 0)
        x = np.where(pad, x[last, cols], x)
        y = np.where(pad, y[last, cols], y)
    return x, y, count


def centroids(x: np.ndarray, y: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each polygon's centroid (the mean of its vertices when it has no area: a point or a
    segment)."""
    # with the padding, the successors close the ring: the last copy of the last vertex runs to the
    # first, the other copies add edges of no length
    nx, ny = successors(x), successors(y)
    real = np.arange(x.shape[0])[:, None] < count
    cross = x * ny - nx * y
    area = cross.sum(axis=0) / 2
    cx = ((x + nx) * cross).sum(axis=0)
    cy = ((y + ny) * cross).sum(axis=0)
    n = np.maximum(count, 1)
    mean_x = np.where(real, x, 0.0).sum(axis=0) / n
    mean_y = np.where(real, y, 0.0).sum(axis=0) / n
    flat = np.abs(area) <= 1e-9 * np.maximum(1.0, (x.max(axis=0) - x.min(axis=0)) ** 2
                                               + (y.max(axis=0) - y.min(axis=0)) ** 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.where(flat, mean_x, cx / (6 * np.where(flat, 1.0, area))),
                np.where(flat, mean_y, cy / (6 * np.where(flat, 1.0, area))))


def segment_distances(x: np.ndarray, y: np.ndarray, count: np.ndarray, p0: np.ndarray,
                      p1: np.ndarray) -> np.ndarray:
    """Distance from each segment ``p0``-``p1`` (m, 2) to its convex polygon (0 if they meet:
    the segment crosses an edge or lies inside)."""
    nx, ny = successors(x), successors(y)
    x0, y0, x1, y1 = p0[:, 0], p0[:, 1], p1[:, 0], p1[:, 1]
    k, m = x.shape
    crossing = segments_within(np.repeat(p0[None], k, 0).reshape(-1, 2),
                               np.repeat(p1[None], k, 0).reshape(-1, 2),
                               np.stack([x, y], -1).reshape(-1, 2),
                               np.stack([nx, ny], -1).reshape(-1, 2)).reshape(k, m).any(axis=0)
    # the segment's start inside (every edge turns the same way round it) a polygon with area
    side = (nx - x) * (y0 - y) - (ny - y) * (x0 - x)
    area = np.abs((x * ny - nx * y).sum(axis=0))
    inside = ((side >= 0).all(axis=0) | (side <= 0).all(axis=0)) & (area > 1e-9)
    # apart: the least of the corners' distances from the segment and its ends' from the edges
    gap = segments_apart(x0, y0, x1, y1, x, y, nx, ny).min(axis=0)
    return np.where(crossing | inside, 0.0, gap)
