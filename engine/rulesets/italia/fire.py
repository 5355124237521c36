"""Who can shoot at whom (ISD §6 bombardment, §7 musketry): arcs, ranges, bands, sight, flank
fire, cover and the compulsory target.

Distances are inches. ``margin`` is positive when inside (``in range by 1.8``) and negative when
short (``0.6 short``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from campo.engine.geometry.sight import SightQuery
from campo.engine.geometry.rect import rotate
from campo.engine.geometry.zones import whole_front_beyond
from campo.engine.results import Band
from campo.engine.rulesets.italia.board import GRAZE_MM, REPORT_MARGIN_IN, Board

ARTILLERY_BANDS = ((3.0, Band.CLOSE), (12.0, Band.SHORT), (18.0, Band.MEDIUM), (24.0, Band.LONG))
MUSKETRY_BANDS = ((6.0, Band.SHORT),)
EPS_IN = 1e-6
DIFFICULT_GROUND = frozenset({"wood", "marsh", "rice", "rough", "cultivated", "town", "village"})  # ISD §6

# Cover classes by terrain kind (ISD §6 and §7 modifier rows; ISD A35 for melee protection).
ARTILLERY_COVER = {"low_wall": "soft", "hedge": "soft", "cultivated": "soft", "rough": "soft",
                   "rice": "soft", "village": "soft", "farm": "soft", "tree_row": "soft",
                   "stone_wall": "hard", "wall": "hard", "fortification": "hard",
                   "fortification_line": "hard", "town": "hard"}
MUSKETRY_COVER = {"wood": "soft", "parapet": "soft", "tree_lined_road": "soft", "hedge": "soft",
                  "low_wall": "soft", "orchard": "soft", "village": "soft", "farm": "soft",
                  "wall": "hard", "stone_wall": "hard", "fortification": "hard",
                  "fortification_line": "hard", "town": "hard"}


@dataclass
class Target:
    """One enemy base in a shooter's arc or range."""

    id: str
    distance: float
    in_arc: bool
    in_range: bool
    band: Band | None
    line_of_sight: bool
    margin: float
    flank_fire: bool = False
    cover: str | None = None
    cover_terrain: str | None = None
    arc_clear: bool = True
    legal: bool = False
    priority: bool = False
    reasons: list[str] = field(default_factory=list)
    modifiers: list[dict[str, Any]] | None = None
    arc_margin: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        d = {"id": self.id, "distance": round(self.distance, 2), "in_arc": self.in_arc,
             "in_range": self.in_range, "band": self.band.value if self.band else None,
             "line_of_sight": self.line_of_sight, "margin": round(self.margin, 2),
             "arc_margin": round(self.arc_margin, 2),
             "legal": self.legal, "priority": self.priority, "flank_fire": self.flank_fire,
             "cover": self.cover}
        if self.cover_terrain:
            d["cover_terrain"] = self.cover_terrain
        if not self.arc_clear:
            d["arc_clear"] = False
        if self.reasons:
            d["reasons"] = list(self.reasons)
        if self.modifiers is not None:
            d["fire_modifiers"] = self.modifiers
        return d


def band_of(board: Board, distance_in: float, artillery: bool) -> Band | None:
    """Range band (ISD §6 table; ISD A7 for the edges)."""
    inclusive = board.settings.a7_band_edges == "upper_inclusive"
    for upper, band in (ARTILLERY_BANDS if artillery else MUSKETRY_BANDS):
        if distance_in <= upper + EPS_IN if inclusive else distance_in < upper - EPS_IN:
            return band
    return None


def fire_arc(board: Board, shooter: str, reach_in: float | None = None) -> Polygon:
    info = board.infos[shooter]
    reach = reach_in if reach_in is not None else info.fire_range_in + REPORT_MARGIN_IN
    return board.arc(shooter, info.arc_half_deg, reach)


def measure_target(board: Board, shooter: str, target: str, arc: Polygon) -> tuple[bool, float, Polygon]:
    """(in arc, distance in inches, the part of the target measured to) per ISD A5, A6."""
    tr = board.rect(target)
    front = board.front(shooter)
    seg = LineString([front.left, front.right])
    poly = tr.polygon
    mode = board.settings.a5_in_arc_test
    if mode == "centre":
        in_arc = bool(arc.covers(shapely.Point(tr.cx, tr.cy)))
    elif mode == "whole_base":
        in_arc = bool(arc.buffer(1e-6).covers(poly))
    else:
        in_arc = bool(shapely.dwithin(arc, poly, 1e-6))
    part = poly
    if in_arc and board.settings.a6_range_measure == "front_edge_to_part_in_arc":
        part = part_in_arc(arc, poly)
    if board.settings.a6_range_measure == "centre_to_centre":
        sr = board.rect(shooter)
        d = ((sr.cx - tr.cx) ** 2 + (sr.cy - tr.cy) ** 2) ** 0.5
    else:
        d = float(shapely.distance(seg, part))
    return in_arc, board.inches(d), part


