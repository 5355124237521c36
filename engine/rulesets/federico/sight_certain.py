"""Sight lines that certainly cannot be clear, found in bulk with numpy (Federico F5).

A second-line target is usually screened: every one of its sampled sight lines crosses a base
or a wood, town or hill, and the exact test (`SightField.clear_many`) would measure them one by
one. These certificates settle most of them at once, and only with a wide margin, so a line
they call blocked is blocked for the exact test too; every other line is left to the exact
test. Same answers, far fewer lines measured (tests/test_rulesets_fast_path.py).

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
    si, bi = index.query_many(list(boxes), 0.0)
    outlines = _convex_bodies(board)
    ids = index.ids
    keep = [k for k, (s, b) in enumerate(zip(si.tolist(), bi.tolist()))
            if ids[b] in outlines and ids[b] not in queries[s].exclude]
    if not keep:
        return
    s, b = si[keep], bi[keep]
    corners = np.array([outlines[ids[j]] for j in b.tolist()], dtype=float)    # (p, v, 2)
    ref = np.nanmean(ends, axis=1) - origins.mean(axis=1)                       # (n, 2)
    norm = np.hypot(ref[:, 0], ref[:, 1])
    ref = np.where(norm[:, None] > 0, ref / np.where(norm > 0, norm, 1.0)[:, None], [1.0, 0.0])
    r = ref[s][:, None, None, :]
    o = origins[s][:, :, None, :]                                                # (p, k, 1, 2)
    th, reach = _angles(corners[:, None, :, :] - o, r)                          # (p, k, v)
    valid = (np.abs(th) < np.pi / 2 - 1e-6).all(axis=2)   # the base is ahead: its angle < 180°
    lo_t, hi_t, far = th.min(axis=2), th.max(axis=2), reach.max(axis=2)
    ph, dist = _angles(ends[s][:, None, :, :] - o, r)      # (p, k, m); NaN padding: never hit
    hit = (valid[..., None] & (ph > lo_t[..., None] + ANGLE_MARGIN)
           & (ph < hi_t[..., None] - ANGLE_MARGIN) & (dist > far[..., None] + DIST_MARGIN_MM))
    np.logical_or.at(cert, s, hit)


def _convex_bodies(board: Board) -> dict[str, np.ndarray]:
    """Body id -> the vertices of the sight field's own (convex) body shape, padded to one
    length by repeating the first vertex (cached). Non-convex bodies get no certificate."""
    found = board.__dict__.get("_convex_bodies")
    if found is None:
        field = board.sight_field
        rings = {}
        for bid, body in zip(field.body_ids, field.bodies):
            if body.geom_type == "Polygon" and not body.is_empty and \
                    shapely.equals(body, shapely.convex_hull(body)):
                rings[bid] = np.asarray(body.exterior.coords, dtype=float)[:-1]
        size = max((len(v) for v in rings.values()), default=0)
        found = {bid: np.concatenate([v, np.repeat(v[:1], size - len(v), axis=0)])
                 for bid, v in rings.items()}
        board.__dict__["_convex_bodies"] = found
    return found


def _angles(v: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Signed angle of each vector from ``ref`` (radians) and its length."""
    cross = ref[..., 0] * v[..., 1] - ref[..., 1] * v[..., 0]
    dot = ref[..., 0] * v[..., 0] + ref[..., 1] * v[..., 1]
    return np.arctan2(cross, dot), np.hypot(v[..., 0], v[..., 1])


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
    pairs = [(s, a) for s, a in zip(*np.nonzero(meets))
             if areas[a][0] not in queries[s].uncounted_areas]
    if not pairs:
        return
    s = np.array([p for p, _ in pairs])
    kmax = max(len(areas[a][2]) for _, a in pairs)
    edges = np.zeros((len(pairs), kmax, 4))      # padding: zero normals, no constraint
    for k, (_, a) in enumerate(pairs):
        edges[k, :len(areas[a][2])] = areas[a][2]
    p0 = origins[s][:, :, None, :]                                               # (p, k, 1, 2)
    d = ends[s][:, None, :, :] - p0                                              # (p, k, m, 2)
    v, nrm = edges[:, None, None, :, 0:2], edges[:, None, None, :, 2:4]         # (p,1,1,e,2)
    num = ((v - p0[..., None, :]) * nrm).sum(axis=-1)                           # (p, k, 1, e)
    den = (d[..., None, :] * nrm).sum(axis=-1)                                  # (p, k, m, e)
    t = num / np.where(den != 0, den, 1.0)
    t_in = np.where(den < 0, t, -np.inf).max(axis=-1).clip(0.0, 1.0)
    t_out = np.where(den > 0, t, np.inf).min(axis=-1).clip(0.0, 1.0)
    outside = ((den == 0) & (num < 0)).any(axis=-1)       # parallel to an edge, beyond it
    chord = (t_out - t_in) * np.hypot(d[..., 0], d[..., 1])                    # NaN padding
    hit = ~outside & (chord > depth_ok)
    np.logical_or.at(cert, s, hit)
