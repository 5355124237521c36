"""Shortcuts for judging ISD charges (charges.py), each giving the plain path's answers to the bit
(tests/test_engine_charge_fast.py).

* slides: the front-edge and whole-base slides of every oblique option in one compiled call
  (`slide_kernel`), the direction-free "already touching" test asked once per pair; the flank
  and rear contact at the end of a slide compiled too, close calls measured plainly;
* 2" zones: each base's zone (GEOS buffer), its outline and box built once per board; the slide
  into a zone compiled; a box holding the zone, known without building it;
* the corridor (the area the path covers) and swept wheels: the compiled gap to their pieces
  decides who lies within 2" (or meets a sweep) when clear by `CERTAIN_MM`, GEOS the rest;
* neighbours: which bases' boxes come near a box (compiled), and `within_of` for the index's
  `within` of one base asked of a few candidates.

The compiled kernels are imported where used, as fire_batch.py does: loading numba takes a
moment that commands judging no charge need not pay.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import shapely
from shapely.geometry import Polygon

from campo.engine.geometry.boxes import (
    CERTAIN_MM, Box, box_gap, box_of, boxes_meet, corners_of, frame_of, rect_box)
from campo.engine.geometry.rect import Point, Rect
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.pieces import ZONE_IN


def front_body_slides(body: Rect, target: Rect, dirs: Sequence[Point]) -> list[list[float]]:
    """[slide of the front edge, slide of the whole base] along each direction before touching
    ``target``: `slide_convex`'s two answers, the same floats."""
    from campo.engine.geometry.slide_kernel import front_and_body_slides

    front = box_of((body.front_left, body.front_right))
    front_touches = boxes_meet(front, rect_box(target)) and \
        body.front_edge.intersects(target.polygon)
    body_touches = boxes_meet(rect_box(body), rect_box(target)) and \
        body.polygon.intersects(target.polygon)
    found = front_and_body_slides(corners_of(body), corners_of(target),
                                  np.array(dirs, dtype=float), front_touches, body_touches)
    return found.tolist()


CLOSE_CALL_MM = 1e-9
"""A compiled length this close to its threshold is measured again the plain way."""


def flank_or_rear_along(body: Rect, target: Rect, direction: Point, s: float, touch: float
                        ) -> bool | None:
    """Whether, with ``body`` moved ``s`` along ``direction`` (`Rect.moved`), its right, rear or
    left edge lies along ``target`` for more than 2 ``touch`` (`shared_lengths` with ``touch``):
    compiled; None when too close to call, or when the move would renormalise the heading (the
    caller then measures it plainly)."""
    from campo.engine.geometry.slide_kernel import flank_contact_mm

    heading = (body.heading_deg + 0.0) % 360.0      # as `Rect.moved` does
    if heading != body.heading_deg or math.copysign(1.0, heading) != \
            math.copysign(1.0, body.heading_deg):
        return None
    f, r = body.front, body.right
    longest = flank_contact_mm(body.cx + direction[0] * s, body.cy + direction[1] * s, f[0], f[1],
                               r[0], r[1], body.width / 2, body.depth / 2, frame_of(target),
                               max(touch, 1e-6))
    limit = 2 * touch + 1e-6
    if abs(longest - limit) <= CLOSE_CALL_MM:
        return None
    return longest > limit


class TwoInchZone:
    """A base's 2" zone (ISD §9, A29): the GEOS buffer, its outline and bounding box."""

    __slots__ = ("polygon", "outline", "box")

    def __init__(self, polygon: Polygon) -> None:
        self.polygon = polygon
        self.outline = np.ascontiguousarray(shapely.get_coordinates(polygon)[:-1])  # = outline()
        self.box: Box = tuple(shapely.bounds(polygon).tolist())

    def slide(self, body: Rect, direction: Point) -> float:
        """`slide_convex(body.corners, body.polygon, outline, polygon, direction)`."""
        from campo.engine.geometry.slide_kernel import slide_apart

        if boxes_meet(rect_box(body), self.box) and body.polygon.intersects(self.polygon):
            return 0.0
        return slide_apart(corners_of(body), self.outline, float(direction[0]),
                           float(direction[1]))


def zone_around(board: Board, base_id: str) -> TwoInchZone:
    """The 2" zone of a base (cached per board)."""
    zones = board.__dict__.setdefault("_zones2", {})
    found = zones.get(base_id)
    if found is None:
        poly = board.rect(base_id).polygon.buffer(board.mm(ZONE_IN), quad_segs=8)
        found = zones[base_id] = TwoInchZone(poly)
    return found


def zone_box(board: Board, base_id: str) -> Box:
    """A box holding the base's 2" zone: its own box grown by 2" (and `CERTAIN_MM`, for the
    buffer's rounding), known without building the zone (cached per board)."""
    cache = board.__dict__.setdefault("_zone_boxes", {})
    found = cache.get(base_id)
    if found is None:
        grow = board.mm(ZONE_IN) + CERTAIN_MM
        x0, y0, x1, y1 = rect_box(board.rect(base_id))
        found = cache[base_id] = (x0 - grow, y0 - grow, x1 + grow, y1 + grow)
    return found


