"""Sight lines that certainly cannot be clear, found in bulk (Federico F5): the candidate
(shot, body) and (shot, area) pairs from one index query and one vectorised shapely call, the
per-line tests in compiled loops (`certain_kernel`).

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

from campo.engine.geometry.sight import SightQuery
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.certain_kernel import (
    certify_by_areas,
    certify_by_bodies,
    shot_frames,
)

ANGLE_MARGIN = 1e-7     # radians: far above float error, so a certain crossing is a crossing
DIST_MARGIN_MM = 1e-6
DEPTH_MARGIN_MM = 1e-3  # a chord this long is a chord (the exact test blocks above 1e-6 mm)


def surely_blocked(board: Board, origins: np.ndarray, ends: np.ndarray,
                   queries: list[SightQuery]) -> np.ndarray:
    """(n, k, m): whether the line from ``origins[s, i]`` to ``ends[s, j]`` of shot ``s``
    (ends NaN-padded) is certainly blocked for ``queries[s]``."""
    lo, hi, ref = shot_frames(origins, ends)
    boxes = shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1])
    cert = np.zeros((len(origins), origins.shape[1], ends.shape[1]), dtype=bool)
    _by_bodies(board, queries, origins, ends, ref, boxes, cert)
    _by_areas(board, queries, origins, ends, boxes, cert)
    return cert


def _by_bodies(board: Board, queries: list[SightQuery], origins: np.ndarray, ends: np.ndarray,
               ref: np.ndarray, boxes: np.ndarray, cert: np.ndarray) -> None:
    index = board.state.index                  # bases hold the bodies (which may be shrunk)
    si, bi = board.meeting(boxes)
    convex, outlines = _convex_body_arrays(board)
    pos = _positions(board)
    excluded = np.full((len(queries), 2), -1, dtype=np.int64)   # a shot's firer and target
    for n, q in enumerate(queries):
        if len(q.exclude) <= 2:     # firer and target, in either order
            for j, i in enumerate(q.exclude):
                excluded[n, j] = pos.get(i, -1)
    keep = convex[bi] & (bi != excluded[si, 0]) & (bi != excluded[si, 1])
    if any(len(q.exclude) > 2 for q in queries):     # more excluded than firer and target
        keep &= np.array([index.ids[b] not in queries[s].exclude
                          for s, b in zip(si.tolist(), bi.tolist())], dtype=bool)
    if not keep.any():
        return
    certify_by_bodies(origins, ends, ref, si[keep].astype(np.int64), bi[keep].astype(np.int64),
                      outlines, ANGLE_MARGIN, DIST_MARGIN_MM, cert)


def _positions(board: Board) -> dict[str, int]:
    """Base id -> its position in the board's spatial index (cached)."""
    found = board.__dict__.get("_index_positions")
    if found is None:
        found = board.__dict__["_index_positions"] = {
            i: k for k, i in enumerate(board.state.index.ids)}
    return found


def _convex_body_arrays(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """Per base, by index position: whether the sight field's own shape of it is convex (it
    then gets certificates), and the vertices of that shape, padded to one length by
    repeating the first vertex (cached; every ring read in one vectorised call)."""
    found = board.__dict__.get("_convex_body_arrays")
    if found is None:
        field = board.sight_field
        ids = board.state.index.ids
        convex = np.zeros(len(ids), dtype=bool)
        outlines = np.zeros((len(ids), 1, 2))
        bodies = np.array(list(field.bodies), dtype=object)
        if len(bodies):
            ok = ((shapely.get_type_id(bodies) == 3) & ~shapely.is_empty(bodies)
                  & shapely.equals(bodies, shapely.convex_hull(bodies)))
            pos = _positions(board)
            rows = np.array([pos.get(b, -1) for b in field.body_ids], dtype=np.int64)
            sel = np.nonzero(ok & (rows >= 0))[0]
            if len(sel):
                xy, owner = shapely.get_coordinates(shapely.get_exterior_ring(bodies[sel]),
                                                    return_index=True)
                counts = np.bincount(owner, minlength=len(sel)) - 1   # less the closing point
                start = np.concatenate([[0], np.cumsum(counts + 1)[:-1]])
                rank = np.arange(len(xy)) - start[owner]
                keep = rank < counts[owner]
                outlines = np.zeros((len(ids), int(counts.max()), 2))
                outlines[rows[sel]] = xy[start][:, None, :]              # the padding
                outlines[rows[sel][owner[keep]], rank[keep]] = xy[keep]
                convex[rows[sel]] = True
        found = board.__dict__["_convex_body_arrays"] = (convex, outlines)
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
    certify_by_areas(origins, ends, np.array([s for s, _ in pairs], dtype=np.int64),
                     np.array([a for _, a in pairs], dtype=np.int64), _padded_edges(board),
                     depth_ok, cert)


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
