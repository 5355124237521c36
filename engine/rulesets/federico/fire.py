"""Fire (Federico "Esecuzione del tiro", "Modificatori", "Raggio di tiro"): arcs, ranges, bands,
sight, the modifiers that geometry and traits decide, and the odds of each die.

Distances are cm. ``margin`` is positive when inside the long range, negative when short.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import shapely
from shapely.geometry import Polygon

from campo.engine.geometry.arcs import arc_polygon
from campo.engine.geometry.rect import Point
from campo.engine.geometry.sight import SightQuery, sample_outline, sample_segment, sight_lines
from campo.engine.geometry.zones import beyond_front_line
from campo.engine.results import Band
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.modifiers import Modifier, probability, rounded, total
from campo.engine.rulesets.federico.regiments import Regiments

REPORT_REACH_FACTOR = 1.5   # enemies in arc are listed out to 1.5 x the long range
EPS_CM = 1e-6
INSET_MM = 0.5              # sight lines start/end this far inside the edges (touching neighbours)

FIRE = 'Federico "Esecuzione del tiro"'
MODS = 'Federico "Modificatori"'
RANGE = 'Federico "Raggio di tiro"'


@dataclass
class Target:
    """One enemy base in a firer's arc or range, with the modifiers and odds of firing at it."""

    id: str
    regiment: str
    distance: float
    in_arc: bool
    in_range: bool
    band: Band | None
    line_of_sight: bool
    margin: float
    enfilade: bool = False
    cover: str | None = None
    legal: bool = False
    may_declare: bool = False
    reasons: list[str] = field(default_factory=list)
    modifiers: list[Modifier] = field(default_factory=list)
    dice: int = 0
    odds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id, "regiment": self.regiment, "distance": round(self.distance, 2),
            "in_arc": self.in_arc, "in_range": self.in_range,
            "band": self.band.value if self.band else None, "line_of_sight": self.line_of_sight,
            "margin": round(self.margin, 2), "legal": self.legal, "may_declare": self.may_declare,
            "enfilade": self.enfilade, "cover": self.cover,
            "modifiers": [m.to_dict() for m in self.modifiers],
            "modifier_total": total(self.modifiers), "dice": self.dice,
            "odds": rounded(self.odds),
        }
        if self.reasons:
            d["reasons"] = list(self.reasons)
        return d


def half_angle(board: Board, firer: str) -> float:
    """F2 for infantry; F3 for artillery (as infantry, or straight ahead)."""
    p = board.pieces[firer]
    if p.arm == "artillery" and board.settings.f3_artillery_arc == "straight_ahead":
        return 0.0
    return board.settings.f2_arc_half_angle_deg


def fire_arc(board: Board, firer: str, reach_cm: float | None = None) -> Polygon:
    """The arc ahead of the firer's front edge (Federico F2, F3), out to ``reach_cm``."""
    p, r = board.pieces[firer], board.rect(firer)
    _, long_cm = p.ranges_cm or (0.0, 0.0)
    reach = reach_cm if reach_cm is not None else long_cm * REPORT_REACH_FACTOR
    return arc_polygon(r.front_left, r.front_right, r.front, half_angle(board, firer),
                       board.mm(reach))


def band_of(board: Board, firer: str, distance_cm: float) -> Band | None:
    """Short (<= short figure) or long (<= long figure), Federico F4; None beyond."""
    short, long_ = board.pieces[firer].ranges_cm or (0.0, 0.0)
    if distance_cm <= short + EPS_CM:
        return Band.SHORT
    if distance_cm <= long_ + EPS_CM:
        return Band.LONG
    return None


def _measure(board: Board, firer: str, target: str, arc: Polygon) -> tuple[bool, float, Polygon]:
    """(in arc, distance cm, the part of the target measured to), Federico F2, F4."""
    fr, tr = board.rect(firer), board.rect(target)
    poly = tr.polygon
    in_arc = bool(shapely.dwithin(arc, poly, 1e-6))
    part = poly
    mode = board.settings.f4_range_measure
    if in_arc and mode == "front_edge_to_part_in_arc":
        inter = shapely.intersection(arc, poly)
        if not inter.is_empty and inter.area > 0:
            part = inter
    if mode == "centre_to_centre":
        d = ((fr.cx - tr.cx) ** 2 + (fr.cy - tr.cy) ** 2) ** 0.5
    else:
        d = float(shapely.distance(fr.front_edge, part))
    return in_arc, board.cm(d), part


