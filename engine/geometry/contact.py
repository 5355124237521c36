"""Contact between bases, with a tolerance for tracking noise, and which edge it touches.

Two bases are in contact when the gap between them is at most ``tolerance`` mm (overlap counts:
tracked bases pushed together often overlap by a millimetre). The edge of a base that a contact
touches is the one with the longest shared segment (edge points within ``tolerance`` of the other
base); ties go to the front, then the flanks, then the rear.

>>> from campo.engine.geometry.rect import Rect
>>> a = Rect(0.0, 0.0, 90.0, 80.0, 40.0)
>>> b = Rect(0.0, 40.5, 270.0, 80.0, 40.0)     # face to face, 0.5 mm apart
>>> in_contact(a, b, 2.5), touched_edge(a, b, 2.5)
(True, 'front')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely

from campo.engine.geometry.index import BaseIndex
from campo.engine.geometry.poses import FRONT_SIGN, RIGHT_SIGN, Poses, xy
from campo.engine.geometry.rect import EDGE_NAMES, Rect
from campo.engine.geometry.zones import zone_of, zones_of

_EDGE_PRIORITY = {"front": 0, "left": 1, "right": 1, "rear": 2}
_NEXT = np.array([1, 2, 3, 0])
"""Each corner's successor around a rectangle (``np.roll(a, -1, axis=1)``, cheaper; an index
array: numpy converts a list on every use)."""


def gap(a: Rect, b: Rect) -> float:
    """Shortest distance between two bases in mm (0 when they touch or overlap)."""
    return float(shapely.distance(a.polygon, b.polygon))


def in_contact(a: Rect, b: Rect, tolerance: float) -> bool:
    """The bases touch within ``tolerance`` mm."""
    return bool(shapely.dwithin(a.polygon, b.polygon, tolerance))


def clip_length(p: tuple[float, float], q: tuple[float, float], box: Rect, grow: float) -> float:
    """Length of segment p-q inside ``box`` grown by ``grow`` on every side (Liang–Barsky)."""
    (u0, v0), (u1, v1) = box.to_local(*p), box.to_local(*q)
    du, dv = u1 - u0, v1 - v0
    hw, hd = box.width / 2 + grow, box.depth / 2 + grow
    t0, t1 = 0.0, 1.0
    for d, lo, hi, x in ((du, -hw, hw, u0), (dv, -hd, hd, v0)):
        if abs(d) < 1e-12:
            if x < lo or x > hi:
                return 0.0
            continue
        a, b = (lo - x) / d, (hi - x) / d
        if a > b:
            a, b = b, a
        t0, t1 = max(t0, a), min(t1, b)
        if t0 > t1:
            return 0.0
    return (t1 - t0) * math.hypot(q[0] - p[0], q[1] - p[1])


def shared_lengths(a: Rect, b: Rect, tolerance: float) -> dict[str, float]:
    """For each edge of ``a``, the length of it lying within ``tolerance`` of ``b`` (``b`` grown
    into a rectangle ``tolerance`` larger on every side)."""
    grow = max(tolerance, 1e-6)
    return {name: clip_length(*a.edge(name), b, grow) for name in EDGE_NAMES}


def touched_edge(a: Rect, b: Rect, tolerance: float, method: str = "longest_shared_segment",
                 partition: str = "front_halfplane") -> str:
    """Which edge of ``a`` ("front", "left", "right", "rear") ``b`` touches.

    ``longest_shared_segment``: the longest shared segment, ties (within ``tolerance``) to the
    front, then the flanks, then the rear. ``contact_midpoint``: the zone of ``a`` holding the
    middle of the contact region.
    """
    if method == "contact_midpoint":
        region = shapely.intersection(a.polygon.buffer(max(tolerance, 1e-6), quad_segs=2),
                                      b.polygon)
        c = region.centroid if not region.is_empty else b.polygon.centroid
        zone = zone_of(a, c.x, c.y, partition)
        if zone.value == "inside":
            zone = zone_of(a, b.cx, b.cy, partition)
        return {"front": "front", "rear": "rear", "left": "left", "right": "right"}.get(
            zone.value, "front")
    return edge_of_lengths(shared_lengths(a, b, tolerance), tolerance)


def edge_of_lengths(lengths: dict[str, float], tolerance: float) -> str:
    """`touched_edge` ("longest_shared_segment") from `shared_lengths` already measured."""
    best = max(lengths.values())
    tied = [name for name, length in lengths.items()
            if length > 1e-9 and length >= best - tolerance / 2] or list(EDGE_NAMES)
    return min(tied, key=lambda name: _EDGE_PRIORITY[name])


def edge_aspect(edge: str) -> str:
    """"left"/"right" -> "flank"; "front" and "rear" unchanged."""
    return "flank" if edge in ("left", "right") else edge


def shared_lengths_many(a: Sequence[Rect], b: Sequence[Rect], tolerance: float | np.ndarray
                        ) -> np.ndarray:
    """`shared_lengths` of many pairs at once: (n, 4) in EDGE_NAMES order (front, right, rear,
    left), each edge of ``a[i]`` clipped to ``b[i]`` grown by ``tolerance`` (one, or one per
    pair). The clipping is `clip_length`'s, operation for operation in numpy, and the edge
    lengths come from `math.hypot` as there, so the numbers are the same floats.

    >>> x, y = Rect(0.0, 0.0, 90.0, 80.0, 40.0), Rect(0.0, 40.5, 270.0, 80.0, 40.0)
    >>> [round(v, 6) for v in shared_lengths_many([x], [y], 2.5)[0].tolist()]
    [80.0, 2.0, 0.0, 2.0]
    >>> list(shared_lengths_many([x], [y], 2.5)[0]) == list(shared_lengths(x, y, 2.5).values())
    True
    """
    if len(a) == 0:
        return np.zeros((0, 4))
    table_a, table_b = RectTable(a), RectTable(b)
    at = np.arange(len(a))
    return table_a.shared_lengths(at, table_b, at, tolerance)


class RectTable:
    """Many rectangles as arrays (corners, edge lengths, frames): `shared_lengths` of many
    pairs picked by position, each rectangle's arrays built once however many pairs it is in."""

    def __init__(self, rects: Sequence[Rect]) -> None:
        n = len(rects)
        # one flat list of plain floats (numpy reads it much faster than nested tuples): per
        # rectangle its frame (centre x, y, right x, y, front x, y, half width, half depth),
        # then its corners: front-left, front-right, rear-right, rear-left (`Rect.corners`)
        flat = [v for r in rects for v in (
            r.cx, r.cy, *r.right, *r.front, r.width / 2, r.depth / 2,
            *r.front_left, *r.front_right, *r.rear_right, *r.rear_left)]
        table = np.array(flat, dtype=float).reshape(n, 16)
        self.frames = np.ascontiguousarray(table[:, :8])
        self.corners = np.ascontiguousarray(table[:, 8:]).reshape(n, 4, 2)

    @staticmethod
    def of_poses(poses: Poses) -> RectTable:
        """The table of rectangles already held as `Poses` (the same arithmetic as `Rect`'s,
        no Python loop over them)."""
        out = RectTable([])
        out.frames = np.column_stack([poses.cx, poses.cy, poses.right, poses.front,
                                      poses.width / 2, poses.depth / 2])
        out.corners = poses.corners
        return out

    def inset_corners(self, by: float) -> np.ndarray:
        """The corners (n, 4, 2) of each rectangle shrunk by ``by`` on every side (as
        `Rect.corners`)."""
        f = self.frames
        centre, right, front = f[:, None, 0:2], f[:, None, 2:4], f[:, None, 4:6]
        across = (f[:, 6] - by)[:, None, None] * RIGHT_SIGN * right
        ahead = (f[:, 7] - by)[:, None, None] * FRONT_SIGN * front
        return centre + across + ahead

    @cached_property
    def lengths(self) -> np.ndarray:
        """Each edge's length (n, 4), by `math.hypot` as `clip_length` measures it (the
        differences taken by numpy are the same floats as Python's)."""
        p, q = self.corners, self.corners[:, _NEXT]                         # edge i: corner i -> i+1
        d = (q - p).reshape(-1, 2)
        return np.array(list(map(math.hypot, d[:, 0].tolist(), d[:, 1].tolist()))
                        ).reshape(len(p), 4)

    def shared_lengths(self, a_at: np.ndarray, others: RectTable, b_at: np.ndarray,
                       tolerance: float | np.ndarray) -> np.ndarray:
        """`shared_lengths_many` of rectangles ``a_at`` of this table against ``b_at`` of
        ``others``."""
        return _clipped_edges(self.corners[a_at], self.lengths[a_at], others.frames[b_at],
                              tolerance)


