"""Charges (ISD §9): eligibility within 30° of the front, reach by an optional wheel then a
straight or oblique path, the 2" zone and interception, contact with the front, and the aspect
struck (ISD §1 flank attack). Readings: ISD A27–A31, A20–A22.

Every charge asked is judged in one batch with the others asked with it (a base's candidates,
or every base's): the certain refusals first, from cheap tests over all pairs at once (outside
the 30° arc, or more than `NEAR_MISS_IN` beyond the most the charger could move on any
ground); then the exact paths of the plausible ones (`charge_paths.best_paths`), and what lies
on them. A boundary within the tracking's uncertainty (the arc, the reach, a zone entered
about as soon as the target's) is too close to call (`engine.boundary.decide`): it says so
and, live, keeps its last verdict.

Every verdict with a path carries it (table mm) so the overlay can draw it, and a ``margin``
in inches (positive = spare movement, negative = how far short).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import shapely
from shapely.geometry import Polygon

from campo.engine.boundary import CLOSE_CALL, decide, key
from campo.engine.geometry.contact import edge_shares, edges_of_lengths
from campo.engine.geometry.motion import convex_slides
from campo.engine.geometry.poses import Poses, xy
from campo.engine.geometry.rect import EDGE_NAMES
from campo.engine.results import Aspect, charge_entry, with_lists
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.charge_paths import (EDGE_OUTWARD, SQUARE_DEG, TOUCH_MM,
                                                       Paths, best_paths, signed_turn, turned)
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.tables_melee import (CHARGE_ARC_HALF_DEG, CHARGE_ARC_REACH_IN,
                                                       ENEMY_ZONE_IN, FLANK_COVER_AREAS, GARRISONS,
                                                       LINEAR_OBSTACLES)
from campo.engine.rulesets.italia.tables_movement import TERRAIN_KIND_CLASS, movement_allowance

_LEFT, _RIGHT, _REAR = (EDGE_NAMES.index(e) for e in ("left", "right", "rear"))

NEAR_MISS_IN = 1.0
"""A charge whose target may lie within this much beyond the charger's reach is measured
exactly (its distance, path and margin shown); farther ones are refused unmeasured."""


@dataclass
class Charge:
    """The verdict on one charge."""

    charger: str
    target: str
    legal: bool = False
    distance: float | None = None          # inches along the path (wheel cost included)
    allowance: float | None = None         # inches the charger may move on this path
    margin: float | None = None            # allowance - distance
    contact_aspect: Aspect | None = None   # aspect of the TARGET struck
    flank_attack: bool = False             # ISD §1 flank attack (+3), rear included (ISD A3)
    wheel_deg: float = 0.0
    oblique_deg: float = 0.0
    path: list[list[float]] = field(default_factory=list)   # front-centre track, table mm
    final_pose: dict[str, float] | None = None
    flush_pose: dict[str, float] | None = None   # after the pivot to close flush (ISD A30)
    intercepted_by: str | None = None
    intercepted_at: list[float] | None = None    # front centre on entering its 2" zone (A29)
    hidden: str | None = None               # "wood" / "crest" (ISD §9 note 4, ISD A34)
    within_half_move: bool = False
    terrain: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    close_calls: list[str] = field(default_factory=list)   # "charge_arc", "reach", "interception"

    def to_dict(self) -> dict[str, Any]:
        d = charge_entry(self.target, self.legal, self.distance, self.contact_aspect, self.reasons,
                         self.allowance, self.margin, self.wheel_deg)
        d.update(flank_attack=self.flank_attack, oblique_deg=round(self.oblique_deg, 1),
                 within_half_move=self.within_half_move,
                 path=[[round(x, 1), round(y, 1)] for x, y in self.path])
        if self.final_pose:
            d["final_pose"] = {k: round(v, 1) for k, v in self.final_pose.items()}
        if self.flush_pose:
            d["flush_pose"] = {k: round(v, 1) for k, v in self.flush_pose.items()}
        if self.intercepted_at:
            d["intercepted_at"] = [round(c, 1) for c in self.intercepted_at]
        if self.intercepted_by:
            d["intercepted_by"] = self.intercepted_by
        if self.hidden:
            d["hidden"] = self.hidden
        return with_lists(d, terrain=self.terrain, notes=self.notes, close_calls=self.close_calls)


# --- allowances (ISD §8 table, A19–A21) --------------------------------------------------------

@functools.lru_cache(maxsize=4096)
def _allowance(unit_type: str, arm: str | None, formation: str, horse: bool, rank: str | None,
               kinds: tuple[str, ...], settings: ItaliaSettings) -> tuple[float, tuple[str, ...]]:
    """`movement_allowance` (the move and what lowered it), once per kind of mover and ground."""
    amount, limits = movement_allowance(unit_type, arm, formation, list(kinds) or "open",
                                        horse=horse, rank=rank, settings=settings)
    return amount, tuple(limits)


def _mover(board: Board, base_id: str) -> tuple[str, str | None, str, bool, str | None]:
    """(type, arm, formation, horse, rank) of a base as the movement table reads it (an E
    without ``traits.arm`` reads as infantry, a warning from `problems`)."""
    info = board.infos[base_id]
    return (board.state.base(base_id).type, info.arm if info.kind == "unit" else None,
            "march_column" if info.march_column else "line", info.moves_as_horse_artillery,
            info.rank)


def move_over(board: Board, base_id: str, kinds: Iterable[str] = (),
              settings: ItaliaSettings | None = None) -> tuple[float, tuple[str, ...]]:
    """(movement allowance in inches over terrain ``kinds``, why it is less than the open move)
    (ISD §8 table; kinds the table does not know do not change it); ``settings`` replace the
    board's (e.g. to read the terrain without the weather)."""
    known = tuple(sorted({k for k in kinds if k in TERRAIN_KIND_CLASS}))
    return _allowance(*_mover(board, base_id), known, settings or board.settings)


