"""The ways an attacker may move into contact (Federico "Mischie", F15, F18), for many (attacker,
target) pairs at once: straight ahead, or one wheel on a front corner (to face the struck edge
squarely, or toward the target's nearest point) then straight ahead; and, when the group allows
oblique moves (``oblique_attack_max_deg``), oblique slides keeping the facing from each of those
poses. The front must make the first contact, and no flank or rear edge may end along the
target.

Turns are chosen pair by pair; the wheels that would sweep over their target, every slide and
the edges touched at the end are measured for all pairs in a few numpy and shapely calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import shapely

from campo.engine.geometry.contact import shared_lengths_many
from campo.engine.geometry.motion import wheel, wheel_cost, wheel_poses
from campo.engine.geometry.rect import Rect, angle_diff, rotate
from campo.engine.geometry.zones import zone_of
from campo.engine.results import Zone
from campo.engine.rulesets.federico.board import TOUCH_MM, Board
from campo.engine.rulesets.federico.convex import slides

WHEEL_STEP_DEG = 10.0
_EDGE_OF_ZONE = {Zone.FRONT: "front", Zone.LEFT: "left", Zone.RIGHT: "right", Zone.REAR: "rear",
                 Zone.INSIDE: "front"}
_OUTWARD = {"front": 0.0, "left": 90.0, "rear": 180.0, "right": -90.0}


@dataclass
class AttackPath:
    """One way into contact: an optional wheel on a front corner, then a slide."""

    start: Rect
    wheeled: Rect
    final: Rect
    wheel_deg: float
    wheel_mm: float
    slide_mm: float
    oblique_deg: float = 0.0

    @property
    def length_mm(self) -> float:
        return self.wheel_mm + self.slide_mm

    @cached_property
    def track(self) -> list[Rect]:
        """The poses the move goes through: the wheel's (every 10°), then the contact."""
        poses = wheel_poses(self.start, self.wheel_deg, WHEEL_STEP_DEG) if self.wheel_deg \
            else [self.start]
        return poses + [self.final]

    @cached_property
    def hulls(self) -> np.ndarray:
        """Convex hulls of consecutive poses: their union is the area swept, and a shape meets
        the union exactly when it meets one of them."""
        return pair_hulls(np.array([p.corners for p in self.track], dtype=float))

    @cached_property
    def swept(self) -> Any:
        """The area swept (the union of `hulls`)."""
        return shapely.union_all(self.hulls)


def pair_hulls(corners: np.ndarray) -> np.ndarray:
    """The hull of each consecutive pair of poses (``corners`` (n, 4, 2))."""
    pairs = np.concatenate([corners[:-1], corners[1:]], axis=1)            # (n-1, 8, 2)
    return shapely.convex_hull(shapely.multipoints(pairs))


@dataclass
class _Pose:
    """A pose the slides start from: the attacker as it stands, or after one wheel."""

    pair: int
    turn: float
    body: Rect
    cost: float


def paths(board: Board, pairs: list[tuple[Rect, Rect]]) -> list[list[AttackPath]]:
    """Every path by which each attacker ``pairs[i][0]`` brings its front into contact with
    ``pairs[i][1]`` (F15, F18), in the same order."""
    out: list[list[AttackPath]] = [[] for _ in pairs]
    if not pairs:
        return out
    poses = _start_poses(board, pairs)
    limit = board.settings.oblique_attack_max_deg
    slide_from: list[tuple[_Pose, float]] = [(p, 0.0) for p in poses]
    if limit > 0.0:
        slide_from += [(p, off) for p, offs in zip(poses, _oblique_offsets(poses, pairs, limit))
                       for off in offs]
    if not slide_from:
        return out
    bodies = np.array([p.body.corners for p, _ in slide_from], dtype=float)
    target = np.array([pairs[p.pair][1].corners for p, _ in slide_from], dtype=float)
    d = np.array([rotate(p.body.front, off) for p, off in slide_from], dtype=float)
    s_front = slides(bodies[:, :2], target, d)
    s_body = slides(bodies, target, d)
    made = [(p, off, p.body.moved(dx * sf, dy * sf), sf)
            for (p, off), (dx, dy), sf, sb in zip(slide_from, d.tolist(), s_front.tolist(),
                                                  s_body.tolist())
            if math.isfinite(sf) and not sb < sf - TOUCH_MM]
    if not made:
        return out
    # the front made the contact: no flank or rear edge lies along the target
    shared = shared_lengths_many([f for _, _, f, _ in made],
                                 [pairs[p.pair][1] for p, _, _, _ in made], TOUCH_MM)
    for (p, off, final, sf), (_, right, rear, left) in zip(made, shared.tolist()):
        if max(left, right, rear) <= 2 * TOUCH_MM + 1e-6:
            out[p.pair].append(AttackPath(pairs[p.pair][0], p.body, final, p.turn, p.cost, sf,
                                          off))
    return out


