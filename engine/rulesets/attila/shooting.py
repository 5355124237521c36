"""Shooting (ATT 6, ATT T): the 30° per side arc, range bands, maximum ranges, line of sight.

Readings: arc from the front corners (AT4), range from the front edge to the part in arc (AT5),
bands < 5 / 5-10 / > 10 cm (AT6, `band_table`), one clear straight line (AT7, `sight`), wood
edges (AT8), saves (AT9). The arc, range and bands are decided with `boundary.decide`: a target
within close_call_mm of the arc's edge or of the maximum range is too close to call.

Every shooter asked about is judged at once (`targets_of_many`): its candidates come from one
STRtree query of all the arcs and one of all the ranges, the parts in the arcs and the distances
from vectorised shapely calls, the lines of sight from `sight.clear`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Polygon

from campo.engine.boundary import CLOSE_CALL, decide, key
from campo.engine.results import Band
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.sight import SightQuestion, clear
from campo.engine.rulesets.attila.tables import (
    ARC_HALF_DEG, DEFENCES, DEFENDED_AREAS, MEDIUM_UPTO_CM, SCORE_NEEDED, SHORT_BELOW_CM,
    SUMMARY_LONG_FROM_CM, WOODS,
)

ORIGINS_ON_FRONT = 5      # sight lines start at this many points along the front edge (AT7)
ENDS_PER_EDGE = 3         # and end at each vertex of the target's part plus this many per edge
STADIUM_QUAD_SEGS = 16    # the range's round ends are drawn by this many chords per quarter
_EPS = 1e-6


@dataclass(frozen=True)
class BandRow:
    """One range band: distances from ``lower`` to ``upper`` cm, each end included or not."""

    band: Band
    lower: float
    lower_included: bool
    upper: float
    upper_included: bool

    def holds(self, d: float) -> bool:
        above = d >= self.lower - _EPS if self.lower_included else d > self.lower + _EPS
        below = d <= self.upper + _EPS if self.upper_included else d < self.upper - _EPS
        return above and below


def band_table(board_or_settings: Any, max_cm: float) -> list[BandRow]:
    """The bands of a weapon whose maximum range is ``max_cm`` (inclusive, ATT T), under AT6:
    ``chapter_6`` short < 5, medium 5-10 inclusive, long > 10 cm; ``summary_table`` long from
    11 cm. Distances scaled by AT18. Bands the maximum cuts off are left out."""
    s = getattr(board_or_settings, "settings", board_or_settings)
    k = s.at18_distance_scale
    short, medium, long_from = SHORT_BELOW_CM * k, MEDIUM_UPTO_CM * k, SUMMARY_LONG_FROM_CM * k
    if s.at6_band_edges == "chapter_6":
        rows = [BandRow(Band.SHORT, 0.0, True, short, False),
                BandRow(Band.MEDIUM, short, True, medium, True),
                BandRow(Band.LONG, medium, False, max_cm, True)]
    else:
        rows = [BandRow(Band.SHORT, 0.0, True, short, False),
                BandRow(Band.MEDIUM, short, True, long_from, False),
                BandRow(Band.LONG, long_from, True, max_cm, True)]
    out = []
    for r in rows:
        if r.lower > max_cm + _EPS or (r.lower >= max_cm - _EPS and not r.lower_included):
            continue
        if r.upper >= max_cm:
            r = BandRow(r.band, r.lower, r.lower_included, max_cm, True)
        out.append(r)
    return out


def band_of(distance_cm: float, table: list[BandRow], in_range: bool) -> Band | None:
    """The band of a distance, None out of range; a target held in range a hair beyond the
    maximum (a close call) is in the last band."""
    if not in_range or not table:
        return None
    d = min(distance_cm, table[-1].upper)
    return next((r.band for r in table if r.holds(d)), table[-1].band)


@dataclass
class Target:
    """One enemy base in the shooter's arc or range."""

    id: str
    distance: float                 # cm
    in_arc: bool
    in_range: bool
    band: Band | None
    line_of_sight: bool = False
    can_shoot: bool = False         # reported as "legal": a shot may be taken (ATT 6.A)
    margin: float = 0.0             # maximum range - distance, cm (negative = out of range)
    die: str | None = None
    score_needed: int | None = None
    saves: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    close_calls: list[str] = field(default_factory=list)

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
        if self.close_calls:
            d["close_calls"] = list(self.close_calls)
        return d


