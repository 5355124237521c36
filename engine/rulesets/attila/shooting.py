"""Shooting (ATT 6, ATT T): the 30° per side arc, range bands, maximum ranges, line of sight.

Readings: arc from the front corners (AT4), range from the front edge to the part in arc (AT5),
bands < 5 / 5-10 / > 10 cm (AT6), one clear straight line (AT7), wood edges (AT8), saves (AT9).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Point as ShPoint, Polygon

from campo.engine.geometry.arcs import (
    arc_polygon, arc_to_range, band_rings, within_range_of_segment,
)
from campo.engine.geometry.rect import Point, Rect
from campo.engine.geometry.sight import (
    SightField,
    SightQuery,
    sample_outline,
    sample_segment,
    sight_lines,
)
from campo.engine.results import Band
from campo.engine.rulesets.attila.board import DEFENCES, DEFENDED_AREAS, HILLS, WOODS, Board
from campo.engine.rulesets.attila.units import SCORE_NEEDED

ARC_HALF_DEG = 30.0       # ATT 6.A «L'angolo di tiro è di 30° per lato»
SHORT_CM = 5.0            # ATT 6.A «La distanza breve è minore di 5 cm.»
MEDIUM_CM = 10.0          # ATT 6.A «la media è tra 5 e 10 cm (inclusi)»
SUMMARY_LONG_CM = 11.0    # ATT T «Lunga, 11cm o più» (AT6)
REPORT_REACH_FACTOR = 2.0  # in-arc parts are measured (and sighted) out to twice the range
_EPS = 1e-6


@dataclass
class Target:
    """One enemy base in the shooter's arc or range."""

    id: str
    distance: float                 # cm
    in_arc: bool
    in_range: bool
    band: Band | None
    line_of_sight: bool
    can_shoot: bool = False         # reported as "legal": a shot may be taken (ATT 6.A)
    margin: float = 0.0             # maximum range - distance, cm (negative = out of range)
    die: str | None = None
    score_needed: int | None = None
    saves: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "distance": round(self.distance, 2),
                             "in_arc": self.in_arc, "in_range": self.in_range,
                             "band": self.band.value if self.band else None,
                             "line_of_sight": self.line_of_sight, "legal": self.can_shoot,
                             "margin": round(self.margin, 2)}
        if self.can_shoot:
            d["die"] = self.die
            d["score_needed"] = self.score_needed
            d["saves"] = list(self.saves)
        if self.reasons:
            d["reasons"] = list(self.reasons)
        return d


def band_of(distance_cm: float, max_range_cm: float, board: Board) -> Band | None:
    """The band of a distance (AT6), or None beyond the maximum range (inclusive, ATT T)."""
    scale = board.settings.at18_distance_scale
    if distance_cm > max_range_cm + _EPS:
        return None
    if distance_cm < SHORT_CM * scale - _EPS:
        return Band.SHORT
    long_from = MEDIUM_CM if board.settings.at6_band_edges == "chapter_6" else SUMMARY_LONG_CM
    if board.settings.at6_band_edges == "chapter_6":
        return Band.MEDIUM if distance_cm <= long_from * scale + _EPS else Band.LONG
    return Band.MEDIUM if distance_cm < long_from * scale - _EPS else Band.LONG


