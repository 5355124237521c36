"""Projected light on the synthetic table: what a projector above the table adds to a frame.

A projector shows an image (its own pixels); the table reflects that light like the room's, so
the camera sees ``albedo x (room light + projected light)``. The clean render is already
``albedo x room light``, so the projected light multiplies it: ``frame x (1 + brightness x L)``
where ``L`` in [black_level, 1] is the projector's (defocused) image at the table point each
camera pixel sees. This is done before the camera's own effects (blur, gain, noise, JPEG), as a
real camera would see it.

The projector is placed by a table-to-projector homography (table mm at z = 0 to projector
pixels), or by a full pose (`ProjectorModel`, a pinhole above the table) that gives one. Light is
followed to the table plane: a base top a few mm high gets the light of the table point behind
it on the camera's ray (about 2 mm off for a 3 mm base, inside the dark margin the projector page
keeps around every marker).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic.planar import RayMap, projection_matrix
from campo.vision.synthetic.pose import CameraPose, overhead
from campo.vision.tabletop import TableConfig


def plane_homography(camera_matrix: np.ndarray, pose: CameraPose) -> np.ndarray:
    """Table (x, y, 1) at z = 0 -> ideal pixels of a pinhole at `pose` (3x3, normalised)."""
    h = np.asarray(camera_matrix, np.float64) @ np.column_stack([pose.rotation[:, 0], pose.rotation[:, 1], pose.tvec])
    return h / h[2, 2]


@dataclass(frozen=True, eq=False)
class ProjectorModel:
    """A projector as a pinhole: its image size (px), camera matrix and pose over the table."""

    size: tuple[int, int]
    camera_matrix: np.ndarray = field(repr=False)
    pose: CameraPose

    @classmethod
    def above(cls, table: TableConfig, size: tuple[int, int] = (1920, 1080), *, hfov_deg: float = 40.0,
              margin: float = 1.04, tilt_deg: float = 0.0, roll_deg: float = 0.0,
              offset_mm: Sequence[float] = (0.0, 0.0)) -> ProjectorModel:
        """A projector over the table centre whose picture covers the table (with ``margin``),
        tilted toward player A by ``tilt_deg``, turned by ``roll_deg``, shifted by ``offset_mm``."""
        optics = Intrinsics.ideal(size[0], size[1], hfov_deg)
        pose = overhead(table, optics, tilt_deg=tilt_deg, margin=margin, roll_deg=roll_deg,
                        target_offset_mm=offset_mm)
        return cls((int(size[0]), int(size[1])), optics.camera_matrix, pose)

    @cached_property
    def table_to_projector(self) -> np.ndarray:
        """Table mm (z = 0) -> projector pixels (3x3)."""
        return plane_homography(self.camera_matrix, self.pose)


@dataclass(frozen=True, eq=False)
class ProjectedLight:
    """The picture a projector shows, where it lands and how strongly.

    image: what the projector shows, its own pixels (HxW grey or HxWx3 BGR, uint8).
    table_to_projector: 3x3 homography from table mm (z = 0) to projector pixels.
    brightness: the projector's white on the table relative to the room's light (1: as bright).
    blur_px: defocus of the projector, Gaussian sigma in projector pixels.
    black_level: the light a black projector pixel still gives, as a fraction of white.
    """

    image: np.ndarray = field(repr=False)
    table_to_projector: np.ndarray = field(repr=False)
    brightness: float = 1.0
    blur_px: float = 1.0
    black_level: float = 0.01

    def __post_init__(self) -> None:
        if self.image.dtype != np.uint8 or self.image.ndim not in (2, 3):
            raise ValueError("the projector image must be a uint8 grey or BGR image")
        if not (self.brightness >= 0 and self.blur_px >= 0 and 0 <= self.black_level < 1):
            raise ValueError(f"invalid projected light: brightness {self.brightness}, blur {self.blur_px}, "
                             f"black level {self.black_level}")

    @cached_property
    def light(self) -> np.ndarray:
        """HxWx3 float32 light leaving the projector, in [black_level, 1], defocused."""
        img = self.image if self.image.ndim == 3 else cv2.cvtColor(self.image, cv2.COLOR_GRAY2BGR)
        out = img.astype(np.float32) * ((1.0 - self.black_level) / 255.0) + self.black_level
        if self.blur_px > 0:
            out = cv2.GaussianBlur(out, (0, 0), self.blur_px, borderType=cv2.BORDER_REPLICATE)
        return out

    def on_camera(self, intrinsics: Intrinsics, pose: CameraPose, rays: RayMap | None = None) -> np.ndarray:
        """HxWx3 float32: the projected light on the table point each camera pixel sees (0 where
        the projector's picture does not reach)."""
        rays = rays or RayMap.for_intrinsics(intrinsics)
        cam_plane = projection_matrix(intrinsics, pose)[:, [0, 1, 3]]
        ideal_to_projector = np.asarray(self.table_to_projector, np.float64) @ np.linalg.inv(cam_plane)
        h, w = rays.ideal.shape[:2]
        maps = cv2.perspectiveTransform(rays.ideal.reshape(-1, 1, 2), ideal_to_projector).reshape(h, w, 2)
        return cv2.remap(self.light, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=(0.0, 0.0, 0.0))

    def apply(self, frame: np.ndarray, intrinsics: Intrinsics, pose: CameraPose,
              rays: RayMap | None = None) -> np.ndarray:
        """A new frame lit by the projector too: ``frame x (1 + brightness x light)``."""
        gain = 1.0 + self.brightness * self.on_camera(intrinsics, pose, rays)
        return np.clip(frame.astype(np.float32) * gain + 0.5, 0, 255).astype(np.uint8)