def sight_problem(board: Board, firer: str, target: str, part: Polygon
                  ) -> tuple[list[Point], list[Point], SightQuery] | None:
    """Federico F5: the origins and ends of the sight lines to try and what they ignore (None
    when sight is not checked). `fire_batch` computes the same for all shots at once."""
    mode = board.settings.f5_line_of_sight
    if mode == "ignore":
        return None
    fr, tr = board.rect(firer), board.rect(target)
    if mode == "centre_to_centre":
        origins, ends = [fr.front_centre], [(tr.cx, tr.cy)]
    else:
        origins = sight_origins(board, firer)
        ends = sample_outline(sight_end_shape(part), per_edge=2) + \
            [(part.centroid.x, part.centroid.y)]
    return origins, ends, sight_query(board, firer, target)


def sight_query(board: Board, firer: str, target: str) -> SightQuery:
    """What a sight line from ``firer`` to ``target`` ignores: the two bases themselves (and a
    crest crossed inside them), and any area holding either centre (F5)."""
    a, b = board.areas_holding_centre(firer), board.areas_holding_centre(target)
    own = a | b if a and b else a or b
    return SightQuery(frozenset((firer, target)), 0.0, _NONE,
                      (board.rect(firer).polygon, board.rect(target).polygon), _NONE, own)


_NONE: frozenset[str] = frozenset()


def sight_end_shape(part: Polygon) -> Polygon:
    """Where the sight lines end: the part measured to, shrunk by INSET_MM (touching
    neighbours do not block), unless too small to shrink."""
    shrunk = part.buffer(-INSET_MM) if part.area > 4 * INSET_MM ** 2 else part
    return part if shrunk.is_empty else shrunk


def sight_origins(board: Board, firer: str) -> list[Point]:
    """Five points along the firer's front edge, just inside its ends (cached per base)."""
    cache = board.__dict__.setdefault("_sight_origins", {})
    if firer not in cache:
        fr = board.rect(firer)
        inset = min(INSET_MM, fr.width / 4)
        left = fr.from_local(-fr.width / 2 + inset, fr.depth / 2 + 0.01)
        right = fr.from_local(fr.width / 2 - inset, fr.depth / 2 + 0.01)
        cache[firer] = sample_segment(left, right, 5)
    return cache[firer]


def line_of_sight(board: Board, firer: str, target: str, part: Polygon) -> bool:
    """Federico F5 (a gap setting): one clear line from the front edge to the target."""
    problem = sight_problem(board, firer, target, part)
    if problem is None:
        return True
    origins, ends, query = problem
    lines = sight_lines(origins, ends)
    ok = board.sight_field.clear(lines, exclude=query.exclude, ends=query.ends,
                                 uncounted_areas=query.uncounted_areas)
    return bool(ok.all()) if board.settings.f5_line_of_sight == "all_lines" else bool(ok.any())


def enfiladed(board: Board, firer: str, target: str) -> bool:
    """Federico F8: the firer's front (both corners, or its centre) beyond the target's front."""
    fr, tr = board.rect(firer), board.rect(target)
    tol = board.beyond_tol
    if board.settings.f8_enfilade == "front_centre_beyond":
        return beyond_front_line(tr, fr.front_centre, tol)
    return beyond_front_line(tr, fr.front_left, tol) and beyond_front_line(tr, fr.front_right, tol)


def cover_of(board: Board, firer: str, target: str) -> str | None:
    """Federico F7 (gap settings): terrain id giving the target cover against this firer."""
    return board.cover_area(target) or board.line_between(target, firer,
                                                          board.settings.cover_lines)


def fired_before(board: Board, firer: str) -> bool:
    """Federico F13: traits.fired, else (by default) any turn after the first."""
    p = board.pieces[firer]
    if p.fired is not None:
        return p.fired
    turn = board.state.scenario.turn
    return board.settings.f13_fire_history == "traits_then_turn" and turn is not None and turn > 1


