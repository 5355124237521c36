"""Sight lines that certainly cannot be clear, found in bulk with numpy (Federico F5).

A second-line target is usually screened: every one of its sampled sight lines crosses a base
or a wood, town or hill, and the exact test (`SightField.clear_many`) would measure them one by
one. These certificates settle most of them at once, and only with a wide margin, so a line
they call blocked is blocked for the exact test too; every other line is left to the exact
test. Same answers, far fewer lines measured (tests/test_rulesets_fast_path.py; every
certified line of bench and random positions is checked blocked by
tests/test_federico_sight_certain.py).

* a body (the sight field's own shape of a troop base other than the firer and the target, when
  convex): seen from the line's origin, the end lies strictly inside the angle the body spans
  and farther than its farthest corner, so the segment passes through it;
* a convex deep area (sight-blocking terrain the shot does not stand in): the segment's chord
  through it (Cyrus-Beck clipping) is longer than the field's ``max_depth`` (0 for Federico:
  any depth blocks) plus DEPTH_MARGIN_MM.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely

from engine.geometry.sight import SightQuery
from engine.rulesets.federico.board import Board

ANGLE_MARGIN = 1e-7     # radians: far above float error, so a certain crossing is a crossing
DIST_MARGIN_MM = 1e-6
DEPTH_MARGIN_MM = 1e-3  # a chord this long is a chord (the exact test blocks above 1e-6 mm)


def surely_blocked(board: Board, origins: np.ndarray, ends: np.ndarray,
                   queries: list[SightQuery]) -> np.ndarray:
    """(n, k, m): whether the line from ``origins[s, i]`` to ``ends[s, j]`` of shot ``s``
    (ends NaN-padded) is certainly blocked for ``queries[s]``."""
    lo = np.minimum(origins.min(axis=1), np.nanmin(ends, axis=1))
    hi = np.maximum(origins.max(axis=1), np.nanmax(ends, axis=1))
    boxes = shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1])
    cert = np.zeros((len(origins), origins.shape[1], ends.shape[1]), dtype=bool)
    _by_bodies(board, queries, origins, ends, boxes, cert)
    _by_areas(board, queries, origins, ends, boxes, cert)
    return cert


def _by_bodies(board: Board, queries: list[SightQuery], origins: np.ndarray, ends: np.ndarray,
               boxes: np.ndarray, cert: np.ndarray) -> None:
    index = board.state.index                  # bases hold the bodies (which may be shrunk)
    si, bi = board.meeting(boxes)
    convex, outlines = _convex_body_arrays(board)
    pos = _positions(board)
    excluded = np.full((len(queries), 2), -1, dtype=np.int64)   # a shot's firer and target
    for n, q in enumerate(queries):
        for j, i in enumerate(sorted(q.exclude)[:2]):
            excluded[n, j] = pos.get(i, -1)
    keep = convex[bi] & (bi != excluded[si, 0]) & (bi != excluded[si, 1])
    if any(len(q.exclude) > 2 for q in queries):     # more excluded than firer and target
        keep &= np.array([index.ids[b] not in queries[s].exclude
                          for s, b in zip(si.tolist(), bi.tolist())], dtype=bool)
    if not keep.any():
        return
    s, b = si[keep], bi[keep]
    corners = outlines[b]                                                        # (p, v, 2)
    ref = np.nanmean(ends, axis=1) - origins.mean(axis=1)                       # (n, 2)
    norm = np.hypot(ref[:, 0], ref[:, 1])
    ref = np.where(norm[:, None] > 0, ref / np.where(norm > 0, norm, 1.0)[:, None], [1.0, 0.0])
    # the corners seen from each origin: separate x and y arrays (contiguous), (p, k, v)
    cx = corners[:, None, :, 0] - origins[s][:, :, None, 0]
    cy = corners[:, None, :, 1] - origins[s][:, :, None, 1]
    rx, ry = ref[s, 0][:, None, None], ref[s, 1][:, None, None]
    th = np.arctan2(rx * cy - ry * cx, rx * cx + ry * cy)
    reach = np.sqrt(cx * cx + cy * cy)    # not np.hypot (several times slower): the two
    # differ by an ulp, far below DIST_MARGIN_MM
    valid = _last(np.logical_and, np.abs(th) < np.pi / 2 - 1e-6)   # the base is ahead
    lo_all, hi_all = _last(np.minimum, th), _last(np.maximum, th)
    far_all = _last(np.maximum, reach) + DIST_MARGIN_MM
    # the ends as seen from each origin of each shot (angle from its reference, squared
    # distance): they do not depend on the body, so they are computed once per shot
    wx = ends[:, None, :, 0] - origins[:, :, None, 0]                            # (n, k, m)
    wy = ends[:, None, :, 1] - origins[:, :, None, 1]
    rx, ry = ref[:, 0][:, None, None], ref[:, 1][:, None, None]
    ph_all = np.arctan2(rx * wy - ry * wx, rx * wx + ry * wy)   # NaN padding: never hit
    d2_all = wx * wx + wy * wy
    # a (pair, origin) row can certify an end only if some end lies within the body's angles
    # and beyond it: rows that cannot are dropped before the per-end tests
    ph_lo, ph_hi = _last(np.fmin, ph_all), _last(np.fmax, ph_all)   # (n, k); NaN: padding
    d2_hi = _last(np.fmax, d2_all)
    valid &= ((ph_hi[s] > lo_all + ANGLE_MARGIN) & (ph_lo[s] < hi_all - ANGLE_MARGIN)
              & (d2_hi[s] > far_all * far_all))
    pk, kk = np.nonzero(valid)            # only (pair, origin) rows that may certify
    if not len(pk):
        return
    lo_t, hi_t, far = lo_all[pk, kk], hi_all[pk, kk], far_all[pk, kk]
    sh = s[pk]
    ph, d2 = ph_all[sh, kk], d2_all[sh, kk]                                     # (rows, m)
    hit_rows = ((ph > (lo_t + ANGLE_MARGIN)[:, None]) & (ph < (hi_t - ANGLE_MARGIN)[:, None])
                & (d2 > (far * far)[:, None]))          # farther than every corner
    hit = np.zeros(valid.shape + (ends.shape[1],), dtype=bool)
    hit[pk, kk] = hit_rows
    _or_by_shot(cert, s, hit)


def _last(op: np.ufunc, a: np.ndarray) -> np.ndarray:
    """``op`` folded over the last axis, slice by slice: numpy reduces a short last axis (a
    handful of corners or edges) element by element, far slower than a few whole-array ops.
    Same results as ``op.reduce(a, axis=-1)`` (min, max, all, any; fmin and fmax skip NaN)."""
    out = a[..., 0]
    for j in range(1, a.shape[-1]):
        out = op(out, a[..., j])
    return out


def _or_by_shot(cert: np.ndarray, shot: np.ndarray, hit: np.ndarray) -> None:
    """``cert[shot[i]] |= hit[i]`` for every i, ``shot`` sorted (one reduction per shot, not
    the slow unbuffered ``np.logical_or.at``)."""
    if not len(shot):
        return
    uniq, first = np.unique(shot, return_index=True)
    cert[uniq] |= np.logical_or.reduceat(hit, first, axis=0)


def _positions(board: Board) -> dict[str, int]:
    """Base id -> its position in the board's spatial index (cached)."""
    found = board.__dict__.get("_index_positions")
    if found is None:
        found = board.__dict__["_index_positions"] = {
            i: k for k, i in enumerate(board.state.index.ids)}
    return found


