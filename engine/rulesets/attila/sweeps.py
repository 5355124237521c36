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

from campo.engine.geometry.motion import (
    SweptArea, _rect_shapes, _rects_overlap, _separated, piece_extents,
)
from campo.engine.geometry.rect import Point, Rect


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

    def meets_rect(self, rect: Rect, outside: bool = False) -> bool:
        """`SweptArea.meets_rect`, its steps in the same order; ``outside``: the caller knows
        `certainly_meets_rect` is False for this base (`paths.enemy_blocks` asked), so the
        inner rectangles' overlap tests are skipped (they are exactly those tests)."""
        corners = rect.corners
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        box = (min(xs), min(ys), max(xs), max(ys))
        if self.box_misses(box):
            return False
        if not outside and self._overlaps(corners, box, 0, 2):
            return True                        # in the straight run or the final pose
        own = [rect.front, rect.right]
        if all(_separated(corners, box, own, piece) for piece in self._piece_parts):
            return False
        if not outside and self._overlaps(corners, box, 2, None):
            return True
        if "inner" not in self.__dict__ and self._clear_moved_away(rect):
            return False
        return bool(shapely.intersects(self.inner, rect.polygon))

    def certainly_meets_rect(self, rect: Rect) -> bool:
        """`SweptArea.certainly_meets_rect`, the rectangles far from the base skipped
        (`_overlaps`)."""
        corners = rect.corners
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        return self._overlaps(corners, (min(xs), min(ys), max(xs), max(ys)), 0, None)

    def _overlaps(self, corners: Sequence[Point], box: tuple[float, float, float, float],
                  first: int, last: int | None) -> bool:
        """`any(_rects_overlap(corners, r) for r in self._inner_rects[first:last])`, skipping
        the rectangles whose bounding box is more than BOX_SPARE_MM from ``box``: two
        rectangles that far apart are apart by at least that along one of the four axes
        `_rects_overlap` tries (the edge normal nearest the direction joining their closest
        points is within 45° of it), far above its float error, so it answers False there."""
        rects = self._inner_rects[first:last]
        boxes = self._inner_boxes[first:last]
        x0, y0, x1, y1 = box
        for piece, (bx0, by0, bx1, by1) in zip(rects, boxes):
            if x1 < bx0 or x0 > bx1 or y1 < by0 or y0 > by1:
                continue
            if _rects_overlap(corners, piece):
                return True
        return False

    @functools.cached_property
    def _inner_boxes(self) -> list[tuple[float, float, float, float]]:
        """Each inner rectangle's bounding box grown by BOX_SPARE_MM."""
        out = []
        for (cx, cy), (fx, fy), (rx, ry), hw, hd in self._inner_rects:
            ex = abs(hw * rx) + abs(hd * fx) + BOX_SPARE_MM
            ey = abs(hw * ry) + abs(hd * fy) + BOX_SPARE_MM
            out.append((cx - ex, cy - ey, cx + ex, cy + ey))
        return out

    def certainly_meets(self, shape: BaseGeometry, outline: list[list[float]] | None = None
                        ) -> bool:
        """`SweptArea.certainly_meets`: True when the polygon ``shape`` (``outline``: its ring,
        closing point included, given only for a polygon without holes) certainly overlaps an
        inner rectangle in plain floats (`_quad_in_polygon`); else GEOS, the rectangles'
        polygons built once per path."""
        rects = self._inner_rects
        if not rects:
            return False
        if outline is not None and any(_quad_in_polygon(rect, outline) for rect in rects):
            return True
        return bool(shapely.intersects(shape, self._inner_shapes).any())

    def meets(self, vertices: np.ndarray, shape: BaseGeometry,  # type: ignore[override]
              outline: list[list[float]] | None = None) -> bool:
        """`SweptArea.meets`, its steps in the same order, ``outline`` passed on to
        `certainly_meets`."""
        v = np.asarray(vertices, dtype=float)
        if self.box_clear(v[:, 0].tolist(), v[:, 1].tolist()):
            return False
        if self.certainly_meets(shape, outline):
            return True
        if self._clear_when_moved(v, shape):
            return False
        return bool(shapely.intersects(self.inner, shape))


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


BOX_SPARE_MM = 1e-6   # rectangles' boxes further apart than this are certainly apart (float
# error here: about 1e-12 mm)
INSIDE_MM = 1e-6   # certain answers need this much to spare (float error here: about 1e-12 mm)


def _quad_in_polygon(rect: tuple[Point, Point, Point, float, float],
                     outline: list[list[float]]) -> bool:
    """The rectangle (centre, front, right, half-width, half-depth; corners as `_rect_shapes`
    computes them) certainly overlaps the simple polygon ``outline`` (closed ring): one of its
    corners lies inside the polygon, or a vertex of the polygon inside it, by more than
    INSIDE_MM. False means "not certain" (the caller asks GEOS)."""
    (cx, cy), (fx, fy), (rx, ry), hw, hd = rect
    corners = ((cx - hw * rx + hd * fx, cy - hw * ry + hd * fy),
               (cx + hw * rx + hd * fx, cy + hw * ry + hd * fy),
               (cx + hw * rx - hd * fx, cy + hw * ry - hd * fy),
               (cx - hw * rx - hd * fx, cy - hw * ry - hd * fy))
    if any(_inside(px, py, outline) for px, py in corners):
        return True
    for vx, vy in outline[:-1]:
        dx, dy = vx - cx, vy - cy
        if abs(dx * rx + dy * ry) < hw - INSIDE_MM and abs(dx * fx + dy * fy) < hd - INSIDE_MM:
            return True
    return False


def _inside(px: float, py: float, outline: list[list[float]]) -> bool:
    """The point lies inside the closed ring by more than 2 INSIDE_MM from every edge
    (crossing number; with that spare, float error cannot flip any crossing)."""
    inside = False
    m = 2.0 * INSIDE_MM
    ax, ay = outline[0]
    for bx, by in outline[1:]:
        if min(ax, bx) - m <= px <= max(ax, bx) + m and \
                min(ay, by) - m <= py <= max(ay, by) + m:
            ex, ey = bx - ax, by - ay       # near the edge's box: measure the distance
            wx, wy = px - ax, py - ay
            length2 = ex * ex + ey * ey
            t = 0.0 if length2 == 0.0 else min(1.0, max(0.0, (wx * ex + wy * ey) / length2))
            qx, qy = wx - t * ex, wy - t * ey
            if qx * qx + qy * qy <= m * m:
                return False           # too near an edge to be certain
        if (ay > py) != (by > py) and px < ax + (py - ay) * (bx - ax) / (by - ay):
            inside = not inside
        ax, ay = bx, by
    return inside
