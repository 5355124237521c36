"""What geometry decides about movement (ISD §1, §8, §9): allowances, the Manoeuvre Table's
proximity modifiers (ISD A25), hidden units (ISD §9 note 4), fall-back, rout and pursuit paths
(ISD A26, A38–A40).

Each answer is worked out for the bases asked in one batch (every base, for the whole table),
kept by `Conduct` (``board.conduct``), so a base's answer is the same asked alone or with all.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Polygon

from campo.engine.geometry.poses import Poses
from campo.engine.geometry.segments import successors
from campo.engine.geometry.sight import Keyed, Sightlines
from campo.engine.rulesets.italia.board import GRAZE_MM, Board
from campo.engine.rulesets.italia.charge_paths import turned
from campo.engine.rulesets.italia.charges import full_move_in, move_over
from campo.engine.rulesets.italia.tables_manoeuvre import NEAR_ARTILLERY_IN, NEAR_INFANTRY_IN
from campo.engine.rulesets.italia.tables_melee import (MELEE_FALL_BACK_IN, PURSUIT_DISTANCE_IN,
                                                       PURSUIT_NEW_CONTACT_ARC_HALF_DEG,
                                                       ROUT_PASSAGE_GAP_IN, may_pursue)
from campo.engine.rulesets.italia.tables_movement import TERRAIN_KIND_CLASS, TerrainClass

OVERLAP_MM2 = 1.0
"""A pursuit arc must overlap an enemy by more than this to reach it (more than a mere touch)."""

BLOCKED_OUTCOME = ("stays in place and becomes disordered (ISD §9 «rimane ferma, ma diventa "
                   "disordinata»)")
BLOCKED_DISORDERED = "stays in place; already disordered, it takes 1 loss (ISD §9)"


@dataclass(eq=False)
class Conduct:
    """The movement answers of one board's bases, each base's worked out once."""

    board: Board
    _done: dict[str, dict[str, Any]] = field(default_factory=dict)

    def of(self, name: str, ids: Sequence[str]) -> dict[str, Any]:
        """The ``name`` answer ("movement", "manoeuvre", "retreat", "pursuit", "hidden") of
        each base (the retreat and the pursuit are worked out together, `_moves`)."""
        done = self._done.setdefault(name, {})
        missing = [i for i in dict.fromkeys(ids) if i not in done]
        if missing:
            found = _moves(self.board, missing) if name in ("retreat", "pursuit") \
                else {name: _ANSWERS[name](self.board, missing)}
            for answer, got in found.items():
                self._done.setdefault(answer, {}).update(got)
        return {i: done[i] for i in ids}

    @cached_property
    def arms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per base, in index order: an enemy that counts (not a general, seen), its arm
        (units, guns and limbers; "" otherwise), a unit (ISD ManTab, A25)."""
        infos = [self.board.infos[n] for n in self.board.state.index.ids]
        arm = np.array([i.arm if i.kind in ("unit", "gun", "limber") else "" for i in infos],
                       dtype=object)
        return self.board.present, arm, np.array([i.kind == "unit" for i in infos], dtype=bool)


def manoeuvre_of(board: Board, base_id: str) -> dict[str, Any] | None:
    """The ManTab proximity facts of one base (a copy: callers may keep or change it)."""
    return copy.deepcopy(board.conduct.of("manoeuvre", [base_id])[base_id])


# --- movement and manoeuvre (ISD §8, ManTab, A25) ---------------------------------------------

def _movements(board: Board, ids: list[str]) -> dict[str, dict[str, Any] | None]:
    """Full move in the open and over the terrain the base stands on (ISD §8 table)."""
    table = board.terrain_table
    shapes = board.state.index.shapes[board.positions(ids)]
    rows, feats = table.meeting(shapes)
    under: list[list[int]] = [[] for _ in ids]
    for k, f in zip(rows.tolist(), feats.tolist()):
        under[k].append(f)
    out: dict[str, dict[str, Any] | None] = {}
    for i, found in zip(ids, under):
        if board.infos[i].kind == "limber":
            out[i] = None
            continue
        features = [table.features[f] for f in found]
        full = full_move_in(board, i)
        here = full_move_in(board, i, [t.kind for t in features]) if features else full
        out[i] = {"full_move": full, "here": here, "terrain": sorted(t.id for t in features)}
    return out


