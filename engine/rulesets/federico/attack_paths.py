"""The paths an attacker may take into contact (Federico "Mischie", F15, F18): straight ahead, or
one wheel (to face the struck edge squarely, or toward the target's nearest point) then straight
ahead; and, when the group allows oblique moves (``oblique_attack_max_deg``), oblique slides
keeping the facing from each of those poses. The front must make the first contact.

`paths_many` searches many (attacker, target) pairs at once: the turns and directions are chosen
pair by pair in Python, then every slide of every pair is measured in one numpy pass (the
arithmetic of `motion.slide_convex`, operation for operation, so the distances are the same to
the last bit), and the wheels are checked against the targets with a conservative bounding box
first. `paths_of` is the same code for one pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import shapely

from campo.engine.geometry.contact import shared_lengths_many
from campo.engine.geometry.motion import slide_convex, wheel, wheel_cost, wheel_poses
from campo.engine.geometry.rect import Rect, angle_diff, rotate
from campo.engine.geometry.zones import zone_of
from campo.engine.results import Zone
from campo.engine.rulesets.federico.board import Board

TOUCH_MM = 0.5        # first contact counts as made by the front if within this of it
BOX_SLACK_MM = 1e-6   # the numpy wheel box is grown by this: it may only say "maybe" more often
_EDGE_OF_ZONE = {Zone.FRONT: "front", Zone.LEFT: "left", Zone.RIGHT: "right", Zone.REAR: "rear",
                 Zone.INSIDE: "front"}
_OUTWARD = {"front": 0.0, "left": 90.0, "rear": 180.0, "right": -90.0}
_INF = float("inf")


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
    def poses(self) -> list[Rect] | None:
        """The wheel's poses (`wheel_poses`), None without a wheel."""
        return wheel_poses(self.start, self.wheel_deg) if self.wheel_deg else None

    @property
    def track(self) -> list[Rect]:
        """The poses the front centre's path goes through: the wheel's, then the contact."""
        return (self.poses if self.poses is not None else [self.start]) + [self.final]

    @cached_property
    def hulls(self) -> np.ndarray:
        """Convex hulls of consecutive poses: their union is the area swept (`swept_area`), and
        a shape meets the union exactly when it meets one of them."""
        return pair_hulls(self.track)

    @cached_property
    def swept(self) -> Any:
        """The area swept, as `motion.swept_area` builds it (the union of `hulls`)."""
        return shapely.union_all(self.hulls)


def pair_hulls(poses: list[Rect]) -> np.ndarray:
    """`swept_area`'s pieces before the union: the hull of each consecutive pair of poses."""
    corners = np.array([p.corners for p in poses], dtype=float)            # (n, 4, 2)
    pairs = np.concatenate([corners[:-1], corners[1:]], axis=1)            # (n-1, 8, 2)
    return shapely.convex_hull(shapely.multipoints(pairs))


def paths_of(board: Board, c: Rect, t: Rect) -> list[AttackPath]:
    """Every path by which ``c`` brings its front into contact with ``t`` (F15, F18)."""
    return paths_many(board, [(c, t)])[0]


@dataclass
class _Body:
    """A pose the slides start from: the attacker as it stands, or after one wheel."""

    pair: int
    turn: float
    body: Rect
    cost: float


def paths_many(board: Board, pairs: list[tuple[Rect, Rect]]) -> list[list[AttackPath]]:
    """`paths_of` for many (attacker, target) pairs, in the same order."""
    out: list[list[AttackPath]] = [[] for _ in pairs]
    if not pairs:
        return out
    starts = _start_poses(board, pairs)
    limit = board.settings.oblique_attack_max_deg
    slides: list[tuple[_Body, float, tuple[float, float]]] = []     # (pose, offset, direction)
    for b in starts:
        slides.append((b, 0.0, b.body.front))
        if limit > 0.0:
            t = pairs[b.pair][1]
            slides += [(b, off, rotate(b.body.front, off))
                       for off in _oblique_offsets(b.body, t, limit)]
    if not slides:
        return out
    s_front, s_body = _slide_many([(b.body, pairs[b.pair][1], d) for b, _, d in slides])
    made: list[tuple[_Body, float, Rect, float]] = []
    for (b, off, d), sf, sb in zip(slides, s_front.tolist(), s_body.tolist()):
        if math.isfinite(sf) and not sb < sf - TOUCH_MM:
            made.append((b, off, b.body.moved(d[0] * sf, d[1] * sf), sf))
    # the front made the contact: no flank or rear edge lies along the target (`shared_lengths`)
    shared = shared_lengths_many([f for _, _, f, _ in made],
                                 [pairs[b.pair][1] for b, _, _, _ in made], TOUCH_MM)
    for (b, off, final, sf), (_, right, rear, left) in zip(made, shared.tolist()):
        if max(left, right, rear) > 2 * TOUCH_MM + 1e-6:
            continue
        out[b.pair].append(AttackPath(pairs[b.pair][0], b.body, final, b.turn, b.cost, sf, off))
    return out


