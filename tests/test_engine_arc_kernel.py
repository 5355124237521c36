"""The compiled pair geometry gives GEOS's answers (engine/geometry/arc_kernel.py).

Random arcs and bases, and bases placed on the boundaries (touching a side ray, a corner on a
ray, along the far edge, in contact with the front, 1e-6 mm from the arc): every pair the kernel
decides must have shapely's in-arc answer, part (same vertices), distance and centroid; pairs too
close to call must be flagged for GEOS, and the boundary cases must be among them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from campo.engine.geometry.arc_kernel import (
    FALLBACK,
    OK,
    ring_centroid,
    segment_distance,
)
from campo.engine.geometry.arcs import arc_vertices
from campo.engine.geometry.pair_kernel import measure_pairs
from campo.engine.geometry.rect import Rect, rotate


def _arcs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(near arcs, whole arcs, fronts) of ``n`` random shooters."""
    near, whole, fronts = [], [], []
    for _ in range(n):
        r = Rect(float(rng.uniform(200, 600)), float(rng.uniform(200, 600)),
                 float(rng.uniform(0, 360)), float(rng.choice([25.0, 40.0, 80.0])), 40.0)
        half = float(rng.choice([0.0, 22.5, 45.0]))
        reach = float(rng.uniform(100, 300))
        near.append(arc_vertices(r.front_left, r.front_right, r.front, half, reach))
        whole.append(arc_vertices(r.front_left, r.front_right, r.front, half, 3000.0))
        fronts.append([r.front_left, r.front_right])
    return (np.array(near, dtype=float), np.array(whole, dtype=float),
            np.array(fronts, dtype=float))


