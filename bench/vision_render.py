"""Three independent marker renderers, for test images Campo was not tuned on.

The project's own synthetic camera (vision/synthetic) is what Campo's detector was tuned on, so
its recall and speed are checked here on images made another way. Each renderer draws markers
seen by a camera on a plane (mm) and returns the image with the exact corners, in OpenCV's
order and convention (the centre of the top-left pixel is (0, 0)). They share nothing but the
compositing of a marker patch (with its coverage) over a background:

- `warp`: the marker drawn by OpenCV (`generateImageMarker`, 16 px per cell), warped by
  `warpPerspective` (bilinear) into a 4x supersampled patch, shrunk by area averaging (a box
  filter); pinhole camera, no distortion;
- `poly`: every cell a polygon rasterised by `fillPoly` (no anti-aliasing) at 8x, its edges
  split in four and projected through a camera with radial distortion (curved edges), then a
  Gaussian prefilter and point decimation (another anti-aliasing);
- `exact`: every pixel the mean of 4 x 4 samples mapped analytically back onto the plane and
  looked up in the marker's cells (an exact box filter); pinhole camera.

Camera effects (`Effects`: blur, motion blur, noise, light, JPEG) are applied to the whole image
after rendering. Backgrounds: real photos (bench/../tests/data/vision_real) or procedural cloth.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np


@dataclass(frozen=True)
class Marker:
    """One printed marker on the plane: the black square's corners (mm, OpenCV order)."""

    dictionary: str
    marker_id: int
    corners_mm: np.ndarray  # (4, 2) on the plane, z = 0
    quiet_cells: float = 1.0  # white margin around the black square, in cells
    black: float = 20.0  # printed grey levels (before the light)
    white: float = 235.0


@dataclass(frozen=True)
class Camera:
    """A pinhole camera (with optional radial distortion) looking at the plane z = 0."""

    size: tuple[int, int]  # (width, height)
    camera_matrix: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    k1: float = 0.0

    def project(self, pts_mm: np.ndarray) -> np.ndarray:
        p = np.asarray(pts_mm, np.float64).reshape(-1, 2)
        obj = np.concatenate([p, np.zeros((len(p), 1))], axis=1)
        dist = np.array([self.k1, 0.0, 0.0, 0.0, 0.0])
        img, _ = cv2.projectPoints(obj, self.rvec, self.tvec, self.camera_matrix, dist)
        return img.reshape(-1, 2)

    def homography(self) -> np.ndarray:
        """Plane (mm) to image (px), ignoring distortion."""
        r = cv2.Rodrigues(np.asarray(self.rvec, np.float64))[0]
        return self.camera_matrix @ np.column_stack([r[:, 0], r[:, 1], np.asarray(self.tvec, np.float64).reshape(3)])


def looking_at(size: tuple[int, int], focal_px: float, centre_mm: tuple[float, float], distance_mm: float,
               tilt_deg: float, yaw_deg: float = 0.0, roll_deg: float = 0.0, k1: float = 0.0) -> Camera:
    """A camera `distance_mm` from `centre_mm` on the plane, its axis tilted `tilt_deg` from the
    plane's normal (toward -y, then turned by `yaw_deg` about the normal), rolled by `roll_deg`."""
    w, h = size
    k = np.array([[focal_px, 0, (w - 1) / 2], [0, focal_px, (h - 1) / 2], [0, 0, 1.0]])
    t, y, r = np.radians([tilt_deg, yaw_deg, roll_deg])
    # camera looking straight down (-z of the plane), image x along plane x, image y along -plane y
    down = np.array([[1, 0, 0], [0, -1, 0], [0, 0, -1.0]])
    tilt = cv2.Rodrigues(np.array([t, 0, 0]))[0]
    yaw = cv2.Rodrigues(np.array([0, 0, y]))[0]
    roll = cv2.Rodrigues(np.array([0, 0, r]))[0]
    r_cam = roll @ tilt @ down @ yaw.T  # plane -> camera
    centre = np.array([centre_mm[0], centre_mm[1], 0.0])
    eye = centre - r_cam.T @ np.array([0, 0, distance_mm])  # the camera axis passes through centre
    tvec = -r_cam @ eye
    return Camera(size, k, cv2.Rodrigues(r_cam)[0].reshape(3), tvec, k1)