def front_segment(board: Board, base_id: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where the arc starts: the front corners, or the front centre (AT4)."""
    r = board.rect(base_id)
    if board.settings.at4_arc_origin == "front_centre":
        return r.front_centre, r.front_centre
    return r.front_left, r.front_right


def fire_arc(board: Board, base_id: str, reach_mm: float) -> Polygon:
    left, right = front_segment(board, base_id)
    return arc_polygon(left, right, board.rect(base_id).front, ARC_HALF_DEG, reach_mm)


def _shot_arc(board: Board, shooter: str, reach_mm: float) -> Polygon:
    """`fire_arc`, cached per shooter and reach (targets of one size share it)."""
    cache = board.__dict__.setdefault("_shot_arcs", {})
    key = (shooter, reach_mm)
    if key not in cache:
        cache[key] = fire_arc(board, shooter, reach_mm)
    return cache[key]


def _arc_in_range(board: Board, shooter: str, reach_mm: float, max_mm: float) -> Polygon:
    """The `_shot_arc` out to ``reach_mm`` cut at ``max_mm``, cached."""
    cache = board.__dict__.setdefault("_arcs_in_range", {})
    key = (shooter, reach_mm, max_mm)
    if key not in cache:
        # `arc_to_range` with the range's stadium built once per shooter and range (the same
        # GEOS buffer for each reach of the arc)
        cache[key] = shapely.intersection(_shot_arc(board, shooter, reach_mm),
                                          _stadium(board, shooter, max_mm))
    return cache[key]


def _stadium(board: Board, shooter: str, max_mm: float) -> Polygon:
    """Every point within ``max_mm`` of the shooter's front segment (`within_range_of_segment`),
    cached per shooter and range."""
    cache = board.__dict__.setdefault("_stadiums", {})
    key = (shooter, max_mm)
    found = cache.get(key)
    if found is None:
        left, right = front_segment(board, shooter)
        found = cache[key] = within_range_of_segment(left, right, max_mm)
    return found


def _edge_near(r: Rect, toward: tuple[float, float]) -> LineString:
    """The edge of ``r`` whose midpoint is nearest ``toward``."""
    return min(r.edges.values(), key=lambda e: e.interpolate(0.5, normalized=True).distance(
        ShPoint(toward)))


def on_wood_edge(board: Board, base_id: str, wood_id: str, toward: tuple[float, float] | None
                 ) -> bool:
    """AT8: the front edge (``toward`` None: shooting out) or the edge facing ``toward`` lies
    within at8_wood_edge_cm of the wood's boundary."""
    r = board.rect(base_id)
    edge = r.front_edge if toward is None else _edge_near(r, toward)
    boundary = board.areas[wood_id].exterior
    return float(edge.distance(boundary)) <= board.mm(board.settings.at8_wood_edge_cm) + _EPS


def sight_field(board: Board) -> SightField:
    """Bodies (other bases; Generals only if generals_block_sight) and deep areas (woods, hills)
    that no line may enter (max depth 0)."""
    def build() -> SightField:
        shrink = -max(board.contact_tol, 0.5)
        ids = [i for i in board.ids if not board.units[i].absent
               and (board.settings.generals_block_sight or not board.units[i].is_general)]
        bodies = [board.poly(i).buffer(shrink, join_style="mitre") for i in ids]
        areas = [t for t in board.state.scenario.terrain
                 if t.is_area and t.kind in (WOODS | HILLS)]
        return SightField(bodies=bodies, body_ids=ids,
                          deep_areas=[board.areas[t.id] for t in areas],
                          deep_area_ids=[t.id for t in areas], max_depth=0.0)
    return board.state.cached("attila.sight", build)


def _measure(board: Board, shooter: str, target: str, part_in_arc: Polygon) -> float:
    r, t = board.rect(shooter), board.rect(target)
    how = board.settings.at5_range_measure
    if how == "centre_to_centre":
        return board.cm(((r.cx - t.cx) ** 2 + (r.cy - t.cy) ** 2) ** 0.5)
    front = _front_shape(board, shooter)
    shape = part_in_arc if (how == "front_edge_to_part_in_arc" and not part_in_arc.is_empty) \
        else t.polygon
    return board.cm(float(front.distance(shape)))


def _front_shape(board: Board, shooter: str) -> LineString | ShPoint:
    """Where range is measured from (AT4, AT5): the front edge, or its centre; cached."""
    cache = board.__dict__.setdefault("_front_shapes", {})
    found = cache.get(shooter)
    if found is None:
        left, right = front_segment(board, shooter)
        found = cache[shooter] = LineString([left, right]) if left != right else ShPoint(left)
    return found


def _cover(board: Board, target: str, shooter: str) -> bool:
    """ATT 6.C «all'interno di boschi, dietro muri o difese»: in a wood or defended area, or a
    wall/defence within at8_wood_edge_cm of the target crossing the line to the shooter."""
    if board.area_holding(target, WOODS | DEFENDED_AREAS):
        return True
    t, s = board.rect(target), board.rect(shooter)
    line = LineString([(t.cx, t.cy), s.front_centre])
    near = board.mm(board.settings.at8_wood_edge_cm)
    for f in board.features(DEFENCES):
        wall = board.lines.get(f.id)
        if wall is not None and wall.intersects(line) and wall.distance(t.polygon) <= near + _EPS:
            return True
    return False


@dataclass
class _Pending:
    """A target judged up to its line of sight (the costly part, batched by `all_targets`)."""

    shooter: str
    target: Target
    reasons: list[str]
    lines: tuple[list[Point], list[Point], SightQuery] | None   # None: sight already refused


def judge_target(board: Board, shooter: str, target: str) -> Target:
    """Arc, range, band, sight and the shot's numbers for one enemy."""
    pending = _judge_until_sight(board, shooter, target)
    sight = False
    if pending.lines is not None:
        origins, ends, query = pending.lines
        sight = bool(sight_field(board).clear(sight_lines(origins, ends), exclude=query.exclude,
                                              uncounted_areas=query.uncounted_areas).any())
    return _finish(board, pending, sight)


def _judge_until_sight(board: Board, shooter: str, target: str,
                       listed_only: bool = False) -> _Pending:
    """Everything but the line of sight; with ``listed_only``, a target neither in the arc nor
    in range (never listed) skips the sight lines too."""
    su = board.units[shooter]
    s = board.settings
    max_mm = board.mm(su.max_range_cm(s))
    report = max_mm * REPORT_REACH_FACTOR + board.rect(target).width + board.rect(target).depth
    arc = _shot_arc(board, shooter, report)
    tpoly = board.poly(target)
    part = shapely.intersection(arc, tpoly)
    in_arc = part.area > _EPS
    if not in_arc and target in _whole_arc_hits(board, shooter):
        # wholly beyond the near arc (twice the range): measured in the whole arc
        whole = board.state.reach_all_mm
        far_part = shapely.intersection(_shot_arc(board, shooter, whole), tpoly)
        if far_part.area > _EPS:
            in_arc, part, report = True, far_part, whole
    distance = _measure(board, shooter, target, part if in_arc else Polygon())
    in_range = distance <= su.max_range_cm(s) + _EPS
    band = band_of(distance, su.max_range_cm(s), board)
    reasons: list[str] = []
    lines = None
    if in_arc or in_range or not listed_only:
        lines = sight_problem(board, shooter, target, report, part if in_arc else tpoly, max_mm,
                              reasons)
    t = Target(target, distance, in_arc, in_range, band, False,
               margin=su.max_range_cm(s) - distance)
    return _Pending(shooter, t, reasons, lines)


def _finish(board: Board, pending: _Pending, sight: bool) -> Target:
    """The rest of `judge_target` once the line of sight is known."""
    shooter, t, reasons = pending.shooter, pending.target, pending.reasons
    target = t.id
    su, tu = board.units[shooter], board.units[target]
    s = board.settings
    if pending.lines is not None and not sight:
        reasons.append("no clear line: woods, hills or other troops in the way (ATT 6.A, AT7)")
    t.line_of_sight = sight
    if not t.in_arc:
        reasons.append("outside the 30° per side arc (ATT 6.A)")
    if not t.in_range:
        reasons.append(f"beyond the {su.missile}' maximum range of {su.max_range_cm(s):g} cm "
                       "(ATT T)")
    t.can_shoot = t.in_arc and t.in_range and sight
    if t.can_shoot and t.band is not None:
        t.die = su.shooting_die(s)
        t.score_needed = SCORE_NEEDED[t.band.value]
        saves = []
        if _cover(board, target, shooter):
            saves.append("cover")
        if tu.heavy(s):
            saves.append("heavy")
        if s.at9_saves == "one_save":
            saves = saves[:1]
        t.saves = saves
    t.reasons = reasons
    return t


def sight_problem(board: Board, shooter: str, target: str, report_mm: float, part: Polygon,
                  max_mm: float, reasons: list[str]
                  ) -> tuple[list[Point], list[Point], SightQuery] | None:
    """The sight lines' origins and ends and what they ignore; None (with the reason added)
    when a wood alone refuses the shot (AT8). ``report_mm``: the reach of the shot's arc."""
    s = board.settings
    sr, tr = board.rect(shooter), board.rect(target)
    uncounted: list[str] = []
    own_wood = board.wood_of(shooter)
    if own_wood is not None:
        if not on_wood_edge(board, shooter, own_wood, None):
            reasons.append(f"inside wood {own_wood!r} but not on its edge: cannot shoot out "
                           "(ATT 6.A, AT8)")
            return None
        uncounted.append(own_wood)
    their_wood = board.wood_of(target)
    if their_wood is not None and their_wood != own_wood:
        if not on_wood_edge(board, target, their_wood, sr.front_centre):
            reasons.append(f"target inside wood {their_wood!r} but not on its edge: cannot be "
                           "shot (ATT 6.A, AT8)")
            return None
        uncounted.append(their_wood)
    for base in (shooter, target):
        hill = board.hill_of(base)
        if hill is not None:
            uncounted.append(hill)
    if s.at7_line_of_sight == "centre_to_centre":
        origins, ends = [(sr.cx, sr.cy)], [(tr.cx, tr.cy)]
    else:
        left, right = front_segment(board, shooter)
        reach = shapely.intersection(part, _arc_in_range(board, shooter, report_mm, max_mm)) \
            if max_mm > 0 else part
        goal = reach if reach.area > _EPS else part
        origins = sample_segment(left, right, 5) if left != right else [left]
        ends = _outline_points(goal, per_edge=3)
    return origins, ends, SightQuery(frozenset((shooter, target)), 0.0, frozenset(), (),
                                     frozenset(), frozenset(uncounted))


def _outline_points(shape: Polygon, per_edge: int) -> list[Point]:
    """`engine.geometry.sight.sample_outline`, the same points from the same arithmetic, read
    with one ``get_coordinates`` per ring (shapely's ``coords`` property dominated it)."""
    if shape.is_empty:
        return []
    polys = list(getattr(shape, "geoms", [shape]))
    if any(poly.geom_type != "Polygon" for poly in polys):
        return sample_outline(shape, per_edge)
    points: list[Point] = []
    fractions = [k / (per_edge + 1) for k in range(1, per_edge + 1)]
    for poly in polys:
        coords = shapely.get_coordinates(poly.exterior).tolist()[:-1]
        n = len(coords)
        for i, (ax, ay) in enumerate(coords):
            bx, by = coords[(i + 1) % n]
            points.append((ax, ay))
            for t in fractions:
                points.append((ax + (bx - ax) * t, ay + (by - ay) * t))
    return points


def _clear(pending: list[_Pending], board: Board) -> list[bool]:
    """Line of sight of many shots (AT7: one clear line is enough), in two batched
    `SightField.clear_many` calls: the shortest line of every shot, then every line of the
    shots whose shortest line is blocked."""
    seen = [False] * len(pending)
    todo = [k for k, p in enumerate(pending) if p.lines is not None and p.lines[1]]
    if not todo:
        return seen
    field = sight_field(board)
    queries = [pending[k].lines[2] for k in todo]
    grids = []
    for k in todo:
        origins, ends, _ = pending[k].lines
        o, e = np.asarray(origins, dtype=float), np.asarray(ends, dtype=float)
        grid = np.empty((len(o), len(e), 2, 2))
        grid[:, :, 0, :] = o[:, None, :]
        grid[:, :, 1, :] = e[None, :, :]
        grids.append(grid.reshape(-1, 2, 2))
    first = np.array([g[int(np.argmin(((g[:, 1] - g[:, 0]) ** 2).sum(axis=1)))] for g in grids])
    ok = field.clear_many(shapely.linestrings(first), np.arange(len(todo)), queries)
    blocked = np.nonzero(~ok)[0].tolist()
    if blocked:
        owners = np.repeat(blocked, [len(grids[j]) for j in blocked])
        ok_all = field.clear_many(shapely.linestrings(np.concatenate([grids[j] for j in blocked])),
                                  owners, queries)
        ok[np.unique(owners[ok_all])] = True
    for j, k in enumerate(todo):
        seen[k] = bool(ok[j])
    return seen


def _candidates(board: Board, shooter: str) -> list[str]:
    """Present enemies near enough to be in range (or in the arc out to twice the range), and
    every present enemy meeting the whole arc, in id order."""
    su = board.units[shooter]
    if su.missile is None or su.absent:
        return []
    max_mm = board.mm(su.max_range_cm(board.settings))
    side = su.side
    near = set(board.near(shooter, max_mm * REPORT_REACH_FACTOR + board.rect(shooter).depth))
    near |= _whole_arc_hits(board, shooter)
    return [o for o in sorted(near)
            if board.units[o].side != side and not board.units[o].absent]


def _whole_arc_hits(board: Board, shooter: str) -> frozenset[str]:
    """The bases meeting the shooter's whole arc (cut at a reach holding every base), cached."""
    cache = board.__dict__.setdefault("_whole_arc_hits", {})
    found = cache.get(shooter)
    if found is None:
        arc = _shot_arc(board, shooter, board.state.reach_all_mm)
        found = cache[shooter] = frozenset(board.state.index.within(arc, 0.0))
    return found


def targets_of(board: Board, shooter: str) -> list[Target]:
    """Every present enemy in the shooter's arc (at any distance) or within its range.

    The plain path: one target at a time (the reference for `all_targets`)."""
    out = []
    for other in _candidates(board, shooter):
        t = judge_target(board, shooter, other)
        if t.in_arc or t.in_range:
            out.append(t)
    return sorted(out, key=lambda t: (round(t.distance, 6), t.id))


def all_targets(board: Board) -> dict[str, list[Target]]:
    """Every base's targets at once: the lines of sight of all shots in one batch."""
    pendings = {i: [p for p in (_judge_until_sight(board, i, o, listed_only=True)
                                for o in _candidates(board, i))
                    if p.target.in_arc or p.target.in_range]
                for i in board.ids}
    flat = [p for i in board.ids for p in pendings[i]]
    seen = _clear(flat, board)
    out: dict[str, list[Target]] = {}
    n = 0
    for i in board.ids:
        k = len(pendings[i])
        targets = [_finish(board, p, v) for p, v in zip(pendings[i], seen[n:n + k])]
        n += k
        out[i] = sorted((t for t in targets if t.in_arc or t.in_range),
                        key=lambda t: (round(t.distance, 6), t.id))
    return out


def arc_drawing(board: Board, shooter: str) -> dict[str, Any]:
    """The arc and band rings (table mm) for the overlay."""
    su = board.units[shooter]
    max_cm = su.max_range_cm(board.settings)
    left, right = front_segment(board, shooter)
    arc = fire_arc(board, shooter, board.mm(max_cm) * 1.2)
    scale = board.settings.at18_distance_scale
    edges = [e for e in (SHORT_CM * scale, MEDIUM_CM * scale) if e < max_cm] + [max_cm]
    rings = band_rings(arc, left, right, [board.mm(e) for e in edges])
    names = ["short", "medium", "long"][:len(rings)]
    return {"arc": arc_to_range(arc, left, right, board.mm(max_cm)),
            "bands": [{"band": n, "upto": e, "polygon": ring}
                      for n, e, ring in zip(names, edges, rings)]}
