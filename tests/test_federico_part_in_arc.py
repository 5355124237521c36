"""`part_in_arc` stands in for ``shapely.intersection(arc, target)`` exactly (same coordinates,
same order) where it claims a target lies wholly inside its arc: checked against GEOS on the
arcs and targets of bench battles and on random rectangles in random convex quads (both
orientations, tight fits, touching and crossing outlines, where it must decline)."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.fire import fire_arc
from campo.engine.rulesets.federico.part_in_arc import CHECKED_GEOS, as_overlay_result, wholly_inside
from campo.engine.state import GameState
from tests.bench_modules import bench_module

# the shortcut copies one GEOS version's overlay convention; under another, GEOS decides
pytestmark = pytest.mark.skipif(shapely.geos_version[:2] != CHECKED_GEOS,
                                reason=f"part_in_arc pins GEOS {CHECKED_GEOS}'s overlay")


def _bench_battle(n: int) -> dict:
    return bench_module("rulesets_analysis").federico_battle(n)


def _check(arcs: np.ndarray, targets: np.ndarray) -> int:
    inside = wholly_inside(arcs, targets)
    assert not (inside & ~shapely.contains_properly(arcs, targets)).any()
    got = as_overlay_result(targets[inside])
    want = shapely.intersection(arcs[inside], targets[inside])
    for g, w in zip(got, want):
        assert np.array_equal(shapely.get_coordinates(g), shapely.get_coordinates(w))
    return int(inside.sum())


def test_bench_arcs_and_targets() -> None:
    board = Board.of(GameState.from_dict(_bench_battle(50)))
    firers = [i for i, p in board.pieces.items() if p.can_fire]
    arcs, targets = [], []
    for f in firers:
        arc = fire_arc(board, f)
        for o in board.pieces:
            if o != f and shapely.intersects(arc, board.rect(o).polygon):
                arcs.append(arc)
                targets.append(board.rect(o).polygon)
    n = _check(np.array(arcs, dtype=object), np.array(targets, dtype=object))
    assert 0 < n < len(arcs)       # some inside, some crossing the arc's outline


def test_random_quads_both_orientations_and_tight_fits() -> None:
    rng = np.random.default_rng(11)
    arcs, targets = [], []
    for k in range(6000):
        cx, cy = rng.uniform(0, 4000), rng.uniform(0, 1200)
        r = Rect(cx, cy, rng.uniform(0, 360), rng.uniform(10, 80), rng.uniform(10, 60))
        xy = np.array(r.polygon.exterior.coords)
        if k % 3 == 0:               # a box around the target, a hair (or nothing) to spare
            e = rng.choice([0.0, 1e-7, 1e-5, 1e-3])
            x0, y0 = xy.min(axis=0) - e
            x1, y1 = xy.max(axis=0) + e
            pts = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        else:                        # a quad that may hold, cross or miss the target
            s = rng.uniform(20, 300)
            pts = [(cx - s, cy - s * 0.8), (cx + s * 1.1, cy - s), (cx + s, cy + s * 1.3),
                   (cx - s * 0.9, cy + s)]
        arcs.append(shapely.Polygon(pts[::-1] if k % 2 else pts))
        targets.append(r.polygon)
    n = _check(np.array(arcs, dtype=object), np.array(targets, dtype=object))
    assert 1000 < n < 5000


def test_declines_what_it_cannot_be_sure_of() -> None:
    arc = shapely.Polygon([(0, 0), (100, 0), (100, 100), (0, 100)])
    ccw = shapely.Polygon([(10, 10), (20, 10), (20, 20), (10, 20)])
    five = shapely.Polygon([(10, 10), (10, 20), (15, 25), (20, 20), (20, 10)])
    touching = shapely.Polygon([(0, 10), (0, 20), (20, 20), (20, 10)])
    cw = shapely.Polygon([(10, 10), (10, 20), (20, 20), (20, 10)])
    got = wholly_inside(np.array([arc] * 4, dtype=object),
                        np.array([ccw, five, touching, cw], dtype=object))
    assert got.tolist() == [False, False, False, True]
