"""Base poses from marker corners: height-correct plane intersection, offsets, rotations, misreads."""

from __future__ import annotations

import numpy as np
import pytest

from campo.calibration.poses import base_from_marker, base_poses, marker_up_deg
from campo.calibration.registration import locate_table, square_corners
from tests.test_calibration_registration import INTR, POSE, TABLE, anchor_detections
from campo.vision.camera_model import Intrinsics
from campo.vision.detection import Detection
from campo.vision.tabletop import Roster, RosterBase


def make_base(marker: int, **kw) -> RosterBase:
    data = {"marker": marker, "id": f"b{marker}", "side": "A", "type": "B", "width_mm": 80.0, "depth_mm": 40.0,
            "marker_size_mm": 18.0, "marker_offset_mm": [0.0, 0.0], "marker_rotation_deg": 0.0, "height_mm": 3.0}
    data.update(kw)
    return RosterBase.model_validate(data)


def marker_detection(base: RosterBase, x: float, y: float, heading: float, intr: Intrinsics = INTR, pose=POSE,
                     height: float | None = None) -> Detection:
    """Where the camera sees the marker of `base` standing at (x, y, heading)."""
    a = np.radians(heading)
    front, right = np.array([np.cos(a), np.sin(a)]), np.array([np.sin(a), -np.cos(a)])
    centre = np.array([x, y]) + base.marker_offset_mm[0] * right + base.marker_offset_mm[1] * front
    z = base.height_mm if height is None else height
    corners = square_corners(tuple(centre), base.marker_size_mm, heading + base.marker_rotation_deg, z)
    return Detection(base.marker, intr.project(corners, pose.rvec, pose.tvec))


LOC = locate_table(anchor_detections(), TABLE, INTR)


@pytest.mark.parametrize("x, y, heading, offset, rotation", [
    (900.0, 300.0, 90.0, [0.0, 0.0], 0.0),
    (150.0, 1100.0, 271.3, [12.0, -8.0], 90.0),
    (1700.0, 90.0, 359.6, [-20.0, 5.0], 180.0),
    (600.0, 700.0, 33.0, [0.0, 15.0], -45.0),
])
def test_pose_is_exact_from_exact_corners(x, y, heading, offset, rotation):
    base = make_base(10, marker_offset_mm=offset, marker_rotation_deg=rotation)
    roster = Roster(ruleset="italia-se-desta", bases=[base])
    report = base_poses([marker_detection(base, x, y, heading)], LOC, roster, INTR, TABLE)
    (pose,) = report.bases
    assert (pose.id, pose.marker) == ("b10", 10)
    # exact corners give the pose to well under a micron (OpenCV 5.1's PnP stops ~2e-5 mm short)
    assert pose.x_mm == pytest.approx(x, abs=1e-4) and pose.y_mm == pytest.approx(y, abs=1e-4)
    assert (pose.heading_deg - heading + 180) % 360 - 180 == pytest.approx(0, abs=1e-6)
    assert 0 <= pose.heading_deg < 360
    assert pose.size_ratio == pytest.approx(1.0, abs=1e-6)


def test_marker_height_is_corrected_where_it_matters():
    """A 3 mm base near the table edge: mapping to z = 0 instead is off by millimetres."""
    tall = make_base(10, height_mm=3.0)
    flat = make_base(10, height_mm=0.0)
    det = marker_detection(tall, 1750.0, 1150.0, 90.0)
    good = base_poses([det], LOC, Roster(ruleset="italia-se-desta", bases=[tall]), INTR, TABLE).bases[0]
    naive = base_poses([det], LOC, Roster(ruleset="italia-se-desta", bases=[flat]), INTR, TABLE).bases[0]
    assert np.hypot(good.x_mm - 1750.0, good.y_mm - 1150.0) < 1e-4
    assert np.hypot(naive.x_mm - 1750.0, naive.y_mm - 1150.0) > 2.0