def sight_origins(board: Board, shooter: str) -> np.ndarray:
    """Where sight lines start (ISD A14): the middle of the front and both ends, each end set
    in by 1 mm so that a line exactly along the side of a base as wide as the firer is blocked by
    it rather than grazing it (see GRAZE_MM)."""
    sr = board.rect(shooter)
    inset = 2 * GRAZE_MM
    return np.array([sr.front_centre, sr.from_local(-sr.width / 2 + inset, sr.depth / 2),
                     sr.from_local(sr.width / 2 - inset, sr.depth / 2)], dtype=float)


def sight_ends(parts: np.ndarray) -> list[np.ndarray]:
    """Where sight lines end, per target part: its middle first, then its corners set in by
    1 mm toward the middle (`sight_ends_flat`, split by part)."""
    points, owner = sight_ends_flat(parts)
    bounds = np.searchsorted(owner, np.arange(len(parts) + 1)).tolist()
    return [points[bounds[i]:bounds[i + 1]] for i in range(len(parts))]


def sight_ends_flat(parts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`sight_ends` of every part as one array: (points (m, 2), the part each belongs to),
    grouped by part in order, each group the middle first then the corners set in."""
    inset = 2 * GRAZE_MM
    coords, owner = shapely.get_coordinates(parts, return_index=True)
    first = np.searchsorted(owner, owner)
    repeat = (np.arange(len(owner)) != first) & (coords == coords[first]).all(axis=1)
    coords, owner = coords[~repeat], owner[~repeat]
    centres = shapely.get_coordinates(shapely.centroid(parts))
    c = centres[owner]
    d = np.hypot(coords[:, 0] - c[:, 0], coords[:, 1] - c[:, 1])
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.where(d > 0, np.minimum(1.0, inset / d), 0.0)
    moved = coords + (c - coords) * k[:, None]
    # interleave: each part's centre, then its moved corners (a stable sort on the part index)
    points = np.concatenate([centres, moved])
    belongs = np.concatenate([np.arange(len(parts)), owner])
    order = np.argsort(belongs, kind="stable")
    return points[order], belongs[order]


def sight_query(board: Board, shooter: str, target: str) -> SightQuery:
    """What one shot's sight lines ignore and need (ISD §6, ISD A15–A18)."""
    own, corridor, near_own = shooter_sight(board, shooter)
    sr, tr = board.rect(shooter), board.rect(target)
    corridor_exclude: frozenset[str] = frozenset()
    ignore: frozenset[str] = frozenset()
    if corridor > 0:
        corridor_exclude = near_own | _touching_set(board, target)
        ignore = frozenset(_fired_over(board, shooter, target) or ())
    uncounted: frozenset[str] = frozenset()
    if not board.settings.a15_area_depth_counts_own:
        uncounted = areas_holding_centre(board, shooter) | areas_holding_centre(board, target)
    ends_shapes = (sr.polygon, tr.polygon) if board.settings.a16_crest_blocks == "strictly_between" else ()
    return SightQuery(own | {target}, corridor, corridor_exclude, ends_shapes, ignore, uncounted)


def _touching_set(board: Board, base_id: str) -> frozenset[str]:
    cache = board.__dict__.setdefault("_touching_sets", {})
    found = cache.get(base_id)
    if found is None:
        found = cache[base_id] = frozenset(board.touching[base_id])
    return found


def areas_holding_centre(board: Board, base_id: str) -> frozenset[str]:
    """Ids of the area terrain covering the base's centre (ISD A15), cached per base."""
    cache = board.__dict__.setdefault("_areas_holding_centre", {})
    found = cache.get(base_id)
    if found is None:
        r = board.rect(base_id)
        centre = shapely.Point(r.cx, r.cy)
        found = cache[base_id] = frozenset(tid for tid, _, poly in board.areas
                                           if poly.covers(centre))
    return found


def shooter_sight(board: Board, shooter: str) -> tuple[frozenset[str], float, frozenset[str]]:
    """(the firer and its battery, corridor half-width, bases touching the battery), cached."""
    cache = board.__dict__.setdefault("_shooter_sight", {})
    if shooter not in cache:
        members = board.front(shooter).members
        corridor = 0.0
        touching: set[str] = set()
        if board.infos[shooter].is_gun:
            corridor = board.mm(board.settings.a18_artillery_corridor_in) / 2
            for m in {shooter, *members}:
                touching |= set(board.touching[m])
        cache[shooter] = (frozenset({shooter, *members}), corridor, frozenset(touching))
    return cache[shooter]


def pair_lines(origins: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Every origin-to-end line as a (n, 2, 2) coordinate array, end by end."""
    starts = np.repeat(origins[None, :, :], len(ends), axis=0).reshape(-1, 2)
    stops = np.repeat(ends, len(origins), axis=0)
    return np.stack([starts, stops], axis=1)


def part_in_arc(arc: Polygon, poly: Polygon) -> Polygon:
    """The part of a target inside an arc (ISD A6); a target only touching the arc's edge is
    measured to the touching point or segment."""
    inter = shapely.intersection(arc, poly)
    if inter.is_empty:   # within 1e-6 mm but not touching in floating point
        inter = shapely.intersection(arc.buffer(1e-5), poly)
    return inter if not inter.is_empty else poly


def line_of_sight(board: Board, shooter: str, target: str, part: Polygon) -> bool:
    """ISD §6 line of sight (ISD A14–A18): any sampled line clear (A14), or all of them."""
    query = sight_query(board, shooter, target)
    field = board.sight_field
    one = np.zeros(1, dtype=int)
    if board.settings.a14_line_of_sight == "centre_to_centre":
        sr, tr = board.rect(shooter), board.rect(target)
        line = shapely.linestrings([[sr.front_centre, (tr.cx, tr.cy)]])
        return bool(field.clear_many(line, one, [query])[0])
    origins = sight_origins(board, shooter)
    ends = sight_ends(np.array([part], dtype=object))[0]
    if board.settings.a14_line_of_sight == "any_line":
        # fast path: the line from the middle of the front to the middle of the target part
        first = shapely.linestrings([[origins[0], ends[0]]])
        if field.clear_many(first, one, [query])[0]:
            return True
    lines = shapely.linestrings(pair_lines(origins, ends))
    ok = field.clear_many(lines, np.zeros(len(lines), dtype=int), [query])
    if board.settings.a14_line_of_sight == "all_lines":
        return bool(ok.all())
    return bool(ok.any())


class FiredOver:
    """What a battery's shot passes over (`fired_over_kind`)."""

    NONE = 0          # nothing: every base in the way blocks
    FRIENDS = 1       # rockets: the friends at least 2" from the battery front
    EVERYTHING = 2    # one hill level of difference, no friend within 2" of the battery


def fired_over_kind(board: Board, gun: str, target: str) -> int:
    """Which bases a battery may fire over at this target (ISD §6, ISD A18): a `FiredOver`."""
    info = board.infos[gun]
    if info.rockets:
        return FiredOver.FRIENDS
    if board.level(gun) == board.level(target):
        return FiredOver.NONE
    return FiredOver.NONE if fire_over_facts(board, gun)[1] else FiredOver.EVERYTHING


def fire_over_facts(board: Board, gun: str) -> tuple[set[str], bool]:
    """(friends at least 2" from the battery front (rockets), whether any friend is within 2"
    of the battery), cached per gun."""
    cache = board.__dict__.setdefault("_fire_over", {})
    if gun not in cache:
        cache[gun] = _over_for_gun(board, gun)
    return cache[gun]


def _fired_over(board: Board, gun: str, target: str) -> set[str] | None:
    """Bases a battery may fire over (ISD §6, ISD A18), or None."""
    kind = fired_over_kind(board, gun, target)
    if kind == FiredOver.FRIENDS:
        return fire_over_facts(board, gun)[0]
    return set(board.infos) if kind == FiredOver.EVERYTHING else None


def _over_for_gun(board: Board, gun: str) -> tuple[set[str], bool]:
    """(friends at least 2" from the battery front, whether any friend is within 2")."""
    info = board.infos[gun]
    members = board.front(gun).members

    def friend(i: str) -> bool:
        o = board.infos[i]
        return o.side == info.side and not o.is_general and i not in members

    friend_near = any(friend(i) for i in board.near(gun, board.mm(2.0)))
    far_from_front: set[str] = set()
    if info.rockets:
        gr = board.rect(gun)
        front = shapely.LineString([gr.front_left, gr.front_right])
        close = set(board.state.index.within(front, board.mm(2.0) - 1e-6))
        far_from_front = {i for i in board.infos if friend(i) and i not in close}
    return far_from_front, friend_near


def cover_of(board: Board, shooter: str, target: str) -> tuple[str | None, str | None]:
    """(cover class, terrain id) the target enjoys against this shooter (ISD §6, §7, §8):
    wholly inside area terrain, or its whole front along a linear obstacle the shot crosses."""
    inside, along = cover_terrain_of(board, target)
    if not inside and not along:
        return None, None
    table = ARTILLERY_COVER if board.infos[shooter].is_gun else MUSKETRY_COVER
    sr, tr = board.rect(shooter), board.rect(target)
    rank = {None: 0, "soft": 1, "hard": 2}
    best: tuple[str | None, str | None] = (None, None)
    shot = None
    for t, geom in inside + along:
        cls = t.cover if t.cover is not None else table.get(t.kind)
        if cls in (None, "none") or rank[cls] <= rank[best[0]]:
            continue
        if t.line_mm is not None:
            shot = shot or LineString([(sr.cx, sr.cy), (tr.cx, tr.cy)])
            if not shot.intersects(geom):
                continue
        best = (cls, t.id)
    return best


def cover_terrain_of(board: Board, target: str) -> tuple[list, list]:
    """Terrain wholly holding the target, and linear terrain along its whole front (cached)."""
    cache = board.__dict__.setdefault("_cover_terrain", {})
    if target not in cache:
        tr = board.rect(target)
        inside, along = [], []
        for t, geom in board.terrain_around(target):
            if t.polygon_mm is not None:
                if board.grown(geom, board.contact_tol).covers(tr.polygon):
                    inside.append((t, geom))
            elif board.grown(geom, board.mm(0.5)).covers(LineString([tr.front_left,
                                                                     tr.front_right])):
                along.append((t, geom))
        cache[target] = (inside, along)
    return cache[target]


def arc_clear(board: Board, shooter: str, target: str, part: Polygon) -> bool:
    """ISD §7 the musketry arc must be clear of friends (ISD A10)."""
    sr = board.rect(shooter)
    side = board.infos[shooter].side
    if board.settings.a10_clear_arc == "whole_arc":
        region = fire_arc(board, shooter, board.infos[shooter].fire_range_in)
    else:
        region = shapely.convex_hull(shapely.union(sr.front_edge, part))
        ahead = shapely.Polygon([sr.front_left, sr.front_right,
                                 sr.from_local(sr.width / 2, sr.depth / 2 + board.mm(6.0)),
                                 sr.from_local(-sr.width / 2, sr.depth / 2 + board.mm(6.0))])
        region = shapely.union(region, shapely.intersection(
            ahead, shapely.buffer(sr.front_edge, float(shapely.distance(sr.front_edge, part)))))
    shrunk = region.buffer(-0.5) if region.area > 1 else region
    for other in board.state.index.within(region, 0.0):
        o = board.infos[other]
        if other == shooter or o.side != side or o.is_general:
            continue
        if shapely.intersects(shrunk, board.rect(other).polygon):
            return False
    return True


def far_arc(board: Board, shooter: str) -> Polygon:
    """The shooter's arc cut at a reach holding the whole table and every base: the unbounded
    arc for every purpose ("every enemy base inside its arc of fire", shared/interfaces.md)."""
    return fire_arc(board, shooter, board.inches(board.state.reach_all_mm))


def is_candidate(board: Board, shooter: str, other: str) -> bool:
    """An enemy unit that is present: generals are never targets, and a base not seen by the
    camera (``stale``) is absent, so neither in arc nor in range (shared/interfaces.md)."""
    o = board.infos[other]
    return o.side != board.infos[shooter].side and not o.is_general and not o.stale


def targets_of(board: Board, shooter: str) -> list[Target]:
    """Every present enemy base in the shooter's arc (at any distance) or within its range.

    The part of a target measured to, and the lines of sight traced to, is its part within the
    arc cut 3" beyond the maximum range (REPORT_MARGIN_IN); a target wholly beyond that is
    measured to its part in the whole arc. The plain path (the reference for `fire_batch`)."""
    info = board.infos[shooter]
    if not info.can_fire or info.stale:
        return []
    max_in = info.fire_range_in
    arc = fire_arc(board, shooter)
    whole = far_arc(board, shooter)
    front = board.front(shooter)
    seg = LineString([front.left, front.right])
    near = set(board.state.index.meeting(whole)) | set(
        board.state.index.within(seg, board.mm(max_in) + 1e-6))
    out: list[Target] = []
    for other in sorted(near):
        if not is_candidate(board, shooter, other):
            continue
        in_arc, dist, part = measure_target(board, shooter, other, arc)
        if not in_arc:
            far_in, far_dist, far_part = measure_target(board, shooter, other, whole)
            if far_in:
                in_arc, dist, part = far_in, far_dist, far_part
        if not in_arc and dist > max_in + EPS_IN:
            continue
        out.append(verdict(board, shooter, other, in_arc, dist, part,
                           line_of_sight(board, shooter, other, part)))
    mark_priority(board, shooter, out)
    return out


def verdict(board: Board, shooter: str, other: str, in_arc: bool, dist: float, part: Polygon,
            sight: bool, margin_of_arc: float | None = None, flank: bool | None = None) -> Target:
    """The Target record once arc, distance and sight (and perhaps the arc margin and the
    flank-fire test, measured in bulk) are known."""
    info = board.infos[shooter]
    max_in = info.fire_range_in
    in_range = dist <= max_in + EPS_IN
    t = Target(id=other, distance=dist, in_arc=in_arc, in_range=in_range,
               band=band_of(board, dist, info.is_gun) if in_range else None,
               line_of_sight=sight, margin=max_in - dist)
    t.arc_margin = margin_of_arc if margin_of_arc is not None else \
        arc_margin(board, shooter, part if in_arc else board.rect(other).polygon)
    t.flank_fire = flank if flank is not None else _flank_fire(board, shooter, other)
    t.cover, t.cover_terrain = cover_of(board, shooter, other)
    if not info.is_gun and in_arc and in_range:
        t.arc_clear = arc_clear(board, shooter, other, part)
    _judge(board, shooter, t)
    if t.legal:
        t.modifiers = [m.to_dict() for m in shot_modifiers(board, shooter, other, t)]
    return t


def arc_margin(board: Board, shooter: str, shape: Polygon) -> float:
    """How far (inches) the deepest point of ``shape`` lies inside the arc's side rays; negative:
    how far the nearest point lies outside them ("0.4 in outside the arc")."""
    return float(arc_margins(board, [shooter], np.array([shape], dtype=object))[0])


def arc_margins(board: Board, shooters: list[str], shapes: np.ndarray) -> np.ndarray:
    """`arc_margin` of many (shooter, shape) pairs at once (numpy over all their vertices).

    min(depth inside either ray) is concave, so its maximum over a convex shape lies at a vertex
    or where the outline crosses the arc's axis (where both depths are equal)."""
    unique = sorted(set(shooters))
    row = {s: k for k, s in enumerate(unique)}
    par = arc_params(board, unique)[[row[s] for s in shooters]].reshape(-1, 10)
    xy, owner = shapely.get_coordinates(shapes, return_index=True)
    return arc_margins_mm(xy, owner, par, len(shapes)) / board.mm(1.0)


def arc_margins_mm(xy: np.ndarray, owner: np.ndarray, par: np.ndarray, n: int) -> np.ndarray:
    """`arc_margins` in mm from the outlines' vertices ``xy`` (``owner``: the shape each belongs
    to, grouped) and each shape's arc as `arc_params` numbers (``par``, one row per shape)."""
    p = par[owner]
    mid = (p[:, 0:2] + p[:, 2:4]) / 2
    side = (xy[:, 0] - mid[:, 0]) * p[:, 9] - (xy[:, 1] - mid[:, 1]) * p[:, 8]
    a, b = side[:-1], side[1:]
    cross = np.nonzero((owner[:-1] == owner[1:]) & (a * b < 0))[0]
    t = (a[cross] / (a[cross] - b[cross]))[:, None]
    xy = np.vstack([xy, xy[cross] + (xy[cross + 1] - xy[cross]) * t])
    owner = np.concatenate([owner, owner[cross]])
    p = par[owner]
    depth_l = (xy[:, 0] - p[:, 0]) * p[:, 4] + (xy[:, 1] - p[:, 1]) * p[:, 5]
    depth_r = (xy[:, 0] - p[:, 2]) * p[:, 6] + (xy[:, 1] - p[:, 3]) * p[:, 7]
    out = np.full(n, -np.inf)
    np.maximum.at(out, owner, np.minimum(depth_l, depth_r))
    return out


def arc_params(board: Board, shooters: Sequence[str]) -> np.ndarray:
    """Per shooter, its arc as numbers (n, 10): the left and right origins, the inward normals
    of the left and right side rays, and the facing (cached per shooter)."""
    cache = board.__dict__.setdefault("_arc_params", {})
    for shooter in shooters:
        if shooter in cache:
            continue
        f = board.front(shooter)
        half = board.infos[shooter].arc_half_deg
        left, right = f.left, f.right
        if board.settings.a4_arc_origin == "front_centre":
            left = right = ((f.left[0] + f.right[0]) / 2, (f.left[1] + f.right[1]) / 2)
        dl, dr = rotate(f.facing, half), rotate(f.facing, -half)
        cache[shooter] = (*left, *right, dl[1], -dl[0], -dr[1], dr[0], *f.facing)
    return np.array([cache[s] for s in shooters], dtype=float).reshape(-1, 10)


def shot_modifiers(board: Board, shooter: str, target: str, t: Target) -> list[Any]:
    """The modifiers of this shot: the tables' `fire_modifiers` on the facts measured here
    (`shot_facts`: built once per kind of shot)."""
    from campo.engine.rulesets.italia.shot_facts import memo_modifiers

    return memo_modifiers(board, shooter, target, round(t.distance, 6), t.flank_fire,
                          t.cover or "none")


def _flank_fire(board: Board, shooter: str, target: str) -> bool:
    """ISD §1 flank fire: the firer's front completely beyond the target's front line (A2, A3)."""
    sr, tr = board.rect(shooter), board.rect(target)
    if not whole_front_beyond(sr, tr, board.beyond_tol):
        return False
    if not board.settings.a3_rear_counts_as_flank:
        # a firer wholly behind the target's rear edge is not on its flank
        return not all(tr.to_local(*p)[1] < -tr.depth / 2 for p in (sr.front_left, sr.front_right))
    return True


def _judge(board: Board, shooter: str, t: Target) -> None:
    t.reasons = fire_reasons(t.in_arc, t.in_range, t.margin, t.line_of_sight, t.arc_clear)
    t.legal = not t.reasons


def fire_reasons(in_arc: bool, in_range: bool, margin: float, sight: bool,
                 clear: bool) -> list[str]:
    """Why a shot is not allowed (empty: it is)."""
    reasons = []
    if not in_arc:
        reasons.append("not in arc of fire")
    if not in_range:
        reasons.append(f"out of range: {-margin:.1f} in short")
    if not sight:
        reasons.append("no line of sight")
    if not clear:
        reasons.append("arc of fire not clear of friends")
    return reasons


def mark_priority(board: Board, shooter: str, targets: list[Target]) -> None:
    """ISD §7 nearest legal target (A8); ISD §6 artillery fires first at units within charge
    distance (A9). Ties within ``equal_distance_tolerance_in`` are all marked."""
    flags = priority_flags(board, shooter, [t.id for t in targets],
                           [t.distance for t in targets], [t.legal for t in targets])
    for t, flag in zip(targets, flags):
        if flag:
            t.priority = True


def priority_flags(board: Board, shooter: str, ids: Sequence[str], distances: Sequence[float],
                   legal: Sequence[bool]) -> list[bool]:
    """Which of a shooter's targets (as columns) `mark_priority` marks."""
    flags = [False] * len(ids)
    rows = [k for k, ok in enumerate(legal) if ok]
    if not rows:
        return flags
    tie = board.settings.equal_distance_tolerance_in
    info = board.infos[shooter]
    pool = rows
    if info.is_gun and board.settings.a9_artillery_priority == "within_enemy_full_move":
        threats = []
        for k in rows:
            o = board.infos[ids[k]]
            if o.is_unit:
                full = 12.0 if o.arm == "cavalry" else 6.0
                gap = board.inches(float(shapely.distance(board.rect(shooter).polygon,
                                                           board.rect(ids[k]).polygon)))
                if gap <= full + EPS_IN:
                    threats.append(k)
        if not threats:
            for k in rows:
                flags[k] = True   # free choice on its front
            return flags
        pool = threats
    elif board.settings.a8_nearest_target == "nearest_enemy" and not info.is_gun:
        pool = list(range(len(ids)))
    nearest = min(distances[k] for k in pool)
    for k in pool:
        if distances[k] <= nearest + tie and legal[k]:
            flags[k] = True
    return flags
