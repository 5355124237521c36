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
then tried in order of preference, charge by charge: those with an enemy certainly in their
straight move are passed over (a numpy test of them all), the others' paths checked in batches
(`paths.path_facts`), until each charge has its first clear attempt (or its preferred one).
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely

from campo.engine.boundary import CLOSE_CALL, HeldVerdicts, decide, key
from campo.engine.geometry.contact import edge_aspect, edge_of_lengths, touched_edge
from campo.engine.geometry.folds import either, highest, lowest
from campo.engine.geometry.rect import EDGE_NAMES, Rect
from campo.engine.results import Aspect, charge_entry, with_lists
from campo.engine.rulesets.attila.board import BaseKey, Board, Contact
from campo.engine.rulesets.attila.geometry import Frames, clip_lengths, shared_lengths, slide
from campo.engine.rulesets.attila.moves import WHEEL_CITES, MoveBudget, move_budget
from campo.engine.rulesets.attila.paths import PathFacts, path_facts, run_blockers
from campo.engine.rulesets.attila.settings import GAP_PREFIX
from campo.engine.rulesets.attila.tables import MAX_WHEEL_DEG

SWEEP_STEP_DEG = 5.0   # wheels tried between the square ones, for targets met at an angle
WHEEL_POSE_STEP_DEG = 10.0   # the drawn path's points along a wheel
_OUTWARD = (0.0, 90.0, 180.0, -90.0)   # each edge's outward normal against the heading
MISS_MARGIN_MM = 1e-4   # a target this far beyond the lane of the front is missed
SQUARE_DEG = 0.5        # met "squarely": the fronts within this of parallel
BODY_FIRST_MM = 0.5     # the flank or a rear corner strikes this much before the front
_EPS = 1e-6
_ASPECTS = {edge: Aspect(edge_aspect(edge)) for edge in EDGE_NAMES}
"""The aspect struck on each edge, looked up per charge instead of an Enum call each."""
ROUND_ATTEMPTS = 32   # a round of path checks costs about as much as checking this many


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
        margin = None if self.allowance is None or self.distance is None \
            else self.allowance - self.distance
        return with_lists(charge_entry(self.target, self.legal, self.distance, self.contact_aspect,
                                       self.reasons, self.allowance, margin, self.wheel_deg),
                          passes_through=self.passes_through, terrain=self.terrain,
                          notes=self.notes, close_calls=self.close_calls)


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
    rows = np.array([board.pos[c] for c in troops])
    si, bi = board.within(rows, reach)
    foe = board.sides[bi] != board.sides[rows[si]]
    for k, b in zip(si[foe].tolist(), bi[foe].tolist()):
        out[troops[k]].append(board.order[b])
    for v in out.values():
        v.sort()
    return out


def _near_rows(board: Board, keys: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """(charge, board row) of every base the charge's paths could meet, sorted by charge: those
    whose bounding box meets the box of charger and target grown by the charger's diagonal and
    the contact tolerance. Every path lies within that distance of the two: the wheel within
    the diagonal of a front corner, the final pose within it of the point where it touches the
    target, and the straight move between the two (`Board.boxes_meeting`)."""
    f = board.frames
    charger = np.array([board.pos[c] for c, _ in keys])
    target = np.array([board.pos[t] for _, t in keys])
    corners = np.concatenate([f.corners[charger], f.corners[target]], axis=1)
    reach = np.hypot(f.width[charger], f.depth[charger]) + board.contact_tol + 1e-6
    lo = np.stack([lowest(corners[..., 0]), lowest(corners[..., 1])], axis=1) - reach[:, None]
    hi = np.stack([highest(corners[..., 0]), highest(corners[..., 1])], axis=1) + reach[:, None]
    return board.boxes_meeting(shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]))


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