def _manoeuvres(board: Board, ids: list[str]) -> dict[str, dict[str, Any] | None]:
    """ISD ManTab proximity facts (ISD A25): enemy infantry within 6", artillery within 3",
    and, for infantry, enemy cavalry in sight within charge distance (nearest points). The
    enemies within 6" are one STRtree query, those within 3" among them one vectorised test;
    the cavalry's is asked from the cavalry, or, when the infantry asked are fewer (a base's
    detail), each tested against the enemy cavalry directly."""
    infos, names, index = board.infos, board.state.index.ids, board.state.index
    units = [i for i in ids if infos[i].is_unit]
    out: dict[str, dict[str, Any] | None] = {i: None for i in ids}
    if not units:
        return out
    at = board.positions(units)
    side = board.sides
    foe, arm, unit = board.conduct.arms
    reach = board.mm(NEAR_INFANTRY_IN) + 1e-6
    rows, others = index.query_many(index.shapes[at], reach)
    enemy = (side[others] != side[at[rows]]) & foe[others]
    close = enemy & (arm[others] == "artillery")       # (3" lies within 6")
    close[close] = shapely.dwithin(index.shapes[at[rows[close]]], index.shapes[others[close]],
                                   board.mm(NEAR_ARTILLERY_IN) + 1e-6)

    def near(keep: np.ndarray) -> list[list[str]]:
        found: list[list[str]] = [[] for _ in units]
        for k, o in zip(rows[keep].tolist(), others[keep].tolist()):
            found[k].append(names[o])
        return found

    inf = near(enemy & unit[others] & (arm[others] == "infantry"))
    art = near(close)
    # enemy cavalry within charge distance of infantry (queried from whichever are fewer)
    row_of = {u: k for k, u in enumerate(units) if infos[u].arm == "infantry"}
    riders = np.nonzero(unit & (arm == "cavalry") & foe)[0]
    looks: list[tuple[int, str]] = []
    if row_of and len(riders):
        reach = board.mm(board.settings.a25_cavalry_charge_distance_in) + 1e-6
        foot = board.positions(row_of)
        if len(foot) < len(riders):
            rows, others = np.nonzero(shapely.dwithin(index.shapes[foot][:, None],
                                                      index.shapes[riders][None, :], reach))
            pairs = zip(foot[rows].tolist(), riders[others].tolist())
        else:
            rows, others = index.query_many(index.shapes[riders], reach)
            pairs = zip(others.tolist(), riders[rows].tolist())
        rider = np.zeros(len(names), dtype=bool)
        rider[riders] = True
        looks = [(row_of[names[f]], names[c]) for f, c in pairs
                 if names[f] in row_of and rider[c] and side[f] != side[c]]
        looks.sort(key=lambda kc: (kc[0], board.pos[kc[1]]))
    cav: list[list[str]] = [[] for _ in units]
    for (k, c), seen in zip(looks, _cavalry_sees(board, [(c, units[k]) for k, c in looks])):
        if seen:
            cav[k].append(c)
    for i, a, b, c in zip(units, inf, art, cav):
        out[i] = {"near_infantry": a, "near_artillery": b, "cavalry_in_sight": c,
                  "proximity_modifier": -(bool(a) + bool(b)) - (2 if c else 0)}
    return out


def _cavalry_sees(board: Board, pairs: list[tuple[str, str]]) -> list[bool]:
    """Whether each cavalry sees its unit: any line from three points of its front (ends and
    middle) to the unit's corners and edge middles is clear (ISD §6 obstacles), every line of
    every pair in one query."""
    if not pairs:
        return []
    p, field = board.poses, board.sight_field
    c_at, u_at = board.positions([c for c, _ in pairs]), board.positions([u for _, u in pairs])
    fl, fr = p.corners[c_at, 0], p.corners[c_at, 1]
    starts = np.stack([fl, (fl + fr) / 2, fr], axis=1)                     # (n, 3, 2)
    c = p.corners[u_at]
    ends = np.stack([c, (c + successors(c, axis=1)) / 2], axis=2).reshape(-1, 8, 2)
    lines = np.empty((len(pairs), 3, 8, 2, 2))                 # every start to every end
    lines[..., 0, :], lines[..., 1, :] = starts[:, :, None], ends[:, None, :]
    owner = np.repeat(np.arange(len(pairs)), 24)
    # neither base of a pair blocks its lines, nor a crest inside either (strictly between)
    pair_at = np.stack([c_at, u_at], axis=1)
    body = board.body_at[pair_at]
    own = np.zeros((len(pairs), len(field.body_ids)), dtype=bool)
    k, side = np.nonzero(body >= 0)
    own[k, body[k, side]] = True
    question = Sightlines(lines.reshape(-1, 2, 2), never=[Keyed(owner, own)],
                          ends=pair_at[owner],
                          end_shapes=board.state.index.shapes)
    clear = field.trace(question).clear
    return (np.bincount(owner[clear], minlength=len(pairs)) > 0).tolist()


