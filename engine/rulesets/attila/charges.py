"""Charges: can this base reach that enemy with one move (ATT 5, 7, 13; reading AT26)?

A charge is one optional forward wheel on a front corner (at most half the normal move measured
along the moving corner's arc, ATT 5.G, 5.I, AT15: `moves.MoveBudget`) then a straight move until
the front edge lies along an edge of the target (AT2: a shared segment, not a corner). What the
path runs into (terrain, water, enemies, friends) is `paths`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import shapely

from campo.engine.geometry.contact import (clip_length, edge_aspect, edge_of_lengths,
                                     shared_lengths_compiled, touched_edge)
from campo.engine.geometry.motion import _boxes_meet, _shape_of, wheel_cost, wheel_poses
from campo.engine.geometry.rect import Point, Rect, angle_diff
from campo.engine.geometry.slide_kernel import slide_apart
from campo.engine.results import Aspect
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.lane_kernel import lanes_missed
from campo.engine.rulesets.attila.moves import WHEEL_CITES, MoveBudget, move_budget
from campo.engine.rulesets.attila.paths import enemy_blocks, path_checks, terrain_blocks
from campo.engine.rulesets.attila.settings import GAP_PREFIX

_INF = float("inf")
SWEEP_STEP_DEG = 5.0   # wheels tried between the square ones, for targets met at an angle
_OUTWARD = {"front": 0.0, "left": 90.0, "rear": 180.0, "right": -90.0}  # edge normal vs heading


@dataclass
class Charge:
    """The verdict on one charge (distances in cm)."""

    charger: str
    target: str
    legal: bool = False
    distance: float | None = None
    allowance: float | None = None
    contact_aspect: Aspect | None = None
    wheel_deg: float = 0.0
    path: list[list[float]] = field(default_factory=list)
    final_pose: dict[str, float] | None = None
    passes_through: list[str] = field(default_factory=list)
    terrain: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "target": self.target, "legal": self.legal,
            "distance": None if self.distance is None else round(self.distance, 2),
            "contact_aspect": self.contact_aspect.value if self.contact_aspect else None,
            "reasons": list(self.reasons),
            "allowance": None if self.allowance is None else round(self.allowance, 2),
            "margin": (None if self.allowance is None or self.distance is None
                       else round(self.allowance - self.distance, 2)),
            "wheel_deg": round(self.wheel_deg, 1),
        }
        if self.passes_through:
            d["passes_through"] = list(self.passes_through)
        if self.terrain:
            d["terrain"] = list(self.terrain)
        if self.notes:
            d["notes"] = list(self.notes)
        return d


@dataclass
class _Try:
    total_mm: float
    wheel_deg: float
    final: Rect
    start: Rect
    reasons: list[str]
    notes: list[str]
    passes: list[str]
    terrain: list[str]
    flush: bool = True
    square: bool = True
    wheeled: Rect | None = None
    d_front: float = 0.0
    checked: bool = False
    blocked: bool = False      # certainly not clear (enemy, terrain); reasons not listed yet
    owner: tuple[Board, str] | None = None   # (board, charger): where its wheel is cached

    @cached_property
    def poses(self) -> list[Rect]:
        """The wheel's intermediate poses then the final one (built only for the tries whose
        path is checked or reported)."""
        turn = self.wheel_deg
        if self.owner is not None:
            return _wheel_path(*self.owner, turn) + [self.final]
        return (wheel_poses(self.start, turn) if abs(turn) > 1e-9 else [self.start]) + [self.final]


def _static_reasons(board: Board, charger: str, target: str) -> list[str]:
    cu, tu = board.units[charger], board.units[target]
    out = []
    if cu.side == tu.side:
        out.append(f"{target} is not an enemy")
    if tu.absent:
        out.append(f"{target} is absent (not seen on the table)")
    if cu.absent:
        out.append(f"{charger} is absent (not seen on the table)")
    if cu.is_general:
        out.append("Generals never enter melee voluntarily (ATT 7.D)")
    if cu.is_camp:
        out.append("Camps never move or attack (ATT 8.B)")
    if cu.disordered:
        out.append("Disordered units cannot start melees (ATT 8.A)")
    return out


def _attempt(board: Board, charger: str, target: str, turn: float,
             budget: MoveBudget) -> _Try | None:
    s = board.settings
    start, goal = board.rect(charger), board.rect(target)
    wheeled = _wheeled(board, charger, turn)
    lane = _lane(wheeled, goal)
    if lane is None:
        return None                    # the front, moving straight on, never meets the target
    cost = wheel_cost(start, turn)
    reasons: list[str] = []
    limit = board.mm(budget.wheel_limit_cm)
    wheel_ok = cost <= limit + 1e-6
    if not wheel_ok:
        reasons.append(f"needs a wheel of {abs(turn):.0f}° ({board.cm(cost):.1f} cm along the "
                       f"moving corner's arc), wider than the "
                       f"{budget.wheel_limit_deg(start.width):.0f}° allowed "
                       f"({budget.wheel_limit_cm:.1f} cm: {budget.wheel_phrase()}) ({WHEEL_CITES})")
    d = wheeled.front
    # the wheeled base is cached per charger and turn; its shapely shapes are passed only when
    # already built (`_built`)
    d_front = _slide(board, (wheeled.front_left, wheeled.front_right),
                     _built(wheeled, "_front_edge"), target, d)
    if not math.isfinite(d_front):
        return None
    # Its flank or a rear corner strikes first? Only a target reaching behind the front line can
    # be met by anything but the front (the base moving straight on covers just its lane).
    if lane < 0.0 and _slide(board, wheeled.corners, _built(wheeled, "_polygon"), target,
                             d) < d_front - 0.5:
        return None
    final = wheeled.moved(d[0] * d_front, d[1] * d_front)
    flush = clip_length(final.front_left, final.front_right, goal,
                         max(board.contact_tol, 1e-6)) > s.contact_min_shared_mm  # AT2
    square = any(abs(angle_diff(final.heading_deg, goal.heading_deg + n + 180.0)) < 0.5
                 for n in _OUTWARD.values())
    total = cost + d_front
    allowance_mm = board.mm(budget.available_cm)
    if wheel_ok and cost > allowance_mm + 1e-6:
        # ATT 5.G: the wheel is made in full even though the reduced move is shorter; nothing
        # is left for the straight part
        if d_front > 1e-6:
            reasons.append(f"after its wheel of {board.cm(cost):.1f} cm (allowed in full, ATT "
                           f"5.G) no move is left for the {board.cm(d_front):.1f} cm straight on: "
                           f"its move is {budget.available_cm:g} cm after the 1D6 (ATT 5.B)")
    elif total > allowance_mm + 1e-6:
        reasons.append(f"needs {board.cm(total):.1f} cm, more than its move of "
                       f"{board.cm(allowance_mm):.1f} cm"
                       + ("" if budget.roll is None else
                          f" ({budget.normal_cm:g} cm less the 1D6 of {budget.roll}, ATT 5.B)"))
    t = _Try(total, turn, final, start, reasons, [], [], [], flush, square, wheeled, d_front,
             owner=(board, charger))
    if not flush:
        t.notes.append("its front edge meets the target at an angle: line the bases up to "
                       "fight (AT2, AT26)")
    return t


def _slide(board: Board, moving: Sequence[Point], moving_shape: Any, target: str,
           d: Point) -> float:
    """`slide_convex(moving, moving_shape, corners, polygon, d)` against the target base: the
    same "already touching" test (GEOS, only when the boxes meet), then the compiled replica of
    its ray searches (`slide_kernel.slide_apart`, the same floats)."""
    goal = board.rect(target)
    corners = goal.corners
    if _boxes_meet(moving, corners):
        a = moving_shape if moving_shape is not None else _shape_of(moving)
        b = _built(goal, "_polygon")
        if shapely.intersects(a, b if b is not None else _shape_of(corners)):
            return 0.0
    cache = board.__dict__.setdefault("_corner_arrays", {})
    found = cache.get(target)
    if found is None:
        found = cache[target] = np.array(corners, dtype=float)
    return slide_apart(np.array(moving, dtype=float), found, float(d[0]), float(d[1]))


def _built(rect: Rect, name: str) -> Any:
    """A rectangle's shapely shape (``_polygon`` or ``_front_edge``) if already built, else None:
    `slide_convex` needs one only when the bounding boxes meet and then builds the same shape
    from the same points (most wheeled bases never need theirs)."""
    return rect.__dict__.get(name)


MISS_MARGIN_MM = 1e-4   # far above float error and the slide's own tolerances (1e-9)


def _lane(wheeled: Rect, goal: Rect) -> float | None:
    """A cheap, certain "no" (None): after the wheel, the front edge moving straight ahead sweeps
    a lane as wide as the front; when every corner of the target lies beyond one side of that
    lane, or behind the front, by MISS_MARGIN_MM, the slide would find no contact (``_attempt``
    returns None). Most of the sweep's wheels point away like this. Otherwise (maybe) the exact
    slide decides, and the answer is how far ahead of the front line the target's nearest
    corner lies (negative: the target reaches behind the front line)."""
    fl, fr, d = wheeled.front_left, wheeled.front_right, wheeled.front
    r = (d[1], -d[0])                                  # to the base's right, along the front
    width = (fr[0] - fl[0]) * r[0] + (fr[1] - fl[1]) * r[1]
    across = [(x - fl[0]) * r[0] + (y - fl[1]) * r[1] for x, y in goal.corners]
    if max(across) < -MISS_MARGIN_MM or min(across) > width + MISS_MARGIN_MM:
        return None
    ahead = [(x - fl[0]) * d[0] + (y - fl[1]) * d[1] for x, y in goal.corners]
    if max(ahead) < -MISS_MARGIN_MM:
        return None
    return min(ahead)


LANE_SPARE_MM = 1e-6   # far above the float error of `lanes_missed` (about 1e-12 mm)


def _may_meet(start: Rect, goal: Rect, turns: list[float]) -> list[float]:
    """The ``turns`` (wheels of the sweep) that `_lane` might not refuse: the others miss the
    target by more than MISS_MARGIN_MM + LANE_SPARE_MM (`lane_kernel.lanes_missed`, all at once),
    so `_attempt` would return None for them without them being built."""
    if not turns:
        return turns
    (lx, ly), (rx, ry) = start.front_left, start.front_right
    missed = lanes_missed(np.array(turns), start.heading_deg, start.width, lx, ly, rx, ry,
                          np.array(goal.corners), MISS_MARGIN_MM + LANE_SPARE_MM)
    return [turn for turn, m in zip(turns, missed.tolist()) if not m]


def _wheel_path(board: Board, charger: str, turn: float) -> list[Rect]:
    """The wheel's poses (`wheel_poses`), cached per charger and turn (its targets share them)."""
    cache = board.__dict__.setdefault("_wheel_paths", {})
    path = cache.get((charger, turn))
    if path is None:
        if abs(turn) > 1e-9:
            # `motion.wheel_poses`' angles (step 10°), each pose shared with the other wheels
            # passing through the same angle
            steps = max(1, math.ceil(abs(turn) / 10.0))
            path = [_pose(board, charger, turn > 0, turn * i / steps) for i in range(steps + 1)]
        else:
            path = [board.rect(charger)]
        cache[(charger, turn)] = path
    return path


