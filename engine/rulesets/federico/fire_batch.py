"""Every firer's targets at once (the fast path of `fire.targets_of`, Federico F2-F7).

Candidate pairs come from one spatial-index query over all arcs and one over all fronts (reach:
the long range); arc, part in arc and distance are vectorised shapely calls over all pairs; line
of sight is two batched `SightField.clear_many` calls: first the shortest line of every shot,
then every sampled line of the shots whose shortest line is blocked, less the lines
`sight_certain` proves blocked (F5 "any line": one clear line is enough; "all lines": one blocked
line is enough to fail). Sample points are computed for all shots at once with numpy (same
arithmetic as `sample_outline`). Python only assembles records.
The answers are exactly those of `fire.targets_of` (tests/test_rulesets_fast_path.py).
"""

from __future__ import annotations

import numpy as np
import shapely

from engine.geometry.sight import sample_outline
from engine.rulesets.federico.board import Board
from engine.rulesets.federico.fire import (
    EPS_CM,
    INSET_MM,
    Target,
    far_arc,
    fire_arc,
    is_candidate,
    mark_declarable,
    sight_origins,
    sight_query,
    verdict,
)
from engine.rulesets.federico.sight_certain import surely_blocked


def all_targets(board: Board) -> dict[str, list[Target]]:
    """Firer id -> its targets, for every base (empty lists for bases that cannot fire)."""
    out: dict[str, list[Target]] = {i: [] for i in board.pieces}
    firers = sorted(i for i, p in board.pieces.items() if p.can_fire and not p.stale)
    if not firers:
        return out
    index = board.state.index
    ids = index.ids
    arcs = [fire_arc(board, i) for i in firers]
    wholes = [far_arc(board, i) for i in firers]
    fronts = [board.rect(i).front_edge for i in firers]
    long_cm = np.array([(board.pieces[i].ranges_cm or (0.0, 0.0))[1] for i in firers])
    a_s, a_b = index.query_many(wholes, 0.0)
    f_s, f_b = index.query_many(fronts, board.mm(long_cm) + 1e-6)
    pairs = sorted({(int(a), int(b)) for a, b in zip(a_s.tolist(), a_b.tolist())}
                   | {(int(a), int(b)) for a, b in zip(f_s.tolist(), f_b.tolist())})
    keep = sorted((si, ids[bi]) for si, bi in pairs if is_candidate(board, firers[si], ids[bi]))
    if not keep:
        return out
    arc_arr = np.array([arcs[si] for si, _ in keep], dtype=object)
    poly_arr = np.array([board.rect(o).polygon for _, o in keep], dtype=object)
    in_arc = shapely.dwithin(arc_arr, poly_arr, 1e-6)
    # wholly beyond the near arc (1.5x long range): measured in the whole arc (`fire.targets_of`)
    beyond = np.nonzero(~in_arc)[0]
    if len(beyond):
        whole_arr = np.array([wholes[keep[k][0]] for k in beyond.tolist()], dtype=object)
        in_arc[beyond] = shapely.dwithin(whole_arr, poly_arr[beyond], 1e-6)
        arc_arr[beyond] = whole_arr
    parts = poly_arr.copy()
    mode = board.settings.f4_range_measure
    if mode == "front_edge_to_part_in_arc" and in_arc.any():
        k = np.nonzero(in_arc)[0]
        inter = shapely.intersection(arc_arr[k], poly_arr[k])
        use = ~shapely.is_empty(inter) & (shapely.area(inter) > 0)
        parts[k[use]] = inter[use]
    if mode == "centre_to_centre":
        fr = [board.rect(firers[si]) for si, _ in keep]
        tr = [board.rect(o) for _, o in keep]
        dist_mm = np.array([((a.cx - b.cx) ** 2 + (a.cy - b.cy) ** 2) ** 0.5
                            for a, b in zip(fr, tr)])
    else:
        dist_mm = shapely.distance(np.array([fronts[si] for si, _ in keep], dtype=object), parts)
    dist = [board.cm(float(d)) for d in dist_mm]
    listed = [k for k in range(len(keep))
              if in_arc[k] or dist[k] <= long_cm[keep[k][0]] + EPS_CM]
    sight = _sight_many(board, [(firers[keep[k][0]], keep[k][1], parts[k]) for k in listed])
    for k, seen in zip(listed, sight):
        firer, other = firers[keep[k][0]], keep[k][1]
        out[firer].append(verdict(board, firer, other, bool(in_arc[k]), dist[k], seen))
    for i in firers:
        mark_declarable(board, out[i])
    return out


