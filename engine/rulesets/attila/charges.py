"""Charges: can this base reach that enemy with one move (ATT 5, 7, 13; reading AT26)?

A charge is one optional forward wheel on a front corner (at most half the normal move measured
along the moving corner's arc, AT15) then a straight move until the front edge lies along an edge
of the target (AT2: a shared segment, not a corner). Terrain stops (ATT 5.B, 5.F, AT16), water
(ATT 5.B) and enemy bases (ATT 5.C) block; friends are passed through and disordered (ATT 5.C).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import shapely

from engine.geometry.contact import edge_aspect, shared_lengths, touched_edge
from engine.geometry.motion import slide_convex, swept_area, wheel, wheel_cost, wheel_poses
from engine.geometry.rect import Rect, angle_diff
from engine.results import Aspect
from engine.rulesets.attila.board import (
    CROSSINGS, MARSHES, ROUGH, WATER_AREAS, WATER_LINES, WOODS, Board,
)
from engine.rulesets.attila.settings import GAP_PREFIX

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


def _stopping_kinds(board: Board, mounted: bool) -> frozenset[str]:
    """Features whose entry stops the unit (ATT 5.B «devono arrestarsi immediatamente», 5.F)."""
    kinds = WOODS | MARSHES
    if board.settings.at17_broken_is_difficult or not mounted:
        kinds = kinds | ROUGH
    return kinds


def _forbidden_kinds(board: Board, mounted: bool) -> frozenset[str]:
    """Features the unit may not enter: mounted units and woods/marshes (ATT 5.B), and difficult
    terrain unless at16_mounted_enter_difficult."""
    if not mounted:
        return WATER_AREAS
    kinds = WATER_AREAS | WOODS | MARSHES
    if not board.settings.at16_mounted_enter_difficult:
        kinds = kinds | ROUGH
    return kinds


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

    @cached_property
    def poses(self) -> list[Rect]:
        """The wheel's intermediate poses then the final one (built only for the tries whose
        path is checked or reported)."""
        turn = self.wheel_deg
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


def _attempt(board: Board, charger: str, target: str, turn: float, allowance_mm: float) -> _Try | None:
    s = board.settings
    start, goal = board.rect(charger), board.rect(target)
    if _lane_misses(start, turn, goal):
        return None                    # the front, moving straight on, never meets the target
    cost = wheel_cost(start, turn)
    wheeled = wheel(start, turn) if abs(turn) > 1e-9 else start
    reasons: list[str] = []
    limit = allowance_mm / 2.0
    if cost > limit + 1e-6:
        reasons.append(f"the wheel of {abs(turn):.0f}° costs {board.cm(cost):.1f} cm, more than "
                       f"half the move ({board.cm(limit):.1f} cm) (ATT 5.I, AT15)")
    d = wheeled.front
    corners = goal.corners
    # slide_convex builds the wheeled shapes (None) only when the bounding boxes meet
    d_front = slide_convex((wheeled.front_left, wheeled.front_right), None, corners,
                           goal.polygon, d)
    if not math.isfinite(d_front):
        return None
    d_rect = slide_convex(wheeled.corners, None, corners, goal.polygon, d)
    if d_rect < d_front - 0.5:
        return None                                   # its flank or a corner would strike first
    final = wheeled.moved(d[0] * d_front, d[1] * d_front)
    flush = shared_lengths(final, goal, board.contact_tol)["front"] > s.contact_min_shared_mm
    square = any(abs(angle_diff(final.heading_deg, goal.heading_deg + n + 180.0)) < 0.5
                 for n in _OUTWARD.values())
    total = cost + d_front
    if total > allowance_mm + 1e-6:
        reasons.append(f"needs {board.cm(total):.1f} cm, more than its move of "
                       f"{board.cm(allowance_mm):.1f} cm")
    t = _Try(total, turn, final, start, reasons, [], [], [], flush, square, wheeled, d_front)
    if not flush:
        t.notes.append("its front edge meets the target at an angle: line the bases up to "
                       "fight (AT2, AT26)")
    return t


MISS_MARGIN_MM = 1e-4   # far above float error and the slide's own tolerances (1e-9)


def _lane_misses(start: Rect, turn: float, goal: Rect) -> bool:
    """A cheap, certain "no": after the wheel, the front edge moving straight ahead sweeps a lane
    as wide as the front; when every corner of the target lies beyond one side of that lane, or
    behind the front, by MISS_MARGIN_MM, the slide would find no contact (``_attempt`` returns
    None). Most of the sweep's wheels point away like this; they skip building the wheeled base.
    Otherwise (maybe) the exact slide decides."""
    if abs(turn) > 1e-9:
        px, py = start.front_left if turn > 0 else start.front_right
        a = math.radians(turn)
        c, s = math.cos(a), math.sin(a)
        (lx, ly), (rx, ry) = start.front_left, start.front_right
        fl = (px + (lx - px) * c - (ly - py) * s, py + (lx - px) * s + (ly - py) * c)
        fr = (px + (rx - px) * c - (ry - py) * s, py + (rx - px) * s + (ry - py) * c)
        h = math.radians(start.heading_deg + turn)
        d = (math.cos(h), math.sin(h))
    else:
        fl, fr, d = start.front_left, start.front_right, start.front
    r = (d[1], -d[0])                                  # to the base's right, along the front
    width = (fr[0] - fl[0]) * r[0] + (fr[1] - fl[1]) * r[1]
    across = [(x - fl[0]) * r[0] + (y - fl[1]) * r[1] for x, y in goal.corners]
    if max(across) < -MISS_MARGIN_MM or min(across) > width + MISS_MARGIN_MM:
        return True
    ahead = [(x - fl[0]) * d[0] + (y - fl[1]) * d[1] for x, y in goal.corners]
    return max(ahead) < -MISS_MARGIN_MM


def _path_checks(board: Board, charger: str, target: str, wheeled: Rect, d_front: float,
                 t: _Try) -> None:
    cu = board.units[charger]
    swept = swept_area(t.poses)
    inner = swept.buffer(-board.contact_tol)
    for other in board.near(charger, t.total_mm + board.contact_tol):
        if other in (charger, target) or board.units[other].absent:
            continue
        if not shapely.intersects(inner, board.poly(other)):
            continue
        if board.units[other].side != cu.side:
            t.reasons.append(f"enemy {other} is in the way: enemies cannot be passed through "
                             "(ATT 5.C)")
        else:
            t.passes.append(other)
    if t.passes:
        t.notes.append(f"passes through {', '.join(t.passes)}, disordering "
                       f"{'it' if len(t.passes) == 1 else 'them'} (ATT 5.C)")
    terrain = board.state.scenario.terrain
    crossings = [f for f in terrain if f.kind in CROSSINGS]
    for f in terrain:
        if f.kind in WATER_LINES and board.lines[f.id].intersects(inner):
            if not any(shapely.intersects(_shape(board, c.id), inner) for c in crossings):
                t.reasons.append(f"cannot cross {f.kind} {f.id!r} except at bridges or fords "
                                 "(ATT 5.B)")
            elif any(c.kind == "ford" and shapely.intersects(_shape(board, c.id), inner)
                     for c in crossings):
                t.reasons.append(f"reaching the ford on {f.id!r} stops the unit (ATT 5.B)")
        if not f.is_area:
            continue
        poly = board.areas[f.id]
        start_front = board.rect(charger).front_edge
        if not poly.intersects(inner) and not poly.intersects(start_front):
            continue                   # the path does not go into it (beyond the tolerance)
        if f.kind in _forbidden_kinds(board, cu.mounted) and poly.intersects(inner):
            t.reasons.append(f"{'mounted units' if cu.mounted else 'no unit'} may not enter "
                             f"{f.kind} {f.id!r} (ATT 5.B)")
            continue
        if f.kind not in _stopping_kinds(board, cu.mounted):
            continue
        if poly.intersects(start_front):
            t.terrain.append(f.id)
            t.notes.append(f"front line on {f.kind} {f.id!r}: the move is reduced by 1D6 "
                           "(ATT 5.B, 5.F)")
            continue
        if abs(t.wheel_deg) > 0 and any(poly.intersects(p.front_edge) for p in t.poses[1:-1]):
            t.reasons.append(f"the wheel enters {f.kind} {f.id!r} and stops there (ATT 5.B)")
            continue
        entry = slide_convex((wheeled.front_left, wheeled.front_right), wheeled.front_edge,
                             board.area_vertices(f.id), poly, wheeled.front)
        if entry < d_front - board.contact_tol:
            t.reasons.append(f"stops on entering {f.kind} {f.id!r} before reaching the target "
                             "(ATT 5.B, 5.F, AT16)")
        elif poly.intersects(t.final.polygon.buffer(-board.contact_tol)):
            t.terrain.append(f.id)


def _shape(board: Board, fid: str) -> Any:
    return board.areas.get(fid) or board.lines[fid]


def judge_charge(board: Board, charger: str, target: str) -> Charge:
    """The verdict on ``charger`` charging ``target`` (AT26); computed once per state."""
    key = (charger, target)
    if key not in board.charge_cache:
        board.charge_cache[key] = _judge(board, charger, target)
    return board.charge_cache[key]


def _judge(board: Board, charger: str, target: str) -> Charge:
    cu = board.units[charger]
    s = board.settings
    allowance_cm = cu.move_cm(s)
    c = Charge(charger, target, allowance=allowance_cm)
    c.reasons = _static_reasons(board, charger, target)
    if cu.is_troops and not s.at11_rates_confirmed:
        c.notes.append(f"move {allowance_cm:g} cm for {cu.type}: {GAP_PREFIX} (ATT AT11)")
    if any(con.other == target for con in board.contacts(charger)) and cu.side != board.units[target].side:
        c.distance = 0.0
        c.contact_aspect = Aspect(edge_aspect(board.side_touched(target, charger)))
        c.legal = not c.reasons
        return c
    if c.reasons and (cu.is_general or cu.is_camp or cu.side == board.units[target].side):
        return c
    start, goal = board.rect(charger), board.rect(target)
    allowance = board.mm(allowance_cm)
    square_turns = [0.0]
    sweep: list[float] = []
    # ATT 5.L: a phalanx may change front, wheel OR move in a turn, never wheel and then move.
    if s.at26_charge_reach == "wheel_then_straight" and not cu.phalanx:
        for normal in _OUTWARD.values():              # squarely onto each edge of the target
            turn = angle_diff(goal.heading_deg + normal + 180.0, start.heading_deg)
            if 1e-6 < abs(turn) <= 90.0 + 1e-9:
                square_turns.append(turn)
        # and a sweep of wheels within the limit, for targets met at an angle (AT26 "touch")
        limit_deg = min(90.0, math.degrees(allowance / 2.0 / start.width))
        steps = int(limit_deg // SWEEP_STEP_DEG)
        # wheels away from the target's side cannot bring the front to it (beyond a few degrees)
        fx, fy = start.front_centre
        bearing = angle_diff(math.degrees(math.atan2(goal.cy - fy, goal.cx - fx)),
                             start.heading_deg)
        sweep = [k * SWEEP_STEP_DEG * sign for k in range(1, steps + 1) for sign in (1, -1)
                 if k * SWEEP_STEP_DEG <= 10.0 or sign * bearing > -10.0]
    # The square wheels first; the sweep only when none of them gives a clear legal path.
    tries = _tries(board, charger, target, square_turns, allowance)
    best = _first_clear(board, charger, target, tries)
    if best is None or best.reasons or not best.flush:
        tries = sorted(tries + _tries(board, charger, target, sweep, allowance), key=_preference)
        best = _first_clear(board, charger, target, tries)
    if best is None:
        c.reasons.append("a phalanx cannot wheel and then move in one turn (ATT 5.L)" if cu.phalanx
                         else "its front edge cannot meet an edge of the target with one forward "
                         "wheel and a straight move (AT26)")
        return c
    c.distance = board.cm(best.total_mm)
    c.wheel_deg = best.wheel_deg
    c.contact_aspect = Aspect(edge_aspect(touched_edge(goal, best.final, board.contact_tol,
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


def _preference(t: _Try) -> tuple[Any, ...]:
    """Legal first, then edge to edge, then squarely met, then the shortest (to 0.01 mm, so that
    mirror-image paths tie whatever the float noise), then the smaller wheel, left before right."""
    return (bool(t.reasons), not t.flush, not t.square, round(t.total_mm, 2),
            round(abs(t.wheel_deg), 6), -math.copysign(1.0, t.wheel_deg))


def _tries(board: Board, charger: str, target: str, turns: list[float],
           allowance: float) -> list[_Try]:
    return sorted((t for t in (_attempt(board, charger, target, turn, allowance)
                               for turn in turns) if t is not None), key=_preference)


def _first_clear(board: Board, charger: str, target: str, tries: list[_Try]) -> _Try | None:
    """The preferred try whose path is clear (path checks are the costly part, so they run in
    order of preference and stop at the first clear one); else the preferred try, checked."""
    if not tries:
        return None
    for t in tries:
        if t.reasons and not t.checked:
            break                      # sorted: every later try is also too long or too wide
        if not t.checked:
            _path_checks(board, charger, target, t.wheeled, t.d_front, t)
            t.checked = True
        if not t.reasons:
            return t
    best = tries[0]
    if not best.checked:
        _path_checks(board, charger, target, best.wheeled, best.d_front, best)
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
