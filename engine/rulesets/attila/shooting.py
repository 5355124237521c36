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

from campo.engine.boundary import CLOSE_CALL, decide, key
from campo.engine.geometry.arcs import arc_to_range, arc_vertices_many, band_rings
from campo.engine.geometry.folds import highest, lowest
from campo.engine.results import Band
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.sight import Shots, clear, sight_areas
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
        if r.upper > max_cm:
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


@dataclass(frozen=True)
class Arcs:
    """The shooters' arcs (ATT 6.A «L'angolo di tiro è di 30° per lato», AT4): rays from the
    ends of the front (``left``, ``right``) turned ARC_HALF_DEG outward (``left_ray``,
    ``right_ray``), ahead of the front (``front``); (n, 2) arrays."""

    left: np.ndarray
    right: np.ndarray
    front: np.ndarray
    left_ray: np.ndarray
    right_ray: np.ndarray

    @staticmethod
    def of(board: Board, rows: np.ndarray) -> Arcs:
        left, right = front_segments(board, rows)
        f = board.frames.front[rows]
        a = math.radians(ARC_HALF_DEG)
        c, s = math.cos(a), math.sin(a)
        return Arcs(left, right, f,
                    np.stack([f[:, 0] * c - f[:, 1] * s, f[:, 0] * s + f[:, 1] * c], axis=1),
                    np.stack([f[:, 0] * c + f[:, 1] * s, -f[:, 0] * s + f[:, 1] * c], axis=1))

    def polygons(self, reach_mm: float | np.ndarray) -> np.ndarray:
        """The arcs out to ``reach_mm`` ahead of the front (`geometry.arcs.arc_vertices_many`)."""
        n = len(self.left)
        return shapely.polygons(arc_vertices_many(
            self.left, self.right, self.front, np.full(n, float(ARC_HALF_DEG)),
            np.broadcast_to(np.asarray(reach_mm, dtype=float), (n,))))

    def planes(self) -> tuple[np.ndarray, np.ndarray]:
        """The three half-planes n.p >= offset: ahead of the front, right of the left ray, left
        of the right ray; normals (n, 3, 2), offsets (n, 3)."""
        dl, dr = self.left_ray, self.right_ray
        normals = np.stack([self.front, np.stack([dl[:, 1], -dl[:, 0]], axis=1),
                            np.stack([-dr[:, 1], dr[:, 0]], axis=1)], axis=1)
        points = np.stack([self.left, self.left, self.right], axis=1)
        return normals, normals[..., 0] * points[..., 0] + normals[..., 1] * points[..., 1]


def arc_polygons(board: Board, rows: np.ndarray, reach_mm: float | np.ndarray) -> np.ndarray:
    """The shooters' arcs out to ``reach_mm`` ahead of the front (`Arcs`)."""
    return Arcs.of(board, rows).polygons(reach_mm)


