"""The camera panel's drawing: base corners agree with the engine's rectangles."""

from __future__ import annotations

import numpy as np
import pytest

from campo.engine import GameState
from campo.server.camera_view import base_corners_mm


@pytest.mark.parametrize("heading", [0.0, 37.5, 90.0, 211.0, 359.0])
def test_base_corners_are_the_engines_rectangle(heading: float) -> None:
    base = {"id": "a", "side": "A", "type": "B", "x_mm": 500.0, "y_mm": 300.0, "heading_deg": heading,
            "width_mm": 80.0, "depth_mm": 40.0, "traits": {"arm": "infantry"}}
    state = GameState.from_dict({"ruleset": "italia-se-desta", "table": {"width_mm": 1800, "depth_mm": 1200},
                                 "bases": [base]})
    engine = np.array(state.rect("a").polygon.exterior.coords)[:-1]
    ours = base_corners_mm(base)
    for corner in ours:
        assert np.min(np.hypot(*(engine - corner).T)) < 1e-6
    front = (ours[0] + ours[1]) / 2 - np.array([500.0, 300.0])  # corners 0 and 1 are the front edge
    assert np.degrees(np.arctan2(front[1], front[0])) % 360 == pytest.approx(heading % 360, abs=1e-6)
