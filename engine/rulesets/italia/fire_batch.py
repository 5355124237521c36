"""Every shooter's targets at once (the fast path of `fire.targets_of`).

Candidate pairs come from one STRtree query over all arcs and one over all fronts; arc and range
are measured with vectorised shapely calls over all pairs, sight by compiled code
(`sight_batch`); the verdicts are columns (`target_table`). The answers are exactly those of
`fire.targets_of` (tests/test_engine_properties.py, tests/test_engine_snapshots.py).
"""

from __future__ import annotations

import numpy as np
import shapely

from engine.geometry.arcs import arc_vertices
from engine.rulesets.italia.board import REPORT_MARGIN_IN, Board
from engine.rulesets.italia.sight_batch import sight_many
from engine.results import Band
from engine.rulesets.italia.fire import (
    EPS_IN,
    arc_clear,
    arc_margins,
    arc_params,
    band_of,
    cover_of,
    cover_terrain_of,
    fire_arc,
    fire_reasons,
    line_of_sight,
    part_in_arc,
    priority_flags,
    shot_modifiers,
    targets_of,
)
from engine.rulesets.italia.target_table import TargetTable, group_spans


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
    arcs = fire_arcs(board, shooters)
    wholes = fire_arcs(board, shooters, board.inches(board.state.reach_all_mm))
    front_list = [board.front(i) for i in shooters]
    fronts = shapely.linestrings(np.array([[f.left, f.right] for f in front_list], dtype=float))
    ranges = np.array([board.mm(board.infos[i].fire_range_in) + 1e-6 for i in shooters])
    a_s, a_b = index.meeting_many(wholes)
    f_s, f_b = index.query_many(fronts, ranges)
    nb = len(ids)
    codes = np.unique(np.concatenate([a_s * nb + a_b, f_s * nb + f_b]))   # sorted (si, bi)
    pair_s, pair_b = codes // nb, codes % nb
    # present enemies of the shooter, generals excepted (`fire.is_candidate`)
    sides = np.array([board.infos[i].side for i in ids])
    barred = np.array([board.infos[i].is_general or board.infos[i].stale for i in ids],
                      dtype=bool)
    shooter_pos = np.array(_positions(ids, shooters))
    enemy = (sides[pair_b] != sides[shooter_pos[pair_s]]) & ~barred[pair_b]
    pair_s, pair_b = pair_s[enemy], pair_b[enemy]
    if not len(pair_s):
        return TargetTable.from_lists(sorted(board.infos), {})
    keep = [(si, ids[bi]) for si, bi in zip(pair_s.tolist(), pair_b.tolist())]
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
    max_in = np.array([board.infos[i].fire_range_in for i in shooters])[pair_s]
    listed = np.nonzero(in_arc | (dist_in <= max_in + EPS_IN))[0]
    shot_from = [shooters[keep[k][0]] for k in listed]
    shot_to = [keep[k][1] for k in listed]
    sight = sight_many(board, shot_from, shot_to, parts[listed])
    if sight is None:   # some base too small to be a rectangle once grazes are allowed for
        sight = np.array([line_of_sight(board, a, b, parts[k])
                          for a, b, k in zip(shot_from, shot_to, listed.tolist())], dtype=bool)
    margins = arc_margins(board, shot_from,
                          np.where(in_arc[listed], parts[listed], poly_arr[listed]))
    flanks = flank_fire_many(board, shot_from, shot_to)
    return verdict_table(board, shooters, pair_s[listed], shot_to, in_arc[listed],
                         dist_in[listed], parts[listed], sight,
                         margins, np.asarray(flanks, dtype=bool))


def verdict_table(board: Board, shooters: list[str], row_shooter: np.ndarray, row_target: list[str],
                  in_arc: np.ndarray, dist: np.ndarray, parts: np.ndarray, sight: np.ndarray,
                  arc_margin: np.ndarray, flank: np.ndarray) -> TargetTable:
    """`fire.verdict` of every row (row k: ``shooters[row_shooter[k]]`` at ``row_target[k]``),
    as columns, rows grouped by shooter and sorted by target id; then `fire.mark_priority`."""
    rank = {i: r for r, i in enumerate(sorted(board.infos))}
    order = np.lexsort((np.array([rank[t] for t in row_target], dtype=np.int64), row_shooter))
    row_shooter = row_shooter[order]
    ids = [row_target[k] for k in order.tolist()]
    in_arc, dist, parts, sight = in_arc[order], dist[order], parts[order], sight[order]
    arc_margin, flank = arc_margin[order], flank[order]
    max_in = np.array([board.infos[i].fire_range_in for i in shooters])[row_shooter]
    gun = np.array([board.infos[i].is_gun for i in shooters], dtype=bool)[row_shooter]
    in_range = dist <= max_in + EPS_IN
    n = len(ids)
    names = [shooters[p] for p in row_shooter.tolist()]
    dist_l, in_range_l, margin_l = dist.tolist(), in_range.tolist(), (max_in - dist).tolist()
    in_arc_l, sight_l, gun_l = in_arc.tolist(), sight.tolist(), gun.tolist()
    band: list[Band | None] = [band_of(board, d, g) if r else None
                               for d, r, g in zip(dist_l, in_range_l, gun_l)]
    cover: list[str | None] = [None] * n
    cover_terrain: list[str | None] = [None] * n
    covered = {t for t in set(ids) if any(cover_terrain_of(board, t))}
    for k in (k for k, t in enumerate(ids) if t in covered):
        cover[k], cover_terrain[k] = cover_of(board, names[k], ids[k])
    clear = [True] * n
    for k in np.nonzero(~gun & in_arc & in_range)[0].tolist():
        clear[k] = arc_clear(board, names[k], ids[k], parts[k])
    reasons = [fire_reasons(a, r, m, v, c)
               for a, r, m, v, c in zip(in_arc_l, in_range_l, margin_l, sight_l, clear)]
    legal = [not r for r in reasons]
    table = TargetTable(group_spans(shooters, row_shooter), ids, dist_l, in_arc_l, in_range_l,
                        band, sight_l, margin_l, arc_margin.tolist(), legal, [False] * n,
                        flank.tolist(), cover, cover_terrain, clear, reasons, [None] * n)
    for k in (k for k in range(n) if legal[k]):
        t = table._target(k)
        table.modifiers[k] = [m.to_dict() for m in shot_modifiers(board, names[k], ids[k], t)]
    for shooter, (first, end) in table.spans.items():
        if any(legal[first:end]):
            flags = priority_flags(board, shooter, ids[first:end], dist_l[first:end],
                                   legal[first:end])
            table.priority[first:end] = flags
    return table


