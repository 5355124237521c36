"""Where the camera is: a world-to-camera pose and helpers to aim it at the table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

from campo.vision.camera_model import Intrinsics
from campo.vision.tabletop import TableConfig


@dataclass(frozen=True, eq=False)
class CameraPose:
    """OpenCV extrinsics: a table point X (mm) is at ``R @ X + tvec`` in the camera frame.

    The camera frame is OpenCV's: x to the image right, y to the image bottom, z forward.
    """

    rvec: np.ndarray = field(repr=False)
    tvec: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rvec", np.asarray(self.rvec, dtype=np.float64).reshape(3))
        object.__setattr__(self, "tvec", np.asarray(self.tvec, dtype=np.float64).reshape(3))

    @classmethod
    def from_matrix(cls, rotation: np.ndarray, tvec: np.ndarray) -> CameraPose:
        rvec, _ = cv2.Rodrigues(np.asarray(rotation, dtype=np.float64))
        return cls(rvec.reshape(3), np.asarray(tvec, dtype=np.float64))

    @cached_property
    def rotation(self) -> np.ndarray:
        """3x3 world-to-camera rotation."""
        return cv2.Rodrigues(self.rvec)[0]

    @cached_property
    def centre_mm(self) -> np.ndarray:
        """The camera's optical centre in the table frame."""
        return -self.rotation.T @ self.tvec

    def key(self) -> tuple[float, ...]:
        """A hashable value identifying the pose (for caches)."""
        return tuple(np.round(np.concatenate([self.rvec, self.tvec]), 9).tolist())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CameraPose) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        c = self.centre_mm
        return f"CameraPose(centre_mm=({c[0]:.1f}, {c[1]:.1f}, {c[2]:.1f}))"


def look_at(
    eye_mm: Sequence[float],
    target_mm: Sequence[float],
    up_hint: Sequence[float] = (0.0, 1.0, 0.0),
    roll_deg: float = 0.0,
) -> CameraPose:
    """A camera at `eye_mm` looking at `target_mm`; `up_hint` (table frame) appears up in the image.

    The default shows the table as player A sees it: B's side at the top of the image.
    """
    eye = np.asarray(eye_mm, dtype=np.float64)
    forward = np.asarray(target_mm, dtype=np.float64) - eye
    norm = np.linalg.norm(forward)
    if norm == 0:
        raise ValueError("look_at: eye and target are the same point")
    forward /= norm
    up = np.asarray(up_hint, dtype=np.float64)
    up = up - (up @ forward) * forward
    if np.linalg.norm(up) < 1e-9:
        raise ValueError("look_at: up_hint is parallel to the viewing direction")
    down = -up / np.linalg.norm(up)
    right = np.cross(down, forward)
    rot = np.stack([right, down, forward])
    if roll_deg:
        a = np.radians(roll_deg)
        roll = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
        rot = roll @ rot
    return CameraPose.from_matrix(rot, -rot @ eye)


def fit_height_mm(table: TableConfig, intrinsics: Intrinsics, margin: float = 1.06) -> float:
    """Height above the table centre at which a straight-down camera sees the whole table."""
    w, h = intrinsics.image_size
    fx, fy = intrinsics.camera_matrix[0, 0], intrinsics.camera_matrix[1, 1]
    need_w = table.table.width_mm * margin / 2
    need_h = table.table.depth_mm * margin / 2
    return float(max(need_w * fx / (w / 2), need_h * fy / (h / 2)))


def overhead(
    table: TableConfig,
    intrinsics: Intrinsics | None = None,
    *,
    height_mm: float | None = None,
    tilt_deg: float = 0.0,
    margin: float = 1.06,
    roll_deg: float = 0.0,
    target_offset_mm: Sequence[float] = (0.0, 0.0),
) -> CameraPose:
    """A camera above the table centre, moved toward player A by `tilt_deg` and aimed at the centre.

    With `height_mm` None the height is fitted so that the table fills the image (needs
    `intrinsics`); a tilted camera is moved back along its line of sight to keep the same distance.
    """
    if height_mm is None:
        if intrinsics is None:
            raise ValueError("overhead: give height_mm or intrinsics")
        height_mm = fit_height_mm(table, intrinsics, margin)
    cx = table.table.width_mm / 2 + target_offset_mm[0]
    cy = table.table.depth_mm / 2 + target_offset_mm[1]
    t = np.radians(tilt_deg)
    eye = (cx, cy - height_mm * np.sin(t), height_mm * np.cos(t))
    return look_at(eye, (cx, cy, 0.0), roll_deg=roll_deg)
