"""The compiled terrain shortcuts of the sight tests answer as GEOS does: the wall verdicts
(engine/geometry/wall_kernel.py) where they are sure, on random lines, touching and grazing ones
included, and the convex-area test (`segments.convex_edges`) as "equal to its convex hull"."""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import LineString, MultiLineString, Polygon

from campo.engine.geometry.segments import convex_edges
from campo.engine.geometry.wall_kernel import BLOCKED, UNSURE, wall_arrays, wall_verdicts

WALLS = np.array([
    LineString([(100, 200), (300, 200)]),                         # horizontal
    LineString([(0, 0), (150, 120), (260, 90), (400, 300)]),      # a bent crest
    LineString([(50, 50), (50, 350)]),                            # vertical
    MultiLineString([[(0, 0), (1, 1)], [(5, 5), (9, 9)]]),        # not plain: GEOS
    LineString([(10, 10), (10, 10), (200, 13)]),                  # a repeated vertex
], dtype=object)


def _lines(rng: np.random.Generator, n: int) -> np.ndarray:
    """Random lines, with many ties: ending on a wall, along it, at exactly a corridor's
    width from it (and a rounding either side), through its vertices."""
    xy = rng.uniform(-50, 450, (n, 2, 2))
    m = n // 10
    xy[:m, 1, 1] = 200.0                                   # ending on the horizontal wall's line
    xy[m:2 * m, 0] = [100.0, 200.0]                        # from its end
    xy[2 * m:3 * m, :, 1] = 200.0                          # along it
    xy[3 * m:4 * m, 1] = [150.0, 120.0]                    # to a vertex of the crest
    off = rng.choice([0.0, 1e-9, -1e-9, 1e-12, 5e-14], m)
    xy[4 * m:5 * m, 1, 1] = 200.0 + rng.choice([-1, 1], m) * (25.0 + off)   # at 25 mm
    xy[5 * m:6 * m, :, 0] = 50.0 + rng.choice([-25.0, 25.0, 0.0], m)[:, None]
    t = rng.uniform(0, 1, m)
    xy[6 * m:7 * m, 1, 0] = 150 + t * 110                  # ending on a crest segment (rounded)
    xy[6 * m:7 * m, 1, 1] = 120 - t * 30
    return xy


def test_wall_verdicts_are_geos_where_sure() -> None:
    rng = np.random.default_rng(11)
    n = 40_000
    xy = _lines(rng, n)
    widths = rng.choice([0.0, 25.0, 12.7], n)
    wall_of = rng.integers(0, len(WALLS), n)
    verdict = wall_verdicts(xy, np.arange(n), widths, wall_of, *wall_arrays(WALLS))
    lines = shapely.linestrings(xy)
    geos = np.where(widths > 0, shapely.dwithin(lines, WALLS[wall_of], widths),
                    shapely.intersects(lines, WALLS[wall_of]))
    sure = verdict != UNSURE
    assert ((verdict == BLOCKED) == geos)[sure].all()
    assert sure.mean() > 0.5 and (verdict == BLOCKED).sum() > 5000
    assert (verdict[wall_of == 3] == UNSURE).all()       # the multi-line wall is GEOS's


def _old_convex_edges(poly: Polygon) -> np.ndarray | None:
    """The definition `convex_edges` keeps: GEOS's convex hull test, GEOS's orientation."""
    if poly.geom_type != "Polygon" or poly.interiors or poly.is_empty or \
            not shapely.equals(poly, shapely.convex_hull(poly)):
        return None
    v = np.asarray(poly.exterior.coords, dtype=float)[:-1]
    e = np.roll(v, -1, axis=0) - v
    sign = 1.0 if poly.exterior.is_ccw else -1.0
    return np.concatenate([v, np.stack([e[:, 1], -e[:, 0]], axis=1) * sign], axis=1)


def test_convex_edges_are_the_hull_test() -> None:
    rng = np.random.default_rng(14)
    star = np.arange(5) * 4 * np.pi / 5
    polys = [Polygon([(0, 0), (10, 0), (10, 10), (0, 10)]),
             Polygon([(0, 0), (0, 10), (10, 10), (10, 0)]),
             Polygon([(0, 0), (5, 0), (10, 0), (10, 10), (0, 10)]),          # collinear vertex
             Polygon([(0, 0), (10, 0), (5, 5), (10, 10), (0, 10)]),          # concave
             Polygon([(0, 0), (10, 0), (10, 10), (0, 10)], [[(2, 2), (3, 2), (3, 3)]]),
             Polygon(np.stack([np.cos(star), np.sin(star)], axis=1)),        # a pentagram
             Polygon([(0, 0), (10, 0), (10, 10), (10, 10), (0, 10)])]        # repeated vertex
    for k in range(200):
        n = int(rng.integers(3, 9))
        ang = np.sort(rng.uniform(0, 2 * np.pi, n))
        r = rng.uniform(1, 100, n) if k % 2 else 50.0
        pts = np.stack([np.cos(ang) * r, np.sin(ang) * r], axis=1) + rng.uniform(-1000, 1000, 2)
        polys.append(Polygon(pts[::-1] if k % 3 == 0 else pts))
    got = convex_edges(np.array(polys, dtype=object))
    convex = 0
    for poly, edges in zip(polys, got):
        want = _old_convex_edges(poly)
        assert (want is None) == (edges is None)
        if want is not None:
            convex += 1
            assert np.array_equal(edges, want)
    assert 50 < convex < len(polys) - 50