def arc_drawing(board: Board, shooter: str) -> dict[str, Any]:
    """The arc and band rings (table mm) for the overlay, from `band_table`."""
    max_cm = board.units[shooter].max_range_cm(board.settings)
    row = np.array([board.pos[shooter]])
    arc = arc_polygons(board, row, board.mm(max_cm) * 1.2)[0]
    left, right = (tuple(end[0].tolist()) for end in front_segments(board, row))
    table = band_table(board, max_cm)
    rings = band_rings(arc, left, right, [board.mm(r.upper) for r in table])
    return {"arc": arc_to_range(arc, left, right, board.mm(max_cm)),
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
def targets_of_many(board: Board, shooters: Iterable[str]) -> dict[str, list[Target]]:
    """Every present enemy in each shooter's arc (at any distance) or within its range, nearest
    first; each shooter judged once per state."""
    known: dict[str, list[Target]] = board.state.cached("attila.targets", dict)
    todo = [i for i in dict.fromkeys(shooters) if i not in known]
    if todo:
        known.update(_judge(board, todo))
    return {i: known[i] for i in shooters}


@dataclass
class _Candidates:
    """(shooter, enemy) pairs as arrays: ``sk`` the shooter (index into the shooters asked),
    ``tb`` the target's board row, ``part`` the part of the target in the arc (GEOS, or the
    whole target when it lies wholly inside), ``measured_in`` it has one, ``margin`` how far the
    target reaches into the arc or stays out of it (mm, `_arc_margins`)."""

    sk: np.ndarray
    tb: np.ndarray
    part: np.ndarray
    measured_in: np.ndarray
    margin: np.ndarray

    def take(self, rows: np.ndarray) -> _Candidates:
        return _Candidates(self.sk[rows], self.tb[rows], self.part[rows],
                           self.measured_in[rows], self.margin[rows])


def _judge(board: Board, todo: list[str]) -> dict[str, list[Target]]:
    out: dict[str, list[Target]] = {i: [] for i in todo}
    s = board.settings
    shooters = [i for i in todo if board.units[i].missile is not None
                and not board.units[i].absent]
    if not shooters:
        return out
    rows = np.array([board.pos[i] for i in shooters])
    max_cm = np.array([board.units[i].max_range_cm(s) for i in shooters])
    max_mm = max_cm * board.mm(1.0)
    cc = board.close_call
    c = _candidates(board, rows, max_mm)
    if not len(c.sk):
        return out
    keys = [(shooters[k], board.order[b]) for k, b in zip(c.sk.tolist(), c.tb.tolist())]
    in_arc, arc_close = decide(c.margin, cc, [key("arc", *k) for k in keys], board.state.held)
    dist_mm = _distances(board, rows[c.sk], c.tb, c.part, c.measured_in)
    in_range, range_close = decide(max_mm[c.sk] - dist_mm + _EPS * 10, cc,
                                   [key("range", *k) for k in keys], board.state.held)
    listed = np.nonzero(np.array(in_arc) | np.array(in_range))[0]
    c = c.take(listed)
    bands = {m: band_table(s, m) for m in set(max_cm.tolist())}
    targets = []
    for n, k, b in zip(listed.tolist(), c.sk.tolist(), c.tb.tolist()):
        d_cm = board.cm(float(dist_mm[n]))
        t = Target(board.order[b], d_cm, in_arc[n], in_range[n],
                   band_of(d_cm, bands[max_cm[k]], in_range[n]), margin=float(max_cm[k]) - d_cm)
        t.close_calls = [name for name, close in (("arc", arc_close[n]),
                                                   ("range", range_close[n])) if close]
        targets.append(t)
    asked = _wood_refusals(board, rows[c.sk], c.tb, targets)
    if len(asked):
        shots = _shots(board, rows, max_mm, c.take(asked), dist_mm[listed][asked])
        for j, ok in zip(asked.tolist(), clear(board, shots).tolist()):
            targets[j].line_of_sight = ok
            if not ok:
                targets[j].reasons.append("no clear line: woods, hills or other troops in the "
                                          "way (ATT 6.A, AT7)")
    for k, t in zip(c.sk.tolist(), targets):
        _finish(board, shooters[k], t)
        out[shooters[k]].append(t)
    for v in out.values():
        v.sort(key=lambda t: (round(t.distance, 6), t.id))
    return out


def _candidates(board: Board, rows: np.ndarray, max_mm: np.ndarray) -> _Candidates:
    """Every present enemy of each shooter that may be in its arc (at any distance) or within
    its maximum range (and the close call). The arc is three half-planes (ahead of the front,
    inside each ray): a target with every corner inside all three lies wholly in it, one with
    every corner outside one of them wholly out (numpy, every pair at once); GEOS measures the
    others' parts."""
    f = board.frames
    enemy = board.present[None, :] & (board.sides[None, :] != board.sides[rows][:, None])
    sk, tb = np.nonzero(enemy)
    cc = board.close_call
    arcs = Arcs.of(board, rows)
    normals, offsets = arcs.planes()
    corners, n = f.corners[tb][:, :, None, :], normals[sk][:, None, :, :]     # (p, 4, 3, 2)
    v = corners[..., 0] * n[..., 0] + corners[..., 1] * n[..., 1] - offsets[sk][:, None, :]
    depth = lowest(v)                                       # per corner, inside all three
    inside = lowest(depth) > _EPS
    apart = highest(lowest(-np.swapaxes(v, 1, 2)))          # the widest half-plane's gap
    radius = np.hypot(f.width, f.depth) / 2
    near = np.hypot(f.cx[tb] - f.cx[rows[sk]], f.cy[tb] - f.cy[rows[sk]]) - radius[tb] - \
        radius[rows[sk]] <= max_mm[sk] + cc
    keep = (apart <= _EPS) | near
    sk, tb, depth, inside, apart = sk[keep], tb[keep], depth[keep], inside[keep], apart[keep]
    tpoly = board.shapes[tb]
    part = np.where(inside, tpoly, None)
    unsure = np.nonzero(~inside & (apart <= _EPS))[0]
    arcs = arcs.polygons(board.state.reach_all_mm)
    if len(unsure):
        part[unsure] = shapely.intersection(arcs[sk[unsure]], tpoly[unsure])
    measured_in = inside.copy()
    measured_in[unsure] = shapely.area(part[unsure]) > _EPS
    part = np.where(measured_in, part, None)
    margin = _arc_margins(board, arcs, sk, tpoly, measured_in, highest(depth), apart)
    return _Candidates(sk, tb, part, measured_in, margin)


def _arc_margins(board: Board, arcs: np.ndarray, sk: np.ndarray, tpoly: np.ndarray,
                 measured_in: np.ndarray, deepest: np.ndarray, apart: np.ndarray) -> np.ndarray:
    """How far each target reaches into its shooter's arc (positive) or stays out of it
    (negative), in mm, for `boundary.decide`: certain from the corners when they are at least
    close_call_mm inside or out, else measured by GEOS against the arc shrunk by close_call_mm
    (in) or the arc itself (out)."""
    cc = board.close_call
    margin = np.where(measured_in, np.maximum(deepest, _EPS), -np.maximum(apart, 0.0) - _EPS)
    ask_in = np.nonzero(measured_in & (deepest < cc))[0]
    ask_out = np.nonzero(~measured_in & (apart < cc))[0]
    if len(ask_out):
        margin[ask_out] = -shapely.distance(arcs[sk[ask_out]], tpoly[ask_out]) - _EPS
    if cc > 0 and len(ask_in):
        used = np.unique(sk[ask_in])
        inner = np.empty(len(arcs), dtype=object)
        inner[used] = shapely.buffer(arcs[used], -cc, join_style="mitre")
        margin[ask_in] = np.maximum(cc - shapely.distance(inner[sk[ask_in]], tpoly[ask_in]),
                                    _EPS)
    return margin


def _distances(board: Board, rows: np.ndarray, tb: np.ndarray, part: np.ndarray,
               measured_in: np.ndarray) -> np.ndarray:
    """AT5: from the front edge to the part in arc (or to the target), or centre to centre."""
    how = board.settings.at5_range_measure
    f = board.frames
    if how == "centre_to_centre":
        return np.hypot(f.cx[rows] - f.cx[tb], f.cy[rows] - f.cy[tb])
    shape = np.where(measured_in, part, board.shapes[tb]) \
        if how == "front_edge_to_part_in_arc" else board.shapes[tb]
    return shapely.distance(_fronts(board, rows), shape)


def on_wood_edge(board: Board, base_id: str, wood_id: str,
                 toward: tuple[float, float] | None) -> bool:
    """AT8: the front edge (``toward`` None: shooting out) or the edge facing ``toward`` (the
    one whose middle is nearest it) lies within at8_wood_edge_cm of the wood's boundary, or
    reaches out of the wood: a base straddling the boundary stands «sul bordo di un bosco»
    (ATT 6.A) however far its edge sticks out."""
    r = board.rect(base_id)
    names = ("front", "right", "rear", "left")
    if toward is None:
        edge = r.edge("front")
    else:
        mids = [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in map(r.edge, names)]
        edge = r.edge(names[min(range(4), key=lambda k: math.dist(mids[k], toward))])
    wood = board.areas[wood_id]
    line = shapely.linestrings(edge)
    if not shapely.covers(wood, line):
        return True
    return float(shapely.distance(line, wood.exterior)) <= \
        board.mm(board.settings.at8_wood_edge_cm) + _EPS


def _wood_refusals(board: Board, shooter_rows: np.ndarray, target_rows: np.ndarray,
                   targets: list[Target]) -> np.ndarray:
    """The targets whose sight is to be traced: the others are refused by a wood alone
    (ATT 6.A «Solo le basette che si trovano sul bordo di un bosco possono tirare al di fuori di
    esso, e ... possono essere colpite», AT8), with the reason."""
    asked = []
    for j, (sr, tr) in enumerate(zip(shooter_rows.tolist(), target_rows.tolist())):
        shooter, target = board.order[sr], board.order[tr]
        own = board.wood_of(shooter)
        theirs = board.wood_of(target)
        if own is not None and not on_wood_edge(board, shooter, own, None):
            targets[j].reasons.append(f"inside wood {own!r} but not on its edge: cannot shoot "
                                      "out (ATT 6.A, AT8)")
        elif theirs is not None and theirs != own and not on_wood_edge(
                board, target, theirs, board.rect(shooter).front_centre):
            targets[j].reasons.append(f"target inside wood {theirs!r} but not on its edge: "
                                      "cannot be shot (ATT 6.A, AT8)")
        else:
            asked.append(j)
    return np.array(asked, dtype=int)


def _shots(board: Board, rows: np.ndarray, max_mm: np.ndarray, c: _Candidates,
           dist_mm: np.ndarray) -> Shots:
    """The sight questions (AT7): lines from ORIGINS_ON_FRONT points of the shooter's front to
    the outline of the part of the target in the arc and in range (else in the arc, else the
    whole target); the woods and hills the shooter or target stands in are not counted."""
    s = board.settings
    sr = rows[c.sk]
    f = board.frames
    areas = sight_areas(board)
    holding = board.holding[:, [board.area_index[a] for a in areas]]
    uncounted = holding[sr] | holding[c.tb]
    ignore = np.stack([sr, c.tb], axis=1)
    if s.at7_line_of_sight == "centre_to_centre":
        return Shots(np.stack([f.cx[sr], f.cy[sr]], axis=1)[:, None, :],
                     np.stack([f.cx[c.tb], f.cy[c.tb]], axis=1), np.arange(len(c.sk)),
                     np.ones(len(c.sk), dtype=bool), ignore, uncounted)
    left, right = front_segments(board, sr)
    n = ORIGINS_ON_FRONT if s.at4_arc_origin != "front_centre" else 1
    t = np.linspace(0.0, 1.0, n) if n > 1 else np.zeros(1)
    origins = left[:, None, :] + (right - left)[:, None, :] * t[None, :, None]
    goals = np.where(c.measured_in, c.part, board.shapes[c.tb])
    # the part in the arc and in range: where the part reaches beyond the range but not wholly
    ahead = np.nonzero(c.measured_in & (dist_mm <= max_mm[c.sk]) &
                       (_farthest(board, sr, c.tb) > max_mm[c.sk]))[0]
    if len(ahead):
        reach = shapely.intersection(goals[ahead], _stadiums(board, sr[ahead],
                                                             max_mm[c.sk[ahead]]))
        big = shapely.area(reach) > _EPS
        goals[ahead[big]] = reach[big]
    ends, owner, corner = _outline_points(goals)
    return Shots(origins, ends, owner, corner, ignore, uncounted)


def _farthest(board: Board, rows: np.ndarray, tb: np.ndarray) -> np.ndarray:
    """How far the target's farthest corner is from the shooter's front (AT5's measure; the
    part in the arc lies within)."""
    left, right = front_segments(board, rows)
    corners = board.frames.corners[tb]                                    # (p, 4, 2)
    seg = (right - left)[:, None, :]
    rel = corners - left[:, None, :]
    span = (seg ** 2).sum(axis=2)
    t = np.clip((rel * seg).sum(axis=2) / np.where(span > 0, span, 1.0), 0.0, 1.0)
    gap = rel - seg * t[..., None]
    return highest(np.hypot(gap[..., 0], gap[..., 1]))


def _outline_points(shapes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(points, shape of each, is a vertex): each vertex of every polygon of each shape and
    ENDS_PER_EDGE points along each of its edges; the points of any line or point in it."""
    parts, owner = shapely.get_parts(shapes, return_index=True)
    polygon = shapely.get_type_id(parts) == 3
    ring, ring_of = shapely.get_coordinates(shapely.get_exterior_ring(parts[polygon]),
                                            return_index=True)
    last = np.concatenate([ring_of[1:] != ring_of[:-1], [True]])   # each ring's closing point
    a, b = ring[:-1][~last[:-1]], ring[1:][~last[:-1]]
    edge_owner = owner[polygon][ring_of[:-1][~last[:-1]]]
    fractions = np.arange(ENDS_PER_EDGE + 1) / (ENDS_PER_EDGE + 1)
    points = (a[:, None, :] + (b - a)[:, None, :] * fractions[None, :, None]).reshape(-1, 2)
    point_owner = np.repeat(edge_owner, len(fractions))
    corner = np.tile(fractions == 0.0, len(a))
    others, other_of = shapely.get_coordinates(parts[~polygon], return_index=True)
    points = np.concatenate([points, others])
    point_owner = np.concatenate([point_owner, owner[~polygon][other_of]])
    corner = np.concatenate([corner, np.ones(len(others), dtype=bool)])
    order = np.argsort(point_owner, kind="stable")
    return points[order], point_owner[order], corner[order]


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