def _clipped_edges(corners: np.ndarray, length: np.ndarray, frames: np.ndarray,
                   tolerance: float | np.ndarray) -> np.ndarray:
    """Each edge of each quad (n, 4, 2) clipped to the matching rectangle's frame grown by
    ``tolerance`` (one value, or one per row) (`clip_length`'s operations, both axes of the
    frame in one pass: the same floats)."""
    tol = np.asarray(tolerance, dtype=float)
    grow = np.maximum(tol, 1e-6)[:, None] if tol.ndim else max(float(tol), 1e-6)
    f = np.ascontiguousarray(frames.T)[:, :, None]                       # (8, n, 1)
    # every corner in its frame, both axes at once (2, n, 4): across (u) and along (v)
    # (`to_local`); edge i runs from corner i to the next
    dx, dy = corners[..., 0] - f[0], corners[..., 1] - f[1]
    x = dx * f[2:6:2] + dy * f[3:6:2]                                     # (right, front)
    d = x[..., _NEXT] - x
    hi = (frames[:, 6:] + grow).T[:, :, None]
    lo = -hi
    flat = np.abs(d) < 1e-12
    safe = np.where(flat, 1.0, d)
    ea, eb = (lo - x) / safe, (hi - x) / safe
    # the entry (exit) parameter: the latest entry (earliest exit) over the axes the edge is not
    # parallel to, within [0, 1]; an edge parallel to an axis and outside the frame on it never
    # enters
    enter = np.where(flat, np.where((x < lo) | (x > hi), np.inf, -np.inf), np.minimum(ea, eb))
    leave = np.where(flat, np.inf, np.maximum(ea, eb))
    t0 = np.maximum(0.0, np.maximum(enter[0], enter[1]))
    t1 = np.minimum(1.0, np.minimum(leave[0], leave[1]))
    return np.where(t0 > t1, 0.0, (t1 - t0) * length)