# --- arcs -----------------------------------------------------------------------------------------
def front_segments(board: Board, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each arc starts (AT4): the front corners, or the front centre twice."""
    fe = board.frames.front_edges[rows]
    if board.settings.at4_arc_origin == "front_centre":
        mid = fe.mean(axis=1)
        return mid, mid
    return fe[:, 0], fe[:, 1]


def arc_polygons(board: Board, rows: np.ndarray, reach_mm: float | np.ndarray) -> np.ndarray:
    """The shooters' arcs out to ``reach_mm`` ahead of the front: rays from the ends of the
    front turned ARC_HALF_DEG outward (ATT 6.A «30° per lato»)."""
    left, right = front_segments(board, rows)
    f = board.frames.front[rows]
    a = math.radians(ARC_HALF_DEG)
    c, s = math.cos(a), math.sin(a)
    dl = np.stack([f[:, 0] * c - f[:, 1] * s, f[:, 0] * s + f[:, 1] * c], axis=1)
    dr = np.stack([f[:, 0] * c + f[:, 1] * s, -f[:, 0] * s + f[:, 1] * c], axis=1)
    length = (np.broadcast_to(np.asarray(reach_mm, dtype=float), (len(rows),)) / c)[:, None]
    return shapely.polygons(np.stack([left, right, right + dr * length, left + dl * length],
                                     axis=1))


def arc_drawing(board: Board, shooter: str) -> dict[str, Any]:
    """The arc and band rings (table mm) for the overlay, from `band_table`."""
    su = board.units[shooter]
    max_cm = su.max_range_cm(board.settings)
    row = np.array([board.pos[shooter]])
    arc = arc_polygons(board, row, board.mm(max_cm) * 1.2)[0]
    rings, inner = [], None
    table = band_table(board, max_cm)
    for r in table:
        outer = shapely.intersection(arc, _stadiums(board, row, board.mm(r.upper))[0])
        rings.append(outer if inner is None else shapely.difference(outer, inner))
        inner = outer
    return {"arc": shapely.intersection(arc, _stadiums(board, row, board.mm(max_cm))[0]),
            "bands": [{"band": r.band.value, "upto": r.upper, "polygon": ring}
                      for r, ring in zip(table, rings)]}


def _fronts(board: Board, rows: np.ndarray) -> np.ndarray:
    """Where range is measured from (AT4, AT5): each shooter's front edge, or its centre."""
    left, right = front_segments(board, rows)
    if board.settings.at4_arc_origin == "front_centre":
        return shapely.points(left)
    return shapely.linestrings(np.stack([left, right], axis=1))


def _stadiums(board: Board, rows: np.ndarray, reach_mm: np.ndarray | float) -> np.ndarray:
    """Every point within ``reach_mm`` of each shooter's front (AT5)."""
    return shapely.buffer(_fronts(board, rows), reach_mm, quad_segs=STADIUM_QUAD_SEGS)


# --- targets --------------------------------------------------------------------------------------
def targets_of(board: Board, shooter: str) -> list[Target]:
    return targets_of_many(board, [shooter])[shooter]


def targets_of_many(board: Board, shooters: Iterable[str]) -> dict[str, list[Target]]:
    """Every present enemy in each shooter's arc (at any distance) or within its range, nearest
    first; each shooter judged once per state."""
    known: dict[str, list[Target]] = board.state.cached("attila.targets", dict)
    todo = [i for i in dict.fromkeys(shooters) if i not in known]
    if todo:
        known.update(_judge(board, todo))
    return {i: known[i] for i in shooters}


def _judge(board: Board, todo: list[str]) -> dict[str, list[Target]]:
    out: dict[str, list[Target]] = {i: [] for i in todo}
    s = board.settings
    shooters = [i for i in todo if board.units[i].missile is not None
                and not board.units[i].absent]
    if not shooters:
        return out
    rows = np.array([board.pos[i] for i in shooters])
    max_mm = np.array([board.mm(board.units[i].max_range_cm(s)) for i in shooters])
    cc = board.close_call
    arcs = arc_polygons(board, rows, board.state.reach_all_mm)
    # candidates: every base meeting an arc, or within range of a shooter (and the close call)
    ai, ab = board.state.index.meeting_many(arcs)
    ri, rb, _ = board.pairs_within(board.shapes[rows], max_mm + cc)
    pairs = sorted({(int(a), int(b)) for a, b in zip(ai.tolist(), ab.tolist())}
                   | {(int(a), int(b)) for a, b in zip(ri.tolist(), rb.tolist())})
    side = board.sides
    pairs = [(k, b) for k, b in pairs
             if side[b] != side[rows[k]] and board.present[b]]
    if not pairs:
        return out
    sk = np.array([k for k, _ in pairs])
    tb = np.array([b for _, b in pairs])
    tpoly = board.shapes[tb]
    part = shapely.intersection(arcs[sk], tpoly)
    measured_in = shapely.area(part) > _EPS
    in_arc, arc_close = _arc_verdicts(board, rows, sk, tb, tpoly, arcs, measured_in, shooters)
    dist_mm = _distances(board, rows[sk], tb, part, measured_in)
    margin_mm = max_mm[sk] - dist_mm
    in_range, range_close = decide(margin_mm + _EPS * 10, cc,
                                   [key("range", shooters[k], board.order[b]) for k, b in pairs],
                                   board.state.held)
    listed = np.nonzero(np.array(in_arc) | np.array(in_range))[0]
    targets: list[Target] = []
    questions: list[SightQuestion] = []
    asked: list[int] = []
    stadium = _stadiums(board, rows, max_mm)
    for n in listed.tolist():
        k, b = pairs[n]
        su = board.units[shooters[k]]
        max_cm = su.max_range_cm(s)
        d_cm = board.cm(float(dist_mm[n]))
        t = Target(board.order[b], d_cm, bool(in_arc[n]), bool(in_range[n]),
                   band_of(d_cm, band_table(s, max_cm), bool(in_range[n])),
                   margin=max_cm - d_cm)
        if arc_close[n]:
            t.close_calls.append("arc")
        if range_close[n]:
            t.close_calls.append("range")
        q = _sight_question(board, rows[k], b, part[n] if measured_in[n] else None,
                            stadium[k], t.reasons)
        if q is not None:
            questions.append(q)
            asked.append(len(targets))
        targets.append(t)
    seen = clear(board, questions)
    for j, ok in zip(asked, seen.tolist()):
        targets[j].line_of_sight = ok
        if not ok:
            targets[j].reasons.append("no clear line: woods, hills or other troops in the way "
                                      "(ATT 6.A, AT7)")
    for n, t in zip(listed.tolist(), targets):
        _finish(board, shooters[pairs[n][0]], t)
        out[shooters[pairs[n][0]]].append(t)
    for v in out.values():
        v.sort(key=lambda t: (round(t.distance, 6), t.id))
    return out


def _arc_verdicts(board: Board, rows: np.ndarray, sk: np.ndarray, tb: np.ndarray,
                  tpoly: np.ndarray, arcs: np.ndarray, measured_in: np.ndarray,
                  shooters: list[str]) -> tuple[list[bool], list[bool]]:
    """In the arc (ATT 6.A: any part of the target between the rays), decided: the margin is how
    far the target reaches into the arc (the arc shrunk by close_call_mm) or stays out of it."""
    cc = board.close_call
    margins = np.where(measured_in, cc, -shapely.distance(arcs[sk], tpoly) - _EPS)
    if cc > 0 and measured_in.any():
        inner = shapely.buffer(arcs, -cc, join_style="mitre")
        at = np.nonzero(measured_in)[0]
        margins[at] = np.maximum(cc - shapely.distance(inner[sk[at]], tpoly[at]), _EPS)
    keys = [key("arc", shooters[k], board.order[b]) for k, b in zip(sk.tolist(), tb.tolist())]
    return decide(margins, cc, keys, board.state.held)


def _distances(board: Board, rows: np.ndarray, tb: np.ndarray, part: np.ndarray,
               measured_in: np.ndarray) -> np.ndarray:
    """AT5: from the front edge to the part in arc (or to the target), or centre to centre."""
    how = board.settings.at5_range_measure
    f = board.frames
    if how == "centre_to_centre":
        return np.hypot(f.cx[rows] - f.cx[tb], f.cy[rows] - f.cy[tb])
    fronts = _fronts(board, rows)
    shape = np.where(measured_in, part, board.shapes[tb]) \
        if how == "front_edge_to_part_in_arc" else board.shapes[tb]
    return shapely.distance(fronts, shape)


def on_wood_edge(board: Board, base_id: str, wood_id: str,
                 toward: tuple[float, float] | None) -> bool:
    """AT8: the front edge (``toward`` None: shooting out) or the edge facing ``toward`` lies
    within at8_wood_edge_cm of the wood's boundary."""
    r = board.rect(base_id)
    if toward is None:
        edge = r.front_edge
    else:
        edge = min(r.edges.values(), key=lambda e: e.interpolate(0.5, normalized=True).distance(
            shapely.Point(toward)))
    boundary = board.areas[wood_id].exterior
    return float(edge.distance(boundary)) <= board.mm(board.settings.at8_wood_edge_cm) + _EPS


def _sight_question(board: Board, shooter_row: int, target_row: int, part: Polygon | None,
                    stadium: Polygon, reasons: list[str]) -> SightQuestion | None:
    """The lines of one shot and what they may cross; None (with the reason) when a wood alone
    refuses the shot (ATT 6.A, AT8)."""
    shooter, target = board.order[shooter_row], board.order[target_row]
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
    ignore = (shooter_row, target_row)
    if board.settings.at7_line_of_sight == "centre_to_centre":
        return SightQuestion(np.array([[sr.cx, sr.cy]]), np.array([[tr.cx, tr.cy]]), ignore,
                             frozenset(uncounted))
    left, right = front_segments(board, np.array([shooter_row]))
    goal = part if part is not None else board.shapes[target_row]
    reach = shapely.intersection(goal, stadium) if part is not None else None
    if reach is not None and shapely.area(reach) > _EPS:
        goal = reach
    n = ORIGINS_ON_FRONT if not np.array_equal(left, right) else 1
    t = np.linspace(0.0, 1.0, n)[:, None] if n > 1 else np.array([[0.0]])
    origins = left[0] + (right[0] - left[0]) * t
    return SightQuestion(origins, _outline_points(goal), ignore, frozenset(uncounted))


def _outline_points(shape: Any) -> np.ndarray:
    """Each vertex of the shape's outline (every polygon of it) and ENDS_PER_EDGE points along
    each edge; the points of any line or point in it."""
    points = []
    fractions = np.arange(1, ENDS_PER_EDGE + 1) / (ENDS_PER_EDGE + 1)
    for part in shapely.get_parts(shape).tolist():
        if part.geom_type != "Polygon":
            points.append(shapely.get_coordinates(part))
            continue
        ring = shapely.get_coordinates(part.exterior)
        a, b = ring[:-1], ring[1:]
        along = a[:, None, :] + (b - a)[:, None, :] * fractions[None, :, None]
        points.append(np.concatenate([a[:, None, :], along], axis=1).reshape(-1, 2))
    return np.concatenate(points) if points else np.zeros((0, 2))


def _finish(board: Board, shooter: str, t: Target) -> None:
    """The rest of a target's verdict: reasons, and the shot's numbers when it may be taken."""
    su, tu = board.units[shooter], board.units[t.id]
    s = board.settings
    measure = f" ({CLOSE_CALL})"
    if not t.in_arc:
        t.reasons.append("outside the 30° per side arc (ATT 6.A)"
                         + (measure if "arc" in t.close_calls else ""))
    if not t.in_range:
        t.reasons.append(f"beyond the {su.missile}' maximum range of {su.max_range_cm(s):g} cm "
                         "(ATT T)" + (measure if "range" in t.close_calls else ""))
    t.can_shoot = t.in_arc and t.in_range and t.line_of_sight
    if t.can_shoot and t.band is not None:
        t.die = su.shooting_die(s)
        t.score_needed = SCORE_NEEDED[t.band.value]
        saves = []
        if _cover(board, t.id, shooter):
            saves.append("cover")
        if tu.heavy(s):
            saves.append("heavy")
        if s.at9_saves == "one_save":
            saves = saves[:1]
        t.saves = saves


def _cover(board: Board, target: str, shooter: str) -> bool:
    """ATT 6.C «all'interno di boschi, dietro muri o difese»: in a wood or defended area, or a
    wall or defence within at8_wood_edge_cm of the target crossing the line to the shooter."""
    if board.area_holding(target, WOODS | DEFENDED_AREAS):
        return True
    t, s = board.rect(target), board.rect(shooter)
    line = shapely.linestrings([(t.cx, t.cy), s.front_centre])
    near = board.mm(board.settings.at8_wood_edge_cm)
    for f in board.features(DEFENCES):
        wall = board.lines.get(f.id)
        if wall is not None and wall.intersects(line) and \
                wall.distance(board.poly(target)) <= near + _EPS:
            return True
    return False
