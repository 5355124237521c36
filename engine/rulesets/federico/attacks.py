"""Whether distance and space permit an attack (Federico "Mischie", F18), for many (attacker,
target) pairs at once: the best path (`paths`), the allowance over the ground it sweeps (F16),
room (no other base in the way; Light Infantry and Indians pass through friends, Federico
"Movimenti"), woods and villages, and the aspect struck (F19). The reach is decided within the
close-call tolerance (`campo.engine.boundary`).

`reach(board, pairs)` is the one implementation: each verdict is kept on the board, so the whole
table's analysis, a tap on one base and `GameState.legal_charges` share them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely

from campo.engine.boundary import CLOSE_CALL, decide, key
from campo.engine.geometry.contact import touched_edge
from campo.engine.geometry.rect import Rect
from campo.engine.geometry.zones import beyond_front_line, zone_of
from campo.engine.results import Aspect, Zone, charge_entry, with_lists
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.movement import (
    MOVES,
    Ground,
    allowance_cm,
    base_rate_cm,
    broken_track_cm,
    ground,
    over_one_mm2,
    woods_problem,
)
from campo.engine.rulesets.federico.board import TOUCH_MM
from campo.engine.rulesets.federico.paths import AttackPath, paths, sweep

CANDIDATE_SLACK_CM = 5.0   # attacks are considered against enemies within the move + 5 cm


@dataclass
class Attack:
    """The verdict on one base attacking one enemy base."""

    attacker: str
    target: str
    legal: bool = False
    distance: float | None = None
    allowance: float | None = None
    contact_aspect: Aspect | None = None
    wheel_deg: float = 0.0
    oblique_deg: float | None = None     # None: oblique slides not allowed (the default)
    path: list[list[float]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    close_calls: list[str] = field(default_factory=list)
    morale: dict[str, Any] | None = None
    melee: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        margin = None if self.distance is None or self.allowance is None \
            else self.allowance - self.distance
        d = charge_entry(self.target, self.legal, self.distance, self.contact_aspect, self.reasons,
                         self.allowance, margin, self.wheel_deg)
        d["path"] = [[round(x, 1), round(y, 1)] for x, y in self.path]
        if self.oblique_deg is not None:
            d["oblique_deg"] = round(self.oblique_deg, 1)
        with_lists(d, notes=self.notes, close_calls=self.close_calls)
        if self.morale is not None:
            d["defender_morale"] = self.morale
        if self.melee is not None:
            d["melee"] = self.melee
        return d


def candidates(board: Board, attackers: Sequence[str]) -> dict[str, list[str]]:
    """Attacker -> the enemy troop bases within its full move (+5 cm) of it, from one index
    query for all the attackers asked (none for a base that does not attack)."""
    out: dict[str, list[str]] = {a: [] for a in attackers}
    able = [a for a in attackers if board.pieces[a].can_attack and not board.pieces[a].stale]
    if not able:
        return out
    reach_mm = np.array([board.mm(base_rate_cm(board, a) + CANDIDATE_SLACK_CM) for a in able])
    si, bi = board.state.index.query_many([board.rect(a).polygon for a in able], reach_mm)
    for s, b in zip(si.tolist(), bi.tolist()):
        a = able[s]
        if board.side[b] != board.pieces[a].side and board.troop[b]:
            out[a].append(board.order[b])
    for found in out.values():
        found.sort()
    return out


def aspect_struck(board: Board, final: Rect, t: Rect, edge: str | None = None) -> Aspect:
    """F19: flank if the attacker's front centre is beyond the defender's front line and it
    touches a side edge; rear if it touches the rear edge from the rear zone. The zone is read
    a little behind the attacker's front (its front lies on the edge it touches). The rear edge
    touched from beside the rear zone (F1: a flank zone) is a flank attack: an attacker behind
    the defender's front line is never in front («di fianco o di spalle», Federico "Mischie")."""
    probe = final.from_local(0.0, final.depth / 2 - max(board.contact_tol, 1.0))
    if board.settings.f19_flank_attack == "attacker_zone":
        return zone_of(t, *probe, board.settings.f1_zones).aspect
    if edge is None:
        edge = touched_edge(t, final, board.contact_tol + TOUCH_MM)
    if edge in ("left", "right") and beyond_front_line(t, final.front_centre, board.beyond_tol):
        return Aspect.FLANK
    if edge == "rear":
        if zone_of(t, *probe, board.settings.f1_zones) is Zone.REAR:
            return Aspect.REAR
        if beyond_front_line(t, final.front_centre, board.beyond_tol):
            return Aspect.FLANK
    return Aspect.FRONT


