"""`campo calibrate-camera` says what to do: the board's squares the wrong way round, a plain
chessboard, markers of another dictionary, one bad photo in a refused set, two cameras mixed.

Rendered ChArUco sessions (tests/test_calibration_camera_views.py) and real chessboard photos
(OpenCV's left01-14.jpg, tests/data/vision_real/README.md).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from campo.calibration.calibrate_intrinsics import CalibrationRefused, calibrate
from campo.calibration.charuco import BoardSpec, BoardView, find_board_views, no_board_message
from campo.errors import CampoInputError
from campo.vision.camera_model import Intrinsics
from tests.test_calibration_camera_views import TRUE_CAMERA, good_views

REAL = Path(__file__).parent / "data" / "vision_real"
SPEC = BoardSpec()  # 7x5 squares


@pytest.fixture(scope="module")
def views_8() -> list[tuple[str, np.ndarray]]:
    return good_views(SPEC, 8, seed=3)


@pytest.mark.slow
def test_squares_given_the_wrong_way_round_are_tried_transposed_and_said(views_8, tmp_path: Path, run_campo) -> None:
    paths = []
    for name, img in views_8:
        paths.append(tmp_path / f"{name}.png")
        cv2.imwrite(str(paths[-1]), img)
    code, out, err = run_campo("calibrate-camera", *paths, "-o", tmp_path / "camera.json", "--squares", "5x7")
    assert code == 0, err
    assert "not found as 5x7 squares but as 7x5 in 8 of 8 photos: using --squares 7x5" in out
    assert "wrote" in out and (tmp_path / "camera.json").exists()


def test_a_plain_chessboard_is_named_with_its_size() -> None:
    photos = [(p.name, cv2.imread(str(p), cv2.IMREAD_GRAYSCALE)) for p in sorted(REAL.glob("left0[1-3].jpg"))]
    with pytest.raises(CampoInputError) as err:
        find_board_views(photos, SPEC)
    text = str(err.value)
    assert "no ChArUco 7x5" in text and "(nor as 5x7)" in text
    assert "--squares counts squares across x down" in text and "--dictionary" in text
    assert "left01.jpg shows a plain chessboard (9x6 inner corners, 10x7 squares) with no markers" in text


def test_markers_of_another_dictionary_are_named(views_8) -> None:
    photos = [(name, cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img) for name, img in views_8[:3]]
    other = BoardSpec(7, 5, 40.0, 30.0, "DICT_5X5_100")
    text = no_board_message(photos, other)
    assert "markers of DICT_4X4_* (ids up to" in text and "try --dictionary DICT_4X4_50" in text


def test_an_rms_refusal_lists_the_worst_photos_with_their_errors(views_8) -> None:
    search = find_board_views(views_8, SPEC)
    rng = np.random.default_rng(0)
    noisy = [BoardView(v.name, v.image_size, v.corner_ids, v.object_points,
                       (v.image_points + rng.normal(0, 2.0 + i, v.image_points.shape)).astype(np.float32),
                       v.markers_seen) for i, v in enumerate(search.views)]
    with pytest.raises(CalibrationRefused) as err:
        calibrate(noisy, search.image_size, SPEC)
    text = str(err.value)
    assert "worst photos: view-07 " in text and "view-06 " in text and "view-05 " in text
    assert "(median " in text and "more than one camera" not in text


@pytest.mark.slow
def test_photos_from_two_cameras_are_named_and_refused() -> None:
    k = TRUE_CAMERA.camera_matrix.copy()
    k[:2, :2] *= 1.35
    phone = Intrinsics(TRUE_CAMERA.image_size, k, np.array([-0.05, 0.01, 0.0, 0.0, 0.0]))
    photos = good_views(SPEC, 6, seed=1) + [(f"phone-{i}", im) for i, (_, im) in enumerate(good_views(SPEC, 6, seed=2,
                                                                                                        camera=phone))]
    search = find_board_views(photos, SPEC)
    with pytest.raises(CalibrationRefused, match="more than one camera") as err:
        calibrate(search.views, search.image_size, SPEC)
    text = str(err.value)
    assert "about 1001 px in view-00, view-01, view-02, view-03 and 2 more" in text
    assert "about 1352 px in phone-0, phone-1, phone-2, phone-3 and 2 more" in text


def test_one_camera_is_not_taken_for_two(views_8) -> None:
    search = find_board_views(views_8, SPEC)
    report = calibrate(search.views, search.image_size, SPEC)
    assert not any("camera" in w for w in report.warnings)
