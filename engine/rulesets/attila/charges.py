"""Charges: can this base reach that enemy with one move (ATT 5, 7, 13; reading AT26)?

A charge is one optional forward wheel on a front corner (at most half the normal move measured
along the moving corner's arc, ATT 5.G, 5.I, AT15: `moves.MoveBudget`) then a straight move until
the front edge lies along an edge of the target (AT2: a shared segment, not a corner). What the
path runs into (enemies, friends, terrain, water) is `paths`.

Every charge asked about is judged at once (`judge_charges`): the wheels worth trying are the
square ones (the front squarely onto an edge of the target) and, when none of those gives a clear
edge-to-edge path, a sweep every 5° within the wheel limit. All attempts of all charges are one
set of numpy arrays (`Attempts`): the wheeled bases, the lane test that refuses the wheels whose
front never meets the target, the slide to contact, the edge-to-edge and square tests. Attempts are
then tried in order of preference, charge by charge, their paths checked in batches
(`paths.path_facts`), until each charge has its first clear attempt (or its best refused one).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from campo.engine.boundary import CLOSE_CALL, decide, key
from campo.engine.geometry.contact import edge_aspect, touched_edge
from campo.engine.geometry.rect import Rect, angle_diff
from campo.engine.results import Aspect
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.geometry import Frames, clip_lengths, slide
from campo.engine.rulesets.attila.moves import WHEEL_CITES, MoveBudget, move_budget
from campo.engine.rulesets.attila.paths import PathFacts, path_facts
from campo.engine.rulesets.attila.settings import GAP_PREFIX

SWEEP_STEP_DEG = 5.0   # wheels tried between the square ones, for targets met at an angle
WHEEL_POSE_STEP_DEG = 10.0   # the drawn path's points along a wheel
_OUTWARD = (0.0, 90.0, 180.0, -90.0)   # each edge's outward normal against the heading
MISS_MARGIN_MM = 1e-4   # a target this far beyond the lane of the front is missed
SQUARE_DEG = 0.5        # met "squarely": the fronts within this of parallel
BODY_FIRST_MM = 0.5     # the flank or a rear corner strikes this much before the front
_EPS = 1e-6


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
    close_calls: list[str] = field(default_factory=list)

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
        if self.close_calls:
            d["close_calls"] = list(self.close_calls)
        return d


def candidates(board: Board, charger: str) -> list[str]:
    """Enemy bases within the charger's move (Generals and Camps consider none), sorted."""
    return all_candidates(board, [charger])[charger]


def all_candidates(board: Board, chargers: Iterable[str]) -> dict[str, list[str]]:
    """Per charger, the enemy bases within its move plus the contact tolerance: one STRtree
    query for all."""
    chargers = list(chargers)
    out: dict[str, list[str]] = {c: [] for c in chargers}
    troops = [c for c in chargers if board.units[c].is_troops]
    if not troops:
        return out
    reach = np.array([board.mm(board.units[c].move_cm(board.settings)) + board.contact_tol
                      for c in troops])
    si, bi, _ = board.pairs_within(board.shapes[[board.pos[c] for c in troops]], reach)
    for s, b in zip(si.tolist(), bi.tolist()):
        c, o = troops[s], board.order[b]
        if board.units[o].side != board.units[c].side:
            out[c].append(o)
    for v in out.values():
        v.sort()
    return out


def judge_charge(board: Board, charger: str, target: str) -> Charge:
    """The verdict on ``charger`` charging ``target`` (AT26)."""
    return judge_charges(board, [(charger, target)])[(charger, target)]


def judge_charges(board: Board, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Charge]:
    """The verdicts on many charges, judged together; each is judged once per state."""
    known: dict[tuple[str, str], Charge] = board.state.cached("attila.charges", dict)
    todo = [p for p in dict.fromkeys(pairs) if p not in known]
    if todo:
        known.update(_judge(board, todo))
    return {p: known[p] for p in pairs}


# --- one charge's facts before any geometry ----------------------------------------------------
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


