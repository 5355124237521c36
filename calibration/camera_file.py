"""`camera.json`: the camera's intrinsics, versioned, loaded strictly.

A corrupt or foreign file is an error naming the file and what is wrong, never a silent
fallback to default optics, because wrong intrinsics would skew every measurement.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from campo.atomic_file import write_atomic
from campo.errors import FileFormatError
from campo.safe_input import object_with_keys, parse_json, read_bounded
from campo.vision.camera_model import Intrinsics

CAMERA_FILE_VERSION = 1
MAX_CAMERA_BYTES = 4 * 1024 * 1024
"""Largest camera.json read (per-view errors of a few hundred photos fit in a few KB)."""
MAX_IMAGE_SIDE = 100_000
MAX_FOCAL_PX = 1e6
MAX_DISTORTION = 1e6
_KNOWN_KEYS = {"version", "image_size", "camera_matrix", "dist_coeffs", "rms_px", "per_view_rms_px",
               "views", "coverage", "created", "board", "note"}
_DIST_LENGTHS = (4, 5, 8, 12, 14)


@dataclass(frozen=True)
class CameraCalibration:
    """Intrinsics plus how well they were measured."""

    intrinsics: Intrinsics
    rms_px: float
    version: int = CAMERA_FILE_VERSION
    extra: dict[str, Any] = field(default_factory=dict)  # per-view errors, coverage, board...

    def to_json(self) -> dict[str, Any]:
        data = {
            "version": self.version,
            "image_size": list(self.intrinsics.image_size),
            "camera_matrix": self.intrinsics.camera_matrix.tolist(),
            "dist_coeffs": self.intrinsics.dist_coeffs.reshape(-1).tolist(),
            "rms_px": self.rms_px,
        }
        data.update(self.extra)
        return data


def _fail(path: Path, key: str | None, message: str) -> FileFormatError:
    return FileFormatError(message, path=path, key=key)


def _number_list(path: Path, key: str, value: Any, length: int | None = None) -> list[float]:
    if not isinstance(value, list) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value
    ):
        raise _fail(path, key, f"must be a list of finite numbers (got {value!r:.60})")
    if length is not None and len(value) != length:
        raise _fail(path, key, f"must have {length} numbers (got {len(value)})")
    return [float(v) for v in value]


def parse_camera(data: Any, path: Path) -> CameraCalibration:
    """Validate a decoded camera.json object."""
    data = object_with_keys(data, path, _KNOWN_KEYS,
                            ("version", "image_size", "camera_matrix", "dist_coeffs", "rms_px"))
    version = data["version"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise _fail(path, "version", f"must be a whole number (got {version!r})")
    if version > CAMERA_FILE_VERSION or version < 1:
        raise _fail(path, "version", f"version {version} is not supported (this Campo reads 1..{CAMERA_FILE_VERSION})")
    size = _number_list(path, "image_size", data["image_size"], 2)
    if not all(0 < s <= MAX_IMAGE_SIDE and s == int(s) for s in size):
        raise _fail(path, "image_size", f"must be two whole numbers [width, height] in 1..{MAX_IMAGE_SIDE}")
    rows = data["camera_matrix"]
    if not isinstance(rows, list) or len(rows) != 3:
        raise _fail(path, "camera_matrix", "must be a 3x3 list of lists")
    matrix = np.array([_number_list(path, "camera_matrix", r, 3) for r in rows])
    _check_matrix(path, matrix, size)
    dist = _number_list(path, "dist_coeffs", data["dist_coeffs"])
    if len(dist) not in _DIST_LENGTHS:
        raise _fail(path, "dist_coeffs", f"must have 4, 5, 8, 12 or 14 numbers (got {len(dist)})")
    if max(abs(d) for d in dist) > MAX_DISTORTION:
        raise _fail(path, "dist_coeffs", f"a coefficient beyond ±{MAX_DISTORTION:g}: not a real lens")
    rms = data["rms_px"]
    if not isinstance(rms, (int, float)) or isinstance(rms, bool) or not math.isfinite(rms) \
            or not 0 <= rms <= MAX_IMAGE_SIDE:
        raise _fail(path, "rms_px", f"must be a non-negative number of pixels (got {rms!r})")
    extra = {k: v for k, v in data.items() if k not in {"version", "image_size", "camera_matrix", "dist_coeffs", "rms_px"}}
    intrinsics = Intrinsics((int(size[0]), int(size[1])), matrix, np.array(dist))
    return CameraCalibration(intrinsics, float(rms), version, extra)


def _check_matrix(path: Path, k: np.ndarray, size: list[float]) -> None:
    """A pinhole camera matrix: upper triangular ``[[fx, s, cx], [0, fy, cy], [0, 0, 1]]`` with
    positive, plausible focal lengths (so it is invertible) and the principal point near the
    picture."""
    if k[1, 0] != 0 or not np.array_equal(k[2], [0.0, 0.0, 1.0]):
        raise _fail(path, "camera_matrix", "is not a camera matrix ([[fx, 0, cx], [0, fy, cy], [0, 0, 1]])")
    if not (0 < k[0, 0] <= MAX_FOCAL_PX and 0 < k[1, 1] <= MAX_FOCAL_PX):
        raise _fail(path, "camera_matrix", f"is not a camera matrix: focal lengths fx, fy must be in "
                                           f"(0, {MAX_FOCAL_PX:g}] pixels (got {k[0, 0]:g}, {k[1, 1]:g})")
    if abs(k[0, 1]) > k[0, 0]:
        raise _fail(path, "camera_matrix", f"skew {k[0, 1]:g} is larger than fx: not a real camera")
    w, h = size
    if not (-10 * w <= k[0, 2] <= 11 * w and -10 * h <= k[1, 2] <= 11 * h):
        raise _fail(path, "camera_matrix", f"principal point ({k[0, 2]:g}, {k[1, 2]:g}) is far outside "
                                           f"the {w:g}x{h:g} picture")


def load_camera(path: str | Path) -> CameraCalibration:
    """Read camera.json; every failure is a `FileFormatError` naming the file (bounded: size,
    nesting, numbers and duplicate keys checked by `campo.safe_input.parse_json`)."""
    path = Path(path)
    raw = read_bounded(path, MAX_CAMERA_BYTES, what="a camera.json")
    return parse_camera(parse_json(raw, path=path), path)


def save_camera(calibration: CameraCalibration, path: str | Path) -> None:
    """Write camera.json whole or not at all (`campo.atomic_file`); a folder that cannot be
    written is a `CampoInputError` naming the file."""
    write_atomic(Path(path), json.dumps(calibration.to_json(), indent=2, allow_nan=False) + "\n")