# --- many at once (array-first) ------------------------------------------------------------

# `edge_of_lengths`'s ties go front, then the flanks (right before left, EDGE_NAMES order), then
# the rear: the first tied edge in this order
_TIE_ORDER = np.array([EDGE_NAMES.index(e) for e in ("front", "right", "left", "rear")])


def frames_of(poses: Poses) -> np.ndarray:
    """(n, 8) frames of rectangles (centre, right, front, half width, half depth), the layout
    of `RectTable.frames`."""
    out = np.empty((len(poses), 8))
    out[:, 0], out[:, 1], out[:, 2:4], out[:, 4:6] = poses.cx, poses.cy, poses.right, poses.front
    out[:, 6], out[:, 7] = poses.width / 2, poses.depth / 2
    return out


def edge_shares(a: Poses, b: Poses, tolerance: float | np.ndarray) -> np.ndarray:
    """`shared_lengths` of each pair of rows: (n, 4), each edge of ``a[k]`` (EDGE_NAMES order)
    clipped to ``b[k]`` grown by ``tolerance``."""
    corners = a.corners
    d = corners[:, _NEXT] - corners
    return _clipped_edges(corners, np.hypot(d[..., 0], d[..., 1]), frames_of(b), tolerance)


def edges_of_lengths(lengths: np.ndarray, tolerance: float) -> np.ndarray:
    """`edge_of_lengths` of each row of (n, 4) shared lengths, as indices into EDGE_NAMES."""
    if not len(lengths):
        return np.zeros(0, dtype=np.int64)
    best = lengths.max(axis=1)
    tied = (lengths > 1e-9) & (lengths >= best[:, None] - tolerance / 2)
    tied[~tied.any(axis=1)] = True
    return _TIE_ORDER[np.argmax(tied[:, _TIE_ORDER], axis=1)]


@dataclass(frozen=True, eq=False)
class ContactPairs:
    """The bases touching each other, both ways round: ``a[k]`` is touched by ``b[k]`` (index
    positions, sorted by ``a`` then ``b``). ``close``: the verdict was too close to call
    (`campo.engine.boundary`); ``lengths`` (n, 4): each edge of ``a[k]`` lying along
    ``b[k]`` (`shared_lengths`); ``edge``: the edge of ``a[k]`` touched (an index into
    EDGE_NAMES)."""

    a: np.ndarray
    b: np.ndarray
    close: np.ndarray
    lengths: np.ndarray
    edge: np.ndarray

    @cached_property
    def row(self) -> dict[tuple[int, int], int]:
        """(a, b) -> its row."""
        return {(a, b): k for k, (a, b) in enumerate(zip(self.a.tolist(), self.b.tolist()))}

    def take(self, keep: np.ndarray) -> ContactPairs:
        return ContactPairs(self.a[keep], self.b[keep], self.close[keep], self.lengths[keep],
                            self.edge[keep])