def _start(board: Board, charger: str, target: str) -> tuple[Charge, bool]:
    """The charge with what is known before any geometry, and whether it needs geometry (not
    when the two already touch, nor when nothing could move)."""
    cu, tu = board.units[charger], board.units[target]
    budget = move_budget(board, charger)
    c = Charge(charger, target, allowance=budget.available_cm)
    c.reasons = _static_reasons(board, charger, target)
    if cu.is_troops and not board.settings.at11_rates_confirmed:
        c.notes.append(f"move {budget.normal_cm:g} cm for {cu.type}: {GAP_PREFIX} (ATT AT11)")
    if budget.roll is not None:
        c.notes.append(f"its move is {budget.available_cm:g} cm: {budget.normal_cm:g} cm less the "
                       f"1D6 rolled ({budget.roll}) (ATT 5.B); it may wheel up to "
                       f"{budget.wheel_limit_cm:g} cm, {budget.wheel_phrase()} ({WHEEL_CITES})")
    if cu.side != tu.side:
        touching = next((x for x in board.contacts(charger) if x.other == target), None)
        if touching is not None:
            c.distance = 0.0
            c.contact_aspect = Aspect(edge_aspect(board.side_touched(target, charger)))
            c.legal = not c.reasons
            if touching.close:
                c.close_calls.append("contact")
            return c, False
    return c, not (c.reasons and (cu.is_general or cu.is_camp or cu.side == tu.side))


# --- the attempts ------------------------------------------------------------------------------
@dataclass
class _Pairs:
    """The charges that need geometry, as arrays (one row each)."""

    keys: list[tuple[str, str]]
    budgets: list[MoveBudget]
    charger: np.ndarray          # board rows
    target: np.ndarray
    allowance_mm: np.ndarray
    limit_mm: np.ndarray
    wheels: np.ndarray           # may wheel (AT26 'wheel_then_straight' and not a phalanx)


@dataclass
class Attempts:
    """Attempts (one wheel each, then straight on) of many charges, as arrays."""

    pair: np.ndarray
    turn: np.ndarray
    wheeled: Frames
    d_front: np.ndarray          # straight on after the wheel, mm
    cost: np.ndarray             # the wheel: the moving corner's arc, mm
    flush: np.ndarray            # the fronts lie along each other (AT2)
    square: np.ndarray
    wide: np.ndarray             # the wheel is wider than allowed
    no_move_left: np.ndarray     # ATT 5.G: the wheel in full, nothing left to go straight on
    too_long: np.ndarray

    @property
    def total(self) -> np.ndarray:
        return self.cost + self.d_front

    @property
    def refused(self) -> np.ndarray:
        return self.wide | self.no_move_left | self.too_long

    @property
    def final(self) -> Frames:
        return self.wheeled.moved(self.d_front)


def _attempts(board: Board, pairs: _Pairs, rows: np.ndarray, turns: np.ndarray) -> Attempts:
    """The attempts of pairs ``rows`` (repeated, one per wheel) with wheels ``turns`` that can
    meet the target: the others (the front, moving straight on, never meets it; or a flank or
    rear corner strikes first) are left out."""
    f = board.frames
    start = f.take(pairs.charger[rows])
    goal = f.take(pairs.target[rows])
    w = start.wheeled(turns)
    # the lane: the target must lie across the front's lane and not wholly behind the front
    fl = w.front_edges[:, 0]
    rel = goal.corners - fl[:, None, :]
    across = rel[..., 0] * w.fy[:, None] - rel[..., 1] * w.fx[:, None]
    ahead = rel[..., 0] * w.fx[:, None] + rel[..., 1] * w.fy[:, None]
    keep = ~((across.max(axis=1) < -MISS_MARGIN_MM)
             | (across.min(axis=1) > w.width + MISS_MARGIN_MM)
             | (ahead.max(axis=1) < -MISS_MARGIN_MM))
    d_front = np.full(len(rows), np.inf)
    if keep.any():
        at = np.nonzero(keep)[0]
        d_front[at] = slide(w.front_edges[at], goal.corners[at], w.front[at])
        # a target reaching behind the front line may be struck first by a flank or rear corner
        behind = at[(ahead.min(axis=1)[at] < 0.0) & np.isfinite(d_front[at])]
        if len(behind):
            body = slide(w.corners[behind], goal.corners[behind], w.front[behind])
            d_front[behind[body < d_front[behind] - BODY_FIRST_MM]] = np.inf
    ok = np.nonzero(np.isfinite(d_front))[0]
    rows, turns, w, goal, d_front = rows[ok], turns[ok], w.take(ok), goal.take(ok), d_front[ok]
    final = w.moved(d_front)
    fe = final.front_edges
    flush = clip_lengths(fe[:, 0], fe[:, 1], goal, max(board.contact_tol, _EPS)) > \
        board.settings.contact_min_shared_mm
    facing = (start.heading_deg[ok] + turns - goal.heading_deg - 180.0)[:, None] - \
        np.array(_OUTWARD)[None, :]
    square = (np.abs((facing + 180.0) % 360.0 - 180.0) < SQUARE_DEG).any(axis=1)
    cost = w.width * np.radians(np.abs(turns))
    allowance, limit = pairs.allowance_mm[rows], pairs.limit_mm[rows]
    wide = cost > limit + _EPS
    beyond = ~wide & (cost > allowance + _EPS)         # ATT 5.G: the wheel is made in full
    return Attempts(rows, turns, w, d_front, cost, flush, square, wide, beyond & (d_front > _EPS),
                    ~beyond & (cost + d_front > allowance + _EPS))


