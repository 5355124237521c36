"""Fire (Federico "Esecuzione del tiro", "Modificatori", "Raggio di tiro"): the targets of many
firers at once: arcs, ranges, bands, sight, the modifiers that geometry and traits decide, and
the odds of each die.

`targets(board, firers)` is the one implementation: the whole table passes every firer, a tap
on one base passes that one, and each firer's list is the same either way (it is kept on the
board, so both share the work). Geometry runs over arrays of (firer, target) pairs: candidates
from two spatial-index queries, the arc clearances and part-in-arc tests in numpy
(`convex`), distances in one shapely call, sight in `sight`. The arc, the long range and the
short band are decided within the close-call tolerance (`campo.engine.boundary`).

Distances are cm. ``margin`` is positive when inside the long range, negative when beyond.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Polygon

from campo.engine.boundary import CLOSE_CALL, decide, key
from campo.engine.geometry.arcs import arc_to_range, arc_vertices_many, band_rings
from campo.engine.results import Band
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.convex import margins, normals
from campo.engine.rulesets.federico.modifiers import Modifier, probability, rounded, total
from campo.engine.rulesets.federico.sight import Shots, line_of_sight
from campo.engine.rulesets.federico.units import (
    ARC_OF_FIRE_DEG,
    COVER_IN_FIRE_TEXT,
    FIRE_MODIFIERS,
    LINE_CLASS,
)

FIRE = 'Federico "Esecuzione del tiro"'
MODS = 'Federico "Modificatori"'
IN_ARC_SLACK_MM = 1e-6   # a target touching a ray of the arc is in it
EDGE_SLACK_MM = 1e-5     # the range figures are limits (F4: short = distance <= 9 cm ...)


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
    close_calls: list[str] = field(default_factory=list)
    blocked_by: list[str] = field(default_factory=list)

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
        if self.close_calls:
            d["close_calls"] = list(self.close_calls)
        if self.blocked_by:
            d["sight_blocked_by"] = list(self.blocked_by)
        return d


def targets(board: Board, firers: Sequence[str]) -> dict[str, list[Target]]:
    """Firer id -> every present enemy troop base in its arc (at any distance) or within its
    long range; an empty list for a base that does not fire. Computed once per firer and
    board, all the firers not asked before in one batch."""
    todo = [f for f in dict.fromkeys(firers) if ("fire", f) not in board.memo]
    if todo:
        for f, found in _measure(board, todo).items():
            board.memo[("fire", f)] = found
    return {f: board.memo[("fire", f)] for f in firers}


def half_angle(board: Board, firer: str) -> float:
    """F2 for infantry; F3 for artillery (as infantry, or straight ahead)."""
    p = board.pieces[firer]
    if p.arm == "artillery" and board.settings.f3_artillery_arc == "straight_ahead":
        return 0.0
    return board.settings.f2_arc_half_angle_deg


def arcs_of(board: Board, firers: Sequence[str], reach_mm: Sequence[float]) -> np.ndarray:
    """(n, 4, 2): each firer's arc ahead of its front edge (Federico F2, F3) out to its reach:
    the front corners, and the two rays from them turned outward by the half-angle."""
    rects = [board.rect(f) for f in firers]
    return arc_vertices_many(np.array([r.front_left for r in rects], dtype=float).reshape(-1, 2),
                             np.array([r.front_right for r in rects], dtype=float).reshape(-1, 2),
                             np.array([r.front for r in rects], dtype=float).reshape(-1, 2),
                             np.array([half_angle(board, f) for f in firers], dtype=float),
                             np.asarray(reach_mm, dtype=float))


def _measure(board: Board, firers: list[str]) -> dict[str, list[Target]]:
    out: dict[str, list[Target]] = {f: [] for f in firers}
    shooting = sorted(f for f in firers if board.pieces[f].can_fire and not board.pieces[f].stale)
    if not shooting:
        return out
    tol = board.close_call
    long_mm = np.array([board.mm(board.pieces[f].ranges_cm[1]) for f in shooting])
    short_mm = np.array([board.mm(board.pieces[f].ranges_cm[0]) for f in shooting])
    arcs = arcs_of(board, shooting, [board.state.reach_all_mm] * len(shooting))
    f_k, t_row, clearance = _candidates(board, shooting, arcs, long_mm)
    if not len(f_k):
        return out
    keys = [(shooting[f], board.order[t]) for f, t in zip(f_k.tolist(), t_row.tolist())]
    in_arc, arc_close = decide(clearance + IN_ARC_SLACK_MM, tol,
                               [key("arc", f, t) for f, t in keys], board.state.held)
    parts, whole = _parts(board, arcs[f_k], t_row, np.array(in_arc, dtype=bool))
    if board.settings.f4_range_measure == "centre_to_centre":
        dist_mm = np.hypot(*(board.centres[board.positions(shooting)[f_k]] - board.centres[t_row]).T)
    else:
        dist_mm = shapely.distance(board.fronts[[board.pos[f] for f in shooting]][f_k], parts)
    in_range, range_close = decide(long_mm[f_k] - dist_mm + EDGE_SLACK_MM, tol,
                                   [key("range", f, t) for f, t in keys], board.state.held)
    short, band_close = decide(short_mm[f_k] - dist_mm + EDGE_SLACK_MM, tol,
                               [key("band", f, t) for f, t in keys], board.state.held)
    listed = [k for k in range(len(keys)) if in_arc[k] or in_range[k]]
    seen, blockers = line_of_sight(board, Shots([keys[k][0] for k in listed],
                                                [keys[k][1] for k in listed], parts[listed],
                                                whole[listed]))
    covers = _covers(board, [keys[k] for k in listed])
    for k, sight, blocked_by, cover in zip(listed, seen, blockers, covers):
        f, t = keys[k]
        close = [name for name, flag in (("arc", arc_close[k]), ("range", range_close[k]),
                                         ("band", band_close[k] and in_range[k])) if flag]
        band = (Band.SHORT if short[k] else Band.LONG) if in_range[k] else None
        out[f].append(_verdict(board, f, t, in_arc[k], in_range[k], band,
                               board.cm(float(dist_mm[k])), sight, blocked_by, cover, close))
    for f in shooting:
        out[f].sort(key=lambda x: x.id)
        _mark_declarable(board, out[f])
    return out


def _candidates(board: Board, shooting: list[str], arcs: np.ndarray, long_mm: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(firer number, target row, arc clearance mm) of the present enemy troop bases in or near
    each firer's arc, or that may be within its long range (commanders are never targets, and a
    base the camera does not see, ``stale``, is absent: neither in arc nor in range,
    shared/interfaces.md). The clearance (F2): how deep the target reaches into the arc, or how
    far outside it lies (exactly, near the arc)."""
    tol = board.close_call
    f_row = np.array([board.pos[f] for f in shooting])
    present = np.nonzero(board.troop & ~board.stale)[0]
    f_k = np.repeat(np.arange(len(shooting)), len(present))
    t_row = np.tile(present, len(shooting))
    enemy = board.side[t_row] != board.side[f_row][f_k]
    f_k, t_row = f_k[enemy], t_row[enemy]
    clearance = margins(arcs[f_k], board.quads[t_row])
    front, _, half = board.axes
    front_centre = board.centres[f_row] + half[f_row, 1:] * front[f_row]
    apart = np.hypot(*(board.centres[t_row] - front_centre[f_k]).T) - half[f_row, 0][f_k] \
        - board.radii[t_row]
    keep = (clearance > -tol - IN_ARC_SLACK_MM) | (apart <= long_mm[f_k] + tol)
    f_k, t_row, clearance = f_k[keep], t_row[keep], clearance[keep]
    near = np.nonzero((clearance < 0) & (clearance > -tol - IN_ARC_SLACK_MM))[0]
    clearance[near] = -shapely.distance(shapely.polygons(arcs[f_k[near]]),
                                        board.shapes[t_row[near]])
    return f_k, t_row, clearance


