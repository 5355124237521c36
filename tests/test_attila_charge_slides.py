"""`charges._slide` (the compiled ray search behind a GEOS "already touching" test) gives
exactly `motion.slide_convex`'s floats: random poses, touching and overlapping bases, fronts
(two points) and whole bases, on a board of real ATTILA bases."""

from __future__ import annotations

import random
from typing import Any

from campo.engine.geometry.motion import slide_convex
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.charges import _slide
from campo.engine.state import GameState


def _base(i: str, side: str, x: float, y: float, h: float) -> dict[str, Any]:
    return {"id": i, "side": side, "type": "FP", "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": 40, "depth_mm": 20, "traits": {}}


def test_slides_equal_slide_convex_to_the_last_bit() -> None:
    rng = random.Random(11)
    bases = [_base("a", "A", 400.0, 300.0, 90.0)]
    bases += [_base(f"t{k}", "B", rng.uniform(250, 550), rng.uniform(320, 520),
                    rng.uniform(0, 360)) for k in range(30)]
    bases.append(_base("touch", "B", 400.0, 320.0, 270.0))     # front to front, touching
    state = GameState.from_dict({"ruleset": "attila", "table": {"width_mm": 1200,
                                                                "depth_mm": 900},
                                 "bases": bases})
    board = Board.of(state)
    start = board.rect("a")
    hits = 0
    for k in range(200):
        moving_rect = start.pivoted(start.front_left if k % 2 else start.front_right,
                                    rng.uniform(-90, 90))
        target = rng.choice([b["id"] for b in bases[1:]])
        goal = board.rect(target)
        for moving, shape in (((moving_rect.front_left, moving_rect.front_right), None),
                              (moving_rect.corners, None),
                              (moving_rect.corners, moving_rect.polygon)):
            for d in (moving_rect.front, start.front):
                want = slide_convex(moving, shape, goal.corners, None, d)
                got = _slide(board, moving, shape, target, d)
                assert got == want or (got != got and want != want), (k, target)
                hits += want < float("inf")
    assert hits > 50
    assert _slide(board, start.corners, None, "touch", start.front) == 0.0
