"""Front, flank and rear zones of a base, and "beyond the line of the front" tests.

Two partitions of the plane around a base are offered (rulebooks define these zones by lines):

* ``front_halfplane``: front = everything ahead of the infinitely extended front edge; rear = the
  strip behind the rear edge between the rearward side extensions; flanks = the rest.
* ``corner_diagonals``: the plane is cut by the base's two diagonals, extended.

>>> from campo.engine.geometry.rect import Rect
>>> r = Rect(0.0, 0.0, 90.0, 80.0, 40.0)
>>> zone_of(r, 100.0, 30.0), zone_of(r, 100.0, 10.0), zone_of(r, 0.0, -50.0)
(<Zone.FRONT: 'front'>, <Zone.RIGHT: 'right'>, <Zone.REAR: 'rear'>)
"""

from __future__ import annotations

import numpy as np

from campo.engine.geometry.rect import Point, Rect
from campo.engine.results import Zone


def zone_of(rect: Rect, x: float, y: float, partition: str = "front_halfplane") -> Zone:
    """The zone of ``rect`` that the point (x, y) lies in (points on the front line count front)."""
    u, v = rect.to_local(x, y)
    hw, hd = rect.width / 2, rect.depth / 2
    if partition == "corner_diagonals":
        # Normalise so the diagonals are at 45°: compare |u|/hw with |v|/hd.
        su, sv = abs(u) / hw, abs(v) / hd
        if su <= 1 and sv <= 1:
            return Zone.INSIDE
        if sv >= su:
            return Zone.FRONT if v > 0 else Zone.REAR
        return Zone.RIGHT if u > 0 else Zone.LEFT
    if v >= hd:
        return Zone.FRONT
    if abs(u) <= hw:
        return Zone.REAR if v <= -hd else Zone.INSIDE
    return Zone.RIGHT if u > 0 else Zone.LEFT


def beyond_front_line(rect: Rect, p: Point, tolerance: float) -> bool:
    """True when ``p`` lies level with or behind ``rect``'s extended front line by more than
    ``tolerance`` mm ("oltre la linea del fronte"); within the tolerance it is NOT beyond."""
    return rect.ahead_of_front(p[0], p[1]) < -tolerance


def zones_of(cx: np.ndarray, cy: np.ndarray, front: np.ndarray, width: np.ndarray,
             depth: np.ndarray, points: np.ndarray,
             partition: str = "front_halfplane") -> np.ndarray:
    """`zone_of` for many rectangles (centres, (n, 2) front unit vectors, sizes) and one point
    each ((n, 2)): the zones' values ("front", "left", "right", "rear", "inside")."""
    dx, dy = points[:, 0] - cx, points[:, 1] - cy
    u = dx * front[:, 1] - dy * front[:, 0]           # along the right vector (f1, -f0)
    v = dx * front[:, 0] + dy * front[:, 1]
    hw, hd = width / 2, depth / 2
    side = np.where(u > 0, "right", "left")
    if partition == "corner_diagonals":
        su, sv = np.abs(u) / hw, np.abs(v) / hd
        ends = np.where(v > 0, "front", "rear")
        return np.where((su <= 1) & (sv <= 1), "inside", np.where(sv >= su, ends, side))
    return np.where(v >= hd, "front",
                    np.where(np.abs(u) <= hw, np.where(v <= -hd, "rear", "inside"), side))
