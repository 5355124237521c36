"""The tracker: jitter averaged away, real moves followed at once, hidden bases kept as stale."""

from __future__ import annotations

import numpy as np
import pytest

from campo.calibration.poses import BasePose
from campo.calibration.tracking import Tracker, TrackerSettings
from campo.vision.detection import Detection


def pose(x: float, y: float, h: float, base_id: str = "b10", marker: int = 10) -> BasePose:
    return BasePose(base_id, marker, x, y, h % 360.0, np.zeros((4, 2)))


def test_jitter_is_removed():
    rng = np.random.default_rng(0)
    tr = Tracker()
    out = []
    for k in range(40):
        (b,) = tr.update(k / 30, [pose(500 + rng.normal(0, 0.3), 400 + rng.normal(0, 0.3), 90 + rng.normal(0, 0.8))])
        out.append(b)
    late = out[20:]
    raw_sd = 0.3
    assert np.std([b.x_mm for b in late]) < raw_sd / 2
    assert max(abs(b.x_mm - 500) for b in late) < 0.5 and max(abs(b.heading_deg - 90) for b in late) < 1.0
    assert not any(b.stale for b in out)


def test_a_real_move_is_followed_without_lag():
    tr = Tracker()
    for k in range(10):
        tr.update(k, [pose(500.0, 400.0, 90.0)])
    (b,) = tr.update(10, [pose(530.0, 410.0, 120.0)])
    assert (b.x_mm, b.y_mm, b.heading_deg) == pytest.approx((530.0, 410.0, 120.0))
    assert b.moved_t == 10


def test_a_small_turn_beyond_the_noise_is_a_move():
    tr = Tracker(TrackerSettings(snap_deg=2.0))
    for k in range(10):
        tr.update(k, [pose(500.0, 400.0, 90.0)])
    (b,) = tr.update(10, [pose(500.0, 400.0, 95.0)])
    assert b.heading_deg == pytest.approx(95.0)


def test_heading_wraps_around_zero():
    tr = Tracker()
    for k, h in enumerate([359.6, 0.3, 359.8, 0.1]):
        (b,) = tr.update(k, [pose(100.0, 100.0, h)])
    assert min(b.heading_deg, 360 - b.heading_deg) < 0.2


def test_a_hidden_base_is_kept_stale_not_deleted():
    tr = Tracker()
    tr.update(0.0, [pose(500.0, 400.0, 90.0), pose(800.0, 400.0, 270.0, "b11", 11)])
    bases = {b.id: b for b in tr.update(0.5, [pose(800.0, 400.0, 270.0, "b11", 11)])}
    assert bases["b10"].stale and bases["b10"].last_seen_t == 0.0
    assert (bases["b10"].x_mm, bases["b10"].y_mm) == (500.0, 400.0)
    assert not bases["b11"].stale
    bases = {b.id: b for b in tr.update(1.0, [pose(500.0, 400.0, 90.0)])}
    assert not bases["b10"].stale and bases["b11"].stale


def test_search_windows_surround_the_last_markers():
    tr = Tracker(TrackerSettings(search_margin_sides=1.0))
    corners = np.array([[100, 100], [120, 100], [120, 120], [100, 120]], float)
    tr.remember_pixels([Detection(10, corners)])
    (w,) = tr.search_windows()
    assert (w.x0, w.y0) == (80, 80) and w.x1 >= 140 and w.y1 >= 140
    assert tr.search_windows(markers={11}) == []
    tr.forget_pixels()
    assert tr.search_windows() == []


def test_markers_are_predicted_from_their_image_velocity():
    tr = Tracker()
    corners = np.array([[100, 100], [120, 100], [120, 120], [100, 120]], float)
    tr.remember_pixels([Detection(10, corners)], t=0.0)
    tr.remember_pixels([Detection(10, corners + [30, -10])], t=0.5)  # 60 px/s right, 20 px/s up
    (d,) = tr.predicted_detections(1.0)
    assert np.allclose(d.corners_px, corners + [60, -20])
    (still,) = tr.predicted_detections(0.5)
    assert np.allclose(still.corners_px, corners + [30, -10])


def test_a_misread_jump_gives_no_velocity():
    tr = Tracker(TrackerSettings(max_speed_sides_per_s=20.0))
    corners = np.array([[100, 100], [120, 100], [120, 120], [100, 120]], float)
    tr.remember_pixels([Detection(10, corners)], t=0.0)
    tr.remember_pixels([Detection(10, corners + [900, 0])], t=0.1)  # 9000 px/s: not motion
    (d,) = tr.predicted_detections(0.6)
    assert np.allclose(d.corners_px, corners + [900, 0])


def test_search_windows_follow_motion_and_grow_while_lost():
    s = TrackerSettings(search_margin_sides=1.0, search_growth_sides_per_s=4.0)
    tr = Tracker(s)
    corners = np.array([[100, 100], [120, 100], [120, 120], [100, 120]], float)
    tr.remember_pixels([Detection(10, corners)], t=0.0)
    tr.remember_pixels([Detection(10, corners + [40, 0])], t=1.0)  # 40 px/s to the right
    (soon,) = tr.search_windows(t=1.5)
    (late,) = tr.search_windows(t=3.0)
    # both cover the last sighting and the predicted place, the later one with a wider margin
    assert soon.x0 <= 140 and soon.x1 >= 160 + 20 + 20
    assert late.x1 >= 160 + 80 + 20 + 4 * 2 * 20 and late.area > 3 * soon.area
    (plain,) = tr.search_windows()  # without a time: around the last sighting, as before
    assert (plain.x0, plain.y0) == (120, 80)
