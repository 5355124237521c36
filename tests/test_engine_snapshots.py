"""The fast motion primitives (`engine.geometry.motion.slide_convex`) give exactly the plain
ones' answers.

The ISD analysis snapshots that used to live here (tests/data/engine/italia_snapshots/, written by
the engine under test) no longer guard the analysis (issue 13): the golden files
(tests/data/engine/italia/, answers derived by hand) do. Their scenarios are still read by the
charge and relations twin tests until those go.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from campo.engine.geometry.motion import outline, slide_convex, slide_distance
from campo.engine.geometry.rect import Rect, unit_vector

# --- the fast primitives behind the snapshots equal the plain ones ----------------------------

_coord = st.floats(-300, 300, allow_nan=False, allow_infinity=False)


@st.composite
def _rects(draw: Any) -> Rect:
    return Rect(draw(_coord), draw(_coord), draw(st.floats(0, 359.9)),
                draw(st.sampled_from([25.0, 40.0, 80.0])), draw(st.sampled_from([20.0, 40.0])))


@settings(max_examples=150, deadline=None)
@given(_rects(), _rects(), st.floats(0, 359.9), st.booleans())
def test_slide_convex_equals_slide_distance(a: Rect, b: Rect, heading: float, front_only: bool) -> None:
    d = unit_vector(heading)
    moving = (a.front_left, a.front_right) if front_only else a.corners
    shape = a.front_edge if front_only else a.polygon
    fast = slide_convex(moving, shape, b.corners, b.polygon, d)
    plain = slide_distance(outline(moving if front_only else a), outline(b), d)
    assert fast == plain or (math.isinf(fast) and math.isinf(plain))
    for segs in (8, 64):   # a 2" zone's outline; a long one (slide_convex's numpy branch)
        zone = b.polygon.buffer(50.0, quad_segs=segs)
        ring = [tuple(v) for v in outline(zone).tolist()]
        assert slide_convex(a.corners, a.polygon, ring, zone, d) == \
            slide_distance(outline(a), outline(zone), d)


def test_slide_nearly_parallel_edges_raise_no_overflow() -> None:
    """A denominator of 1e-309 used to overflow the quotient (a RuntimeWarning, an error here)."""
    moving = np.array([[0.0, -5.0], [10.0, -5.0]])
    obstacle = np.array([[0.0, 1e-309], [10.0, 0.0]])
    assert math.isinf(slide_distance(moving, obstacle, (1.0, 0.0)))
