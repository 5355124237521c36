"""Rendered photos of a ChArUco board through a known distorted camera (helpers; no tests here).

Used by tests/test_calibration_camera.py and bench/calibration_accuracy.py. The photos come from
the synthetic camera (`vision.synthetic.charuco`: exact lens model, anti-aliased board texture,
optional blur/noise/JPEG), so only detection and calibration are under test. The pose generators
here add the bad photo sessions that the synthetic camera's careful sweep never produces: boards
hanging off the picture and boards small in its middle.
"""

from __future__ import annotations

import cv2
import numpy as np

from campo.calibration.charuco import BoardSpec
from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic.charuco import render_charuco_view, render_charuco_views
from campo.vision.synthetic.effects import Effects
from campo.vision.synthetic.pose import CameraPose

TRUE_CAMERA = Intrinsics(
    (1280, 960),
    np.array([[1000.0, 0.0, 650.0], [0.0, 1003.0, 470.0], [0.0, 0.0, 1.0]]),
    np.array([-0.25, 0.08, 0.001, -0.0005, -0.01]),
)

NamedImage = tuple[str, np.ndarray]


def good_views(spec: BoardSpec, n: int, seed: int = 0, effects: Effects | None = None,
               camera: Intrinsics = TRUE_CAMERA, reach_corners: bool = False) -> list[NamedImage]:
    """A careful session: `n` photos of the whole board, tilted up to 45 degrees, swept over the
    picture (with `reach_corners`, boards running off its corners and edges too)."""
    effects = Effects.typical() if effects is None else effects
    views = render_charuco_views(spec, camera, n, seed=seed, effects=effects, reach_corners=reach_corners)
    return [(f"view-{i:02d}", v.image) for i, v in enumerate(views)]


def _facing_pose(camera: Intrinsics, spec: BoardSpec, u: float, v: float, share: float, tilt_deg: float,
                 rng: np.random.Generator) -> CameraPose:
    """The board's centre seen at pixel (u, v), spanning `share` of the image width, tilted `tilt_deg`."""
    k = camera.camera_matrix
    bw, bh = spec.squares_x * spec.square_mm, spec.squares_y * spec.square_mm
    z = k[0, 0] * bw / (share * camera.image_size[0])
    centre = np.array([(u - k[0, 2]) / k[0, 0] * z, (v - k[1, 2]) / k[1, 1] * z, z])
    a = rng.uniform(0, 2 * np.pi)
    rot = cv2.Rodrigues(np.radians(tilt_deg) * np.array([np.cos(a), np.sin(a), 0.0]))[0]
    return CameraPose.from_matrix(rot, centre - rot @ np.array([bw / 2, bh / 2, 0.0]))


def bad_views(spec: BoardSpec, n: int, kind: str, seed: int = 0, camera: Intrinsics = TRUE_CAMERA) -> list[NamedImage]:
    """A careless session: `kind` "off_frame" (mostly outside the picture, near its corners),
    "centre_only" (small, in the middle of the picture) or "square_on" (never tilted)."""
    rng = np.random.default_rng(seed)
    w, h = camera.image_size
    images = []
    for i in range(n):
        if kind == "off_frame":
            left, top = i % 4 in (0, 3), i % 4 in (0, 1)
            pose = _facing_pose(camera, spec, (-0.17 if left else 1.17) * w, (-0.17 if top else 1.17) * h,
                                0.5, rng.uniform(5, 30), rng)
        elif kind == "square_on":   # all over the picture, but never tilted
            u, v = [(0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7), (0.5, 0.5), (0.5, 0.3)][i % 6]
            pose = _facing_pose(camera, spec, u * w, v * h, 0.55, 0.0, rng)
        elif kind == "centre_only":
            pose = _facing_pose(camera, spec, rng.uniform(0.46, 0.54) * w, rng.uniform(0.46, 0.54) * h,
                                rng.uniform(0.2, 0.25), rng.uniform(5, 20), rng)
        else:
            raise ValueError(f"unknown kind of bad session {kind!r}")
        image = render_charuco_view(spec, camera, pose, effects=Effects.typical(), seed=seed * 100 + i)
        images.append((f"{kind}-{i:02d}", image))
    return images
