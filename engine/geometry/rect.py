"""Bases as oriented rectangles in the table frame (mm), and the base frame around them.

The base frame has its origin at the base centre, ``v`` along the heading (front) and ``u`` to
the base's right as seen from behind it (shared/interfaces.md, "Frames and units").

>>> r = Rect(100.0, 100.0, 90.0, 80.0, 40.0)   # facing +y, 80 wide, 40 deep
>>> [tuple(round(c, 6) for c in p) for p in (r.front_left, r.front_right)]
[(60.0, 120.0), (140.0, 120.0)]
>>> tuple(round(c, 6) for c in r.to_local(140.0, 160.0))
(40.0, 60.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import shapely
from shapely.geometry import LineString, Polygon

Point = tuple[float, float]

EDGE_NAMES = ("front", "right", "rear", "left")


def unit_vector(heading_deg: float) -> Point:
    """Unit vector of a heading measured CCW from +x."""
    a = math.radians(heading_deg)
    return (math.cos(a), math.sin(a))


def rotate(v: Point, deg: float) -> Point:
    """`v` rotated CCW by `deg` degrees."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return (v[0] * c - v[1] * s, v[0] * s + v[1] * c)


def angle_diff(a_deg: float, b_deg: float) -> float:
    """Signed smallest difference a - b in (-180, 180]."""
    d = (a_deg - b_deg) % 360.0
    return d - 360.0 if d > 180.0 else d


@dataclass(frozen=True, init=False)
class Rect:
    """A base: centre, heading (deg CCW from +x), frontage (width) and depth, all in mm."""

    cx: float
    cy: float
    heading_deg: float
    width: float
    depth: float

    def __init__(self, cx: float, cy: float, heading_deg: float, width: float,
                 depth: float) -> None:
        # Every field, frames and corners set in one dict update: a frozen dataclass's own
        # __init__ makes one object.__setattr__ call per field, and lazy cached properties take
        # a lock on Python 3.11 (bases are built by the thousand per analysis: moves, wheels,
        # sweeps).
        a = math.radians(heading_deg)
        f = (math.cos(a), math.sin(a))
        r = (f[1], -f[0])
        hw, hd = width / 2, depth / 2
        self.__dict__.update(
            cx=cx, cy=cy, heading_deg=heading_deg, width=width, depth=depth,
            front=f, right=r,
            front_left=(cx - hw * r[0] + hd * f[0], cy - hw * r[1] + hd * f[1]),
            front_right=(cx + hw * r[0] + hd * f[0], cy + hw * r[1] + hd * f[1]),
            rear_right=(cx + hw * r[0] - hd * f[0], cy + hw * r[1] - hd * f[1]),
            rear_left=(cx - hw * r[0] - hd * f[0], cy - hw * r[1] - hd * f[1]),
            front_centre=(cx + hd * f[0], cy + hd * f[1]),
            _polygon=None, _front_edge=None, _edges=None)

    # set by __init__:
    #   front, right: unit vectors the front faces / to the base's right (front turned -90°)
    #   front_left, front_right, rear_right, rear_left, front_centre: points in table mm
    front: Point = field(init=False, repr=False, compare=False)
    right: Point = field(init=False, repr=False, compare=False)
    front_left: Point = field(init=False, repr=False, compare=False)
    front_right: Point = field(init=False, repr=False, compare=False)
    rear_right: Point = field(init=False, repr=False, compare=False)
    rear_left: Point = field(init=False, repr=False, compare=False)
    front_centre: Point = field(init=False, repr=False, compare=False)
    # shapely shapes, built on first use (most rectangles made by moves and sweeps never need them)
    _polygon: Polygon | None = field(init=False, repr=False, compare=False)
    _front_edge: LineString | None = field(init=False, repr=False, compare=False)
    _edges: dict[str, LineString] | None = field(init=False, repr=False, compare=False)

    def from_local(self, u: float, v: float) -> Point:
        """Base frame (u right, v front) -> table mm."""
        f, r = self.front, self.right
        return (self.cx + u * r[0] + v * f[0], self.cy + u * r[1] + v * f[1])

    def to_local(self, x: float, y: float) -> Point:
        """Table mm -> base frame (u right, v front)."""
        dx, dy = x - self.cx, y - self.cy
        f, r = self.front, self.right
        return (dx * r[0] + dy * r[1], dx * f[0] + dy * f[1])

    @property
    def corners(self) -> tuple[Point, Point, Point, Point]:
        """Front-left, front-right, rear-right, rear-left (clockwise seen from above)."""
        return (self.front_left, self.front_right, self.rear_right, self.rear_left)

    @property
    def polygon(self) -> Polygon:
        """The base as a shapely polygon (built once)."""
        if self._polygon is None:
            self.keep_polygon(shapely.polygons(self.corners))
        return self._polygon

    def keep_polygon(self, polygon: Polygon) -> None:
        """Hand over this rectangle's polygon, built elsewhere (`GameState` builds every base's
        in one vectorised call); only the polygon of these same corners belongs here."""
        object.__setattr__(self, "_polygon", polygon)

    def edge(self, name: str) -> tuple[Point, Point]:
        """The named edge ("front", "right", "rear", "left") as two corners."""
        fl, fr, rr, rl = self.corners
        return {"front": (fl, fr), "right": (fr, rr), "rear": (rr, rl), "left": (rl, fl)}[name]

    @property
    def front_edge(self) -> LineString:
        if self._front_edge is None:
            object.__setattr__(self, "_front_edge",
                               shapely.linestrings([self.front_left, self.front_right]))
        return self._front_edge

    @property
    def edges(self) -> dict[str, LineString]:
        if self._edges is None:
            lines = shapely.linestrings([self.edge(name) for name in EDGE_NAMES])
            object.__setattr__(self, "_edges", dict(zip(EDGE_NAMES, lines)))
        return self._edges

    def moved(self, dx: float = 0.0, dy: float = 0.0, turn_deg: float = 0.0) -> Rect:
        """A copy translated by (dx, dy) and turned about its centre."""
        return Rect(self.cx + dx, self.cy + dy, (self.heading_deg + turn_deg) % 360.0,
                    self.width, self.depth)

    def pivoted(self, pivot: Point, turn_deg: float) -> Rect:
        """A copy turned CCW by `turn_deg` about `pivot` (a wheel on a corner)."""
        dx, dy = rotate((self.cx - pivot[0], self.cy - pivot[1]), turn_deg)
        return Rect(pivot[0] + dx, pivot[1] + dy, (self.heading_deg + turn_deg) % 360.0,
                    self.width, self.depth)

    def ahead_of_front(self, x: float, y: float) -> float:
        """Signed distance of a point ahead of the extended front line (negative = behind it)."""
        return self.to_local(x, y)[1] - self.depth / 2
