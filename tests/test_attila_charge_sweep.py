"""`engine.rulesets.attila.sweeps.ChargeSweep` (lazy piece projections, more "moved away"
proofs before GEOS) answers exactly as the shapely area it stands in for,
``shapely.intersects(swept_area(poses).buffer(-tol), shape)``, and as `SweptArea` — on seeded
random wheels and straight moves with bases touching the path's edges within a fraction of the
tolerance (neighbours in the line, the rear corner swinging into them), where the certain
answers stop and the new proofs work."""

from __future__ import annotations

import random

import pytest
import shapely

from campo.engine.geometry.motion import SweptArea, swept_area, wheel, wheel_poses
from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.attila.sweeps import ChargeSweep


def _path(rng: random.Random) -> list[Rect]:
    start = Rect(rng.uniform(-50, 50), rng.uniform(-50, 50), rng.uniform(0, 360),
                 rng.choice([30.0, 40.0, 80.0]), rng.choice([20.0, 30.0, 40.0]))
    turn = rng.choice([0.0, rng.uniform(-90, 90), rng.choice([-1, 1]) * rng.uniform(2, 30)])
    wheeled = wheel(start, turn) if abs(turn) > 1e-9 else start
    d = rng.uniform(0, 150)
    final = wheeled.moved(wheeled.front[0] * d, wheeled.front[1] * d)
    return (wheel_poses(start, turn) if abs(turn) > 1e-9 else [start]) + [final]


def _bases_near(rng: random.Random, tol: float, poses: list[Rect]) -> list[Rect]:
    """Random bases, and bases beside / ahead of the start, the last wheel pose and the final
    pose, overlapping or apart by about the tolerance, some slightly turned."""
    out = [Rect(rng.uniform(-150, 150), rng.uniform(-150, 150), rng.uniform(0, 360),
                rng.choice([40.0, 80.0]), rng.choice([20.0, 30.0])) for _ in range(4)]
    for pose in (poses[0], poses[-2] if len(poses) > 1 else poses[0], poses[-1]):
        for side in (-1, 1):
            for _ in range(2):
                gap = rng.choice([rng.uniform(-tol - 0.3, 0.3), tol + rng.uniform(-0.2, 0.2),
                                  -tol + rng.uniform(-0.2, 0.2), rng.uniform(-4, 1)])
                shift = side * (pose.width + gap)
                out.append(pose.moved(pose.right[0] * shift, pose.right[1] * shift,
                                      rng.choice([0.0, rng.uniform(-5, 5)])))
        gap = rng.choice([rng.uniform(-tol - 0.3, 0.3), tol + rng.uniform(-0.2, 0.2)])
        out.append(pose.moved(pose.front[0] * (pose.depth + gap),
                              pose.front[1] * (pose.depth + gap)))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_charge_sweep_answers_equal_the_shapely_area(seed: int) -> None:
    rng = random.Random(500 + seed)
    yes = no = spared = 0
    for _ in range(150):
        poses = _path(rng)
        tol = rng.choice([2.0, 2.0, 1.0, 0.0])
        inner = swept_area(poses).buffer(-tol)
        plain = SweptArea(poses, tol)
        for base in _bases_near(rng, tol, poses):
            exact = bool(shapely.intersects(inner, base.polygon))
            sweep = ChargeSweep(poses, tol)
            assert sweep.meets_rect(base) == exact
            assert plain.meets_rect(base) == exact
            assert not sweep.certainly_meets_rect(base) or exact
            # the proof itself, asked directly: "clear" is never said of a base in the area
            moved_clear = sweep._clear_moved_away(base)
            assert not (moved_clear and exact)
            spared += moved_clear and not SweptArea(poses, tol)._clear_moved_away(base)
            yes, no = yes + exact, no + (not exact)
    assert yes > 100 and no > 100                       # both answers exercised
    assert spared > 10                                  # the extra proofs are exercised


def test_charge_sweep_terrain_answers_equal_sweptarea() -> None:
    rng = random.Random(900)
    for _ in range(100):
        poses = _path(rng)
        tol = rng.choice([2.0, 1.0])
        plain, sweep = SweptArea(poses, tol), ChargeSweep(poses, tol)
        for _ in range(4):
            cx, cy = rng.uniform(-150, 150), rng.uniform(-150, 150)
            shape = shapely.convex_hull(shapely.multipoints(
                [[cx + rng.uniform(-60, 60), cy + rng.uniform(-60, 60)] for _ in range(5)]))
            if shape.geom_type != "Polygon":
                continue
            assert sweep.certainly_meets(shape) == plain.certainly_meets(shape)
            verts = shapely.get_coordinates(shape.exterior)
            assert sweep.meets(verts, shape) == plain.meets(verts, shape)


def test_lazy_pieces_equal_sweptarea_pieces() -> None:
    """The lazily computed projections are `SweptArea._piece_parts`'s, to the last bit."""
    rng = random.Random(77)
    for _ in range(200):
        poses = _path(rng)
        ours, theirs = ChargeSweep(poses, 2.0)._piece_parts, SweptArea(poses, 2.0)._piece_parts
        assert len(ours) == len(theirs)
        for (pts, box, extents), (pts2, box2, extents2) in zip(ours, theirs):
            assert (pts, box, list(extents)) == (pts2, box2, extents2)


@pytest.mark.parametrize("seed", range(3))
def test_box_skips_and_known_outside_answer_as_sweptarea(seed: int) -> None:
    """`certainly_meets_rect` with its bounding-box skips, and `meets_rect` told a base is not
    certainly inside (as `paths.enemy_blocks` tells it), answer exactly as `SweptArea`."""
    rng = random.Random(700 + seed)
    skipped = 0
    for _ in range(150):
        poses = _path(rng)
        tol = rng.choice([2.0, 1.0, 0.0])
        plain = SweptArea(poses, tol)
        for base in _bases_near(rng, tol, poses):
            sweep = ChargeSweep(poses, tol)
            certain = plain.certainly_meets_rect(base)
            assert sweep.certainly_meets_rect(base) == certain
            if not certain:
                assert ChargeSweep(poses, tol).meets_rect(base, True) == plain.meets_rect(base)
            xs = [x for x, _ in base.corners]
            ys = [y for _, y in base.corners]
            box = (min(xs), min(ys), max(xs), max(ys))
            skipped += sum(not (box[2] < b[0] or box[0] > b[2] or box[3] < b[1] or box[1] > b[3])
                           for b in sweep._inner_boxes) < len(sweep._inner_boxes)
    assert skipped > 100


def test_terrain_outline_shortcut_answers_as_sweptarea() -> None:
    rng = random.Random(901)
    for _ in range(150):
        poses = _path(rng)
        tol = rng.choice([2.0, 1.0])
        plain = SweptArea(poses, tol)
        for _ in range(4):
            cx, cy = rng.uniform(-150, 150), rng.uniform(-150, 150)
            shape = shapely.convex_hull(shapely.multipoints(
                [[cx + rng.uniform(-60, 60), cy + rng.uniform(-60, 60)] for _ in range(5)]))
            if shape.geom_type != "Polygon":
                continue
            outline = shapely.get_coordinates(shape.exterior).tolist()
            sweep = ChargeSweep(poses, tol)
            assert sweep.certainly_meets(shape, outline) == plain.certainly_meets(shape)
            verts = shapely.get_coordinates(shape.exterior)
            assert ChargeSweep(poses, tol).meets(verts, shape, outline) == plain.meets(verts, shape)