def _hidden(board: Board, ids: list[str]) -> dict[str, str | None]:
    """"wood" when wholly inside a wood (ISD §9 note 4); crest hiding depends on the enemy and is
    given per charge."""
    shapes = board.state.index.shapes[board.positions(ids)]
    woods = board.terrain_table.holding(shapes, 0.0, frozenset({"wood"}))
    return {i: "wood" if w else None for i, w in zip(ids, woods)}


# --- fall-back and rout (ISD §1, §9, A26, A38, A39) ---------------------------------------------

def _retreat_directions(board: Board, ids: list[str], fronts: np.ndarray) -> np.ndarray:
    """Where falling back and routing go (ISD A26, A38), unit vectors: straight back along the
    base's axis; with "toward_own_edge", toward its side's table edge (side A's is y = 0)."""
    if board.settings.a38_fall_back_direction != "toward_own_edge":
        return -fronts
    south = np.array([board.infos[i].side == "A" for i in ids], dtype=bool)
    return np.stack([np.zeros(len(ids)), np.where(south, -1.0, 1.0)], axis=1)


@dataclass(frozen=True, eq=False)
class _Moves:
    """Straight moves keeping facing (ISD §1, §9): from ``start`` by ``distance`` mm along
    ``direction`` (unit vectors), to ``end``."""

    start: Poses
    direction: np.ndarray
    distance: np.ndarray

    @cached_property
    def end(self) -> Poses:
        return self.start.moved(self.direction * self.distance[:, None])

    @cached_property
    def _along_axis(self) -> np.ndarray:
        """Moves straight ahead or back (the swept area is then a rectangle)."""
        f = self.start.front
        return np.abs(f[:, 0] * self.direction[:, 1] - f[:, 1] * self.direction[:, 0]) < 1e-12

    @cached_property
    def hulls(self) -> np.ndarray:
        """The area each move sweeps (the hull of start and end)."""
        return shapely.convex_hull(shapely.multipoints(
            np.concatenate([self.start.corners, self.end.corners], axis=1)))

    def inner(self, shrink: float, behind: np.ndarray) -> np.ndarray:
        """The swept areas shrunk by ``shrink`` (bases merely touching them do not count);
        where ``behind`` (per move), only what the move newly covers (less where the base
        stood). Moves along the base's axis are rectangles, worked out without GEOS."""
        p = self.start
        out = np.empty(len(p), dtype=object)
        axis = self._along_axis
        if axis.any():
            q = p.take(axis)
            d = self.distance[axis]
            back = behind[axis]
            ahead = np.sign(np.sum(self.direction[axis] * q.front, axis=1))
            length = np.where(back, d - shrink, q.depth + d - 2 * shrink)
            # the middle of the band along the axis, from the start's centre: the whole band
            # runs from the start's rear to the end's front; behind, from the start's rear on
            mid = ahead * np.where(back, (q.depth + d - shrink) / 2, d / 2)
            band = Poses(q.cx + q.front[:, 0] * mid, q.cy + q.front[:, 1] * mid, q.heading,
                         np.maximum(q.width - 2 * shrink, 0.1), np.maximum(length, 0.1))
            out[axis] = band.polygons
        other = np.nonzero(~axis)[0]
        if len(other):
            out[other] = shapely.buffer(self.hulls[other], -shrink, join_style="mitre")
            cut = other[behind[other]]
            out[cut] = shapely.difference(out[cut], p.polygons[cut])
        return out