def _start_poses(board: Board, pairs: list[tuple[Rect, Rect]]) -> list[_Body]:
    """Per pair, the poses its slides start from, in order: as it stands, wheeled to face the
    struck edge squarely, wheeled toward the target's nearest point (each once, at most 90°;
    a wheel sweeping over the target is no path)."""
    lines = shapely.shortest_line(np.array([c.front_edge for c, _ in pairs], dtype=object),
                                  np.array([t.polygon for _, t in pairs], dtype=object))
    ends = shapely.get_coordinates(lines).reshape(len(pairs), 2, 2).tolist()
    free = board.settings.f15_wheels == "free_turn"
    out: list[_Body] = []
    wheels: list[int] = []
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
            if turn:
                wheels.append(len(out))
                out.append(_Body(k, turn, wheel(c, turn), 0.0 if free else wheel_cost(c, turn)))
            else:
                out.append(_Body(k, 0.0, c, 0.0))
    struck = _wheels_strike([(pairs[out[w].pair][0], out[w].turn, pairs[out[w].pair][1])
                             for w in wheels])
    drop = {w for w, hit in zip(wheels, struck) if hit}
    return [b for n, b in enumerate(out) if n not in drop]


def _wheels_strike(wheels: list[tuple[Rect, float, Rect]]) -> list[bool]:
    """For each (attacker, turn, target): whether the wheel itself sweeps over the target.

    The poses' corners (every 10°, as `wheel_poses`) are rotated in numpy for all wheels at
    once; when their bounding box, grown by BOX_SLACK_MM, misses the target's, the wheel
    cannot strike it. Only the others build their poses and test the hulls swept."""
    if not wheels:
        return []
    steps = [max(1, math.ceil(abs(turn) / 10.0)) for _, turn, _ in wheels]
    size = max(steps) + 1
    frac = np.array([[min(i, s) / s for i in range(size)] for s in steps])          # (w, size)
    ang = np.radians(np.array([turn for _, turn, _ in wheels]))[:, None] * frac
    corners = np.array([c.corners for c, _, _ in wheels])                           # (w, 4, 2)
    pivot = np.array([c.front_left if turn > 0 else c.front_right for c, turn, _ in wheels])
    rel = corners - pivot[:, None, :]
    cos, sin = np.cos(ang)[:, :, None], np.sin(ang)[:, :, None]
    xs = pivot[:, None, None, 0] + cos * rel[:, None, :, 0] - sin * rel[:, None, :, 1]
    ys = pivot[:, None, None, 1] + sin * rel[:, None, :, 0] + cos * rel[:, None, :, 1]
    tc = np.array([t.corners for _, _, t in wheels])                                # (w, 4, 2)
    g = BOX_SLACK_MM
    apart = ((xs.max(axis=(1, 2)) + g < tc[:, :, 0].min(axis=1))
             | (tc[:, :, 0].max(axis=1) + g < xs.min(axis=(1, 2)))
             | (ys.max(axis=(1, 2)) + g < tc[:, :, 1].min(axis=1))
             | (tc[:, :, 1].max(axis=1) + g < ys.min(axis=(1, 2))))
    out = []
    for (c, turn, t), far in zip(wheels, apart.tolist()):
        out.append(False if far else _wheel_strikes(c, turn, t))
    return out


def _wheel_strikes(c: Rect, turn: float, t: Rect) -> bool:
    """The wheel sweeps over the target: the bounding box of its poses' corners meets the
    target's, and so does one of the hulls of consecutive poses (their union is the area
    swept)."""
    poses = wheel_poses(c, turn)
    xs = [x for q in poses for x, _ in q.corners]
    ys = [y for q in poses for _, y in q.corners]
    txs = [x for x, _ in t.corners]
    tys = [y for _, y in t.corners]
    if max(xs) < min(txs) or max(txs) < min(xs) or max(ys) < min(tys) or max(tys) < min(ys):
        return False
    return bool(shapely.intersects(pair_hulls(poses), t.polygon).any())


