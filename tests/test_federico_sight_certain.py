"""The sight certificates (engine/rulesets/federico/sight_certain.py) are sound: every sampled
line they call blocked is blocked for the exact test (`SightField.clear_many`). Checked on every
line of every shot of bench battles and of seeded random positions, so that skipping certified
lines can never change a line-of-sight answer."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from campo.engine.rulesets.federico import fire_batch
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.fire import sight_query
from campo.engine.rulesets.federico.sight_certain import surely_blocked
from campo.engine.state import GameState
from tests.bench_modules import bench_module
from tests.test_rulesets_fast_path import random_scenario


def _bench_battle(n: int) -> dict:
    return bench_module("rulesets_analysis").federico_battle(n)


def _shots(board: Board) -> list[tuple[str, str, object]]:
    """Every (firer, target, part) the analysis measures sight for."""
    captured: list[list[tuple[str, str, object]]] = []
    original = fire_batch._sight_many

    def spy(b: Board, shots: list[tuple[str, str, object]]) -> list[bool]:
        captured.append(list(shots))
        return original(b, shots)

    fire_batch._sight_many = spy
    try:
        fire_batch.all_targets(board)
    finally:
        fire_batch._sight_many = original
    return captured[0] if captured else []


@pytest.mark.parametrize("scenario", [_bench_battle(50)] + [
    random_scenario("federico", seed) for seed in range(4)], ids=lambda s: str(len(s["bases"])))
def test_every_certified_line_is_blocked(scenario: dict) -> None:
    scenario = dict(scenario, settings={})          # the default F5 reading ("any line")
    board = Board.of(GameState.from_dict(scenario))
    shots = _shots(board)
    if not shots:
        pytest.skip("no shots")
    origins, ends = fire_batch._sight_points(board, shots)
    queries = [sight_query(board, a, b) for a, b, _ in shots]
    cert = surely_blocked(board, origins, ends, queries)
    s, i, j = np.nonzero(cert)
    assert len(s) > 0                               # the check has lines to check
    lines = shapely.linestrings(np.stack([origins[s, i], ends[s, j]], axis=1))
    clear = board.sight_field.clear_many(lines, s, queries)
    assert not clear.any(), f"{int(clear.sum())} certified lines are clear"