def _sight_many(board: Board, shots: list[tuple[str, str, object]]) -> list[bool]:
    """Line of sight of many shots (firer, target, part measured to), Federico F5."""
    mode = board.settings.f5_line_of_sight
    if not shots or mode == "ignore":
        return [True] * len(shots)
    queries = [sight_query(board, a, b) for a, b, _ in shots]
    origins, ends = _sight_points(board, shots)                      # (n, k, 2), (n, m, 2)
    field = board.sight_field
    n, k, m = len(shots), origins.shape[1], ends.shape[1]
    # Stage 1: the shortest line of every shot.
    d2 = ((origins[:, :, None, :] - ends[:, None, :, :]) ** 2).sum(axis=3)  # NaN: padding
    best = np.where(np.isnan(d2), np.inf, d2).reshape(n, -1).argmin(axis=1)
    rows = np.arange(n)
    first = np.stack([origins[rows, best // m], ends[rows, best % m]], axis=1)
    seen = field.clear_many(shapely.linestrings(first), rows, queries)
    # Stage 2: every line of the shots the first line did not settle (for "any line", less
    # the lines certainly blocked: a screened target's lines mostly are).
    todo = np.nonzero(~seen if mode != "all_lines" else seen)[0]
    if len(todo):
        o, e = origins[todo], ends[todo]
        wanted = np.broadcast_to(~np.isnan(e[:, None, :, 0]), (len(todo), k, m))
        if mode == "any_line":
            wanted = wanted & ~surely_blocked(board, o, e, [queries[i] for i in todo])
        t, i, j = np.nonzero(wanted)
        if len(t):
            lines = shapely.linestrings(np.stack([o[t, i], e[t, j]], axis=1))
            owners = todo[t]
            ok = field.clear_many(lines, owners, queries)
            if mode == "all_lines":
                seen[np.unique(owners[~ok])] = False
            else:
                seen[np.unique(owners[ok])] = True
    return seen.tolist()


def _sight_points(board: Board, shots: list[tuple[str, str, object]]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Origins (n, k, 2) and ends (n, m, 2, NaN-padded) of every shot's sight lines: the
    points of `fire.sight_problem`, computed for all shots at once."""
    if board.settings.f5_line_of_sight == "centre_to_centre":
        origins = np.array([[board.rect(a).front_centre] for a, _, _ in shots], dtype=float)
        ends = np.array([[(board.rect(b).cx, board.rect(b).cy)] for _, b, _ in shots],
                        dtype=float)
        return origins, ends
    origins = np.array([sight_origins(board, a) for a, _, _ in shots], dtype=float)
    parts = np.array([part for _, _, part in shots], dtype=object)
    shrunk = parts.copy()     # `fire.sight_end_shape` of every part
    big = np.nonzero(shapely.area(parts) > 4 * INSET_MM ** 2)[0]
    inner = shapely.buffer(parts[big], -INSET_MM, quad_segs=16)
    filled = ~shapely.is_empty(inner)
    shrunk[big[filled]] = inner[filled]
    outlines = _outline_points(shrunk)
    centres = [(c.x, c.y) for c in shapely.centroid(parts)]
    m = max(len(p) for p in outlines) + 1
    ends = np.full((len(shots), m, 2), np.nan)
    for k, (pts, centre) in enumerate(zip(outlines, centres)):
        ends[k, :len(pts)] = pts
        ends[k, len(pts)] = centre
    return origins, ends


def _outline_points(shapes: np.ndarray) -> list[np.ndarray]:
    """`sample_outline(shape, per_edge=2)` of every shape: polygons vectorised (each vertex,
    then the points at 1/3 and 2/3 of the edge after it, with the same arithmetic), other
    shapes one by one."""
    out: list[np.ndarray] = [np.zeros((0, 2))] * len(shapes)
    simple = np.nonzero((shapely.get_type_id(shapes) == 3) & ~shapely.is_empty(shapes))[0]
    for k in np.setdiff1d(np.arange(len(shapes)), simple).tolist():
        out[k] = np.asarray(sample_outline(shapes[k], per_edge=2), dtype=float).reshape(-1, 2)
    if len(simple):
        xy, ring = shapely.get_coordinates(shapely.get_exterior_ring(shapes[simple]),
                                           return_index=True)
        last = np.r_[ring[1:] != ring[:-1], True]           # each ring's closing point
        a, ring = xy[~last], ring[~last]
        first = np.r_[True, ring[1:] != ring[:-1]]
        start = np.maximum.accumulate(np.where(first, np.arange(len(a)), 0))
        nxt = np.arange(1, len(a) + 1)
        wrap = np.r_[ring[1:] != ring[:-1], True]
        nxt[wrap] = start[wrap]
        b = a[nxt]
        pts = np.stack([a, a + (b - a) * (1 / 3), a + (b - a) * (2 / 3)], axis=1)
        counts = np.bincount(ring, minlength=len(simple)) * 3
        for k, chunk in zip(simple.tolist(), np.split(pts.reshape(-1, 2), np.cumsum(counts)[:-1])):
            out[k] = chunk
    return out
