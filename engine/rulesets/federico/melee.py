"""Melee (Federico "Mischie"): whether distance and space permit an attack (F18), the aspect it
strikes (F19), the defender's morale test, the melee roll's modifiers with outnumbering (F20),
and the odds of each result (F21). Also the engagements already on the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import shapely

from engine.geometry.contact import shared_lengths, touched_edge
from engine.geometry.motion import slide_convex, swept_area, wheel, wheel_cost, wheel_poses
from engine.geometry.rect import Rect, angle_diff
from engine.geometry.zones import beyond_front_line, zone_of
from engine.results import Aspect, Zone
from engine.rulesets.federico.board import Board
from engine.rulesets.federico.contacts import regiment_commanders, supports
from engine.rulesets.federico.modifiers import Modifier, probability, rounded, total
from engine.rulesets.federico.movement import (
    allowance_cm,
    base_rate_cm,
    broken_track_cm,
    fall_back,
    woods_problem,
)
from engine.rulesets.federico.regiments import Regiments

MELEE = 'Federico "Mischie"'
TOUCH_MM = 0.5        # first contact counts as made by the front if within this of it
CANDIDATE_SLACK_CM = 5.0
_EDGE_OF_ZONE = {Zone.FRONT: "front", Zone.LEFT: "left", Zone.RIGHT: "right", Zone.REAR: "rear",
                 Zone.INSIDE: "front"}
_OUTWARD = {"front": 0.0, "left": 90.0, "rear": 180.0, "right": -90.0}


@dataclass
class _Path:
    start: Rect
    wheeled: Rect
    final: Rect
    wheel_deg: float
    wheel_mm: float
    slide_mm: float

    @property
    def length_mm(self) -> float:
        return self.wheel_mm + self.slide_mm

    @cached_property
    def swept(self) -> Any:
        poses = wheel_poses(self.start, self.wheel_deg) if self.wheel_deg else [self.start]
        return swept_area(poses + [self.final])


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
    path: list[list[float]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    morale: dict[str, Any] | None = None
    melee: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "target": self.target, "legal": self.legal,
            "distance": None if self.distance is None else round(self.distance, 2),
            "contact_aspect": self.contact_aspect.value if self.contact_aspect else None,
            "reasons": list(self.reasons),
            "allowance": None if self.allowance is None else round(self.allowance, 2),
            "margin": None if self.distance is None or self.allowance is None
            else round(self.allowance - self.distance, 2),
            "wheel_deg": round(self.wheel_deg, 1),
            "path": [[round(x, 1), round(y, 1)] for x, y in self.path],
        }
        if self.notes:
            d["notes"] = list(self.notes)
        if self.morale is not None:
            d["defender_morale"] = self.morale
        if self.melee is not None:
            d["melee"] = self.melee
        return d


# --- reaching the target (F15, F18) ---------------------------------------------------------
def _front_first_slide(body: Rect, target: Rect, direction: tuple[float, float]) -> float | None:
    """Slide distance when the front edge makes first contact (corners included), else None."""
    corners = target.corners
    s_front = slide_convex((body.front_left, body.front_right), None, corners, target.polygon,
                           direction)
    if not math.isfinite(s_front):
        return None
    if slide_convex(body.corners, None, corners, target.polygon, direction) < s_front - TOUCH_MM:
        return None
    final = body.moved(direction[0] * s_front, direction[1] * s_front)
    shared = shared_lengths(final, target, TOUCH_MM)
    if max(shared["left"], shared["right"], shared["rear"]) > 2 * TOUCH_MM + 1e-6:
        return None
    return s_front


def _paths(board: Board, c: Rect, t: Rect) -> list[_Path]:
    """Straight ahead; or one wheel (to face the struck edge squarely, or to face the target's
    nearest point) then straight ahead (F15, F18)."""
    zone = zone_of(t, c.front_centre[0], c.front_centre[1], board.settings.f1_zones)
    squarely = (t.heading_deg + _OUTWARD[_EDGE_OF_ZONE[zone]] + 180.0) % 360.0
    turns = [0.0, angle_diff(squarely, c.heading_deg)]
    (x0, y0), (x1, y1) = shapely.shortest_line(c.front_edge, t.polygon).coords
    if math.hypot(x1 - x0, y1 - y0) > 1e-6:
        turns.append(angle_diff(math.degrees(math.atan2(y1 - y0, x1 - x0)), c.heading_deg))
    out: list[_Path] = []
    seen: set[float] = set()
    free = board.settings.f15_wheels == "free_turn"
    for turn in turns:
        if abs(turn) < 0.5:
            turn = 0.0
        if round(turn, 1) in seen or abs(turn) > 90.0 + 1e-9:
            continue
        seen.add(round(turn, 1))
        body = wheel(c, turn) if turn else c
        if turn and _wheel_strikes(c, turn, t):
            continue
        s = _front_first_slide(body, t, body.front)
        if s is None:
            continue
        final = body.moved(body.front[0] * s, body.front[1] * s)
        out.append(_Path(c, body, final, turn, 0.0 if free else wheel_cost(c, turn), s))
    return out


def _wheel_strikes(c: Rect, turn: float, t: Rect) -> bool:
    """The wheel itself sweeps over the target. The area swept lies within the bounding box of
    the poses' corners: when that box misses the target's, the union is not built."""
    poses = wheel_poses(c, turn)
    xs = [x for q in poses for x, _ in q.corners]
    ys = [y for q in poses for _, y in q.corners]
    txs = [x for x, _ in t.corners]
    tys = [y for _, y in t.corners]
    if max(xs) < min(txs) or max(txs) < min(xs) or max(ys) < min(tys) or max(tys) < min(ys):
        return False
    return bool(shapely.intersects(swept_area(poses), t.polygon))


def _shrunk(board: Board, base_id: str) -> Any:
    """The base less the contact tolerance (touching is not blocking), cached per base."""
    cache = board.__dict__.setdefault("_shrunk_bases", {})
    if base_id not in cache:
        cache[base_id] = board.rect(base_id).polygon.buffer(-max(board.contact_tol, TOUCH_MM))
    return cache[base_id]


def _blockers(board: Board, attacker: str, target: str, p: _Path) -> list[str]:
    """Other bases the path runs through (no room, F18); touching does not count."""
    regs = Regiments.of(board)
    mates = set(regs.mates(attacker))
    area = p.swept
    out = []
    for other in board.state.index.within(area, 0.0):
        o = board.pieces[other]
        if other in mates or other == target or o.is_commander:
            continue
        shrunk = _shrunk(board, other)
        if not shrunk.is_empty and shapely.intersection(area, shrunk).area > 1.0:
            out.append(other)
    return sorted(out)


def aspect_struck(board: Board, final: Rect, t: Rect) -> Aspect:
    """F19: flank if the attacker's front centre is beyond the defender's front line and it
    touches a side edge; rear if it touches the rear edge from the rear zone. The zone is read
    a little behind the attacker's front (its front lies on the edge it touches)."""
    probe = final.from_local(0.0, final.depth / 2 - max(board.contact_tol, 1.0))
    if board.settings.f19_flank_attack == "attacker_zone":
        return zone_of(t, *probe, board.settings.f1_zones).aspect
    edge = touched_edge(t, final, board.contact_tol + TOUCH_MM)
    if edge in ("left", "right") and beyond_front_line(t, final.front_centre, board.beyond_tol):
        return Aspect.FLANK
    if edge == "rear" and zone_of(t, *probe, board.settings.f1_zones) is Zone.REAR:
        return Aspect.REAR
    return Aspect.FRONT


