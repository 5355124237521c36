"""Averaging still frames in dim light: sensor noise drops by sqrt(N), a still marker gets readable.

In dim light a 13-px marker is read from a single frame only about half of the time: the sensor
noise, not the geometry, is the limit. When the camera and a part of the table are still, the
same pixels are seen again in every frame, so `FrameIntegrator` keeps a running mean of the grey
frame per pixel (of at most `depth` frames). A pixel that changed more than the noise explains
(a base moved, a hand passed) starts again from the live frame, with its neighbourhood (a
dilated motion mask), so a moved base is never read from its old, averaged pixels: where
anything moved, the integrated image *is* the live frame. `agrees_with_live` is the second
guard: a marker read from the integrated image must look the same, cell by cell, in the live one.
"""

from __future__ import annotations

import cv2
import numpy as np

from campo.vision.detection.bits import read_cells
from campo.vision.detection.types import Detection

MOTION_SIGMAS = 6.0
"""A pixel differing from its mean by more than this many noise sigmas has changed ...

(Dim synthetic frames: sigma 3.3 grey levels per frame, 99.9 % of pixels within 3.7 sigmas but
JPEG makes the tail heavy: at 5 sigmas 0.5 % of the frame restarted each frame, dilation
included; a marker's contrast is 85, so a moved edge differs by far more.)"""

MOTION_LOCAL_SIGMAS = 5.0
"""... or a 5x5 patch whose mean difference is more than this many of its own sigmas (measured:
JPEG correlates neighbouring noise, so it is 1.4x sigma / 5, not sigma / 5)."""

MOTION_GROW_PX = 4
"""Changed pixels take this many neighbours with them (an edge moved by a pixel changes more than the edge)."""

_RECIPROCAL = (1.0 / np.maximum(np.arange(256), 1)).astype(np.float32)

MIN_NOISE = 1.0
"""Noise sigma floor in grey levels (JPEG and clean renders can measure nearly 0)."""


class FrameIntegrator:
    """Per-pixel running mean of the grey frames of a still camera; moving pixels restart."""

    def __init__(self, depth: int = 8) -> None:
        if not 1 <= depth <= 255:
            raise ValueError("depth must be 1..255 frames")
        self.depth = depth
        self._mean: np.ndarray | None = None  # float32 HxW
        self._count: np.ndarray | None = None  # uint8 HxW, frames averaged per pixel (1..depth)
        self.noise_sigma = float("nan")  # last measured per-frame noise (grey levels)
        self.changed_share = 0.0  # share of pixels that restarted in the last frame

    def reset(self) -> None:
        """Forget everything (the camera moved, or the light is fine again)."""
        self._mean = self._count = None
        self.changed_share = 0.0

    @property
    def frames(self) -> int:
        """How many frames the still pixels have been averaged over (median pixel; 0 when empty)."""
        if self._count is None:
            return 0
        return int(np.median(self._count[::16, ::16]))

    def add(self, gray: np.ndarray) -> np.ndarray:
        """Take one live grey frame; returns the integrated frame (uint8, the live one where moved)."""
        live = gray.astype(np.float32)
        if self._mean is None or self._mean.shape != live.shape:
            self._mean, self._count = live, np.ones(live.shape, np.uint8)
            self.changed_share = 1.0
            return gray
        diff = cv2.subtract(live, self._mean)
        adiff = cv2.absdiff(live, self._mean)
        local = cv2.blur(diff, (5, 5))
        # noise of one frame from the median absolute difference (robust to what moved; sampled:
        # a 1080p frame has 2 million pixels; a step of 7, not 8, so JPEG blocks are sampled
        # all over); the mean carries sigma / sqrt(count) of its own
        mad = _median(adiff[3::7, 3::7])
        local_mad = _median(np.abs(local[3::7, 3::7]))
        c = _median(self._count[::16, ::16])
        spread = max(MIN_NOISE, 1.4826 * mad)  # sigma of (live - mean) where the mean is `c` frames old
        self.noise_sigma = spread / float(np.sqrt(1.0 + 1.0 / max(c, 1.0)))
        local_ratio = float(np.clip(local_mad / max(mad, 1e-6), 0.2, 1.0))  # a 5x5 mean's sigma / one pixel's
        _, changed = cv2.threshold(adiff, MOTION_SIGMAS * spread, 1.0, cv2.THRESH_BINARY)
        _, patch = cv2.threshold(cv2.absdiff(local, 0.0), MOTION_LOCAL_SIGMAS * local_ratio * spread, 1.0,
                                 cv2.THRESH_BINARY)
        mask = cv2.max(changed, patch).astype(np.uint8)
        if MOTION_GROW_PX:
            k = 2 * MOTION_GROW_PX + 1
            mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        self.changed_share = float(cv2.countNonZero(mask)) / mask.size
        count = cv2.min(cv2.add(self._count, 1), self.depth)  # uint8, saturating
        np.copyto(count, 1, where=mask.view(bool))
        # mean += diff / count (count 1: the live frame exactly)
        cv2.add(self._mean, cv2.multiply(diff, cv2.LUT(count, _RECIPROCAL)), dst=self._mean)
        self._count = count
        return cv2.convertScaleAbs(self._mean)

    def depth_at(self, corners_px: np.ndarray) -> int:
        """Frames averaged under a marker (the median over its corners' box; 0 when empty).

        (A real move restarts the whole marker; a stray noisy pixel restarts only its neighbours.)
        """
        if self._count is None:
            return 0
        h, w = self._count.shape
        lo = np.clip(np.floor(corners_px.min(axis=0)).astype(int), 0, [w - 1, h - 1])
        hi = np.clip(np.ceil(corners_px.max(axis=0)).astype(int) + 1, 1, [w, h])
        return int(np.median(self._count[lo[1]:hi[1], lo[0]:hi[0]]))


def _median(a: np.ndarray) -> float:
    flat = np.ascontiguousarray(a).reshape(-1)
    return float(np.partition(flat, len(flat) // 2)[len(flat) // 2])


def agrees_with_live(live: np.ndarray, integrated: np.ndarray, dets: list[Detection], cells: int,
                     noise_sigma: float) -> np.ndarray:
    """Whether each marker read from `integrated` is the same marker in the `live` frame (M,).

    The cells of the marker and its quiet-zone ring are sampled in both images: a live marker
    matches its average up to the live frame's noise (correlation of the cells at least 0.5, mean
    difference within the noise); a ghost (a marker that left) does not.
    """
    if not dets:
        return np.zeros(0, bool)
    corners = np.stack([d.corners_px for d in dets])
    g_live, r_live = read_cells(live, corners, cells)
    g_int, r_int = read_cells(integrated, corners, cells)
    a = np.concatenate([g_live.reshape(len(dets), -1), r_live], axis=1)
    b = np.concatenate([g_int.reshape(len(dets), -1), r_int], axis=1)
    da, db = a - a.mean(axis=1, keepdims=True), b - b.mean(axis=1, keepdims=True)
    corr = (da * db).sum(axis=1) / np.sqrt((da * da).sum(axis=1) * (db * db).sum(axis=1) + 1e-9)
    # each sample averages ~9 bilinear reads of a few pixels: its noise is about sigma / 2
    offset = np.abs((a - b).mean(axis=1))
    return (corr >= 0.5) & (offset <= max(3.0, 1.5 * noise_sigma))


__all__ = ["FrameIntegrator", "agrees_with_live"]
