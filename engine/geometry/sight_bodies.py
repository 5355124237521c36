"""Which sight lines bodies (bases) block, for many lines at once: a sweep of directions per
origin.

Lines are grouped by where they start (a firer has a few sight origins). Seen from an origin, a
convex body covers an interval of directions. A line whose direction lies strictly inside that
interval and which ends beyond the body's farthest corner certainly crosses it; for every line
the nearest such body comes from one range minimum over the lines sorted by direction
(`range_min`): a handful of numpy passes however many lines and bodies there are. Only the lines
that this cannot settle (a line ending inside a body's depth, grazing its side, or whose certain
blocker does not count for it) are tested exactly (`segments.segments_near_quads`, or GEOS for a
body that is not a quadrilateral), each against the bodies whose interval, widened by the
line's corridor, holds it and that lie nearer than its end.

>>> import numpy as np, shapely
>>> body = shapely.box(40, -10, 60, 10)
>>> bodies = Bodies.of(np.array([body]))
>>> xy = np.array([[[0, 0], [100, 0]], [[0, 0], [100, 40]], [[0, 0], [50, 0]]], dtype=float)
>>> [v.tolist() for v in blocked(xy, np.zeros(3), bodies, Rules())]
[[0, -1, 0], [True, False, True]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely

from campo.engine.geometry.segments import point_segment_distance, segments_near_quads, successors

FAR_MARGIN_MM = 1.0
"""A line certainly crosses a body whose interval of directions strictly holds it only if it
ends this much beyond the body's farthest corner: a target's own body (never counted) holds the
line's end, so it can never pass as a certain blocker."""
ANGLE_EPS = 1e-9
"""Radians an interval of directions is narrowed by (certain) or widened by (candidates)."""
FEW_PAIRS = 20_000
"""Up to this many (line, body) pairs every body near a line is tested exactly; beyond, the
sweep picks the candidates (and settles most lines without an exact test)."""
WRAP = np.pi + 0.25
"""Where an interval of directions is cut (radians): beyond half a turn, short of the next
origin's keys (each origin's lines are keyed ``origin * 8 + direction + pi``)."""
CONVEX_AREA_REL = 1e-9
"""A body whose convex hull exceeds its area by at most this fraction of it is convex (a dent
that small moves no sight line by a measurable amount)."""
GROW_EPS_MM = 1e-6
"""How much nearer than a line's end a body's nearest point may be and still be a candidate."""


@dataclass(frozen=True)
class Keyed:
    """A per-line lookup ``table[rows[line], body]`` (rows -1: nothing marked for that line):
    the bodies a line's question leaves out, keyed by its firer, its target ..."""

    rows: np.ndarray
    table: np.ndarray

    @cached_property
    def _padded(self) -> np.ndarray:
        """``table`` (as bool) and after its last row one marking nothing: row -1 reads it."""
        table = np.asarray(self.table, dtype=bool)
        return np.concatenate([table, np.zeros((1, table.shape[1]), dtype=bool)])

    def at(self, lines: np.ndarray, columns: np.ndarray) -> np.ndarray:
        return self._padded[self.rows[lines], columns]


@dataclass(frozen=True)
class Rules:
    """What bodies do to each line: ``never`` (rules: body never blocks that line: its firer,
    its target, bodies fired over), ``thin`` (the body blocks only the line itself, not its
    corridor), ``off`` (no body blocks the line at all), ``width`` the corridor's half-width."""

    never: Sequence[Keyed] = ()
    thin: Sequence[Keyed] = ()
    off: np.ndarray | None = None

    @staticmethod
    def marked(tables: Sequence[Keyed], lines: np.ndarray, bodies: np.ndarray) -> np.ndarray:
        """Whether any of ``tables`` (`never`, `thin`) marks each line's body."""
        if not tables:
            return np.zeros(len(lines), dtype=bool)
        out = tables[0].at(lines, bodies)
        for k in tables[1:]:
            out |= k.at(lines, bodies)
        return out


