"""Every shooter's targets at once (the fast path of `fire.targets_of`).

Candidate pairs, arcs, parts in arc, ranges, sight-line ends and arc margins are measured by
compiled code (`engine.geometry.arc_kernel`), the pairs it cannot call with certainty by
vectorised shapely calls (`geos_measure`); sight by compiled code (`sight_batch`); the verdicts
are columns (`target_table`). The answers are exactly those of
`fire.targets_of` (tests/test_engine_properties.py, tests/test_engine_snapshots.py).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
import shapely

from campo.engine.geometry.arcs import arc_vertices_many, rotate_many
from campo.engine.rulesets.italia.board import GRAZE_MM, MM_PER_IN, REPORT_MARGIN_IN, Board
from campo.engine.rulesets.italia.sight_batch import sight_many
from campo.engine.results import Band
from campo.engine.rulesets.italia.fire import (
    ARTILLERY_BANDS,
    EPS_IN,
    MUSKETRY_BANDS,
    arc_params,
    cover_of,
    cover_terrain_of,
    fire_arc,
    line_of_sight,
    part_in_arc,
    priority_flags,
    shot_modifiers,
    targets_of,
)
from campo.engine.rulesets.italia.fire_columns import arc_clear_many, bands_many, fire_reasons_many
from campo.engine.rulesets.italia.target_table import TargetTable, group_spans


def all_targets(board: Board) -> TargetTable:
    """Every base's targets (none for bases that cannot fire), as one table."""
    s = board.settings
    shooters = sorted(i for i, info in board.infos.items() if info.can_fire and not info.stale)
    if (s.a5_in_arc_test != "any_part" or s.a6_range_measure != "front_edge_to_part_in_arc"
            or s.a14_line_of_sight != "any_line" or not shooters):
        # readings the batch path does not vectorise: the plain path
        return TargetTable.from_lists(sorted(board.infos),
                                      {i: targets_of(board, i) for i in shooters})
    index = board.state.index
    ids = index.ids
    shapes = ArcShapes(board, shooters)
    ranges = np.array([board.mm(board.infos[i].fire_range_in) + 1e-6 for i in shooters])
    pair_s, pair_b = find_pairs(board, shooters, shapes, ranges)
    if not len(pair_s):
        return TargetTable.from_lists(sorted(board.infos), {})
    pairs = measure_all_pairs(board, shooters, shapes, pair_s, pair_b)
    max_in = np.array([board.infos[i].fire_range_in for i in shooters])[pair_s]
    listed = np.nonzero(pairs.in_arc | (pairs.dist_in <= max_in + EPS_IN))[0]
    from campo.engine.geometry.arc_kernel import arc_margins_of_rings, sight_ends_of_rings

    xy, starts, centres = pairs.coordinates(listed)
    sight = sight_many(board, shooters, pair_s[listed], pair_b[listed],
                       sight_ends_of_rings(xy, starts, centres, 2 * GRAZE_MM))
    if sight is None:   # some base too small to be a rectangle once grazes are allowed for
        sight = np.array([line_of_sight(board, shooters[si], ids[bi], pairs.part(k))
                          for si, bi, k in zip(pair_s[listed].tolist(), pair_b[listed].tolist(),
                                               listed.tolist())], dtype=bool)
    # the shape measured for the arc margin is the part in arc, or the whole base (its part)
    par = arc_params_many(board, shooters)[pair_s[listed]]
    margins = arc_margins_of_rings(xy, starts, par) / board.mm(1.0)
    shooter_at = board.positions(shooters)
    flanks = flank_fire_many(board, shooter_at[pair_s[listed]], pair_b[listed])
    in_arc = pairs.in_arc[listed]
    dist_in = pairs.dist_in[listed]
    parts = np.full(len(listed), None, dtype=object)   # needed for the clear-arc test only
    gun = np.array([board.infos[i].is_gun for i in shooters], dtype=bool)[pair_s[listed]]
    for r in np.nonzero(in_arc & ~gun & (dist_in <= max_in[listed] + EPS_IN))[0].tolist():
        parts[r] = pairs.part(int(listed[r]))
    return verdict_table(board, shooters, pair_s[listed], pair_b[listed], in_arc, dist_in, parts,
                         sight, margins, flanks)


