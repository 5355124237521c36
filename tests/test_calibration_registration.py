"""Table registration from anchors: PnP with intrinsics, homography without, not-located as a value."""

from __future__ import annotations

import numpy as np
import pytest

from campo.calibration.registration import HOMOGRAPHY_WARNING, anchor_corners, locate_table, square_corners
from campo.vision.camera_model import Intrinsics
from campo.vision.detection import Detection
from campo.vision.synthetic.pose import look_at
from campo.vision.tabletop import TableConfig

TABLE = TableConfig.model_validate({
    "table": {"width_mm": 1800.0, "depth_mm": 1200.0, "dictionary": "DICT_4X4_250"},
    "anchors": [
        {"marker": 0, "x_mm": 40.0, "y_mm": 40.0, "size_mm": 40.0, "up_deg": 90.0},
        {"marker": 1, "x_mm": 1760.0, "y_mm": 40.0, "size_mm": 40.0, "up_deg": 90.0},
        {"marker": 2, "x_mm": 1760.0, "y_mm": 1160.0, "size_mm": 40.0, "up_deg": 180.0},
        {"marker": 3, "x_mm": 40.0, "y_mm": 1160.0, "size_mm": 40.0, "up_deg": 0.0},
    ],
})
INTR = Intrinsics.ideal(1920, 1080, 70.0, dist=(-0.12, 0.05, 0.0005, -0.0003, 0.0))
POSE = look_at((900.0, -150.0, 1500.0), (900.0, 600.0, 0.0))


def anchor_detections(table: TableConfig = TABLE, pose=POSE, intr: Intrinsics = INTR, noise_px: float = 0.0,
                      seed: int = 1, skip: tuple[int, ...] = ()) -> list[Detection]:
    rng = np.random.default_rng(seed)
    out = []
    for a in table.anchors:
        if a.marker in skip:
            continue
        px = intr.project(anchor_corners(a), pose.rvec, pose.tvec) + rng.normal(0, noise_px, (4, 2)) if noise_px else \
            intr.project(anchor_corners(a), pose.rvec, pose.tvec)
        out.append(Detection(a.marker, px))
    return out


def test_square_corners_follow_opencv_order_and_up():
    c = square_corners((10.0, 20.0), 4.0, 0.0)  # up = +x: the top edge is on the +x side
    assert np.allclose(c[0, :2], [12.0, 22.0]) and np.allclose(c[1, :2], [12.0, 18.0])
    assert np.allclose(c[:, 2], 0.0)


def test_pnp_recovers_the_camera_exactly():
    loc = locate_table(anchor_detections(), TABLE, INTR)
    assert loc.located and loc.method == "pnp" and loc.anchors_seen == 4
    assert loc.reprojection_error_px < 1e-4   # OpenCV 5.1's iterative PnP ends near 1e-5 px
    assert np.allclose(loc.camera_centre_mm, POSE.centre_mm, atol=1e-4)
    assert loc.warning == ""


def test_pnp_with_corner_noise_stays_close():
    loc = locate_table(anchor_detections(noise_px=0.3), TABLE, INTR)
    assert loc.located
    assert 0.1 < loc.reprojection_error_px < 0.6
    assert np.linalg.norm(loc.camera_centre_mm - POSE.centre_mm) < 15.0


def test_a_bumped_camera_reregisters_by_itself():
    bumped = look_at((960.0, -120.0, 1480.0), (880.0, 640.0, 0.0), roll_deg=2.0)
    first = locate_table(anchor_detections(), TABLE, INTR)
    second = locate_table(anchor_detections(pose=bumped), TABLE, INTR)
    assert first.located and second.located
    assert np.allclose(second.camera_centre_mm, bumped.centre_mm, atol=1e-4)


@pytest.mark.parametrize("skip, seen", [((1, 2, 3), 1), ((0, 1, 2, 3), 0)])
def test_too_few_anchors_is_a_state_not_an_exception(skip, seen):
    loc = locate_table(anchor_detections(skip=skip), TABLE, INTR)
    assert not loc.located and loc.method == "none" and loc.anchors_seen == seen
    assert f"{seen} of 4 anchors seen" in loc.reason


def test_two_anchors_are_enough():
    loc = locate_table(anchor_detections(skip=(1, 3)), TABLE, INTR)
    assert loc.located and loc.anchors_used == (0, 2)


def test_homography_without_intrinsics_warns():
    undistorted = Intrinsics.ideal(1920, 1080, 70.0)
    loc = locate_table(anchor_detections(intr=undistorted), TABLE, None)
    assert loc.located and loc.method == "homography"
    assert loc.warning == HOMOGRAPHY_WARNING
    assert loc.reprojection_error_px < 1e-3
    p = loc.project(np.array([[900.0, 600.0]]), None)
    assert np.allclose(p, undistorted.project(np.array([[900.0, 600.0, 0.0]]), POSE.rvec, POSE.tvec), atol=1e-3)


def test_a_moved_anchor_is_dropped_with_a_warning():
    data = TABLE.model_dump()
    data["anchors"][2]["x_mm"] = 1700.0  # table.toml says 1700; the anchor really is at 1760
    wrong = TableConfig.model_validate(data)
    loc = locate_table(anchor_detections(), wrong, INTR)
    assert loc.located and loc.anchors_used == (0, 1, 3)
    assert "anchor(s) [2] ignored" in loc.warning
    assert loc.reprojection_error_px < 1e-3


def test_anchors_that_disagree_without_spares_are_not_located():
    data = TABLE.model_dump()
    data["anchors"][1]["up_deg"] = 0.0  # glued turned a quarter from what table.toml says
    wrong = TableConfig.model_validate(data)
    loc = locate_table(anchor_detections(skip=(2, 3)), wrong, INTR)
    assert not loc.located and "has an anchor moved" in loc.reason


def test_an_anchor_read_twice_is_not_used():
    dets = anchor_detections()
    dets.append(Detection(0, dets[0].corners_px + 300.0))
    loc = locate_table(dets, TABLE, INTR)
    assert loc.located and loc.anchors_used == (1, 2, 3)
