"""The rendering primitive: draw a flat texture lying anywhere in 3D into a distorted camera image.

Every output pixel looks along its own ray. `RayMap` holds, for each distorted pixel centre,
the ideal (undistorted) pixel it corresponds to, computed once per camera with
`cv2.undistortPoints`; a plane then maps ideal pixels to texture coordinates by one homography,
and `cv2.remap` samples the texture. So lens distortion is exact, and texture edges are
anti-aliased by bilinear sampling as long as a texel is not smaller than a pixel (choose the
texture resolution with `texels_per_mm_for`).

Conventions: OpenCV pixel centres (pixel (0, 0)'s centre is at 0.0, 0.0); a texture's texel
(col, row) covers [col, col+1) x [row, row+1) in texel units from its top-left edge.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import cv2
import numpy as np

from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic.pose import CameraPose

BBox = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive ends)
_CACHE_LOCK = threading.Lock()


def intrinsics_key(intr: Intrinsics) -> tuple:
    """A hashable identity for a camera's optics (for caches)."""
    return (tuple(intr.image_size), intr.camera_matrix.tobytes(), np.asarray(intr.dist_coeffs, np.float64).tobytes())


def undistort_to_ideal(pixels: np.ndarray, intr: Intrinsics) -> np.ndarray:
    """Distorted pixels (Nx1x2 or Nx2) -> the ideal pinhole pixels on the same rays (float64, same shape)."""
    pts = np.asarray(pixels, np.float64)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-10)
    out = cv2.undistortPoints(pts.reshape(-1, 1, 2), intr.camera_matrix, np.asarray(intr.dist_coeffs, np.float64),
                              None, None, intr.camera_matrix, crit)
    return out.reshape(pts.shape)