def reach(board: Board, pairs: Sequence[tuple[str, str]]) -> list[Attack]:
    """Distance, space and aspect of each (attacker, target) attack, without the melee; each
    judged once per board, all those not judged yet in one batch."""
    todo = sorted({p for p in pairs if ("reach", *p) not in board.memo})
    if todo:
        for p, v in zip(todo, _judge(board, todo)):
            board.memo[("reach", *p)] = v
    return [board.memo[("reach", *p)] for p in pairs]


def _judge(board: Board, pairs: list[tuple[str, str]]) -> list[Attack]:
    checked = [_checks(board, a, t) for a, t in pairs]
    out = [v for v, _ in checked]
    todo = [v for v, done in checked if not done]
    found = paths(board, [(board.rect(v.attacker), board.rect(v.target)) for v in todo])
    pending = [(v, best) for v, ways in zip(todo, found)
               if (best := _choose_path(board, v, ways)) is not None]
    touched: list[Ground] = []
    if pending:
        sweep([p for _, p in pending])
        for v, best in pending:
            v.path = best.track
            v.contact_aspect = aspect_struck(board, best.final, board.rect(v.target), best.edge)
        touched = ground(board, [p.hulls for _, p in pending],
                         [lambda p=p: p.swept for _, p in pending])
        for (v, _), g in zip(pending, touched):
            _allowance(board, v, g)
    _decide_reach(board, [v for v in out if v.distance is not None and v.allowance is not None])
    if pending:
        for (v, _), g, (in_way, stopped_on) in zip(pending, touched, _blockers(board, pending)):
            if in_way:
                v.reasons.append(f"no room: {', '.join(in_way)} in the way")
            if stopped_on:
                v.reasons.append(f"no room: {', '.join(stopped_on)} where it would make "
                                 "contact (it may pass through friends, not stop on them)")
            if why := woods_problem(board, v.attacker, g):
                v.reasons.append(why)
    for v in out:
        v.legal = not v.reasons
        if v.oblique_deg is None and board.settings.oblique_attack_max_deg > 0.0:
            v.oblique_deg = 0.0        # every verdict shows it when oblique moves are allowed
    return out


def _checks(board: Board, attacker: str, target: str) -> tuple[Attack, bool]:
    """(verdict, True) when the bases alone decide it, else (the verdict to complete with the
    paths; False)."""
    a, t = board.pieces[attacker], board.pieces[target]
    v = Attack(attacker, target)
    if not a.can_attack:
        v.reasons.append("artillery does not attack" if a.arm == "artillery"
                         else "commanders do not attack")
        return v, True
    if t.side == a.side:
        v.reasons.append(f"{target} is a friend")
        return v, True
    if t.is_commander:
        v.reasons.append(f"{target} is a commander, not a unit")
        return v, True
    if a.stale:
        v.reasons.append(f"{attacker} not seen (last known position)")
    if t.stale:
        v.reasons.append(f"{target} not seen (last known position)")
    if target in board.touching[attacker]:
        v.reasons.append(f"already in contact with {target}")
        return v, True
    return v, False


def _choose_path(board: Board, v: Attack, ways: list[AttackPath]) -> AttackPath | None:
    """Fill the verdict from the paths found: the best path when the ground and the room still
    have to be measured (else None: the verdict is complete)."""
    c, tr = board.rect(v.attacker), board.rect(v.target)
    if board.settings.f18_attack_reach == "distance_only":
        v.distance = board.cm(float(shapely.distance(c.polygon, tr.polygon)))
        v.allowance, v.notes = allowance_cm(board, v.attacker, None)
        if ways:
            best = min(ways, key=lambda q: q.length_mm)
            v.contact_aspect = aspect_struck(board, best.final, tr)
            v.path = [list(best.start.front_centre), list(best.final.front_centre)]
        return None
    if not ways:
        limit = board.settings.oblique_attack_max_deg
        how = (f"straight ahead, obliquely (up to {limit:g}°) or after one wheel" if limit > 0
               else "straight ahead or after one wheel")
        v.reasons.append(f"{v.attacker} cannot bring its front into contact with {v.target} "
                         f"moving {how}")
        return None
    best = min(ways, key=lambda q: (round(q.length_mm, 2), abs(q.wheel_deg), abs(q.oblique_deg)))
    v.wheel_deg = best.wheel_deg
    if board.settings.oblique_attack_max_deg > 0.0:
        v.oblique_deg = best.oblique_deg
    v.distance = board.cm(best.length_mm)
    return best