def _parts(board: Board, arcs: np.ndarray, t_row: np.ndarray, in_arc: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """(parts, whole): the part of each target measured to (F4: its part inside the arc, when
    it is in the arc and the reading says so), and whether that is the whole base (it lies
    wholly inside the arc: no GEOS overlay)."""
    parts = board.shapes[t_row].copy()
    whole = np.ones(len(parts), dtype=bool)
    if board.settings.f4_range_measure == "front_edge_to_part_in_arc" and in_arc.any():
        planes, offsets = normals(arcs)
        quads = board.quads[t_row]
        reach = np.einsum("pkc,pvc->pvk", planes, quads) - offsets[:, None, :]
        cut = np.nonzero(in_arc & (reach.max(axis=(1, 2)) > -IN_ARC_SLACK_MM))[0]
        inter = shapely.intersection(shapely.polygons(arcs[cut]), parts[cut])
        use = ~shapely.is_empty(inter) & (shapely.area(inter) > 0)
        parts[cut[use]] = inter[use]
        whole[cut[use]] = False
    return parts, whole


def _covers(board: Board, pairs: list[tuple[str, str]]) -> list[str | None]:
    """Federico F7 (gap settings): per (firer, target), the terrain giving the target cover."""
    lines = board.lines_between([(t, f) for f, t in pairs], board.settings.cover_lines)
    areas = board.cover_areas([t for _, t in pairs])
    return [area or line for area, line in zip(areas, lines)]


def enfiladed(board: Board, firer: str, target: str) -> bool:
    """Federico F8: the firer's front (both corners, or its centre) «level with or behind» the
    target's extended front edge: a point level with it within beyond_front_tolerance_cm
    counts (F8 says level), one farther ahead does not."""
    fr, tr = board.rect(firer), board.rect(target)
    tol = board.beyond_tol

    def level_or_behind(p: tuple[float, float]) -> bool:
        return tr.ahead_of_front(p[0], p[1]) <= tol

    if board.settings.f8_enfilade == "front_centre_beyond":
        return level_or_behind(fr.front_centre)
    return level_or_behind(fr.front_left) and level_or_behind(fr.front_right)


def fired_before(board: Board, firer: str) -> bool:
    """Federico F13: traits.fired, else (by default) any turn after the first."""
    p = board.pieces[firer]
    if p.fired is not None:
        return p.fired
    turn = board.state.scenario.turn
    return board.settings.f13_fire_history == "traits_then_turn" and turn is not None and turn > 1


def fire_modifiers(board: Board, firer: str, target: str, band: Band | None, enfilade: bool,
                   cover: str | None) -> list[Modifier]:
    """Federico "Modificatori", each row once, as geometry and traits decide them."""
    f, t = board.pieces[firer], board.pieces[target]
    s = board.settings
    rows = FIRE_MODIFIERS
    out: list[Modifier] = []
    mounted = t.mounted or (s.f9_mounted == "cavalry_and_limbered"
                            and t.arm == "artillery" and t.formation == "limbered")
    why = [w for w, on in (("mounted", mounted), ("in march column", t.march_column),
                           ("enfiladed", enfilade)) if on]
    if why:
        out.append(Modifier(f"target {' and '.join(why)}", rows["mounted"].delta,
                            f"{MODS}; Federico F8, F9"))
    if t.light_infantry:
        out.append(Modifier("target is Light Infantry", rows["target_light"].delta, MODS))
    if band is Band.SHORT:
        out.append(Modifier("target at short range", rows["short"].delta,
                            f"{MODS}; Federico F4, F9"))
    if f.light_infantry:
        out.append(Modifier("Light Infantry firing", rows["light_firing"].delta, MODS))
    if f.arm == "infantry" and not fired_before(board, firer):
        out.append(Modifier("infantry firing for the first time", rows["first_fire"].delta,
                            f"{MODS}; Federico F13"))
    art_v_art = f.arm == "artillery" and t.arm == "artillery"
    if cover or art_v_art:
        label = f"target in cover ({cover})" if cover else "artillery firing at artillery"
        if cover and art_v_art:
            label += " / artillery firing at artillery"
        out.append(Modifier(label, rows["cover"].delta, f"{MODS}; Federico F7"))
    if cover and s.f7_cover_count == "twice":
        out.append(Modifier(f"target in cover ({cover}), as stated in Esecuzione del tiro",
                            COVER_IN_FIRE_TEXT.delta, f"{FIRE}; Federico F7"))
    if f.moved and not f.light_infantry:
        out.append(Modifier("firing unit has moved", rows["moved"].delta,
                            f"{MODS}; Federico F13"))
    return out


def die_result(board: Board, firer: str, target: str, score: int) -> str:
    """One modified die against the firer's class (Federico "Esecuzione del tiro"): "hit" when
    equal (one base eliminated), "halt" when lower (the target halts next move and drops a
    class; lower than which class: F10), "none" when higher."""
    c = board.pieces[firer].klass or LINE_CLASS
    low = c if board.settings.f10_low_result_compares == "firer_class" \
        else (board.pieces[target].klass or LINE_CLASS)
    if score == c:
        return "hit"
    return "halt" if score < low else "none"


def fire_odds(board: Board, firer: str, target: str, modifier: int, dice: int) -> dict[str, float]:
    """Per die: 'hit' (= firer's class: one base eliminated), 'halt' (lower: halts and drops a
    class, F10), 'none' (higher); per volley: expected hits and the chance of a halt (F11)."""
    hit = probability(lambda r: die_result(board, firer, target, r) == "hit", modifier)
    halt = probability(lambda r: die_result(board, firer, target, r) == "halt", modifier)
    out = {"hit": hit, "halt": halt, "none": 1.0 - hit - halt, "expected_hits": hit * dice}
    if board.settings.f11_class_drops == "cumulative":
        out["expected_class_drops"] = halt * dice
    else:
        out["halt_chance"] = 1.0 - (1.0 - halt) ** dice
    return out


def _verdict(board: Board, firer: str, other: str, in_arc: bool, in_range: bool,
             band: Band | None, dist: float, sight: bool, blocked_by: list[str],
             cover: str | None, close: list[str]) -> Target:
    """The target record once arc, range, band (decided) and line of sight are known."""
    p = board.pieces[firer]
    long_cm = p.ranges_cm[1]
    t = Target(id=other, regiment=board.regiments.of_base[other], distance=dist,
               in_arc=in_arc, in_range=in_range, band=band, line_of_sight=sight,
               margin=long_cm - dist, close_calls=close, blocked_by=[] if sight else blocked_by)
    t.enfilade = enfiladed(board, firer, other)
    t.cover = cover
    t.modifiers = fire_modifiers(board, firer, other, band, t.enfilade, cover)
    if not in_arc:
        t.reasons.append(_closely(f"not in the {ARC_OF_FIRE_DEG:g}° arc of fire",
                                  "arc" in close))
    if not in_range:
        t.reasons.append(_closely(f"out of range: {max(-t.margin, 0.0):.1f} cm beyond long range",
                                  "range" in close))
    if not sight:
        t.reasons.append("no line of sight")
    t.legal = not t.reasons
    if t.legal:
        t.dice = p.dice
        t.odds = fire_odds(board, firer, other, total(t.modifiers), p.dice)
    return t


def _closely(reason: str, close: bool) -> str:
    return f"{reason} ({CLOSE_CALL})" if close else reason


def _mark_declarable(board: Board, out: list[Target]) -> None:
    """F6: which legal targets the firer may declare."""
    legal = [t for t in out if t.legal]
    if legal and board.settings.f6_target_choice == "nearest_legal":
        nearest = min(t.distance for t in legal)
        for t in legal:
            t.may_declare = t.distance <= nearest + 0.25
    else:
        for t in legal:
            t.may_declare = True


def arc_drawing(board: Board, firer: str) -> dict[str, Any]:
    """Arc and bands (table mm) for the overlay."""
    r = board.rect(firer)
    short, long_ = board.pieces[firer].ranges_cm
    arc: Polygon = shapely.polygons(arcs_of(board, [firer], [board.mm(long_)])[0])
    rings = band_rings(arc, r.front_left, r.front_right, [board.mm(short), board.mm(long_)])
    return {"arc": arc_to_range(arc, r.front_left, r.front_right, board.mm(long_)),
            "bands": [{"band": Band.SHORT.value, "upto": short, "polygon": rings[0]},
                      {"band": Band.LONG.value, "upto": long_, "polygon": rings[1]}]}
