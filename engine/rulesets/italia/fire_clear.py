"""ISD §7 «l'arco di fuoco deve essere completamente libero» from friends (ISD A10), for many
musketry shots at once, as a margin (mm) an umpire's close call can be read from.

The swept-area reading: the region is the convex hull of the firer's front and the target's part
in arc, together with the strip straight ahead of the front as deep as the target is far; the
whole-arc reading: the 6" arc. A friend blocks when it reaches more than `GRAZE_MM` inside a
region piece (tracking noise may put a neighbour's corner a hair inside). Each piece is convex,
the set of half-planes its edges bound, so "how deep a friend reaches inside" is
`fire_geometry.depth_in_arc` with the piece's edges as the linear functions.
"""

from __future__ import annotations

import numpy as np
import shapely

from campo.engine.geometry.motion import padded
from campo.engine.rulesets.italia.board import MM_PER_IN, WATCH_MM, Board
from campo.engine.rulesets.italia.fire_geometry import (
    GRAZE_MM,
    Arcs,
    Parts,
    corners_of,
    depth_in_arc,
)
from campo.engine.rulesets.italia.tables_fire import MUSKETRY_RANGE_IN


def clear_margins(board: Board, arcs: Arcs, row: np.ndarray, at: np.ndarray, parts: Parts,
                  prow: np.ndarray, dist_mm: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per musketry shot (``arcs`` row ``row[k]`` at index position ``at[k]``; its part is
    ``parts`` row ``prow[k]``, at ``dist_mm``): the clear margin in mm (positive: clear, how
    far the deepest friend could come in before blocking; negative: how far it is in beyond
    the graze); and each (shot, friend index position, margin) within the close-call
    tolerance of blocking or beyond."""
    n = len(row)
    margin = np.full(n, np.inf)
    none = np.zeros(0, dtype=np.int64)
    if not n:
        return margin, none, none, np.zeros(0)
    friend = _friends(board, arcs, row)
    corners = board.rect_table.corners
    if board.settings.a10_clear_arc == "whole_arc":
        ring, counts = _arc_ring(arcs, row)
    else:   # the two pieces of every shot measured together: rows n.. are the strips
        hull, hull_counts = _hull_ring(board, arcs, row, parts, prow)
        strip = _strip_ring(arcs, row, dist_mm)
        width = max(hull.shape[1], 4)
        ring = np.concatenate([padded(hull, width), padded(strip, width)])
        counts = np.concatenate([hull_counts, np.full(n, 4)])
    origin, normal, box = _piece(ring, counts)
    # a friend's margin matters as far as verdicts are remembered (`board.WATCH_MM`) and
    # named within the close-call tolerance
    tol = board.settings.close_call_mm
    reach = max(tol, WATCH_MM)
    s, f = (np.tile(friend, (len(ring) // n, 1))
            & _boxes_meet(box, corners, reach - GRAZE_MM)).nonzero()
    if not len(s):
        return margin, none, none, np.zeros(0)
    px, py = corners_of(board, f)                                         # (4, m)
    o, nrm = origin.take(s, axis=0).T, normal.take(s, axis=0).T           # (2, c, m)
    ox, oy, nx, ny = o[0][:, None], o[1][:, None], nrm[0][:, None], nrm[1][:, None]
    depth = depth_in_arc((px - ox) * nx + (py - oy) * ny)     # each edge's at each corner
    m = GRAZE_MM - depth
    s = s % n
    np.minimum.at(margin, s, m)
    near = m < tol
    return margin, s[near], f[near], m[near]


def clear_blockers(board: Board, shot: np.ndarray, friend: np.ndarray, margin: np.ndarray
                   ) -> dict[int, list[str]]:
    """Per shot, the friends named as spoiling its arc (ISD §7): those inside it beyond the
    graze, or, when none is, those within the close-call tolerance of it; by id."""
    names = board.state.index.ids
    found: dict[int, dict[str, float]] = {}
    for s, f, m in zip(shot.tolist(), friend.tolist(), margin.tolist()):
        mine = found.setdefault(s, {})
        mine[names[f]] = min(m, mine.get(names[f], m))
    out = {}
    for s, mine in found.items():
        blocking = sorted(i for i, m in mine.items() if m < 0)
        out[s] = blocking or sorted(mine)
    return out


def _friends(board: Board, arcs: Arcs, row: np.ndarray) -> np.ndarray:
    """(shots, bases): the base is a friend of the firer that can block its arc (same side,
    not the firer, not a general)."""
    side = board.sides
    shooter = arcs.at[row]
    out = (side[None, :] == side[shooter][:, None]) & ~board.generals[None, :]
    out[np.arange(len(row)), shooter] = False
    return out


def _boxes_meet(box: np.ndarray, corners: np.ndarray, grow: float) -> np.ndarray:
    """(shots, bases): the bases' boxes meet each shot's region box grown by ``grow``."""
    each = [corners[:, k] for k in range(corners.shape[1])]    # (numpy is slow across axis 1)
    lo, hi = np.minimum.reduce(each), np.maximum.reduce(each)
    return ((lo[None, :, 0] <= box[:, None, 2] + grow) & (hi[None, :, 0] >= box[:, None, 0] - grow)
            & (lo[None, :, 1] <= box[:, None, 3] + grow)
            & (hi[None, :, 1] >= box[:, None, 1] - grow))


def _piece(ring: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Convex rings (padded (n, k, 2), counterclockwise, ``counts`` real vertices each) as
    half-planes: a point on each edge, its inward unit normal (padding repeats the first edge),
    and the ring's box."""
    k = ring.shape[1]
    idx = np.arange(k)[None, :]
    real = idx < counts[:, None]
    a = ring
    b = np.take_along_axis(ring, np.where(idx + 1 < counts[:, None], idx + 1, 0)[..., None]
                           .repeat(2, -1), axis=1)
    e = b - a
    normal = np.stack([-e[..., 1], e[..., 0]], axis=-1)                   # left: inward (CCW)
    length = np.hypot(normal[..., 0], normal[..., 1])
    normal = normal / np.where(length > 0, length, 1.0)[..., None]
    ok = real & (length > 0)
    first = np.argmax(ok, axis=1)
    a = np.where(ok[..., None], a, a[np.arange(len(a)), first][:, None])
    normal = np.where(ok[..., None], normal, normal[np.arange(len(a)), first][:, None])
    box = np.concatenate([np.where(real[..., None], ring, np.inf).min(axis=1),
                          np.where(real[..., None], ring, -np.inf).max(axis=1)], axis=1)
    return a, normal, box


def _hull_ring(board: Board, arcs: Arcs, row: np.ndarray, parts: Parts, prow: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """The hull of the firer's own front and the target's part: its ring, counterclockwise
    and padded, and how many vertices each has."""
    front = board.rect_table.corners.take(arcs.at[row], axis=0)[:, :2]   # (n, 2, 2)
    # the parts' vertices padded by repeating the last (a point twice changes no hull)
    part = np.stack([parts.x.take(prow, axis=1).T, parts.y.take(prow, axis=1).T], axis=-1)
    hulls = shapely.convex_hull(shapely.multipoints(np.concatenate([front, part], axis=1)))
    ring = shapely.get_exterior_ring(hulls)
    xy, owner = shapely.get_coordinates(ring, return_index=True)
    counts = np.bincount(owner, minlength=len(row)) - 1
    start = np.concatenate([[0], np.cumsum(counts + 1)[:-1]])
    k = int(counts.max())
    take = start[:, None] + np.minimum(np.arange(k)[None, :], counts[:, None] - 1)
    padded = xy[take]
    ccw = shapely.is_ccw(ring)
    return np.where(ccw[:, None, None], padded, _reversed(padded, counts)), counts


def _reversed(ring: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each padded ring's real vertices in the opposite order."""
    k = ring.shape[1]
    idx = np.arange(k)[None, :]
    back = np.where(idx < counts[:, None], counts[:, None] - 1 - idx, idx)
    return np.take_along_axis(ring, back[..., None].repeat(2, -1), axis=1)


def _strip_ring(arcs: Arcs, row: np.ndarray, dist_mm: np.ndarray) -> np.ndarray:
    """The strip straight ahead of the firer's own front, as deep as the target is far (6" at
    most): its ring (counterclockwise, 4 vertices)."""
    front = arcs.front.take(row, axis=0)                # a musket's front is its own
    fl, fr = front[:, 0], front[:, 1]
    facing = arcs.facing.take(row, axis=0)
    depth = np.minimum(dist_mm, MUSKETRY_RANGE_IN * MM_PER_IN)[:, None]
    return np.stack([fr, fr + facing * depth, fl + facing * depth, fl], axis=1)


def _arc_ring(arcs: Arcs, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The whole arc cut at the range (ISD A10 "whole_arc"): its ring and vertex counts."""
    ring = shapely.get_coordinates(arcs.polygons(row, arcs.range_mm[row])).reshape(len(row), 5, 2)
    ring = ring[:, :4]                                  # left, right, far right, far left: CCW
    return np.ascontiguousarray(ring), np.full(len(row), 4)