def full_move_in(board: Board, base_id: str, kinds: Iterable[str] = ()) -> float:
    """The allowance of `move_over`."""
    return move_over(board, base_id, kinds)[0]


def reach_cap_in(board: Board, base_id: str) -> float:
    """The most a base can move on any ground: its open move, or the road rate in march
    column (ISD §8)."""
    open_move = full_move_in(board, base_id)
    return max(open_move, full_move_in(board, base_id, ["road"])) \
        if board.infos[base_id].march_column else open_move


# --- the book of charges of one board ----------------------------------------------------------

@dataclass(eq=False)
class ChargeBook:
    """The charges judged on one board (``board.charge_book``), each once."""

    board: Board
    _candidates: dict[str, list[str]] = field(default_factory=dict)
    _judged: dict[tuple[str, str], Charge] = field(default_factory=dict)
    _cover: dict[str, str | None] = field(default_factory=dict)
    _hidden: dict[tuple[str, str], str | None] = field(default_factory=dict)

    def candidates(self, chargers: Sequence[str]) -> dict[str, list[str]]:
        """Enemy units and guns within each charger's full move (+2") of it, sorted."""
        missing = [c for c in dict.fromkeys(chargers) if c not in self._candidates]
        if missing:
            self._candidates.update(_candidates(self.board, missing))
        return {c: self._candidates[c] for c in chargers}

    def charges_of(self, chargers: Sequence[str]) -> dict[str, list[Charge]]:
        """Every candidate charge of each charger, judged (one batch for all)."""
        found = self.candidates(chargers)
        self.judge([(c, t) for c in chargers for t in found[c]])
        return {c: [self._judged[(c, t)] for t in found[c]] for c in chargers}

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[Charge]:
        """The verdicts on (charger, target) pairs, those not yet judged in one batch."""
        missing = [p for p in dict.fromkeys(pairs) if p not in self._judged]
        if missing:
            for charge in _judge(self.board, missing):
                self._judged[(charge.charger, charge.target)] = charge
        return [self._judged[p] for p in pairs]


def candidates(board: Board, charger: str) -> list[str]:
    """Enemy units and guns the charger could consider charging (a copy)."""
    return list(board.charge_book.candidates([charger])[charger])


def judge_charge(board: Board, charger: str, target: str) -> Charge:
    """The full verdict on ``charger`` charging ``target``."""
    return board.charge_book.judge([(charger, target)])[0]


