"""`Board._neighbours` (the compiled gap sweep, GEOS for near-zero gaps) against the plain GEOS
query it replaces: the same pairs within reach and the same gaps to the bit, on random tables
with rotated, touching, overlapping and far-apart bases."""

from __future__ import annotations

import random
from typing import Any

import shapely

from campo.engine.rulesets.attila.board import Board
from campo.engine.state import GameState


def _reference(board: Board) -> dict[str, list[tuple[float, str]]]:
    index = board.state.index
    ids, shapes = index.ids, index.shapes
    si, bi = index.query_many(list(shapes), board.near_limit_mm)
    gaps = shapely.distance(shapes[si], shapes[bi]).tolist() if len(si) else []
    out: dict[str, list[tuple[float, str]]] = {i: [] for i in ids}
    for a, b, gap in zip(si.tolist(), bi.tolist(), gaps):
        if a != b:
            out[ids[a]].append((gap, ids[b]))
    for v in out.values():
        v.sort(key=lambda g: g[1])
    return out


def _b(i: str, x: float, y: float, h: float, w: float = 40, d: float = 20) -> dict[str, Any]:
    return {"id": i, "side": "A", "type": "FP", "x_mm": x, "y_mm": y,
            "heading_deg": h, "width_mm": w, "depth_mm": d, "traits": {}}


def test_neighbours_equal_geos_on_random_tables() -> None:
    rng = random.Random(5)
    for trial in range(6):
        bases = [_b(f"r{k}", rng.uniform(0, 2400), rng.uniform(0, 1200),
                    rng.choice([0.0, 90.0, rng.uniform(0, 360)])) for k in range(60)]
        # a line side by side (touching), one overlapping pair, one base inside another
        bases += [_b(f"l{k}", 300.0 + 40.0 * k, 600.0, 90.0) for k in range(5)]
        bases += [_b("o1", 900.0, 300.0, 30.0), _b("o2", 910.0, 305.0, 75.0),
                  _b("big", 1500.0, 900.0, 0.0, 80, 60), _b("in", 1500.0, 900.0, 45.0, 10, 10)]
        state = GameState.from_dict({"ruleset": "attila",
                                     "table": {"width_mm": 2400, "depth_mm": 1200},
                                     "bases": bases})
        board = Board.of(state)
        got = board._neighbours
        assert got == _reference(board), trial
        assert any(gap == 0.0 for gap, _ in got["l1"])      # touching neighbours found
