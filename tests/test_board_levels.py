"""`BoardBase.levels_of`: the hill levels of a few bases, asked without the whole table's
`holding`, are `levels`' (the highest hill holding the base's centre, 0 off hills), here on
nested and overlapping hills, one below the table, with bases on a hill's edge."""

from __future__ import annotations

import copy

import numpy as np

from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.warmup import WARMUP_SCENARIO
from campo.engine.scenario import parse_scenario
from campo.engine.state import GameState


def _square(x: float, y: float, size: float) -> list[list[float]]:
    return [[x, y], [x + size, y], [x + size, y + size], [x, y + size]]


def _board() -> tuple[Board, dict[str, int]]:
    data = copy.deepcopy(WARMUP_SCENARIO)
    data["terrain"] = [
        {"id": "low", "kind": "hill", "polygon_mm": _square(0, 0, 400), "level": 1},
        {"id": "top", "kind": "hill", "polygon_mm": _square(100, 100, 200), "level": 2},
        {"id": "wood", "kind": "wood", "polygon_mm": _square(0, 0, 900)},
        {"id": "dip", "kind": "hill", "polygon_mm": _square(600, 0, 200), "level": -1},
        {"id": "side", "kind": "hill", "polygon_mm": _square(300, 0, 400), "level": 1},
    ]
    # centres: off hills, on low, on top (inside low), on the dip alone, where dip and side
    # overlap, on low's edge (covered), on the table beyond everything
    spots = {"off": (1000, 1000), "low": (50, 50), "top": (200, 200), "dip": (750, 150),
             "dip+side": (650, 150), "edge": (400, 380), "far": (1500, 800)}
    base = data["bases"][0]
    data["bases"] = [dict(base, id=name, x_mm=float(x), y_mm=float(y), heading_deg=0.0)
                     for name, (x, y) in spots.items()]
    board = Board.of(GameState(parse_scenario(data)))
    want = {"off": 0, "low": 1, "top": 2, "dip": -1, "dip+side": 1, "edge": 1, "far": 0}
    return board, want


def test_levels_of_a_few_rows_are_the_whole_tables() -> None:
    board, want = _board()
    assert {i: board.level(i) for i in board.order} == want
    rows = board.positions(["top", "dip", "far", "top"])
    assert board.levels_of(rows).tolist() == [2, -1, 0, 2]
    every = np.arange(len(board.order))
    assert board.levels_of(every).tolist() == board.levels.tolist()
    assert board.levels_of(np.zeros(0, dtype=np.int64)).tolist() == []