def charges_of(board: Board, chargers: Sequence[str]) -> dict[str, list[Charge]]:
    return board.charge_book.charges_of(chargers)


def _candidates(board: Board, chargers: list[str]) -> dict[str, list[str]]:
    infos, names = board.infos, board.state.index.ids
    out: dict[str, list[str]] = {c: [] for c in chargers}
    able = [c for c in chargers if infos[c].can_charge]
    at = board.positions(able)
    reach = board.mm(np.array([full_move_in(board, c) + ENEMY_ZONE_IN for c in able]))
    rows, others = board.state.index.query_many(board.state.index.shapes[at], reach)
    side, general = board.sides, board.generals
    keep = (side[others] != side[at[rows]]) & ~general[others]
    for k, o in zip(rows[keep].tolist(), others[keep].tolist()):
        out[able[k]].append(names[o])
    for found in out.values():
        found.sort()
    return out


def charge_arcs(board: Board, chargers: Sequence[str]) -> np.ndarray:
    """ISD §9 «entro 30° dal proprio fronte» with the fire-arc geometry (ISD A27), out to beyond
    any charge's reach: one polygon per charger."""
    p = board.poses.take(board.positions(chargers))
    fronts = p.front_edges.copy()
    if board.settings.a27_charge_arc_origin == "front_centre":
        fronts[:, 0] = fronts[:, 1] = p.front_centres
    half = CHARGE_ARC_HALF_DEG
    length = board.mm(CHARGE_ARC_REACH_IN) / np.cos(np.radians(half))
    left = fronts[:, 0] + turned(p.front, np.full(len(p), half)) * length
    right = fronts[:, 1] + turned(p.front, np.full(len(p), -half)) * length
    return shapely.polygons(np.stack([fronts[:, 0], fronts[:, 1], right, left], axis=1))


def charge_arc(board: Board, charger: str) -> Polygon:
    return charge_arcs(board, [charger])[0]


def _judge(board: Board, pairs: list[tuple[str, str]]) -> list[Charge]:
    """Every pair's verdict: refusals by who is who, then the certain geometric refusals
    (`_screen`), then the exact paths of the plausible ones (`_judge_paths`)."""
    infos = board.infos
    out, live = [], []
    for c, t in pairs:
        ci, ti = infos[c], infos[t]
        v = Charge(c, t)
        out.append(v)
        if not ci.can_charge:
            v.reasons.append("artillery never charges" if ci.arm == "artillery"
                             else "dispersed: it has lost its capacity to fight (ISD §4)"
                             if ci.dispersed else "generals do not charge")
        elif ti.side == ci.side:
            v.reasons.append(f"{t} is a friend")
        elif ti.is_general:
            v.reasons.append(f"{t} is a general, not a unit")
        else:
            if ci.stale:
                v.reasons.append(f"{c} not seen (last known position)")
            if ti.stale:
                v.reasons.append(f"{t} not seen (last known position)")
            if t in board.touching[c]:
                v.reasons.append(f"already in contact with {t}")
            else:
                live.append(v)
    if live:
        plausible = _screen(board, live)
        if plausible:
            _judge_paths(board, plausible)
    for v in out:
        v.legal = not v.reasons
    return out