@dataclass
class Bodies:
    """The blocking bodies as arrays: every polygon's vertices (padded by repeating the last;
    ``vx``, ``vy`` the same corner-major (k, n): numpy reduces a short leading axis fastest)
    and how many it has, its centre and the radius of a circle about it holding it, whether
    it is convex, and, when every body is a convex quadrilateral, the corners (n, 4, 2) for
    the numpy exact test. ``geoms``, the polygons GEOS tests, is None when the bodies came as
    convex quadrilaterals' corners: no GEOS test asks for them."""

    geoms: np.ndarray | None
    verts: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    sides: np.ndarray
    centre: np.ndarray
    radius: np.ndarray
    convex: np.ndarray

    @cached_property
    def quads(self) -> np.ndarray | None:
        """The corners (n, 4, 2) when every body is a convex quadrilateral, else None."""
        if (self.sides == 4).all() and self.convex.all():
            return self.verts[:, :4]
        return None

    @staticmethod
    def of(geoms: np.ndarray | None, corners: np.ndarray | None = None) -> Bodies:
        """Polygons' arrays; ``corners`` (n, k, 2): their rings' vertices, when known (no GEOS;
        ``geoms`` None: the polygons are made from them only if some body is not a convex
        quadrilateral)."""
        n = len(geoms) if geoms is not None else len(corners)
        if not n:
            z = np.zeros(0)
            return Bodies(geoms, np.zeros((0, 1, 2)), np.zeros((1, 0)), np.zeros((1, 0)),
                          z.astype(np.int64), np.zeros((0, 2)), z, z.astype(bool))
        if corners is not None:
            verts, width = corners, corners.shape[1]
            counts, solid = np.full(n, width), np.ones(n, dtype=bool)
        else:
            rings = shapely.get_exterior_ring(geoms)
            xy, owner = shapely.get_coordinates(rings, return_index=True)
            counts = np.bincount(owner, minlength=n) - 1            # less the closing vertex
            width = int(counts.max())
            first = np.concatenate([[0], np.cumsum(counts + 1)[:-1]])
            rank = np.minimum(np.arange(width)[None, :], counts[:, None] - 1)
            verts = xy[first[:, None] + rank]                        # padded with the last one
            solid = shapely.get_num_interior_rings(geoms) == 0
        plane = np.ascontiguousarray(verts.transpose(2, 1, 0))    # (2, k, n): x then y
        vx, vy = plane[0], plane[1]
        if corners is not None:
            centre = plane.sum(axis=1) / width                     # the vertices' mean
        else:
            real = np.arange(width)[:, None] < counts
            centre = (plane * real).sum(axis=1) / counts
        d = plane - centre[:, None]
        radius = np.sqrt((d * d).sum(axis=0)).max(axis=0)
        # convex: a quadrilateral turning the same way at every corner (a base), else no hole
        # and no area missing from the hull (areas, not `shapely.equals`, a relate per body; a
        # dent below CONVEX_AREA_REL of the area counts as none)
        if corners is not None:       # (every body a solid quadrilateral, or none)
            quad = np.arange(n if width == 4 else 0)
        else:
            quad = ((counts == 4) & solid).nonzero()[0]
        convex = np.zeros(n, dtype=bool)
        if len(quad):
            q = plane[:, :4] if len(quad) == n else plane[:, :4, quad]
            edge = successors(q, axis=1) - q                    # each edge, then the next
            after = successors(edge, axis=1)
            turn = edge[0] * after[1] - edge[1] * after[0]
            convex[quad] = (turn > 0).all(axis=0) | (turn < 0).all(axis=0)
        rest = (~convex).nonzero()[0]
        if geoms is None and (len(rest) or width != 4):
            geoms = shapely.polygons(corners)
        if len(rest):
            area = shapely.area(geoms[rest])
            convex[rest] = solid[rest] & \
                (shapely.area(shapely.convex_hull(geoms[rest])) - area <= CONVEX_AREA_REL * area)
        return Bodies(geoms, verts, vx, vy, counts, np.ascontiguousarray(centre.T), radius, convex)