def test_unknown_and_duplicated_ids_are_reported_never_guessed():
    base = make_base(10)
    roster = Roster(ruleset="italia-se-desta", bases=[base, make_base(11)])
    dets = anchor_detections() + [
        marker_detection(base, 500.0, 500.0, 90.0), marker_detection(base, 800.0, 500.0, 90.0),
        Detection(77, marker_detection(base, 300.0, 300.0, 0.0).corners_px),
        marker_detection(make_base(11), 1000.0, 600.0, 45.0),
    ]
    report = base_poses(dets, LOC, roster, INTR, TABLE)
    assert [b.id for b in report.bases] == ["b11"]
    assert report.duplicate_markers == [10]
    assert report.unknown_markers == [77]  # anchors 0..3 are not unknown


def test_a_marker_of_the_wrong_size_is_rejected():
    big = make_base(10, marker_size_mm=30.0)
    det = marker_detection(big, 900.0, 600.0, 0.0)
    roster = Roster(ruleset="italia-se-desta", bases=[make_base(10)])  # roster says 18 mm
    report = base_poses([det], LOC, roster, INTR, TABLE)
    assert report.bases == [] and 10 in report.rejected


def test_no_poses_without_a_table_but_ids_still_reported():
    from campo.calibration.registration import TableLocation

    base = make_base(10)
    report = base_poses([marker_detection(base, 900.0, 600.0, 0.0), Detection(99, np.zeros((4, 2)))],
                        TableLocation.not_located("hand over anchors"), Roster(ruleset="italia-se-desta", bases=[base]),
                        INTR, TABLE)
    assert report.bases == [] and report.unknown_markers == [99]


def test_homography_poses_ignore_height_but_work():
    intr = Intrinsics.ideal(1920, 1080, 70.0)
    loc = locate_table(anchor_detections(intr=intr), TABLE, None)
    base = make_base(10, height_mm=0.0)
    report = base_poses([marker_detection(base, 700.0, 400.0, 120.0, intr=intr)], loc,
                        Roster(ruleset="italia-se-desta", bases=[base]), None, TABLE)
    (pose,) = report.bases
    assert np.hypot(pose.x_mm - 700.0, pose.y_mm - 400.0) < 0.01
    assert abs(pose.heading_deg - 120.0) < 0.01


def test_marker_up_and_offset_conventions():
    c = np.array([[0, 1], [0, -1], [-2, -1], [-2, 1]], float)  # top edge on +x: up = 0 degrees
    assert marker_up_deg(c) == pytest.approx(0.0)
    base = make_base(10, marker_offset_mm=[10.0, 5.0], marker_rotation_deg=90.0)
    # marker up 180 -> base heading 90 (front +y, right +x); marker = centre + 10 right + 5 front
    x, y, h = base_from_marker(base, np.array([110.0, 205.0]), 180.0)
    assert (x, y, h) == pytest.approx((100.0, 200.0, 90.0))


def test_part_of_a_marker_read_as_a_whole_is_rejected():
    """A misread quad covering half a marker is a rectangle on the table: not a base, not unknown."""
    base = make_base(10)
    whole = marker_detection(base, 900.0, 600.0, 30.0).corners_px
    half = whole.copy()
    half[2], half[3] = (whole[1] + whole[2]) / 2, (whole[0] + whole[3]) / 2
    report = base_poses([Detection(10, half), Detection(145, half)], LOC,
                        Roster(ruleset="italia-se-desta", bases=[base]), INTR, TABLE)
    assert report.bases == [] and "not square" in report.rejected[10]
    assert report.unknown_markers == []


def test_an_unknown_marker_of_a_plausible_size_is_reported():
    stranger = make_base(77, marker_size_mm=20.0)
    report = base_poses([marker_detection(stranger, 500.0, 500.0, 10.0)], LOC,
                        Roster(ruleset="italia-se-desta", bases=[make_base(10)]), INTR, TABLE)
    assert report.unknown_markers == [77]
