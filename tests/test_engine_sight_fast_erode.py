"""The compiled inward mitre buffer of bases (engine/geometry/erode_kernel.py) gives GEOS's
coordinates to the last bit, in GEOS's order, wherever it claims to be sure: rotated and
axis-aligned rectangles, both ring orientations, whole-millimetre and far-off coordinates,
skewed quadrilaterals, tiny bases; and `SightField`'s shrunk bodies are GEOS's buffers."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from campo.engine.geometry.erode_kernel import VERIFIED_GEOS, eroded_quads
from campo.engine.geometry.sight import SightField

# the kernel replicates one GEOS version's buffer; under another, SightField asks GEOS itself
pytestmark = pytest.mark.skipif(shapely.geos_version[:2] != VERIFIED_GEOS,
                                reason=f"erode_kernel replicates GEOS {VERIFIED_GEOS}")


def _quads(rng: np.random.Generator, n: int) -> np.ndarray:
    ang = rng.uniform(0, 2 * np.pi, n)
    ang[::4] = rng.choice([0, np.pi / 2, np.pi, 1.5 * np.pi, np.pi / 4], len(ang[::4]))
    u = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    v = np.stack([-u[:, 1], u[:, 0]], axis=1)
    c = rng.uniform(-100, 2000, (n, 2))
    c[::3] = np.round(c[::3])
    c[::13] += 1e6                                      # far from the origin
    w = rng.uniform(0.5, 100, n)[:, None]
    h = rng.uniform(0.5, 100, n)[:, None]
    w[::5], h[::5] = 80.0, 40.0
    q = np.stack([c - w / 2 * u - h / 2 * v, c + w / 2 * u - h / 2 * v,
                  c + w / 2 * u + h / 2 * v, c - w / 2 * u + h / 2 * v], axis=1)
    q[1::2] = q[1::2, ::-1]                             # clockwise rings
    q[7::11, 2] += rng.uniform(-3, 3, (len(q[7::11]), 2))   # skewed
    return q


def _geos(q: np.ndarray, d: float) -> tuple[np.ndarray, np.ndarray]:
    """GEOS's ring (without the closing vertex) where it has 4 corners, and where it does."""
    ring = shapely.get_exterior_ring(shapely.buffer(shapely.polygons(q), -d,
                                                    join_style="mitre"))
    four = shapely.get_num_coordinates(ring) == 5
    got = np.full(q.shape, np.nan)
    got[four] = shapely.get_coordinates(ring[four]).reshape(-1, 5, 2)[:, :4]
    return got, four


def test_eroded_quads_are_geos_where_sure() -> None:
    rng = np.random.default_rng(21)
    for d in (0.5, 3.0):
        q = _quads(rng, 30_000)
        out, sure = eroded_quads(q, d)
        want, four = _geos(q, d)
        assert four[sure].all()
        assert (out[sure] == want[sure]).all()
        assert sure.mean() > 0.7
        base = np.zeros(len(q), dtype=bool)
        base[::5] = True                   # 80 x 40, not skewed, within a table's reach
        base[::13] = base[7::11] = False
        assert sure[base].mean() > 0.99    # a few exact ties (45 degrees, whole mm) go to GEOS


def test_sight_field_bodies_are_geos_buffers() -> None:
    rng = np.random.default_rng(22)
    q = _quads(rng, 400)
    q[5] = [[0, 0], [0.6, 0], [0.6, 0.6], [0, 0.6]]     # eroded away by GEOS
    bodies = list(shapely.polygons(q))
    field = SightField(bodies=bodies, body_ids=[str(i) for i in range(len(q))], graze=0.5)
    want = shapely.buffer(shapely.polygons(q), -0.5, join_style="mitre")
    assert shapely.equals_exact(field.bodies, want, tolerance=0).all()
    assert field.quads is None                          # some bodies are empty
    rest = _geos(q, 0.5)[1]                             # those with 4 corners left
    field = SightField(bodies=list(np.array(bodies)[rest]), body_ids=[], graze=0.5)
    assert np.array_equal(field.quads, _geos(q[rest], 0.5)[0])