def _screen(board: Board, charges: list[Charge]) -> list[Charge]:
    """The arc, garrison and certain out-of-reach tests of every charge at once; the charges
    that may still be legal (or are too close to call), to be measured exactly."""
    s = board.settings
    tol = s.close_call_mm
    chargers = [v.charger for v in charges]
    targets = [v.target for v in charges]
    shapes = board.state.index.shapes
    t_at = board.positions(targets)
    t_shapes = shapes[t_at]
    unique = list(dict.fromkeys(chargers))
    index = {c: k for k, c in enumerate(unique)}
    which = np.array([index[c] for c in chargers])
    arcs = charge_arcs(board, unique)
    outside = shapely.distance(arcs[which], t_shapes)
    deep = shapely.intersects(shapely.buffer(arcs, -tol, join_style="mitre")[which], t_shapes) \
        if tol > 0 else outside <= 0
    # (1e-6 mm: the arc's edge as GEOS computes it, touching a target on it or not)
    margins = np.where(outside > 1e-6, -outside, np.where(deep, 2 * tol + 1.0, 0.0))
    in_arc, arc_close = decide(margins, tol, [key("charge_arc", c, t)
                                              for c, t in zip(chargers, targets)],
                               board.state.held)
    # reach: the front moves at least its gap to the target (less a frontage for a free wheel)
    c_at = board.positions(chargers)
    gap = shapely.distance(board.poses.take(board.positions(unique)).front_lines[which], t_shapes)
    if s.a22_wheel_cost == "free" and s.a28_charge_path != "straight_distance":
        gap = gap - board.poses.width[c_at]
    cap = board.mm(np.array([reach_cap_in(board, c) for c in unique]))[which]
    beyond = gap - cap > board.mm(NEAR_MISS_IN) + tol
    garrisoned = _garrisoned(board, charges, t_shapes)
    plausible = []
    for k, v in enumerate(charges):
        if not in_arc[k]:
            v.reasons.append(f"{v.target} is not within {CHARGE_ARC_HALF_DEG:g}° of "
                             f"{v.charger}'s front")
        if arc_close[k]:
            v.close_calls.append("charge_arc")
            if not in_arc[k]:
                v.reasons[-1] += f" ({CLOSE_CALL})"
        if garrisoned[k] is not None:
            town = garrisoned[k]
            v.reasons.append(f"cavalry may not attack {v.target} garrisoned in {town}" if town
                             else f"cavalry may not attack {v.target}: in garrison")
        if beyond[k]:
            v.allowance = board.inches(float(cap[k]))
            v.reasons.append(f"out of reach: at least {board.inches(float(gap[k])):.1f} in away, "
                             f"may move at most {v.allowance:.1f} in")
        if (in_arc[k] or arc_close[k]) and not beyond[k]:
            plausible.append(v)
    return plausible


def _garrisoned(board: Board, charges: list[Charge], t_shapes: np.ndarray) -> list[str | None]:
    """ISD §9: cavalry may not attack infantry in garrison (``traits.garrison``); infantry not
    in garrison may be charged by cavalry even inside a town («Se un'Unità di fanteria non si
    trova in guarnigione, anche se la maggior parte delle sue basi è all'interno del tracciato
    del centro abitato può essere caricata da cavalleria»). The answer names the town or
    village the garrison stands in ("" when it touches none)."""
    infos = board.infos
    rows = [k for k, v in enumerate(charges)
            if infos[v.charger].arm == "cavalry" and infos[v.target].arm == "infantry"
            and bool(board.state.base(v.target).traits.get("garrison", False))]
    out: list[str | None] = [None] * len(charges)
    if rows:
        table = board.terrain_table
        g, f = table.meeting(t_shapes[rows])
        towns: dict[int, str] = {}
        for row, k in zip(g.tolist(), f.tolist()):
            if table.features[k].kind in GARRISONS:
                towns.setdefault(row, table.features[k].id)
        for n, k in enumerate(rows):
            out[k] = towns.get(n, "")
    return out