def _meeting(board: Board, shapes: np.ndarray, ids: list[str]) -> list[tuple[list[str], list[str]]]:
    """(friends, enemies) meeting each shape, generals and the base itself left out, sorted."""
    names, infos = board.state.index.ids, board.infos
    out: list[tuple[list[str], list[str]]] = [([], []) for _ in ids]
    rows, others = board.state.index.meeting_many(shapes)
    for k, o in zip(rows.tolist(), others.tolist()):
        other = names[o]
        if other == ids[k] or infos[other].is_general:
            continue
        out[k][0 if infos[other].side == infos[ids[k]].side else 1].append(other)
    for friends, enemies in out:
        friends.sort()
        enemies.sort()
    return out


def impassable_to(board: Board, base_id: str, feature: Any) -> bool:
    """Ground the base may not enter (ISD §8 table «non può entrare», water and rivers), or
    a feature the scenario marks impassable."""
    if feature.impassable is not None:
        return bool(feature.impassable)
    return full_move_in(board, base_id, [feature.kind]) <= 0


def _moves(board: Board, ids: list[str]) -> dict[str, dict[str, dict[str, Any] | None]]:
    """The "retreat" and "pursuit" answers of each base, from one pass: every fall-back, rout
    and pursuit swept at once, and what those areas and the pursuits' 30° arcs meet found in
    one query.

    Fall back 3" and rout a full move, keeping facing (ISD A26, A38), with what each meets: a
    fall-back that enemies or impassable ground prevent stays put, disordered (ISD §9); a rout
    passes through friends and is captured by enemies leaving no 2" gap (ISD §1, A39). Pursue
    straight ahead 3" (infantry) / 6" (cavalry), less what the terrain on the way takes
    (`_pursuit_over_terrain`); enemies within 30° on that path may be hit
    (ISD §9, ISD A40): those in the way, and those the 30° arc (ISD A27) from the front, out to
    the pursuit distance, reaches into."""
    infos = board.infos
    movers = [i for i in ids if infos[i].is_unit or infos[i].is_gun]
    chasers = [i for i in ids if pursues(board, i)]
    n, m = len(movers), len(chasers)
    p = board.poses.take(board.positions(movers + movers + chasers))   # falls, routs, pursuits
    back, ahead = _retreat_directions(board, movers, p.front[:n]), \
        _pursuit_directions(board, chasers, p.front[2 * n:])
    rout_in = np.array([full_move_in(board, i) for i in movers], dtype=float)
    chase_in = np.array([PURSUIT_DISTANCE_IN["cavalry" if infos[i].arm == "cavalry"
                                             else "infantry"] for i in chasers], dtype=float)
    if m:
        chase_in = _pursuit_over_terrain(board, chasers, p.front_edges[2 * n:], ahead, chase_in)
    moves = _Moves(p, np.concatenate([back, back, ahead]),
                   np.concatenate([np.full(n, board.mm(MELEE_FALL_BACK_IN)), board.mm(rout_in),
                                   board.mm(chase_in)]))
    end = moves.end
    # what the fall-back newly covers: the band behind the base (the hull less where it stands)
    areas = moves.inner(board.contact_tol + GRAZE_MM, np.arange(len(p)) < n)
    half = PURSUIT_NEW_CONTACT_ARC_HALF_DEG
    length = (board.mm(chase_in) / math.cos(math.radians(half)))[:, None]
    fronts = p.front_edges[2 * n:]
    arcs = shapely.convex_hull(shapely.multipoints(np.stack(
        [fronts[:, 0], fronts[:, 1], fronts[:, 1] + turned(ahead, np.full(m, -half)) * length,
         fronts[:, 0] + turned(ahead, np.full(m, half)) * length], axis=1))) if m \
        else np.zeros(0, dtype=object)
    met = _meeting(board, np.concatenate([areas, arcs]), movers + movers + chasers + chasers)
    out: dict[str, dict[str, Any]] = {"retreat": dict.fromkeys(ids), "pursuit": dict.fromkeys(ids)}
    blocked_by = [enemies for _, enemies in met[:n]]
    table = board.terrain_table
    rows, feats = table.meeting(areas[:n])
    for k, f in zip(rows.tolist(), feats.tolist()):
        if impassable_to(board, movers[k], table.features[f]):
            blocked_by[k].append(table.features[f].id)
    w, d = board.state.scenario.table.width_mm, board.state.scenario.table.depth_mm
    ends = end.corners
    on_table = ((ends[..., 0] >= -1.0) & (ends[..., 0] <= w + 1.0) & (ends[..., 1] >= -1.0)
                & (ends[..., 1] <= d + 1.0)).all(axis=1)
    heading = np.degrees(np.arctan2(back[:, 1], back[:, 0])) % 360.0
    for k, i in enumerate(movers):
        friends, enemies = met[n + k]
        blocked = sorted(blocked_by[k])
        start = [round(float(p.cx[k]), 1), round(float(p.cy[k]), 1)]
        r = n + k   # the rout's row
        entry: dict[str, Any] = {
            "direction_deg": round(float(heading[k]), 1),
            "fall_back": [start, [round(float(end.cx[k]), 1), round(float(end.cy[k]), 1)]],
            "fall_back_blocked": bool(blocked),
            "fall_back_blocked_by": blocked,
            "rout": [list(start), [round(float(end.cx[r]), 1), round(float(end.cy[r]), 1)]],
            "rout_distance": float(rout_in[k]),
            "rout_passes_through": friends,
            "rout_meets": enemies,
            "rout_captured": bool(enemies) and rout_captured(
                board, i, enemies, moves.hulls[r], end.rect(r), bool(on_table[r])),
            "rout_leaves_table": not bool(on_table[r]),
            # ISD §9 «Arretramento fuori Tavolo»: pushed off the table, even partly (any corner
            # off it), the unit is removed and counts at half value for the Morale Test
            "fall_back_leaves_table": not blocked and not bool(on_table[k]),
        }
        if blocked:
            entry["fall_back_outcome"] = BLOCKED_DISORDERED if infos[i].disordered \
                else BLOCKED_OUTCOME
        out["retreat"][i] = entry
    in_way, touched = met[2 * n:2 * n + m], met[2 * n + m:]
    pairs = [(k, o) for k, (_, enemies) in enumerate(touched) for o in enemies
             if o not in in_way[k][1]]
    deep: set[tuple[int, str]] = set()
    if pairs:
        at = board.positions([o for _, o in pairs])
        area = shapely.area(shapely.intersection(arcs[[k for k, _ in pairs]],
                                                 board.state.index.shapes[at]))
        deep = {pair for pair, a in zip(pairs, area.tolist()) if a > OVERLAP_MM2}
    for k, i in enumerate(chasers):
        now = set(board.touching[i])
        found = {o for o in in_way[k][1]} | {o for kk, o in deep if kk == k}
        r = 2 * n + k
        out["pursuit"][i] = {"distance": float(chase_in[k]),
                             "path": [[round(float(p.cx[r]), 1), round(float(p.cy[r]), 1)],
                                      [round(float(end.cx[r]), 1), round(float(end.cy[r]), 1)]],
                             "may_contact": sorted(o for o in found if o not in now)}
    return out