def _oblique_offsets(body: Rect, t: Rect, limit: float) -> list[float]:
    """Offsets (deg from straight ahead, + to the left) of the oblique slides tried from
    ``body`` (``oblique_attack_max_deg``; Federico F15, F18): toward the target's nearest point
    when within ``limit``, then at the limit either side."""
    offsets = [-limit, limit]
    (x0, y0), (x1, y1) = shapely.shortest_line(body.front_edge, t.polygon).coords
    if math.hypot(x1 - x0, y1 - y0) > 1e-6:
        direct = angle_diff(math.degrees(math.atan2(y1 - y0, x1 - x0)), body.heading_deg)
        if 0.5 <= abs(direct) <= limit + 1e-9:
            offsets.insert(0, direct)
    return offsets


# --- slides, all at once ----------------------------------------------------------------------
def _slide_many(items: list[tuple[Rect, Rect, tuple[float, float]]]
                ) -> tuple[np.ndarray, np.ndarray]:
    """For each (body, target, direction): how far the front edge, and the whole body, slide
    along the direction before touching the target (`slide_convex` of each, inf if never).

    Bodies whose bounding box meets the target's may already touch it: `slide_convex` itself
    decides those. The others cannot touch, and `slide_convex` would return its two ray
    searches; they are done here for all at once with the same products in the same order."""
    body = np.array([b.corners for b, _, _ in items], dtype=float)                 # (n, 4, 2)
    target = np.array([t.corners for _, t, _ in items], dtype=float)
    d = np.array([(float(x), float(y)) for _, _, (x, y) in items])                  # (n, 2)
    meet = ~((body[:, :, 0].max(axis=1) < target[:, :, 0].min(axis=1))
             | (target[:, :, 0].max(axis=1) < body[:, :, 0].min(axis=1))
             | (body[:, :, 1].max(axis=1) < target[:, :, 1].min(axis=1))
             | (target[:, :, 1].max(axis=1) < body[:, :, 1].min(axis=1)))
    t_starts, t_spans = target, np.roll(target, -1, axis=1) - target
    front = body[:, :2]
    f_spans = front[:, 1:2] - front[:, :1]
    b_spans = np.roll(body, -1, axis=1) - body
    s_front = np.maximum(0.0, np.minimum(_ray_hits(front, d, t_starts, t_spans),
                                         _ray_hits(target, -d, front[:, :1], f_spans)))
    s_body = np.maximum(0.0, np.minimum(_ray_hits(body, d, t_starts, t_spans),
                                        _ray_hits(target, -d, body, b_spans)))
    for k in np.nonzero(meet)[0].tolist():
        b, t, direction = items[k]
        s_front[k] = slide_convex((b.front_left, b.front_right), None, t.corners, t.polygon,
                                  direction)
        s_body[k] = slide_convex(b.corners, None, t.corners, t.polygon, direction)
    return s_front, s_body


def _ray_hits(origins: np.ndarray, d: np.ndarray, starts: np.ndarray, spans: np.ndarray
              ) -> np.ndarray:
    """Per row: the smallest t >= 0 with origin + t*d on a segment start + s*span (inf if
    none), as `motion._ray_hits_py` computes it (same operations, so the same floats)."""
    d0, d1 = d[:, 0, None, None], d[:, 1, None, None]                   # (n, 1, 1)
    e0, e1 = spans[:, None, :, 0], spans[:, None, :, 1]                  # (n, 1, b)
    denom = d0 * e1 - d1 * e0
    usable = np.abs(denom) > 1e-12
    safe = np.where(usable, denom, 1.0)
    w0 = starts[:, None, :, 0] - origins[:, :, None, 0]                  # (n, a, b)
    w1 = starts[:, None, :, 1] - origins[:, :, None, 1]
    t = (w0 * e1 - w1 * e0) / safe
    s = (w0 * d1 - w1 * d0) / safe
    good = usable & (t >= -1e-9) & (s >= -1e-9) & (s <= 1 + 1e-9)
    hits = np.where(good, t, _INF).reshape(len(t), -1)
    best = hits[:, 0]                 # the minimum, folded column by column (a few columns:
    for j in range(1, hits.shape[1]):  # faster than numpy's reduction over a short axis)
        best = np.minimum(best, hits[:, j])
    return best