def candidates(board: Board, attacker: str) -> list[str]:
    """Enemy troop bases within the attacker's full move (+5 cm) of it (cached)."""
    cache = board.__dict__.setdefault("_candidates", {})
    if attacker not in cache:
        cache[attacker] = _candidates(board, attacker)
    return cache[attacker]


def _candidates(board: Board, attacker: str) -> list[str]:
    p = board.pieces[attacker]
    if not p.can_attack or p.stale:
        return []
    reach = board.mm(base_rate_cm(board, attacker) + CANDIDATE_SLACK_CM)
    return sorted(o for o in board.state.index.within(board.rect(attacker).polygon, reach)
                  if board.pieces[o].side != p.side and board.pieces[o].is_troop)


def reach(board: Board, attacker: str, target: str) -> Attack:
    """Distance, space and aspect of an attack, without the melee modifiers (cached)."""
    cache = board.__dict__.setdefault("_reach", {})
    key = (attacker, target)
    if key not in cache:
        cache[key] = _reach(board, attacker, target)
    return cache[key]


def _reach(board: Board, attacker: str, target: str) -> Attack:
    a, t = board.pieces[attacker], board.pieces[target]
    v = Attack(attacker, target)
    if not a.can_attack:
        v.reasons.append("artillery does not attack" if a.arm == "artillery"
                         else "commanders do not attack")
        return v
    if t.side == a.side:
        v.reasons.append(f"{target} is a friend")
        return v
    if t.is_commander:
        v.reasons.append(f"{target} is a commander, not a unit")
        return v
    if a.stale:
        v.reasons.append(f"{attacker} not seen (last known position)")
    if t.stale:
        v.reasons.append(f"{target} not seen (last known position)")
    if target in board.touching[attacker]:
        v.reasons.append(f"already in contact with {target}")
        return v
    c, tr = board.rect(attacker), board.rect(target)
    paths = _paths(board, c, tr)
    if board.settings.f18_attack_reach == "distance_only":
        gap = float(shapely.distance(c.polygon, tr.polygon))
        v.distance = board.cm(gap)
        v.allowance, v.notes = allowance_cm(board, attacker, None)
        if paths:
            best = min(paths, key=lambda q: q.length_mm)
            v.contact_aspect = aspect_struck(board, best.final, tr)
            v.path = [list(best.start.front_centre), list(best.final.front_centre)]
        if v.distance > v.allowance + 1e-6:
            v.reasons.append(f"out of reach: {v.distance:.1f} cm, may move {v.allowance:.1f} cm")
        v.legal = not v.reasons
        return v
    if not paths:
        v.reasons.append(f"{attacker} cannot bring its front into contact with {target} moving "
                         "straight ahead or after one wheel")
        return v
    best = min(paths, key=lambda q: (round(q.length_mm, 2), abs(q.wheel_deg)))
    v.wheel_deg = best.wheel_deg
    v.distance = board.cm(best.length_mm)
    v.contact_aspect = aspect_struck(board, best.final, tr)
    v.path = [list(q.front_centre) for q in (wheel_poses(c, best.wheel_deg)
                                             if best.wheel_deg else [c])]
    v.path.append(list(best.final.front_centre))
    v.allowance, v.notes = allowance_cm(board, attacker, best.swept)
    if (extra := broken_track_cm(board, attacker, v.path)) > 0:
        v.distance += extra
        v.notes.append(f"{extra:.1f} cm of the way on broken ground counts double "
                       '(Federico "Movimenti"; Federico F16)')
    if v.distance > v.allowance + 1e-6:
        v.reasons.append(f"out of reach: needs {v.distance:.1f} cm, may move "
                         f"{v.allowance:.1f} cm ({v.distance - v.allowance:.1f} cm short)")
    if blocked := _blockers(board, attacker, target, best):
        v.reasons.append(f"no room: {', '.join(blocked)} in the way")
    if why := woods_problem(board, attacker, best.swept):
        v.reasons.append(why)
    v.legal = not v.reasons
    return v