def marker_bits(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker's cells with its black border (n+2, n+2), 1 = white."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    n = int(d.markerSize)
    bits = cv2.aruco.Dictionary.getBitsFromByteList(d.bytesList[marker_id:marker_id + 1], n)
    grid = np.zeros((n + 2, n + 2), np.float32)
    grid[1:-1, 1:-1] = bits
    return grid


def _cell_point(m: Marker, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Plane points (mm) at marker coordinates u, v (0..1 across the black square)."""
    c = m.corners_mm
    top = c[0] + np.multiply.outer(u, c[1] - c[0])
    bottom = c[3] + np.multiply.outer(u, c[2] - c[3])
    return top + (bottom - top) * np.asarray(v)[..., None]


def _outer_corners_mm(m: Marker) -> np.ndarray:
    cells = marker_bits(m.dictionary, m.marker_id).shape[0]
    q = m.quiet_cells / cells
    return _cell_point(m, np.array([-q, 1 + q, 1 + q, -q]), np.array([-q, -q, 1 + q, 1 + q]))


def _roi(pts_px: np.ndarray, size: tuple[int, int], pad: int = 3) -> tuple[int, int, int, int] | None:
    w, h = size
    x0, y0 = np.floor(pts_px.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(pts_px.max(axis=0)).astype(int) + pad + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    return None if x1 <= x0 or y1 <= y0 else (int(x0), int(y0), int(x1), int(y1))


def _composite(out: np.ndarray, roi: tuple[int, int, int, int], value: np.ndarray, alpha: np.ndarray) -> None:
    x0, y0, x1, y1 = roi
    out[y0:y1, x0:x1] = out[y0:y1, x0:x1] * (1 - alpha) + value


# --- warp: OpenCV's drawing, warpPerspective, area averaging ---------------------------------------


def _draw_warp(out: np.ndarray, cam: Camera, m: Marker, s: int = 4, ppc: int = 16) -> None:
    cells = marker_bits(m.dictionary, m.marker_id).shape[0]
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, m.dictionary))
    img = cv2.aruco.generateImageMarker(d, m.marker_id, cells * ppc, borderBits=1).astype(np.float32) / 255.0
    q = int(round(m.quiet_cells * ppc))
    patch = cv2.copyMakeBorder(img, q, q, q, q, cv2.BORDER_CONSTANT, value=1.0)
    value = m.black + patch * (m.white - m.black)
    src = np.array([[q - 0.5, q - 0.5], [q + cells * ppc - 0.5, q - 0.5],
                    [q + cells * ppc - 0.5, q + cells * ppc - 0.5], [q - 0.5, q + cells * ppc - 0.5]], np.float32)
    dst_px = cam.project(m.corners_mm)
    roi = _roi(cam.project(_outer_corners_mm(m)), cam.size)
    if roi is None:
        return
    x0, y0, x1, y1 = roi
    big = (s * (dst_px - [x0, y0] + 0.5) - 0.5).astype(np.float32)
    hom = cv2.getPerspectiveTransform(src, big)
    bw, bh = s * (x1 - x0), s * (y1 - y0)
    v = cv2.warpPerspective(value, hom, (bw, bh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    a = cv2.warpPerspective(np.ones_like(value), hom, (bw, bh), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    v = cv2.resize(v, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    a = cv2.resize(a, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    _composite(out, roi, v, a)


# --- poly: cells as polygons at 8x, distortion, Gaussian prefilter ----------------------------------


def _draw_poly(out: np.ndarray, cam: Camera, m: Marker, s: int = 8, split: int = 4) -> None:
    grid = marker_bits(m.dictionary, m.marker_id)
    cells = grid.shape[0]
    roi = _roi(cam.project(_outer_corners_mm(m)), cam.size, pad=4)
    if roi is None:
        return
    x0, y0, x1, y1 = roi
    bw, bh = s * (x1 - x0), s * (y1 - y0)
    value = np.zeros((bh, bw), np.float32)
    alpha = np.zeros((bh, bw), np.float32)
    t = np.linspace(0, 1, split + 1)[:-1]

    def poly(u0: float, v0: float, u1: float, v1: float) -> np.ndarray:
        us = np.concatenate([u0 + (u1 - u0) * t, np.full(split, u1), u1 - (u1 - u0) * t, np.full(split, u0)])
        vs = np.concatenate([np.full(split, v0), v0 + (v1 - v0) * t, np.full(split, v1), v1 - (v1 - v0) * t])
        px = cam.project(_cell_point(m, us, vs).reshape(-1, 2))
        big = s * (px - [x0, y0] + 0.5) - 0.5
        centre = big.mean(axis=0)
        # fillPoly fills every pixel whose centre is on or inside the rounded outline: half a
        # supersampled pixel fat on each side, taken back here
        span = np.linalg.norm(big - centre, axis=1).mean()
        big = centre + (big - centre) * max(span - 0.5, 0.1) / max(span, 1e-9)
        return np.round(big * 16).astype(np.int32)

    q = m.quiet_cells / cells
    outer = poly(-q, -q, 1 + q, 1 + q)
    cv2.fillPoly(alpha, [outer], 1.0, cv2.LINE_8, 4)
    cv2.fillPoly(value, [outer], float(m.white), cv2.LINE_8, 4)
    cv2.fillPoly(value, [poly(0, 0, 1, 1)], float(m.black), cv2.LINE_8, 4)
    for r, c in zip(*np.nonzero(grid)):
        cv2.fillPoly(value, [poly(c / cells, r / cells, (c + 1) / cells, (r + 1) / cells)], float(m.white), cv2.LINE_8, 4)
    sigma = 0.45 * s
    value = cv2.GaussianBlur(value, (0, 0), sigma)
    alpha = cv2.GaussianBlur(alpha, (0, 0), sigma)
    # pixel (i, j) is the sample at the supersampled point s*(j+0.5)-0.5: between samples for even s
    off = s // 2
    v = 0.25 * (value[off - 1::s, off - 1::s] + value[off::s, off - 1::s] + value[off - 1::s, off::s] + value[off::s, off::s])
    a = 0.25 * (alpha[off - 1::s, off - 1::s] + alpha[off::s, off - 1::s] + alpha[off - 1::s, off::s] + alpha[off::s, off::s])
    _composite(out, roi, v[: y1 - y0, : x1 - x0], a[: y1 - y0, : x1 - x0])


# --- exact: analytic inverse mapping, 4 x 4 box filter ---------------------------------------------


def _draw_exact(out: np.ndarray, cam: Camera, m: Marker, s: int = 4) -> None:
    grid = marker_bits(m.dictionary, m.marker_id)
    cells = grid.shape[0]
    roi = _roi(cam.project(_outer_corners_mm(m)), cam.size)
    if roi is None:
        return
    x0, y0, x1, y1 = roi
    # image -> marker unit square, through the plane (pinhole: a homography)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
    hom = cv2.getPerspectiveTransform(cam.project(m.corners_mm).astype(np.float32), unit.astype(np.float32))
    sub = (np.arange(s) + 0.5) / s - 0.5
    xs = (np.arange(x0, x1)[:, None] + sub[None]).reshape(-1)
    ys = (np.arange(y0, y1)[:, None] + sub[None]).reshape(-1)
    gx, gy = np.meshgrid(xs, ys)
    p = hom @ np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)])
    u, v = p[0] / p[2], p[1] / p[2]
    q = m.quiet_cells / cells
    inside = (u >= -q) & (u < 1 + q) & (v >= -q) & (v < 1 + q)
    cu, cv_ = np.floor(u * cells).astype(int), np.floor(v * cells).astype(int)
    in_square = (cu >= 0) & (cu < cells) & (cv_ >= 0) & (cv_ < cells)
    white = np.where(in_square, grid[np.clip(cv_, 0, cells - 1), np.clip(cu, 0, cells - 1)], 1.0)
    val = np.where(inside, m.black + white * (m.white - m.black), 0.0).reshape(gy.shape)
    alp = inside.astype(np.float64).reshape(gy.shape)
    h, w = y1 - y0, x1 - x0
    v_img = val.reshape(h, s, w, s).mean(axis=(1, 3))
    a_img = alp.reshape(h, s, w, s).mean(axis=(1, 3))
    _composite(out, roi, v_img, a_img)


RENDERERS = {"warp": _draw_warp, "poly": _draw_poly, "exact": _draw_exact}


@dataclass(frozen=True)
class Effects:
    """What the camera does to the rendered light (applied in this order)."""

    blur_px: float = 0.0  # Gaussian point spread (sigma)
    motion_px: float = 0.0  # motion blur length (a line kernel)
    motion_deg: float = 0.0
    light: tuple[float, float] = (1.0, 1.0)  # light at the left and the right of the image
    vignette: float = 0.0  # light lost at the image corners
    gamma: float = 1.0
    noise: float = 0.0  # Gaussian sensor noise (grey levels)
    shot: float = 0.0  # Poisson-like noise: sigma = shot x sqrt(level)
    jpeg: int = 0  # JPEG quality (0: none)
    seed: int = 0


def apply_effects(img: np.ndarray, fx: Effects) -> np.ndarray:
    rng = np.random.default_rng(fx.seed)
    out = img.astype(np.float32)
    h, w = out.shape[:2]
    if fx.blur_px > 0:
        out = cv2.GaussianBlur(out, (0, 0), fx.blur_px)
    if fx.motion_px > 0:
        n = int(np.ceil(fx.motion_px)) | 1
        k = np.zeros((n, n), np.float32)
        c = n // 2
        d = np.array([np.cos(np.radians(fx.motion_deg)), np.sin(np.radians(fx.motion_deg))])
        for t in np.linspace(-fx.motion_px / 2, fx.motion_px / 2, 4 * n):
            x, y = c + t * d
            k[int(round(y)), int(round(x))] += 1
        out = cv2.filter2D(out, -1, k / k.sum())
    xs = np.linspace(0, 1, w, dtype=np.float32)[None, :]
    light = fx.light[0] + (fx.light[1] - fx.light[0]) * xs
    if fx.vignette > 0:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        light = light * (1 - fx.vignette * r2)
    out = out * light
    if fx.gamma != 1.0:
        out = 255.0 * (np.clip(out, 0, 255) / 255.0) ** fx.gamma
    if fx.shot > 0:
        out = out + rng.standard_normal(out.shape).astype(np.float32) * fx.shot * np.sqrt(np.clip(out, 0, None))
    if fx.noise > 0:
        out = out + rng.standard_normal(out.shape).astype(np.float32) * fx.noise
    out = np.clip(np.round(out), 0, 255).astype(np.uint8)
    if fx.jpeg:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(fx.jpeg)])
        out = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    return out


@dataclass
class Scene:
    """Markers on a plane seen by a camera, over a background; `render` draws it."""

    camera: Camera
    markers: list[Marker]
    background: np.ndarray  # grey (h, w), the camera's size
    renderer: str = "warp"
    effects: Effects = field(default_factory=Effects)

    def truth(self) -> list[tuple[int, np.ndarray]]:
        """(id, corners px) of every marker whose quiet zone is wholly inside the image."""
        w, h = self.camera.size
        out = []
        for m in self.markers:
            outer = self.camera.project(_outer_corners_mm(m))
            if outer.min() >= 1 and outer[:, 0].max() <= w - 2 and outer[:, 1].max() <= h - 2:
                out.append((m.marker_id, self.camera.project(m.corners_mm)))
        return out

    def partly_seen(self) -> list[tuple[int, np.ndarray]]:
        """(id, corners px) of the markers drawn but not wholly inside the image (not in `truth`:
        reading them is neither found nor false)."""
        inside = {m for m, _ in self.truth()}
        return [(m.marker_id, self.camera.project(m.corners_mm)) for m in self.markers if m.marker_id not in inside]

    def render(self) -> np.ndarray:
        out = self.background.astype(np.float32).copy()
        draw = RENDERERS[self.renderer]
        for m in self.markers:
            draw(out, self.camera, m)
        return apply_effects(out, self.effects)


# --- backgrounds --------------------------------------------------------------------------------


def cloth(size: tuple[int, int], seed: int, level: float = 120.0, contrast: float = 30.0) -> np.ndarray:
    """A textured cloth: noise at several scales plus fibres (procedural)."""
    w, h = size
    rng = np.random.default_rng(seed)
    out = np.full((h, w), level, np.float32)
    for scale, amp in ((64, 0.5), (16, 0.3), (4, 0.25), (1, 0.2)):
        small = rng.standard_normal((max(2, h // scale), max(2, w // scale))).astype(np.float32)
        out += contrast * amp * cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    fibres = rng.standard_normal((h, w)).astype(np.float32)
    out += 0.5 * contrast * cv2.GaussianBlur(fibres, (0, 0), sigmaX=3.0, sigmaY=0.5)
    return np.clip(out, 0, 255)


def photo_texture(photo: np.ndarray, size: tuple[int, int], seed: int) -> np.ndarray:
    """A real photo tiled (mirrored) over `size`, at a random scale and offset."""
    w, h = size
    rng = np.random.default_rng(seed)
    g = photo if photo.ndim == 2 else cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    f = rng.uniform(1.0, 2.0)
    g = cv2.resize(g, None, fx=f, fy=f, interpolation=cv2.INTER_LINEAR)
    reps = (h // g.shape[0] + 2, w // g.shape[1] + 2)
    tile = np.block([[g if (i + j) % 2 == 0 else g[:, ::-1] for j in range(reps[1])] for i in range(reps[0])])
    oy, ox = rng.integers(0, g.shape[0]), rng.integers(0, g.shape[1])
    return tile[oy:oy + h, ox:ox + w].astype(np.float32)


def clutter(base: np.ndarray, seed: int, count: int = 60) -> np.ndarray:
    """Dark and light shapes, checkered patches and text over `base` (things that are not markers)."""
    rng = np.random.default_rng(seed)
    out = np.clip(base, 0, 255).astype(np.uint8)
    h, w = out.shape[:2]
    for _ in range(count):
        kind = rng.integers(0, 4)
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        size = int(rng.uniform(8, 0.08 * max(w, h)))
        level = int(rng.choice([rng.uniform(10, 60), rng.uniform(190, 250)]))
        if kind == 0:
            box = cv2.boxPoints(((x, y), (size, size * rng.uniform(0.5, 1.5)), rng.uniform(0, 90)))
            cv2.fillPoly(out, [np.round(box).astype(np.int32)], level, cv2.LINE_AA)
        elif kind == 1:
            cv2.circle(out, (x, y), size // 2, level, -1, cv2.LINE_AA)
        elif kind == 2:
            cell = max(2, size // 6)
            for i in range(6):
                for j in range(6):
                    if (i + j) % 2 == 0:
                        cv2.rectangle(out, (x + j * cell, y + i * cell), (x + (j + 1) * cell - 1, y + (i + 1) * cell - 1),
                                      level, -1)
        else:
            cv2.putText(out, "Brigata %d" % rng.integers(1, 99), (x, y), cv2.FONT_HERSHEY_SIMPLEX,
                        max(0.3, size / 60), level, max(1, size // 25), cv2.LINE_AA)
    return out.astype(np.float32)
