"""The fusion rules of several cameras (calibration/fusion.py) and what a camera of a rig needs
(calibration/camera_coverage.py), on readings built by hand: the seam, the better view, a
disagreement, a duplicate, headings across north, partial registration."""

from __future__ import annotations

import math

import numpy as np
import pytest

from campo.calibration.camera_coverage import coverage_mm, registration_gap
from campo.calibration.fusion import DISAGREE_MM, CameraReadings, expected_error_mm, fuse
from campo.calibration.poses import BasePose, PoseReport
from campo.calibration.registration import TableLocation
from campo.vision.camera_model import Intrinsics
from campo.vision.detection.types import Detection
from campo.vision.synthetic.demo_wide import half_pose, wide_table

SIZES = {10: 16.0, 11: 16.0}
IMAGE = (1920, 1080)


def square(x: float, y: float, side: float) -> np.ndarray:
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], float)


def camera(name: str, *readings: tuple[str, int, float, float, float, float], px: tuple[float, float] = (900, 500),
           duplicates: tuple[int, ...] = (), rejected: dict[int, str] | None = None) -> CameraReadings:
    """A camera's report: (base, marker, x_mm, y_mm, heading, marker side in px) per reading."""
    bases, seen = [], {}
    for base, marker, x, y, h, side in readings:
        bases.append(BasePose(base, marker, x, y, h, np.zeros((4, 2))))
        seen[marker] = Detection(marker, square(px[0], px[1], side))
    return CameraReadings(name, PoseReport(bases, [], list(duplicates), rejected or {}, seen), IMAGE)


def test_a_base_in_the_seam_is_one_base_weighed_by_the_better_view() -> None:
    # camera A sees the marker twice as large (half the mm per pixel): four times the weight
    a = camera("A", ("b", 10, 900.0, 300.0, 90.0, 32.0))
    b = camera("B", ("b", 10, 900.5, 300.5, 92.0, 16.0))
    fused = fuse([a, b], SIZES)
    assert [p.id for p in fused.bases] == ["b"]
    assert fused.seen_by == {"b": ("A", "B")}
    pose = fused.bases[0]
    assert pose.x_mm == pytest.approx((4 * 900.0 + 900.5) / 5)
    assert pose.y_mm == pytest.approx((4 * 300.0 + 300.5) / 5)
    assert pose.heading_deg == pytest.approx(90.4, abs=0.01)
    assert not fused.disagreements


def test_bases_seen_by_one_camera_each_are_all_kept() -> None:
    fused = fuse([camera("A", ("a", 10, 100.0, 100.0, 0.0, 20.0)),
                  camera("B", ("b", 11, 1700.0, 100.0, 0.0, 20.0))], SIZES)
    assert {p.id: p.x_mm for p in fused.bases} == {"a": 100.0, "b": 1700.0}
    assert fused.seen_by == {"a": ("A",), "b": ("B",)}


def test_two_cameras_placing_a_marker_far_apart_are_reported_not_averaged() -> None:
    a = camera("A", ("b", 10, 900.0, 300.0, 90.0, 20.0), ("c", 11, 500.0, 500.0, 0.0, 20.0))
    b = camera("B", ("b", 10, 900.0 + 2 * DISAGREE_MM, 300.0, 90.0, 20.0))
    fused = fuse([a, b], SIZES)
    assert [p.id for p in fused.bases] == ["c"]  # no pose for b: neither camera is believed
    (clash,) = fused.disagreements
    assert clash.base == "b" and clash.marker == 10
    assert clash.distance_mm == pytest.approx(2 * DISAGREE_MM)
    assert {r[0] for r in clash.readings} == {"A", "B"}
    assert "cameras disagree on b" in clash.describe() and "A (900.0, 300.0)" in clash.describe()


def test_a_marker_turned_differently_by_two_cameras_is_a_disagreement() -> None:
    fused = fuse([camera("A", ("b", 10, 900.0, 300.0, 90.0, 20.0)),
                  camera("B", ("b", 10, 900.0, 300.0, 180.0, 20.0))], SIZES)
    assert not fused.bases and fused.disagreements[0].turn_deg == pytest.approx(90.0)


def test_headings_either_side_of_north_average_across_it() -> None:
    fused = fuse([camera("A", ("b", 10, 900.0, 300.0, 359.0, 20.0)),
                  camera("B", ("b", 10, 900.0, 300.0, 3.0, 20.0))], SIZES)
    assert fused.bases[0].heading_deg == pytest.approx(1.0)