# --- the defender's morale test and the melee roll ---------------------------------------------
def favourable(board: Board, defender: str, attacker: str) -> str | None:
    """«terreno favorevole (su collina o dietro torrente guadabile)»."""
    hill = board.on_hill(defender)
    if hill and board.on_hill(attacker) != hill:
        return f"on hill {hill}"
    stream = board.line_between(defender, attacker, board.settings.stream_kinds)
    return f"behind stream {stream}" if stream else None


def morale_test(board: Board, defender: str, aspect: Aspect | None,
                attackers: list[str]) -> dict[str, Any]:
    """The defender regiment's 1D6 morale test on being attacked by ``attackers`` (bases):
    modifiers, class, odds (F1, F19). Favourable terrain counts when it holds against every
    attacker (a stream in front does not shelter a unit attacked from the flank)."""
    regs = Regiments.of(board)
    d_reg = regs.regiment(defender)
    mods: list[Modifier] = []
    if aspect in (Aspect.FLANK, Aspect.REAR):
        mods.append(Modifier(f"defender attacked in the {aspect.value}", +2,
                             f"{MELEE}; Federico F19"))
    shelters = [favourable(board, defender, a) for a in attackers]
    if shelters and all(shelters):
        mods.append(Modifier(f"defender in favourable terrain ({shelters[0]})", -1, MELEE))
    if cmd := regiment_commanders(board, defender):
        mods.append(Modifier(f"commander attached ({', '.join(cmd)})", -1,
                             f"{MELEE}; Federico F27"))
    pieces = [board.pieces[a] for a in attackers]
    if any(p.highlanders for p in pieces):
        mods.append(Modifier("attacked by a Highlander clan", +1, MELEE))
    elif any(p.arm == "infantry" and p.indians and board.areas_under(a, ("wood",))
             for a, p in zip(attackers, pieces)):
        mods.append(Modifier("attacked by Indians out of a wood in ambush", +1, MELEE))
    klass = d_reg.klass or 4
    m = total(mods)
    falls_back = probability(lambda r: r > klass, m)
    out: dict[str, Any] = {"modifiers": [x.to_dict() for x in mods], "modifier_total": m,
                           "class": klass,
                           "odds": rounded({"falls_back": falls_back,
                                            "stands": 1.0 - falls_back})}
    auto = automatic_result(board, defender)
    if auto:
        out["automatic"] = auto
    return out