def _random_rects(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.array([Rect(float(rng.uniform(0, 800)), float(rng.uniform(0, 800)),
                          float(rng.uniform(0, 360)), float(rng.choice([25.0, 80.0])),
                          float(rng.choice([20.0, 40.0]))).corners for _ in range(n)], dtype=float)


def _boundary_rects(near: np.ndarray, fronts: np.ndarray, s: int) -> list:
    """Bases of 80 x 40 placed exactly on shooter ``s``'s arc boundaries."""
    left, right, far_right, far_left = near[s]
    out = []
    for a, b in ((left, far_left), (right, far_right), (far_left, far_right)):
        d = (b - a) / np.linalg.norm(b - a)
        inward = np.array([-d[1], d[0]])
        if np.dot(inward, (near[s].mean(axis=0) - a)) < 0:
            inward = -inward
        p = a + d * 60.0
        heading = math.degrees(math.atan2(d[1], d[0]))
        for off in (0.0, 1e-6, -1e-6, 20.0, -20.0, 5e-8):
            # an edge along the boundary line (touching it from outside or inside), or straddling
            c = p - inward * (20.0 + off)
            out.append(Rect(float(c[0]), float(c[1]), heading - 90.0, 80.0, 40.0).corners)
            c = p + inward * (20.0 - off)
            out.append(Rect(float(c[0]), float(c[1]), heading - 90.0, 80.0, 40.0).corners)
        # a corner exactly on the boundary line
        c = p + inward * math.sqrt(2) * 20.0
        out.append(Rect(float(c[0]), float(c[1]), heading + 45.0, 40.0, 40.0).corners)
    # in contact with the front, and overlapping it
    f0, f1 = fronts[s]
    facing = np.array(rotate(tuple((f1 - f0) / np.linalg.norm(f1 - f0)), 90.0))
    heading = math.degrees(math.atan2(facing[1], facing[0]))
    for ahead in (20.0, 10.0, 20.0 + 1e-9, 25.0):
        c = (f0 + f1) / 2 + facing * ahead
        out.append(Rect(float(c[0]), float(c[1]), heading, 80.0, 40.0).corners)
    return out


def _expected(near: np.ndarray, whole: np.ndarray, front: np.ndarray, rect: np.ndarray):
    """`fire_batch.geos_measure` for one pair, by shapely: (in arc, part, distance mm)."""
    poly = shapely.polygons(rect)
    arc = shapely.polygons(near)
    in_arc = bool(shapely.dwithin(arc, poly, 1e-6))
    if not in_arc:
        arc = shapely.polygons(whole)
        in_arc = bool(shapely.dwithin(arc, poly, 1e-6))
    part = shapely.intersection(arc, poly) if in_arc else poly
    return in_arc, part, float(shapely.distance(shapely.linestrings(front), part))


def _check(near: np.ndarray, whole: np.ndarray, fronts: np.ndarray, rects: np.ndarray,
           pair_s: np.ndarray, pair_b: np.ndarray) -> np.ndarray:
    thresholds = np.full((len(near), 1), np.nan)
    status, in_arc, dist, count, verts, centre = measure_pairs(
        pair_s, pair_b, near, whole, fronts, rects, 25.4, thresholds)
    for k in np.nonzero(status == OK)[0]:
        s, b = pair_s[k], pair_b[k]
        exp_in, exp_part, exp_dist = _expected(near[s], whole[s], fronts[s], rects[b])
        assert in_arc[k] == exp_in, k
        got = verts[k, :count[k]]
        want = shapely.get_coordinates(exp_part)[:-1]
        assert exp_part.geom_type == "Polygon" and len(want) == len(got), k
        # the same vertices (GEOS may start elsewhere), to rounding
        assert all(np.abs(want - v).max(axis=1).min() < 1e-9 for v in got), k
        assert dist[k] == pytest.approx(exp_dist, abs=1e-9)
        assert np.allclose(centre[k], shapely.get_coordinates(shapely.centroid(exp_part))[0],
                           atol=1e-9)
        if count[k] == 4 and np.array_equal(got, rects[b]):   # kept whole: GEOS's to the bit
            assert dist[k] == float(shapely.distance(shapely.linestrings(fronts[s]),
                                                     shapely.polygons(rects[b])))
    return status


def test_random_pairs_match_geos() -> None:
    rng = np.random.default_rng(5)
    near, whole, fronts = _arcs(rng, 40)
    rects = _random_rects(rng, 150)
    pair_s = np.repeat(np.arange(40), 150).astype(np.int64)
    pair_b = np.tile(np.arange(150), 40).astype(np.int64)
    status = _check(near, whole, fronts, rects, pair_s, pair_b)
    assert (status == OK).mean() > 0.99


def test_boundary_pairs_match_geos_or_fall_back() -> None:
    rng = np.random.default_rng(8)
    near, whole, fronts = _arcs(rng, 12)
    pair_s, rects = [], []
    for s in range(12):
        for r in _boundary_rects(near, fronts, s):
            pair_s.append(s)
            rects.append(r)
    rects_arr = np.array(rects, dtype=float)
    pair_s_arr = np.array(pair_s, dtype=np.int64)
    status = _check(near, whole, fronts, rects_arr, pair_s_arr,
                    np.arange(len(rects), dtype=np.int64))
    # touching, 1e-6 mm away and corners on a ray are left to GEOS; clear cases are not
    assert 0 < (status == FALLBACK).sum() < len(status)


def test_threshold_distances_fall_back() -> None:
    rng = np.random.default_rng(2)
    near, whole, fronts = _arcs(rng, 1)
    rects = _random_rects(rng, 300)
    pairs = np.zeros(300, dtype=np.int64), np.arange(300, dtype=np.int64)
    none = np.full((1, 1), np.nan)
    status, _, dist, *_ = measure_pairs(*pairs, near, whole, fronts, rects, 25.4, none)
    k = int(np.nonzero(status == OK)[0][0])
    at = np.array([[dist[k] / 25.4]])
    assert measure_pairs(*pairs, near, whole, fronts, rects, 25.4, at)[0][k] == FALLBACK


def test_centroid_and_distance_are_geos_arithmetic() -> None:
    rng = np.random.default_rng(4)
    rects = _random_rects(rng, 300)
    seg = rng.uniform(0, 800, (300, 2, 2))
    for r, sg in zip(rects, seg):
        want = shapely.get_coordinates(shapely.centroid(shapely.polygons(r)))[0]
        assert ring_centroid(r, 4) == (want[0], want[1])
        d = min(segment_distance(sg[0, 0], sg[0, 1], sg[1, 0], sg[1, 1], r[i, 0], r[i, 1],
                                 r[(i + 1) % 4, 0], r[(i + 1) % 4, 1]) for i in range(4))
        inside = shapely.intersects(shapely.polygons(r), shapely.linestrings(sg))
        if not inside:
            assert d == float(shapely.distance(shapely.linestrings(sg), shapely.polygons(r)))


def _mixed_parts(rng: np.random.Generator, n: int) -> np.ndarray:
    """Polygons (some clipped by a half-plane), points and segments, as GEOS parts can be."""
    rects = _random_rects(rng, n)
    polys = shapely.polygons(rects)
    cut = shapely.box(0, 0, 800, 400)
    parts = np.where(rng.uniform(size=n) < 0.5, shapely.intersection(polys, cut), polys)
    parts = np.where(shapely.is_empty(parts), polys, parts)
    parts[::7] = shapely.points(rects[::7, 0])
    parts[3::7] = shapely.linestrings(rects[3::7, :2])
    return parts


def test_sight_ends_are_the_numpy_ones() -> None:
    from campo.engine.geometry.arc_kernel import sight_ends_of_rings
    from campo.engine.rulesets.italia.board import GRAZE_MM
    from campo.engine.rulesets.italia.fire import sight_ends_flat

    parts = _mixed_parts(np.random.default_rng(6), 400)
    xy, owner = shapely.get_coordinates(parts, return_index=True)
    starts = np.searchsorted(owner, np.arange(len(parts) + 1))
    centres = shapely.get_coordinates(shapely.centroid(parts))
    points, belongs = sight_ends_of_rings(xy, starts, centres, 2 * GRAZE_MM)
    want_points, want_belongs = sight_ends_flat(parts)
    assert np.array_equal(belongs, want_belongs)
    assert np.array_equal(points, want_points)


def test_arc_margins_are_the_numpy_ones() -> None:
    from campo.engine.geometry.arc_kernel import arc_margins_of_rings
    from campo.engine.rulesets.italia.fire import arc_margins_mm

    rng = np.random.default_rng(9)
    parts = _mixed_parts(rng, 400)
    near, _, _ = _arcs(rng, 400)
    # arc_params' layout: left, right, inward normals of the left and right rays, facing
    par = np.zeros((400, 10))
    for i, (left, right, far_right, far_left) in enumerate(near):
        dl = (far_left - left) / np.linalg.norm(far_left - left)
        dr = (far_right - right) / np.linalg.norm(far_right - right)
        facing = np.array(rotate(tuple((right - left) / np.linalg.norm(right - left)), 90.0))
        par[i] = (*left, *right, dl[1], -dl[0], -dr[1], dr[0], *facing)
    xy, owner = shapely.get_coordinates(parts, return_index=True)
    starts = np.searchsorted(owner, np.arange(len(parts) + 1))
    got = arc_margins_of_rings(xy, starts, par)
    want = arc_margins_mm(xy, owner, par, len(parts))   # fire.arc_margins, less the board
    assert np.array_equal(got, want)
    # outlines crossing an arc axis (the extra points of arc_margins) are tested
    p = par[owner]
    mid = (p[:, 0:2] + p[:, 2:4]) / 2
    side = (xy[:, 0] - mid[:, 0]) * p[:, 9] - (xy[:, 1] - mid[:, 1]) * p[:, 8]
    assert ((owner[:-1] == owner[1:]) & (side[:-1] * side[1:] < 0)).sum() > 20


def test_candidate_pairs_are_geos_ones() -> None:
    from campo.engine.geometry.pair_kernel import candidate_pairs

    rng = np.random.default_rng(12)
    near, whole, fronts = _arcs(rng, 30)
    rects = list(_random_rects(rng, 200))
    for s in range(0, 30, 3):
        rects += _boundary_rects(whole, fronts, s)   # touching the whole arc's rays
        f0, f1 = fronts[s]
        facing = np.array(rotate(tuple((f1 - f0) / np.linalg.norm(f1 - f0)), -90.0))
        for gap in (60.0, 60.0 + 1e-6, 60.0 + 1e-8, 61.0):   # behind the front, at the limit
            c = (f0 + f1) / 2 + facing * (gap + 20.0)
            heading = math.degrees(math.atan2(facing[1], facing[0]))
            rects.append(Rect(float(c[0]), float(c[1]), heading, 80.0, 40.0).corners)
    rects_arr = np.array(rects, dtype=float)
    limits = np.full(30, 60.0 + 1e-6)
    eligible = rng.uniform(size=(30, len(rects))) < 0.9
    eligible[::3] = True
    got_s, got_b, unsure = candidate_pairs(whole, fronts, limits, rects_arr, eligible)
    polys = shapely.polygons(rects_arr)
    hit = (shapely.intersects(shapely.polygons(whole)[:, None], polys[None, :])
           | shapely.dwithin(shapely.linestrings(fronts)[:, None], polys[None, :],
                             limits[:, None])) & eligible
    want_s, want_b = np.nonzero(hit)
    sure = ~unsure
    # every pair GEOS keeps is listed; every listed pair not flagged is one GEOS keeps
    assert set(zip(want_s.tolist(), want_b.tolist())) <= set(zip(got_s.tolist(), got_b.tolist()))
    assert hit[got_s[sure], got_b[sure]].all()
    assert 0 < unsure.sum() < 0.05 * len(unsure)
