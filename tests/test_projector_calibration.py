"""Projector-camera calibration (calibration/projector.py) end to end on the synthetic camera
with projected light (vision/synthetic/projection.py): the pattern, the fit and its residual,
keeping the better calibration, and projector.json."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from campo.calibration.pipeline import FramePipeline
from campo.calibration.poses import image_to_plane
from campo.calibration.projector import (
    CalibrationFailed, ProjectorCalibration, ProjectorPattern, better_than, calibrate_from_frame, fit_projector,
    load_projector, residuals_mm, save_projector,
)
from campo.errors import FileFormatError
from campo.vision.synthetic.demo import DemoCamera
from campo.vision.synthetic.projection import ProjectedLight, ProjectorModel

TARGET_MM = 2.0


def test_the_pattern_corners_are_where_they_are_drawn() -> None:
    for size in [(1920, 1080), (1280, 800), (1024, 768)]:
        pattern = ProjectorPattern.for_screen(*size)
        image = pattern.image()
        assert image.shape == (size[1], size[0])
        ids, px = pattern.detect(image)
        assert len(ids) == len(pattern.corners_px)
        assert np.abs(px - pattern.corners_px[ids]).max() < 0.25   # a sharp corner refines to ~0.2 px


@pytest.fixture(scope="module")
def demo() -> DemoCamera:
    return DemoCamera()


def grid_error_mm(fit: np.ndarray, truth: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """How far the fitted mapping is from the true one, in mm, on a grid over the whole table."""
    xs, ys = np.meshgrid(np.linspace(0, size[0], 37), np.linspace(0, size[1], 25))
    grid = np.column_stack([xs.ravel(), ys.ravel()])
    true_px = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), truth).reshape(-1, 2)
    return residuals_mm(fit, grid, true_px)


def frames(demo: DemoCamera, model: ProjectorModel, picture: np.ndarray, brightness: float = 1.0):
    bases = demo.game.poses_at(0.0)
    dark = demo.camera.render(bases, light=ProjectedLight(np.zeros_like(picture), model.table_to_projector,
                                                          brightness=brightness)).image
    lit = demo.camera.render(bases, light=ProjectedLight(picture, model.table_to_projector, brightness=brightness)).image
    location = FramePipeline(demo.game.table, demo.game.roster, demo.intrinsics).process(dark, 0.0).location
    assert location.located
    return dark, lit, location


@pytest.mark.slow
@pytest.mark.parametrize("pose", [dict(tilt_deg=4.0, roll_deg=1.0),
                                  dict(tilt_deg=-9.0, roll_deg=-3.0, margin=1.1, offset_mm=(50.0, -40.0))],
                         ids=["overhead", "askew"])
def test_calibration_on_synthetic_frames_is_within_2_mm_over_the_whole_table(demo: DemoCamera, pose: dict) -> None:
    table = demo.game.table
    size = (table.table.width_mm, table.table.depth_mm)
    model = ProjectorModel.above(table, **pose)
    pattern = ProjectorPattern.for_screen(*model.size)
    dark, lit, location = frames(demo, model, pattern.image())
    fit = calibrate_from_frame(lit, pattern, location, demo.intrinsics, size, dark=dark)
    err = grid_error_mm(fit.homography, model.table_to_projector, size)
    print(f"\n{pose}: {fit.summary()}; true error over the table: median {np.median(err):.2f}, worst {err.max():.2f} mm")
    assert err.max() <= TARGET_MM
    assert fit.median_mm <= 0.5 and fit.worst_mm <= TARGET_MM
    assert fit.coverage >= 0.45   # the corners span about half the table or more; the mapping holds beyond
    # the ratio to the dark frame is what makes the pattern readable on a painted table
    ids_plain, _ = pattern.detect(lit)
    ids_ratio, _ = pattern.detect(lit, dark)
    assert len(ids_ratio) > len(ids_plain)


def test_a_nudged_projector_replaces_the_old_calibration_and_a_worse_fit_does_not(demo: DemoCamera) -> None:
    table = demo.game.table
    size = (table.table.width_mm, table.table.depth_mm)
    before = ProjectorModel.above(table, tilt_deg=4.0)
    after = ProjectorModel.above(table, tilt_deg=5.5, offset_mm=(15.0, 0.0))
    pattern = ProjectorPattern.for_screen(*after.size)
    dark, lit, location = frames(demo, after, pattern.image())
    ids, px = pattern.detect(lit, dark)
    new = fit_projector(ids, px, pattern, location, demo.intrinsics, size)
    corners = (image_to_plane(px, location, demo.intrinsics, 0.0), pattern.corners_px[ids])
    old = ProjectorCalibration(after.size, before.table_to_projector, 0.05, 0.2, 0.9, 100, 100)
    keep, why = better_than(new, old, corners)
    assert keep, why
    exact = ProjectorCalibration(after.size, after.table_to_projector, 0.05, 0.2, 0.9, 100, 100)
    noisy = ProjectorCalibration(after.size, after.table_to_projector @ np.diag([1.004, 1.0, 1.0]),
                                 0.3, 1.0, 0.9, 100, 100)
    keep, why = better_than(noisy, exact, corners)
    assert not keep and "previous" in why
    assert better_than(new, None) == (True, "first calibration")


def test_too_few_corners_or_no_table_fail_with_a_message(demo: DemoCamera) -> None:
    table = demo.game.table
    size = (table.table.width_mm, table.table.depth_mm)
    model = ProjectorModel.above(table)
    pattern = ProjectorPattern.for_screen(*model.size)
    dark, _, location = frames(demo, model, pattern.image())
    with pytest.raises(CalibrationFailed, match="corners of the projected pattern were read"):
        calibrate_from_frame(dark, pattern, location, demo.intrinsics, size, dark=dark)
    from campo.calibration.registration import TableLocation

    with pytest.raises(CalibrationFailed, match="table is not located"):
        fit_projector(np.arange(20), np.zeros((20, 2)), pattern, TableLocation.not_located("no anchors"),
                      demo.intrinsics, size)


def test_projected_light_multiplies_the_tables_light(demo: DemoCamera) -> None:
    from campo.vision.synthetic import Effects

    table = demo.game.table
    model = ProjectorModel.above(table, margin=0.6)   # lights the middle of the table only
    picture = np.full((model.size[1], model.size[0]), 255, np.uint8)
    bases = demo.game.poses_at(0.0)
    off = demo.camera.render(bases, effects=Effects.clean()).image.astype(float)
    on = demo.camera.render(bases, effects=Effects.clean(),
                            light=ProjectedLight(picture, model.table_to_projector, brightness=0.5, blur_px=0)).image.astype(float)
    w, h = demo.intrinsics.image_size
    mid = (slice(h // 2 - 20, h // 2 + 20), slice(w // 2 - 20, w // 2 + 20))
    corner = (slice(5, 40), slice(5, 40))
    ratio = (on[mid] + 1) / (off[mid] + 1)
    assert 1.4 < np.median(ratio) < 1.55   # 1 + brightness where the projector reaches (albedo kept)
    assert np.abs(on[corner] - off[corner]).max() <= 1   # and nothing where it does not


# -- projector.json ------------------------------------------------------------------------------


def sample() -> ProjectorCalibration:
    h = np.array([[1.02, 0.01, 30.0], [0.0, -0.98, 1100.0], [1e-6, 2e-6, 1.0]])
    return ProjectorCalibration((1920, 1080), h, 0.12, 0.9, 0.81, 90, 101, "2026-12-01T22:00:00+00:00")


def test_projector_json_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "projector.json"
    save_projector(sample(), path)
    back = load_projector(path)
    assert back.projector_size == (1920, 1080)
    assert np.allclose(back.homography, sample().homography)
    assert (back.median_mm, back.worst_mm, back.coverage, back.corners_used) == (0.12, 0.9, 0.81, 90)
    assert not (tmp_path / "projector.json.tmp").exists()


@pytest.mark.parametrize("change, key, words", [
    ({"version": 9}, "version", "not supported"),
    ({"homography": [[1, 0], [0, 1]]}, "homography", "3x3"),
    ({"homography": [[0, 0, 0], [0, 0, 0], [0, 0, 1]]}, "homography", "singular"),
    ({"projector_size": [1920]}, "projector_size", "[width, height]"),
    ({"coverage": 2}, "coverage", "0..1"),
    ({"median_mm": "small"}, "median_mm", "number"),
    ({"colour": "red"}, "colour", "unknown key"),
])
def test_a_bad_projector_json_names_the_file_and_the_key(tmp_path: Path, change: dict, key: str, words: str) -> None:
    path = tmp_path / "projector.json"
    data = {**sample().to_json(), **change}
    path.write_text(json.dumps(data))
    with pytest.raises(FileFormatError) as err:
        load_projector(path)
    message = str(err.value)
    assert message.startswith(f"{path}: {key}: ") and words in message and "\n" not in message


def test_a_missing_key_and_a_broken_file_are_one_line_errors(tmp_path: Path) -> None:
    path = tmp_path / "projector.json"
    data = sample().to_json()
    del data["homography"]
    path.write_text(json.dumps(data))
    with pytest.raises(FileFormatError, match="homography: required key is missing"):
        load_projector(path)
    path.write_text('{"version": 1,')
    with pytest.raises(FileFormatError, match="projector.json:1: invalid JSON"):
        load_projector(path)


def test_docstring_examples() -> None:
    import doctest

    from campo.calibration import projector
    from campo.server import projector_launch

    for module in (projector, projector_launch):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
