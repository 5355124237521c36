"""The areas a fall-back, rout or pursuit sweeps (`conduct._Moves.inner`), worked out without
GEOS for moves along a base's axis, against GEOS's own: the hull of start and end shrunk by a
mitre buffer (less where the base stood, for what a move newly covers)."""

from __future__ import annotations

import numpy as np
import shapely
from hypothesis import given
from hypothesis import strategies as st

from campo.engine.geometry.poses import Poses
from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.italia.conduct import _Moves
from tests.ruleset_properties import property_settings

rects = st.builds(Rect, st.floats(0, 500), st.floats(0, 500), st.floats(0, 359.9),
                  st.sampled_from([25.0, 50.0, 80.0]), st.sampled_from([20.0, 30.0, 40.0]))


@property_settings(max_examples=100)
@given(rects, st.sampled_from([-1.0, 1.0]), st.floats(5.0, 300.0), st.sampled_from([0.5, 3.0]),
       st.booleans(), st.booleans())
def test_bands_are_geos_shrunk_hulls(r: Rect, sign: float, distance: float, shrink: float,
                                     behind: bool, along_axis: bool) -> None:
    p = Poses.of([r])
    direction = p.front * sign if along_axis else np.array([[0.6, -0.8]])
    moves = _Moves(p, direction, np.array([distance]))
    want = shapely.buffer(moves.hulls[0], -shrink, join_style="mitre")
    if behind:
        want = shapely.difference(want, p.polygons[0])
    got = moves.inner(shrink, np.array([behind]))[0]
    assert shapely.area(shapely.symmetric_difference(got, want)) < 1e-6
