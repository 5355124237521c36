"""camera.json: versioned, strict, round trip, and every corruption named."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from campo.calibration.camera_file import CameraCalibration, load_camera, save_camera
from campo.vision.camera_model import Intrinsics
from campo.errors import FileFormatError


def good() -> dict:
    cal = CameraCalibration(Intrinsics.ideal(1920, 1080, 62.0, (-0.12, 0.05, 0.001, -0.0005, 0.0)), 0.31)
    return cal.to_json()


def test_round_trip(tmp_path: Path) -> None:
    cal = CameraCalibration(Intrinsics.ideal(3840, 2160, 70.0, (-0.1, 0.02, 0, 0, 0)), 0.25, extra={"per_view_rms_px": [0.2, 0.3]})
    save_camera(cal, tmp_path / "camera.json")
    again = load_camera(tmp_path / "camera.json")
    assert again.intrinsics.image_size == (3840, 2160)
    assert np.array_equal(again.intrinsics.camera_matrix, cal.intrinsics.camera_matrix)
    assert np.array_equal(again.intrinsics.dist_coeffs, cal.intrinsics.dist_coeffs)
    assert again.rms_px == 0.25 and again.version == 1 and again.extra == {"per_view_rms_px": [0.2, 0.3]}
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize(
    ("edit", "key", "words"),
    [
        (lambda d: d.pop("rms_px"), "rms_px", "required key is missing"),
        (lambda d: d.update(fx=1000.0), "fx", "unknown key"),
        (lambda d: d.update(version=7), "version", "version 7 is not supported"),
        (lambda d: d.update(camera_matrix=[[1, 0, 0], [0, 1, 0]]), "camera_matrix", "3x3"),
        (lambda d: d.update(camera_matrix=[[-5, 0, 0], [0, 1, 0], [0, 0, 1]]), "camera_matrix", "not a camera matrix"),
        (lambda d: d.update(dist_coeffs=[0.1, 0.2, 0.3]), "dist_coeffs", "4, 5, 8, 12 or 14"),
        (lambda d: d.update(dist_coeffs=[0.1, "x", 0, 0, 0]), "dist_coeffs", "finite numbers"),
        (lambda d: d.update(image_size=[1920.5, 1080]), "image_size", "whole numbers"),
        (lambda d: d.update(rms_px=-1), "rms_px", "non-negative"),
    ],
)
def test_corrupt_fields_are_named(tmp_path: Path, edit, key: str, words: str) -> None:
    data = good()
    edit(data)
    path = tmp_path / "camera.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FileFormatError) as info:
        load_camera(path)
    assert info.value.key == key and words in str(info.value) and str(path) in str(info.value)


def test_bad_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "camera.json"
    path.write_text('{\n  "version": 1,\n  "image_size": [1920, 1080\n}')
    with pytest.raises(FileFormatError, match=r"camera.json:4: invalid JSON"):
        load_camera(path)


def test_truncated_and_binary_files(tmp_path: Path) -> None:
    path = tmp_path / "camera.json"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(FileFormatError, match="camera.json"):
        load_camera(path)
    path.write_text("[]")
    with pytest.raises(FileFormatError, match="must be a JSON object"):
        load_camera(path)
