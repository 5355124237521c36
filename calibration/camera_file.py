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

from campo.vision.camera_model import Intrinsics
from campo.errors import FileFormatError

CAMERA_FILE_VERSION = 1
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
    if not isinstance(data, dict):
        raise _fail(path, None, "must be a JSON object")
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise _fail(path, unknown[0], "unknown key (check the spelling)")
    for key in ("version", "image_size", "camera_matrix", "dist_coeffs", "rms_px"):
        if key not in data:
            raise _fail(path, key, "required key is missing")
    version = data["version"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise _fail(path, "version", f"must be a whole number (got {version!r})")
    if version > CAMERA_FILE_VERSION or version < 1:
        raise _fail(path, "version", f"version {version} is not supported (this Campo reads 1..{CAMERA_FILE_VERSION})")
    size = _number_list(path, "image_size", data["image_size"], 2)
    if not all(s > 0 and s == int(s) for s in size):
        raise _fail(path, "image_size", "must be two positive whole numbers [width, height]")
    rows = data["camera_matrix"]
    if not isinstance(rows, list) or len(rows) != 3:
        raise _fail(path, "camera_matrix", "must be a 3x3 list of lists")
    matrix = np.array([_number_list(path, "camera_matrix", r, 3) for r in rows])
    if matrix[0, 0] <= 0 or matrix[1, 1] <= 0 or not np.allclose(matrix[2], [0, 0, 1]):
        raise _fail(path, "camera_matrix", "is not a camera matrix (positive fx, fy and last row 0 0 1)")
    dist = _number_list(path, "dist_coeffs", data["dist_coeffs"])
    if len(dist) not in _DIST_LENGTHS:
        raise _fail(path, "dist_coeffs", f"must have 4, 5, 8, 12 or 14 numbers (got {len(dist)})")
    rms = data["rms_px"]
    if not isinstance(rms, (int, float)) or isinstance(rms, bool) or not math.isfinite(rms) or rms < 0:
        raise _fail(path, "rms_px", f"must be a non-negative number (got {rms!r})")
    extra = {k: v for k, v in data.items() if k not in {"version", "image_size", "camera_matrix", "dist_coeffs", "rms_px"}}
    intrinsics = Intrinsics((int(size[0]), int(size[1])), matrix, np.array(dist))
    return CameraCalibration(intrinsics, float(rms), version, extra)


def load_camera(path: str | Path) -> CameraCalibration:
    """Read camera.json; every failure is a `FileFormatError` naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileFormatError("file not found", path=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FileFormatError(f"cannot read: {exc}", path=path) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno) from None
    return parse_camera(data, path)


def save_camera(calibration: CameraCalibration, path: str | Path) -> None:
    """Write camera.json atomically (a crash never leaves half a file)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(calibration.to_json(), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