def _square_turns(board: Board, pairs: _Pairs) -> tuple[np.ndarray, np.ndarray]:
    """(pair row, turn) of the straight attempt and the wheels that set the front squarely
    against each edge of the target (within 90°)."""
    f = board.frames
    start_h = f.heading_deg[pairs.charger]
    goal_h = f.heading_deg[pairs.target]
    n = len(pairs.keys)
    turns = (goal_h[:, None] + np.array(_OUTWARD)[None, :] + 180.0 - start_h[:, None])
    turns = (turns + 180.0) % 360.0 - 180.0
    turns = np.where(turns == -180.0, 180.0, turns)
    usable = (np.abs(turns) > _EPS) & (np.abs(turns) <= 90.0 + 1e-9) & pairs.wheels[:, None]
    rows = np.concatenate([np.arange(n), np.repeat(np.arange(n), 4)[usable.ravel()]])
    return rows, np.concatenate([np.zeros(n), turns.ravel()[usable.ravel()]])


def _sweep_turns(board: Board, pairs: _Pairs, which: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(pair row, turn) of the sweep of wheels every SWEEP_STEP_DEG within each pair's wheel
    limit, for targets met at an angle; wheels away from the target's side (beyond 10°) cannot
    bring the front to it and are left out."""
    rows: list[int] = []
    turns: list[float] = []
    for k in which:
        if not pairs.wheels[k]:
            continue
        start = board.rect(pairs.keys[k][0])
        goal = board.rect(pairs.keys[k][1])
        steps = int(pairs.budgets[k].wheel_limit_deg(start.width) // SWEEP_STEP_DEG)
        fx, fy = start.front_centre
        bearing = angle_diff(math.degrees(math.atan2(goal.cy - fy, goal.cx - fx)),
                             start.heading_deg)
        for step in range(1, steps + 1):
            for sign in (1, -1):
                if step * SWEEP_STEP_DEG <= 10.0 or sign * bearing > -10.0:
                    rows.append(k)
                    turns.append(step * SWEEP_STEP_DEG * sign)
    return np.array(rows, dtype=int), np.array(turns, dtype=float)


def _concat(a: Attempts, b: Attempts) -> Attempts:
    def cat(x: Any, y: Any) -> Any:
        if isinstance(x, Frames):
            return Frames(*(np.concatenate([getattr(x, n), getattr(y, n)])
                            for n in ("cx", "cy", "fx", "fy", "width", "depth")))
        return np.concatenate([x, y])
    return Attempts(*(cat(getattr(a, n), getattr(b, n)) for n in Attempts.__dataclass_fields__))


def _preference(att: Attempts, blocked: np.ndarray) -> np.ndarray:
    """Attempt indices grouped by pair, each pair's in order of preference: legal (and not
    blocked) first, then edge to edge, then squarely met, then the shortest (to 0.01 mm, so that
    mirror-image paths tie whatever the float noise), then the smaller wheel, left before
    right."""
    return np.lexsort((-np.copysign(1.0, att.turn), np.round(np.abs(att.turn), 6),
                       np.round(att.total, 2), ~att.square, ~att.flush, att.refused | blocked,
                       att.pair))


# --- the search --------------------------------------------------------------------------------
def _search(board: Board, pairs: _Pairs) -> tuple[Attempts, dict[int, int], dict[int, PathFacts]]:
    """Per pair, the attempt to report (index into the returned attempts; pairs with no attempt
    at all are missing), and the path facts of every attempt checked."""
    rows, turns = _square_turns(board, pairs)
    att = _attempts(board, pairs, rows, turns)
    facts: dict[int, PathFacts] = {}
    chosen = _first_clear(board, pairs, att, facts, range(len(pairs.keys)), fallback=False)
    sweep = [k for k in range(len(pairs.keys))
             if chosen.get(k) is None or not att.flush[chosen[k]]]
    if sweep:
        srows, sturns = _sweep_turns(board, pairs, sweep)
        if len(srows):
            att = _concat(att, _attempts(board, pairs, srows, sturns))
        chosen.update(_first_clear(board, pairs, att, facts, sweep, fallback=True))
    return att, {k: v for k, v in chosen.items() if v is not None}, facts


def _first_clear(board: Board, pairs: _Pairs, att: Attempts, facts: dict[int, PathFacts],
                 which: Iterable[int], *, fallback: bool) -> dict[int, int | None]:
    """Per pair of ``which``, its preferred attempt whose path is clear. The paths are checked
    in order of preference, in rounds: each round checks, in one batch, the next attempt of
    every pair still looking. When none is clear: with ``fallback`` the preferred attempt
    (checked, for its reasons), else None."""
    blocked = np.zeros(len(att.pair), dtype=bool)
    for i, f in facts.items():
        blocked[i] = bool(f.reasons)
    by_pair: dict[int, list[int]] = {}
    for i in _preference(att, blocked).tolist():
        by_pair.setdefault(int(att.pair[i]), []).append(i)
    refused = att.refused
    out: dict[int, int | None] = {}
    place = {k: 0 for k in which}
    while place:
        ask: dict[int, int] = {}
        for k, n in list(place.items()):
            tries = by_pair.get(k, [])
            while n < len(tries) and tries[n] in facts and facts[tries[n]].reasons:
                n += 1                       # checked: something in the way
            place[k] = n
            if n < len(tries) and tries[n] in facts:
                out[k] = tries[n]            # checked and clear
            elif n < len(tries) and not refused[tries[n]]:
                ask[k] = tries[n]            # next to check
                continue
            elif fallback and tries:         # none clear (sorted: the rest are refused too)
                out[k] = tries[0]
                if tries[0] not in facts:
                    ask[k] = tries[0]
            else:
                out[k] = None
            del place[k]
        if ask:
            facts.update(path_facts(board, pairs.keys, att, list(dict.fromkeys(ask.values()))))
    return out


# --- the verdicts --------------------------------------------------------------------------------
def _judge(board: Board, todo: list[tuple[str, str]]) -> dict[tuple[str, str], Charge]:
    out: dict[tuple[str, str], Charge] = {}
    geo: list[tuple[tuple[str, str], Charge]] = []
    for pair in todo:
        c, needs = _start(board, *pair)
        out[pair] = c
        if needs:
            geo.append((pair, c))
    if not geo:
        return out
    s = board.settings
    budgets = [move_budget(board, c) for (c, _), _ in geo]
    pairs = _Pairs(
        keys=[k for k, _ in geo], budgets=budgets,
        charger=np.array([board.pos[c] for (c, _), _ in geo]),
        target=np.array([board.pos[t] for (_, t), _ in geo]),
        allowance_mm=np.array([board.mm(b.available_cm) for b in budgets]),
        limit_mm=np.array([board.mm(b.wheel_limit_cm) for b in budgets]),
        wheels=np.array([s.at26_charge_reach == "wheel_then_straight"
                         and not board.units[c].phalanx for (c, _), _ in geo], dtype=bool))
    att, chosen, facts = _search(board, pairs)
    for k, (pair, c) in enumerate(geo):
        i = chosen.get(k)
        if i is None:
            c.reasons.append("a phalanx cannot wheel and then move in one turn (ATT 5.L)"
                             if board.units[pair[0]].phalanx else
                             "its front edge cannot meet an edge of the target with one forward "
                             "wheel and a straight move (AT26)")
        else:
            _report(board, c, pairs.budgets[k], att, i, facts[i])
    return out


def _report(board: Board, c: Charge, budget: MoveBudget, att: Attempts, i: int,
            facts: PathFacts) -> None:
    """Fill the charge from its chosen attempt ``i`` and that attempt's path."""
    start, goal = board.rect(c.charger), board.rect(c.target)
    turn = float(att.turn[i])
    cost, d_front = float(att.cost[i]), float(att.d_front[i])
    total = cost + d_front
    w = att.wheeled.take(np.array([i]))
    fin = w.moved(np.array([d_front]))
    final = Rect(float(fin.cx[0]), float(fin.cy[0]), (start.heading_deg + turn) % 360.0,
                 start.width, start.depth)
    if att.wide[i]:
        c.reasons.append(f"needs a wheel of {abs(turn):.0f}° ({board.cm(cost):.1f} cm along the "
                         f"moving corner's arc), wider than the "
                         f"{budget.wheel_limit_deg(start.width):.0f}° allowed "
                         f"({budget.wheel_limit_cm:.1f} cm: {budget.wheel_phrase()}) "
                         f"({WHEEL_CITES})")
    after_wheel = not att.wide[i] and cost > board.mm(budget.available_cm) + _EPS
    if not (after_wheel and d_front <= _EPS):    # ATT 5.G: a wheel alone reaching contact
        _reach(board, c, budget, total, cost, d_front, after_wheel)
    if not att.flush[i]:
        c.notes.append("its front edge meets the target at an angle: line the bases up to "
                       "fight (AT2, AT26)")
    c.reasons += facts.reasons
    c.notes += facts.notes
    c.passes_through = list(facts.passes)
    c.terrain = list(facts.terrain)
    c.distance = board.cm(total)
    c.wheel_deg = turn
    c.contact_aspect = Aspect(edge_aspect(touched_edge(
        goal, final, board.contact_tol, board.settings.at1_contact_side)))
    c.path = _path_points(board, c.charger, turn, final)
    c.final_pose = {"x_mm": final.cx, "y_mm": final.cy, "heading_deg": final.heading_deg}
    c.legal = not c.reasons