def suspects(xy: np.ndarray, width: np.ndarray, bodies: Bodies, rules: Rules,
             live: np.ndarray, origin: np.ndarray | None = None, rivals: bool = False
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the sweep of directions settles for the lines ``live`` (indices into ``xy``, (n,
    2, 2): start, end): per live line the body that certainly crosses it (-1: not sure; never a
    body `Rules.never` leaves out), and the (live position, body) pairs to test exactly for the
    others: every body that may come within the line's corridor (``width``) of it. A rulebook
    with its own exact test (and tolerance) asks this and judges the pairs itself; `blocked`
    judges them with `reaches`. With ``rivals``, the pairs of a line with a certain body also
    hold the bodies whose centre lies nearer the line's start than that body's (one of them
    may cross the line too, and `blocked` names the nearest, however many lines are asked)."""
    sure_body = np.full(len(live), -1, dtype=np.int64)
    if not len(live) or not len(bodies.verts):
        empty = np.zeros(0, dtype=np.int64)
        return sure_body, empty, empty
    if len(live) * len(bodies.verts) <= FEW_PAIRS:
        # a few lines: every body whose box, grown by the corridor, meets a line's box
        seg = xy.take(live, axis=0)
        lo, hi = np.minimum(seg[:, 0], seg[:, 1]), np.maximum(seg[:, 0], seg[:, 1])
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        grow = width[live][:, None] + bodies.radius[None, :]
        c = bodies.centre
        line, cand = ((np.abs(c[None, :, 0] - mid[:, None, 0]) <= half[:, None, 0] + grow)
                      & (np.abs(c[None, :, 1] - mid[:, None, 1]) <= half[:, None, 1] + grow)
                      ).nonzero()
    else:
        sweep = _Sweep(xy[live], width[live], bodies, None if origin is None else origin[live])
        # certain: the nearest body strictly holding the line's direction, ending before
        # its end
        far, body = sweep.nearest_certain()
        sure = (body >= 0) & (far + FAR_MARGIN_MM < sweep.length)
        sure[sure] = ~rules.marked(rules.never, live[sure], body[sure])
        sure_body[sure] = body[sure]
        if not rivals:
            line, cand = sweep.candidates((~sure).nonzero()[0])
        else:
            nearer = np.full(len(live), np.inf)
            nearer[sure] = np.sqrt(_centre_d2(bodies, sure_body[sure], xy[live[sure], 0]))
            line, cand = sweep.candidates(np.arange(len(live)), nearer)
            keep = cand != sure_body[line]
            line, cand = line[keep], cand[keep]
    keep = ~rules.marked(rules.never, live[line], cand)
    return sure_body, line[keep], cand[keep]


def blocked(xy: np.ndarray, width: np.ndarray, bodies: Bodies, rules: Rules,
            todo: np.ndarray | None = None, origin: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray]:
    """Per line (``xy`` (n, 2, 2): start, end), the body that blocks it (index into
    ``bodies``, -1 when none does) and whether the line crosses it (else the body only lies
    within its corridor); only the lines ``todo`` are looked at (default: all). ``origin``
    numbers the lines' starting points when the caller knows them (lines starting at one point
    share a number; default: found from ``xy``). A body blocks
    a line that crosses it, or comes within the line's corridor (``width``) of it unless the
    body is `Rules.thin` for that line."""
    n = len(xy)
    out = np.full(n, -1, dtype=np.int64)
    crossed = np.zeros(n, dtype=bool)
    live = np.arange(n) if todo is None else np.asarray(todo, dtype=np.int64)
    if rules.off is not None:
        live = live[~rules.off[live]]
    sure_body, line, cand = suspects(xy, width, bodies, rules, live, origin, rivals=True)
    # the rest, exactly, against the bodies that could block them
    reach = width[live[line]]
    thin = rules.marked(rules.thin, live[line], cand) & (reach > 0)
    reach = np.where(thin, 0.0, reach)
    # (a body whose circle about its centre lies beyond the corridor cannot reach the line)
    seg = xy.take(live[line], axis=0)          # (`take`: numpy's fancy indexing of rows is slow)
    c = bodies.centre.take(cand, axis=0)
    near = point_segment_distance(c[:, 0], c[:, 1], seg[:, 0, 0], seg[:, 0, 1], seg[:, 1, 0],
                                  seg[:, 1, 1]) <= bodies.radius[cand] + reach + GROW_EPS_MM
    line, cand, reach = line[near], cand[near], reach[near]
    hit, cross = reaches(xy.take(live[line], axis=0), cand, reach, bodies)
    line, cand, cross = line[hit], cand[hit], cross[hit]
    # with the bodies certain to cross (`suspects`), the blocker named: a body the line
    # crosses before one only near it, the nearest by centre
    sure = (sure_body >= 0).nonzero()[0]
    if len(sure):            # (none when few lines are asked: every pair is tested exactly)
        line = np.concatenate([line, sure])
        cand = np.concatenate([cand, sure_body[sure]])
        cross = np.concatenate([cross, np.ones(len(sure), dtype=bool)])
    if len(line):
        order = np.lexsort((_centre_d2(bodies, cand, xy[:, 0].take(live[line], axis=0)), ~cross,
                            line))
        line, cand, cross = line[order], cand[order], cross[order]
        first = np.concatenate([[True], line[1:] != line[:-1]])
        out[live[line[first]]] = cand[first]
        crossed[live[line[first]]] = cross[first]
    return out, crossed


def _centre_d2(bodies: Bodies, body: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Squared distance of each body's centre from its point: the blocker named is the
    nearest."""
    d = bodies.centre.take(body, axis=0) - point
    return d[:, 0] ** 2 + d[:, 1] ** 2


