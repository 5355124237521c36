"""Charge paths (ISD §9, A28), for many (charger, target) pairs at once: from where the charger
stands, or wheeled to face the target squarely, the shortest straight or oblique (up to 45°,
ISD §8) move that brings its front into contact first: no flank or rear may touch sooner or lie
along the target (ISD §9 «non si può caricare se si contatta il nemico con un fianco»).

Every pair's options (two starts, four directions) are measured in a few array calls
(`motion.front_and_body_slides`, one vectorised shapely call per test), then the shortest
valid one is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely

from campo.engine.geometry.contact import edge_shares
from campo.engine.geometry.motion import front_and_body_slides, hull_pieces, wheel_steps
from campo.engine.geometry.poses import Poses, concat, xy
from campo.engine.geometry.zones import zones_of
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.tables_movement import OBLIQUE_MAX_ANGLE_DEG

TOUCH_MM = 0.5
"""First contact counts as made by the front if within this of it (tracking noise)."""
SQUARE_DEG = 0.5
"""A charger within this of facing the target's edge squarely needs no wheel."""
EDGE_OUTWARD = {"front": 0.0, "left": 90.0, "rear": 180.0, "right": -90.0, "inside": 0.0}
"""The outward normal of each edge of a base, turned from its heading (inside: the front)."""


def turned(vectors: np.ndarray, deg: np.ndarray) -> np.ndarray:
    """(n, 2) vectors turned CCW by ``deg``."""
    a = np.radians(deg)
    c, s = np.cos(a), np.sin(a)
    return xy(vectors[:, 0] * c - vectors[:, 1] * s, vectors[:, 0] * s + vectors[:, 1] * c)


def signed_turn(to_deg: np.ndarray, from_deg: np.ndarray) -> np.ndarray:
    """`angle_diff` of arrays: the signed smallest turn in (-180, 180]."""
    d = (to_deg - from_deg) % 360.0
    return np.where(d > 180.0, d - 360.0, d)


@dataclass(frozen=True, eq=False)
class Paths:
    """The shortest way into contact of each pair (row k): ``found[k]`` False when there is
    none. ``start`` is the charger as it stands, ``wheeled`` after its wheel (as it stands when
    none), ``final`` at contact; the slide runs along ``direction`` (unit vectors)."""

    found: np.ndarray
    start: Poses
    wheeled: Poses
    final: Poses
    wheel_deg: np.ndarray
    oblique_deg: np.ndarray
    wheel_mm: np.ndarray
    slide_mm: np.ndarray
    direction: np.ndarray

    @property
    def length_mm(self) -> np.ndarray:
        return self.wheel_mm + self.slide_mm

    @cached_property
    def wheel_poses(self) -> tuple[Poses, np.ndarray]:
        """The poses of each wheel every 10° (`motion.wheel_steps`), both ends included, and
        the row each belongs to (rows without a wheel have none)."""
        rows = np.nonzero(self.found & (self.wheel_deg != 0))[0]
        if not len(rows):
            return self.start.take(rows), rows
        poses, k = _wheeling(self.start.take(rows), self.wheel_deg[rows])
        return poses, rows[k]

    @cached_property
    def wheel_pieces(self) -> tuple[np.ndarray, np.ndarray]:
        """The area the wheels cover, as pieces (polygons: the hulls of consecutive wheel poses,
        `motion.hull_pieces`), and the row of each. (A straight run's area is the hull of its
        wheeled and final poses: `runs`.)"""
        poses, owner = self.wheel_poses
        return hull_pieces(poses.corners, owner)

    @cached_property
    def runs(self) -> np.ndarray:
        """(n, 8, 2): each row's wheeled then final corners, the points whose hull is the area
        its straight run sweeps."""
        return np.concatenate([self.wheeled.corners, self.final.corners], axis=1)

    def front_centres_after(self, rows: np.ndarray, along_mm: np.ndarray) -> np.ndarray:
        """(n, 2): where each row's front centre is after ``along_mm`` of its path (the wheel
        turned in proportion, then the slide)."""
        wheel, wheel_mm = self.wheel_deg[rows], self.wheel_mm[rows]
        in_wheel = (wheel != 0) & (wheel_mm > 0) & (along_mm < wheel_mm)
        slide = np.where(in_wheel, 0.0, along_mm - wheel_mm)
        out = self.wheeled.take(rows).moved(self.direction[rows] * slide[:, None]).front_centres
        if in_wheel.any():   # those still in their wheel: turned in proportion
            turn = wheel[in_wheel] * along_mm[in_wheel] / wheel_mm[in_wheel]
            out[in_wheel] = self.start.take(rows[in_wheel]).wheeled(turn).front_centres
        return out

    @cached_property
    def tracks(self) -> dict[int, list[list[float]]]:
        """Each found row's front-centre positions: start, along the wheel, end of wheel,
        contact."""
        poses, owner = self.wheel_poses
        centres = poses.front_centres.tolist()
        out: dict[int, list[list[float]]] = {}
        for k, point in zip(owner.tolist(), centres):
            out.setdefault(k, []).append(point)
        starts, finals = self.start.front_centres.tolist(), self.final.front_centres.tolist()
        for k in np.nonzero(self.found)[0].tolist():
            out.setdefault(k, [starts[k]]).append(finals[k])
        return out