def _convex_body_arrays(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """`_convex_bodies` by index position: (has a convex body, its padded outline) (cached)."""
    found = board.__dict__.get("_convex_body_arrays")
    if found is None:
        bodies = _convex_bodies(board)
        ids = board.state.index.ids
        size = max((len(v) for v in bodies.values()), default=1)
        outlines = np.zeros((len(ids), size, 2))
        convex = np.zeros(len(ids), dtype=bool)
        for k, i in enumerate(ids):
            if i in bodies:
                outlines[k] = bodies[i]
                convex[k] = True
        found = board.__dict__["_convex_body_arrays"] = (convex, outlines)
    return found


def _convex_bodies(board: Board) -> dict[str, np.ndarray]:
    """Body id -> the vertices of the sight field's own (convex) body shape, padded to one
    length by repeating the first vertex (cached). Non-convex bodies get no certificate."""
    found = board.__dict__.get("_convex_bodies")
    if found is None:
        field = board.sight_field
        bodies = np.array(list(field.bodies), dtype=object)
        convex = ((shapely.get_type_id(bodies) == 3) & ~shapely.is_empty(bodies)
                  & shapely.equals(bodies, shapely.convex_hull(bodies))) if len(bodies) else []
        rings = {bid: np.asarray(body.exterior.coords, dtype=float)[:-1]
                 for bid, body, ok in zip(field.body_ids, field.bodies, convex) if ok}
        size = max((len(v) for v in rings.values()), default=0)
        found = {bid: np.concatenate([v, np.repeat(v[:1], size - len(v), axis=0)])
                 for bid, v in rings.items()}
        board.__dict__["_convex_bodies"] = found
    return found


def _convex_areas(board: Board) -> list[tuple[str, Any, np.ndarray]]:
    """(id, polygon, outward edge data) of the sight field's convex deep areas (cached)."""
    cache = board.__dict__.get("_convex_deep_areas")
    if cache is None:
        field = board.sight_field
        cache = []
        if np.isfinite(field.max_depth):
            for aid, poly in zip(field.deep_area_ids, field.deep_areas):
                if poly.geom_type != "Polygon" or poly.interiors or \
                        not shapely.equals(poly, shapely.convex_hull(poly)):
                    continue
                v = np.asarray(poly.exterior.coords, dtype=float)[:-1]
                e = np.roll(v, -1, axis=0) - v
                ccw = poly.exterior.is_ccw
                normal = np.stack([e[:, 1], -e[:, 0]], axis=1) * (1.0 if ccw else -1.0)
                cache.append((aid, poly, np.concatenate([v, normal], axis=1)))   # (k, 4)
        board.__dict__["_convex_deep_areas"] = cache
    return cache


def _by_areas(board: Board, queries: list[SightQuery], origins: np.ndarray, ends: np.ndarray,
              boxes: np.ndarray, cert: np.ndarray) -> None:
    areas = _convex_areas(board)
    if not areas:
        return
    depth_ok = board.sight_field.max_depth + DEPTH_MARGIN_MM
    meets = shapely.intersects(boxes[:, None], np.array([a for _, a, _ in areas],
                                                        dtype=object)[None, :])
    # shots whose every line the bodies already certified need no area certificate
    meets &= ~(cert | np.isnan(ends[:, None, :, 0])).all(axis=(1, 2))[:, None]
    pairs = [(s, a) for s, a in zip(*np.nonzero(meets))
             if areas[a][0] not in queries[s].uncounted_areas]
    if not pairs:
        return
    s = np.array([p for p, _ in pairs])
    edges = _padded_edges(board)[[a for _, a in pairs]]   # (p, e, 4); padding: zero normals
    vx, vy = edges[:, None, None, :, 0], edges[:, None, None, :, 1]             # (p,1,1,e)
    nx, ny = edges[:, None, None, :, 2], edges[:, None, None, :, 3]
    ox, oy = origins[s][:, :, None, None, 0], origins[s][:, :, None, None, 1]    # (p,k,1,1)
    dx = ends[s][:, None, :, None, 0] - ox                                       # (p,k,m,1)
    dy = ends[s][:, None, :, None, 1] - oy
    num = (vx - ox) * nx + (vy - oy) * ny                                        # (p,k,1,e)
    den = dx * nx + dy * ny                                                      # (p,k,m,e)
    t = num / np.where(den != 0, den, 1.0)
    t_in = _last(np.maximum, np.where(den < 0, t, -np.inf)).clip(0.0, 1.0)
    t_out = _last(np.minimum, np.where(den > 0, t, np.inf)).clip(0.0, 1.0)
    outside = _last(np.logical_or, (den == 0) & (num < 0))   # parallel to an edge, beyond
    dx, dy = dx[..., 0], dy[..., 0]
    chord = (t_out - t_in) * np.sqrt(dx * dx + dy * dy)                          # NaN: padding
    hit = ~outside & (chord > depth_ok)
    _or_by_shot(cert, s, hit)


def _padded_edges(board: Board) -> np.ndarray:
    """(area, edge, 4) = vertex and outward normal of each convex deep area's edges, padded
    with zero normals (no constraint) to one length (cached)."""
    found = board.__dict__.get("_padded_deep_edges")
    if found is None:
        areas = _convex_areas(board)
        kmax = max((len(e) for _, _, e in areas), default=1)
        found = np.zeros((len(areas), kmax, 4))
        for k, (_, _, e) in enumerate(areas):
            found[k, :len(e)] = e
        board.__dict__["_padded_deep_edges"] = found
    return found
