"""Charges (ISD §9): eligibility within 30° of the front, reach by an optional wheel then a
straight or oblique path, the 2" zone and interception, contact with the front, and the aspect
struck (ISD §1 flank attack). Readings: ISD A27–A31, A20–A22.

Every verdict carries its path (table mm) so the overlay can draw it, and a ``margin`` in inches
(positive = spare movement, negative = how far short).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from campo.engine.geometry.arcs import arc_polygon
from campo.engine.geometry.boxes import box_gap, boxes_meet, rect_box
from campo.engine.geometry.contact import edge_of_lengths, shared_lengths_compiled
from campo.engine.geometry.motion import swept_area
from campo.engine.geometry.rect import Point, Rect, angle_diff
from campo.engine.geometry.zones import beyond_front_line
from campo.engine.results import Aspect
from campo.engine.rulesets.italia.board import NEAR_MM, Board
from campo.engine.rulesets.italia.charge_fast import (Corridor, bases_near_box, holds_zone_against,
                                               poses_array, sweep_meets, zone_around, zone_box)
from campo.engine.rulesets.italia.charge_paths import _OUTWARD, TOUCH_MM, _Path, _paths
from campo.engine.rulesets.italia.charge_terrain import (crest_line, crossed_by_hull, terrain_may_meet,
                                                   terrain_meeting)
from campo.engine.rulesets.italia.pieces import CHARGE_ARC_HALF_DEG, ZONE_IN
from campo.engine.rulesets.italia.relations_batch import columns
from campo.engine.rulesets.italia.tables_movement import TERRAIN_KIND_CLASS, movement_allowance_in


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

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "target": self.target, "legal": self.legal,
            "distance": None if self.distance is None else round(self.distance, 2),
            "contact_aspect": self.contact_aspect.value if self.contact_aspect else None,
            "reasons": list(self.reasons),
            "margin": None if self.margin is None else round(self.margin, 2),
            "allowance": None if self.allowance is None else round(self.allowance, 2),
            "flank_attack": self.flank_attack,
            "wheel_deg": round(self.wheel_deg, 1), "oblique_deg": round(self.oblique_deg, 1),
            "within_half_move": self.within_half_move,
            "path": [[round(x, 1), round(y, 1)] for x, y in self.path],
        }
        for key in ("final_pose", "flush_pose"):
            pose = getattr(self, key)
            if pose:
                d[key] = {k: round(v, 1) for k, v in pose.items()}
        if self.intercepted_at:
            d["intercepted_at"] = [round(c, 1) for c in self.intercepted_at]
        for key in ("intercepted_by", "hidden"):
            if getattr(self, key):
                d[key] = getattr(self, key)
        if self.terrain:
            d["terrain"] = list(self.terrain)
        if self.notes:
            d["notes"] = list(self.notes)
        return d


def charge_arc(board: Board, charger: str) -> Polygon:
    """ISD §9 «entro 30° dal proprio fronte» with the fire-arc geometry (ISD A27)."""
    cache = board.__dict__.setdefault("_charge_arcs", {})
    if charger not in cache:
        cache[charger] = _charge_arc(board, charger)
    return cache[charger]


def _charge_arc(board: Board, charger: str) -> Polygon:
    r = board.rect(charger)
    reach = board.mm(40.0)
    if board.settings.a27_charge_arc_origin == "front_centre":
        return arc_polygon(r.front_centre, r.front_centre, r.front, CHARGE_ARC_HALF_DEG, reach)
    return arc_polygon(r.front_left, r.front_right, r.front, CHARGE_ARC_HALF_DEG, reach)


def candidates(board: Board, charger: str) -> list[str]:
    """Enemy units and guns within the charger's full move (+2") of it (worked out for every
    base at once and cached: the analysis and each melee entry ask; a copy, so callers may
    keep or change it)."""
    found = _all_candidates(board).get(charger)
    if found is None:
        found = _candidates(board, charger)
    return list(found)


def _all_candidates(board: Board) -> dict[str, list[str]]:
    """`_candidates` of every base at once (cached): the gaps of the board's one bulk neighbour
    query compared with each charger's reach in one numpy pass (`Board.near`'s own test);
    a reach beyond the neighbourhood asks `_candidates`."""
    found = board.__dict__.get("_all_candidates")
    if found is not None:
        return found
    _, starts, others, gaps = board._neighbours
    names = board.state.index.ids
    infos = board.infos
    reach = np.full(len(names), -1.0)        # -1: charges nobody (gaps are >= 0)
    far = []
    for k, i in enumerate(names):
        if infos[i].can_charge:
            r = board.mm(full_move_in(board, i) + ZONE_IN)
            if r > NEAR_MM:
                far.append(i)
            else:
                reach[k] = r
    col = columns(board)   # each base's side (a number) and whether it is a general
    side, general = col.side, col.general
    rows = np.repeat(np.arange(len(names)), np.diff(starts))
    keep = (gaps <= reach[rows]) & (side[others] != side[rows]) & ~general[others] \
        if len(others) else np.zeros(0, dtype=bool)
    found = {i: [] for i in names}
    for k, b in zip(rows[keep].tolist(), others[keep].tolist()):
        found[names[k]].append(names[b])
    for targets in found.values():
        targets.sort()
    for i in far:
        found[i] = _candidates(board, i)
    board.__dict__["_all_candidates"] = found
    return found


def _candidates(board: Board, charger: str) -> list[str]:
    info = board.infos[charger]
    if not info.can_charge:
        return []
    reach = board.mm(full_move_in(board, charger) + ZONE_IN)
    out = []
    for other in board.near(charger, reach):
        o = board.infos[other]
        if o.side != info.side and not o.is_general:
            out.append(other)
    return sorted(out)


def full_move_in(board: Board, base_id: str, kinds: list[str] | None = None) -> float:
    """Movement allowance in inches over terrain ``kinds`` (ISD §8 table; A19–A21 via the
    tables module). Cached per base and kinds (asked by charges, movement, routs: every base
    at least once per analysis)."""
    per_base = board.__dict__.get("_full_moves_of")
    if per_base is None:
        per_base = board.__dict__["_full_moves_of"] = {}
    key = (base_id, tuple(kinds)) if kinds else base_id
    found = per_base.get(key)
    if found is None:
        found = per_base[key] = _full_move_in(board, base_id, kinds)
    return found


def _full_move_in(board: Board, base_id: str, kinds: list[str] | None) -> float:
    base = board.state.base(base_id)
    info = board.infos[base.id]
    known = [k for k in kinds if k in TERRAIN_KIND_CLASS] if kinds else None
    # info.arm is the arm as the engine reads it (E without traits.arm reads as infantry, a
    # warning from `problems`), so the table lookup never fails on what validation allowed.
    arm = info.arm if info.kind == "unit" else None
    formation = "march_column" if info.march_column else "line"
    # one table lookup per kind of troops and ground (the settings are the board's)
    key = (base.type, arm, formation, tuple(known) if known else "open",
           info.moves_as_horse_artillery, info.rank)
    cache = board.__dict__.get("_full_moves")
    if cache is None:
        cache = board.__dict__["_full_moves"] = {}
    found = cache.get(key)
    if found is None:
        found = cache[key] = movement_allowance_in(base.type, arm, formation, known or "open",
                                                   horse=info.moves_as_horse_artillery, rank=info.rank,
                                                   settings=board.settings)
    return found


def _contact(board: Board, p: _Path, t: Rect) -> tuple[str, float, tuple[Point, Point]]:
    """At the pose of first contact: the edge of the target touched (`touched_edge`), its shared
    length, and the shortest line from the charger's front to the target (asked by the aspect
    and by the flush pivot: measured once, kept on the path)."""
    found = p.__dict__.get("_contact")
    if found is None:
        touch = board.contact_tol + TOUCH_MM
        lengths = shared_lengths_compiled(t, p.final, touch)   # = shared_lengths
        edge = edge_of_lengths(lengths, touch)   # = touched_edge(t, p.final, touch)
        a, b = map(tuple, shapely.get_coordinates(
            shapely.shortest_line(p.final.front_edge, t.polygon)).tolist())
        found = p.__dict__["_contact"] = (edge, lengths[edge], (a, b))
    return found


def _aspect_struck(board: Board, p: _Path, t: Rect) -> tuple[Aspect, bool, list[str]]:
    """ISD §1 flank attack (A2, A3, A31) from the pose at first contact."""
    f = p.final
    touch = board.contact_tol + TOUCH_MM
    edge, shared, line = _contact(board, p, t)
    aspect = aspect_from_pose(board, f, t, edge, shared, touch, contact=line[1])
    flank_attack = aspect is Aspect.FLANK or (aspect is Aspect.REAR
                                              and board.settings.a3_rear_counts_as_flank)
    return aspect, flank_attack, []


def aspect_from_pose(board: Board, f: Rect, t: Rect, edge: str, shared_mm: float,
                     touch: float, contact: Point | None = None) -> Aspect:
    """The aspect of target ``t`` that attacker ``f``'s front strikes, ``edge`` being the edge of
    ``t`` touched along ``shared_mm`` (ISD §1, A2, A31; the rear by its own edge).

    Flank when the whole attacker front is beyond the target's front line, or when the centre of
    its front is beyond it and the contact is on a side edge and not only at the front corner.
    ``contact``: the target's end of the shortest line from ``f``'s front, if already measured."""
    tol = board.beyond_tol
    corner_only = shared_mm <= 2 * touch + 1e-6
    if contact is None:
        contact = shapely.shortest_line(f.front_edge, t.polygon).coords[1]
    at_front_corner = corner_only and min(math.dist(contact, t.front_left),
                                          math.dist(contact, t.front_right)) <= touch
    whole_beyond = beyond_front_line(t, f.front_left, tol) and beyond_front_line(t, f.front_right, tol)
    centre_beyond = beyond_front_line(t, f.front_centre, tol)
    flank_edge = edge in ("left", "right") and not at_front_corner
    if flank_edge and board.settings.a31_flank_contact == "whole_side":
        lo, hi = sorted(t.to_local(*q)[1] for q in t.edge(edge))
        span = sorted(t.to_local(*q)[1] for q in (f.front_left, f.front_right))
        flank_edge = span[0] <= lo + touch and span[1] >= hi - touch
    if not (whole_beyond or (centre_beyond and flank_edge)):
        return Aspect.FRONT
    return Aspect.REAR if edge == "rear" else Aspect.FLANK


def _crossed_kinds(board: Board, p: _Path) -> list[str]:
    """Terrain the front touches, enters or leaves on the way (ISD §8 «una parte del fronte»):
    what meets the hull of the three front edges (start, wheeled, contact)."""
    ends = [q for r in (p.start, p.wheeled, p.final) for q in (r.front_left, r.front_right)]
    if not terrain_may_meet(board, ends):
        return []   # the hull lies in the ends' box (GEOS keeps nodes in their segments' boxes)
    found = crossed_by_hull(board, ends)
    return sorted({t.kind for t, _ in found}) if found is not None else _crossed_kinds_plain(board, p)


def _crossed_kinds_plain(board: Board, p: _Path) -> list[str]:
    """`_crossed_kinds` by the hull of the noded front edges, as first written."""
    sweep = shapely.convex_hull(shapely.union_all([p.start.front_edge, p.wheeled.front_edge,
                                                   p.final.front_edge]))
    return sorted({t.kind for t, _ in board.terrain_near(sweep)})


def _zone_entry(board: Board, p: _Path, other: str, not_after: float | None = None) -> float | None:
    """Distance along the path (mm) at which the charger first enters ``other``'s 2" zone.

    With ``not_after``: None also when the entry surely comes later than that (the slide is at
    least the gap to the zone, so a far zone costs one distance instead of a slide)."""
    # `near`: a box holding the zone (the base's grown by 2"), so that shapes apart from it
    # skip the GEOS tests and a far zone is not built at all
    near = zone_box(board, other)
    if boxes_meet(rect_box(p.start), near) and \
            p.start.polygon.intersects(zone_around(board, other).polygon):
        return 0.0
    if p.wheel_deg and boxes_meet(p.wheel_box, near):
        zone = zone_around(board, other)
        if sweep_meets(poses_array(p.wheel_poses), zone.outline,
                       lambda: bool(p.wheel_sweep.intersects(zone.polygon))):
            return p.wheel_mm / 2
    if not_after is not None:
        if p.wheel_mm + box_gap(rect_box(p.wheeled), near) > not_after + 1e-3:
            return None   # the distance to the zone is at least the gap between the boxes
        gap = p.wheeled.polygon.distance(zone_around(board, other).polygon)
        if p.wheel_mm + gap > not_after + 1e-3:
            return None
    s = zone_around(board, other).slide(p.wheeled, p.direction)
    if not math.isfinite(s) or s > p.slide_mm + 1e-6:
        return None
    return p.wheel_mm + s


def _corridor(p: _Path) -> Polygon:
    """The area the charger covers on the path, and its pose at contact."""
    return shapely.union(swept_area([p.start, p.wheeled, p.final]) if p.wheel_deg
                         else swept_area([p.start, p.final]), p.final.polygon)


def _interceptor(board: Board, charger: str, target: str, p: _Path
                 ) -> tuple[str | None, str | None, float]:
    """ISD §9 / A29: the first other enemy whose 2" zone the path enters before the target's.
    Returns (interceptor, reason for a start-inside-zone violation, mm along the path where its
    zone is entered)."""
    own_side = board.infos[charger].side
    t_entry: float | None = None    # the target's, measured once another zone is in the way
    reach = board.mm(ZONE_IN)
    corridor = Corridor(board, [p.start, p.wheeled, p.final] if p.wheel_deg else [p.start, p.final],
                        reach, lambda: _corridor(p))
    first: tuple[float, str] | None = None
    for other, box in bases_near_box(board, corridor.box, reach + 1.0):
        if other == target or not holds_zone_against(board, other, own_side) or \
                not corridor.holds(other, box):
            continue
        if t_entry is None:
            t_entry = _zone_entry(board, p, target)
            t_entry = p.length_mm if t_entry is None else t_entry
        entry = _zone_entry(board, p, other, t_entry if first is None else min(t_entry, first[0]))
        if entry is None:
            continue
        if entry == 0.0:
            before = p.start.polygon.distance(board.rect(other).polygon)
            after = p.final.polygon.distance(board.rect(other).polygon)
            if after < before - 0.5:
                return None, (f"starts inside {other}'s 2\" zone and would move closer to it"), 0.0
            continue
        if entry < t_entry - 1e-6 and (first is None or entry < first[0]):
            first = (entry, other)
    return (first[1], None, first[0]) if first else (None, None, 0.0)


def hidden_from(board: Board, charger: str, target: str) -> str | None:
    """Whether ``target`` is hidden from ``charger`` (ISD §9 note 4, ISD A34): "wood" when wholly
    inside a wood (-2), "crest" when wholly behind a crest (-1), else None. Cached per pair (the
    charge, its melee entry and the melee facts ask)."""
    cache = board.__dict__.setdefault("_hidden_from", {})
    key = (charger, target)
    if key not in cache:
        cache[key] = _hidden_from(board, charger, target)
    return cache[key]


def _hidden_from(board: Board, charger: str, target: str) -> str | None:
    t = board.rect(target)
    for feat, poly in board.terrain_on(target):
        if feat.kind == "wood" and feat.polygon_mm is not None and poly.covers(t.polygon):
            return "wood"
    c = board.rect(charger)
    if not terrain_may_meet(board, [(c.cx, c.cy), (t.cx, t.cy)], crests_only=True):
        return None
    sight = shapely.linestrings([(c.cx, c.cy), (t.cx, t.cy)])
    for feat, _ in terrain_meeting(board, lambda: sight, [(c.cx, c.cy), (t.cx, t.cy)],
                                   crests_only=True):
        if feat.crest_mm is not None:
            crest = crest_line(board, feat)
            if sight.intersects(crest) and not crest.intersects(t.polygon):
                return "crest"
    return None


def flank_cover_of(board: Board, target: str) -> str | None:
    """Area or linear terrain giving the target cover (no flank attack then, ISD §1); cached per
    target (each charge at it and each melee entry ask)."""
    cache = board.__dict__.setdefault("_flank_cover", {})
    if target not in cache:
        cache[target] = _flank_cover_of(board, target)
    return cache[target]


def _flank_cover_of(board: Board, target: str) -> str | None:
    t = board.rect(target)
    front = LineString([t.front_left, t.front_right])
    for feat, geom in board.terrain_around(target):
        if feat.polygon_mm is not None:
            if feat.kind in ("wood", "town", "village", "farm", "fortification", "orchard") and \
                    board.grown(geom, board.contact_tol).covers(t.polygon):
                return feat.id
        elif feat.kind in ("hedge", "wall", "stone_wall", "low_wall", "parapet",
                           "fortification_line") and \
                board.grown(geom, board.mm(0.5)).covers(front):
            return feat.id
    return None


def judge_charge(board: Board, charger: str, target: str) -> Charge:
    """The full verdict on ``charger`` charging ``target``."""
    cache = board.__dict__.setdefault("_charges", {})
    key = (charger, target)
    if key not in cache:
        cache[key] = _judge(board, charger, target)
    return cache[key]


def _judge(board: Board, charger: str, target: str) -> Charge:
    ci, ti = board.infos[charger], board.infos[target]
    v = Charge(charger, target)
    if not ci.can_charge:
        v.reasons.append("artillery never charges" if ci.arm == "artillery"
                         else "generals do not charge")
        return v
    if ti.side == ci.side:
        v.reasons.append(f"{target} is a friend")
        return v
    if ti.is_general:
        v.reasons.append(f"{target} is a general, not a unit")
        return v
    c, t = board.rect(charger), board.rect(target)
    if ci.stale:
        v.reasons.append(f"{charger} not seen (last known position)")
    if ti.stale:
        v.reasons.append(f"{target} not seen (last known position)")
    if target in board.touching[charger]:
        v.reasons.append(f"already in contact with {target}")
        return v
    if not charge_arc(board, charger).dwithin(t.polygon, 1e-6):
        v.reasons.append(f"{target} is not within 30° of {charger}'s front")
    if ci.arm == "cavalry" and ti.arm == "infantry":
        for feat, poly in board.terrain_on(target):
            if feat.kind in ("town", "village") and feat.polygon_mm is not None \
                    and poly.covers(t.polygon):
                v.reasons.append(f"cavalry may not attack {target} garrisoned in {feat.id}")
    paths = _paths(board, c, t)
    if not paths:
        v.reasons.append(f"{charger} cannot reach {target} with its front "
                         f"(a flank would touch first or the path is over 45° oblique)")
        v.legal = False
        return v
    p = min(paths, key=lambda q: (round(q.length_mm, 2), abs(q.wheel_deg)))
    v.wheel_deg, v.oblique_deg = p.wheel_deg, p.oblique_deg
    v.distance = board.inches(p.length_mm)
    v.terrain = _crossed_kinds(board, p)
    v.allowance = full_move_in(board, charger, v.terrain)
    v.margin = v.allowance - v.distance
    v.within_half_move = v.distance <= v.allowance / 2 + 1e-6
    if v.allowance <= 0:
        v.reasons.append(f"{charger} cannot enter the terrain on the way ({', '.join(v.terrain)})")
    elif v.margin < -1e-6:
        v.reasons.append(f"out of reach: needs {v.distance:.1f} in, may move {v.allowance:.1f} in "
                         f"({-v.margin:.1f} in short)")
    v.path = _track(p)
    v.final_pose = {"x_mm": p.final.cx, "y_mm": p.final.cy, "heading_deg": p.final.heading_deg}
    v.contact_aspect, v.flank_attack, v.notes = _aspect_struck(board, p, t)
    flush = _flush_pose(board, p, t) if board.settings.a30_close_flush_after_contact else None
    if flush is not None:
        v.flush_pose = {"x_mm": flush.cx, "y_mm": flush.cy, "heading_deg": flush.heading_deg}
    if v.flank_attack and (cover := flank_cover_of(board, target)):
        v.flank_attack = False
        v.notes.append(f"no flank attack: {target} is in cover in {cover} (ISD §1)")
    if board.settings.a29_interception != "off":
        interceptor, why, entry = _interceptor(board, charger, target, p)
        if why:
            v.reasons.append(why)
        if interceptor:
            v.intercepted_by = interceptor
            v.intercepted_at = _front_centre_after(p, entry)
            v.reasons.append(f"the path enters {interceptor}'s 2\" zone before {target}'s: "
                             f"{interceptor} must be charged instead")
    v.hidden = hidden_from(board, charger, target)
    v.legal = not v.reasons
    return v


def _front_centre_after(p: _Path, along_mm: float) -> list[float]:
    """Where the front centre is after ``along_mm`` of the path (the wheel, then the slide)."""
    if p.wheel_deg and p.wheel_mm > 0 and along_mm < p.wheel_mm:
        pivot = p.start.front_left if p.wheel_deg > 0 else p.start.front_right
        return list(p.start.pivoted(pivot, p.wheel_deg * along_mm / p.wheel_mm).front_centre)
    s = along_mm - p.wheel_mm
    return list(p.wheeled.moved(p.direction[0] * s, p.direction[1] * s).front_centre)


def _flush_pose(board: Board, p: _Path, t: Rect) -> Rect | None:
    """ISD A30: after contact the charger may pivot on the point of contact to close flush
    against the edge it touched; None when it already is (within 0.5°)."""
    final = p.final
    edge, _, line = _contact(board, p, t)
    squarely = (t.heading_deg + _OUTWARD[edge] + 180.0) % 360.0
    turn = angle_diff(squarely, final.heading_deg)
    if abs(turn) <= 0.5:
        return None
    return final.pivoted(line[0], turn)


def _track(p: _Path) -> list[list[float]]:
    """Front-centre positions: start, along the wheel, end of wheel, contact."""
    pts = [list(q.front_centre) for q in p.wheel_poses] if p.wheel_deg \
        else [list(p.start.front_centre)]
    pts.append(list(p.final.front_centre))
    return pts