def best_paths(c: Poses, t: Poses, t_shapes: np.ndarray, settings: ItaliaSettings) -> Paths:
    """The shortest charge path of charger ``c[k]`` into target ``t[k]`` (``t_shapes``: the
    targets' polygons), for every row at once."""
    n = len(c)
    # starts: as it stands, and wheeled on a front corner to face the edge squarely (ISD A28)
    edge = zones_of(t.cx, t.cy, t.front, t.width, t.depth, c.front_centres, settings.a1_zones)
    squarely = (t.heading + np.array([EDGE_OUTWARD[e] for e in edge.tolist()]) + 180.0) % 360.0
    turn = signed_turn(squarely, c.heading) if n else np.zeros(0)
    wheel_rows = np.nonzero((np.abs(turn) > SQUARE_DEG)
                            & (settings.a28_charge_path != "straight_distance"))[0]
    free = settings.a22_wheel_cost == "free"
    options, pick = _best_options(c, t, _nearest(c, t_shapes))
    body = c
    if len(wheel_rows):
        # a wheeled start costs its wheel and then at least its front's gap: one that cannot
        # be shorter than standing still (which wins a tie) is not measured
        wheeled = c.take(wheel_rows).wheeled(turn[wheel_rows])
        gap = _nearest(wheeled, t_shapes[wheel_rows])
        at = pick[wheel_rows]
        standing = np.where(at >= 0, options.s_front[at], np.inf)
        wheel_mm = 0.0 if free else c.width[wheel_rows] * np.radians(np.abs(turn[wheel_rows]))
        may = wheel_mm + np.hypot(gap[:, 0], gap[:, 1]) < standing + 1e-6
        if may.any():   # (a wheel sweeping over its target is no start)
            may[may] = ~_wheel_hits(c.take(wheel_rows[may]), turn[wheel_rows[may]],
                                    t_shapes[wheel_rows[may]])
        wheel_rows = wheel_rows[may]
        if len(wheel_rows):
            wheeled = wheeled.take(may)
            more, more_pick = _best_options(wheeled, t.take(wheel_rows), gap[may])
            pick = np.concatenate([pick, np.where(more_pick >= 0, more_pick + len(options.off),
                                                  -1)])
            options = options.joined(more, n + np.arange(len(wheel_rows)))
            body = concat([c, wheeled])
    row = np.concatenate([np.arange(n), wheel_rows])
    start_turn = np.concatenate([np.zeros(n), turn[wheel_rows]])
    starts = np.nonzero(pick >= 0)[0]
    pick = pick[starts]
    s_front, off, final = options.s_front, options.off, options.final
    wheel_mm = c.width[row[starts]] * np.radians(np.abs(start_turn[starts]))
    if free:
        wheel_mm = np.zeros(len(starts))
    length = wheel_mm + s_front[pick]
    # the best start of each pair: shortest, then the smaller wheel; ties to standing still
    chosen = _first_of(row[starts], (np.round(length, 2), np.abs(start_turn[starts])), n)
    found = chosen >= 0
    if not found.any():
        zero = np.zeros(n)
        return Paths(found, c, c, c, zero, zero, zero, zero, np.tile([1.0, 0.0], (n, 1)))
    at = np.where(found, chosen, 0)
    sel, st = pick[at], starts[at]
    return Paths(found, c, body.take(st), final.take(sel), np.where(found, start_turn[st], 0.0),
                 np.where(found, off[sel], 0.0), np.where(found, wheel_mm[at], 0.0),
                 np.where(found, s_front[sel], 0.0), options.d[sel])


def _nearest(body: Poses, t_shapes: np.ndarray) -> np.ndarray:
    """(k, 2): from each front to the nearest point of its target (GEOS's shortest line)."""
    line = shapely.get_coordinates(shapely.shortest_line(body.front_lines, t_shapes))
    line = line.reshape(-1, 2, 2)
    return line[:, 1] - line[:, 0]