def fire_modifiers(board: Board, firer: str, target: str, band: Band | None, enfilade: bool,
                   cover: str | None) -> list[Modifier]:
    """Federico "Modificatori", each row once, as geometry and traits decide them (cached per
    firer and kind of target: arm, formation, Light Infantry; band, enfilade and cover)."""
    t = board.pieces[target]
    cache = board.__dict__.setdefault("_fire_modifiers", {})
    key = (firer, t.arm, t.formation, t.march_column, t.light_infantry, band, enfilade, cover)
    if key not in cache:
        cache[key] = _fire_modifiers(board, firer, target, band, enfilade, cover)
    return list(cache[key])


def _fire_modifiers(board: Board, firer: str, target: str, band: Band | None, enfilade: bool,
                    cover: str | None) -> list[Modifier]:
    f, t = board.pieces[firer], board.pieces[target]
    s = board.settings
    out: list[Modifier] = []
    mounted = t.arm == "cavalry" or (s.f9_mounted == "cavalry_and_limbered"
                                     and t.arm == "artillery" and t.formation == "limbered")
    why = [w for w, on in (("mounted", mounted), ("in march column", t.march_column),
                           ("enfiladed", enfilade)) if on]
    if why:
        out.append(Modifier(f"target {' and '.join(why)}", -1, f"{MODS}; Federico F8, F9"))
    if t.light_infantry:
        out.append(Modifier("target is Light Infantry", +1, MODS))
    if band is Band.SHORT:
        out.append(Modifier("target at short range", -1, f"{MODS}; Federico F4, F9"))
    if f.light_infantry:
        out.append(Modifier("Light Infantry firing", -1, MODS))
    if f.arm == "infantry" and not fired_before(board, firer):
        out.append(Modifier("infantry firing for the first time", -1, f"{MODS}; Federico F13"))
    art_v_art = f.arm == "artillery" and t.arm == "artillery"
    if cover or art_v_art:
        label = f"target in cover ({cover})" if cover else "artillery firing at artillery"
        if cover and art_v_art:
            label += " / artillery firing at artillery"
        out.append(Modifier(label, +1, f"{MODS}; Federico F7"))
    if cover and s.f7_cover_count == "twice":
        out.append(Modifier(f"target in cover ({cover}), as stated in Esecuzione del tiro", +1,
                            f"{FIRE}; Federico F7"))
    if f.moved and not f.light_infantry:
        out.append(Modifier("firing unit has moved", +1, f"{MODS}; Federico F13"))
    return out


def fire_odds(board: Board, firer: str, target: str, modifier: int, dice: int) -> dict[str, float]:
    """Per die: 'hit' (= firer's class: one base eliminated), 'halt' (lower: halts and drops a
    class, F10), 'none' (higher); per volley: expected hits and the chance of a halt (F11).
    The odds depend only on the classes, the modifier and the dice: computed once per board
    for each such case (callers do not change the dict)."""
    c = board.pieces[firer].klass or 4
    low = c if board.settings.f10_low_result_compares == "firer_class" \
        else (board.pieces[target].klass or 4)
    cache = board.__dict__.setdefault("_fire_odds", {})
    key = (c, low, modifier, dice)
    if key not in cache:
        cache[key] = _odds(board, c, low, modifier, dice)
    return cache[key]


def _odds(board: Board, c: int, low: int, modifier: int, dice: int) -> dict[str, float]:
    hit = probability(lambda r: r == c, modifier)
    halt = probability(lambda r: r != c and r < low, modifier)
    out = {"hit": hit, "halt": halt, "none": 1.0 - hit - halt, "expected_hits": hit * dice}
    if board.settings.f11_class_drops == "cumulative":
        out["expected_class_drops"] = halt * dice
    else:
        out["halt_chance"] = 1.0 - (1.0 - halt) ** dice
    return out


def far_arc(board: Board, firer: str) -> Polygon:
    """The firer's arc cut at a reach holding the whole table and every base: the unbounded
    arc ("every enemy base inside its arc of fire", shared/interfaces.md)."""
    return fire_arc(board, firer, board.cm(board.state.reach_all_mm))


