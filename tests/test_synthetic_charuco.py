"""ChArUco views from the synthetic camera: OpenCV finds the board where the true pose puts it,
and a calibration from them recovers the camera."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic import CharucoSpec, Effects, charuco_corners_px, render_charuco_views
from campo.vision.synthetic.charuco import cv_board

INTR = Intrinsics.ideal(1280, 720, 60, dist=(-0.12, 0.04, 0.0005, -0.0004, 0.0))


@pytest.fixture(scope="module")
def views():
    return render_charuco_views(CharucoSpec(), INTR, n_views=10, seed=3, effects=Effects.typical())


def test_views_are_detected_at_their_true_corners(views):
    spec = CharucoSpec()
    det = cv2.aruco.CharucoDetector(cv_board(spec))
    errs = []
    for image, pose in views:
        assert image.shape == (720, 1280, 3)
        corners, ids, _, _ = det.detectBoard(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
        ids = np.asarray(ids).reshape(-1)
        assert len(ids) == (spec.squares_x - 1) * (spec.squares_y - 1), "every corner is found"
        _, truth = charuco_corners_px(spec, INTR, pose)
        errs.append(np.linalg.norm(corners.reshape(-1, 2) - truth[ids], axis=1))
    errs = np.concatenate(errs)
    print(f"\nChArUco corners vs truth: median {np.median(errs):.3f} px, max {errs.max():.3f} px")
    assert np.median(errs) < 0.1
    assert errs.max() < 0.4


def test_views_cover_the_image_and_vary_in_tilt(views):
    centres = np.array([charuco_corners_px(CharucoSpec(), INTR, pose)[1].mean(axis=0) for _, pose in views])
    assert np.ptp(centres[:, 0]) > 0.3 * 1280 and np.ptp(centres[:, 1]) > 0.3 * 720
    tilts = [np.degrees(np.arccos(abs(cv2.Rodrigues(pose.rvec)[0][2, 2]))) for _, pose in views]
    assert max(tilts) > 25 and min(tilts) < 25


def test_calibrating_from_the_views_recovers_the_camera(views):
    board = cv_board(CharucoSpec())
    det = cv2.aruco.CharucoDetector(board)
    obj, img = [], []
    for image, _ in views:
        corners, ids, _, _ = det.detectBoard(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
        o, i = board.matchImagePoints(corners, ids)
        obj.append(o)
        img.append(i)
    rms, k, d, _, _ = cv2.calibrateCamera(obj, img, INTR.image_size, None, None)
    assert rms < 0.3
    assert k[0, 0] == pytest.approx(INTR.camera_matrix[0, 0], rel=0.01)
    assert k[0, 2] == pytest.approx(INTR.camera_matrix[0, 2], abs=5)
    assert d.reshape(-1)[0] == pytest.approx(-0.12, abs=0.03)