def automatic_result(board: Board, defender: str) -> str | None:
    """«Unità in Colonna di Marcia sono eliminate automaticamente»; artillery in battery is
    eliminated unless the attacker falls back or is eliminated; limbered as march column (F22)."""
    p = board.pieces[defender]
    if p.march_column or (p.arm == "artillery" and p.formation == "limbered"):
        return "eliminated (march column)" if p.march_column else \
            "eliminated (limbered artillery, as a march column: Federico F22)"
    if p.arm == "artillery":
        return ("eliminated unless it passes the test, fires again and the attacker falls back "
                "or is eliminated")
    return None


def melee_modifiers(board: Board, attacker: str, defender: str, aspect: Aspect | None,
                    counts: tuple[int, int]) -> list[Modifier]:
    """The attacker's melee die modifiers (Federico "Mischie")."""
    a, d = board.pieces[attacker], board.pieces[defender]
    mods: list[Modifier] = []
    if (a.heavy_cavalry or a.elite_infantry) and not (d.heavy_cavalry or d.elite_infantry):
        mods.append(Modifier("attacker is Heavy Cavalry or Elite Infantry", -1, MELEE))
    if (a.light_cavalry or a.light_infantry) and not (d.light_cavalry or d.light_infantry):
        mods.append(Modifier("attacker is Light Cavalry or Light Infantry", +1, MELEE))
    n_att, n_def = counts
    if n_att > n_def:
        mods.append(Modifier(f"attacker outnumbers the defender ({n_att} to {n_def})", -1,
                             f"{MELEE}; Federico F20"))
    elif n_def > n_att:
        mods.append(Modifier(f"defender outnumbers the attacker ({n_def} to {n_att})", +1,
                             f"{MELEE}; Federico F20"))
    cover = board.line_between(defender, attacker, board.settings.light_cover_lines)
    if cover:
        mods.append(Modifier(f"defender behind light cover ({cover})", +1, MELEE))
    elif where := favourable(board, defender, attacker):
        mods.append(Modifier(f"defender in favourable terrain ({where})", +1, MELEE))
    if aspect in (Aspect.FLANK, Aspect.REAR):
        mods.append(Modifier(f"defender taken in the {aspect.value}", -2, f"{MELEE}; Federico F19"))
    return mods


def melee_odds(modifier: int) -> dict[str, float]:
    """Per attacker die: 1-2 (or less, F21) defender eliminated; 3-4 defender falls back; 5-6
    attacker falls back; 7+ attacker eliminated."""
    return rounded({
        "defender_eliminated": probability(lambda r: r <= 2, modifier),
        "defender_falls_back": probability(lambda r: 3 <= r <= 4, modifier),
        "attacker_falls_back": probability(lambda r: 5 <= r <= 6, modifier),
        "attacker_eliminated": probability(lambda r: r >= 7, modifier),
    })


def _with_supports(board: Board, bases: set[str]) -> tuple[int, list[str]]:
    sup: set[str] = set()
    if board.settings.f20_outnumbering == "contact_plus_adjacent":
        for b in bases:
            sup |= {o for o in board.touching[b] if o not in bases and supports(board, o, b)}
    return len(bases) + len(sup), sorted(sup)


