"""Where every shot stands (ISD §6, §7, A4–A6): arcs as numbers, which enemies lie in a
shooter's arc or range, how deep inside the arc, the part of each measured to and its distance.

Array-first: each function takes arrays of shooters and of (shooter, target) pairs; one shooter's
question is the same code with arrays of length one. The arc of a front (``left``, ``right``
ends, ``facing``) is where three linear functions are all >= 0 (`arc_values`): inside the left
ray, inside the right ray, ahead of the front line; the arc cut at a reach adds a fourth, short
of the reach. Targets are rectangles, so "how deep inside" is a small linear programme solved at
the corners and where the edges cross the lines of equal depth (`depth_in_arc`). Only the parts
of targets straddling an arc's edge are clipped by GEOS.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import shapely

from campo.engine.geometry.arcs import arc_vertices_many
from campo.engine.geometry.polygons import HalfPlane, centroids, clip_convex, segment_distances
from campo.engine.geometry.segments import successors
from campo.engine.rulesets.italia.board import (
    GRAZE_MM,
    WATCH_MM,
    MM_PER_IN,
    REPORT_MARGIN_IN,
    Board,
)

ARC_EPS_MM = 1e-6
"""A target within this distance of an arc is in it (an exact boundary is inside, ISD A5)."""
END_INSET_MM = 2 * GRAZE_MM
"""Sight lines start this far inside the front's ends and end this far inside the part's
corners, so that a line along a base as wide as the firer is blocked by it, not grazing it."""


@dataclass(frozen=True)
class Arcs:
    """Arcs of fire of some shooters (row k: ``shooters[k]``, index positions ``at``), as
    numbers: front ends ``left``/``right`` (both the front centre under ISD A4 "front_centre"),
    the rays' inward normals ``n_left``/``n_right``, ``facing``, half-angle (degrees), range
    and reach of the near arc (mm: 3" beyond the range), the front's true ends ``front``."""

    shooters: list[str]
    at: np.ndarray
    left: np.ndarray
    right: np.ndarray
    n_left: np.ndarray
    n_right: np.ndarray
    facing: np.ndarray
    half_deg: np.ndarray
    range_mm: np.ndarray
    reach_mm: np.ndarray
    front: np.ndarray
    gun: np.ndarray

    @staticmethod
    def of(board: Board, shooters: list[str]) -> Arcs:
        fronts = [board.front(i) for i in shooters]
        ends = np.array([(*f.left, *f.right, *f.facing) for f in fronts], dtype=float).reshape(-1, 6)
        front = ends[:, :4].reshape(-1, 2, 2)
        facing = ends[:, 4:6]
        left, right = front[:, 0].copy(), front[:, 1].copy()
        if board.settings.a4_arc_origin == "front_centre":
            left = right = (left + right) / 2
        infos = [board.infos[i] for i in shooters]
        half = np.array([i.arc_half_deg for i in infos], dtype=float)
        rng = np.array([i.fire_range_in for i in infos], dtype=float) * MM_PER_IN
        a = np.radians(half)
        c, s = np.cos(a), np.sin(a)
        fx, fy = facing[:, 0], facing[:, 1]
        dl = np.column_stack([fx * c - fy * s, fx * s + fy * c])
        dr = np.column_stack([fx * c + fy * s, -fx * s + fy * c])
        return Arcs(list(shooters), board.positions(shooters), left, right,
                    np.column_stack([dl[:, 1], -dl[:, 0]]), np.column_stack([-dr[:, 1], dr[:, 0]]),
                    facing, half, rng, rng + REPORT_MARGIN_IN * MM_PER_IN, front,
                    np.array([i.is_gun for i in infos], dtype=bool))

    @functools.cached_property
    def planes(self) -> tuple[np.ndarray, np.ndarray]:
        """The first three of `arc_values`' functions (left ray, right ray, ahead of the
        front) as (points on them, their normals), each (coordinate, function, shooter)."""
        return (np.array([self.left, self.right, self.left]).transpose(2, 0, 1),
                np.array([self.n_left, self.n_right, self.facing]).transpose(2, 0, 1))

    def polygons(self, rows: np.ndarray, reach_mm: np.ndarray) -> np.ndarray:
        """The arcs of ``rows`` cut at ``reach_mm`` as shapely polygons (for drawing and the
        whole-arc reading of a clear arc)."""
        return shapely.polygons(arc_vertices_many(self.left[rows], self.right[rows],
                                                  self.facing[rows], self.half_deg[rows],
                                                  reach_mm))


def arc_values(arcs: Arcs, rows: np.ndarray, px: np.ndarray, py: np.ndarray,
               reach_mm: np.ndarray | None) -> np.ndarray:
    """The arc's linear functions at points (``px``, ``py``: (k, m), corner-major) for arcs
    ``rows`` (m): depth inside the left ray, inside the right ray, ahead of the front, and
    (with a reach) short of the reach, (functions, k, m); a point is in the (cut) arc when all
    are >= 0."""
    o, nrm = (a.take(rows, axis=2)[:, :, None, :] for a in arcs.planes)    # (2, 3, 1, m)
    out = (px - o[0]) * nrm[0] + (py - o[1]) * nrm[1]
    if reach_mm is not None:
        out = np.concatenate([out, (reach_mm - out[2])[None]])
    return out


def depth_in_arc(values: np.ndarray) -> np.ndarray:
    """max over a convex polygon of min over linear functions, from their values at the
    polygon's corners ((functions, k, m)): how deep (mm) its deepest point lies inside the
    region they bound, or, negative, how far outside. The minimum of linear functions is
    concave, so its maximum over the polygon lies at a corner or where an edge crosses a line
    of two equal functions."""
    v = np.asarray(values)                                    # (functions, corners, m)
    best = v.min(axis=0).max(axis=0)
    if len(v) < 2:
        return best
    w = successors(v, axis=1)                                 # each corner's next
    i, j = _pairs(len(v))                                     # every pair of functions at once
    h0 = v.take(i, axis=0) - v.take(j, axis=0)
    h1 = w.take(i, axis=0) - w.take(j, axis=0)
    pair, corner, col = (h0 * h1 < 0).nonzero()               # the edges the two cross on
    if len(pair):
        a, b = h0[pair, corner, col], h1[pair, corner, col]
        t = a / (a - b)
        vc, wc = v[:, corner, col], w[:, corner, col]         # (functions, crossings)
        np.maximum.at(best, col, (vc + t * (wc - vc)).min(axis=0))
    return best


@functools.lru_cache(maxsize=16)
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """`np.triu_indices(n, 1)`, made once per n (a handful of numpy calls each time), read-only."""
    i, j = np.triu_indices(n, 1)
    i.setflags(write=False)
    j.setflags(write=False)
    return i, j


def corners_of(board: Board, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The corners of the bases at index positions ``at``, corner-major: x (4, m), y (4, m)."""
    c = board.rect_table.corners.take(at, axis=0).T                      # (2, 4, m)
    return np.ascontiguousarray(c[0]), np.ascontiguousarray(c[1])


@dataclass
class Pairs:
    """Every (shooter, enemy) pair a shooter's targets are chosen from: ``row`` the shooter's
    row of `Arcs`, ``at`` the enemy's index position; its arc depth (mm, the ISD A5 reading)
    and a lower bound of the distance from the front to its nearest point (mm; measured by
    `part_distances` for the pairs it may matter to)."""

    row: np.ndarray
    at: np.ndarray
    arc_mm: np.ndarray
    near_mm: np.ndarray


def candidate_pairs(board: Board, arcs: Arcs, enemy: np.ndarray) -> Pairs:
    """Every present enemy (``enemy`` (shooters, bases) bool) with its arc depth and a lower
    bound of its distance (the front's middle to the base's centre, less half the front and
    the base's half-diagonal), all shooters
    against all bases in numpy (a table's few hundred bases). Bases surely far out of the arc
    and beyond the range (by `WATCH_MM`: neither listed nor remembered) get a bound for their
    depth too: below -`WATCH_MM`."""
    row, at = enemy.nonzero()
    frames = board.rect_table.frames
    mode = board.settings.a5_in_arc_test
    if mode == "centre":
        centre = frames.take(at, axis=0)[:, :2]
        values = arc_values(arcs, row, centre[None, :, 0], centre[None, :, 1], None)
        depth = np.minimum.reduce(values)[0]
        maybe_in = depth >= -WATCH_MM
    else:
        values = arc_values(arcs, row, *corners_of(board, at), None)
        # no point of the base lies deeper than its corners' least deepest function
        depth = values.max(axis=1).min(axis=0)
        maybe_in = depth >= -WATCH_MM
    front = arcs.front                                                 # each shooter's, once
    mid = ((front[:, 0] + front[:, 1]) / 2).take(row, axis=0)
    half = (np.sqrt(((front[:, 1] - front[:, 0]) ** 2).sum(axis=1)) / 2).take(row)
    target = frames.take(at, axis=0)
    d = target[:, :2] - mid
    radius = np.sqrt(target[:, 6] ** 2 + target[:, 7] ** 2)          # half width, half depth
    near = np.sqrt(d[:, 0] ** 2 + d[:, 1] ** 2) - half - radius
    need = (maybe_in | (near <= arcs.range_mm[row] + WATCH_MM)).nonzero()[0]
    if mode == "whole_base":
        depth[need] = values.take(need, axis=2).min(axis=0).min(axis=0)
    elif mode != "centre":
        depth[need] = depth_in_arc(values.take(need, axis=2))
    return Pairs(row, at, depth, near)


@dataclass
class Parts:
    """The part of each listed target measured to and aimed at (ISD A6), corner-major
    (`engine.geometry.polygons`): ``x``, ``y`` (k, m), ``count`` vertices each (a target
    not cut by its arc: its own rectangle)."""

    x: np.ndarray
    y: np.ndarray
    count: np.ndarray


def parts_in_arc(board: Board, arcs: Arcs, row: np.ndarray, at: np.ndarray, in_arc: np.ndarray
                 ) -> Parts:
    """ISD A6: the part of each target inside the arc cut 3" beyond the range, or inside the
    whole arc when it lies wholly beyond that (a target out of the arc: all of it). A target
    wholly inside is its own part; the others are clipped (`polygons.clip_convex`)."""
    n = len(row)
    x, y = corners_of(board, at)
    count = np.full(n, 4)
    ask = in_arc.nonzero()[0]
    if board.settings.a6_range_measure != "front_edge_to_part_in_arc" or not len(ask):
        return Parts(x, y, count)
    near = arc_values(arcs, row[ask], x[:, ask], y[:, ask], arcs.reach_mm[row[ask]])
    may = near.min(axis=1) < ARC_EPS_MM                                 # (4, targets)
    # the near arc when the target meets it, else the whole arc: asked only of targets the
    # reach's line may cross (one wholly short of it is not cut by it either way; one beyond
    # it by more than rounding meets only the whole arc)
    meets_near = np.zeros(len(ask), dtype=bool)
    cross = (may[3] & (near[3].max(axis=0) >= -2 * ARC_EPS_MM)).nonzero()[0]
    if len(cross):
        meets_near[cross] = depth_in_arc(near.take(cross, axis=2)) >= -ARC_EPS_MM
    # the half-planes that may cut each target; a target none may cut lies inside
    may[3] &= meets_near
    inside = ~may.any(axis=0)
    cut = ask[~inside]
    if not len(cut):
        return Parts(x, y, count)
    may = may[:, ~inside]
    reach = np.where(meets_near[~inside], arcs.reach_mm[row[cut]], np.inf)
    cx, cy, cn = _clip(arcs, row[cut], x[:, cut], y[:, cut], reach, 0.0, may)
    empty = (cn == 0).nonzero()[0]
    if len(empty):   # within 1e-6 mm of the arc, but not touching in floating point
        ex, ey, en = _clip(arcs, row[cut[empty]], x[:, cut[empty]], y[:, cut[empty]],
                           reach[empty], 1e-5, may[:, empty])
        keep = en > 0
        width = max(cx.shape[0], ex.shape[0])
        cx, cy, ex, ey = (_pad(a, width) for a in (cx, cy, ex, ey))
        cx[:, empty[keep]], cy[:, empty[keep]], cn[empty[keep]] = \
            ex[:, keep], ey[:, keep], en[keep]
    got = (cn > 0).nonzero()[0]           # the rest: measured to all of it
    width = max(4, cx.shape[0])
    x, y, cx, cy = (_pad(a, width) for a in (x, y, cx, cy))
    x[:, cut[got]], y[:, cut[got]] = cx[:, got], cy[:, got]
    count[cut[got]] = cn[got]
    return Parts(x, y, count)


def _clip(arcs: Arcs, rows: np.ndarray, x: np.ndarray, y: np.ndarray, reach: np.ndarray,
          slack: float, may: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Quads cut to their arcs (``rows``), out to ``reach`` (inf: the whole arc), the arc's
    half-planes widened by ``slack`` mm. ``may`` (4, m): the half-planes (left ray, right
    ray, ahead of the front, short of the reach) that may cut each quad; the others hold its
    every corner by more than `ARC_EPS_MM`, so its cut points too (to rounding), and cut
    nothing. The quads are cut in rounds, each by its next half-plane that may cut it, in that
    order: the same cuts in the same order as by the four half-planes one after the other."""
    m = len(rows)
    cols = np.arange(m)
    left, right, facing = (a.take(rows, axis=0) for a in (arcs.left, arcs.right, arcs.facing))
    zero = np.zeros((m, 2))
    # the four half-planes and a fifth cutting nothing (1 everywhere), each (base + sign *
    # depth from origin along normal) + slack: 0 + 1 * d is d and far + -1 * d is far - d,
    # exactly, so every value is `arc_values`' own
    origin = np.stack([left, right, left, left, zero])
    normal = np.stack([arcs.n_left.take(rows, axis=0), arcs.n_right.take(rows, axis=0),
                       facing, facing, zero])
    base = np.stack([zero[:, 0], zero[:, 0], zero[:, 0], reach, zero[:, 0] + 1.0])
    sign = np.array([1.0, 1.0, 1.0, -1.0, 1.0])
    nth = np.argsort(~may, axis=0, kind="stable")        # each quad's half-planes that may cut
    planes = []
    for r in range(int(may.sum(axis=0).max())):
        p = np.where(may[nth[r], cols], nth[r], 4)
        planes.append(_plane(origin[p, cols], normal[p, cols], base[p, cols], sign[p], slack))
    return clip_convex(x, y, np.full(m, x.shape[0]), planes)


def _plane(o: np.ndarray, nrm: np.ndarray, base: np.ndarray, sign: np.ndarray,
           slack: float) -> HalfPlane:
    """The half-plane where (base + sign * depth from ``o`` along ``nrm``) + slack >= 0, one
    per polygon (base 0, sign 1: ahead of the line; base far, sign -1: short of far; no
    normal, base 1: everywhere)."""
    def f(px: np.ndarray, py: np.ndarray) -> np.ndarray:
        return (base + sign * ((px - o[:, 0]) * nrm[:, 0] + (py - o[:, 1]) * nrm[:, 1])) + slack
    return f


def _pad(a: np.ndarray, width: np.ndarray | int) -> np.ndarray:
    """Corner-major vertices padded to ``width`` rows by repeating the last."""
    if a.shape[0] >= width:
        return a.copy()
    return np.concatenate([a, np.repeat(a[-1:], width - a.shape[0], axis=0)])


def part_distances(board: Board, arcs: Arcs, row: np.ndarray, at: np.ndarray, parts: Parts
                   ) -> np.ndarray:
    """ISD A6 range (mm): front edge to the part (to the whole target: its nearest point), or
    centre to centre."""
    if board.settings.a6_range_measure == "centre_to_centre":
        table = board.rect_table.frames
        d = table[at, :2] - table[arcs.at[row], :2]
        return np.sqrt(d[:, 0] ** 2 + d[:, 1] ** 2)
    return segment_distances(parts.x, parts.y, parts.count, arcs.front[row, 0],
                             arcs.front[row, 1])


def sight_ends(parts: Parts, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where sight lines end, for the parts of ``rows``: (points (p, 2), the row each belongs
    to, grouped in order): each part's middle first, then its corners moved `END_INSET_MM`
    toward the middle (ISD A14)."""
    x, y, count = parts.x.take(rows, axis=1), parts.y.take(rows, axis=1), parts.count[rows]
    cx, cy = centroids(x, y, count)
    dx, dy = cx - x, cy - y                             # (k, n): each vertex to its middle
    d = np.sqrt(dx ** 2 + dy ** 2)
    k = np.minimum(1.0, np.divide(END_INSET_MM, d, out=np.zeros(d.shape), where=d > 0))
    # part by part: its middle, then its vertices (the real ones) moved in
    px = np.concatenate([cx[None], x + dx * k]).T
    py = np.concatenate([cy[None], y + dy * k]).T
    real = np.arange(px.shape[1])[None, :] <= count[:, None]
    return np.column_stack([px[real], py[real]]), np.repeat(np.arange(len(rows)), count + 1)


def sight_origins(board: Board, shooters: list[str]) -> np.ndarray:
    """Where each shooter's sight lines start (ISD A14), (n, 3, 2): the middle of its front and
    both ends set in by `END_INSET_MM`, so that a line exactly along the side of a base as
    wide as the firer is blocked by it rather than grazing it."""
    table = board.rect_table
    at = board.positions(shooters)
    corners = table.corners.take(at, axis=0)
    fl, fr = corners[:, 0], corners[:, 1]
    width = np.hypot(*(fr - fl).T)
    along = (fr - fl) / np.where(width > 0, width, 1.0)[:, None]
    inset = np.minimum(END_INSET_MM, width / 2)[:, None]
    return np.stack([(fl + fr) / 2, fl + along * inset, fr - along * inset], axis=1)
