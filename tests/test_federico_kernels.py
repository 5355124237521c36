"""The compiled helpers of Federico's charges and sight certificates agree with the code they
stand in for: `overlap_kernel` areas with GEOS intersection areas (convex windows against
rectangles, rotated, touching, disjoint, nested, and concave shapes), `over_one_mm2` with
`union_area_bounds`, and `certain_kernel.shot_frames` with the numpy reductions it replaces
(bit for bit)."""

from __future__ import annotations

import math
import random

import numpy as np
import shapely
from shapely import affinity

from campo.engine.rulesets.federico.certain_kernel import shot_frames
from campo.engine.rulesets.federico.movement import over_one_mm2, union_area_bounds
from campo.engine.rulesets.federico.overlap_kernel import overlap_estimates, ring_arrays


def _rect(rng: random.Random, cx: float, cy: float) -> shapely.Polygon:
    w, d, a = rng.uniform(5, 80), rng.uniform(5, 60), math.radians(rng.uniform(0, 360))
    f, r = (math.cos(a), math.sin(a)), (math.sin(a), -math.cos(a))
    pts = [(cx + sx * w / 2 * r[0] + sy * d / 2 * f[0], cy + sx * w / 2 * r[1] + sy * d / 2 * f[1])
           for sx, sy in ((-1, 1), (1, 1), (1, -1), (-1, -1))]
    return shapely.Polygon(pts)


