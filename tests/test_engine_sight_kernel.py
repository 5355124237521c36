"""The compiled sight-line kernel gives the numpy path's answers (engine/geometry/sight_kernel.py).

Random rectangles and lines, including lines through grid-cell corners, along cell edges, ending
inside bodies and grazing them, are tested against `segments.segments_near_quads` body by body.
"""

from __future__ import annotations

import numpy as np
import pytest

from campo.engine.geometry.rect import Rect
from campo.engine.geometry.segments import segments_near_quads
from campo.engine.geometry.sight_kernel import (
    build_grid,
    first_clear_lines,
    no_terrain,
    segment_near_quad,
)


def first_body_clear_lines(*args: object) -> np.ndarray:
    """The first line clear of bodies (no terrain)."""
    line, unsure = first_clear_lines(*args, no_terrain())
    assert not unsure.any()
    return line


def _quads(rng: np.random.Generator, n: int, size: float = 600.0) -> np.ndarray:
    rects = [Rect(float(rng.uniform(0, size)), float(rng.uniform(0, size)),
                  float(rng.uniform(0, 360)), float(rng.uniform(10, 80)), float(rng.uniform(10, 40)))
             for _ in range(n)]
    return np.array([r.corners for r in rects], dtype=float)


@pytest.mark.parametrize("reach", [0.0, 12.5])
def test_one_pair_matches_numpy(reach: float) -> None:
    rng = np.random.default_rng(3)
    quads = _quads(rng, 400)
    p0 = rng.uniform(-50, 650, (400, 2))
    p1 = rng.uniform(-50, 650, (400, 2))
    p1[:50] = p0[:50]                                 # points
    p1[50:100, 1] = p0[50:100, 1]                     # horizontal lines
    p0[100:150] = quads[100:150, 0]                   # starting on a corner
    expected = segments_near_quads(p0, p1, quads, reach)
    got = [segment_near_quad(a[0], a[1], b[0], b[1], quads, k, reach)
           for k, (a, b) in enumerate(zip(p0, p1))]
    assert got == expected.tolist()
    assert 0 < sum(got) < len(got)


def _brute_clear(origins, ends, end_starts, shooter, reach, own, quads):
    """Per shot, every line that no body (outside its shooter's ``own``) comes within
    ``reach`` of."""
    out = []
    for k in range(len(end_starts) - 1):
        s = shooter[k]
        clear = []
        lines = (end_starts[k + 1] - end_starts[k]) * origins.shape[1]
        for line in range(lines):
            e = end_starts[k] + line // origins.shape[1]
            o = origins[s, line % origins.shape[1]]
            n = len(quads)
            hit = segments_near_quads(np.repeat(o[None], n, 0), np.repeat(ends[e][None], n, 0),
                                      quads, reach[k])
            if not (hit & ~own[s]).any():
                clear.append(line)
        out.append(clear)
    return out


def _brute_first_clear(origins, ends, end_starts, reach, own, quads):
    """The first line of each shot that no body (outside ``own``) comes within ``reach`` of."""
    shooter = np.arange(len(end_starts) - 1)
    return [c[0] if c else -1 for c in _brute_clear(origins, ends, end_starts, shooter, reach,
                                                      own, quads)]


@pytest.mark.parametrize("cell", [7.0, 40.0, 1000.0])
def test_grid_walk_finds_every_blocker(cell: float) -> None:
    rng = np.random.default_rng(11)
    quads = _quads(rng, 120)
    shots = 600
    origins = rng.uniform(0, 600, (shots, 3, 2))
    origins[:20, :, :] = np.round(origins[:20] / cell) * cell      # on cell corners
    ends = rng.uniform(0, 600, (shots * 4, 2))
    ends[:40, 0] = origins[:10, 0, 0].repeat(4)                    # vertical lines
    end_starts = np.arange(0, shots * 4 + 1, 4, dtype=np.int64)
    reach = np.where(np.arange(shots) % 3 == 0, 12.5, 0.0)
    own = np.zeros((shots, len(quads)), dtype=bool)
    own[np.arange(shots), rng.integers(0, len(quads), shots)] = True
    grid, starts, items = build_grid(quads, float(reach.max()), cell)
    centre = quads.mean(axis=1)
    radius = np.linalg.norm(quads - centre[:, None, :], axis=2).max(axis=1)
    none = np.zeros((1, len(quads)), dtype=bool)
    got = first_body_clear_lines(
        origins, ends, end_starts, np.arange(shots, dtype=np.int64),
        np.full(shots, -1, dtype=np.int64), np.full(shots, -1, dtype=np.int64), reach,
        np.zeros(shots, dtype=np.int64), np.arange(shots, dtype=np.int64),
        np.zeros(shots, dtype=np.int64), quads, centre, radius, own, none.repeat(shots, 0),
        none, none.repeat(shots, 0), grid, starts, items)
    expected = _brute_first_clear(origins, ends, end_starts, reach, own, quads)
    assert got.tolist() == expected
    assert -1 in expected and 0 in expected


def test_shots_sharing_a_shooter_from_any_line() -> None:
    """Shots of one shooter share its recent blockers; the walk starts at any line."""
    rng = np.random.default_rng(5)
    quads = _quads(rng, 150)
    shooters, per = 60, 6
    shots = shooters * per
    origins = rng.uniform(0, 600, (shooters, 3, 2))
    ends = rng.uniform(0, 600, (shots * 5, 2))
    end_starts = np.arange(0, shots * 5 + 1, 5, dtype=np.int64)
    shooter = np.arange(shots, dtype=np.int64) // per
    reach = np.where(shooter % 4 == 0, 12.5, 0.0)
    own = np.zeros((shooters, len(quads)), dtype=bool)
    own[np.arange(shooters), rng.integers(0, len(quads), shooters)] = True
    grid, starts, items = build_grid(quads, float(reach.max()), 40.0)
    centre = quads.mean(axis=1)
    radius = np.linalg.norm(quads - centre[:, None, :], axis=2).max(axis=1)
    none = np.zeros((1, len(quads)), dtype=bool)
    todo = np.arange(shots, dtype=np.int64)
    start = rng.integers(0, 3, shots).astype(np.int64)
    args = (origins, ends, end_starts, shooter, np.full(shots, -1, dtype=np.int64),
            np.full(shots, -1, dtype=np.int64), reach, np.zeros(shots, dtype=np.int64), todo,
            start, quads, centre, radius, own, none.repeat(shooters, 0), none,
            none.repeat(shooters, 0), grid, starts, items)
    expected = [[line for line in c if line >= start[k]]
                for k, c in enumerate(_brute_clear(origins, ends, end_starts, shooter, reach, own,
                                                   quads))]
    first = first_body_clear_lines(*args)
    assert first.tolist() == [c[0] if c else -1 for c in expected]
    assert any(len(c) > 1 for c in expected) and any(not c for c in expected)
