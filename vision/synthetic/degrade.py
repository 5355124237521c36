"""Applying `Effects` fast: the static layer is degraded once, each frame only where things moved.

Blur is a Gaussian that, being linear and local, can be recomputed in the changed boxes alone;
brightness, vignetting and colour cast are one precomputed 8-bit gain map applied to the whole
frame (after the blur: both are smooth optical effects, so their order hardly matters); noise
comes from a pre-generated tile read at a random offset; JPEG is a real encode and decode.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from campo.vision.synthetic.effects import Effects
from campo.vision.synthetic.planar import BBox

NOISE_PAD = 64
GAIN_ONE = 128.0


def channel_gains(effects: Effects) -> np.ndarray:
    """Per-channel (B, G, R) multipliers for the light's colour and the overall gain."""
    w = effects.warmth
    return np.array([1.0 - 0.8 * w, 1.0, 1.0 + 0.4 * w], np.float32) * effects.gain


def gain_map(size: tuple[int, int], effects: Effects) -> np.ndarray:
    """HxW float32 brightness factor: 1 at the centre, 1 - vignetting at the corners."""
    w, h = size
    ys, xs = np.ogrid[0:h, 0:w]
    r2 = ((xs - (w - 1) / 2) ** 2 + (ys - (h - 1) / 2) ** 2) / (((w - 1) / 2) ** 2 + ((h - 1) / 2) ** 2)
    return (1.0 - effects.vignetting * r2).astype(np.float32)


class Degrader:
    """Turns clean renders into camera-like ones for one image size and one `Effects`."""

    def __init__(self, size: tuple[int, int], effects: Effects, seed: int = 0) -> None:
        self.size = size
        self.effects = effects
        self.rng = np.random.default_rng(seed)
        gains = channel_gains(effects)
        self.map: np.ndarray | None = None
        if effects.vignetting or np.any(gains != 1.0):
            # uint8 fixed point (128 = 1.0), one value per pixel and channel: one SIMD multiply per frame.
            g = gain_map(size, effects)[:, :, None] * gains
            self.map = np.clip(np.round(g * GAIN_ONE), 0, 255).astype(np.uint8)
        self.margin = int(math.ceil(3 * effects.blur_sigma_px)) + 1 if effects.blur_sigma_px > 0 else 0
        self._noise: tuple[np.ndarray, np.ndarray] | None = None
        if effects.noise_sigma > 0:
            w, h = size
            n = self.rng.normal(0, effects.noise_sigma, (h + NOISE_PAD, w + NOISE_PAD, 3)).astype(np.float32)
            self._noise = (np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8))

    def blur(self, image: np.ndarray) -> np.ndarray:
        """Optical blur of a whole frame or a crop (a new array)."""
        if self.effects.blur_sigma_px > 0:
            return cv2.GaussianBlur(image, (0, 0), self.effects.blur_sigma_px, borderType=cv2.BORDER_REPLICATE)
        return image.copy()

    def static(self, clean: np.ndarray) -> np.ndarray:
        """The blurred version of a whole (static) frame; see `update` and `sensor` for the rest."""
        return self.blur(clean)

    def update(self, out: np.ndarray, frame: np.ndarray, boxes: list[BBox]) -> None:
        """Re-blur `out` (the blurred static frame) where `frame` changed, in place."""
        w, h = self.size
        m = self.margin
        for x0, y0, x1, y1 in boxes:
            ax0, ay0, ax1, ay1 = max(x0 - m, 0), max(y0 - m, 0), min(x1 + m, w), min(y1 + m, h)
            if m == 0:
                out[ay0:ay1, ax0:ax1] = frame[ay0:ay1, ax0:ax1]
                continue
            bx0, by0, bx1, by1 = max(ax0 - m, 0), max(ay0 - m, 0), min(ax1 + m, w), min(ay1 + m, h)
            done = self.blur(frame[by0:by1, bx0:bx1])
            out[ay0:ay1, ax0:ax1] = done[ay0 - by0: ay1 - by0, ax0 - bx0: ax1 - bx0]

    def sensor(self, out: np.ndarray) -> np.ndarray:
        """Light (gain, vignetting, colour), noise and JPEG, applied to a whole frame (in place where possible)."""
        if self.map is not None:
            cv2.multiply(out, self.map, dst=out, scale=1.0 / GAIN_ONE)
        if self._noise is not None:
            w, h = self.size
            dx, dy = (int(v) for v in self.rng.integers(0, NOISE_PAD, 2))
            pos, neg = self._noise
            cv2.add(out, pos[dy: dy + h, dx: dx + w], dst=out)
            cv2.subtract(out, neg[dy: dy + h, dx: dx + w], dst=out)
        q = self.effects.jpeg_quality
        if q is not None:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(q)])
            if not ok:  # pragma: no cover - OpenCV always encodes a valid BGR image
                raise RuntimeError("JPEG encoding failed")
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return out
