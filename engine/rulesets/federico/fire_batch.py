"""Every firer's targets at once (the fast path of `fire.targets_of`, Federico F2-F7).

Candidate pairs come from one spatial-index query over all arcs and one over all fronts (reach:
the long range); arc, part in arc and distance are vectorised shapely calls over all pairs (the
arcs built in one numpy call; a target wholly inside its arc is its own part, `part_in_arc`,
without an overlay); line of sight is a few batched `SightField.clear_many` calls: first the
shortest line of every shot, then, for the shots whose shortest line is blocked, their sampled
lines less those `sight_certain` proves blocked: under F5 "any line" one such line per shot
first (the likeliest clear, `_one_line_each`), then the rest of the shots still unseen ("any
line": one clear line is enough; "all lines": one blocked line is enough to fail). Sample points
are computed for all shots at once with numpy (same arithmetic as `sample_outline`). Python only
assembles records.
The answers are exactly those of `fire.targets_of` (tests/test_rulesets_fast_path.py).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import shapely

from campo.engine.geometry.arcs import arc_vertices_many
from campo.engine.geometry.sight import SightField, SightQuery, sample_outline
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.fire import (
    EPS_CM,
    INSET_MM,
    REPORT_REACH_FACTOR,
    Target,
    far_arc,
    fire_arc,
    half_angle,
    is_candidate,
    mark_declarable,
    sight_origins,
    sight_query,
    verdict,
)
from campo.engine.rulesets.federico.part_in_arc import as_overlay_result, wholly_inside
from campo.engine.rulesets.federico.sight_certain import surely_blocked


def all_targets(board: Board) -> dict[str, list[Target]]:
    """Firer id -> its targets, for every base (empty lists for bases that cannot fire)."""
    out: dict[str, list[Target]] = {i: [] for i in board.pieces}
    firers = sorted(i for i, p in board.pieces.items() if p.can_fire and not p.stale)
    if not firers:
        return out
    index = board.state.index
    arcs = _arcs(board, firers, [board.mm((board.pieces[i].ranges_cm or (0.0, 0.0))[1]
                                          * REPORT_REACH_FACTOR) for i in firers], fire_arc)
    far_mm = board.mm(board.cm(board.state.reach_all_mm))
    wholes = _arcs(board, firers, [far_mm] * len(firers), far_arc)
    fronts = [board.rect(i).front_edge for i in firers]
    long_cm = np.array([(board.pieces[i].ranges_cm or (0.0, 0.0))[1] for i in firers])
    a_s, a_b = board.meeting(wholes)
    f_s, f_b = index.query_many(fronts, board.mm(long_cm) + 1e-6)
    keep = _candidate_pairs(board, firers, np.concatenate([a_s, f_s]),
                            np.concatenate([a_b, f_b]))
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
        inside = wholly_inside(arc_arr[k], poly_arr[k])
        parts[k[inside]] = as_overlay_result(poly_arr[k[inside]])
        k = k[~inside]
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


def _candidate_pairs(board: Board, firers: list[str], si: np.ndarray, bi: np.ndarray
                     ) -> list[tuple[int, str]]:
    """The distinct (firer number, base id) pairs of ``si``, ``bi`` (index positions) whose
    base is a candidate target (`fire.is_candidate`), sorted by firer number then id: numpy
    on the positions, `is_candidate` once per (side, base) rather than per pair."""
    ids = board.state.index.ids
    n = len(ids)
    key = np.unique(si.astype(np.int64) * n + bi.astype(np.int64))
    s, b = key // n, key % n
    sides = sorted({board.pieces[f].side for f in firers})
    side_of = np.array([sides.index(board.pieces[f].side) for f in firers], dtype=np.int64)
    proxy = {side: next(f for f in firers if board.pieces[f].side == side) for side in sides}
    ok = np.array([[is_candidate(board, proxy[side], i) for i in ids] for side in sides],
                  dtype=bool).reshape(len(sides), n)
    s, b = s[ok[side_of[s], b]], b[ok[side_of[s], b]]
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(np.array(ids, dtype=object), kind="stable")] = np.arange(n)
    order = np.argsort(s * n + rank[b], kind="stable")
    return [(si_, ids[bi_]) for si_, bi_ in zip(s[order].tolist(), b[order].tolist())]


def _arcs(board: Board, firers: list[str], reaches_mm: list[float],
          one: Callable[[Board, str], object]) -> list[object]:
    """`fire.fire_arc` of every firer out to its reach (mm), built in one vectorised call
    (`arcs.arc_vertices_many`: the same float operations as `arc_vertices`); ``one`` builds
    them one by one when some front is a point."""
    rects = [board.rect(i) for i in firers]
    verts = arc_vertices_many(np.array([r.front_left for r in rects], dtype=float),
                              np.array([r.front_right for r in rects], dtype=float),
                              np.array([r.front for r in rects], dtype=float),
                              np.array([half_angle(board, i) for i in firers], dtype=float),
                              np.array(reaches_mm, dtype=float))
    if verts is None:
        return [one(board, i) for i in firers]
    return list(shapely.polygons(verts))


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
    dx = origins[:, :, None, 0] - ends[:, None, :, 0]
    dy = origins[:, :, None, 1] - ends[:, None, :, 1]
    d2 = dx * dx + dy * dy                                                   # NaN: padding
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
            _one_line_each(field, queries, todo, o, e, ends[todo, (best % m)[todo]], wanted,
                           seen)
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


def _one_line_each(field: SightField, queries: list[SightQuery], todo: np.ndarray,
                   o: np.ndarray, e: np.ndarray, first_end: np.ndarray, wanted: np.ndarray,
                   seen: np.ndarray) -> None:
    """F5 "any line", before every remaining line is measured: one line per shot, the one
    ending farthest from where its blocked shortest line ended (the target's other side, the
    likeliest to be clear). A shot seen along it is settled (``seen``; its other lines dropped
    from ``wanted``); a blocked one is dropped from ``wanted``. Same answers, fewer lines."""
    flat = wanted.reshape(len(todo), -1)
    has = np.nonzero(flat.any(axis=1))[0]
    if not len(has):
        return
    m = e.shape[1]
    sx, sy = e[..., 0] - first_end[:, None, 0], e[..., 1] - first_end[:, None, 1]
    spread = sx * sx + sy * sy                                                   # (t, m)
    score = np.where(wanted, spread[:, None, :], -1.0).reshape(len(todo), -1)
    pick = score[has].argmax(axis=1)
    i, j = pick // m, pick % m
    ok = field.clear_many(shapely.linestrings(np.stack([o[has, i], e[has, j]], axis=1)),
                          todo[has], queries)
    seen[todo[has[ok]]] = True
    wanted[has[ok]] = False
    wanted[has[~ok], i[~ok], j[~ok]] = False


def _sight_points(board: Board, shots: list[tuple[str, str, object]]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Origins (n, k, 2) and ends (n, m, 2, NaN-padded) of every shot's sight lines: the
    points of `fire.sight_problem`, computed for all shots at once."""
    if board.settings.f5_line_of_sight == "centre_to_centre":
        origins = np.array([[board.rect(a).front_centre] for a, _, _ in shots], dtype=float)
        ends = np.array([[(board.rect(b).cx, board.rect(b).cy)] for _, b, _ in shots],
                        dtype=float)
        return origins, ends
    firers = sorted({a for a, _, _ in shots})
    row = {a: k for k, a in enumerate(firers)}
    origins = np.array([sight_origins(board, a) for a in firers], dtype=float)[
        [row[a] for a, _, _ in shots]]
    parts = np.array([part for _, _, part in shots], dtype=object)
    shrunk = parts.copy()     # `fire.sight_end_shape` of every part
    big = np.nonzero(shapely.area(parts) > 4 * INSET_MM ** 2)[0]
    inner = _buffer_once(parts[big], -INSET_MM)
    filled = ~shapely.is_empty(inner)
    shrunk[big[filled]] = inner[filled]
    pts, owner, rank, counts = _outline_points(shrunk)
    ends = np.full((len(shots), int(counts.max()) + 1, 2), np.nan)
    ends[owner, rank] = pts
    ends[np.arange(len(shots)), counts] = shapely.get_coordinates(shapely.centroid(parts))
    return origins, ends