def rout_captured(board: Board, base_id: str, enemies: list[str], corridor: Polygon,
                  end: Any, on_table: bool) -> bool:
    """Whether the enemies a rout meets catch the router (ISD A39): they do unless they leave a
    2" wide way, between themselves and (by the default reading) the table edge and ground it
    cannot enter, from where it stands to where it ends."""
    half_gap = board.mm(ROUT_PASSAGE_GAP_IN) / 2
    walls = list(shapely.buffer(board.state.index.shapes[board.positions(enemies)], half_gap,
                                quad_segs=16))
    if board.settings.a39_router_gap == "enemy_or_edge":
        walls += _router_walls(board, base_id, corridor, half_gap, on_table)
    way = shapely.difference(corridor, shapely.union_all(walls))
    start = board.rect(base_id).polygon
    inside_end = end.polygon.buffer(-1)
    return not any(g.intersects(inside_end) and g.intersects(start)
                   for g in getattr(way, "geoms", [way]) if not g.is_empty)


def _router_walls(board: Board, base_id: str, corridor: Polygon, half_gap: float,
                  on_table: bool) -> list[Polygon]:
    """What narrows a router's way besides the enemies (ISD A39, "enemy_or_edge"): the table
    edge (unless the rout leaves the table anyway: `rout_leaves_table` says so) and area terrain
    it may not enter (ISD §8 table: no move there), each grown by half the 2" gap."""
    table = board.state.scenario.table
    walls = []
    if on_table:
        inside = shapely.box(half_gap, half_gap, table.width_mm - half_gap,
                             table.depth_mm - half_gap)
        walls.append(shapely.difference(corridor, inside))
    terrain = board.terrain_table
    _, feats = terrain.meeting(np.array([corridor], dtype=object), half_gap)
    for f in feats.tolist():
        feature = terrain.features[f]
        if feature.polygon_mm is not None and impassable_to(board, base_id, feature):
            walls.append(terrain.shapes[f].buffer(half_gap))
    return walls