class ArcShapes:
    """The shooters' arcs (cut 3" beyond range, and whole) and fronts as shapely geometries,
    built only when GEOS is asked something (the kernels need only their vertices)."""

    def __init__(self, board: Board, shooters: list[str]) -> None:
        self.board, self.shooters = board, shooters

    @cached_property
    def arcs(self) -> np.ndarray:
        return fire_arcs(self.board, self.shooters)

    @cached_property
    def wholes(self) -> np.ndarray:
        return fire_arcs(self.board, self.shooters,
                         self.board.inches(self.board.state.reach_all_mm))

    @cached_property
    def fronts(self) -> np.ndarray:
        return shapely.linestrings(_front_ends(self.board, self.shooters))


def find_pairs(board: Board, shooters: list[str], shapes: ArcShapes,
               ranges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(shooter position, base index position) of every present enemy, generals excepted
    (`fire.is_candidate`), meeting the shooter's whole arc or within ``ranges`` mm of its
    front, sorted: by compiled code (GEOS for the pairs too close to call) where the arcs are
    quads, else by STRtree queries."""
    index = board.state.index
    ids = index.ids
    sides = np.array([board.infos[i].side for i in ids])
    barred = np.array([board.infos[i].is_general or board.infos[i].stale for i in ids],
                      dtype=bool)
    shooter_pos = board.positions(shooters)
    whole_rings = arc_rings(board, shooters, board.inches(board.state.reach_all_mm))
    if whole_rings is not None:
        from campo.engine.geometry.pair_kernel import candidate_pairs

        eligible = (sides[None, :] != sides[shooter_pos][:, None]) & ~barred[None, :]
        pair_s, pair_b, unsure = candidate_pairs(whole_rings, _front_ends(board, shooters),
                                                 ranges, board.rect_table.corners, eligible)
        ask = np.nonzero(unsure)[0]
        if len(ask):
            s_at, b_at = pair_s[ask], pair_b[ask]
            kept = (shapely.intersects(shapes.wholes[s_at], index.shapes[b_at])
                    | shapely.dwithin(shapes.fronts[s_at], index.shapes[b_at], ranges[s_at]))
            mask = np.ones(len(pair_s), dtype=bool)
            mask[ask[~kept]] = False
            pair_s, pair_b = pair_s[mask], pair_b[mask]
        return pair_s, pair_b
    a_s, a_b = index.meeting_many(shapes.wholes)
    f_s, f_b = index.query_many(shapes.fronts, ranges)
    nb = len(ids)
    codes = np.unique(np.concatenate([a_s * nb + a_b, f_s * nb + f_b]))   # sorted (si, bi)
    pair_s, pair_b = codes // nb, codes % nb
    enemy = (sides[pair_b] != sides[shooter_pos[pair_s]]) & ~barred[pair_b]
    return pair_s[enemy], pair_b[enemy]


class PairParts:
    """Every candidate pair's measures: in arc, distance (inches) and the part measured to,
    the part as the kernel's vertices or, for pairs left to GEOS, a shapely geometry."""

    def __init__(self, in_arc: np.ndarray, dist_in: np.ndarray, geos: np.ndarray,
                 by_geos: np.ndarray, count: np.ndarray, verts: np.ndarray,
                 centre: np.ndarray) -> None:
        self.in_arc, self.dist_in = in_arc, dist_in
        self.geos = geos            # object array: the GEOS part, or None (the kernel's)
        self.by_geos = by_geos      # whether each pair's part is GEOS's (else the kernel's)
        self.count, self.verts, self.centre = count, verts, centre

    def part(self, k: int) -> Any:
        """Pair k's part as a shapely geometry."""
        found = self.geos[k]
        return found if found is not None else shapely.polygons(self.verts[k, :self.count[k]])

    def coordinates(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The parts of pairs ``rows`` as ``shapely.get_coordinates`` lists them (coordinates,
        row i's at ``starts[i]:starts[i + 1]``) and their centroids (one per row)."""
        from campo.engine.geometry.arc_kernel import ring_coordinates

        by_geos = self.by_geos[rows]
        counts = np.where(by_geos, 0, self.count[rows] + 1)
        centres = self.centre[rows].copy()
        g_rows = np.nonzero(by_geos)[0]
        if len(g_rows):
            g_parts = self.geos[rows[g_rows]]
            g_xy, g_owner = shapely.get_coordinates(g_parts, return_index=True)
            counts[g_rows] = np.bincount(g_owner, minlength=len(g_rows))
            centres[g_rows] = shapely.get_coordinates(shapely.centroid(g_parts))
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        xy = np.empty((int(offsets[-1]), 2))
        mine = np.nonzero(~by_geos)[0]
        ring_coordinates(rows[mine].astype(np.int64), self.count, self.verts, offsets[mine], xy)
        if len(g_rows):
            first = np.searchsorted(g_owner, g_owner)
            xy[offsets[g_rows][g_owner] + np.arange(len(g_owner)) - first] = g_xy
        return xy, offsets, centres


def measure_all_pairs(board: Board, shooters: list[str], shapes: ArcShapes, pair_s: np.ndarray,
                      pair_b: np.ndarray) -> PairParts:
    """In arc, distance and part measured to of every pair (`fire.measure_target` in the
    near arc, else in the whole arc): compiled (`engine.geometry.arc_kernel`) where the arcs
    are quads, GEOS for the pairs the kernel leaves (too close to a boundary to call)."""
    n = len(pair_s)
    near_rings = arc_rings(board, shooters)
    whole_rings = arc_rings(board, shooters, board.inches(board.state.reach_all_mm))
    geos = np.full(n, None, dtype=object)
    if near_rings is None or whole_rings is None:
        todo = np.arange(n)
        in_arc, dist_in = np.zeros(n, dtype=bool), np.zeros(n)
        count, verts, centre = np.zeros(n, dtype=np.int64), np.zeros((n, 0, 2)), np.zeros((n, 2))
    else:
        from campo.engine.geometry.arc_kernel import OK
        from campo.engine.geometry.pair_kernel import measure_pairs

        status, in_arc, dist_mm, count, verts, centre = measure_pairs(
            pair_s.astype(np.int64), pair_b.astype(np.int64), near_rings, whole_rings,
            _front_ends(board, shooters),
            board.rect_table.corners, board.mm(1.0), _thresholds(board, shooters))
        dist_in = dist_mm / board.mm(1.0)
        todo = np.nonzero(status != OK)[0]
    if len(todo):
        g_in, g_parts, g_dist = geos_measure(board, shooters, shapes, pair_s[todo],
                                             pair_b[todo])
        in_arc[todo], dist_in[todo] = g_in, g_dist
        geos[todo] = g_parts
    by_geos = np.zeros(n, dtype=bool)
    by_geos[todo] = True
    return PairParts(in_arc, dist_in, geos, by_geos, count, verts, centre)


def geos_measure(board: Board, shooters: list[str], shapes: ArcShapes, pair_s: np.ndarray,
                 pair_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(in arc, part measured to, distance in inches) of pairs by vectorised GEOS calls."""
    index = board.state.index
    arcs, wholes, fronts = shapes.arcs, shapes.wholes, shapes.fronts
    arc_arr = arcs[pair_s]
    front_arr = fronts[pair_s]
    poly_arr = index.shapes[pair_b]
    in_near = shapely.dwithin(arc_arr, poly_arr, 1e-6)
    # wholly beyond the near arc (range + 3"): measured in the whole arc (`fire.targets_of`)
    beyond = np.nonzero(~in_near)[0]
    in_arc = in_near.copy()
    in_arc[beyond] = shapely.dwithin(wholes[pair_s[beyond]], poly_arr[beyond], 1e-6)
    clip_arcs = arc_arr.copy()
    clip_arcs[beyond] = wholes[pair_s[beyond]]
    parts = poly_arr.copy()
    # a target wholly inside the whole arc is its own part in arc: no clipping needed
    near_reach = np.array([board.mm(board.infos[i].fire_range_in + REPORT_MARGIN_IN)
                           for i in shooters])[pair_s]
    near_reach[beyond] = np.inf
    whole_in = wholly_in_arcs(board, shooters, pair_s, pair_b, near_reach)
    inside = np.nonzero(in_arc & ~whole_in)[0]
    parts[inside] = shapely.intersection(clip_arcs[inside], poly_arr[inside])
    for k in inside[shapely.is_empty(parts[inside])].tolist():
        parts[k] = part_in_arc(clip_arcs[k], poly_arr[k])   # touching in exact arithmetic only
    dist_in = shapely.distance(front_arr, parts) / board.mm(1.0)
    return in_arc, parts, dist_in


def _front_ends(board: Board, shooters: list[str]) -> np.ndarray:
    """Each shooter's firing front as (left, right): (n, 2, 2)."""
    lefts, rights, _ = front_arrays(board, shooters)
    return np.stack([lefts, rights], axis=1)


def front_arrays(board: Board, shooters: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each shooter's `Board.front` as arrays (n, 2): left ends, right ends, facings (cached
    per list of shooters)."""
    cache = board.__dict__.setdefault("_front_arrays", {})
    key = tuple(shooters)
    if key not in cache:
        fronts = [board.front(i) for i in shooters]
        cache[key] = tuple(np.array([getattr(f, end) for f in fronts], dtype=float).reshape(-1, 2)
                           for end in ("left", "right", "facing"))
    return cache[key]


def arc_params_many(board: Board, shooters: list[str]) -> np.ndarray:
    """`fire.arc_params` of the shooters, from `front_arrays` with numpy (the same operations:
    `rotate_many` is `rect.rotate`)."""
    if board.settings.a4_arc_origin == "front_centre":
        return arc_params(board, shooters)
    lefts, rights, facings = front_arrays(board, shooters)
    half = np.array([board.infos[i].arc_half_deg for i in shooters], dtype=float)
    dl, dr = rotate_many(facings, half), rotate_many(facings, -half)
    return np.column_stack([lefts, rights, dl[:, 1], -dl[:, 0], -dr[:, 1], dr[:, 0], facings])


def _thresholds(board: Board, shooters: list[str]) -> np.ndarray:
    """Per shooter, the distances (inches) a verdict turns on: its range and its band edges
    (either reading of `band_of`), padded with nan."""
    edges = {}      # per kind of weapon: its band edges, padded with nan
    for gun, bands in ((True, ARTILLERY_BANDS), (False, MUSKETRY_BANDS)):
        edges[gun] = [u + e for u, _ in bands for e in (EPS_IN, -EPS_IN)]
    width = max(len(e) for e in edges.values())
    gun = np.array([board.infos[i].is_gun for i in shooters], dtype=bool)
    out = np.empty((len(shooters), 1 + width))
    out[:, 0] = np.array([board.infos[i].fire_range_in for i in shooters], dtype=float) + EPS_IN
    for kind, row in edges.items():
        out[gun == kind, 1:] = row + [np.nan] * (width - len(row))
    return out


def verdict_table(board: Board, shooters: list[str], row_shooter: np.ndarray,
                  row_target: np.ndarray, in_arc: np.ndarray, dist: np.ndarray, parts: np.ndarray,
                  sight: np.ndarray, arc_margin: np.ndarray, flank: np.ndarray) -> TargetTable:
    """`fire.verdict` of every row (row k: ``shooters[row_shooter[k]]`` at the base at index
    position ``row_target[k]``), as columns, rows grouped by shooter and sorted by target id;
    then `fire.mark_priority`."""
    names = board.state.index.ids
    name_arr = np.array(names, dtype=object)
    rank = np.empty(len(names), dtype=np.int64)          # each base's place in id order
    rank[np.argsort(np.array(names, dtype=str), kind="stable")] = np.arange(len(names))
    order = np.lexsort((rank[row_target], row_shooter))
    row_shooter, row_target = row_shooter[order], row_target[order]
    ids = name_arr[row_target].tolist()
    in_arc, dist, parts, sight = in_arc[order], dist[order], parts[order], sight[order]
    arc_margin, flank = arc_margin[order], flank[order]
    max_in = np.array([board.infos[i].fire_range_in for i in shooters])[row_shooter]
    gun = np.array([board.infos[i].is_gun for i in shooters], dtype=bool)[row_shooter]
    in_range = dist <= max_in + EPS_IN
    n = len(ids)
    shooter_names = np.array(shooters, dtype=object)[row_shooter].tolist()
    margin = max_in - dist
    dist_l, in_range_l, margin_l = dist.tolist(), in_range.tolist(), margin.tolist()
    in_arc_l, sight_l = in_arc.tolist(), sight.tolist()
    band: list[Band | None] = bands_many(board, np.where(in_range, dist, np.inf), gun)
    cover: list[str | None] = [None] * n
    cover_terrain: list[str | None] = [None] * n
    covered = np.array([any(cover_terrain_of(board, i)) for i in names], dtype=bool)
    for k in np.nonzero(covered[row_target])[0].tolist():
        cover[k], cover_terrain[k] = cover_of(board, shooter_names[k], ids[k])
    clear = np.ones(n, dtype=bool)
    musketry = np.nonzero(~gun & in_arc & in_range)[0]
    clear[musketry] = arc_clear_many(board, [shooter_names[k] for k in musketry.tolist()],
                                     [ids[k] for k in musketry.tolist()], parts[musketry])
    reasons = fire_reasons_many(in_arc, in_range, margin, sight, clear)
    legal_rows = in_arc & in_range & sight & clear       # no reasons against the shot
    legal = legal_rows.tolist()
    table = TargetTable(group_spans(shooters, row_shooter), ids, dist_l, in_arc_l, in_range_l,
                        band, sight_l, margin_l, arc_margin.tolist(), legal, [False] * n,
                        flank.tolist(), cover, cover_terrain, clear.tolist(), reasons, [None] * n,
                        number_arrays=(dist, margin, arc_margin))
    as_dict: dict[Any, dict[str, Any]] = {}    # Modifier -> its to_dict (values are plain)
    for k in np.nonzero(legal_rows)[0].tolist():
        t = table._target(k)
        table.modifiers[k] = [dict(as_dict[m]) if m in as_dict
                              else dict(as_dict.setdefault(m, m.to_dict()))
                              for m in shot_modifiers(board, shooter_names[k], ids[k], t)]
    for shooter, (first, end) in table.spans.items():
        if any(legal[first:end]):
            flags = priority_flags(board, shooter, ids[first:end], dist_l[first:end],
                                   legal[first:end])
            table.priority[first:end] = flags
    return table


def wholly_in_arcs(board: Board, shooters: list[str], shooter_at: np.ndarray,
                   base_at: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """Whether each base (index position) lies wholly inside the arc of its shooter (position
    in ``shooters``) cut at ``reach`` mm (inf: unbounded), with a 1e-6 mm margin: every corner
    ahead of the front line, short of the reach and inside both side rays (numpy; the same
    readings as `fire.arc_margins`)."""
    if not len(shooter_at):
        return np.zeros(0, dtype=bool)
    par = arc_params(board, shooters)[shooter_at]                         # (n, 10)
    corners = board.rect_table.corners[base_at]                              # (n, 4, 2)
    p = par[:, None, :]
    depth_l = (corners[..., 0] - p[..., 0]) * p[..., 4] + (corners[..., 1] - p[..., 1]) * p[..., 5]
    depth_r = (corners[..., 0] - p[..., 2]) * p[..., 6] + (corners[..., 1] - p[..., 3]) * p[..., 7]
    ahead = (corners[..., 0] - p[..., 0]) * p[..., 8] + (corners[..., 1] - p[..., 1]) * p[..., 9]
    return ((depth_l > 1e-6) & (depth_r > 1e-6) & (ahead > 1e-6)
            & (ahead < reach[:, None] - 1e-6)).all(axis=1)


def fire_arcs(board: Board, shooters: list[str], reach_in: float | None = None) -> np.ndarray:
    """`fire_arc` of every shooter (out to ``reach_in``, by default 3" beyond its range), built
    by one vectorised shapely call."""
    rings = arc_rings(board, shooters, reach_in)
    if rings is None:
        return np.array([fire_arc(board, i, reach_in) for i in shooters], dtype=object)
    return shapely.polygons(rings)


def arc_rings(board: Board, shooters: list[str], reach_in: float | None = None
              ) -> np.ndarray | None:
    """The outlines of `fire_arcs` as (n, 4, 2) vertices (cached per reach), or None when some
    arc is not a quad (a point front, or arcs from the front centre)."""
    cache = board.__dict__.setdefault("_arc_rings", {})
    key = (tuple(shooters), reach_in)
    if key in cache:
        return cache[key]
    found = None
    if board.settings.a4_arc_origin != "front_centre":
        lefts, rights, facings = front_arrays(board, shooters)
        infos = [board.infos[i] for i in shooters]
        reach = np.array([reach_in if reach_in is not None
                          else info.fire_range_in + REPORT_MARGIN_IN for info in infos])
        found = arc_vertices_many(lefts, rights, facings,
                                  np.array([info.arc_half_deg for info in infos], dtype=float),
                                  reach * MM_PER_IN)                                  # `Board.mm`
    cache[key] = found
    return found


def flank_fire_many(board: Board, s_at: np.ndarray, t_at: np.ndarray) -> np.ndarray:
    """`fire._flank_fire` of many (shooter, target) pairs, given as index positions, with
    numpy: the same arithmetic, in the same order (`Rect.to_local`, `Rect.ahead_of_front`), so
    the same answers."""
    if not len(s_at):
        return np.zeros(0, dtype=bool)
    table = board.rect_table
    fl, fr = table.corners[s_at, 0], table.corners[s_at, 1]     # front left, front right
    cx, cy = table.frames[t_at, 0], table.frames[t_at, 1]
    f, half = table.frames[t_at, 4:6], table.frames[t_at, 7]

    def ahead(p: np.ndarray) -> np.ndarray:    # Rect.to_local(...)[1]
        return (p[:, 0] - cx) * f[:, 0] + (p[:, 1] - cy) * f[:, 1]

    v_left, v_right = ahead(fl), ahead(fr)
    tol = board.beyond_tol
    flank = ((v_left - half) < -tol) & ((v_right - half) < -tol)
    if not board.settings.a3_rear_counts_as_flank:
        flank &= ~((v_left < -half) & (v_right < -half))
    return flank