def find_contacts(index: BaseIndex, poses: Poses, tolerance: float, close_call: float = 0.0,
                  watch: float = 0.0, skip: np.ndarray | None = None,
                  decide: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[list[bool],
                                                                              list[bool]]]
                  | None = None) -> ContactPairs:
    """Every pair of bases (``poses`` in the index's order) whose gap is within ``tolerance``
    mm: one STRtree query for the pairs within ``tolerance + close_call + watch``, one
    vectorised distance for their gaps (``watch``: pairs that far are decided too, so that a
    live memory of close calls learns that they are clearly apart). ``skip``: bases that touch
    nobody (generals).
    ``decide(margins, i, j)`` turns each pair's margin (``tolerance - gap``, mm) into verdicts
    and close calls (`campo.engine.boundary.decide` with the ruleset's keys); without it, a
    margin of 0 or more touches. The shared lengths are measured within the tolerance, or the
    gap when a close call is held touching beyond it."""
    shapes = index.shapes
    if len(shapes) < 2:
        return _no_contacts()
    # the pairs whose boxes come that near, each measured once (GEOS's distance within the
    # reach is its dwithin: no separate within test of every pair both ways round)
    reach = tolerance + close_call + watch
    i, j = index.candidate_pairs(reach)
    keep = i < j
    if skip is not None:
        keep &= ~skip[i] & ~skip[j]
    i, j = i[keep], j[keep]
    gaps = shapely.distance(shapes[i], shapes[j])
    near = gaps <= reach
    i, j = i[near], j[near]
    margins = tolerance - gaps[near]
    if decide is None:
        touching, close = margins >= 0, np.zeros(len(i), dtype=bool)
    else:
        verdicts, calls = decide(margins, i, j)
        touching, close = np.array(verdicts, dtype=bool), np.array(calls, dtype=bool)
    i, j, reach, close = i[touching], j[touching], tolerance - margins[touching], close[touching]
    a, b = np.concatenate([i, j]), np.concatenate([j, i])
    reach, close = np.concatenate([reach, reach]), np.concatenate([close, close])
    order = np.lexsort((b, a))
    a, b, reach, close = a[order], b[order], reach[order], close[order]
    lengths = edge_shares(poses.take(a), poses.take(b), np.maximum(reach, tolerance))
    return ContactPairs(a, b, close, lengths, edges_of_lengths(lengths, tolerance))


def _no_contacts() -> ContactPairs:
    empty = np.zeros(0, dtype=np.int64)
    return ContactPairs(empty, empty, np.zeros(0, dtype=bool), np.zeros((0, 4)), empty)


def midpoint_edges(a: Poses, a_shapes: np.ndarray, b_shapes: np.ndarray, b: Poses,
                   tolerance: float, partition: str = "front_halfplane") -> np.ndarray:
    """`touched_edge` by "contact_midpoint" for each pair of rows, as indices into EDGE_NAMES:
    the zone of ``a[k]`` holding the middle of the region where ``b[k]`` lies within
    ``tolerance`` of it (its centre when that middle is inside ``a[k]``)."""
    region = shapely.intersection(shapely.buffer(a_shapes, max(tolerance, 1e-6), quad_segs=2),
                                  b_shapes)
    centre = shapely.get_coordinates(shapely.centroid(
        np.where(shapely.is_empty(region), b_shapes, region)))
    zone = zones_of(a.cx, a.cy, a.front, a.width, a.depth, centre, partition)
    inside = zone == "inside"
    if inside.any():
        again = zones_of(a.cx, a.cy, a.front, a.width, a.depth,
                         xy(b.cx, b.cy), partition)
        zone = np.where(inside, again, zone)
    return np.array([EDGE_NAMES.index(z) if z in EDGE_NAMES else 0 for z in zone.tolist()],
                    dtype=np.int64) if len(zone) else np.zeros(0, dtype=np.int64)
