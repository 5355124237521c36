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

from campo.engine.geometry.segments import successors
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
        ring, solid = _arc_ring(arcs, row), np.ones(n, dtype=bool)
    else:   # the two pieces of every shot measured together: columns n.. are the strips
        hull, solid = _hull_ring(board, arcs, row, parts, prow)
        ring = np.concatenate([hull, _strip_ring(arcs, row, dist_mm, len(hull))], axis=1)
    planes, box = _piece(ring)
    # a friend's margin matters as far as verdicts are remembered (`board.WATCH_MM`) and
    # named within the close-call tolerance
    tol = board.settings.close_call_mm
    reach = max(tol, WATCH_MM)
    meet = np.tile(friend, (ring.shape[1] // n, 1)) & _boxes_meet(box, corners, reach - GRAZE_MM)
    if not solid.all():
        meet[:n][~solid] = False                        # a hull without an area bounds nothing
    s, f = meet.nonzero()
    if not len(s):
        return margin, none, none, np.zeros(0)
    px, py = corners_of(board, f)                                         # (4, m)
    o = planes.take(s, axis=2)[:, :, None]                                # (4, edges, 1, m)
    depth = depth_in_arc((px - o[0]) * o[2] + (py - o[1]) * o[3])  # each edge's at each corner
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


def _piece(ring: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Convex rings (k, n, 2: vertex, ring, x/y; counterclockwise, padded by repeating their
    last vertex) as half-planes: (4, k, n), a point on each edge (x, y) and its inward unit
    normal (x, y); and the rings' boxes (n, 4). The padding adds edges of no length and leaves
    the closing one last; an edge of no length repeats the ring's first real edge (the same
    half-plane twice changes no depth)."""
    e = successors(ring) - ring
    ex, ey = e[..., 0], e[..., 1]
    length = np.hypot(-ey, ex)
    ok = length > 0
    scale = np.where(ok, length, 1.0)
    planes = np.stack([ring[..., 0], ring[..., 1], -ey / scale, ex / scale])   # left: inward
    if not ok.all():
        first = np.argmax(ok, axis=0)
        planes = np.where(ok, planes, planes[:, first, np.arange(len(first))][:, None])
    return planes, np.concatenate([ring.min(axis=0), ring.max(axis=0)], axis=1)


def _hull_ring(board: Board, arcs: Arcs, row: np.ndarray, parts: Parts, prow: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """The hull of the firer's own front and the target's part: its ring, counterclockwise,
    (k >= 4, n, 2) padded by repeating the last vertex; and whether it has an area (a hull
    without one has no ring: a single point stands for it)."""
    front = board.rect_table.corners.take(arcs.at[row], axis=0)[:, :2]   # (n, 2, 2)
    # the parts' vertices padded by repeating the last (a point twice changes no hull)
    part = np.stack([parts.x.take(prow, axis=1).T, parts.y.take(prow, axis=1).T], axis=-1)
    hulls = shapely.convex_hull(shapely.multipoints(np.concatenate([front, part], axis=1)))
    ring = shapely.get_exterior_ring(hulls)
    xy, owner = shapely.get_coordinates(ring, return_index=True)
    counts = np.bincount(owner, minlength=len(row)) - 1                 # less the closing point
    solid = counts > 0
    start = np.concatenate([[0], np.cumsum(counts + 1)[:-1]])
    j = np.minimum(np.arange(max(4, int(counts.max())))[:, None], counts - 1)   # (k, n)
    # a clockwise ring read backwards (its padding: its first vertex, the last read)
    take = start + np.where(shapely.is_ccw(ring), j, counts - 1 - j)
    if not solid.all():
        xy, take = np.concatenate([xy, [[0.0, 0.0]]]), np.where(solid, take, len(xy))
    return xy[take], solid


def _strip_ring(arcs: Arcs, row: np.ndarray, dist_mm: np.ndarray, k: int) -> np.ndarray:
    """The strip straight ahead of the firer's own front, as deep as the target is far (6" at
    most): its ring (counterclockwise, 4 vertices), (k, n, 2) padded by repeating the last."""
    front = arcs.front.take(row, axis=0)                # a musket's front is its own
    fl, fr = front[:, 0], front[:, 1]
    facing = arcs.facing.take(row, axis=0)
    depth = np.minimum(dist_mm, MUSKETRY_RANGE_IN * MM_PER_IN)[:, None]
    return np.stack([fr, fr + facing * depth, fl + facing * depth] + [fl] * (k - 3))


def _arc_ring(arcs: Arcs, row: np.ndarray) -> np.ndarray:
    """The whole arc cut at the range (ISD A10 "whole_arc"): its ring (left, right, far
    right, far left: counterclockwise), (4, n, 2)."""
    ring = shapely.get_coordinates(arcs.polygons(row, arcs.range_mm[row])).reshape(len(row), 5, 2)
    return ring[:, :4].transpose(1, 0, 2)
