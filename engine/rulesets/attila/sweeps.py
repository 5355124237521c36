"""Charge paths' swept areas: `motion.SweptArea`, with fewer GEOS areas and lazier pieces.

`SweptArea.meets_rect` answers "does this base reach more than the contact tolerance into the
path" with certain plain-float tests and builds the exact GEOS area only for close calls. Most
of those close calls (a neighbour in the line, a base beside the path, the rear corner of a
wheel swinging near a base) are settled here by the same "moved away" proof `SweptArea` uses,
tried along more directions (`ChargeSweep._clear_moved_away`): a third of the GEOS areas of a
battle instead of all. And each piece's separating-axis projections are computed only when a
base comes near enough to need them (same arithmetic as `SweptArea._piece_parts`); the inner
rectangles' shapely polygons are built once per path, not once per terrain feature. Answers are
exactly `SweptArea`'s (tests/test_attila_charge_sweep.py checks them against GEOS).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from engine.geometry.motion import SweptArea, _rect_shapes, _separated, piece_extents
from engine.geometry.rect import Point, Rect


class _Extents:
    """A piece's separating axes with its extent along each (ax, ay, lowest, highest), computed
    on first iteration."""

    __slots__ = ("_a", "_b", "_pts", "_rows")

    def __init__(self, a: Rect, b: Rect, pts: list[Point]) -> None:
        self._a, self._b, self._pts = a, b, pts
        self._rows: list[tuple[float, float, float, float]] | None = None

    def __iter__(self) -> Iterator[tuple[float, float, float, float]]:
        rows = self._rows
        if rows is None:
            rows = self._rows = piece_extents(self._a, self._b, self._pts)
        return iter(rows)




class ChargeSweep(SweptArea):
    """`SweptArea` with lazy piece projections and cached inner-rectangle polygons."""

    @functools.cached_property
    def _piece_parts(self) -> list[Any]:  # type: ignore[override]
        pairs = list(zip(self.poses, self.poses[1:])) or [(self.poses[0], self.poses[0])]
        out = []
        for a, b in pairs:
            pts = list(a.corners) + list(b.corners)
            xs, ys = [x for x, _ in pts], [y for _, y in pts]
            out.append((pts, (min(xs), min(ys), max(xs), max(ys)), _Extents(a, b, pts)))
        return out

    @functools.cached_property
    def _inner_shapes(self) -> np.ndarray:
        return _rect_shapes(self._inner_rects)

    def _clear_moved_away(self, rect: Rect) -> bool:
        """`SweptArea._clear_moved_away`, then the same proof along the directions that push
        the base out of each piece it overlaps by the least (separating axes), moved by ``tol``
        less the spare: a base so moved that misses every piece is certainly clear of the
        inner area, as each of its points has a point outside the swept area closer than that
        (GEOS's inner area reaches at most 0.5 % of ``tol`` beyond the exact one, its arcs being
        chords: the spare, 5 %, covers it). Each direction costs a pass of plain-float
        separating axes; the GEOS area it spares costs about as much as thirty."""
        if super()._clear_moved_away(rect):
            return True
        if self.tol <= 0:
            return False
        shift = self.tol - self._spare
        own = [rect.front, rect.right]
        corners = rect.corners
        for ax, ay in _pushes(corners, own, self._piece_parts, shift):
            moved = [(x + shift * ax, y + shift * ay) for x, y in corners]
            xs, ys = [x for x, _ in moved], [y for _, y in moved]
            box = (min(xs), min(ys), max(xs), max(ys))
            if all(_separated(moved, box, own, piece) for piece in self._piece_parts):
                return True
        return False

    def certainly_meets(self, shape: BaseGeometry) -> bool:
        """`SweptArea.certainly_meets`, the inner rectangles' polygons built once per path."""
        rects = self._inner_rects
        return bool(rects) and bool(shapely.intersects(shape, self._inner_shapes).any())


def _pushes(corners: Sequence[Point], own: list[Point], pieces: list[Any],
            limit: float) -> list[Point]:
    """Directions that move the quad out of a piece it overlaps by at most ``limit`` (the
    cheapest way out along each overlapped piece's axes and the quad's own), in piece order,
    without repeats."""
    out: list[Point] = []
    for pts, _, extents in pieces:
        best, way = limit, None
        axes = [(ax, ay, lo, hi) for ax, ay, lo, hi in extents]
        for ax, ay in own:
            p = [x * ax + y * ay for x, y in pts]
            axes.append((ax, ay, min(p), max(p)))
        for ax, ay, lo, hi in axes:
            q = [x * ax + y * ay for x, y in corners]
            qlo, qhi = min(q), max(q)
            if qhi < lo or hi < qlo:
                way = None
                break                       # apart from this piece: nothing to push out of
            if hi - qlo < best:
                best, way = hi - qlo, (ax, ay)
            if qhi - lo < best:
                best, way = qhi - lo, (-ax, -ay)
        if way is not None and way not in out:
            out.append(way)
    return out
