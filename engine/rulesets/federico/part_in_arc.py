"""The part of a target inside a firer's arc when the target lies wholly inside it, without a
GEOS overlay (Federico F4 "front edge to the part in arc").

`fire_batch.all_targets` measures to ``shapely.intersection(arc, target)``; most targets lie
well inside their firer's arc, and then GEOS's answer is the target's own outline, only
started one vertex later: for a clockwise ring (every `Rect` polygon is one) OverlayNG returns
the same coordinates, same direction, from the second vertex. `as_overlay_result` builds exactly
that (no arithmetic: the coordinates are the target's), and only where `wholly_inside` is
certain (every vertex farther than INSIDE_MARGIN_MM inside every edge of a convex arc); the rest
go to GEOS. tests/test_federico_part_in_arc.py pins the convention against GEOS (bench
battles and random positions); it is used only under the GEOS version checked (CHECKED_GEOS).
"""

from __future__ import annotations

import numpy as np
import shapely

INSIDE_MARGIN_MM = 1e-6   # far above float error of the cross products (~1e-9 mm here)
CHECKED_GEOS = (3, 14)
"""The GEOS (major, minor) whose overlay convention was checked; under another, GEOS decides."""


def wholly_inside(arcs: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Per pair: certainly ``targets[p]`` (a clockwise 4-vertex polygon) lies in the interior
    of ``arcs[p]`` (a convex 4-vertex polygon), away from its outline; False when unsure."""
    out = np.zeros(len(arcs), dtype=bool)
    if not len(arcs) or shapely.geos_version[:2] != CHECKED_GEOS:
        return out
    rows = np.nonzero((shapely.get_num_coordinates(arcs) == 5)
                      & (shapely.get_num_coordinates(targets) == 5)
                      & (shapely.get_num_interior_rings(arcs) == 0)
                      & (shapely.get_num_interior_rings(targets) == 0))[0]
    if not len(rows):
        return out
    a = shapely.get_coordinates(arcs[rows]).reshape(len(rows), 5, 2)[:, :4]
    t = shapely.get_coordinates(targets[rows]).reshape(len(rows), 5, 2)[:, :4]
    e = np.roll(a, -1, axis=1) - a                                        # arc edges (r, 4, 2)
    turn = _twice_area(a)
    ok = _strictly_convex(a, turn) & _strictly_convex(t, _twice_area(t)) & (_twice_area(t) < 0)
    length = np.hypot(e[..., 0], e[..., 1])                              # (r, 4)
    for v in range(4):
        px, py = t[:, v, 0][:, None], t[:, v, 1][:, None]                # (r, 1)
        side = e[..., 0] * (py - a[..., 1]) - e[..., 1] * (px - a[..., 0])   # (r, 4)
        ok &= (side * np.sign(turn)[:, None] > INSIDE_MARGIN_MM * length).all(axis=1)
    out[rows] = ok
    return out


def as_overlay_result(targets: np.ndarray) -> np.ndarray:
    """``shapely.intersection(arc, target)`` for targets `wholly_inside` their arcs: each
    target's ring from its second vertex (GEOS OverlayNG's output for such a pair)."""
    if not len(targets):
        return np.zeros(0, dtype=object)
    xy = shapely.get_coordinates(targets).reshape(len(targets), 5, 2)[:, :4]
    ring = np.roll(xy, -1, axis=1)
    return shapely.polygons(np.concatenate([ring, ring[:, :1]], axis=1))


def _twice_area(xy: np.ndarray) -> np.ndarray:
    """Twice the signed area of each (r, 4, 2) ring (positive: counter-clockwise)."""
    nxt = np.roll(xy, -1, axis=1)
    return (xy[..., 0] * nxt[..., 1] - nxt[..., 0] * xy[..., 1]).sum(axis=1)


def _strictly_convex(xy: np.ndarray, turn: np.ndarray) -> np.ndarray:
    """Each (r, 4, 2) ring turns the same way as its area at every corner (no repeated or
    collinear vertex: GEOS would drop one)."""
    e = np.roll(xy, -1, axis=1) - xy
    ok = turn != 0
    for i in range(4):
        j = (i + 1) % 4
        ok &= (e[:, i, 0] * e[:, j, 1] - e[:, i, 1] * e[:, j, 0]) * np.sign(turn) > 0
    return ok