def _pose(board: Board, charger: str, left: bool, angle: float) -> Rect:
    """The charger pivoted by ``angle`` on its front left (``left``) or right corner, as
    `motion.wheel` and `wheel_poses` build it, cached per charger, corner and angle (the sign of
    a zero angle kept apart: it can reach the last bit)."""
    cache = board.__dict__.setdefault("_poses", {})
    key = (charger, left, angle, math.copysign(1.0, angle))
    found = cache.get(key)
    if found is None:
        start = board.rect(charger)
        found = cache[key] = start.pivoted(start.front_left if left else start.front_right, angle)
    return found


def _wheeled(board: Board, charger: str, turn: float) -> Rect:
    """The charger wheeled by ``turn`` (the same wheels recur for each of its targets)."""
    cache = board.__dict__.setdefault("_wheeled", {})
    key = (charger, turn)
    found = cache.get(key)
    if found is None:
        found = cache[key] = _pose(board, charger, turn > 0, turn) if abs(turn) > 1e-9 \
            else board.rect(charger)
    return found


def judge_charge(board: Board, charger: str, target: str) -> Charge:
    """The verdict on ``charger`` charging ``target`` (AT26); computed once per state."""
    key = (charger, target)
    if key not in board.charge_cache:
        board.charge_cache[key] = _judge(board, charger, target)
    return board.charge_cache[key]


