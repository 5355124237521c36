"""Bounding boxes and corner arrays of shapes, for cheap certain answers before exact ones.

Shapes whose boxes are apart cannot meet, and two shapes are at least as far apart as their
boxes: tests that rule a pair out by boxes give GEOS's own answer without asking it. Distances
compared in plain floats keep a margin (`CERTAIN_MM`) from the threshold they decide.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from campo.engine.geometry.rect import Point, Rect

Box = tuple[float, float, float, float]
"""(x0, y0, x1, y1)."""

def corners_of(rect: Rect) -> np.ndarray:
    """The rectangle's corners as a (4, 2) array (kept on the rectangle: asked again)."""
    found = rect.__dict__.get("_corner_array")
    if found is None:
        found = np.array(rect.corners, dtype=float)
        object.__setattr__(rect, "_corner_array", found)
    return found


def frame_of(rect: Rect) -> np.ndarray:
    """(cx, cy, front, right, width, depth) of a rectangle as an array (kept on it)."""
    found = rect.__dict__.get("_frame_array")
    if found is None:
        found = np.array([rect.cx, rect.cy, *rect.front, *rect.right, rect.width, rect.depth])
        object.__setattr__(rect, "_frame_array", found)
    return found


CERTAIN_MM = 1e-6
"""Distance tests are decided in plain floats only when clear of the threshold by this much (GEOS
and plain arithmetic differ by far less on a table in mm); closer calls ask GEOS itself."""


def box_of(points: Sequence[Point]) -> Box:
    """Bounding box (x0, y0, x1, y1) of points (of a shape: of its vertices)."""
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    return min(xs), min(ys), max(xs), max(ys)


def boxes_meet(a: Box, b: Box) -> bool:
    """The boxes overlap or touch (shapes whose boxes are apart cannot meet)."""
    return not (a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1])


def box_gap(a: Box, b: Box) -> float:
    """The distance between two boxes less `CERTAIN_MM`: at most the distance between any
    shapes they hold, as GEOS measures it."""
    gap_x = max(b[0] - a[2], a[0] - b[2], 0.0)
    gap_y = max(b[1] - a[3], a[1] - b[3], 0.0)
    return math.hypot(gap_x, gap_y) - CERTAIN_MM


def rect_box(rect: Rect) -> Box:
    """Bounding box of a rectangle (kept on it: asked again)."""
    found = rect.__dict__.get("_box")
    if found is None:
        found = box_of(rect.corners)
        object.__setattr__(rect, "_box", found)
    return found
