"""Photos of a ChArUco calibration board taken from many angles, with the true board poses.

The board is OpenCV's own (`CharucoBoard.generateImage`) printed on white paper, lying on a
desk; its frame is OpenCV's board frame (origin at the top-left corner of the squares, x to
the right, y down the printed image, z into the board). The pose of each view maps board mm
to the camera frame, like `cv2.solvePnP` would return.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple, Protocol

import cv2
import numpy as np

from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic.degrade import Degrader
from campo.vision.synthetic.effects import Effects
from campo.vision.synthetic.planar import PlacedTexture, RayMap, depth_mm, project_px, render_texture, texels_per_mm_for
from campo.vision.synthetic.pose import CameraPose
from campo.vision.synthetic.textures import aruco_dictionary

PAPER_MARGIN_SQUARES = 0.6


class BoardLike(Protocol):
    squares_x: int
    squares_y: int
    square_mm: float
    marker_mm: float
    dictionary: str


@dataclass(frozen=True)
class CharucoSpec:
    """A ChArUco board (same fields as calibration's `BoardSpec`, which may be passed instead)."""

    squares_x: int = 7
    squares_y: int = 5
    square_mm: float = 40.0
    marker_mm: float = 30.0
    dictionary: str = "DICT_4X4_250"


class CharucoView(NamedTuple):
    """One photo of the board and the board's true pose in the camera frame."""

    image: np.ndarray
    pose: CameraPose


def cv_board(spec: BoardLike) -> cv2.aruco.CharucoBoard:
    """The OpenCV board object of a spec."""
    return cv2.aruco.CharucoBoard((spec.squares_x, spec.squares_y), float(spec.square_mm), float(spec.marker_mm),
                                  aruco_dictionary(spec.dictionary))


@lru_cache(maxsize=8)
def _board_master(squares_x: int, squares_y: int, square_mm: float, marker_mm: float, dictionary: str,
                  texels_per_square: int) -> np.ndarray:
    spec = CharucoSpec(squares_x, squares_y, square_mm, marker_mm, dictionary)
    k = texels_per_square
    img = cv_board(spec).generateImage((squares_x * k, squares_y * k), marginSize=0, borderBits=1)
    m = int(round(PAPER_MARGIN_SQUARES * k))
    img = cv2.copyMakeBorder(img, m, m, m, m, cv2.BORDER_CONSTANT, value=255)
    return (25 + img.astype(np.float32) * (230 / 255.0)).astype(np.uint8)


def board_texture(spec: BoardLike, texels_per_mm: float) -> PlacedTexture:
    """The printed board (with a white paper margin) as a texture in the board frame."""
    k_master = 64
    master = _board_master(spec.squares_x, spec.squares_y, float(spec.square_mm), float(spec.marker_mm),
                           spec.dictionary, k_master)
    master_per_mm = k_master / spec.square_mm
    k = max(4, int(round(texels_per_mm * spec.square_mm)))
    k = min(k, k_master)
    m_master = int(round(PAPER_MARGIN_SQUARES * k_master))
    # Reduce by an exact ratio so that square edges stay on the same board millimetres.
    w = int(round(master.shape[1] * k / k_master))
    h = int(round(master.shape[0] * k / k_master))
    img = cv2.resize(master, (w, h), interpolation=cv2.INTER_AREA)
    s = w / (master.shape[1] / master_per_mm)
    margin_mm = m_master / master_per_mm
    return PlacedTexture(cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA), np.array([-margin_mm, -margin_mm, 0.0]),
                         np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), s)


def charuco_corners_px(spec: BoardLike, intrinsics: Intrinsics, pose: CameraPose) -> tuple[np.ndarray, np.ndarray]:
    """(ids, Nx2 distorted pixels) of every ChArUco corner of the board seen at `pose`."""
    obj = np.asarray(cv_board(spec).getChessboardCorners(), np.float64).reshape(-1, 3)
    return np.arange(len(obj)), project_px(obj, intrinsics, pose)