def _buffer_once(shapes: np.ndarray, distance: float) -> np.ndarray:
    """``shapely.buffer(shapes, distance, quad_segs=16)``, each distinct shape buffered once:
    a target wholly inside several arcs is the same part (the same coordinates, so the same
    buffer) for every firer."""
    first: dict[bytes, int] = {}
    which = [first.setdefault(key, len(first)) for key in shapely.to_wkb(shapes).tolist()]
    if len(first) == len(shapes):
        return shapely.buffer(shapes, distance, quad_segs=16)
    rows = np.zeros(len(first), dtype=np.int64)
    rows[which] = np.arange(len(shapes))       # any shape of each kind (they are equal)
    return shapely.buffer(shapes[rows], distance, quad_segs=16)[which]


def _outline_points(shapes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray]:
    """`sample_outline(shape, per_edge=2)` of every shape, as flat arrays: the points, the
    shape each belongs to, its rank in that shape's list, and the count per shape. Polygons
    are vectorised (each vertex, then the points at 1/3 and 2/3 of the edge after it, with the
    same arithmetic); other shapes are sampled one by one."""
    n = len(shapes)
    simple = np.nonzero((shapely.get_type_id(shapes) == 3) & ~shapely.is_empty(shapes))[0]
    parts_pts, parts_owner = [np.zeros((0, 2))], [np.zeros(0, dtype=np.int64)]
    for k in np.setdiff1d(np.arange(n), simple).tolist():
        found = np.asarray(sample_outline(shapes[k], per_edge=2), dtype=float).reshape(-1, 2)
        parts_pts.append(found)
        parts_owner.append(np.full(len(found), k, dtype=np.int64))
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
        parts_pts.append(pts.reshape(-1, 2))
        parts_owner.append(np.repeat(simple[ring], 3))
    pts = np.concatenate(parts_pts)
    owner = np.concatenate(parts_owner)
    order = np.argsort(owner, kind="stable")       # each shape's points together, in order
    pts, owner = pts[order], owner[order]
    counts = np.bincount(owner, minlength=n)
    rank = np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)
    return pts, owner, rank, counts
