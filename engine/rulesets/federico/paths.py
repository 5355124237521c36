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

from campo.engine.geometry.contact import RectTable, edges_of_lengths
from campo.engine.geometry.motion import front_and_body_slides, wheel, wheel_cost
from campo.engine.geometry.rect import EDGE_NAMES, Rect, angle_diff, rotate
from campo.engine.geometry.zones import zone_of
from campo.engine.results import Zone
from campo.engine.rulesets.federico.board import OUTWARD, TOUCH_MM, Board

WHEEL_STEP_DEG = 10.0
_EDGE_OF_ZONE = {Zone.FRONT: "front", Zone.LEFT: "left", Zone.RIGHT: "right", Zone.REAR: "rear",
                 Zone.INSIDE: "front"}


@dataclass
class AttackPath:
    """One way into contact: an optional wheel on a front corner, then a slide. ``corners``
    and ``hulls`` are filled by `sweep` (for the paths the verdicts keep)."""

    start: Rect
    final: Rect
    wheel_deg: float
    wheel_mm: float
    slide_mm: float
    oblique_deg: float = 0.0
    edge: str = "front"
    """The target's edge the final pose touches (F19, `attacks.aspect_struck`)."""
    corners: np.ndarray | None = None
    """(poses, 4, 2): the wheel's poses every 10°, then the contact."""
    hulls: np.ndarray | None = None
    """Convex hulls of consecutive poses: their union is the area swept, and a shape meets
    the union exactly when it meets one of them."""

    @property
    def length_mm(self) -> float:
        return self.wheel_mm + self.slide_mm

    @property
    def track(self) -> list[list[float]]:
        """The front centre at each pose (table mm)."""
        assert self.corners is not None
        return ((self.corners[:, 0] + self.corners[:, 1]) / 2).tolist()

    @cached_property
    def swept(self) -> Any:
        """The area swept (the union of `hulls`)."""
        return shapely.union_all(self.hulls)


def _turned(corners: np.ndarray, pivots: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Each (4, 2) ``corners`` turned about its pivot by each of its angles (rad): (w, a, 4, 2)."""
    rel = corners - pivots[:, None, :]
    cos, sin = np.cos(angles)[:, :, None], np.sin(angles)[:, :, None]
    xs = pivots[:, None, None, 0] + cos * rel[:, None, :, 0] - sin * rel[:, None, :, 1]
    ys = pivots[:, None, None, 1] + sin * rel[:, None, :, 0] + cos * rel[:, None, :, 1]
    return np.stack([xs, ys], axis=-1)


def _wheel_steps(starts: list[Rect], turns: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """(poses (w, size, 4, 2), steps (w,)): each wheel's poses every WHEEL_STEP_DEG, both ends
    included, on the front corner it turns toward (`motion.wheel_poses`), padded with the last
    pose; no wheel: the start alone."""
    turn = np.array(turns, dtype=float)
    steps = np.where(turn != 0, np.maximum(1, np.ceil(np.abs(turn) / WHEEL_STEP_DEG)), 0)
    steps = steps.astype(np.int64)
    size = int(steps.max(initial=0)) + 1
    frac = np.minimum(np.arange(size)[None, :], steps[:, None]) / np.maximum(steps, 1)[:, None]
    corners = np.array([r.corners for r in starts], dtype=float).reshape(-1, 4, 2)
    pivots = np.where((turn > 0)[:, None], corners[:, 0], corners[:, 1])
    return _turned(corners, pivots, np.radians(turn)[:, None] * frac), steps


def sweep(ways: list[AttackPath]) -> None:
    """Fill `AttackPath.corners` and `AttackPath.hulls` of every path, all at once."""
    todo = [p for p in ways if p.corners is None]
    if not todo:
        return
    poses, steps = _wheel_steps([p.start for p in todo], [p.wheel_deg for p in todo])
    finals = np.array([p.final.corners for p in todo], dtype=float).reshape(-1, 4, 2)
    pairs = []
    for p, pose, k, final in zip(todo, poses, steps.tolist(), finals):
        p.corners = np.concatenate([pose[:k + 1], final[None]])
        pairs.append(np.concatenate([p.corners[:-1], p.corners[1:]], axis=1))     # (s, 8, 2)
    # the hull of each 8 corners, given as a line string through them: GEOS hulls the same
    # points in the same order as for a multipoint, which takes ten times longer to make
    hulls = shapely.convex_hull(shapely.linestrings(np.concatenate(pairs)))
    for p, chunk in zip(todo, np.split(hulls, np.cumsum([len(x) for x in pairs])[:-1])):
        p.hulls = chunk


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
    s_front, s_body = front_and_body_slides(bodies, target, d)
    made = [(p, off, p.body.moved(dx * sf, dy * sf), sf)
            for (p, off), (dx, dy), sf, sb in zip(slide_from, d.tolist(), s_front.tolist(),
                                                  s_body.tolist())
            if math.isfinite(sf) and not sb < sf - TOUCH_MM]
    if not made:
        return out
    # the front made the contact: no flank or rear edge lies along the target; and the edge
    # of the target touched (each table of rectangles built once for both questions)
    finals = RectTable([f for _, _, f, _ in made])
    targets = RectTable([pairs[p.pair][1] for p, _, _, _ in made])
    at = np.arange(len(made))
    shared = finals.shared_lengths(at, targets, at, TOUCH_MM)
    tol = board.contact_tol + TOUCH_MM
    edges = edges_of_lengths(targets.shared_lengths(at, finals, at, tol), tol)
    for (p, off, final, sf), (_, right, rear, left), k in zip(made, shared.tolist(),
                                                              edges.tolist()):
        if max(left, right, rear) <= 2 * TOUCH_MM + 1e-6:
            out[p.pair].append(AttackPath(pairs[p.pair][0], final, p.turn, p.cost, sf, off,
                                          EDGE_NAMES[k]))
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
        squarely = (t.heading_deg + OUTWARD[_EDGE_OF_ZONE[zone]] + 180.0) % 360.0
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
    the target. The poses every 10° are turned in numpy for every wheel at once; only the
    wheels whose poses' bounding box meets the target's have their hulls tested (one call)."""
    out = [False] * len(wheels)
    rows = [k for k, w in enumerate(wheels) if w is not None]
    if not rows:
        return out
    poses, _ = _wheel_steps([wheels[k][0] for k in rows], [wheels[k][1] for k in rows])
    target = np.array([wheels[k][2].corners for k in rows], dtype=float)
    lo, hi = poses.min(axis=(1, 2)), poses.max(axis=(1, 2))
    t_lo, t_hi = target.min(axis=1), target.max(axis=1)
    near = np.nonzero(((lo <= t_hi) & (t_lo <= hi)).all(axis=1))[0]
    if not len(near):
        return out
    size = poses.shape[1] - 1
    hulls = shapely.convex_hull(shapely.linestrings(   # 8 corners each, as in `sweep`
        np.concatenate([poses[near, :-1], poses[near, 1:]], axis=2).reshape(-1, 8, 2)))
    polygons = np.repeat(np.array([wheels[rows[k]][2].polygon for k in near.tolist()],
                                  dtype=object), size)
    struck = shapely.intersects(hulls, polygons).reshape(len(near), size).any(axis=1)
    for k, hit in zip(near.tolist(), struck.tolist()):
        out[rows[k]] = hit
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
