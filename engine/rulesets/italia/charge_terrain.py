"""Terrain found for ISD charges and melees (charges.py, melee.py) without the STRtree query:
the same features, in scenario order, as `Board.terrain_near`.

A battle has a few terrain features and asks about them a few hundred times per analysis; the
tree's per-query overhead cost more than testing each feature whose box meets the shape's box
with GEOS's own predicate (apart boxes: apart shapes). Past `FEW_FEATURES` features the tree is
asked as before. The terrain a charging front crosses (`crossed_by_hull`) and the area terrain
holding a base (`area_terrain_holding`) skip building shapes when the answer is certain without
them; tests/test_engine_charge_fast.py compares every answer with the plain query's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString
from shapely.geometry.base import BaseGeometry

from campo.engine.geometry.boxes import CERTAIN_MM, Box, box_of, rect_box
from campo.engine.geometry.rect import Point, Rect
from campo.engine.rulesets.italia.board import Board

FEW_FEATURES = 64
"""Up to this many features, each is tested in turn instead of querying the STRtree."""


def _terrain_boxes(board: Board) -> list[tuple[bool, Box]]:
    """(has a crest, bounding box) of every terrain feature's shape, as `Board.terrain_near`
    indexes them."""
    found = board.__dict__.get("_terrain_boxes")
    if found is None:
        feats, _ = board._terrain
        boxes = shapely.bounds([g for _, g in feats]).tolist() if feats else []
        found = [(f.crest_mm is not None, tuple(b)) for (f, _), b in zip(feats, boxes)]
        board.__dict__["_terrain_boxes"] = found
    return found


def terrain_may_meet(board: Board, points: Sequence[Point], crests_only: bool = False) -> bool:
    """Whether a shape spanned by ``points`` (its bounding box is theirs) may meet a terrain
    feature (with a crest, if ``crests_only``): False when its box is apart from every such
    feature's box, and then `terrain_near` would find none."""
    return bool(_terrain_in_box(board, box_of(points), crests_only))


def _terrain_in_box(board: Board, box: Box, crests_only: bool = False) -> list[int]:
    """Positions of the features (with a crest, if ``crests_only``) whose box meets ``box``."""
    x0, y0, x1, y1 = box
    return [k for k, (crest, (bx0, by0, bx1, by1)) in enumerate(_terrain_boxes(board))
            if (crest or not crests_only) and not (x1 < bx0 or bx1 < x0 or y1 < by0 or by1 < y0)]


def area_terrain_holding(board: Board, rect: Rect, tol: float) -> list[Any]:
    """Area features holding ``rect`` wholly, within ``tol``: those meeting it whose shape grown
    by ``tol`` (`Board.grown`) covers it (melee.py). Covering needs the feature's box, grown by
    ``tol``, to hold the rectangle's box: features failing that are not asked, and when none is
    left the rectangle's polygon is not even built."""
    feats, _ = board._terrain
    x0, y0, x1, y1 = rect_box(rect)
    grow = tol + CERTAIN_MM
    maybe = [feats[k] for k, (_, (bx0, by0, bx1, by1)) in enumerate(_terrain_boxes(board))
             if feats[k][0].polygon_mm is not None and bx0 - grow <= x0 and x1 <= bx1 + grow
             and by0 - grow <= y0 and y1 <= by1 + grow]
    if not maybe:
        return []
    poly = rect.polygon
    return [t for t, g in maybe if poly.intersects(g) and board.grown(g, tol).covers(poly)]


def terrain_meeting(board: Board, geom: Callable[[], BaseGeometry], points: Sequence[Point],
                    crests_only: bool = False) -> list[tuple[Any, BaseGeometry]]:
    """`board.terrain_near(geom())` (the features meeting the shape, spanned by ``points``, in
    scenario order), by boxes then GEOS's intersects feature by feature: the tree's own test
    without its per-query overhead; the shape is built only if some box meets. ``crests_only``
    leaves out features without a crest."""
    feats, _ = board._terrain
    if len(feats) > FEW_FEATURES:
        return [f for f in board.terrain_near(geom())
                if f[0].crest_mm is not None or not crests_only]
    near = _terrain_in_box(board, box_of(points), crests_only)
    if not near:
        return []
    shape = geom()
    return [feats[k] for k in near if shape.intersects(feats[k][1])]


def crossed_by_hull(board: Board, ends: Sequence[Point]) -> list[tuple[Any, BaseGeometry]] | None:
    """The features (scenario order) meeting the convex hull GEOS builds of the front edges
    ending at ``ends`` once noded (`charges._crossed_kinds_plain`), or None when unsure.

    The hull of the bare ends lies inside that one (its vertices are ends, all inside it) and
    misses it by no more than GEOS's rounding of a crossing node: a feature meeting it meets
    the other, one farther than `CERTAIN_MM` from it does not; closer calls return None."""
    feats, _ = board._terrain
    if len(feats) > FEW_FEATURES:
        return None
    near = _terrain_in_box(board, box_of(ends))
    if not near:
        return []
    hull = shapely.multipoints(np.array(ends, dtype=float)).convex_hull
    found = []
    for k in near:
        g = feats[k][1]
        if hull.intersects(g):
            found.append(feats[k])
        elif hull.distance(g) <= CERTAIN_MM:
            return None
    return found


def crest_line(board: Board, feat: Any) -> BaseGeometry:
    """``LineString(feat.crest_mm)``, built once per board (each hidden test asks)."""
    cache = board.__dict__.setdefault("_crest_lines", {})
    found = cache.get(id(feat))
    if found is None:
        found = cache[id(feat)] = LineString(feat.crest_mm)   # the board keeps ``feat``
    return found


def terrain_at_point(board: Board, x: float, y: float) -> list[tuple[Any, BaseGeometry]]:
    """The features whose shape holds the point (x, y), boundary included, in scenario order:
    `board.terrain_near(Point(x, y))` with the point-in-shape test `intersects_xy` (for a point,
    meeting a shape and being covered by it are the same test)."""
    feats, _ = board._terrain
    if len(feats) > FEW_FEATURES:
        point = shapely.Point(x, y)
        return [f for f in board.terrain_near(point) if f[1].covers(point)]
    return [feats[k] for k in _terrain_in_box(board, (x, y, x, y))
            if shapely.intersects_xy(feats[k][1], x, y)]