def _best_options(body: Poses, t: Poses, gap: np.ndarray) -> tuple[_Options, np.ndarray]:
    """The options of each start ``body[k]`` into ``t[k]`` (``gap``: `_nearest`) and the best
    of each (its position among them; -1 where none brings the front first).

    Options: straight at the target's nearest point when within 45°, and straight ahead; 45°
    either way only for starts where neither brings the front first (the nearest point's
    direction is the shortest slide there is, and straight ahead wins a tie with it). The best:
    shortest; ties (to 0.01 mm) to the straighter path."""
    limit = OBLIQUE_MAX_ANGLE_DEG
    direct = signed_turn(np.degrees(np.arctan2(gap[:, 1], gap[:, 0])), body.heading)
    usable = (np.hypot(gap[:, 0], gap[:, 1]) > 1e-9) & (np.abs(direct) <= limit + 1e-9)
    k = len(body)
    options = _Options.of(body, t, np.stack([np.where(usable, direct, np.nan), np.zeros(k)],
                                            axis=1))
    lacking = np.nonzero(np.bincount(options.start[options.ok], minlength=k) == 0)[0]
    if len(lacking):
        options = options.joined(_Options.of(body.take(lacking), t.take(lacking),
                                             np.tile([-limit, limit], (len(lacking), 1))),
                                 lacking)
    s_at, off, s_front, ok = options.start, options.off, options.s_front, options.ok
    best = _first_of(s_at[ok], (np.round(s_front[ok], 2), np.round(np.abs(off[ok]), 6),
                                off[ok]), k)
    pick = np.full(k, -1, dtype=np.int64)
    pick[best >= 0] = np.nonzero(ok)[0][best[best >= 0]]
    return options, pick


@dataclass(frozen=True, eq=False)
class _Options:
    """Oblique options of some starts: the start each belongs to, its offset (deg), slide
    direction, the front's slide into contact, the pose at contact, and whether the front makes
    the first contact (nothing else sooner, no flank or rear along the target)."""

    start: np.ndarray
    off: np.ndarray
    d: np.ndarray
    s_front: np.ndarray
    final: Poses
    ok: np.ndarray

    @staticmethod
    def of(body: Poses, t: Poses, offsets: np.ndarray) -> _Options:
        """The options ``offsets[k]`` (deg from straight ahead; NaN: none) of each start ``k``."""
        at, column = np.nonzero(~np.isnan(offsets))
        off = offsets[at, column]
        b, target = body.take(at), t.take(at)
        d = turned(b.front, off)
        s_front, s_body = front_and_body_slides(b.corners, target.corners, d)
        ok = np.isfinite(s_front) & (s_body >= s_front - TOUCH_MM)   # nothing else sooner
        final = b.moved(d * np.where(ok, s_front, 0.0)[:, None])
        shared = edge_shares(final, target, TOUCH_MM)
        ok &= shared[:, 1:].max(axis=1) <= 2 * TOUCH_MM + 1e-6        # right, rear, left
        return _Options(at, off, d, s_front, final, ok)

    def joined(self, more: _Options, starts: np.ndarray) -> _Options:
        """These options, then ``more`` (its start k being start ``starts[k]`` here)."""
        return _Options(np.concatenate([self.start, starts[more.start]]),
                        np.concatenate([self.off, more.off]), np.concatenate([self.d, more.d]),
                        np.concatenate([self.s_front, more.s_front]),
                        concat([self.final, more.final]), np.concatenate([self.ok, more.ok]))


def _first_of(group: np.ndarray, keys: tuple[np.ndarray, ...], n: int) -> np.ndarray:
    """For each group 0..n-1, the position (into ``group``) of its least row by ``keys`` (the
    first in order among equals), or -1 when the group has no row."""
    out = np.full(n, -1, dtype=np.int64)
    if not len(group):
        return out
    order = np.lexsort((np.arange(len(group)), *reversed(keys), group))
    first = np.ones(len(order), dtype=bool)
    first[1:] = group[order][1:] != group[order][:-1]
    out[group[order][first]] = order[first]
    return out


def _wheel_hits(c: Poses, turn: np.ndarray, t_shapes: np.ndarray) -> np.ndarray:
    """Whether each wheel (``c[k]`` by ``turn[k]``, every 10°) sweeps over its target. A wheel
    stays within a diagonal of its pivot (a front corner): farther targets are not asked."""
    out = np.zeros(len(c), dtype=bool)
    reach = np.hypot(c.width, c.depth)
    near = np.nonzero(shapely.dwithin(shapely.points(c.front_edges.reshape(-1, 2)),
                                      np.repeat(t_shapes, 2), np.repeat(reach, 2))
                      .reshape(-1, 2).any(axis=1))[0] if len(c) else np.zeros(0, dtype=int)
    if len(near):
        swept, owner = _wheeling(c.take(near), turn[near])
        pieces, piece_owner = hull_pieces(swept.corners, owner)
        hit = shapely.intersects(pieces, t_shapes[near][piece_owner])
        out[near] = np.bincount(piece_owner[hit], minlength=len(near)) > 0
    return out


def _wheeling(c: Poses, turn: np.ndarray) -> tuple[Poses, np.ndarray]:
    """The poses of each wheel (``c[k]`` by ``turn[k]``, on the front corner it turns toward)
    every 10° (`motion.wheel_steps`), both ends included, and the row k of each."""
    steps = wheel_steps(turn)
    owner = np.repeat(np.arange(len(c)), steps + 1)
    fraction = np.concatenate([np.arange(n + 1) / n for n in steps.tolist()])
    poses = c.take(owner)
    corners = poses.corners
    pivots = np.where((turn[owner] > 0)[:, None], corners[:, 0], corners[:, 1])
    return poses.pivoted(pivots, turn[owner] * fraction), owner