def _desk(size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    w, h = size
    base = np.array(rng.choice([(70, 95, 120), (110, 110, 105), (60, 75, 95)]), np.float32)
    low = cv2.resize(rng.normal(0, 1, (h // 60 + 2, w // 60 + 2)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    grain = cv2.resize(rng.normal(0, 1, (h, w // 40 + 2)).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(base + (low * 10 + grain * 6)[:, :, None], 0, 255).astype(np.uint8)


def random_board_pose(spec: BoardLike, intrinsics: Intrinsics, rng: np.random.Generator, target_px: np.ndarray,
                      max_tilt_deg: float = 45.0, min_visible: float = 1.0) -> CameraPose | None:
    """A pose with the board centred near `target_px`, tilted up to `max_tilt_deg`: the whole board
    (paper included) in the picture, or with `min_visible` < 1 at least that share of its corners
    (ChArUco's point: a board running off the picture still calibrates, and only such views
    reach the image corners, where the lens distorts most)."""
    w, h = intrinsics.image_size
    bw, bh = spec.squares_x * spec.square_mm, spec.squares_y * spec.square_mm
    centre_obj = np.array([bw / 2, bh / 2, 0.0])
    f = intrinsics.focal_px
    margin = spec.square_mm * PAPER_MARGIN_SQUARES
    outline = np.array([[-margin, -margin, 0], [bw + margin, -margin, 0], [bw + margin, bh + margin, 0],
                        [-margin, bh + margin, 0]])
    inner = np.array([[x * spec.square_mm, y * spec.square_mm, 0.0] for y in range(1, spec.squares_y)
                      for x in range(1, spec.squares_x)])
    for _ in range(60):
        tilt = np.radians(rng.uniform(5, max_tilt_deg))
        axis_a = rng.uniform(0, 2 * np.pi)
        r_tilt, _ = cv2.Rodrigues(np.array([np.cos(axis_a), np.sin(axis_a), 0.0]) * tilt)
        r_roll, _ = cv2.Rodrigues(np.array([0, 0, np.radians(rng.uniform(-35, 35))]))
        rot = r_tilt @ r_roll
        cover = rng.uniform(0.3, 0.75)  # share of the image width the board spans
        depth = f * bw / (cover * w)
        ray = np.linalg.solve(intrinsics.camera_matrix, np.array([target_px[0], target_px[1], 1.0]))
        t = ray / ray[2] * depth - rot @ centre_obj
        pose = CameraPose.from_matrix(rot, t)
        if np.any(depth_mm(outline, pose) <= 0):
            continue
        if min_visible >= 1.0:
            px = project_px(outline, intrinsics, pose)
            if px[:, 0].min() >= 2 and px[:, 1].min() >= 2 and px[:, 0].max() <= w - 3 and px[:, 1].max() <= h - 3:
                return pose
            continue
        px = project_px(inner, intrinsics, pose)
        square_px = float(np.linalg.norm(px[1] - px[0]))
        edge = max(8.0, square_px)   # a corner this close to the edge is not found reliably
        seen = (px[:, 0] >= edge) & (px[:, 1] >= edge) & (px[:, 0] <= w - edge) & (px[:, 1] <= h - edge)
        if seen.mean() >= min_visible and not seen.all():
            return pose
    return None


def render_charuco_view(spec: BoardLike, intrinsics: Intrinsics, pose: CameraPose, *,
                        effects: Effects | None = None, seed: int = 0) -> np.ndarray:
    """One photo of the board at `pose` on a desk."""
    rng = np.random.default_rng(seed)
    rays = RayMap.for_intrinsics(intrinsics)
    canvas = _desk(intrinsics.image_size, rng)
    bw = spec.squares_x * spec.square_mm
    obj = np.array([[0, 0, 0], [bw, 0, 0]], np.float64)
    px = project_px(obj, intrinsics, pose)
    ppm = float(np.linalg.norm(px[1] - px[0]) / bw)
    tex = board_texture(spec, texels_per_mm_for(ppm * 2 * 0.8))
    render_texture(canvas, tex, intrinsics, pose, rays, supersample=2)
    effects = Effects.clean() if effects is None else effects
    if effects.is_clean:
        return canvas
    deg = Degrader(intrinsics.image_size, effects, seed=seed)
    return deg.sensor(deg.static(canvas))


# Where view centres are aimed, as shares of the image size, in the order a careful photographer
# takes them: the middle and around it (the whole board), then the four corners and the edges
# (the board running off the picture), then the rest.
_EDGE = 0.18
SWEEP: tuple[tuple[float, float, bool], ...] = (
    (0.5, 0.5, False), (0.3, 0.3, False), (0.7, 0.7, False), (0.7, 0.3, False), (0.3, 0.7, False),
    (_EDGE, _EDGE, True), (1 - _EDGE, 1 - _EDGE, True), (1 - _EDGE, _EDGE, True),
    (_EDGE, 1 - _EDGE, True), (0.5, _EDGE, True), (0.5, 1 - _EDGE, True), (_EDGE, 0.5, True),
    (1 - _EDGE, 0.5, True), (0.5, 0.3, False), (0.5, 0.7, False), (0.3, 0.5, False),
    (0.7, 0.5, False))
PARTIAL_SHARE = 0.8   # a view aimed at the picture's edge shows at least this share of the corners


def render_charuco_views(spec: BoardLike, intrinsics: Intrinsics, n_views: int = 12, seed: int = 0, *,
                         effects: Effects | None = None, max_tilt_deg: float = 45.0,
                         reach_corners: bool = False) -> list[CharucoView]:
    """`n_views` photos of the board at varied poses whose centres sweep the image (`SWEEP`). With
    `reach_corners` the views aimed at the picture's corners and edges let the board run off it
    (at least `PARTIAL_SHARE` of its corners seen); without, every view shows the whole board."""
    rng = np.random.default_rng(seed)
    w, h = intrinsics.image_size
    sweep = SWEEP if reach_corners else tuple((x, y, False) for x, y, edge in SWEEP if not edge)
    views = []
    i = 0
    while len(views) < n_views and i < n_views * 10:
        gx, gy, at_edge = sweep[i % len(sweep)]
        i += 1
        target = np.array([gx * w + rng.normal(0, 0.03 * w), gy * h + rng.normal(0, 0.03 * h)])
        pose = random_board_pose(spec, intrinsics, rng, target, max_tilt_deg,
                                 PARTIAL_SHARE if at_edge else 1.0)
        if pose is None:
            continue
        views.append(CharucoView(render_charuco_view(spec, intrinsics, pose, effects=effects, seed=seed * 1000 + i), pose))
    if len(views) < n_views:
        raise ValueError(f"could only place {len(views)} of {n_views} board views in a {w}x{h} image")
    return views
