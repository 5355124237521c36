"""Shooting (ATT 6, ATT T): the 30° per side arc, range bands, maximum ranges, line of sight.

Readings: arc from the front corners (AT4), range from the front edge to the part in arc (AT5),
bands < 5 / 5-10 / > 10 cm (AT6), one clear straight line (AT7), wood edges (AT8), saves (AT9).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import shapely
from shapely.geometry import LineString, Point as ShPoint, Polygon

from engine.geometry.arcs import arc_polygon, arc_to_range, band_rings
from engine.geometry.rect import Rect
from engine.geometry.sight import SightField, sample_outline, sample_segment, sight_lines
from engine.results import Band
from engine.rulesets.attila.board import DEFENCES, DEFENDED_AREAS, HILLS, WOODS, Board
from engine.rulesets.attila.units import SCORE_NEEDED

ARC_HALF_DEG = 30.0       # ATT 6.A «L'angolo di tiro è di 30° per lato»
SHORT_CM = 5.0            # ATT 6.A «La distanza breve è minore di 5 cm.»
MEDIUM_CM = 10.0          # ATT 6.A «la media è tra 5 e 10 cm (inclusi)»
SUMMARY_LONG_CM = 11.0    # ATT T «Lunga, 11cm o più» (AT6)
REPORT_REACH_FACTOR = 2.0  # enemies in arc are listed out to twice the maximum range
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
    left, right = front_segment(board, shooter)
    front = LineString([left, right]) if left != right else ShPoint(left)
    shape = part_in_arc if (how == "front_edge_to_part_in_arc" and not part_in_arc.is_empty) \
        else t.polygon
    return board.cm(float(front.distance(shape)))


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


def judge_target(board: Board, shooter: str, target: str) -> Target:
    """Arc, range, band, sight and the shot's numbers for one enemy."""
    su, tu = board.units[shooter], board.units[target]
    s = board.settings
    max_mm = board.mm(su.max_range_cm(s))
    left, right = front_segment(board, shooter)
    report = max_mm * REPORT_REACH_FACTOR + board.rect(target).width + board.rect(target).depth
    arc = fire_arc(board, shooter, report)
    tpoly = board.poly(target)
    part = shapely.intersection(arc, tpoly)
    in_arc = part.area > _EPS
    distance = _measure(board, shooter, target, part if in_arc else Polygon())
    in_range = distance <= su.max_range_cm(s) + _EPS
    band = band_of(distance, su.max_range_cm(s), board)
    reasons: list[str] = []
    sight = line_of_sight(board, shooter, target, arc, part if in_arc else tpoly, max_mm, reasons)
    t = Target(target, distance, in_arc, in_range, band, sight,
               margin=su.max_range_cm(s) - distance)
    if not in_arc:
        reasons.append("outside the 30° per side arc (ATT 6.A)")
    if not in_range:
        reasons.append(f"beyond the {su.missile}' maximum range of {su.max_range_cm(s):g} cm "
                       "(ATT T)")
    t.can_shoot = in_arc and in_range and sight
    if t.can_shoot and band is not None:
        t.die = su.shooting_die(s)
        t.score_needed = SCORE_NEEDED[band.value]
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


def line_of_sight(board: Board, shooter: str, target: str, arc: Polygon, part: Polygon,
                  max_mm: float, reasons: list[str]) -> bool:
    """ATT 6.A «visibile liberamente», «Non è possibile tirare attraverso boschi, colline od altre
    truppe», wood edges (AT7, AT8)."""
    s = board.settings
    sr, tr = board.rect(shooter), board.rect(target)
    uncounted: list[str] = []
    own_wood = board.wood_of(shooter)
    if own_wood is not None:
        if not on_wood_edge(board, shooter, own_wood, None):
            reasons.append(f"inside wood {own_wood!r} but not on its edge: cannot shoot out "
                           "(ATT 6.A, AT8)")
            return False
        uncounted.append(own_wood)
    their_wood = board.wood_of(target)
    if their_wood is not None and their_wood != own_wood:
        if not on_wood_edge(board, target, their_wood, sr.front_centre):
            reasons.append(f"target inside wood {their_wood!r} but not on its edge: cannot be "
                           "shot (ATT 6.A, AT8)")
            return False
        uncounted.append(their_wood)
    for base in (shooter, target):
        hill = board.hill_of(base)
        if hill is not None:
            uncounted.append(hill)
    if s.at7_line_of_sight == "centre_to_centre":
        lines = sight_lines([(sr.cx, sr.cy)], [(tr.cx, tr.cy)])
    else:
        left, right = front_segment(board, shooter)
        reach = shapely.intersection(part, arc_to_range(arc, left, right, max_mm)) \
            if max_mm > 0 else part
        goal = reach if reach.area > _EPS else part
        lines = sight_lines(sample_segment(left, right, 5) if left != right else [left],
                            sample_outline(goal, per_edge=3))
    clear = sight_field(board).clear(lines, exclude=(shooter, target),
                                     uncounted_areas=uncounted)
    if not clear.any():
        reasons.append("no clear line: woods, hills or other troops in the way (ATT 6.A, AT7)")
        return False
    return True


def targets_of(board: Board, shooter: str) -> list[Target]:
    """Every present enemy in the shooter's arc (out to twice its range) or within its range."""
    su = board.units[shooter]
    if su.missile is None or su.absent:
        return []
    max_mm = board.mm(su.max_range_cm(board.settings))
    out = []
    for other in board.near(shooter, max_mm * REPORT_REACH_FACTOR + board.rect(shooter).depth):
        if other not in board.enemies_of(shooter) or board.units[other].absent:
            continue
        t = judge_target(board, shooter, other)
        if t.in_arc or t.in_range:
            out.append(t)
    return sorted(out, key=lambda t: (round(t.distance, 6), t.id))


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