def surely_crosses(starts: np.ndarray, body: np.ndarray, bodies: Bodies, ends: np.ndarray,
                   group: np.ndarray) -> np.ndarray:
    """Whether each line, from ``starts[group[i]]`` to ``ends[i]``, surely crosses the convex
    body ``body[group[i]]`` (index into ``bodies``, -1: none): its direction lies strictly
    inside the directions the body covers seen from its start, and it ends beyond the body's
    farthest corner (by `FAR_MARGIN_MM`). False means "not sure". A group's interval of
    directions is worked out once for all its lines."""
    ok = body >= 0
    which = np.where(ok, body, 0)
    ok &= bodies.convex[which]
    ox, oy = starts[:, 0], starts[:, 1]
    rx, ry = bodies.vx.take(which, axis=1) - ox, bodies.vy.take(which, axis=1) - oy  # (k, groups)
    cx, cy = bodies.centre[:, 0].take(which) - ox, bodies.centre[:, 1].take(which) - oy
    offset = np.arctan2(cx * ry - cy * rx, cx * rx + cy * ry)
    base = np.arctan2(cy, cx)
    lo, hi = base + offset.min(axis=0) + ANGLE_EPS, base + offset.max(axis=0) - ANGLE_EPS
    far = np.sqrt(rx * rx + ry * ry).max(axis=0) + FAR_MARGIN_MM
    ok &= (hi > lo) & ~_holds(rx, ry)
    g = group
    vx, vy = ends[:, 0] - ox[g], ends[:, 1] - oy[g]
    lo_x, lo_y, hi_x, hi_y = np.cos(lo)[g], np.sin(lo)[g], np.cos(hi)[g], np.sin(hi)[g]
    return (ok[g] & (lo_x * vy - lo_y * vx > 0) & (vx * hi_y - vy * hi_x > 0)
            & (vx * vx + vy * vy > (far * far)[g]))


def reaches(xy: np.ndarray, cand: np.ndarray, reach: np.ndarray, bodies: Bodies
            ) -> tuple[np.ndarray, np.ndarray]:
    """Whether each line comes within ``reach`` of its candidate body, and whether it meets
    (crosses or touches) it: numpy for quadrilaterals, GEOS otherwise."""
    if not len(cand):
        return np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
    if bodies.quads is not None:
        return segments_near_quads(xy, bodies.vx.take(cand, axis=1), bodies.vy.take(cand, axis=1),
                                   reach)
    lines = shapely.linestrings(xy)
    near = shapely.dwithin(lines, bodies.geoms[cand], reach)
    meet = near.copy()
    wide = (near & (reach > 0)).nonzero()[0]
    meet[wide] = shapely.dwithin(lines[wide], bodies.geoms[cand[wide]], 0.0)
    return near, meet


