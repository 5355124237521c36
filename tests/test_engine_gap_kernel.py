"""The compiled neighbour pairs and gaps are the STRtree's pairs and GEOS's gaps
(engine/geometry/gap_kernel.py).

Random bases, some square to the table, plus bases side by side, corner to corner,
overlapping, one inside another and 1e-9 mm apart: every pair and every gap the kernel decides
must equal `candidate_pairs` and `shapely.distance` bit for bit (0 for bases exactly side by
side or overlapping), and the pairs nearly touching must be left to GEOS.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from campo.engine.geometry.gap_kernel import UNSURE, near_pairs, quad_gap
from campo.engine.geometry.index import BaseIndex
from campo.engine.geometry.rect import Rect


def _rects(rng: np.random.Generator, n: int) -> list[Rect]:
    rects = [Rect(float(rng.uniform(0, 1200)), float(rng.uniform(0, 800)),
                  float(rng.uniform(0, 360)), float(rng.choice([25.0, 40.0, 80.0])),
                  float(rng.choice([30.0, 40.0]))) for _ in range(n)]
    # square to the table (edges' boxes as far apart as the edges: GEOS's pruning matters)
    rects += [Rect(float(rng.uniform(0, 1200)), float(rng.uniform(0, 800)),
                   float(rng.choice([0.0, 90.0, 180.0, 270.0])), float(rng.choice([25.0, 80.0])),
                   40.0) for _ in range(n)]
    base = Rect(600.0, 400.0, 30.0, 80.0, 40.0)
    rects += [
        base,
        Rect(*base.from_local(80.0, 0.0), 30.0, 80.0, 40.0),          # side by side
        Rect(*base.from_local(80.0 + 1e-9, 40.0), 30.0, 80.0, 40.0),   # corner to corner
        Rect(*base.from_local(10.0, 5.0), 75.0, 80.0, 40.0),          # overlapping
        Rect(*base.from_local(0.0, 0.0), 30.0, 20.0, 10.0),           # inside
        Rect(*base.from_local(0.0, -40.0 - 1e-9), 30.0, 80.0, 40.0),  # behind, 1e-9 apart
    ]
    return rects


@pytest.mark.parametrize("seed", range(6))
def test_pairs_and_gaps_are_the_strtree_and_geos(seed: int) -> None:
    rects = _rects(np.random.default_rng(seed), 150)
    shapes = [r.polygon for r in rects]
    reach = 350.0
    want_i, want_j = BaseIndex([str(k) for k in range(len(rects))], shapes).candidate_pairs(reach)
    corners = np.array([r.corners for r in rects], dtype=float)
    got_i, got_j, gaps = near_pairs(corners, reach)
    assert np.array_equal(got_i, want_i) and np.array_equal(got_j, want_j)
    geos = shapely.distance(np.array(shapes)[got_i], np.array(shapes)[got_j])
    sure = gaps != UNSURE
    assert np.array_equal(gaps[sure], geos[sure])
    assert np.all(geos[~sure] <= 1e-6)   # only touching or overlapping pairs are left to GEOS
    assert sure.sum() > 0.9 * len(gaps)


def test_touching_overlapping_and_contained_quads() -> None:
    base = Rect(0.0, 0.0, 0.0, 80.0, 40.0)
    beside = Rect(*base.from_local(80.0, 0.0), 0.0, 80.0, 40.0)
    inner = Rect(0.0, 0.0, 17.0, 20.0, 10.0)
    far = Rect(*base.from_local(300.0, 0.0), 0.0, 80.0, 40.0)
    quads = np.array([r.corners for r in (base, beside, inner, far)], dtype=float)
    assert quad_gap(quads, 0, 1) == 0.0 == shapely.distance(base.polygon, beside.polygon)
    # 1e-9 mm apart: the walk cannot be sure of GEOS's answer, GEOS decides
    apart = Rect(*base.from_local(80.0 + 1e-9, 0.0), 0.0, 80.0, 40.0)
    assert quad_gap(np.array([base.corners, apart.corners], dtype=float), 0, 1) == UNSURE
    assert quad_gap(quads, 0, 2) == 0.0       # GEOS: one holds the other
    assert quad_gap(quads, 2, 0) == 0.0
    assert quad_gap(quads, 0, 3) == shapely.distance(base.polygon, far.polygon)


def _grid(heading: float, gap_x: float, gap_y: float, n: int = 120) -> list[Rect]:
    """Bases in a grid on a table turned by ``heading``: many edges parallel and many pairs of
    edges exactly as far apart (ties in GEOS's walk, both ways round)."""
    origin = Rect(600.0, 400.0, heading, 80.0, 40.0)
    return [Rect(*origin.from_local((80.0 + gap_x) * (k % 12) - 500.0,
                                    (40.0 + gap_y) * (k // 12) - 300.0),
                 heading + 180.0 * (k % 3 == 0), 80.0, 40.0) for k in range(n)]


@pytest.mark.parametrize("heading", [0.0, 90.0, 180.0, 270.0, 30.0, 137.5])
@pytest.mark.parametrize("gap_x, gap_y", [(0.0, 0.0), (5.0, 12.5), (0.1, 1e-9)])
def test_both_gaps_of_a_pair_are_geos_in_its_order(heading: float, gap_x: float,
                                                   gap_y: float) -> None:
    """The gap of (i, j) and of (j, i) share their segment distances: each must still be GEOS's
    distance with its own operand order, on tables full of ties."""
    rects = _grid(heading, gap_x, gap_y)
    shapes = np.array([r.polygon for r in rects])
    corners = np.array([r.corners for r in rects], dtype=float)
    got_i, got_j, gaps = near_pairs(corners, 350.0)
    want_i, want_j = BaseIndex([str(k) for k in range(len(rects))], shapes).candidate_pairs(350.0)
    assert np.array_equal(got_i, want_i) and np.array_equal(got_j, want_j)
    sure = gaps != UNSURE
    geos = shapely.distance(shapes[got_i[sure]], shapes[got_j[sure]])
    assert np.array_equal(gaps[sure], geos)
    assert np.all(shapely.distance(shapes[got_i[~sure]], shapes[got_j[~sure]]) <= 1e-6)


def test_a_crowded_table_walks_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """More pairs than the room guessed: the sweep counts them and walks again, same answer."""
    import campo.engine.geometry.gap_kernel as kernel

    rects = _rects(np.random.default_rng(7), 60)
    corners = np.array([r.corners for r in rects], dtype=float)
    roomy = near_pairs(corners, 350.0)
    monkeypatch.setattr(kernel, "PAIRS_PER_QUAD", 1)
    crowded = near_pairs(corners, 350.0)
    for want, got in zip(roomy, crowded):
        assert np.array_equal(want, got)
    assert len(roomy[0]) > len(rects)