def _judge_paths(board: Board, charges: list[Charge]) -> None:
    """The exact part of each verdict: the path, its terrain and allowance, the aspect struck,
    the flush pivot, cover, interception and hidden targets."""
    s = board.settings
    chargers = [v.charger for v in charges]
    targets = [v.target for v in charges]
    c_at, t_at = board.positions(chargers), board.positions(targets)
    c, t = board.poses.take(c_at), board.poses.take(t_at)
    t_shapes = board.state.index.shapes[t_at]
    paths = best_paths(c, t, t_shapes, s)
    found = np.nonzero(paths.found)[0]
    for k, v in enumerate(charges):
        if not paths.found[k]:
            v.reasons.append(f"{v.charger} cannot reach {v.target} with its front "
                             f"(a flank would touch first or the path is over 45° oblique)")
    if not len(found):
        return
    ends = np.concatenate([paths.start.front_edges, paths.wheeled.front_edges,
                           paths.final.front_edges], axis=1)[found]
    kinds = board.terrain_table.kinds_meeting(shapely.convex_hull(shapely.multipoints(ends)))
    final, target = paths.final.take(found), t.take(found)
    aspect, flank, edge, contact = aspects_struck(board, final, target, t_shapes[found])
    allowance = np.array([full_move_in(board, charges[k].charger, kinds[n])
                          for n, k in enumerate(found.tolist())])
    length = board.inches(paths.length_mm[found])
    verdicts, close = decide(np.round(board.mm(allowance - length), 6), s.close_call_mm,
                             [key("reach", charges[k].charger, charges[k].target)
                              for k in found.tolist()], board.state.held)
    flush = _flush_poses(board, final, target, edge, contact) \
        if s.a30_close_flush_after_contact else None
    covered = flank_cover(board, [charges[k].target for k in found.tolist()])
    intercepts = _interceptions(board, charges, paths, c_at, t_at) \
        if s.a29_interception != "off" else {}
    stopped = [k for k, zones in intercepts.items() if zones.by]
    entered = dict(zip(stopped, paths.front_centres_after(
        np.array(stopped, dtype=np.int64), np.array([intercepts[k].at_mm for k in stopped])
    ).tolist())) if stopped else {}
    for n, k in enumerate(found.tolist()):
        v = charges[k]
        v.wheel_deg, v.oblique_deg = float(paths.wheel_deg[k]), float(paths.oblique_deg[k])
        v.distance, v.terrain, v.allowance = float(length[n]), kinds[n], float(allowance[n])
        v.margin = v.allowance - v.distance
        v.within_half_move = v.distance <= v.allowance / 2 + 1e-6
        if v.allowance <= 0:
            v.reasons.append(f"{v.charger} cannot enter the terrain on the way "
                             f"({', '.join(v.terrain)})")
        elif not verdicts[n]:
            why = [f"{-v.margin:.1f} in short"] if v.margin < 0 else []
            why += move_over(board, v.charger, v.terrain)[1]
            v.reasons.append(f"out of reach: needs {v.distance:.1f} in, may move "
                             f"{v.allowance:.1f} in" + (f" ({'; '.join(why)})" if why else ""))
        if close[n]:
            v.close_calls.append("reach")
            if v.allowance > 0 and not verdicts[n]:
                v.reasons[-1] += f" — {CLOSE_CALL}"
            else:
                v.notes.append(f"reach: {CLOSE_CALL}")
        v.path = paths.tracks[k]
        v.final_pose = {"x_mm": float(final.cx[n]), "y_mm": float(final.cy[n]),
                        "heading_deg": float(final.heading[n])}
        v.contact_aspect, v.flank_attack = aspect[n], bool(flank[n])
        if flush is not None and flush[n] is not None:
            v.flush_pose = flush[n]
        if v.flank_attack and covered[n]:
            v.flank_attack = False
            v.notes.append(f"no flank attack: {v.target} is in cover in {covered[n]} (ISD §1)")
        zones = intercepts.get(k, _Interception())
        if zones.why_not:
            v.reasons.append(zones.why_not)
        if zones.by:
            v.intercepted_by, v.intercepted_at = zones.by, entered[k]
            v.reasons.append(f"the path enters {v.intercepted_by}'s {ENEMY_ZONE_IN:g}\" zone "
                             f"before {v.target}'s: {v.intercepted_by} must be charged instead")
        if zones.close:
            v.close_calls.append("interception")
            v.notes.append(f"another {ENEMY_ZONE_IN:g}\" zone is entered about as soon as "
                           f"{v.target}'s: {CLOSE_CALL}")
    # hidden from the charger; and, for a charge that may go in, the charger from its target
    # (the melee's own hidden modifier, ISD A34), in the same batch
    measured = [charges[k] for k in found.tolist()]
    legal = [v for v in measured if not v.reasons]
    hidden = hidden_from(board, [v.charger for v in measured] + [v.target for v in legal],
                         [v.target for v in measured] + [v.charger for v in legal])
    for v, h in zip(measured, hidden):
        v.hidden = h


# --- the aspect struck (ISD §1, A2, A3, A31) ---------------------------------------------------

