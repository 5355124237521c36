"""The batched attack-path search (engine/rulesets/federico/attack_paths.py) gives exactly the
one-at-a-time geometry: slides equal `motion.slide_convex` to the last bit, shared edge lengths
equal `contact.shared_lengths`, and a pair's paths do not depend on the other pairs searched with
it. Seeded random bases: touching, overlapping, far apart, at odd angles."""

from __future__ import annotations

import random

import pytest

from campo import engine
from campo.engine.geometry.contact import shared_lengths, shared_lengths_many
from campo.engine.geometry.motion import slide_convex
from campo.engine.geometry.rect import Rect, rotate
from campo.engine.rulesets.federico.attack_paths import _slide_many, paths_many, paths_of
from campo.engine.rulesets.federico.board import Board
from campo.engine.state import GameState


def _pairs(seed: int, n: int) -> list[tuple[Rect, Rect]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a = Rect(rng.uniform(0, 300), rng.uniform(0, 300),
                 rng.choice([0.0, 90.0, 180.0, 270.0, rng.uniform(0, 360)]), 40.0,
                 rng.choice([20.0, 30.0, 40.0]))
        if rng.random() < 0.5:     # near: face to face, beside, touching, overlapping
            b = Rect(a.cx + rng.choice([0.0, 20.0, 40.0, 30.2, -55.0]),
                     a.cy + rng.choice([0.0, 20.0, 40.5, 80.0, 110.0]),
                     (a.heading_deg + rng.choice([180.0, 90.0, 0.0, 173.0])) % 360.0, 40.0, 20.0)
        else:
            b = Rect(rng.uniform(0, 300), rng.uniform(0, 300), rng.uniform(0, 360), 40.0, 20.0)
        out.append((a, b))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_batched_slides_equal_slide_convex(seed: int) -> None:
    rng = random.Random(100 + seed)
    items = [(a, b, rotate(a.front, rng.choice([0.0, 45.0, -45.0, rng.uniform(-60, 60)])))
             for a, b in _pairs(seed, 400)]
    front, body = _slide_many(items)
    for (a, b, d), sf, sb in zip(items, front.tolist(), body.tolist()):
        assert sf == slide_convex((a.front_left, a.front_right), None, b.corners, b.polygon, d)
        assert sb == slide_convex(a.corners, None, b.corners, b.polygon, d)


@pytest.mark.parametrize("tolerance", [0.5, 2.5])
def test_batched_shared_lengths_equal_shared_lengths(tolerance: float) -> None:
    pairs = _pairs(7, 600)
    got = shared_lengths_many([a for a, _ in pairs], [b for _, b in pairs], tolerance)
    for (a, b), row in zip(pairs, got.tolist()):
        assert row == list(shared_lengths(a, b, tolerance).values())


def test_a_pairs_paths_do_not_depend_on_the_batch() -> None:
    state = GameState.from_dict({"ruleset": "federico",
                                 "table": {"width_mm": 1000, "depth_mm": 1000}, "bases": [],
                                 "settings": {"oblique_attack_max_deg": 45}})
    board = Board.of(state)
    pairs = _pairs(11, 150)
    together = paths_many(board, pairs)
    for (a, b), batch in zip(pairs, together):
        alone = paths_of(board, a, b)
        assert [(p.wheel_deg, p.oblique_deg, p.length_mm, p.final) for p in batch] == \
            [(p.wheel_deg, p.oblique_deg, p.length_mm, p.final) for p in alone]
    assert sum(len(p) for p in together) > 50      # the search found paths to compare


def test_bench_battle_attacks_batched_equal_one_by_one() -> None:
    """The analysis (all attacks judged in one batch) equals asking attack by attack."""
    from tests.bench_modules import bench_module

    scenario = bench_module("rulesets_analysis").federico_battle(40)
    batched = engine.analyze(scenario)
    state = GameState.from_dict(scenario)
    for base_id, entry in batched["bases"].items():
        one_by_one = [state.charge(base_id, c["target"]).to_dict() for c in entry["charges"]]
        assert [c | {} for c in entry["charges"]] == one_by_one