def _judge(board: Board, charger: str, target: str) -> Charge:
    cu = board.units[charger]
    s = board.settings
    budget = move_budget(board, charger)
    allowance_cm = budget.normal_cm
    c = Charge(charger, target, allowance=budget.available_cm)
    c.reasons = _static_reasons(board, charger, target)
    if cu.is_troops and not s.at11_rates_confirmed:
        c.notes.append(f"move {allowance_cm:g} cm for {cu.type}: {GAP_PREFIX} (ATT AT11)")
    if budget.roll is not None:
        c.notes.append(f"its move is {budget.available_cm:g} cm: {allowance_cm:g} cm less the 1D6 "
                       f"rolled ({budget.roll}) (ATT 5.B); it may wheel up to "
                       f"{budget.wheel_limit_cm:g} cm, {budget.wheel_phrase()} ({WHEEL_CITES})")
    if any(con.other == target for con in board.contacts(charger)) and cu.side != board.units[target].side:
        c.distance = 0.0
        c.contact_aspect = Aspect(edge_aspect(board.side_touched(target, charger)))
        c.legal = not c.reasons
        return c
    if c.reasons and (cu.is_general or cu.is_camp or cu.side == board.units[target].side):
        return c
    start, goal = board.rect(charger), board.rect(target)
    square_turns = [0.0]
    sweep: list[float] = []
    # ATT 5.L: a phalanx may change front, wheel OR move in a turn, never wheel and then move.
    if s.at26_charge_reach == "wheel_then_straight" and not cu.phalanx:
        for normal in _OUTWARD.values():              # squarely onto each edge of the target
            turn = angle_diff(goal.heading_deg + normal + 180.0, start.heading_deg)
            if 1e-6 < abs(turn) <= 90.0 + 1e-9:
                square_turns.append(turn)
        # and a sweep of wheels within the limit, for targets met at an angle (AT26 "touch")
        limit_deg = budget.wheel_limit_deg(start.width)
        steps = int(limit_deg // SWEEP_STEP_DEG)
        # wheels away from the target's side cannot bring the front to it (beyond a few degrees)
        fx, fy = start.front_centre
        bearing = angle_diff(math.degrees(math.atan2(goal.cy - fy, goal.cx - fx)),
                             start.heading_deg)
        sweep = [k * SWEEP_STEP_DEG * sign for k in range(1, steps + 1) for sign in (1, -1)
                 if k * SWEEP_STEP_DEG <= 10.0 or sign * bearing > -10.0]
    # The square wheels first; the sweep only when none of them gives a clear legal path.
    tries = _tries(board, charger, target, square_turns, budget)
    best = _first_clear(board, charger, target, tries, fallback=False)
    if best is None or best.reasons or not best.flush:
        sweep = _may_meet(start, goal, sweep)
        tries = sorted(tries + _tries(board, charger, target, sweep, budget), key=_preference)
        best = _first_clear(board, charger, target, tries)
    if best is None:
        c.reasons.append("a phalanx cannot wheel and then move in one turn (ATT 5.L)" if cu.phalanx
                         else "its front edge cannot meet an edge of the target with one forward "
                         "wheel and a straight move (AT26)")
        return c
    c.distance = board.cm(best.total_mm)
    c.wheel_deg = best.wheel_deg
    c.contact_aspect = Aspect(edge_aspect(_touched_edge(goal, best.final, board.contact_tol,
                                                        s.at1_contact_side)))
    c.reasons += best.reasons
    c.notes += best.notes
    c.passes_through = best.passes
    c.terrain = best.terrain
    c.path = [[p.front_centre[0], p.front_centre[1]] for p in best.poses]
    c.final_pose = {"x_mm": best.final.cx, "y_mm": best.final.cy,
                    "heading_deg": best.final.heading_deg}
    c.legal = not c.reasons
    return c


def _touched_edge(goal: Rect, final: Rect, tol: float, method: str) -> str:
    """`contact.touched_edge(goal, final, tol, method)`; by the longest shared segment, its
    `shared_lengths` compiled (`contact.shared_lengths_compiled`, the same floats)."""
    if method != "longest_shared_segment":
        return touched_edge(goal, final, tol, method)
    return edge_of_lengths(shared_lengths_compiled(goal, final, tol), tol)


def _preference(t: _Try) -> tuple[Any, ...]:
    """Legal (and not blocked) first, then edge to edge, then squarely met, then the shortest
    (to 0.01 mm, so that mirror-image paths tie whatever the float noise), then the smaller
    wheel, left before right."""
    return (bool(t.reasons) or t.blocked, not t.flush, not t.square, round(t.total_mm, 2),
            round(abs(t.wheel_deg), 6), -math.copysign(1.0, t.wheel_deg))


def _tries(board: Board, charger: str, target: str, turns: list[float],
           budget: MoveBudget) -> list[_Try]:
    return sorted((t for t in (_attempt(board, charger, target, turn, budget)
                               for turn in turns) if t is not None), key=_preference)


def _first_clear(board: Board, charger: str, target: str, tries: list[_Try],
                 fallback: bool = True) -> _Try | None:
    """The preferred try whose path is clear (path checks are the costly part, so they run in
    order of preference and stop at the first clear one); else the preferred try, checked
    (``fallback``), or None: the square wheels' search leaves that to the sweep, which always
    follows when no square wheel is clear, and the check would not change the order."""
    if not tries:
        return None
    for t in tries:
        if t.blocked:
            continue
        if t.reasons and not t.checked:
            break                      # sorted: every later try is also too long or too wide
        if not t.checked:
            if enemy_blocks(board, charger, target, t) or terrain_blocks(board, charger, t):
                t.blocked = True       # not clear: checked in full only if reported (below)
                continue
            path_checks(board, charger, target, t.wheeled, t.d_front, t)
            t.checked = True
        if not t.reasons:
            return t
    if not fallback:
        return None
    best = tries[0]
    if not best.checked:
        path_checks(board, charger, target, best.wheeled, best.d_front, best)
        best.checked = True
    return best


def candidates(board: Board, charger: str) -> list[str]:
    """Enemy bases within the charger's move (Generals and Camps consider none)."""
    cu = board.units[charger]
    if not cu.is_troops:
        return []
    reach = board.mm(cu.move_cm(board.settings)) + board.contact_tol
    side = cu.side
    return [i for i in board.near(charger, reach) if board.units[i].side != side]