def test_a_marker_one_camera_reads_twice_gets_no_pose() -> None:
    fused = fuse([camera("A", duplicates=(10,)), camera("B", ("b", 10, 900.0, 300.0, 90.0, 20.0))], SIZES)
    assert fused.bases == [] and fused.duplicate_markers == [10]


def test_a_marker_one_camera_rejects_and_another_poses_is_not_rejected() -> None:
    fused = fuse([camera("A", rejected={10: "measured size 0.6 x the roster's 16 mm", 11: "too small"}),
                  camera("B", ("b", 10, 900.0, 300.0, 90.0, 20.0))], SIZES)
    assert [p.id for p in fused.bases] == ["b"]
    assert fused.rejected == {11: "A: too small"}


def test_a_marker_at_the_image_edge_is_trusted_less() -> None:
    pose = BasePose("b", 10, 0.0, 0.0, 0.0, np.zeros((4, 2)))
    inside = expected_error_mm(pose, Detection(10, square(900, 500, 20)), IMAGE, 16.0)
    edge = expected_error_mm(pose, Detection(10, square(1, 500, 20)), IMAGE, 16.0)
    slanted = Detection(10, np.array([[900, 500], [920, 500], [920, 510], [900, 510]], float))
    assert edge == pytest.approx(4 * inside)
    assert expected_error_mm(pose, slanted, IMAGE, 16.0) > inside
    # ... so in the seam the other camera's reading nearly decides
    fused = fuse([camera("A", ("b", 10, 900.0, 300.0, 90.0, 20.0), px=(1, 500)),
                  camera("B", ("b", 10, 901.0, 300.0, 90.0, 20.0))], SIZES)
    assert fused.bases[0].x_mm == pytest.approx(900.0 + 16 / 17)


def _location(anchors: tuple[int, ...]) -> TableLocation:
    return TableLocation(True, "pnp", rvec=np.zeros(3), tvec=np.array([0, 0, 1000.0]),
                         anchors_seen=len(anchors), anchors_used=anchors)


@pytest.mark.parametrize("anchors, intrinsics, gap", [
    ((0, 3, 4, 5), True, ""),
    ((0, 4, 3), True, ""),
    ((0, 3, 4, 5), False, ""),
    ((0, 3), True, "anchors 0, 3 used: needs 3 not on one line with its camera.json"),
    ((0, 3, 4), False, "anchors 0, 3, 4 used: needs 4 not on one line without a camera.json (homography)"),
])
def test_what_a_camera_of_a_rig_needs_to_count(anchors: tuple[int, ...], intrinsics: bool, gap: str) -> None:
    assert registration_gap(_location(anchors), wide_table(), intrinsics) == gap


def test_anchors_on_one_line_do_not_register_a_camera_of_a_rig() -> None:
    table = wide_table().model_copy(update={"anchors": [
        *wide_table().anchors,
        wide_table().anchors[0].model_copy(update={"marker": 6, "x_mm": 470.0}),  # on the near edge
    ]})
    gap = registration_gap(_location((0, 6, 4)), table, True)
    assert gap == "anchors 0, 4, 6 lie on one line: needs 3 not on one line with its camera.json"
    assert registration_gap(TableLocation.not_located("1 of 6 anchors seen (need 2)"), table, True) == \
        "table not located: 1 of 6 anchors seen (need 2)"


def test_a_half_cameras_coverage_is_its_half_of_the_table_and_the_seam() -> None:
    intr = Intrinsics.ideal(1920, 1080, 62.0)
    covered = []
    for index in (0, 1):
        pose = half_pose(intr, index)
        loc = TableLocation(True, "pnp", rvec=pose.rvec, tvec=pose.tvec)
        poly = np.array(coverage_mm(loc, intr, intr.image_size, wide_table()))
        covered.append((poly[:, 0].min(), poly[:, 0].max(), poly[:, 1].min(), poly[:, 1].max()))
    (a0, a1, ay0, ay1), (b0, b1, by0, by1) = covered
    assert a0 == 0 and b1 == 1800 and ay0 == by0 == 0 and ay1 == by1 == 1200  # cut to the table
    assert 950 < a1 < 1010 and 790 < b0 < 850  # the seam band, ~160 mm around x = 900
    assert math.isclose(a1 - 900, 900 - b0, abs_tol=10)