def _regiment_side(board: Board, base_id: str) -> set[str]:
    regs = Regiments.of(board)
    reg = regs.regiment(base_id)
    return set(next(g for g in reg.groups if base_id in g))


def judge_attack(board: Board, attacker: str, target: str) -> Attack:
    """The full verdict: reach, aspect, defender's morale test and the melee roll (estimate)."""
    cache = board.__dict__.setdefault("_attacks", {})
    key = (attacker, target)
    if key in cache:
        return cache[key]
    v = reach(board, attacker, target)
    if v.distance is not None and v.reasons[:1] != [f"already in contact with {target}"]:
        regs = Regiments.of(board)
        d_bases = set(regs.regiment(target).bases)
        engaged = {attacker} | {m for m in regs.mates(attacker) if m != attacker and any(
            reach(board, m, t).legal for t in d_bases if t in candidates(board, m))}
        n_att, a_sup = _with_supports(board, engaged)
        n_def, d_sup = _with_supports(board, _regiment_side(board, target))
        v.morale = morale_test(board, target, v.contact_aspect, [attacker])
        mods = melee_modifiers(board, attacker, target, v.contact_aspect, (n_att, n_def))
        v.melee = {"modifiers": [m.to_dict() for m in mods], "modifier_total": total(mods),
                   "counts": {"attacker": n_att, "defender": n_def,
                              "attacker_supports": a_sup, "defender_supports": d_sup,
                              "estimate": "the attacking bases of the regiment that can reach "
                                          "the defender, against the defender's group"},
                   "odds_per_die": melee_odds(total(mods))}
    cache[key] = v
    return v


def engagements(board: Board) -> list[dict[str, Any]]:
    """Melees on the table: each regiment touched by enemies, as the defender against every
    enemy base touching it (one attack by «uno o più gruppi»), counted as F20 says. Every
    regiment in contact appears once as defender: the geometry cannot tell who attacked."""
    regs = Regiments.of(board)
    by_defender: dict[str, set[tuple[str, str]]] = {}
    for d in board.troops():
        for a in board.touching[d]:
            if board.is_enemy(a, d):
                by_defender.setdefault(regs.of_base[d], set()).add((a, d))
    out = []
    for d_reg, pairs in sorted(by_defender.items()):
        att = {a for a, _ in pairs}
        dfd = {d for _, d in pairs}
        n_att, a_sup = _with_supports(board, att)
        n_def, d_sup = _with_supports(board, dfd)
        dice = []
        for a, d in sorted(pairs):
            aspect = Aspect(_edge_aspect(board.edge_touched(d, a)))
            mods = melee_modifiers(board, a, d, aspect, (n_att, n_def))
            dice.append({"attacker_base": a, "defender_base": d, "aspect": aspect.value,
                         "modifiers": [m.to_dict() for m in mods], "modifier_total": total(mods),
                         "odds": melee_odds(total(mods))})
        att_regs = sorted({regs.of_base[a] for a in att})
        if board.settings.f21_melee_dice == "per_base_of_regiment":
            n_dice = sum(len(regs.by_name[r].bases) for r in att_regs)
        else:
            n_dice = len(att)
        worst_a, worst_d = min(sorted(pairs), key=lambda ad: _ASPECT_RANK[
            _edge_aspect(board.edge_touched(ad[1], ad[0]))])
        aspect = Aspect(_edge_aspect(board.edge_touched(worst_d, worst_a)))
        out.append({"defender": d_reg, "attackers": att_regs,
                    "attacker_bases": sorted(att), "defender_bases": sorted(dfd),
                    "counts": {"attacker": n_att, "defender": n_def,
                               "attacker_supports": a_sup, "defender_supports": d_sup},
                    "dice": n_dice, "per_die": dice,
                    "repeats_next_turn": board.settings.f23_melee_repeats == "while_in_contact",
                    "defender_morale": morale_test(board, worst_d, aspect, sorted(att)),
                    "defender_fall_back": fall_back(board, worst_d, worst_a)})
    return out


_ASPECT_RANK = {"rear": 0, "flank": 1, "front": 2}   # the worst aspect struck decides the test


def _edge_aspect(edge: str) -> str:
    return "flank" if edge in ("left", "right") else edge