def _shapes(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(seed)
    windows, shapes = [], []
    for _ in range(300):
        cx, cy = rng.uniform(0, 3000), rng.uniform(0, 1200)
        a, b = _rect(rng, cx, cy), _rect(rng, cx + rng.uniform(-60, 60), cy + rng.uniform(-60, 60))
        windows.append(shapely.convex_hull(shapely.MultiPoint(
            list(a.exterior.coords) + list(b.exterior.coords))))
        kind = rng.random()
        ox, oy = cx + rng.uniform(-120, 120), cy + rng.uniform(-120, 120)
        if kind < 0.4:
            shapes.append(_rect(rng, ox, oy))
        elif kind < 0.5:                        # touching the window's box from outside
            x0, y0, x1, y1 = windows[-1].bounds
            shapes.append(shapely.box(x1, y0, x1 + 30, y1))
        elif kind < 0.55:                       # holding the whole window
            shapes.append(windows[-1].envelope)
        elif kind < 0.7:                        # concave (an L)
            shapes.append(shapely.Polygon([(ox, oy), (ox + 90, oy), (ox + 90, oy + 20),
                                           (ox + 20, oy + 20), (ox + 20, oy + 80), (ox, oy + 80)]))
        elif kind < 0.8:                        # nested inside the window
            shapes.append(affinity.scale(windows[-1], 0.5, 0.7))
        else:                                   # an irregular quad (a wood)
            shapes.append(shapely.Polygon([(ox - 90, oy + 10), (ox + 70, oy - 5),
                                           (ox + 100, oy + 90), (ox - 70, oy + 105)]))
    return np.array(windows, dtype=object), np.array(shapes, dtype=object)


def test_overlap_areas_match_geos() -> None:
    for seed in range(4):
        windows, shapes = _shapes(seed)
        idx = np.arange(len(windows))
        est = overlap_estimates(windows, idx, ring_arrays(shapes), idx)
        geos = shapely.area(shapely.intersection(windows, shapes))
        assert not np.isnan(est).any()
        assert np.abs(est - geos).max() < 1e-6
        assert (geos > 1.0).any() and (geos == 0.0).any()     # both sides exercised


def test_unusable_shapes_are_left_to_geos() -> None:
    ring = shapely.Polygon([(0, 0), (50, 0), (50, 50), (0, 50)], [[(10, 10), (20, 10), (20, 20)]])
    multi = shapely.MultiPolygon([shapely.box(0, 0, 5, 5), shapely.box(10, 10, 15, 15)])
    shapes = np.array([ring, multi, shapely.Polygon(), shapely.box(0, 0, 5, 5)], dtype=object)
    windows = np.array([shapely.box(-1, -1, 60, 60)] * 4, dtype=object)
    idx = np.arange(4)
    est = overlap_estimates(windows, idx, ring_arrays(shapes), idx)
    assert np.isnan(est[:3]).all() and est[3] == 25.0


def test_over_one_matches_union_bounds() -> None:
    rng = np.random.default_rng(5)
    n = 7
    key = rng.integers(0, 40, 400) * n + rng.integers(0, n, 400)
    pieces = np.where(rng.random(400) < 0.3, rng.uniform(0.99, 1.01, 400),
                      rng.uniform(0.0, 3.0, 400))
    pieces[rng.random(400) < 0.2] = 0.4
    exact = lambda k, b: 1.0 + (k + b) % 3 - 1.0 + 0.5   # noqa: E731 - any value works
    want = [(k, b) for k, b, area in zip(*union_area_bounds(key, pieces, exact, n)) if area > 1.0]
    estimates = pieces + rng.uniform(-1e-9, 1e-9, 400)
    estimates[rng.random(400) < 0.05] = np.nan
    asked: list[int] = []
    got = over_one_mm2(key, estimates, lambda rows: (asked.append(len(rows)), pieces[rows])[1],
                       exact, n)
    assert got == want
    assert 0 < sum(asked) < len(key)


def test_shot_frames_match_numpy() -> None:
    rng = np.random.default_rng(3)
    for n, k, m in ((1, 1, 1), (40, 5, 16), (30, 5, 9)):
        origins = rng.uniform(0, 4000, (n, k, 2))
        ends = rng.uniform(0, 4000, (n, m, 2))
        counts = rng.integers(1, m + 1, n)
        for s, c in enumerate(counts):
            ends[s, c:] = np.nan
        if n > 1:
            ends[0, :1] = origins[0].mean(axis=0)      # mean end on mean origin
            ends[0, 1:] = np.nan
        lo, hi, ref = shot_frames(origins, ends)
        r = np.nanmean(ends, axis=1) - origins.mean(axis=1)
        norm = np.hypot(r[:, 0], r[:, 1])
        r = np.where(norm[:, None] > 0, r / np.where(norm > 0, norm, 1.0)[:, None], [1.0, 0.0])
        assert np.array_equal(ref, r)
        assert np.array_equal(lo, np.minimum(origins.min(axis=1), np.nanmin(ends, axis=1)))
        assert np.array_equal(hi, np.maximum(origins.max(axis=1), np.nanmax(ends, axis=1)))


def test_batched_arcs_equal_one_by_one() -> None:
    """`fire_batch._arcs` builds every firer's arcs (near and whole) with the same floats as
    `fire.fire_arc` and `fire.far_arc`, also with artillery firing straight ahead (0°)."""
    from campo.engine.rulesets.federico.board import Board
    from campo.engine.rulesets.federico.fire import REPORT_REACH_FACTOR, far_arc, fire_arc
    from campo.engine.rulesets.federico.fire_batch import _arcs
    from campo.engine.state import GameState
    from tests.test_rulesets_fast_path import random_scenario

    for seed in range(6):
        scenario = random_scenario("federico", seed)
        if seed % 2:
            scenario = dict(scenario, settings={"f3_artillery_arc": "straight_ahead"})
        board = Board.of(GameState.from_dict(scenario))
        firers = sorted(i for i, p in board.pieces.items() if p.can_fire)
        near = _arcs(board, firers, [board.mm((board.pieces[i].ranges_cm or (0.0, 0.0))[1]
                                              * REPORT_REACH_FACTOR) for i in firers], fire_arc)
        far_mm = board.mm(board.cm(board.state.reach_all_mm))
        whole = _arcs(board, firers, [far_mm] * len(firers), far_arc)
        for i, a, w in zip(firers, near, whole):
            # bytes: signed zeros too
            assert (shapely.get_coordinates(a).tobytes()
                    == shapely.get_coordinates(fire_arc(board, i)).tobytes())
            assert (shapely.get_coordinates(w).tobytes()
                    == shapely.get_coordinates(far_arc(board, i)).tobytes())
