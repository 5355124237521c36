"""A spatial index over bases: which ones lie within a distance of a shape.

A shapely STRtree answers every question; its answers are those of shapely's own predicates
over every base (tests/test_engine_geometry.py checks this against a brute-force scan).

>>> from campo.engine.geometry.rect import Rect
>>> rects = [Rect(0, 0, 90, 80, 40), Rect(0, 100, 90, 80, 40), Rect(500, 0, 90, 80, 40)]
>>> idx = BaseIndex(["a", "b", "c"], [r.polygon for r in rects])
>>> idx.within(rects[0].polygon, 70.0)
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry
from shapely.strtree import STRtree

CERTAIN_MM = 1e-6
"""`within_by_centres` trusts the centres' bounds only this clear of the limit (float noise)."""


def within_by_centres(centres_mm: np.ndarray, halves_mm: np.ndarray, limit_mm: float | np.ndarray,
                      shapes_a: object, shapes_b: np.ndarray) -> np.ndarray:
    """Per pair of bases, whether their gap is at most ``limit_mm``, given the distance between
    their centres and the sum of their half diagonals: certain from those (a gap is never more
    than the centres' distance, nor less than that less both half diagonals), GEOS's distance for
    the few near the limit. ``shapes_a`` may be one shape for every pair.

    >>> from campo.engine.geometry.rect import Rect
    >>> a, b = Rect(0, 0, 90, 80, 40), Rect(0, 100, 90, 80, 40)
    >>> half = np.hypot(80, 40) / 2
    >>> within_by_centres(np.array([100.0, 100.0]), np.array([2 * half] * 2), np.array([60.0, 59.0]),
    ...                   a.polygon, np.array([b.polygon] * 2, dtype=object)).tolist()
    [True, False]
    """
    limit = np.full(centres_mm.shape, limit_mm, dtype=float)
    keep = centres_mm <= limit - CERTAIN_MM
    ask = ~keep & (centres_mm - halves_mm <= limit + CERTAIN_MM)
    if ask.any():
        a = np.broadcast_to(np.asarray(shapes_a, dtype=object), centres_mm.shape)
        keep[ask] = shapely.distance(a[ask], shapes_b[ask]) <= limit[ask]
    return keep


class BaseIndex:
    """Ids and shapes, queried by distance."""

    def __init__(self, ids: Sequence[str], shapes: Sequence[BaseGeometry]):
        self.ids = list(ids)
        self.shapes = np.array(list(shapes), dtype=object)
        self.tree = STRtree(self.shapes)
        """The shapes' tree (rows as in ``shapes``), for a rulebook's own envelope queries."""

    def within(self, shape: BaseGeometry, distance: float) -> list[str]:
        """Ids whose shape lies within ``distance`` of ``shape``, in index order."""
        if not len(self.shapes):
            return []
        hits = np.sort(self.tree.query(shape, predicate="dwithin", distance=distance))
        return [self.ids[i] for i in hits.tolist()]

    def pairs_within(self, distance: float) -> list[tuple[str, str]]:
        """Every unordered pair (i < j in index order) closer than ``distance``."""
        n = len(self.shapes)
        if n < 2:
            return []
        left, right = self.tree.query(self.shapes, predicate="dwithin", distance=distance)
        return sorted({(self.ids[i], self.ids[j]) for i, j in zip(left.tolist(), right.tolist())
                       if i < j})

    def query_many(self, shapes: Sequence[BaseGeometry] | np.ndarray,
                   distance: float | np.ndarray = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """(shape index, base index) of every base within ``distance`` (per shape, or one value)
        of each shape, sorted; one call for many shapes: the bases whose boxes come that near,
        then one vectorised GEOS distance test of those pairs (a prepared distance query per
        shape costs more for the few shapes most questions ask about)."""
        shapes_arr = np.asarray(shapes, dtype=object) if isinstance(shapes, np.ndarray) else \
            np.array(list(shapes), dtype=object)
        if not len(shapes_arr) or not len(self.shapes):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        dist = np.full(len(shapes_arr), distance, dtype=float)
        b = shapely.bounds(shapes_arr)
        si, bi = self.tree.query(shapely.box(b[:, 0] - dist, b[:, 1] - dist, b[:, 2] + dist,
                                             b[:, 3] + dist))
        near = shapely.dwithin(shapes_arr[si], self.shapes[bi], dist[si])
        si, bi = si[near], bi[near]
        order = np.lexsort((bi, si))
        return si[order], bi[order]

    def meeting(self, shape: BaseGeometry) -> list[str]:
        """Ids whose shape meets (intersects or touches) ``shape``, in index order: `within` at
        distance 0, by GEOS's intersects predicate (about twice as fast as a distance test)."""
        si, bi = self.meeting_many([shape])
        return [self.ids[i] for i in bi.tolist()]

    def meeting_many(self, shapes: Sequence[BaseGeometry]) -> tuple[np.ndarray, np.ndarray]:
        """(shape index, base index) of every base meeting each shape, sorted."""
        shapes_arr = np.array(list(shapes), dtype=object)
        if not len(shapes_arr) or not len(self.shapes):
            return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
        si, bi = self.tree.query(shapes_arr, predicate="intersects")
        order = np.lexsort((bi, si))
        return si[order], bi[order]

    def candidate_pairs(self, distance: float) -> tuple[np.ndarray, np.ndarray]:
        """(i, j) index pairs, sorted, that MAY lie within ``distance`` of each other (their
        envelopes grown by ``distance`` meet; i == j included): a cheap superset of
        ``query_many(shapes, distance)`` for callers that measure the gaps anyway."""
        n = len(self.shapes)
        if not n:
            return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
        b = shapely.bounds(self.shapes)
        boxes = shapely.box(b[:, 0] - distance, b[:, 1] - distance, b[:, 2] + distance,
                            b[:, 3] + distance)
        si, bi = self.tree.query(boxes)
        order = np.lexsort((bi, si))
        return si[order], bi[order]
