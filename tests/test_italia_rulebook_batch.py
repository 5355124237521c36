"""The batched rulebook shortcuts (one numpy or shapely call for all bases) give exactly the
answers of the one-by-one computations they replace: placement warnings, shared contact lengths,
charge candidates, command and proximity gaps, rout and pursuit corridors."""

from __future__ import annotations

import random

import numpy as np
import pytest
import shapely

from campo.engine.geometry.contact import shared_lengths
from campo.engine.geometry.rect import Rect
from campo.engine.ruleset import OFF_TABLE_TOLERANCE_MM, OVERLAP_REPORTED_MM2, placement_problems
from campo.engine.rulesets.italia.board import NEAR_MM, Board
from campo.engine.rulesets.italia.charges import _candidates, candidates
from campo.engine.rulesets.italia.conduct import _Band, _foes_near, _inner_corners, _inner_rect
from campo.engine.rulesets.italia.relations import _generals_near
from campo.engine.state import GameState
from tests.engine_crowds import crowd_bases



def _crowd(seed: int, n: int = 60) -> GameState:
    """Bases packed on a small table (`tests.engine_crowds`)."""
    bases = crowd_bases(seed, n, (0.0, 90.0, 270.0))
    return GameState.from_dict({"ruleset": "italia-se-desta",
                                "table": {"width_mm": 700, "depth_mm": 600}, "bases": bases})


def _placement_one_by_one(state: GameState) -> list[tuple[str, str]]:
    """The warnings as first written: one shapely call per base and per pair."""
    width, depth = state.scenario.table.width_mm, state.scenario.table.depth_mm
    tol = OFF_TABLE_TOLERANCE_MM
    table = shapely.box(-tol, -tol, width + tol, depth + tol)
    out = [(f"bases({b.id})", "base lies partly off the table") for b in state.bases
           if not table.covers(state.rect(b.id).polygon)]
    for a, b in state.index.pairs_within(0.0):
        inter = shapely.intersection(state.rect(a).polygon, state.rect(b).polygon)
        if inter.area > OVERLAP_REPORTED_MM2:
            out.append((f"bases({a},{b})", f"{a} and {b} overlap by {inter.area:.0f} mm²"))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_placement_problems_equal_one_by_one(seed: int) -> None:
    state = _crowd(seed)
    got = [(p.key, p.message) for p in placement_problems(state)]
    assert got == _placement_one_by_one(_crowd(seed))
    assert any("overlap" in m for _, m in got) and any("off the table" in m for _, m in got)


@pytest.mark.parametrize("seed", range(3))
def test_board_shortcuts_equal_one_by_one(seed: int) -> None:
    state = _crowd(seed)
    board = Board.of(state)
    pairs = [(a, b) for a, others in board.touching.items() for b in others]
    assert pairs
    for a, b in pairs:
        assert board.shared_lengths(a, b) == shared_lengths(board.rect(a), board.rect(b),
                                                            board.contact_tol)
    for i in state.ids:
        assert candidates(board, i) == _candidates(board, i)
        poly = board.rect(i).polygon
        generals = [(g, float(shapely.distance(board.rect(g).polygon, poly)))
                    for g in board.near(i, board.mm(9.0) + 1e-6) if board.infos[g].is_general]
        assert _generals_near(board).get(i, []) == generals
        foes = [(o, float(shapely.distance(poly, board.rect(o).polygon)))
                for o in board.near(i, board.mm(12.0) + 1e-6)
                if board.infos[o].side != board.infos[i].side and not board.infos[o].is_general]
        assert _foes_near(board, board.mm(12.0) + 1e-6).get(i, []) == foes
    assert board.mm(12.0) <= NEAR_MM


def test_inner_corners_equal_the_shrunk_rectangles() -> None:
    rng = random.Random(5)
    rects = [Rect(rng.uniform(-500, 2000), rng.uniform(-500, 2000),
                  rng.choice([0.0, 90.0, 270.0, rng.uniform(0, 360), rng.uniform(-400, 800)]),
                  rng.choice([80.0, 25.0, 3.0]), rng.uniform(0.1, 400)) for _ in range(3000)]
    bands = [_Band(r.cx, r.cy, r.heading_deg, r.width, r.depth, r.front, r.right) for r in rects]
    for shrink in (0.0, 3.0, 60.0):
        want = np.array([_inner_rect(r, shrink).corners for r in rects])
        assert (_inner_corners(rects, shrink) == want).all()
        assert (_inner_corners(bands, shrink) == want).all()


@pytest.mark.parametrize("use_index", [True, False])
def test_neighbour_gaps_equal_the_distances(use_index: bool) -> None:
    state = _crowd(9, 80)
    state.use_index = use_index
    board = Board.of(state)
    _, starts, others, gaps = board._neighbours
    shapes = state.index.shapes
    rows = np.repeat(np.arange(len(shapes)), np.diff(starts))
    assert len(gaps) > len(shapes)
    assert gaps.tolist() == shapely.distance(shapes[rows], shapes[others]).tolist()