def base_boxes(board: Board) -> tuple[np.ndarray, list[tuple[float, ...]]]:
    """Bounding box of every base, in index order, as an (n, 4) array and as tuples (one
    vectorised call, cached)."""
    found = board.__dict__.get("_base_boxes")
    if found is None:
        shapes = board.state.index.shapes
        boxes = shapely.bounds(shapes) if len(shapes) else np.zeros((0, 4))
        found = board.__dict__["_base_boxes"] = (boxes, [tuple(b) for b in boxes.tolist()])
    return found


def bases_near_box(board: Board, box: Box, distance: float) -> list[tuple[str, tuple[float, ...]]]:
    """(id, box) of the bases whose box comes within ``distance`` of ``box`` on each axis (a
    superset of those within ``distance`` of anything inside ``box``), in index order."""
    from campo.engine.geometry.box_kernel import boxes_near

    ids = board.state.index.ids
    if not ids:
        return []
    boxes, rows = base_boxes(board)
    return [(ids[k], rows[k]) for k in boxes_near(boxes, *box, distance).tolist()]


def holds_zone_against(board: Board, base_id: str, own_side: str) -> bool:
    """Whether ``base_id``'s 2" zone may stop a charge by ``own_side`` (ISD A29): an enemy, not a
    general, not already in contact with ``own_side`` (in melee: its zone stops nobody)."""
    info = board.infos[base_id]
    return info.side != own_side and not info.is_general and \
        not any(board.infos[x].side == own_side for x in board.touching[base_id])


def poses_array(poses: Sequence[Rect]) -> np.ndarray:
    """The corners of poses as one (k, 4, 2) array, for `swept_gap`."""
    return np.array([r.corners for r in poses], dtype=float)


def sweep_meets(poses: np.ndarray, other: np.ndarray, exact: Callable[[], bool]) -> bool:
    """Whether `swept_area` of the poses meets the convex shape ``other`` (vertices): certain
    when the compiled gap to every piece is clear of 0 by `CERTAIN_MM` (apart, or overlapping
    that deep), else ``exact()`` (GEOS on the swept area itself)."""
    from campo.engine.geometry.box_kernel import swept_gap

    gap = swept_gap(poses, other)
    if gap > CERTAIN_MM:
        return False
    if gap < -CERTAIN_MM:
        return True
    return exact()


class Corridor:
    """Membership of `BaseIndex.within(corridor, reach)` for one charge path, without building
    the corridor (`swept_area` from the start, through the wheeled pose, to the contact pose)
    when the answer is certain: out when the base's box is farther than ``reach`` from the box
    of those poses; else by the compiled gap to the corridor's pieces (the hull of each
    consecutive pair of poses) when clear of ``reach`` by `CERTAIN_MM`. Close calls build it
    (``build``) and ask the index, as the plain path does."""

    def __init__(self, board: Board, poses: list[Rect], reach: float,
                 build: Callable[[], Polygon]) -> None:
        self.board, self.reach, self._build = board, reach, build
        self.box = box_of([q for r in poses for q in r.corners])
        self.poses = poses_array(poses)
        self._exact: set[str] | None = None

    def holds(self, base_id: str, box: Sequence[float]) -> bool:
        """``base_id`` (bounding ``box``) lies within ``reach`` of the corridor."""
        from campo.engine.geometry.box_kernel import swept_gap

        if box_gap(self.box, box) > self.reach:
            return False
        gap = swept_gap(self.poses, corners_of(self.board.rect(base_id)))
        if gap < self.reach - CERTAIN_MM:
            return True
        if gap > self.reach + CERTAIN_MM:
            return False
        if self._exact is None:
            self._exact = set(self.board.state.index.within(self._build(), self.reach))
        return base_id in self._exact


def within_of(board: Board, base_id: str, reach: float, keep: Callable[[str], bool]
              ) -> list[str]:
    """The bases for which ``keep`` (a cheap test: it is asked of bases farther too) holds among
    those ``board.state.index.within(base polygon, reach)`` returns, in index order: boxes
    first, then the gap (GEOS distance) when clear of ``reach`` by `CERTAIN_MM`, else the index
    query itself."""
    shape = board.rect(base_id).polygon
    found, unsure = [], False
    for other, _ in bases_near_box(board, rect_box(board.rect(base_id)), reach + 1.0):
        if not keep(other):
            continue
        gap = board.rect(other).polygon.distance(shape)
        if gap < reach - CERTAIN_MM:
            found.append(other)
        elif gap <= reach + CERTAIN_MM:
            unsure = True
    if unsure:
        return [i for i in board.state.index.within(shape, reach) if keep(i)]
    return found
