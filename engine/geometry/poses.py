"""Many bases' rectangles as arrays: the array-first twin of `Rect` for rules that ask about
hundreds of poses at once (charge paths, routs, pursuits), with `Rect`'s own arithmetic.

>>> from campo.engine.geometry.rect import Rect
>>> r = Rect(0.0, 0.0, 90.0, 80.0, 40.0)
>>> p = Poses.of([r])
>>> p.corners.round(6).tolist() == [[[round(v, 6) for v in c] for c in r.corners]]
True
>>> p.moved(p.front * 10.0).cy.tolist()
[10.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import shapely

from campo.engine.geometry.rect import Rect


def xy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(n, 2) from two columns (quicker than ``np.stack`` for the many small arrays here)."""
    out = np.empty((len(x), 2))
    out[:, 0], out[:, 1] = x, y
    return out


_ROWS = ("cx", "cy", "heading", "width", "depth", "front", "right", "corners")   # per row
RIGHT_SIGN = np.array([-1.0, 1.0, 1.0, -1.0])[:, None]
FRONT_SIGN = np.array([1.0, 1.0, -1.0, -1.0])[:, None]
"""Where each corner lies from the centre (`Rect.corners`: front-left, front-right, rear-right,
rear-left), along the base's right and front: (4, 1), to broadcast against (n, 1, 2) vectors."""


@dataclass(frozen=True, eq=False)
class Poses:
    """Rectangles (centre, heading in degrees CCW from +x, width, depth; mm), one per row, with
    their unit vectors and corners (computed once, carried along by `take` and `moved`)."""

    cx: np.ndarray
    cy: np.ndarray
    heading: np.ndarray
    width: np.ndarray
    depth: np.ndarray
    front: np.ndarray = field(init=False, repr=False)
    """(n, 2) unit vectors the fronts face."""
    right: np.ndarray = field(init=False, repr=False)
    """(n, 2) unit vectors to each base's right (the front turned -90°, as `Rect`)."""
    corners: np.ndarray = field(init=False, repr=False)
    """(n, 4, 2): front-left, front-right, rear-right, rear-left (`Rect.corners`)."""

    def __post_init__(self) -> None:
        a = np.radians(self.heading)
        f = xy(np.cos(a), np.sin(a))
        r = xy(f[:, 1], -f[:, 0])
        hw = (self.width / 2)[:, None, None] * r[:, None]
        hd = (self.depth / 2)[:, None, None] * f[:, None]
        # (c ∓ hw) ± hd, all four corners in one pass (multiplying by ±1 is exact)
        corners = (xy(self.cx, self.cy)[:, None] + RIGHT_SIGN * hw) + FRONT_SIGN * hd
        self.__dict__.update(front=f, right=r, corners=corners)

    @staticmethod
    def of(rects: Sequence[Rect]) -> Poses:
        rows = np.array([(r.cx, r.cy, r.heading_deg, r.width, r.depth) for r in rects],
                        dtype=float).reshape(-1, 5)
        return Poses(*rows.T.copy())

    def _with(self, cx: np.ndarray, cy: np.ndarray, at: np.ndarray | None,
              shift: np.ndarray | None = None) -> Poses:
        """Rows ``at`` (all when None; by ``take``: fancy indexing of 2-d rows costs 4x) moved
        to centres (cx, cy) by ``shift``: the same vectors, the corners shifted (no trig)."""
        out = object.__new__(Poses)
        if at is None:   # (the arrays are never written to: shared)
            heading, width, depth = self.heading, self.width, self.depth
            front, right, corners = self.front, self.right, self.corners
        else:
            heading, width, depth = self.heading[at], self.width[at], self.depth[at]
            front, right = self.front.take(at, axis=0), self.right.take(at, axis=0)
            corners = self.corners.take(at, axis=0)
        out.__dict__.update(cx=cx, cy=cy, heading=heading, width=width, depth=depth, front=front,
                            right=right,
                            corners=corners if shift is None else corners + shift[:, None, :])
        return out

    def __len__(self) -> int:
        return len(self.cx)

    def take(self, at: np.ndarray) -> Poses:
        """The rows ``at`` (an index array or a mask)."""
        rows = np.asarray(at)
        rows = np.flatnonzero(rows) if rows.dtype == bool else rows
        return self._with(self.cx[rows], self.cy[rows], rows)

    @property
    def front_edges(self) -> np.ndarray:
        """(n, 2, 2): front-left and front-right corners."""
        return self.corners[:, :2]

    @cached_property
    def front_centres(self) -> np.ndarray:
        """(n, 2)."""
        return (self.corners[:, 0] + self.corners[:, 1]) / 2

    @cached_property
    def polygons(self) -> np.ndarray:
        """The rectangles as shapely polygons (one vectorised call)."""
        return shapely.polygons(self.corners)

    @cached_property
    def front_lines(self) -> np.ndarray:
        """The front edges as shapely line strings."""
        return shapely.linestrings(self.front_edges)

    def moved(self, shift: np.ndarray) -> Poses:
        """Each pose translated by ``shift`` (n, 2), keeping its heading (`Rect.moved`)."""
        return self._with(self.cx + shift[:, 0], self.cy + shift[:, 1], None, shift)

    def pivoted(self, pivots: np.ndarray, turn_deg: np.ndarray) -> Poses:
        """Each pose turned CCW by ``turn_deg`` about ``pivots`` (n, 2) (`Rect.pivoted`)."""
        a = np.radians(turn_deg)
        c, s = np.cos(a), np.sin(a)
        dx, dy = self.cx - pivots[:, 0], self.cy - pivots[:, 1]
        return Poses(pivots[:, 0] + dx * c - dy * s, pivots[:, 1] + dx * s + dy * c,
                     (self.heading + turn_deg) % 360.0, self.width, self.depth)

    def wheeled(self, turn_deg: np.ndarray) -> Poses:
        """Each pose wheeled by ``turn_deg`` on the front corner it turns toward (left for a
        CCW turn, `motion.wheel`)."""
        corners = self.corners
        pivots = np.where((turn_deg > 0)[:, None], corners[:, 0], corners[:, 1])
        return self.pivoted(pivots, turn_deg)

    def rect(self, k: int) -> Rect:
        """Row ``k`` as a `Rect`."""
        return Rect(float(self.cx[k]), float(self.cy[k]), float(self.heading[k]),
                    float(self.width[k]), float(self.depth[k]))


def concat(parts: Sequence[Poses]) -> Poses:
    """The rows of several `Poses`, in order (their vectors and corners as they are)."""
    out = object.__new__(Poses)
    out.__dict__.update({f: np.concatenate([getattr(p, f) for p in parts]) for f in _ROWS})
    return out
