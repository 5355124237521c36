"""ATTILA's array rectangles (`rulesets.attila.geometry.Frames`): the heading each frames
keeps once worked out, checked against hand-derived wheels and against `Rect`."""

from __future__ import annotations

import numpy as np
import pytest

from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.attila.geometry import Frames


@pytest.mark.parametrize("heading", [0.0, 37.5, 90.0, 179.0, 271.25, 359.5])
def test_heading_is_the_rect_heading(heading: float) -> None:
    f = Frames.of_rects([Rect(10.0, 20.0, heading, 40.0, 30.0)])
    assert f.heading_deg[0] == pytest.approx(heading, abs=1e-9)
    assert 0.0 <= f.heading_deg[0] < 360.0


def test_wheeled_and_taken_frames_have_their_own_heading() -> None:
    """A wheel of +30 deg (CCW) from 90 faces 120, of -45 from 20 faces 335 (not -25); the
    frames wheeled from them keep theirs, and rows taken read the rows' headings."""
    f = Frames.of_rects([Rect(0.0, 0.0, 90.0, 40.0, 20.0), Rect(0.0, 0.0, 20.0, 40.0, 20.0)])
    before = f.heading_deg.copy()
    w = f.wheeled(np.array([30.0, -45.0]))
    assert w.heading_deg.tolist() == pytest.approx([120.0, 335.0])
    assert f.heading_deg.tolist() == before.tolist()
    assert f.take(np.array([1, 0, 1])).heading_deg.tolist() == pytest.approx([20.0, 90.0, 20.0])
    assert w.moved(np.array([5.0, 7.0])).heading_deg.tolist() == pytest.approx([120.0, 335.0])
