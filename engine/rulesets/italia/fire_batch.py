"""Every shooter's targets at once (the fast path of `fire.targets_of`).

Candidate pairs come from one STRtree query over all arcs and one over all fronts; arc, range and
sight are measured with vectorised shapely calls over all pairs; Python only assembles records.
The answers are exactly those of `fire.targets_of` (tests/test_engine_properties.py).
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import LineString

from engine.rulesets.italia.board import Board
from engine.rulesets.italia.fire import (
    EPS_IN,
    Target,
    arc_margins,
    fire_arc,
    mark_priority,
    part_in_arc,
    pair_lines,
    sight_ends,
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
    arcs = [fire_arc(board, i) for i in shooters]
    fronts = [LineString([board.front(i).left, board.front(i).right]) for i in shooters]
    ranges = np.array([board.mm(board.infos[i].fire_range_in) + 1e-6 for i in shooters])
    a_s, a_b = index.query_many(arcs, 0.0)
    f_s, f_b = index.query_many(fronts, ranges)
    pairs = sorted({(int(a), int(b)) for a, b in zip(a_s.tolist(), a_b.tolist())}
                   | {(int(a), int(b)) for a, b in zip(f_s.tolist(), f_b.tolist())})
    keep = []
    for si, bi in pairs:
        shooter, other = shooters[si], ids[bi]
        o = board.infos[other]
        if o.side != board.infos[shooter].side and not o.is_general:
            keep.append((si, other))
    if not keep:
        return out
    arc_arr = np.array([arcs[si] for si, _ in keep], dtype=object)
    front_arr = np.array([fronts[si] for si, _ in keep], dtype=object)
    poly_arr = np.array([board.rect(o).polygon for _, o in keep], dtype=object)
    in_arc = shapely.dwithin(arc_arr, poly_arr, 1e-6)
    inter = shapely.intersection(arc_arr, poly_arr)
    parts = np.where(in_arc, inter, poly_arr)
    for k in np.nonzero(in_arc & shapely.is_empty(inter))[0].tolist():
        parts[k] = part_in_arc(arc_arr[k], poly_arr[k])   # touching in exact arithmetic only
    dist_in = shapely.distance(front_arr, parts) / board.mm(1.0)
    max_in = np.array([board.infos[shooters[si]].fire_range_in for si, _ in keep])
    listed = np.nonzero(in_arc | (dist_in <= max_in + EPS_IN))[0]
    sight = _sight_many(board, [(shooters[keep[k][0]], keep[k][1], parts[k]) for k in listed])
    margins = arc_margins(board, [shooters[keep[k][0]] for k in listed],
                          np.where(in_arc[listed], parts[listed], poly_arr[listed]))
    for k, seen, margin in zip(listed.tolist(), sight, margins.tolist()):
        shooter, other = shooters[keep[k][0]], keep[k][1]
        out[shooter].append(verdict(board, shooter, other, bool(in_arc[k]), float(dist_in[k]),
                                    parts[k], seen, margin))
    for i in shooters:
        out[i].sort(key=lambda t: t.id)
        mark_priority(board, i, out[i])
    return out


def _sight_many(board: Board, shots: list[tuple[str, str, object]]) -> list[bool]:
    """Line of sight for many shots: the middle line of each first, then every sampled line of
    the shots whose middle line is blocked (ISD A14: any clear line will do)."""
    if not shots:
        return []
    queries = [sight_query(board, a, b) for a, b, _ in shots]
    origins = {a: sight_origins(board, a) for a in {a for a, _, _ in shots}}
    ends = sight_ends(np.array([part for _, _, part in shots], dtype=object))
    field = board.sight_field
    first = np.array([[origins[a][0], e[0]] for (a, _, _), e in zip(shots, ends)], dtype=float)
    seen = field.clear_many(shapely.linestrings(first), np.arange(len(shots)), queries)
    blocked = np.nonzero(~seen)[0].tolist()
    if blocked:
        coords = [pair_lines(origins[shots[k][0]], ends[k]) for k in blocked]
        owners = np.repeat(blocked, [len(c) for c in coords])
        ok = field.clear_many(shapely.linestrings(np.concatenate(coords)), owners, queries)
        seen[np.unique(owners[ok])] = True
    return seen.tolist()