def aspects_struck(board: Board, f: Poses, t: Poses, t_shapes: np.ndarray,
                   touch: float | None = None, edge: np.ndarray | None = None
                   ) -> tuple[list[Aspect], np.ndarray, np.ndarray, np.ndarray]:
    """The aspect of each target ``t[k]`` that attacker ``f[k]``'s front strikes (ISD §1, A2,
    A31; the rear by its own edge), whether that is a flank attack (the rear too, ISD A3), the
    edge of the target touched (indices into EDGE_NAMES; given, or the longest shared within
    ``touch``: the contact tolerance and the charge's `TOUCH_MM` by default) and the contact
    points on the attackers' fronts (n, 2).

    Flank when the whole attacker front is beyond the target's front line, or when the centre
    of its front is beyond it and the contact is on a side edge and not only at the front
    corner."""
    s = board.settings
    touch = board.contact_tol + TOUCH_MM if touch is None else touch
    lengths = edge_shares(t, f, touch)
    if edge is None:
        edge = edges_of_lengths(lengths, touch)
    shared = lengths[np.arange(len(edge)), edge]
    line = shapely.get_coordinates(shapely.shortest_line(f.front_lines, t_shapes)).reshape(-1, 2, 2)
    hit = line[:, 1]
    tc = t.corners
    corner_only = shared <= 2 * touch + 1e-6
    to_corners = hit[:, None] - tc[:, :2]                      # to the target's front corners
    at_front_corner = corner_only & (np.hypot(to_corners[..., 0], to_corners[..., 1]).min(axis=1)
                                     <= touch)

    # the attacker's front corners and front centre beyond the target's front line
    # (`zones.beyond_front_line`), all three in one pass
    fc = f.corners
    p = np.stack([fc[:, 0], fc[:, 1], f.front_centres])                       # (3, n, 2)
    ahead = (p[..., 0] - t.cx) * t.front[:, 0] + (p[..., 1] - t.cy) * t.front[:, 1] - t.depth / 2
    beyond = ahead < -board.beyond_tol
    whole_beyond, centre_beyond = beyond[0] & beyond[1], beyond[2]
    flank_edge = ((edge == _LEFT) | (edge == _RIGHT)) & ~at_front_corner
    if s.a31_flank_contact == "whole_side" and len(edge):
        def along(p: np.ndarray) -> np.ndarray:   # the v of `Rect.to_local`
            return (p[..., 0] - t.cx[:, None]) * t.front[:, 0, None] + \
                (p[..., 1] - t.cy[:, None]) * t.front[:, 1, None]

        ends = tc[np.arange(len(edge))[:, None], np.stack([edge, (edge + 1) % 4], axis=1)]
        side = np.sort(along(ends), axis=1)
        span = np.sort(along(fc[:, :2]), axis=1)
        flank_edge &= (span[:, 0] <= side[:, 0] + touch) & (span[:, 1] >= side[:, 1] - touch)
    struck = whole_beyond | (centre_beyond & flank_edge)
    aspect = [Aspect.FRONT if not x else (Aspect.REAR if e == _REAR else Aspect.FLANK)
              for x, e in zip(struck.tolist(), edge.tolist())]
    flank = np.array([a is Aspect.FLANK or (a is Aspect.REAR and s.a3_rear_counts_as_flank)
                      for a in aspect], dtype=bool)
    return aspect, flank, edge, line[:, 0]


def _flush_poses(board: Board, final: Poses, t: Poses, edge: np.ndarray, contact: np.ndarray
                 ) -> list[dict[str, float] | None]:
    """ISD A30: after contact the charger may pivot on the point of contact to close flush
    against the edge it touched; None where it already is (within 0.5°)."""
    outward = np.array([EDGE_OUTWARD[EDGE_NAMES[e]] for e in edge.tolist()])
    turn = signed_turn((t.heading + outward + 180.0) % 360.0, final.heading)
    pivoted = final.pivoted(contact, turn)
    return [{"x_mm": float(pivoted.cx[n]), "y_mm": float(pivoted.cy[n]),
             "heading_deg": float(pivoted.heading[n])} if abs(turn[n]) > SQUARE_DEG else None
            for n in range(len(final))]