def _reach(board: Board, c: Charge, budget: MoveBudget, total: float, cost: float,
           d_front: float, after_wheel: bool) -> None:
    """The reach verdict (`boundary.decide`: within close_call_mm of the move it is too close
    to call, and held live), and its reason when out of reach."""
    margin = board.mm(budget.available_cm) - total + _EPS
    reach, close = decide([margin], board.close_call, [key("reach", c.charger, c.target)],
                          board.state.held)
    measure = f"; {CLOSE_CALL}" if close[0] else ""
    if close[0]:
        c.close_calls.append("reach")
    if reach[0]:
        return
    if after_wheel:
        c.reasons.append(f"after its wheel of {board.cm(cost):.1f} cm (allowed in full, ATT "
                         f"5.G) no move is left for the {board.cm(d_front):.1f} cm straight on: "
                         f"its move is {budget.available_cm:g} cm after the 1D6 (ATT 5.B)"
                         + measure)
    else:
        c.reasons.append(f"needs {board.cm(total):.1f} cm, more than its move of "
                         f"{budget.available_cm:.1f} cm"
                         + ("" if budget.roll is None else
                            f" ({budget.normal_cm:g} cm less the 1D6 of {budget.roll}, ATT 5.B)")
                         + measure)


def _path_points(board: Board, charger: str, turn: float, final: Rect) -> list[list[float]]:
    """The front centre along the wheel (every WHEEL_POSE_STEP_DEG or less) and at the end."""
    start = board.frames.take(np.array([board.pos[charger]]))
    steps = max(1, math.ceil(abs(turn) / WHEEL_POSE_STEP_DEG)) if abs(turn) > 1e-9 else 0
    angles = np.array([turn * k / steps for k in range(steps + 1)]) if steps else np.zeros(1)
    poses = Frames(*(np.repeat(getattr(start, n), len(angles))
                     for n in ("cx", "cy", "fx", "fy", "width", "depth"))).wheeled(angles)
    centres = poses.point(0.0, poses.depth / 2).tolist()
    return [[x, y] for x, y in centres] + [list(final.front_centre)]