def _start_poses(board: Board, pairs: list[tuple[Rect, Rect]]) -> list[_Pose]:
    """Per pair, the poses its slides start from, in order: as it stands, wheeled to face the
    struck edge squarely, wheeled toward the target's nearest point (each once, at most 90°;
    a wheel sweeping over the target is no path)."""
    lines = shapely.shortest_line(np.array([c.front_edge for c, _ in pairs], dtype=object),
                                  np.array([t.polygon for _, t in pairs], dtype=object))
    ends = shapely.get_coordinates(lines).reshape(len(pairs), 2, 2).tolist()
    free = board.settings.f15_wheels == "free_turn"
    out: list[_Pose] = []
    for k, ((c, t), ((x0, y0), (x1, y1))) in enumerate(zip(pairs, ends)):
        zone = zone_of(t, c.front_centre[0], c.front_centre[1], board.settings.f1_zones)
        squarely = (t.heading_deg + _OUTWARD[_EDGE_OF_ZONE[zone]] + 180.0) % 360.0
        turns = [0.0, angle_diff(squarely, c.heading_deg)]
        if math.hypot(x1 - x0, y1 - y0) > 1e-6:
            turns.append(angle_diff(math.degrees(math.atan2(y1 - y0, x1 - x0)), c.heading_deg))
        seen: set[float] = set()
        for turn in turns:
            if abs(turn) < 0.5:
                turn = 0.0
            if round(turn, 1) in seen or abs(turn) > 90.0 + 1e-9:
                continue
            seen.add(round(turn, 1))
            out.append(_Pose(k, turn, wheel(c, turn), 0.0 if free else wheel_cost(c, turn))
                       if turn else _Pose(k, 0.0, c, 0.0))
    strikes = _wheels_strike([(pairs[p.pair][0], p.turn, pairs[p.pair][1]) if p.turn else None
                              for p in out])
    return [p for p, hit in zip(out, strikes) if not hit]


def _wheels_strike(wheels: list[tuple[Rect, float, Rect] | None]) -> list[bool]:
    """For each (attacker, turn, target) (None: no wheel): whether the wheel itself sweeps over
    the target. The poses every 10° are turned in numpy for every wheel at once, padded to one
    length; the hulls of consecutive poses are tested against the targets in one call."""
    out = [False] * len(wheels)
    rows = [k for k, w in enumerate(wheels) if w is not None]
    if not rows:
        return out
    steps = [max(1, math.ceil(abs(wheels[k][1]) / WHEEL_STEP_DEG)) for k in rows]
    size = max(steps) + 1
    frac = np.array([[min(i, s) / s for i in range(size)] for s in steps])     # (w, size)
    ang = np.radians(np.array([wheels[k][1] for k in rows]))[:, None] * frac
    corners = np.array([wheels[k][0].corners for k in rows])                     # (w, 4, 2)
    pivot = np.array([c.front_left if turn > 0 else c.front_right
                      for c, turn, _ in (wheels[k] for k in rows)])
    rel = corners - pivot[:, None, :]
    cos, sin = np.cos(ang)[:, :, None], np.sin(ang)[:, :, None]
    xs = pivot[:, None, None, 0] + cos * rel[:, None, :, 0] - sin * rel[:, None, :, 1]
    ys = pivot[:, None, None, 1] + sin * rel[:, None, :, 0] + cos * rel[:, None, :, 1]
    poses = np.stack([xs, ys], axis=-1)                                          # (w, size, 4, 2)
    hulls = shapely.convex_hull(shapely.multipoints(
        np.concatenate([poses[:, :-1], poses[:, 1:]], axis=2).reshape(-1, 8, 2)))
    targets = np.repeat(np.array([wheels[k][2].polygon for k in rows], dtype=object), size - 1)
    struck = shapely.intersects(hulls, targets).reshape(len(rows), size - 1).any(axis=1)
    for k, hit in zip(rows, struck.tolist()):
        out[k] = hit
    return out


def _oblique_offsets(poses: list[_Pose], pairs: list[tuple[Rect, Rect]],
                     limit: float) -> list[list[float]]:
    """Per pose, the offsets (deg from straight ahead, + to the left) of the oblique slides
    tried (``oblique_attack_max_deg``; Federico F15, F18): toward the target's nearest point
    when within ``limit``, then at the limit either side."""
    lines = shapely.shortest_line(np.array([p.body.front_edge for p in poses], dtype=object),
                                  np.array([pairs[p.pair][1].polygon for p in poses],
                                           dtype=object))
    ends = shapely.get_coordinates(lines).reshape(len(poses), 2, 2).tolist()
    out = []
    for p, ((x0, y0), (x1, y1)) in zip(poses, ends):
        offsets = [-limit, limit]
        if math.hypot(x1 - x0, y1 - y0) > 1e-6:
            direct = angle_diff(math.degrees(math.atan2(y1 - y0, x1 - x0)), p.body.heading_deg)
            if 0.5 <= abs(direct) <= limit + 1e-9:
                offsets.insert(0, direct)
        out.append(offsets)
    return out
