"""Many bases' rectangles as arrays: the array-first twin of `Rect` for rules that ask about
hundreds of poses at once (charge paths, routs, pursuits), with `Rect`'s own arithmetic.

>>> from campo.engine.geometry.rect import Rect
>>> p = Poses.of([Rect(0.0, 0.0, 90.0, 80.0, 40.0)])
>>> p.corners.round(6).tolist()[0] == [list(map(lambda v: round(v, 6), c))
...                                    for c in Rect(0.0, 0.0, 90.0, 80.0, 40.0).corners]
True
>>> p.moved(p.front * 10.0).cy.tolist()
[10.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely

from campo.engine.geometry.rect import Rect


@dataclass(frozen=True, eq=False)
class Poses:
    """Rectangles (centre, heading in degrees CCW from +x, width, depth; mm), one per row."""

    cx: np.ndarray
    cy: np.ndarray
    heading: np.ndarray
    width: np.ndarray
    depth: np.ndarray

    @staticmethod
    def of(rects: Sequence[Rect]) -> Poses:
        rows = np.array([(r.cx, r.cy, r.heading_deg, r.width, r.depth) for r in rects],
                        dtype=float).reshape(-1, 5)
        return Poses(*rows.T.copy())

    def __len__(self) -> int:
        return len(self.cx)

    def take(self, at: np.ndarray) -> Poses:
        """The rows ``at`` (an index array or a mask)."""
        return Poses(self.cx[at], self.cy[at], self.heading[at], self.width[at], self.depth[at])

    @cached_property
    def front(self) -> np.ndarray:
        """(n, 2) unit vectors the fronts face."""
        a = np.radians(self.heading)
        return np.stack([np.cos(a), np.sin(a)], axis=1)

    @cached_property
    def right(self) -> np.ndarray:
        """(n, 2) unit vectors to each base's right (the front turned -90°, as `Rect`)."""
        f = self.front
        return np.stack([f[:, 1], -f[:, 0]], axis=1)

    @cached_property
    def corners(self) -> np.ndarray:
        """(n, 4, 2): front-left, front-right, rear-right, rear-left (`Rect.corners`)."""
        c = np.stack([self.cx, self.cy], axis=1)
        hw = (self.width / 2)[:, None] * self.right
        hd = (self.depth / 2)[:, None] * self.front
        return np.stack([c - hw + hd, c + hw + hd, c + hw - hd, c - hw - hd], axis=1)

    @property
    def front_edges(self) -> np.ndarray:
        """(n, 2, 2): front-left and front-right corners."""
        return self.corners[:, :2]

    @cached_property
    def front_centres(self) -> np.ndarray:
        """(n, 2)."""
        return np.stack([self.cx, self.cy], axis=1) + (self.depth / 2)[:, None] * self.front

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
        return Poses(self.cx + shift[:, 0], self.cy + shift[:, 1], self.heading, self.width,
                     self.depth)

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
    """The rows of several `Poses`, in order."""
    return Poses(*(np.concatenate([getattr(p, f) for p in parts])
                   for f in ("cx", "cy", "heading", "width", "depth")))