class RayMap:
    """For every distorted pixel centre, the ideal pinhole pixel it sees (HxWx2 float32)."""

    _cache: OrderedDict[tuple, RayMap] = OrderedDict()

    GRID_STEP = 4  # exact rays every 4 px, bilinear in between: < 0.002 px off for ordinary lenses

    def __init__(self, intrinsics: Intrinsics) -> None:
        self.intrinsics = intrinsics
        w, h = intrinsics.image_size
        d = np.asarray(intrinsics.dist_coeffs, np.float64).reshape(-1)
        if not np.any(d):
            ys, xs = np.mgrid[0:h, 0:w]
            self.ideal = np.dstack([xs, ys]).astype(np.float32)
            return
        # Grid points sit at the centres of step x step blocks (one extra ring outside the image), so
        # that cv2.resize's pixel-centre mapping puts every output pixel at its exact position.
        step = self.GRID_STEP
        nx, ny = -(-w // step) + 2, -(-h // step) + 2
        gx = (np.arange(nx) - 1) * step + (step - 1) / 2
        gy = (np.arange(ny) - 1) * step + (step - 1) / 2
        grid = np.dstack(np.meshgrid(gx, gy)).reshape(-1, 1, 2)
        ideal = undistort_to_ideal(grid, intrinsics).reshape(ny, nx, 2)
        big = cv2.resize(ideal, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)
        self.ideal = np.ascontiguousarray(big[step: step + h, step: step + w], dtype=np.float32)

    @classmethod
    def for_intrinsics(cls, intrinsics: Intrinsics) -> RayMap:
        """The (cached, thread-safe) ray map of a camera."""
        key = intrinsics_key(intrinsics)
        with _CACHE_LOCK:
            rays = cls._cache.get(key)
            if rays is None:
                rays = cls(intrinsics)
                cls._cache[key] = rays
                while len(cls._cache) > 4:
                    cls._cache.popitem(last=False)
            else:
                cls._cache.move_to_end(key)
            return rays


@dataclass(frozen=True, eq=False)
class PlacedTexture:
    """A texture lying flat in 3D: its top-left texel edge at `origin_mm`, columns along `u_axis`,
    rows along `v_axis` (unit vectors, table frame), `texels_per_mm` texels per millimetre.

    `image` is BGR (opaque) or BGRA (alpha 0..255; outside the texture counts as transparent).
    """

    image: np.ndarray = field(repr=False)
    origin_mm: np.ndarray
    u_axis: np.ndarray
    v_axis: np.ndarray
    texels_per_mm: float

    def corners_mm(self) -> np.ndarray:
        """4x3 corners of the texture's outer edge (top-left, top-right, bottom-right, bottom-left)."""
        h, w = self.image.shape[:2]
        o, u, v = (np.asarray(a, np.float64) for a in (self.origin_mm, self.u_axis, self.v_axis))
        du, dv = u * w / self.texels_per_mm, v * h / self.texels_per_mm
        return np.array([o, o + du, o + du + dv, o + dv])

    def texel_to_world(self) -> np.ndarray:
        """4x3 matrix M: world (X, Y, Z, 1) = M @ (col, row, 1) for texel centres."""
        o, u, v = (np.asarray(a, np.float64) for a in (self.origin_mm, self.u_axis, self.v_axis))
        s = self.texels_per_mm
        m = np.zeros((4, 3))
        m[:3, 0] = u / s
        m[:3, 1] = v / s
        m[:3, 2] = o + (u + v) * 0.5 / s
        m[3, 2] = 1.0
        return m


def centred_texture(image: np.ndarray, centre_mm: np.ndarray, up: np.ndarray, texels_per_mm: float) -> PlacedTexture:
    """Place `image` flat (normal along z) with its centre at `centre_mm` and its top toward `up`."""
    h, w = image.shape[:2]
    up = np.asarray(up, np.float64)
    right = np.array([up[1], -up[0], 0.0])
    down = -up
    origin = np.asarray(centre_mm, np.float64) - right * (w / 2 / texels_per_mm) - down * (h / 2 / texels_per_mm)
    return PlacedTexture(image, origin, right, down, texels_per_mm)


def projection_matrix(intr: Intrinsics, pose: CameraPose) -> np.ndarray:
    """3x4 ideal (undistorted) pinhole projection K [R | t]."""
    return intr.camera_matrix @ np.hstack([pose.rotation, pose.tvec.reshape(3, 1)])


def project_px(points_mm: np.ndarray, intr: Intrinsics, pose: CameraPose) -> np.ndarray:
    """Nx3 table points -> Nx2 distorted pixels (OpenCV pixel-centre convention)."""
    return intr.project(np.asarray(points_mm, np.float64).reshape(-1, 3), pose.rvec, pose.tvec)


def depth_mm(points_mm: np.ndarray, pose: CameraPose) -> np.ndarray:
    """Camera-frame z (distance along the optical axis) of Nx3 table points."""
    pts = np.asarray(points_mm, np.float64).reshape(-1, 3)
    return pts @ pose.rotation[2] + pose.tvec[2]


def texels_per_mm_for(px_per_mm_: float, steps_per_octave: int = 4) -> float:
    """A texture resolution on a fixed ladder, at most one texel per pixel (so sampling anti-aliases)."""
    if px_per_mm_ <= 0:
        return 0.25
    level = math.floor(math.log2(px_per_mm_) * steps_per_octave)
    return float(2.0 ** (level / steps_per_octave))


def bbox_of(px: np.ndarray, size: tuple[int, int], margin: int = 2) -> BBox | None:
    """Integer pixel box around Nx2 points, clipped to the image; None when empty."""
    w, h = size
    x0 = max(int(math.floor(px[:, 0].min())) - margin, 0)
    y0 = max(int(math.floor(px[:, 1].min())) - margin, 0)
    x1 = min(int(math.ceil(px[:, 0].max())) + margin + 1, w)
    y1 = min(int(math.ceil(px[:, 1].max())) + margin + 1, h)
    if x0 >= x1 or y0 >= y1:
        return None
    return x0, y0, x1, y1


def subdivide(corners: np.ndarray, per_edge: int = 4) -> np.ndarray:
    """Points along a closed polygon's edges, `per_edge` per edge (lens distortion bends long edges)."""
    nxt = corners[np.r_[1:len(corners), 0]]
    t = (np.arange(per_edge) / per_edge)[None, :, None]
    return (corners[:, None, :] + (nxt - corners)[:, None, :] * t).reshape(-1, corners.shape[1])


def texture_bbox(tex: PlacedTexture, intr: Intrinsics, pose: CameraPose) -> BBox | None:
    """Pixel box the texture can cover; None when it is off-image or behind the camera."""
    pts = subdivide(tex.corners_mm(), 6)
    if np.any(depth_mm(pts, pose) <= 1e-6):
        return (0, 0, *intr.image_size) if np.any(depth_mm(pts, pose) > 0) else None
    return bbox_of(project_px(pts, intr, pose), intr.image_size)


def sample_texture(
    tex: PlacedTexture,
    intr: Intrinsics,
    pose: CameraPose,
    bbox: BBox,
    rays: RayMap | None = None,
    border_value: tuple[float, ...] = (0, 0, 0, 0),
    supersample: int = 1,
) -> np.ndarray:
    """The texture as seen by the pixels of `bbox` (same channels as the texture).

    With `supersample` n > 1 each pixel averages n x n sub-pixel samples (sharper, exact
    anti-aliasing; choose the texture for n times the pixel density).
    """
    rays = rays or RayMap.for_intrinsics(intr)
    h_img_tex = projection_matrix(intr, pose) @ tex.texel_to_world()
    h_tex_img = np.linalg.inv(h_img_tex)
    return sample_homography(tex.image, h_tex_img, rays, bbox, supersample, border_value, _may_be_behind(tex, pose))


def sample_homography(
    image: np.ndarray,
    h_tex_img: np.ndarray,
    rays: RayMap,
    bbox: BBox,
    supersample: int = 1,
    border_value: tuple[float, ...] = (0, 0, 0, 0),
    check_behind: bool = False,
) -> np.ndarray:
    """Sample `image` for the pixels of `bbox`, given the homography from ideal pixels to texels.

    With `check_behind` (a plane not wholly in front of the camera), pixels whose ray meets the
    plane behind the camera see nothing: H^-1 (u, v, 1) has third component 1 / depth.
    """
    x0, y0, x1, y1 = bbox
    ideal = rays.ideal[y0:y1, x0:x1]
    if supersample > 1:
        # Sub-pixel rays by bilinear interpolation of the (smooth) ray map: sample centres at
        # (i + 0.5) / n - 0.5 pixels, which is exactly what resize's pixel-centre mapping gives.
        ideal = cv2.resize(ideal, ((x1 - x0) * supersample, (y1 - y0) * supersample), interpolation=cv2.INTER_LINEAR)
        _extrapolate_border(ideal, supersample)
    hh, ww = ideal.shape[:2]
    maps = cv2.perspectiveTransform(ideal.reshape(-1, 1, 2), h_tex_img).reshape(hh, ww, 2)
    if check_behind:
        inv_depth = ideal.reshape(-1, 2) @ h_tex_img[2, :2] + h_tex_img[2, 2]
        maps[(inv_depth <= 0).reshape(hh, ww)] = -1e6
    bv = border_value[: image.shape[2]] if image.ndim == 3 else border_value[0]
    out = cv2.remap(image, maps, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=bv)
    if supersample > 1:
        out = cv2.resize(out, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    return out


def _extrapolate_border(up: np.ndarray, n: int) -> None:
    """Fix the outer sub-samples that resize clamps to the edge pixel, by linear extrapolation."""
    k = n // 2  # sub-samples beyond the first/last pixel centre on each side
    if k == 0 or up.shape[0] < 2 * n or up.shape[1] < 2 * n:
        return
    for i in range(k):
        t = (k - i) / n  # how far (in pixels) sub-sample i lies before the first pixel centre
        a, b = up[:, k], up[:, k + n]
        up[:, i] = a - (b - a) * t
        a, b = up[:, -1 - k], up[:, -1 - k - n]
        up[:, -1 - i] = a - (b - a) * t
        a, b = up[k], up[k + n]
        up[i] = a - (b - a) * t
        a, b = up[-1 - k], up[-1 - k - n]
        up[-1 - i] = a - (b - a) * t


def _may_be_behind(tex: PlacedTexture, pose: CameraPose) -> bool:
    return bool(np.any(depth_mm(tex.corners_mm(), pose) <= 1e-6))


def blend_into(canvas: np.ndarray, patch: np.ndarray, bbox: BBox, opacity: float = 1.0) -> None:
    """Alpha-composite a BGRA patch (or paste a BGR one) onto `canvas` at `bbox`, in place."""
    x0, y0, x1, y1 = bbox
    dst = canvas[y0:y1, x0:x1]
    if patch.shape[2] == 3 and opacity >= 1.0:
        dst[:] = patch
        return
    if patch.shape[2] == 3:
        cv2.addWeighted(patch, opacity, dst, 1.0 - opacity, 0.0, dst=dst)
        return
    w_fg = patch[:, :, 3].astype(np.float32) * (opacity / 255.0)
    dst[:] = cv2.blendLinear(cv2.cvtColor(patch, cv2.COLOR_BGRA2BGR), dst, w_fg, 1.0 - w_fg)


def render_texture(
    canvas: np.ndarray,
    tex: PlacedTexture,
    intr: Intrinsics,
    pose: CameraPose,
    rays: RayMap | None = None,
    opacity: float = 1.0,
    *,
    supersample: int = 1,
    bbox: BBox | None = None,
) -> BBox | None:
    """Draw `tex` into `canvas` (BGR, the camera's image size) in place; returns the box touched.

    `bbox` (optional) is where the texture lands, when the caller already knows it.
    """
    bbox = bbox or texture_bbox(tex, intr, pose)
    if bbox is None:
        return None
    if tex.image.ndim == 2 or tex.image.shape[2] == 3:
        tex = PlacedTexture(cv2.cvtColor(tex.image, cv2.COLOR_GRAY2BGRA if tex.image.ndim == 2 else cv2.COLOR_BGR2BGRA),
                            tex.origin_mm, tex.u_axis, tex.v_axis, tex.texels_per_mm)
    patch = sample_texture(tex, intr, pose, bbox, rays, supersample=supersample)
    blend_into(canvas, patch, bbox, opacity)
    return bbox
