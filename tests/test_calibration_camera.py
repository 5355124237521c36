"""`campo calibrate-camera`: intrinsics from rendered ChArUco photos of a known camera.

The views are real renders from the synthetic camera (exact lens distortion, blur, noise, JPEG),
detected by OpenCV's ChArUco detector, so the whole path from pixels to camera.json is exercised.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from campo.calibration.calibrate_intrinsics import CalibrationRefused, calibrate, measure_coverage
from campo.calibration.camera_file import load_camera
from campo.calibration.charuco import BoardSpec, BoardView, detect_board_views
from tests.test_calibration_camera_views import TRUE_CAMERA, bad_views, good_views

SPEC = BoardSpec()


@pytest.fixture(scope="module")
def views_12() -> list[tuple[str, np.ndarray]]:
    return good_views(SPEC, 12, seed=1)


def relative_errors(k: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    at = {"fx": (0, 0), "fy": (1, 1), "cx": (0, 2), "cy": (1, 2)}
    return {name: abs(k[i] - truth[i]) / truth[i] for name, i in at.items()}


def test_recovers_intrinsics_within_0_2_percent(views_12) -> None:
    size, views, missed = detect_board_views(views_12, SPEC)
    assert size == TRUE_CAMERA.image_size and not missed
    report = calibrate(views, size, SPEC)
    intr = report.calibration.intrinsics
    errors = relative_errors(intr.camera_matrix, TRUE_CAMERA.camera_matrix)
    assert max(errors.values()) < 0.002, errors
    assert report.calibration.rms_px < 0.5
    # Distortion, judged by what it does: wherever the photos saw the board, the true and the
    # estimated lens send the same rays to the same pixels (outside that, it is extrapolation).
    seen = np.concatenate([v.image_points for v in views]).astype(np.float64)
    rays = TRUE_CAMERA.undistort(seen)
    back = intr.project(np.column_stack([rays, np.ones(len(rays))]), np.zeros(3), np.zeros(3))
    gap = np.linalg.norm(back - seen, axis=1)
    assert np.max(gap) < 0.5, np.max(gap)
    k1 = intr.dist_coeffs[0]
    assert k1 == pytest.approx(TRUE_CAMERA.dist_coeffs[0], abs=0.02)


def test_cli_prints_the_report_and_writes_camera_json(views_12, tmp_path: Path, run_campo) -> None:
    paths = []
    for name, img in views_12[:12]:
        path = tmp_path / f"{name}.png"
        cv2.imwrite(str(path), img)
        paths.append(path)
    out_file = tmp_path / "camera.json"
    code, out, err = run_campo("calibrate-camera", *paths, "-o", out_file)
    assert code == 0, err
    assert "[12/12]" in out and "RMS reprojection error:" in out and "per view (px):" in out
    assert "coverage: corners in" in out and "#" in out
    cal = load_camera(out_file)
    assert cal.intrinsics.image_size == TRUE_CAMERA.image_size
    assert f"RMS reprojection error: {cal.rms_px:.3f} px over 12 views" in out
    errors = relative_errors(cal.intrinsics.camera_matrix, TRUE_CAMERA.camera_matrix)
    assert max(errors.values()) < 0.005, errors
    assert cal.extra["board"]["squares"] == [7, 5] and cal.extra["views"] == 12
    assert len(cal.extra["per_view_rms_px"]) == 12 and 0 < cal.extra["coverage"] <= 1


def test_too_few_views_are_refused_with_advice(views_12, tmp_path: Path, run_campo) -> None:
    paths = []
    for name, img in views_12[:3]:
        cv2.imwrite(str(tmp_path / f"{name}.png"), img)
        paths.append(tmp_path / f"{name}.png")
    out_file = tmp_path / "camera.json"
    code, out, err = run_campo("calibrate-camera", *paths, "-o", out_file)
    assert code == 2 and not out_file.exists()
    assert "only 3 usable views of the board (need at least 5)" in err
    assert "take at least 2 more photos" in err.lower() and "tilted" in err and "Traceback" not in err


def test_views_showing_too_little_of_the_board_are_refused() -> None:
    # The board mostly outside the frame: a handful of corners each.
    size, views, missed = detect_board_views(bad_views(SPEC, 6, "off_frame", seed=3), SPEC)
    with pytest.raises(CalibrationRefused) as info:
        calibrate(views, size, SPEC, not_found=missed)
    message = str(info.value)
    assert "usable view" in message and "corners seen (need 6)" in message or "board not found" in message
    assert "more photos" in message


def test_photos_that_all_face_the_board_squarely_are_refused() -> None:
    """Without tilt the focal length trades off against the distance: OpenCV then returns a
    focal length 19 % off with a tiny uncertainty, so only the tilt can tell."""
    size, views, missed = detect_board_views(bad_views(SPEC, 6, "square_on", seed=2), SPEC)
    assert not missed
    with pytest.raises(CalibrationRefused, match="faces the board squarely"):
        calibrate(views, size, SPEC)


def test_poor_coverage_is_refused() -> None:
    # Six good views, all small and in the middle of the picture.
    size, views, missed = detect_board_views(bad_views(SPEC, 6, "centre_only", seed=5), SPEC)
    assert len(views) == 6
    with pytest.raises(CalibrationRefused, match=r"cover only \d+% of the picture \(need 35%\)") as info:
        calibrate(views, size, SPEC)
    assert "corners and edges" in str(info.value)


def test_views_that_do_not_fit_are_refused(views_12) -> None:
    size, views, _ = detect_board_views(views_12[:8], SPEC)
    rng = np.random.default_rng(0)
    noisy = [BoardView(v.name, v.image_size, v.corner_ids, v.object_points,
                       (v.image_points + rng.normal(0, 4.0, v.image_points.shape)).astype(np.float32),
                       v.markers_seen) for v in views]
    with pytest.raises(CalibrationRefused, match=r"RMS reprojection error \d+\.\d+ px is too high"):
        calibrate(noisy, size, SPEC)


def test_one_bad_photo_is_left_out_with_a_warning(views_12) -> None:
    size, views, _ = detect_board_views(views_12[:10], SPEC)
    rng = np.random.default_rng(1)
    bad = views[4]
    views[4] = BoardView(bad.name, bad.image_size, bad.corner_ids, bad.object_points,
                         (bad.image_points + rng.normal(0, 3.0, bad.image_points.shape)).astype(np.float32),
                         bad.markers_seen)
    report = calibrate(views, size, SPEC)
    assert bad.name not in report.per_view_rms and any(bad.name == n for n, _ in report.rejected)
    assert any(f"left out {bad.name}" in w for w in report.warnings)


def test_coverage_grid_counts_cells() -> None:
    pts = np.array([[0, 0], [639, 479], [640, 480], [1279, 959]], np.float32)
    view = BoardView("v", (1280, 960), np.arange(4), np.zeros((4, 3), np.float32), pts, 0)
    cov = measure_coverage([view], (1280, 960), grid=(2, 2))
    assert cov.counts.tolist() == [[2, 0], [0, 2]]
    assert cov.fraction == 0.5 and cov.rows() == ["#.", ".#"]
    assert cov.empty_regions() == ["top-right corner", "bottom-left corner"]
    cov8 = measure_coverage([view], (1280, 960))
    assert "top-right corner" in cov8.empty_regions()


def test_bad_images_name_the_file(views_12, tmp_path: Path, run_campo) -> None:
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), views_12[0][1])
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(views_12[1][1], (640, 480)))
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not an image")
    out_file = tmp_path / "camera.json"
    code, _, err = run_campo("calibrate-camera", good, small, "-o", out_file)
    assert code == 2 and f"{small}: image is 640x480 but {good} is 1280x960" in err
    code, _, err = run_campo("calibrate-camera", good, junk, "-o", out_file)
    assert code == 2 and f"{junk}: cannot read this image" in err
    code, _, err = run_campo("calibrate-camera", tmp_path / "missing.png", "-o", out_file)
    assert code == 2 and "missing.png: image not found" in err
    code, _, err = run_campo("calibrate-camera", good, "-o", out_file, "--squares", "7")
    assert code == 2 and "--squares: must look like 7x5" in err
    code, _, err = run_campo("calibrate-camera", good, "-o", out_file, "--min-views", "2")
    assert code == 2 and "--min-views: must be at least 3" in err
    assert not out_file.exists()


@pytest.fixture(scope="module")
def written_camera(views_12, tmp_path_factory) -> Path:
    size, views, _ = detect_board_views(views_12[:10], SPEC)
    from campo.calibration.camera_file import save_camera

    path = tmp_path_factory.mktemp("cam") / "camera.json"
    save_camera(calibrate(views, size, SPEC).calibration, path)
    return path


def test_camera_json_round_trip(written_camera: Path, tmp_path: Path) -> None:
    from campo.calibration.camera_file import save_camera

    cal = load_camera(written_camera)
    copy = tmp_path / "copy.json"
    save_camera(cal, copy)
    again = load_camera(copy)
    assert np.array_equal(again.intrinsics.camera_matrix, cal.intrinsics.camera_matrix)
    assert np.array_equal(again.intrinsics.dist_coeffs, cal.intrinsics.dist_coeffs)
    assert again.rms_px == cal.rms_px and again.extra == cal.extra and again.version == 1
    assert json.loads(copy.read_text()) == json.loads(written_camera.read_text())


@pytest.mark.parametrize(("edit", "key", "words"), [
    (lambda d: d.update(camera_matrix=[[1, 0, 0], [0, 1, 0]]), "camera_matrix", "3x3"),
    (lambda d: d.update(dist_coeffs=[0.1, 0.2, 0.3]), "dist_coeffs", "got 3"),
    (lambda d: d.update(image_size=[1280]), "image_size", "must have 2 numbers"),
    (lambda d: d.update(focal=1000), "focal", "unknown key"),
    (lambda d: d.update(version=99), "version", "version 99 is not supported"),
    (lambda d: d.pop("rms_px"), "rms_px", "required key is missing"),
])
def test_corrupt_camera_json_names_file_and_key(written_camera: Path, tmp_path: Path, edit, key, words) -> None:
    from campo.errors import FileFormatError

    data = json.loads(written_camera.read_text())
    edit(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(FileFormatError) as info:
        load_camera(bad)
    assert str(info.value).startswith(f"{bad}: {key}: ") and words in str(info.value)


def test_camera_json_that_is_not_json(written_camera: Path, tmp_path: Path) -> None:
    from campo.errors import FileFormatError

    bad = tmp_path / "bad.json"
    bad.write_text(written_camera.read_text()[:-40])
    with pytest.raises(FileFormatError, match=rf"^{bad}:\d+: invalid JSON"):
        load_camera(bad)


def _whole_picture_gap(intr, camera=TRUE_CAMERA) -> float:
    """The largest distance (px) between where the true and the estimated camera put the same
    ray, over a grid across the whole picture (corners included)."""
    w, h = camera.image_size
    grid = np.stack(np.meshgrid(np.linspace(0, w - 1, 33), np.linspace(0, h - 1, 25)), -1).reshape(-1, 2)
    rays = camera.undistort(grid)
    back = intr.project(np.column_stack([rays, np.ones(len(rays))]), np.zeros(3), np.zeros(3))
    return float(np.linalg.norm(back - grid, axis=1).max())


@pytest.mark.slow
def test_boards_running_off_the_corners_pin_down_the_whole_picture(views_12) -> None:
    """ChArUco corners are found on a board partly outside the picture, so photos can reach its
    corners: the lens is then known over the whole picture, not extrapolated there."""
    size, whole, _ = detect_board_views(views_12, SPEC)
    size, reaching, missed = detect_board_views(good_views(SPEC, 12, seed=1, reach_corners=True), SPEC)
    assert not missed
    assert min(len(v.corner_ids) for v in reaching) < (SPEC.squares_x - 1) * (SPEC.squares_y - 1)
    plain = calibrate(whole, size, SPEC).calibration.intrinsics
    corners = calibrate(reaching, size, SPEC).calibration.intrinsics
    errors = relative_errors(corners.camera_matrix, TRUE_CAMERA.camera_matrix)
    assert max(errors.values()) < 0.002, errors
    assert _whole_picture_gap(corners) < 0.5 * _whole_picture_gap(plain)