def targets_of(board: Board, firer: str) -> list[Target]:
    """Every present enemy troop base in the firer's arc (at any distance) or within long range.

    The part measured to (and sighted) is the part within the arc cut at 1.5x the long range;
    a target wholly beyond that is measured to its part in the whole arc. The plain path, one
    firer and one target at a time (the reference for `fire_batch`)."""
    p = board.pieces[firer]
    if not p.can_fire or p.stale:
        return []
    _, long_cm = p.ranges_cm or (0.0, 0.0)
    arc = fire_arc(board, firer)
    whole = far_arc(board, firer)
    fr = board.rect(firer)
    near = set(board.state.index.within(whole, 0.0)) | set(
        board.state.index.within(fr.front_edge, board.mm(long_cm) + 1e-6))
    out: list[Target] = []
    for other in sorted(near):
        if not is_candidate(board, firer, other):
            continue
        in_arc, dist, part = _measure(board, firer, other, arc)
        if not in_arc:
            far_in, far_dist, far_part = _measure(board, firer, other, whole)
            if far_in:
                in_arc, dist, part = far_in, far_dist, far_part
        if not in_arc and not dist <= long_cm + EPS_CM:
            continue
        out.append(verdict(board, firer, other, in_arc, dist,
                           line_of_sight(board, firer, other, part)))
    mark_declarable(board, out)
    return out


def is_candidate(board: Board, firer: str, other: str) -> bool:
    """A present enemy troop base: commanders are never targets, and a base not seen by the
    camera (``stale``) is absent, so neither in arc nor in range (shared/interfaces.md)."""
    o = board.pieces[other]
    return o.side != board.pieces[firer].side and not o.is_commander and not o.stale


def verdict(board: Board, firer: str, other: str, in_arc: bool, dist: float,
            sight: bool) -> Target:
    """The target record once arc, distance (cm) and line of sight are known."""
    p = board.pieces[firer]
    _, long_cm = p.ranges_cm or (0.0, 0.0)
    in_range = dist <= long_cm + EPS_CM
    band = band_of(board, firer, dist) if in_range else None
    t = Target(id=other, regiment=Regiments.of(board).of_base[other], distance=dist,
               in_arc=in_arc, in_range=in_range, band=band, line_of_sight=sight,
               margin=long_cm - dist)
    t.enfilade = enfiladed(board, firer, other)
    t.cover = cover_of(board, firer, other)
    t.modifiers = fire_modifiers(board, firer, other, band, t.enfilade, t.cover)
    reasons = []
    if not in_arc:
        reasons.append("not in the 45° arc of fire")
    if not in_range:
        reasons.append(f"out of range: {-t.margin:.1f} cm beyond long range")
    if not t.line_of_sight:
        reasons.append("no line of sight")
    t.reasons, t.legal = reasons, not reasons
    if t.legal:
        t.dice = p.dice
        t.odds = fire_odds(board, firer, other, total(t.modifiers), p.dice)
    return t


def mark_declarable(board: Board, out: list[Target]) -> None:
    """F6: which legal targets the firer may declare."""
    legal = [t for t in out if t.legal]
    if legal:
        if board.settings.f6_target_choice == "nearest_legal":
            nearest = min(t.distance for t in legal)
            for t in legal:
                t.may_declare = t.distance <= nearest + 0.25
        else:
            for t in legal:
                t.may_declare = True


def arc_drawing(board: Board, firer: str) -> dict[str, Any]:
    """Arc and bands (table mm) for the overlay."""
    from campo.engine.geometry.arcs import arc_to_range, band_rings

    p, r = board.pieces[firer], board.rect(firer)
    short, long_ = p.ranges_cm or (0.0, 0.0)
    arc = fire_arc(board, firer, long_)
    rings = band_rings(arc, r.front_left, r.front_right, [board.mm(short), board.mm(long_)])
    return {"arc": arc_to_range(arc, r.front_left, r.front_right, board.mm(long_)),
            "bands": [{"band": Band.SHORT.value, "upto": short, "polygon": rings[0]},
                      {"band": Band.LONG.value, "upto": long_, "polygon": rings[1]}]}