def _positions(ids: list[str], wanted: list[str]) -> list[int]:
    where = {i: k for k, i in enumerate(ids)}
    return [where[w] for w in wanted]


def wholly_in_arcs(board: Board, shooters: list[str], shooter_at: np.ndarray,
                   base_at: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """Whether each base (index position) lies wholly inside the arc of its shooter (position
    in ``shooters``) cut at ``reach`` mm (inf: unbounded), with a 1e-6 mm margin: every corner
    ahead of the front line, short of the reach and inside both side rays (numpy; the same
    readings as `fire.arc_margins`)."""
    if not len(shooter_at):
        return np.zeros(0, dtype=bool)
    par = arc_params(board, shooters)[shooter_at]                         # (n, 10)
    corners = _corner_table(board)[base_at]                              # (n, 4, 2)
    p = par[:, None, :]
    depth_l = (corners[..., 0] - p[..., 0]) * p[..., 4] + (corners[..., 1] - p[..., 1]) * p[..., 5]
    depth_r = (corners[..., 0] - p[..., 2]) * p[..., 6] + (corners[..., 1] - p[..., 3]) * p[..., 7]
    ahead = (corners[..., 0] - p[..., 0]) * p[..., 8] + (corners[..., 1] - p[..., 1]) * p[..., 9]
    return ((depth_l > 1e-6) & (depth_r > 1e-6) & (ahead > 1e-6)
            & (ahead < reach[:, None] - 1e-6)).all(axis=1)


def _corner_table(board: Board) -> np.ndarray:
    """Every base's 4 corners, in index order (cached on the board)."""
    found = board.__dict__.get("_corner_table")
    if found is None:
        found = np.array([board.rect(i).corners for i in board.state.index.ids], dtype=float)
        board.__dict__["_corner_table"] = found
    return found


def fire_arcs(board: Board, shooters: list[str], reach_in: float | None = None) -> np.ndarray:
    """`fire_arc` of every shooter (out to ``reach_in``, by default 3" beyond its range), built
    by one vectorised shapely call."""
    if board.settings.a4_arc_origin == "front_centre":
        return np.array([fire_arc(board, i, reach_in) for i in shooters], dtype=object)
    rings = []
    for i in shooters:
        info = board.infos[i]
        f = board.front(i)
        reach = reach_in if reach_in is not None else info.fire_range_in + REPORT_MARGIN_IN
        rings.append(arc_vertices(f.left, f.right, f.facing, info.arc_half_deg, board.mm(reach)))
    if any(len(r) != 4 for r in rings):
        return np.array([fire_arc(board, i, reach_in) for i in shooters], dtype=object)
    return shapely.polygons(np.array(rings, dtype=float))


def flank_fire_many(board: Board, shooters: list[str], targets: list[str]) -> list[bool]:
    """`fire._flank_fire` of many (shooter, target) pairs with numpy: the same arithmetic, in
    the same order (`Rect.to_local`, `Rect.ahead_of_front`), so the same answers."""
    if not shooters:
        return []
    table = _rect_table(board)
    position = table["position"]
    s_at = np.array([position[i] for i in shooters])
    t_at = np.array([position[i] for i in targets])
    fl, fr = table["front_left"][s_at], table["front_right"][s_at]
    cx, cy = table["cx"][t_at], table["cy"][t_at]
    f, half = table["front"][t_at], table["half_depth"][t_at]

    def ahead(p: np.ndarray) -> np.ndarray:    # Rect.to_local(...)[1]
        return (p[:, 0] - cx) * f[:, 0] + (p[:, 1] - cy) * f[:, 1]

    v_left, v_right = ahead(fl), ahead(fr)
    tol = board.beyond_tol
    flank = ((v_left - half) < -tol) & ((v_right - half) < -tol)
    if not board.settings.a3_rear_counts_as_flank:
        flank &= ~((v_left < -half) & (v_right < -half))
    return flank.tolist()


def _rect_table(board: Board) -> dict:
    """Every base's rectangle as arrays (index order), cached on the board."""
    found = board.__dict__.get("_rect_table")
    if found is None:
        ids = board.state.index.ids
        rects = [board.rect(i) for i in ids]
        found = board.__dict__["_rect_table"] = {
            "position": {i: k for k, i in enumerate(ids)},
            "front_left": np.array([r.front_left for r in rects], dtype=float).reshape(-1, 2),
            "front_right": np.array([r.front_right for r in rects], dtype=float).reshape(-1, 2),
            "cx": np.array([r.cx for r in rects], dtype=float),
            "cy": np.array([r.cy for r in rects], dtype=float),
            "front": np.array([r.front for r in rects], dtype=float).reshape(-1, 2),
            "half_depth": np.array([r.depth / 2 for r in rects], dtype=float),
        }
    return found
