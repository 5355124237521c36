"""`engine.geometry.motion.SweptArea` (ATTILA charge paths) answers exactly as the shapely area it
stands in for: ``shapely.intersects(swept_area(poses).buffer(-tol), shape)`` — on seeded random
wheels and straight moves, with bases placed at random and, above all, touching the path's edges
within a fraction of the tolerance (a neighbour in the line), where the certain answers stop."""

from __future__ import annotations

import random

import numpy as np
import pytest
import shapely

from campo.engine.geometry.motion import SweptArea, swept_area, wheel, wheel_poses
from campo.engine.geometry.rect import Rect


def _path(rng: random.Random) -> tuple[list[Rect], Rect, Rect]:
    start = Rect(rng.uniform(-50, 50), rng.uniform(-50, 50), rng.uniform(0, 360),
                 rng.choice([30.0, 40.0, 80.0]), rng.choice([20.0, 30.0, 40.0]))
    turn = rng.choice([0.0, rng.uniform(-90, 90)])
    wheeled = wheel(start, turn) if abs(turn) > 1e-9 else start
    d = rng.uniform(0, 150)
    final = wheeled.moved(wheeled.front[0] * d, wheeled.front[1] * d)
    poses = (wheel_poses(start, turn) if abs(turn) > 1e-9 else [start]) + [final]
    return poses, start, wheeled


def _bases_near(rng: random.Random, tol: float, poses: list[Rect]) -> list[Rect]:
    out = [Rect(rng.uniform(-150, 150), rng.uniform(-150, 150), rng.uniform(0, 360),
                rng.choice([40.0, 80.0]), rng.choice([20.0, 30.0])) for _ in range(6)]
    for pose in (poses[0], poses[-2] if len(poses) > 1 else poses[0], poses[-1]):
        for side in (-1, 1):
            gap = rng.choice([rng.uniform(-tol - 0.3, 0.3), tol + rng.uniform(-0.2, 0.2),
                              -tol + rng.uniform(-0.2, 0.2), rng.uniform(-1, 4)])
            shift = side * (pose.width + gap)
            out.append(pose.moved(pose.right[0] * shift, pose.right[1] * shift,
                                  rng.choice([0.0, rng.uniform(-5, 5)])))
        gap = rng.choice([rng.uniform(-tol - 0.3, 0.3), tol + rng.uniform(-0.2, 0.2)])
        out.append(pose.moved(pose.front[0] * (pose.depth + gap), pose.front[1] * (pose.depth + gap)))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_rect_answers_equal_the_shapely_area(seed: int) -> None:
    rng = random.Random(seed)
    yes = no = 0
    for _ in range(150):
        poses, _, _ = _path(rng)
        tol = rng.choice([2.0, 1.0, 0.0])
        sweep = SweptArea(poses, tol)
        inner = swept_area(poses).buffer(-tol)
        for base in _bases_near(rng, tol, poses):
            exact = bool(shapely.intersects(inner, base.polygon))
            assert sweep.meets_rect(base) == exact
            assert not sweep.certainly_meets_rect(base) or exact
            yes, no = yes + exact, no + (not exact)
    assert yes > 100 and no > 100                       # both answers exercised


@pytest.mark.parametrize("seed", range(2))
def test_terrain_answers_equal_the_shapely_area(seed: int) -> None:
    rng = random.Random(100 + seed)
    for _ in range(150):
        poses, _, _ = _path(rng)
        tol = rng.choice([2.0, 1.0, 0.0])
        sweep = SweptArea(poses, tol)
        inner = swept_area(poses).buffer(-tol)
        for _ in range(4):
            cx, cy = rng.uniform(-150, 150), rng.uniform(-150, 150)
            pts = np.array([[cx + rng.uniform(-60, 60), cy + rng.uniform(-60, 60)]
                            for _ in range(rng.choice([2, 3, 5]))])
            if len(pts) == 2:
                shape, verts = shapely.linestrings(pts), pts
            else:
                shape = shapely.convex_hull(shapely.multipoints(pts))
                if shape.geom_type != "Polygon":
                    continue
                verts = shapely.get_coordinates(shape.exterior)
            exact = bool(shapely.intersects(inner, shape))
            assert sweep.meets(verts, shape) == exact
            assert not sweep.certainly_meets(shape) or exact

