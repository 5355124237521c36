"""Every shooter's targets at once (the fast path of `fire.targets_of`).

Candidate pairs come from one STRtree query over all arcs and one over all fronts; arc, range and
sight are measured with vectorised shapely calls over all pairs; Python only assembles records.
The answers are exactly those of `fire.targets_of` (tests/test_engine_properties.py).
"""

from __future__ import annotations

import numpy as np
import shapely

from engine.geometry.arcs import arc_vertices
from engine.geometry.rect import rotate
from engine.rulesets.italia.board import REPORT_MARGIN_IN, Board
from engine.rulesets.italia.fire import (
    EPS_IN,
    Target,
    arc_margins,
    fire_arc,
    mark_priority,
    part_in_arc,
    sight_ends_flat,
    sight_origins,
    sight_query,
    targets_of,
    verdict,
)


def all_targets(board: Board) -> dict[str, list[Target]]:
    """Shooter id -> its targets, for every base (empty lists for bases that cannot fire)."""
    s = board.settings
    out: dict[str, list[Target]] = {i: [] for i in board.infos}
    shooters = sorted(i for i, info in board.infos.items() if info.can_fire and not info.stale)
    if (s.a5_in_arc_test != "any_part" or s.a6_range_measure != "front_edge_to_part_in_arc"
            or s.a14_line_of_sight != "any_line" or not shooters):
        for i in shooters:   # readings the batch path does not vectorise: the plain path
            out[i] = targets_of(board, i)
        return out
    index = board.state.index
    ids = index.ids
    arcs = fire_arcs(board, shooters)
    wholes = fire_arcs(board, shooters, board.inches(board.state.reach_all_mm))
    front_list = [board.front(i) for i in shooters]
    fronts = shapely.linestrings(np.array([[f.left, f.right] for f in front_list], dtype=float))
    ranges = np.array([board.mm(board.infos[i].fire_range_in) + 1e-6 for i in shooters])
    a_s, a_b = index.query_many(wholes, 0.0)
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
        return out
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
    sight = _sight_many(board, [(shooters[keep[k][0]], keep[k][1], parts[k]) for k in listed])
    margins = arc_margins(board, [shooters[keep[k][0]] for k in listed],
                          np.where(in_arc[listed], parts[listed], poly_arr[listed]))
    flanks = flank_fire_many(board, [shooters[keep[k][0]] for k in listed],
                             [keep[k][1] for k in listed])
    for k, seen, margin, flank in zip(listed.tolist(), sight, margins.tolist(), flanks):
        shooter, other = shooters[keep[k][0]], keep[k][1]
        out[shooter].append(verdict(board, shooter, other, bool(in_arc[k]), float(dist_in[k]),
                                    parts[k], seen, margin, flank))
    for i in shooters:
        out[i].sort(key=lambda t: t.id)
        mark_priority(board, i, out[i])
    return out


def _sight_many(board: Board, shots: list[tuple[str, str, object]]) -> list[bool]:
    """Line of sight for many shots: the middle line of each first, then every sampled line of
    the shots whose middle line is blocked (ISD A14: any clear line will do). The body found
    blocking a middle line is tried first against the other lines of its shot (it usually
    blocks them all); only the lines it leaves clear get the full test."""
    if not shots:
        return []
    queries = [sight_query(board, a, b) for a, b, _ in shots]
    shooter_origins = {a: sight_origins(board, a) for a in {a for a, _, _ in shots}}
    origins = np.array([shooter_origins[a] for a, _, _ in shots], dtype=float)   # (n, 3, 2)
    ends, end_owner = sight_ends_flat(np.array([part for _, _, part in shots], dtype=object))
    middle = ends[np.searchsorted(end_owner, np.arange(len(shots)))]
    field = board.sight_field
    first = np.stack([origins[:, 0], middle], axis=1)
    seen, hints = field.clear_many_blockers(shapely.linestrings(first),
                                            np.arange(len(shots)), queries)
    if seen.all():
        return seen.tolist()
    rows = np.nonzero(~seen[end_owner])[0]          # the ends of the blocked shots
    n_origins = origins.shape[1]
    end_rows = np.repeat(rows, n_origins)            # end by end, every origin
    owners = end_owner[end_rows]
    which = np.tile(np.arange(n_origins), len(rows))
    segments = np.stack([origins[owners, which], ends[end_rows]], axis=1)
    ok = field.clear_segments_hinted(segments, owners, queries, hints)   # line k of shot k
    seen[np.unique(owners[ok])] = True
    return seen.tolist()


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
    params = []
    for shooter in shooters:
        f = board.front(shooter)
        half = board.infos[shooter].arc_half_deg
        left, right = f.left, f.right
        if board.settings.a4_arc_origin == "front_centre":
            left = right = ((f.left[0] + f.right[0]) / 2, (f.left[1] + f.right[1]) / 2)
        dl, dr = rotate(f.facing, half), rotate(f.facing, -half)
        params.append((*left, *right, dl[1], -dl[0], -dr[1], dr[0], *f.facing))
    par = np.array(params, dtype=float)[shooter_at]                       # (n, 10)
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
    sr = [board.rect(i) for i in shooters]
    tr = [board.rect(i) for i in targets]
    fl = np.array([r.front_left for r in sr])
    fr = np.array([r.front_right for r in sr])
    cx = np.array([r.cx for r in tr])
    cy = np.array([r.cy for r in tr])
    f = np.array([r.front for r in tr])
    half = np.array([r.depth / 2 for r in tr])

    def ahead(p: np.ndarray) -> np.ndarray:    # Rect.to_local(...)[1]
        return (p[:, 0] - cx) * f[:, 0] + (p[:, 1] - cy) * f[:, 1]

    v_left, v_right = ahead(fl), ahead(fr)
    tol = board.beyond_tol
    flank = ((v_left - half) < -tol) & ((v_right - half) < -tol)
    if not board.settings.a3_rear_counts_as_flank:
        flank &= ~((v_left < -half) & (v_right < -half))
    return flank.tolist()