def _start(board: Board, charger: str, target: str, budget: MoveBudget,
           touching: dict[str, Contact]) -> tuple[Charge, bool]:
    """The charge with what is known before any geometry, and whether it needs geometry (not
    when the two already touch, nor when nothing could move); ``budget`` is the charger's move
    and ``touching`` the enemies in contact with it, by id (read once per charger)."""
    cu, tu = board.units[charger], board.units[target]
    c = Charge(charger, target, allowance=budget.available_cm)
    c.reasons = _static_reasons(board, charger, target)
    if cu.is_troops and not board.settings.at11_rates_confirmed:
        c.notes.append(f"move {budget.normal_cm:g} cm for {cu.type}: {GAP_PREFIX} (ATT AT11)")
    if budget.roll is not None:
        c.notes.append(f"its move is {budget.available_cm:g} cm: {budget.normal_cm:g} cm less the "
                       f"1D6 rolled ({budget.roll}) (ATT 5.B); it may wheel up to "
                       f"{budget.wheel_limit_cm:g} cm, {budget.wheel_phrase()} ({WHEEL_CITES})")
    if cu.side != tu.side:
        contact = touching.get(target)
        if contact is not None:
            c.distance = 0.0
            c.contact_aspect = _ASPECTS[board.side_touched(target, charger)]
            c.legal = not c.reasons
            if contact.close:
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
    enemies_from: np.ndarray     # (n + 1): pair k's enemies are enemies[from[k]:from[k + 1]]
    enemies: np.ndarray          # the rows of the enemies near each pair (not its target)


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
    first_sweep: int = 0         # the attempts from here on are the sweep's

    @property
    def total(self) -> np.ndarray:
        return self.cost + self.d_front

    @property
    def refused(self) -> np.ndarray:
        return self.wide | self.no_move_left | self.too_long

    @property
    def final(self) -> Frames:
        return self.wheeled.moved(self.d_front)