# --- pursuit (ISD §9, A40) -------------------------------------------------------------------

def _pursuit_directions(board: Board, ids: list[str], fronts: np.ndarray) -> np.ndarray:
    """Where a pursuit goes (ISD A40): straight ahead; with "toward_enemy", toward the centre
    of the enemy touching its front along the longest stretch (straight ahead if none)."""
    out = fronts.copy()
    if board.settings.a40_pursuit_direction != "toward_enemy":
        return out
    for k, i in enumerate(ids):
        foes = [(board.shared_lengths(i, o)["front"], o) for o in board.relations.foes[i]]
        foes = [f for f in foes if f[0] > 0]
        if foes:
            r, t = board.rect(i), board.rect(max(foes)[1])
            dx, dy = t.cx - r.cx, t.cy - r.cy
            norm = math.hypot(dx, dy)
            if norm > 0:
                out[k] = (dx / norm, dy / norm)
    return out


def _pursuit_over_terrain(board: Board, ids: list[str], fronts: np.ndarray, ahead: np.ndarray,
                          chase_in: np.ndarray) -> np.ndarray:
    """Each pursuit's length once the terrain its front crosses is applied (ISD §9: «Unità che
    ottengono l'inseguimento devono applicare le eventuali riduzioni causate dagli effetti del
    terreno se una parte del fronte ... attraversa l'area che penalizza»; «le inseguenti
    applicano le riduzioni»): a linear obstacle deducts its «Ostacoli lineari» value (ISD A20),
    area terrain and marsh cap the pursuit at their value (ISD A21), ground the unit may not
    enter stops it. The terrain is read along the full pursuit, as a charge's along its path."""
    length = board.mm(chase_in)[:, None, None]
    swept = shapely.buffer(shapely.convex_hull(shapely.multipoints(np.concatenate(
        [fronts, fronts + ahead[:, None, :] * length], axis=1))), board.contact_tol)
    # (an obstacle within the contact tolerance of the front touches it)
    out = chase_in.copy()
    clear = board.settings.model_copy(update={"weather": "clear"})   # the pursuit's length
    # is the same in any weather, so is what the terrain takes from it

    def move(base_id: str, kinds: list[str]) -> float:
        return move_over(board, base_id, kinds, clear)[0]

    for k, kinds in enumerate(board.terrain_table.kinds_meeting(swept)):
        classes = {kind: TERRAIN_KIND_CLASS.get(kind) for kind in kinds}
        linear = [kind for kind, c in classes.items() if c is TerrainClass.LINEAR]
        capping = [kind for kind, c in classes.items()
                   if c in (TerrainClass.AREA, TerrainClass.MARSH, TerrainClass.IMPASSABLE)]
        cut = move(ids[k], []) - move(ids[k], linear) if linear else 0.0
        cap = move(ids[k], capping) if capping else math.inf
        out[k] = max(0.0, min(out[k] - cut, cap))
    return out


def pursues(board: Board, base_id: str) -> bool:
    """A unit may pursue (ISD §9): artillery never does; only a unit with the enemy falling
    back on its own front tests («Il test per l'inseguimento deve essere effettuato solo da chi
    ha il nemico in arretramento sul proprio fronte»), so one whose enemies in contact all touch
    its flank or rear has no pursuit; and infantry never pursues cavalry, so infantry whose
    enemies on its front are all cavalry has none. A unit touching no enemy keeps its pursuit
    (the one it would make after winning a melee it is about to fight)."""
    info = board.infos[base_id]
    if not info.is_unit:
        return False
    fought = [o for o in board.relations.foes[base_id]
              if board.infos[o].is_unit or (board.infos[o].is_gun and not board.infos[o].limbered)]
    if not fought:
        return True
    on_front = [o for o in fought if board.edge_touched(base_id, o) == "front"]
    return any(may_pursue(info.arm, board.infos[o].arm) for o in on_front)


_ANSWERS: dict[str, Callable[[Board, list[str]], dict[str, Any]]] = {
    "movement": _movements, "manoeuvre": _manoeuvres, "hidden": _hidden,
}