# --- cover, hidden, interception ---------------------------------------------------------------

def flank_cover(board: Board, targets: Sequence[str]) -> list[str | None]:
    """The terrain giving each target cover (no flank attack then, ISD §1): an area it lies
    wholly in (within the contact tolerance), or a linear obstacle along its front (within
    0.5"); the first in scenario order. Each target's once per board."""
    known = board.charge_book._cover
    missing = [t for t in dict.fromkeys(targets) if t not in known]
    if missing:
        table = board.terrain_table
        at = board.positions(missing)
        areas = table.holding(board.state.index.shapes[at], board.contact_tol, FLANK_COVER_AREAS)
        lines = table.lines_along(board.poses.take(at).front_lines, board.mm(0.5),
                                  LINEAR_OBSTACLES)
        order = {id(t): k for k, t in enumerate(table.features)}
        for t, a, b in zip(missing, areas, lines):
            known[t] = min(a + b, key=lambda f: order[id(f)]).id if a or b else None
    return [known[t] for t in targets]


def hidden_from(board: Board, chargers: Sequence[str], targets: Sequence[str]
                ) -> list[str | None]:
    """Whether each target is hidden from its charger (ISD §9 note 4, ISD A34): "wood" when
    wholly inside a wood (-2), "crest" when wholly behind a crest from it (-1), else None.
    Each pair's once per board."""
    known = board.charge_book._hidden
    pairs = list(zip(chargers, targets))
    missing = [p for p in dict.fromkeys(pairs) if p not in known]
    if missing:
        t_at = board.positions([t for _, t in missing])
        t_shapes = board.state.index.shapes[t_at]
        table = board.terrain_table
        wood = table.holding(t_shapes, 0.0, frozenset({"wood"}))
        found: list[str | None] = ["wood" if w else None for w in wood]
        if table.crests:
            c_at = board.positions([c for c, _ in missing])
            p = board.poses
            ends = np.empty((len(missing), 2, 2))
            ends[:, 0], ends[:, 1] = xy(p.cx[c_at], p.cy[c_at]), xy(p.cx[t_at], p.cy[t_at])
            lines = shapely.linestrings(ends)
            behind = table.crossing_crest(lines, t_shapes)
            found = [f or ("crest" if b else None) for f, b in zip(found, behind.tolist())]
        known.update(zip(missing, found))
    return [known[p] for p in pairs]


class _Interception(NamedTuple):
    """What the 2" zones on a charge's path decide (ISD §9, A29)."""

    why_not: str | None = None           # starts inside a zone and would move closer to it
    by: str | None = None                # the first other enemy whose zone is entered
    at_mm: float = 0.0                   # how far along the path
    close: bool = False                  # some zone entered too near the target's to call