class _Sweep:
    """The lines grouped by origin and sorted by direction, and every (origin, body) pair
    that can matter: the body lies within reach of the origin's longest line, and within the
    directions of its lines."""

    def __init__(self, xy: np.ndarray, width: np.ndarray, bodies: Bodies,
                 origin: np.ndarray | None) -> None:
        self.p0, p1 = xy[:, 0], xy[:, 1]
        self.bodies = bodies
        if origin is None:   # lines starting at the same point share an origin
            _, origin = np.unique(self.p0[:, 0] + 1j * self.p0[:, 1], return_inverse=True)
        # number the origins 0..n-1 (small numbers: a table lookup, no sort)
        origin = np.asarray(origin, dtype=np.int64).reshape(-1)
        present = np.zeros(int(origin.max()) + 1, dtype=bool)
        present[origin] = True
        number = np.cumsum(present) - 1
        self.origin = number[origin]
        n_o = int(present.sum())
        self.origins = np.empty((n_o, 2))
        self.origins[self.origin] = self.p0         # every line of an origin starts there
        vx, vy = p1[:, 0] - self.p0[:, 0], p1[:, 1] - self.p0[:, 1]
        self.length = np.sqrt(vx * vx + vy * vy)
        # each origin's reference direction: the mean of its lines' (0: any)
        inv = 1.0 / np.where(self.length > 0, self.length, 1.0)
        rx = np.bincount(self.origin, vx * inv, n_o)
        ry = np.bincount(self.origin, vy * inv, n_o)
        norm = np.sqrt(rx * rx + ry * ry)
        flat = norm <= 1e-9
        norm = np.where(flat, 1.0, norm)
        rx, ry = np.where(flat, 1.0, rx / norm), np.where(flat, 0.0, ry / norm)
        ax, ay = rx[self.origin], ry[self.origin]
        phi = np.arctan2(ax * vy - ay * vx, ax * vx + ay * vy)
        key = self.origin * 8.0 + phi + np.pi
        self.order = np.argsort(key)
        self.key = key[self.order]
        # per origin (its lines are one run of the sorted order): farthest end, widest
        # corridor, first and last direction
        starts = np.searchsorted(self.key, np.arange(n_o) * 8.0)
        reach = np.maximum.reduceat(self.length[self.order], starts)
        grow = np.maximum.reduceat(width[self.order], starts)
        self.grow = grow
        lo = self.key[starts] - np.arange(n_o) * 8.0 - np.pi
        hi = self.key[np.r_[starts[1:], len(self.key)] - 1] - np.arange(n_o) * 8.0 - np.pi
        # (origin, body) pairs whose body's bounding circle (grown by the corridor) comes
        # within reach of the origin (squared distances) ...
        cx = bodies.centre[:, 0][None, :] - self.origins[:, 0][:, None]       # (origins, bodies)
        cy = bodies.centre[:, 1][None, :] - self.origins[:, 1][:, None]
        bound = bodies.radius[None, :] + grow[:, None]
        limit = reach[:, None] + GROW_EPS_MM + bound
        o, b = (cx * cx + cy * cy <= limit * limit).nonzero()
        cx, cy, bound = cx[o, b], cy[o, b], bound[o, b]
        d_ob = np.sqrt(cx * cx + cy * cy)
        gap = d_ob - bound
        # ... and within the directions of its lines: the angle between the centre and the
        # middle of those directions at most their half spread plus the circle's half width,
        # compared by cosines (no angle computed)
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        mx = rx * np.cos(mid) - ry * np.sin(mid)
        my = rx * np.sin(mid) + ry * np.cos(mid)
        with np.errstate(invalid="ignore", divide="ignore"):
            sin_a = np.minimum(1.0, bound / d_ob)
        cos_a = np.sqrt(1.0 - sin_a * sin_a)
        spread = half[o] + 1e-6
        cos_limit = np.cos(spread) * cos_a - np.sin(spread) * sin_a
        seen = (gap <= 0) | (spread >= np.pi / 2) | \
            ((cx * mx[o] + cy * my[o]) >= cos_limit * d_ob)
        self.o, self.b = o, b = o[seen], b[seen]
        cx, cy, d_ob = cx[seen], cy[seen], d_ob[seen]
        self.centre_d = d_ob
        self.near = gap[seen]
        psi = np.arctan2(rx[o] * cy - ry[o] * cx, rx[o] * cx + ry[o] * cy)
        rx = bodies.vx[:, b] - self.origins[o, 0]                          # (k, p)
        ry = bodies.vy[:, b] - self.origins[o, 1]
        self.corner_dist = np.sqrt(rx * rx + ry * ry)
        self.far = self.corner_dist.max(axis=0)
        d_ob = np.where(d_ob > 0, d_ob, 1.0)
        cx, cy = cx / d_ob, cy / d_ob
        # each corner's direction relative to the body centre's (a convex body not holding the
        # origin lies within half a turn of it), and the centre's relative to the reference
        self.offset = np.arctan2(cx * ry - cy * rx, cx * rx + cy * ry)
        self.centre_dir = psi
        self.inside = np.zeros(len(o), dtype=bool)
        close = (self.near <= 0).nonzero()[0]          # only a body this near can hold it
        self.inside[close] = _holds(rx[:, close], ry[:, close])

    def _positions(self, lo: np.ndarray, hi: np.ndarray, pair: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sorted-line ranges [start, stop) of the directions strictly inside (lo, hi) about
        each pair's centre direction, wrapped into one turn: (pair, start, stop), an interval
        crossing the half turn split in two."""
        lo = lo + self.centre_dir[pair]
        hi = hi + self.centre_dir[pair]
        full = hi - lo >= 2 * np.pi
        over = (~full & (hi > np.pi)).nonzero()[0]
        under = (~full & (lo < -np.pi)).nonzero()[0]
        pair = np.concatenate([pair, pair[over], pair[under]])
        lo = np.concatenate([np.where(full, -WRAP, lo), lo[over] - 2 * np.pi, lo[under] + 2 * np.pi])
        hi = np.concatenate([np.where(full, WRAP, hi), hi[over] - 2 * np.pi, hi[under] + 2 * np.pi])
        # each origin's keys span one turn; an interval reaching past the half turn stops a
        # little beyond it (a line pointing exactly backwards belongs to both of its pieces)
        lo, hi = np.clip(lo, -WRAP, WRAP), np.clip(hi, -WRAP, WRAP)
        base = self.o[pair] * 8.0 + np.pi
        start = np.searchsorted(self.key, base + lo, side="right")
        stop = np.searchsorted(self.key, base + hi, side="left")
        ok = stop > start
        return pair[ok], start[ok], stop[ok]

    def nearest_certain(self) -> tuple[np.ndarray, np.ndarray]:
        """Per line: the least far-corner distance of the convex bodies whose interval of
        directions strictly holds it (a body holding the origin holds every direction), and
        that body (-1: none)."""
        conv = self.bodies.convex[self.b].nonzero()[0]
        offset = self.offset[:, conv]
        lo = np.where(self.inside[conv], -4 * np.pi, offset.min(axis=0) + ANGLE_EPS)
        hi = np.where(self.inside[conv], 4 * np.pi, offset.max(axis=0) - ANGLE_EPS)
        pair, start, stop = self._positions(lo, hi, conv)
        far = np.where(self.inside[pair], -np.inf, self.far[pair])
        value, who = range_min(len(self.key), start, stop, far, pair)
        out_far = np.full(len(self.key), np.inf)
        out_body = np.full(len(self.key), -1, dtype=np.int64)
        out_far[self.order] = value
        found = who >= 0
        out_body[self.order[found]] = self.b[who[found]]
        return out_far, out_body

    def candidates(self, lines: np.ndarray, nearer: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
        """(line, body) pairs to test exactly for ``lines``: the body's interval of directions,
        widened by the origin's corridor, holds the line, and the body lies nearer than its
        end (plus the corridor); with ``nearer`` (per line of the sweep), only the bodies whose
        centre lies nearer the line's start than that."""
        grow = self.grow[self.o]
        with np.errstate(invalid="ignore"):
            widen = np.arcsin(np.minimum(1.0, grow / np.maximum(self.corner_dist, 1e-300)))
        # within the corridor of the origin (or not convex): every direction
        close = (self.near <= 0) | self.inside | ~self.bodies.convex[self.b]
        lo = np.where(close, -4 * np.pi, (self.offset - widen).min(axis=0) - ANGLE_EPS)
        hi = np.where(close, 4 * np.pi, (self.offset + widen).max(axis=0) + ANGLE_EPS)
        pair, start, stop = self._positions(lo, hi, np.arange(len(self.o)))
        # count only the asked lines in each range of sorted positions
        asked = np.zeros(len(self.key), dtype=bool)
        rank = np.empty(len(self.key), dtype=np.int64)
        rank[self.order] = np.arange(len(self.key))
        asked[rank[lines]] = True
        before = np.concatenate([[0], np.cumsum(asked)])
        first, count = before[start], before[stop] - before[start]
        total = int(count.sum())
        if not total:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        which = np.repeat(np.arange(len(pair)), count)
        step = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
        sorted_asked = asked.nonzero()[0]
        line = self.order[sorted_asked[first[which] + step]]
        pair = pair[which]
        keep = self.near[pair] <= self.length[line] + GROW_EPS_MM
        if nearer is not None:
            keep &= self.centre_d[pair] < nearer[line]
        return line[keep], self.b[pair[keep]]


def _holds(rx: np.ndarray, ry: np.ndarray) -> np.ndarray:
    """Whether each convex polygon, its corners (k, m) relative to a point, holds (or touches)
    the point."""
    nx, ny = successors(rx), successors(ry)
    cross = (nx - rx) * (-ry) - (ny - ry) * (-rx)
    return (cross >= 0).all(axis=0) | (cross <= 0).all(axis=0)


def range_min(n: int, start: np.ndarray, stop: np.ndarray, value: np.ndarray,
              ident: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each position 0..n-1, the least ``value`` of the ranges [start, stop) holding it,
    and that range's ``ident`` (inf and -1 where no range holds it).

    Each range is laid on two overlapping blocks of a power-of-two length (a sparse table);
    the blocks are pushed down level by level to single positions, one level in memory.

    >>> v, i = range_min(6, np.array([0, 2]), np.array([4, 6]), np.array([5.0, 3.0]),
    ...                  np.array([10, 20]))
    >>> v.tolist(), i.tolist()
    ([5.0, 5.0, 3.0, 3.0, 3.0, 3.0], [10, 10, 20, 20, 20, 20])
    """
    ok = stop > start
    start, stop, value, ident = start[ok], stop[ok], value[ok], ident[ok]
    cur_v, cur_i = np.full(n, np.inf), np.full(n, -1, dtype=np.int64)
    if not len(start):
        return cur_v, cur_i
    level = np.frexp((stop - start).astype(float))[1] - 1          # floor(log2(length))
    span = np.left_shift(1, level)
    cells = np.concatenate([start, stop - span])
    value, ident, level = np.tile(value, 2), np.tile(ident, 2), np.tile(level, 2)
    order = np.argsort(level.astype(np.int16), kind="stable")
    cells, value, ident, level = cells[order], value[order], ident[order], level[order]
    top = int(level[-1])
    bounds = np.searchsorted(level, np.arange(top + 2))
    for lev in range(top, -1, -1):
        if lev < top:              # the level above covers this one's two halves
            half = 1 << lev
            nxt_v, nxt_i = cur_v.copy(), cur_i.copy()
            src_v, src_i = cur_v[:n - half], cur_i[:n - half]
            dst_v, dst_i = nxt_v[half:], nxt_i[half:]
            better = src_v < dst_v
            dst_v[better], dst_i[better] = src_v[better], src_i[better]
            cur_v, cur_i = nxt_v, nxt_i
        a, b = bounds[lev], bounds[lev + 1]
        if b > a:
            at, v = cells[a:b], value[a:b]
            np.minimum.at(cur_v, at, v)
            win = v == cur_v[at]
            cur_i[at[win]] = ident[a:b][win]
    return cur_v, cur_i