def _attempts(board: Board, pairs: _Pairs, rows: np.ndarray, turns: np.ndarray,
              first_sweep: int) -> Attempts:
    """The attempts of pairs ``rows`` (repeated, one per wheel) with wheels ``turns`` that can
    meet the target: the others (the front, moving straight on, never meets it; or a flank or
    rear corner strikes first) are left out."""
    f = board.frames
    start = f.take(pairs.charger[rows])
    goal = f.take(pairs.target[rows])
    w = start.wheeled(turns)
    # the lane: the target must lie across the front's lane and not wholly behind the front
    fl = w.front_edges[:, 0]
    goal_corners = f.corners[pairs.target[rows]]       # the board's, not worked out again
    rel = goal_corners - fl[:, None, :]
    across = rel[..., 0] * w.fy[:, None] - rel[..., 1] * w.fx[:, None]
    ahead = rel[..., 0] * w.fx[:, None] + rel[..., 1] * w.fy[:, None]
    keep = ~((highest(across) < -MISS_MARGIN_MM)
             | (lowest(across) > w.width + MISS_MARGIN_MM)
             | (highest(ahead) < -MISS_MARGIN_MM))
    d_front = np.full(len(rows), np.inf)
    if keep.any():
        at = np.nonzero(keep)[0]
        d_front[at] = slide(w.front_edges[at], goal_corners[at], w.front[at])
        # a target reaching behind the front line may be struck first by a flank or rear corner
        behind = at[(lowest(ahead)[at] < 0.0) & np.isfinite(d_front[at])]
        if len(behind):
            body = slide(w.corners[behind], goal_corners[behind], w.front[behind])
            d_front[behind[body < d_front[behind] - BODY_FIRST_MM]] = np.inf
    ok = np.nonzero(np.isfinite(d_front))[0]
    first_sweep = int(np.searchsorted(ok, first_sweep))
    rows, turns, w, goal, d_front = rows[ok], turns[ok], w.take(ok), goal.take(ok), d_front[ok]
    final = w.moved(d_front)
    fe = final.front_edges
    flush = clip_lengths(fe[:, 0], fe[:, 1], goal, max(board.contact_tol, _EPS)) > \
        board.settings.contact_min_shared_mm
    facing = (start.heading_deg[ok] + turns - goal.heading_deg - 180.0)[:, None] - \
        np.array(_OUTWARD)[None, :]
    square = either(np.abs((facing + 180.0) % 360.0 - 180.0) < SQUARE_DEG)
    cost = w.width * np.radians(np.abs(turns))
    allowance, limit = pairs.allowance_mm[rows], pairs.limit_mm[rows]
    wide = cost > limit + _EPS
    beyond = ~wide & (cost > allowance + _EPS)         # ATT 5.G: the wheel is made in full
    return Attempts(rows, turns, w, d_front, cost, flush, square, wide, beyond & (d_front > _EPS),
                    ~beyond & (cost + d_front > allowance + _EPS), first_sweep)


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
    k = np.array([x for x in which if pairs.wheels[x]], dtype=int)
    if not len(k):
        return k, np.zeros(0)
    f = board.frames
    c, g = pairs.charger[k], pairs.target[k]
    limit = np.minimum(MAX_WHEEL_DEG, np.degrees(pairs.limit_mm[k] / f.width[c]))
    steps = (limit // SWEEP_STEP_DEG).astype(int)
    front = f.point(0.0, f.depth / 2)[c]
    bearing = np.degrees(np.arctan2(f.cy[g] - front[:, 1], f.cx[g] - front[:, 0])) - \
        f.heading_deg[c]
    bearing = (bearing + 180.0) % 360.0 - 180.0
    step = np.arange(1, int(steps.max(initial=0)) + 1)
    turns = (step[None, :, None] * SWEEP_STEP_DEG * np.array([1.0, -1.0])[None, None, :])
    turns = np.broadcast_to(turns, (len(k), len(step), 2))
    keep = (step[None, :, None] <= steps[:, None, None]) & (
        (step[None, :, None] * SWEEP_STEP_DEG <= 10.0)
        | (np.sign(turns) * bearing[:, None, None] > -10.0))
    rows = np.broadcast_to(k[:, None, None], turns.shape)
    return rows[keep], turns[keep]


def _preference(att: Attempts) -> np.ndarray:
    """Attempt indices grouped by pair, each pair's in order of preference: within the move and
    the wheel limit first, then edge to edge, then squarely met, then the shortest (to 0.01 mm,
    so that mirror-image paths tie whatever the float noise), then the smaller wheel, left
    before right."""
    return np.lexsort((-np.copysign(1.0, att.turn), np.round(np.abs(att.turn), 6),
                       np.round(att.total, 2), ~att.square, ~att.flush, att.refused, att.pair))


# --- the search --------------------------------------------------------------------------------
def _search(board: Board, pairs: _Pairs
            ) -> tuple[Attempts, dict[int, int], dict[int, PathFacts], dict[int, list[int]]]:
    """Per pair, the attempt to report (index into the returned attempts; pairs with no attempt
    at all are missing), the path facts of every attempt checked, and the enemies certainly in
    the paths of the attempts passed over without a check (`paths.run_blockers`).

    The square wheels first; the sweep only for the pairs none of whose square wheels gives a
    clear path with the fronts along each other (all the attempts are built at once, and the
    pairs still on their square wheels and those already on the sweep are checked in the same
    rounds)."""
    rows, turns = _square_turns(board, pairs)
    srows, sturns = _sweep_turns(board, pairs, list(range(len(pairs.keys))))
    att = _attempts(board, pairs, np.concatenate([rows, srows]),
                    np.concatenate([turns, sturns]), len(rows))
    facts: dict[int, PathFacts] = {}
    blockers = _blockers(board, pairs, att)
    chosen = _first_clear(board, pairs, att, facts, blockers)
    return att, {k: v for k, v in chosen.items() if v is not None}, facts, blockers


def _blockers(board: Board, pairs: _Pairs, att: Attempts) -> dict[int, list[int]]:
    """Attempt -> the rows of the enemies certainly in its path, for every attempt within the
    move that has one (`paths.run_blockers`, all at once): the search passes over these without
    their full check, and the rounds of full checks are few."""
    at, rows = run_blockers(board, att, np.nonzero(~att.refused)[0], pairs.enemies_from,
                            pairs.enemies)
    out: dict[int, list[int]] = {}
    for i, row in zip(at.tolist(), rows.tolist()):
        out.setdefault(i, []).append(row)
    return out


def _tries(att: Attempts, n_pairs: int) -> tuple[list[list[int]], list[list[int]]]:
    """Per pair, its square attempts and all its attempts, each in order of preference."""
    order = _preference(att)
    cut = np.searchsorted(att.pair[order], np.arange(n_pairs + 1)).tolist()
    ranked, sweep = order.tolist(), att.first_sweep   # cut in Python: no numpy call per pair
    every = [ranked[a:b] for a, b in zip(cut[:-1], cut[1:])]
    return [[i for i in tries if i < sweep] for tries in every], every


def _first_clear(board: Board, pairs: _Pairs, att: Attempts, facts: dict[int, PathFacts],
                 blockers: dict[int, list[int]]) -> dict[int, int | None]:
    """Per pair, its preferred attempt whose path is clear: first among its square wheels, and
    when none of those is clear with the fronts along each other, among all its attempts (the
    sweep), falling back on the preferred one, blocked though it is (checked, for its reasons),
    or None when it has none. Attempts with an enemy certainly in their path (``blockers``) are
    passed over; the others' paths are checked (`paths.path_facts`) in order of preference, in
    rounds: each round checks, in one batch, the next attempts of every pair still looking (at
    first one, or a few when there are few pairs, then twice as many each round)."""
    def blocked(i: int) -> bool:
        return i in blockers or (i in facts and bool(facts[i].reasons))

    n_pairs = len(pairs.keys)
    squares, every = _tries(att, n_pairs)
    refused, flush = att.refused.tolist(), att.flush.tolist()
    out: dict[int, int | None] = {}
    # per pair still looking: its phase (0 the square wheels, 1 the sweep), place and batch;
    # a round costs about as much as checking ROUND_ATTEMPTS attempts: a few pairs (one base's
    # detail) check several of their attempts at once
    first = max(1, -(-ROUND_ATTEMPTS // max(n_pairs, 1)))
    place = {k: (0, 0, first) for k in range(n_pairs)}
    while place:
        ask: list[int] = []
        for k, (phase, n, batch) in list(place.items()):
            while True:
                tries = (squares if phase == 0 else every)[k]
                while n < len(tries) and blocked(tries[n]):
                    n += 1                   # something in the way
                found: int | None = None
                if n < len(tries) and tries[n] in facts:
                    found = tries[n]         # checked and clear
                elif n < len(tries) and not refused[tries[n]]:
                    ask += [i for i in tries[n:n + batch] if not blocked(i) and not refused[i]]
                    place[k] = (phase, n, batch * 2)
                    break
                elif phase == 1 and tries:   # none clear (sorted: the rest are refused too)
                    found = tries[0]
                    if found not in facts:
                        ask.append(found)
                if phase == 0 and (found is None or not flush[found]):
                    phase, n, batch = 1, 0, first    # on to the sweep, in this round
                    continue
                out[k] = found
                del place[k]
                break
        todo = [i for i in dict.fromkeys(ask) if i not in facts]
        if todo:
            facts.update(path_facts(board, pairs.keys, att, todo))
    return out


# --- the verdicts --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """The geometry of a charge's chosen attempt: everything its verdict needs that depends only
    on the bases and terrain near it, never on the verdicts held live."""

    turn: float
    cost: float                  # the wheel, mm
    d_front: float               # straight on after it, mm
    wide: bool                   # the wheel is wider than allowed
    flush: bool
    final: tuple[float, float, float]    # x, y (mm), heading (deg)
    aspect: str                  # the target's edge struck
    path: tuple[tuple[float, float], ...]
    facts: PathFacts


@dataclass(frozen=True)
class MemoEntry:
    """A charge's outcome with what it depended on: the paths of the attempts whose paths were
    checked (unshrunk outlines) and the bases meeting them (``seen``), and the bases that
    certainly blocked the attempts passed over without a check (``blockers``), by their
    `Board.base_keys`. It still holds in a later state while the same bases, unmoved,
    meet the same paths and the blockers are where they were (the order in which attempts are
    tried depends only on charger and target)."""

    outcome: Outcome | None
    paths: tuple[Any, ...]
    seen: frozenset[BaseKey]
    blockers: frozenset[BaseKey]


class OutcomeMemo:
    """Charge outcomes a live game keeps from one moment to the next (`MemoEntry`), keyed by the
    settings, the terrain, charger and target (their `Board.base_keys`) and the charger's move
    roll. One move leaves most charges as they were: only those whose paths it touches are
    judged again. Bounded (least recently used first out) and thread-safe."""

    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self._found: OrderedDict[Hashable, MemoEntry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, keys: Sequence[Hashable]) -> list[MemoEntry | None]:
        with self._lock:
            out = []
            for k in keys:
                entry = self._found.get(k)
                if entry is not None:
                    self._found.move_to_end(k)
                out.append(entry)
            return out

    def put(self, items: Iterable[tuple[Hashable, MemoEntry]]) -> None:
        with self._lock:
            self._found.update(items)
            while len(self._found) > self.size:
                self._found.popitem(last=False)


def _still_valid(board: Board, entries: list[MemoEntry]) -> list[bool]:
    """Which remembered outcomes still hold in this state (`MemoEntry`): the bases meeting their
    paths now (one STRtree query for all) are those seen then, unmoved, and their blockers are
    unmoved."""
    keys, row_keys = board.base_keys, board.row_keys
    ok = [all(keys.get(k[0]) == k for k in e.blockers) for e in entries]
    paths = [e.paths for e in entries]
    owner = np.repeat(np.arange(len(entries)), [len(p) for p in paths])
    meeting: list[set[BaseKey]] = [set() for _ in entries]
    if len(owner):
        si, bi = board.state.index.meeting_many([g for p in paths for g in p])
        for e, b in zip(owner[si].tolist(), bi.tolist()):
            meeting[e].add(row_keys[b])
    return [good and meeting[n] == entries[n].seen for n, good in enumerate(ok)]


_MEMOS: weakref.WeakKeyDictionary[HeldVerdicts, OutcomeMemo] = weakref.WeakKeyDictionary()
_MEMOS_LOCK = threading.Lock()


def outcome_memo(board: Board) -> OutcomeMemo:
    """The memo of the game this state belongs to. A live game hands every state the same
    memory of held verdicts (`GameState.held`); the memo lives and dies with it, so a one-off
    analysis starts empty (a cold analysis is cold) and what-if copies share their game's."""
    with _MEMOS_LOCK:
        memo = _MEMOS.get(board.state.held)
        if memo is None:
            memo = _MEMOS[board.state.held] = OutcomeMemo()
        return memo


def _judge(board: Board, todo: list[tuple[str, str]]) -> dict[tuple[str, str], Charge]:
    out: dict[tuple[str, str], Charge] = {}
    geo: list[tuple[tuple[str, str], Charge]] = []
    chargers: dict[str, tuple[MoveBudget, dict[str, Contact]]] = {}
    for pair in todo:
        known = chargers.get(pair[0])
        if known is None:
            known = chargers[pair[0]] = (move_budget(board, pair[0]),
                                         {x.other: x for x in board.contacts(pair[0])})
        c, needs = _start(board, *pair, *known)
        out[pair] = c
        if needs:
            geo.append((pair, c))
    if not geo:
        return out
    keys = [k for k, _ in geo]
    budgets = [chargers[c][0] for c, _ in keys]
    base_keys = board.base_keys
    memo_keys = [(board.scene_key, b.roll, base_keys[c], base_keys[t])
                 for (c, t), b in zip(keys, budgets)]
    memo = outcome_memo(board)
    entries = memo.get(memo_keys)
    known = [k for k, e in enumerate(entries) if e is not None]
    for k, valid in zip(known, _still_valid(board, [entries[k] for k in known])):
        if not valid:
            entries[k] = None
    todo_k = [k for k, e in enumerate(entries) if e is None]
    if todo_k:
        fresh = _outcomes(board, [keys[k] for k in todo_k], [budgets[k] for k in todo_k])
        for k, e in zip(todo_k, fresh):
            entries[k] = e
        memo.put((memo_keys[k], e) for k, e in zip(todo_k, fresh))
    outcomes = [e.outcome if e is not None else None for e in entries]
    for (pair, c), o in zip(geo, outcomes):
        if o is None:
            c.reasons.append("a phalanx cannot wheel and then move in one turn (ATT 5.L)"
                             if board.units[pair[0]].phalanx else
                             "its front edge cannot meet an edge of the target with one forward "
                             "wheel and a straight move (AT26)")
    _report(board, [(c, b, o) for (_, c), b, o in zip(geo, budgets, outcomes) if o is not None])
    return out


def _outcomes(board: Board, keys: list[tuple[str, str]],
              budgets: list[MoveBudget]) -> list[MemoEntry]:
    """The outcomes of these charges, judged together (`_search`), with what they depend on."""
    s = board.settings
    charger = np.array([board.pos[c] for c, _ in keys])
    target = np.array([board.pos[t] for _, t in keys])
    si, bi = _near_rows(board, keys)
    foe = board.present[bi] & (board.sides[bi] != board.sides[charger[si]]) & (bi != target[si])
    si, bi = si[foe], bi[foe]
    pairs = _Pairs(
        keys=keys, budgets=budgets, charger=charger, target=target,
        allowance_mm=np.array([board.mm(b.available_cm) for b in budgets]),
        limit_mm=np.array([board.mm(b.wheel_limit_cm) for b in budgets]),
        wheels=np.array([s.at26_charge_reach == "wheel_then_straight"
                         and not board.units[c].phalanx for c, _ in keys], dtype=bool),
        enemies_from=np.searchsorted(si, np.arange(len(keys) + 1)), enemies=bi)
    att, chosen, facts, blockers = _search(board, pairs)
    outcomes: list[Outcome | None] = [None] * len(keys)
    if chosen:
        ks = sorted(chosen)
        at = np.array([chosen[k] for k in ks])
        f = board.frames
        final = att.final.take(at)
        headings = (f.heading_deg[charger[ks]] + att.turn[at]) % 360.0
        aspects = _struck(board, f.take(target[ks]), final, [keys[k][1] for k in ks])
        paths = _path_points(board, charger[ks], att.turn[at], final)
        columns = zip(ks, at.tolist(), att.turn[at].tolist(), att.cost[at].tolist(),
                      att.d_front[at].tolist(), att.wide[at].tolist(), att.flush[at].tolist(),
                      zip(final.cx.tolist(), final.cy.tolist(), headings.tolist()), aspects,
                      paths)
        for k, i, turn, cost, run, wide, flush, pose, aspect, path in columns:
            outcomes[k] = Outcome(turn, cost, run, wide, flush, pose, aspect,
                                  tuple(map(tuple, path)), facts[i])
    return _entries(board, pairs, outcomes, facts, blockers, att)


def _entries(board: Board, pairs: _Pairs, outcomes: list[Outcome | None],
             facts: dict[int, PathFacts], blockers: dict[int, list[int]],
             att: Attempts) -> list[MemoEntry]:
    """Each outcome with the paths it checked, the bases meeting them and the blockers of the
    attempts it passed over (`MemoEntry`)."""
    row_keys = board.row_keys
    pair = att.pair.tolist()
    paths: list[list[Any]] = [[] for _ in pairs.keys]
    seen: list[set[BaseKey]] = [set() for _ in pairs.keys]
    blocking: list[set[BaseKey]] = [set() for _ in pairs.keys]
    for i, f in facts.items():
        paths[pair[i]].append(f.outline)
        seen[pair[i]].update(map(row_keys.__getitem__, f.seen))
    for i, rows in blockers.items():
        blocking[pair[i]].update(map(row_keys.__getitem__, rows))
    return [MemoEntry(o, tuple(p), frozenset(sn), frozenset(bl))
            for o, p, sn, bl in zip(outcomes, paths, seen, blocking)]


def _report(board: Board, chosen: list[tuple[Charge, MoveBudget, Outcome]]) -> None:
    """Fill each charge from the outcome of its chosen attempt: the reach decided (held live
    when too close to call), the reasons and notes."""
    if not chosen:
        return
    allowance = np.array([board.mm(b.available_cm) for _, b, _ in chosen])
    total = np.array([o.cost + o.d_front for _, _, o in chosen])
    reach, close = decide(allowance - total + _EPS, board.close_call,
                          [key("reach", c.charger, c.target) for c, _, _ in chosen],
                          board.state.held)
    for (c, budget, o), allowed, run, within, close_call in zip(
            chosen, allowance.tolist(), total.tolist(), reach, close):
        if o.wide:
            start = board.rect(c.charger)
            c.reasons.append(f"needs a wheel of {abs(o.turn):.0f}° ({board.cm(o.cost):.1f} cm "
                             f"along the moving corner's arc), wider than the "
                             f"{budget.wheel_limit_deg(start.width):.0f}° allowed "
                             f"({budget.wheel_limit_cm:.1f} cm: {budget.wheel_phrase()}) "
                             f"({WHEEL_CITES})")
        after_wheel = not o.wide and o.cost > allowed + _EPS
        if not (after_wheel and o.d_front <= _EPS):   # ATT 5.G: a wheel alone reaching contact
            if close_call:
                c.close_calls.append("reach")
            if not within:
                c.reasons.append(_out_of_reach(board, budget, run, o.cost, o.d_front,
                                               after_wheel, bool(close_call)))
        if not o.flush:
            c.notes.append("its front edge meets the target at an angle: line the bases up to "
                           "fight (AT2, AT26)")
        c.reasons += o.facts.reasons
        c.notes += o.facts.notes
        c.passes_through = list(o.facts.passes)
        c.terrain = list(o.facts.terrain)
        c.distance = board.cm(run)
        c.wheel_deg = o.turn
        c.contact_aspect = _ASPECTS[o.aspect]
        c.path = [list(p) for p in o.path]
        c.final_pose = {"x_mm": o.final[0], "y_mm": o.final[1], "heading_deg": o.final[2]}
        c.legal = not c.reasons


def _struck(board: Board, goal: Frames, final: Frames, targets: list[str]) -> list[str]:
    """Which edge of each target the charger's final pose touches (AT1)."""
    tol = board.contact_tol
    method = board.settings.at1_contact_side
    if method != "longest_shared_segment":
        return [touched_edge(board.rect(t), Rect(float(final.cx[n]), float(final.cy[n]),
                                                 float(final.heading_deg[n]),
                                                 float(final.width[n]), float(final.depth[n])),
                             tol, method)
                for n, t in enumerate(targets)]
    lengths = shared_lengths(goal, final, max(tol, _EPS))
    return [edge_of_lengths(dict(zip(EDGE_NAMES, row)), tol) for row in lengths.tolist()]


def _out_of_reach(board: Board, budget: MoveBudget, total: float, cost: float, d_front: float,
                  after_wheel: bool, close: bool) -> str:
    """Why a charge is out of reach (`boundary.decide` said so: within close_call_mm of the move
    it is too close to call, and held live)."""
    measure = f"; {CLOSE_CALL}" if close else ""
    if after_wheel:
        return (f"after its wheel of {board.cm(cost):.1f} cm (allowed in full, ATT 5.G) no move "
                f"is left for the {board.cm(d_front):.1f} cm straight on: its move is "
                f"{budget.available_cm:g} cm after the 1D6 (ATT 5.B)" + measure)
    return (f"needs {board.cm(total):.1f} cm, more than its move of {budget.available_cm:.1f} cm"
            + ("" if budget.roll is None else
               f" ({budget.normal_cm:g} cm less the 1D6 of {budget.roll}, ATT 5.B)") + measure)


def _path_points(board: Board, charger_rows: np.ndarray, turns: np.ndarray,
                 final: Frames) -> list[list[list[float]]]:
    """Per charge, its front centre along the wheel (every WHEEL_POSE_STEP_DEG or less) and at
    the end."""
    steps = np.where(np.abs(turns) > 1e-9, np.maximum(1, np.ceil(np.abs(turns) /
                                                                 WHEEL_POSE_STEP_DEG)), 0)
    steps = steps.astype(int)
    owner = np.repeat(np.arange(len(turns)), steps + 1)
    k = np.arange(len(owner)) - np.repeat(np.cumsum(steps + 1) - (steps + 1), steps + 1)
    angles = turns[owner] * k / np.maximum(steps[owner], 1)
    poses = board.frames.take(charger_rows[owner]).wheeled(angles)
    centres = poses.point(0.0, poses.depth / 2).tolist()
    ends = final.point(0.0, final.depth / 2).tolist()
    out: list[list[list[float]]] = [[] for _ in turns]
    for n, xy in zip(owner.tolist(), centres):
        out[n].append(xy)
    for n, xy in enumerate(ends):
        out[n].append(xy)
    return out