def _interceptions(board: Board, charges: list[Charge], paths: Paths, c_at: np.ndarray,
                   t_at: np.ndarray) -> dict[int, _Interception]:
    """ISD §9 / A29, per row with a path: the first other enemy whose 2" zone the path enters
    before the target's. The zones that count are those of enemies, not generals, not already
    in contact with the charger's side (in melee: its zone stops nobody). A zone entered
    within ``close_call_mm`` of the target's is too close to call (key "interception"): the
    bases of one enemy line, side by side, are reached together. ``c_at``, ``t_at``: the
    chargers' and targets' index positions."""
    names = board.state.index.ids
    shapes = board.state.index.shapes
    reach = board.mm(ENEMY_ZONE_IN)
    # the area each path covers, as pieces: its wheel's, then the hull of its straight run
    wheel, wheel_row = paths.wheel_pieces
    run_row = np.nonzero(paths.found)[0]
    runs = shapely.convex_hull(shapely.multipoints(paths.runs[run_row]))
    hits, others = board.state.index.query_many(np.concatenate([wheel, runs]), reach)
    c_side = board.sides[c_at]
    piece_row = np.concatenate([wheel_row, run_row])
    row = piece_row[hits]
    holds = (board.sides[others] != c_side[row]) & ~board.generals[others] & \
        (others != t_at[row]) & ~board.touches_side[others, c_side[row]]
    n = len(names)
    pair = np.unique(row[holds] * n + others[holds])        # sorted by row, then index
    if not len(pair):
        return {}
    rows = np.unique(pair // n)
    # the entry into each row's target zone, then into each other's
    k_all = np.concatenate([rows, pair // n])
    o_all = np.concatenate([t_at[rows], pair % n])
    by_wheel = hits < len(wheel)
    swept = np.sort(row[by_wheel] * n + others[by_wheel])     # (row, base) met by a wheel
    code = k_all * n + o_all
    wheeled = swept[np.minimum(np.searchsorted(swept, code), len(swept) - 1)] == code \
        if len(swept) else np.zeros(len(k_all), dtype=bool)
    entry = _zone_entries(board, paths, k_all, c_at[k_all], o_all, reach, wheeled)
    target_entry = np.where(np.isnan(entry[:len(rows)]), paths.length_mm[rows],
                            entry[:len(rows)])
    at_target = np.zeros(len(charges))
    at_target[rows] = target_entry
    k, o = k_all[len(rows):], o_all[len(rows):]
    e = entry[len(rows):]
    entered = ~np.isnan(e) & (e > 0)
    # (to 1e-6 mm: the float noise of turned tables does not break a tie of one line's bases)
    margins = np.where(entered, np.round(at_target[k] - np.where(entered, e, 0.0), 6), -np.inf)
    keys = [key("interception", charges[a].charger, charges[a].target, names[b])
            for a, b in zip(k.tolist(), o.tolist())]
    sooner, close = (np.array(x, dtype=bool) for x in decide(
        margins, board.settings.close_call_mm, keys, board.state.held, inclusive=False))
    out: dict[int, _Interception] = {}
    # a start inside a zone, moving closer to it: the first such zone (index order) forbids it
    inside = np.nonzero(e == 0.0)[0]
    if len(inside):
        before = shapely.distance(shapes[c_at[k[inside]]], shapes[o[inside]])
        after = shapely.distance(paths.final.take(k[inside]).polygons, shapes[o[inside]])
        for a, b in zip(k[inside][after < before - 0.5].tolist(),
                        o[inside][after < before - 0.5].tolist()):
            out.setdefault(a, _Interception(f"starts inside {names[b]}'s {ENEMY_ZONE_IN:g}\" "
                                            f"zone and would move closer to it"))
    # else the zone entered first, sooner than the target's
    stop = np.nonzero(entered & sooner)[0]
    order = stop[np.lexsort((o[stop], e[stop], k[stop]))]
    first = np.ones(len(order), dtype=bool)
    first[1:] = k[order][1:] != k[order][:-1]
    doubt = set(k[entered & close].tolist())
    for a, b, at_mm in zip(k[order][first].tolist(), o[order][first].tolist(),
                           e[order][first].tolist()):
        if a not in out:
            out[a] = _Interception(None, names[b], at_mm, a in doubt)
    for a in doubt:
        if a not in out:
            out[a] = _Interception(close=True)
    return out


def _zone_entries(board: Board, paths: Paths, rows: np.ndarray, chargers: np.ndarray,
                  others: np.ndarray, reach: float, wheeled: np.ndarray) -> np.ndarray:
    """mm along path ``rows[i]`` of charger ``chargers[i]`` (index positions) at which it first
    comes within ``reach`` of base ``others[i]``: 0 when it starts there, half the wheel when
    the wheel brings it there (``wheeled[i]``: a piece of its wheel does), else where the
    slide does; NaN when never."""
    shapes = board.state.index.shapes
    entry = np.full(len(rows), np.nan)
    entry[shapely.dwithin(shapes[chargers], shapes[others], reach)] = 0.0
    wheel = np.isnan(entry) & wheeled
    entry[wheel] = paths.wheel_mm[rows[wheel]] / 2
    rest = np.nonzero(np.isnan(entry))[0]
    if len(rest):
        k = rows[rest]
        slide = convex_slides(paths.wheeled.corners[k], board.poses.corners[others[rest]],
                              paths.direction[k], reach)
        ok = slide <= paths.slide_mm[k] + 1e-6
        entry[rest[ok]] = paths.wheel_mm[k[ok]] + slide[ok]
    return entry
