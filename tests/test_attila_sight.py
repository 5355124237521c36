"""ATTILA's line of sight (`engine/rulesets/attila/sight.py`: the bodies near the shots, staged
lines) against a deliberately naive oracle: every sampled line of every shot tested by GEOS
against every other body and every wood and hill, on seeded random crowded tables."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
import shapely

from campo.engine.rulesets.attila import shooting, sight
from campo.engine.rulesets.attila.board import Board
from campo.engine.state import GameState


def _battle(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    bases = []
    for i in range(40):
        side = "A" if i % 2 else "B"
        traits = {"missile": rng.choice(["javelins", "slings", "bows"])} if i % 3 == 0 else {}
        kind = rng.choice(["FL", "FP", "CL", "general"]) if not traits else "FL"
        bases.append({"id": f"b{i}", "side": side, "type": kind,
                      "x_mm": rng.uniform(300, 900), "y_mm": (rng.uniform(300, 460) if side == "A"
                                                              else rng.uniform(440, 600)),
                      "heading_deg": (90 if side == "A" else 270) + rng.uniform(-25, 25),
                      "width_mm": 40, "depth_mm": 20 if kind != "general" else 40,
                      "traits": traits})
    terrain = [{"id": "wood", "kind": "wood", "polygon_mm": [[500, 430], [620, 420], [640, 500],
                                                             [520, 520]]},
               {"id": "hill", "kind": "hill", "polygon_mm": [[700, 400], [800, 400], [820, 470],
                                                             [690, 480]]}]
    return {"ruleset": "attila", "table": {"width_mm": 1200, "depth_mm": 900},
            "bases": bases, "terrain": terrain}


def _oracle(board: Board, shots: sight.Shots) -> list[bool]:
    blocks, frames = sight._bodies(board)
    shrunk = frames.polygons()
    areas = sight.sight_areas(board)
    out = []
    for q in range(len(shots.origins)):
        ends = shots.ends[shots.end_owner == q]
        bodies = [shrunk[b] for b in range(len(board.order))
                  if blocks[b] and b not in shots.ignore[q]]
        counted = [board.areas[a] for n, a in enumerate(areas) if not shots.uncounted[q, n]]
        seen = False
        for o in shots.origins[q]:
            for e in ends:
                line = shapely.LineString([o, e])
                if any(line.intersects(b) for b in bodies):
                    continue
                if any(line.relate_pattern(a, "T********") for a in counted):
                    continue
                seen = True
                break
            if seen:
                break
        out.append(seen)
    return out


@pytest.mark.parametrize("near_test_pairs", [0, sight.NEAR_TEST_PAIRS], ids=["all", "near"])
@pytest.mark.parametrize("seed", range(3))
def test_sight_equals_a_naive_oracle(seed: int, near_test_pairs: int,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """With every body swept (the whole table's many shots) and with those near the shots."""
    monkeypatch.setattr(sight, "NEAR_TEST_PAIRS", near_test_pairs)
    asked: list[tuple[Board, sight.Shots, np.ndarray]] = []

    def clear(board: Board, shots: sight.Shots) -> np.ndarray:
        found = sight.clear(board, shots)
        asked.append((board, shots, found))
        return found

    monkeypatch.setattr(shooting, "clear", clear)
    state = GameState.from_dict(_battle(seed))
    board = Board.of(state)
    shooting.targets_of_many(board, board.ids)
    ((board, shots, found),) = asked
    want = _oracle(board, shots)
    assert found.tolist() == want
    assert 0 < sum(want) < len(want)            # both answers exercised
