"""Pinhole camera with OpenCV lens distortion: the one model shared by rendering and measuring."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np


@dataclass(frozen=True)
class Intrinsics:
    """What a camera's optics do: focal lengths and principal point (K) and lens distortion.

    `dist_coeffs` follow OpenCV's order k1, k2, p1, p2, k3[, k4, k5, k6, ...].
    """

    image_size: tuple[int, int]  # (width, height) in pixels
    camera_matrix: np.ndarray = field(repr=False)
    dist_coeffs: np.ndarray = field(repr=False)

    @classmethod
    def ideal(cls, width: int, height: int, hfov_deg: float = 60.0, dist: tuple[float, ...] = ()) -> Intrinsics:
        """A centred camera of the given horizontal field of view (for renders and tests)."""
        f = (width / 2) / np.tan(np.radians(hfov_deg) / 2)
        k = np.array([[f, 0, (width - 1) / 2], [0, f, (height - 1) / 2], [0, 0, 1]], dtype=np.float64)
        d = np.zeros(5) if not dist else np.asarray(dist, dtype=np.float64)
        return cls((int(width), int(height)), k, d)

    @property
    def focal_px(self) -> float:
        return float((self.camera_matrix[0, 0] + self.camera_matrix[1, 1]) / 2)

    def scaled(self, width: int, height: int) -> Intrinsics:
        """The same optics at another resolution (a camera running in a smaller mode)."""
        sx, sy = width / self.image_size[0], height / self.image_size[1]
        k = self.camera_matrix.copy()
        k[0, :] *= sx
        k[1, :] *= sy
        return Intrinsics((width, height), k, self.dist_coeffs.copy())

    def project(self, points_cam_or_world: np.ndarray, rvec: np.ndarray, tvec: np.ndarray) -> np.ndarray:
        """Project Nx3 world points with the pose (rvec, tvec) to Nx2 distorted pixels."""
        pts = np.asarray(points_cam_or_world, dtype=np.float64).reshape(-1, 1, 3)
        out, _ = cv2.projectPoints(pts, rvec, tvec, self.camera_matrix, self.dist_coeffs)
        return out.reshape(-1, 2)

    def undistort(self, pixels: np.ndarray) -> np.ndarray:
        """Nx2 distorted pixels -> Nx2 undistorted normalised coordinates (x/z, y/z)."""
        pts = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10)
        out = cv2.undistortPoints(pts, self.camera_matrix, self.dist_coeffs, None, None, None, criteria)
        return out.reshape(-1, 2)
