"""Dim light: averaging still frames reads more markers, and never a marker that has left.

A small dim scene (720p over 120 x 80 cm, 12 mm markers: about 10 px) where single frames read
only part of the markers; see calibration/integration.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from campo.calibration.integration import FrameIntegrator, agrees_with_live
from campo.calibration.pipeline import FramePipeline
from campo.vision.camera_model import Intrinsics
from campo.vision.detection import Detection
from campo.vision.synthetic import Effects, PlacedBase, SyntheticCamera, overhead
from campo.vision.tabletop import Roster, RosterBase, TableConfig

TABLE = TableConfig.model_validate({
    "table": {"width_mm": 1200.0, "depth_mm": 800.0, "dictionary": "DICT_4X4_250"},
    "anchors": [{"marker": i, "x_mm": x, "y_mm": y, "size_mm": 40.0, "up_deg": 90.0}
                for i, (x, y) in enumerate([(40.0, 40.0), (1160.0, 40.0), (1160.0, 760.0), (40.0, 760.0)])],
})
INTR = Intrinsics.ideal(1280, 720, 70.0, dist=(-0.08, 0.02, 0.0, 0.0, 0.0))
N_BASES = 40


def _bases() -> tuple[Roster, list[PlacedBase]]:
    rng = np.random.default_rng(5)
    roster, placed = [], []
    for i in range(N_BASES):
        base = RosterBase.model_validate({
            "marker": 10 + i, "id": f"b{i:02d}", "side": "AB"[i % 2], "type": "B", "width_mm": 40.0,
            "depth_mm": 20.0, "marker_size_mm": 12.0, "marker_offset_mm": [0.0, 0.0],
            "marker_rotation_deg": 0.0, "height_mm": 3.0})
        roster.append(base)
        x = 150.0 + (i % 8) * 130.0 + rng.uniform(-10, 10)
        y = 140.0 + (i // 8) * 130.0 + rng.uniform(-10, 10)
        placed.append(PlacedBase(base, x, y, float(rng.uniform(0, 360))))
    return Roster(ruleset="italia-se-desta", bases=roster), placed


ROSTER, PLACED = _bases()


@pytest.fixture(scope="module")
def camera() -> SyntheticCamera:
    return SyntheticCamera(TABLE, INTR, overhead(TABLE, INTR, tilt_deg=8.0), effects=Effects.dim(), seed=9)


def _errors(result, truth) -> tuple[int, int]:
    """(bases read within 3 mm of the truth, phantoms: bases more than 10 mm off or unknown ids)."""
    good = bad = 0
    for b in result.report.bases:
        t = truth.bases.get(b.id)
        if t is None:  # a base that is not on the table
            bad += 1
            continue
        e = float(np.hypot(b.x_mm - t.x_mm, b.y_mm - t.y_mm))
        good += e < 3.0
        bad += e > 10.0
    return good, bad + len(result.report.unknown_markers)


def test_integrating_still_dim_frames_reads_more_markers(camera):
    pipe = FramePipeline(TABLE, ROSTER, INTR)
    plain = FramePipeline(TABLE, ROSTER, INTR, integrate_frames=1)
    counts, plain_counts = [], []
    for k in range(9):
        render = camera.render(PLACED)
        for p, out in ((pipe, counts), (plain, plain_counts)):
            result = p.process(render.image, 0.5 * k)
            assert result.location.located
            good, phantoms = _errors(result, render.truth)
            assert phantoms == 0, (k, result.report.bases)
            out.append(good)
    # single frames read part of the markers; after 8 still frames (the first one only tells
    # the pipeline that the light is dim) many more
    # (measured: 12 of 40 from the first frame, 24 after 4, 26 after 8; 9-14 per frame without averaging)
    assert counts[0] <= 0.5 * N_BASES, counts
    assert counts[-1] >= counts[0] + 10, counts
    assert counts[-1] >= max(plain_counts) + 8, (counts, plain_counts)


def test_a_moved_base_is_reported_at_its_new_pose_not_from_the_average(camera):
    pipe = FramePipeline(TABLE, ROSTER, INTR)
    for k in range(7):
        result = pipe.process(camera.render(PLACED).image, 0.5 * k)
    seen = {b.id for b in result.tracked if not b.stale}
    movers = [i for i, pb in enumerate(PLACED) if pb.base.id in seen][:3]
    assert len(movers) == 3
    moved = list(PLACED)
    moved[movers[0]] = PlacedBase(PLACED[movers[0]].base, PLACED[movers[0]].x_mm + 40.0, PLACED[movers[0]].y_mm, 30.0)
    moved[movers[1]] = PlacedBase(PLACED[movers[1]].base, PLACED[movers[1]].x_mm, PLACED[movers[1]].y_mm + 25.0,
                                  PLACED[movers[1]].heading_deg + 90.0)
    gone = moved.pop(movers[2])  # taken off the table: its old averaged pixels must not read as it
    for k in range(7, 9):
        render = camera.render(moved)
        result = pipe.process(render.image, 0.5 * k)
        good, phantoms = _errors(result, render.truth)
        assert phantoms == 0
        measured = {b.id: b for b in result.report.bases}
        assert gone.base.id not in measured, "a base taken away was read from the averaged frame"
        for i in movers[:2]:
            b = measured.get(PLACED[i].base.id)
            if b is None:
                continue  # not read this frame: stale is fine, the old pose is not
            t = render.truth.bases[b.id]
            assert np.hypot(b.x_mm - t.x_mm, b.y_mm - t.y_mm) < 3.0
        tracked = {b.id: b for b in result.tracked}
        assert tracked[gone.base.id].stale
        for i in movers[:2]:
            tb = tracked[PLACED[i].base.id]
            old = PLACED[i]
            assert tb.stale or np.hypot(tb.x_mm - old.x_mm, tb.y_mm - old.y_mm) > 20.0


def test_integrator_averages_still_pixels_and_restarts_moved_ones():
    rng = np.random.default_rng(1)
    scene = np.full((120, 160), 120.0)
    scene[40:60, 40:60] = 30.0
    integ = FrameIntegrator(8)
    for _ in range(8):
        out = integ.add(np.clip(scene + rng.normal(0, 6, scene.shape), 0, 255).astype(np.uint8))
    err = out.astype(float) - scene
    assert err[5:35, 80:150].std() < 6 / np.sqrt(8) * 1.3  # noise down by about sqrt(8)
    moved = scene.copy()
    moved[40:60, 40:60] = 120.0
    moved[40:60, 100:120] = 30.0  # the square moved 60 px to the right
    live = np.clip(moved + rng.normal(0, 6, scene.shape), 0, 255).astype(np.uint8)
    out = integ.add(live)
    # where it was and where it is: exactly the live frame, no trace of the average
    assert np.array_equal(out[38:62, 38:62], live[38:62, 38:62])
    assert np.array_equal(out[38:62, 98:122], live[38:62, 98:122])
    assert integ.depth_at(np.array([[40.0, 40.0], [59.0, 40.0], [59.0, 59.0], [40.0, 59.0]])) == 1
    assert integ.frames == 8


def test_a_marker_only_in_the_average_does_not_agree_with_the_live_frame():
    rng = np.random.default_rng(2)
    img = np.full((80, 80), 200.0)
    img[20:60, 20:60] = 20.0
    img[30:40, 30:40] = 200.0  # some bits
    corners = np.array([[20.0, 20.0], [60.0, 20.0], [60.0, 60.0], [20.0, 60.0]]) - 0.5
    det = [Detection(5, corners)]
    averaged = img.astype(np.uint8)
    same = np.clip(img + rng.normal(0, 5, img.shape), 0, 255).astype(np.uint8)
    empty = np.clip(np.full_like(img, 200.0) + rng.normal(0, 5, img.shape), 0, 255).astype(np.uint8)
    assert agrees_with_live(same, averaged, det, 6, 5.0).tolist() == [True]
    assert agrees_with_live(empty, averaged, det, 6, 5.0).tolist() == [False]