def _blockers(board: Board, pending: list[tuple[Attack, AttackPath]]
              ) -> list[tuple[list[str], list[str]]]:
    """Per attack: (the other bases its path runs through, the friends it would stop on):
    no room (F18). Touching does not count: bases are shrunk by the contact tolerance and must
    share more than 1 mm² with the area swept. A regiment's own bases never block its attack;
    Light Infantry and Indians pass through friends («L'interpenetrazione dell'unità amiche è
    permessa solo a Fanteria Leggera, Indiani», Federico "Movimenti") but need room where they
    make contact."""
    may_block = board.room_corners[1]
    of = board.regiments.of_base
    flat = np.concatenate([p.hulls for _, p in pending])
    owner = np.repeat(np.arange(len(pending)), [len(p.hulls) for _, p in pending])
    hull_i, base_i = board.tree.query(flat)
    k = owner[hull_i]
    attack = [v for v, _ in pending]
    unit = np.array([of.get(i, i) for i in board.order], dtype=object)
    own = np.array([of[v.attacker] for v in attack], dtype=object)
    target = np.array([board.pos[v.target] for v in attack])
    keep = may_block[base_i] & (unit[base_i] != own[k]) & (base_i != target[k])
    side = np.array([board.pieces[v.attacker].side for v in attack])
    passes = np.array([board.pieces[v.attacker].skirmisher for v in attack], dtype=bool)
    friend = board.side[base_i] == side[k]
    hull_i, base_i, k = hull_i[keep], base_i[keep], k[keep]
    rows = np.unique(base_i)
    shrunk = np.empty(len(board.order), dtype=object)   # outlines only where a sweep meets
    shrunk[rows] = shapely.polygons(board.room_corners[0][rows])
    through = ~(passes[k] & friend[keep])
    in_way: list[set[str]] = [set() for _ in pending]
    stopped_on: list[set[str]] = [set() for _ in pending]
    # a base in the way: it shares more than 1 mm² with the union of the path's hulls
    h, b, kk = hull_i[through], base_i[through], k[through]
    meets = shapely.intersects(flat[h], shrunk[b])
    h, b, kk = h[meets], b[meets], kk[meets]
    pieces = shapely.area(shapely.intersection(flat[h], shrunk[b]))
    for x, y in over_one_mm2(kk, b, pieces, lambda x, y: shapely.intersection(
            pending[x][1].swept, shrunk[y]).area):
        in_way[x].add(board.order[y])
    # a friend passed through: only where the attacker stops (the last hull holds that pose)
    last = np.cumsum([len(p.hulls) for _, p in pending]) - 1
    stop = ~through & (hull_i == last[k])
    b, kk = base_i[stop], k[stop]
    finals = shapely.polygons(np.array([pending[x][1].final.corners for x in kk.tolist()],
                                       dtype=float).reshape(-1, 4, 2))
    shared = shapely.area(shapely.intersection(finals, shrunk[b]))
    for x, y in zip(kk[shared > 1.0].tolist(), b[shared > 1.0].tolist()):
        stopped_on[x].add(board.order[y])
    return [(sorted(a), sorted(b)) for a, b in zip(in_way, stopped_on)]


def _allowance(board: Board, v: Attack, touched: Ground) -> None:
    """The allowance over the ground swept (F16; 'portion_only': the way on broken ground
    counts double)."""
    v.allowance, v.notes = allowance_cm(board, v.attacker, touched)
    if (extra := broken_track_cm(board, v.attacker, v.path)) > 0:
        v.distance = (v.distance or 0.0) + extra
        v.notes.append(f"{extra:.1f} cm of the way on broken ground counts double "
                       f"({MOVES}; Federico F16)")


def _decide_reach(board: Board, verdicts: list[Attack]) -> None:
    """Within the move or not (F18), decided within the close-call tolerance."""
    if not verdicts:
        return
    margin_mm = [board.mm(v.allowance - v.distance) for v in verdicts]   # type: ignore[operator]
    within, close = decide(margin_mm, board.close_call,
                           [key("reach", v.attacker, v.target) for v in verdicts],
                           board.state.held)
    for v, ok, near in zip(verdicts, within, close):
        if not ok:
            short = v.distance - v.allowance   # type: ignore[operator]
            text = (f"out of reach: needs {v.distance:.1f} cm, may move {v.allowance:.1f} cm "
                    f"({max(short, 0.0):.1f} cm short)")
            if board.settings.f18_attack_reach == "distance_only":
                text = f"out of reach: {v.distance:.1f} cm, may move {v.allowance:.1f} cm"
            v.reasons.append(f"{text} ({CLOSE_CALL})" if near else text)
        if near:
            v.close_calls.append("reach")
