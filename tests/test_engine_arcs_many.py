"""`arcs.arc_vertices_many` gives `arcs.arc_vertices`' floats for many fronts at once, and
`arcs.rotate_many` gives `rect.rotate`'s (with `fire_batch.arc_params_many` `fire.arc_params`')."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from campo.engine.geometry.arcs import arc_vertices, arc_vertices_many, rotate_many
from campo.engine.geometry.rect import Rect, rotate


def test_many_arcs_are_the_single_ones() -> None:
    rng = np.random.default_rng(4)
    rects = [Rect(float(rng.uniform(0, 1800)), float(rng.uniform(0, 1200)),
                  float(rng.choice([0.0, 90.0, 180.0, 270.0, rng.uniform(0, 360)])),
                  float(rng.choice([25.0, 40.0, 80.0])), 40.0) for _ in range(500)]
    half = rng.choice([0.0, 22.5, 30.0, 45.0, 60.0], size=len(rects))
    reach = rng.uniform(50, 3000, size=len(rects))
    want = np.array([arc_vertices(r.front_left, r.front_right, r.front, float(h), float(d))
                     for r, h, d in zip(rects, half, reach)])
    got = arc_vertices_many(np.array([r.front_left for r in rects]),
                            np.array([r.front_right for r in rects]),
                            np.array([r.front for r in rects]), half, reach)
    assert np.array_equal(got, want)


def test_a_point_front_or_a_bad_angle() -> None:
    point = np.array([[1.0, 2.0]])
    facing = np.array([[0.0, 1.0]])
    assert arc_vertices_many(point, point, facing, np.array([30.0]), np.array([100.0])) is None
    with pytest.raises(ValueError, match="half-angle"):
        arc_vertices_many(point, point + 10, facing, np.array([90.0]), np.array([100.0]))


def test_many_turns_are_the_single_ones() -> None:
    rng = np.random.default_rng(7)
    facings = np.array([Rect(0.0, 0.0, float(h), 40.0, 40.0).front
                        for h in [0.0, 90.0, 180.0, 270.0, *rng.uniform(0, 360, 200)]])
    facings[:3] = [(0.0, 1.0), (-0.0, -1.0), (1.0, 0.0)]      # exact zeros: signed products
    for degrees in (rng.choice([0.0, 22.5, 45.0, 60.0], size=len(facings)),
                    -rng.choice([0.0, 22.5, 45.0, 60.0], size=len(facings)),
                    rng.uniform(-89, 89, size=len(facings))):
        want = np.array([rotate(tuple(f), float(d)) for f, d in zip(facings.tolist(), degrees)])
        assert rotate_many(facings, degrees).tobytes() == want.tobytes()


def test_arc_params_many_are_fire_arc_params() -> None:
    from campo.engine.rulesets.italia.board import Board
    from campo.engine.rulesets.italia.fire import arc_params
    from campo.engine.rulesets.italia.fire_batch import arc_params_many
    from campo.engine.state import GameState

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from engine_analysis import battle

    board = Board.of(GameState.from_dict(battle(60, 1800)))
    shooters = sorted(i for i, info in board.infos.items() if info.can_fire)
    assert len(shooters) > 20
    assert arc_params_many(board, shooters).tobytes() == arc_params(board, shooters).tobytes()
