"""Where the image changed and then held still: where something was laid down (a status token).

Following known markers never finds a new one; only a full scan does, every second or so. A
token is laid by a hand, so the place it lands changes and then, once the hand has gone, holds
still. `ChangeWatcher` keeps a small reference copy of the frame (1/`SCALE` a side, area
averaged, so sensor noise is low), and each frame gives the windows where the frame now differs
from that reference *and* did not change since the previous frame: those are searched for
markers at once (~1 ms for the watch, a few ms per window searched). The reference takes the new
pixels once they have been given, so each change is searched once; a full scan resets it.
"""

from __future__ import annotations

import cv2
import numpy as np

from campo.vision.detection.types import Window, merge_windows

SCALE = 8
"""The watch's pixels are SCALE x SCALE image pixels."""
CHANGE_LEVEL = 14.0
"""Grey levels (0-255, averaged over a watch pixel) that count as a change."""
STILL_LEVEL = 6.0
"""A watch pixel that moved less than this since the last frame is still."""
MARGIN_PX = 24
"""Image pixels added around each changed place (a marker partly outside the change)."""


class ChangeWatcher:
    """The changed-then-still places of a fixed camera's frames (one per camera, in order)."""

    def __init__(self) -> None:
        self._reference: np.ndarray | None = None
        self._previous: np.ndarray | None = None

    @staticmethod
    def _small(gray: np.ndarray) -> np.ndarray:
        h, w = gray.shape[:2]
        return cv2.resize(gray, (max(1, w // SCALE), max(1, h // SCALE)), interpolation=cv2.INTER_AREA).astype(np.float32)

    def reset(self, gray: np.ndarray) -> None:
        """Everything in ``gray`` has been searched (a full scan): the reference from now."""
        self._reference = self._previous = self._small(gray)

    def forget(self) -> None:
        """The camera moved or the table was lost: nothing to compare with."""
        self._reference = self._previous = None

    def settled(self, gray: np.ndarray) -> list[Window]:
        """Windows (image pixels) where ``gray`` differs from the reference and is still."""
        small = self._small(gray)
        ref, prev = self._reference, self._previous
        self._previous = small
        if ref is None or prev is None or ref.shape != small.shape:
            self._reference = small
            return []
        changed = (np.abs(small - ref) > CHANGE_LEVEL) & (np.abs(small - prev) < STILL_LEVEL)
        if not changed.any():
            return []
        ref[changed] = small[changed]   # each change is searched once
        count, _, stats, _ = cv2.connectedComponentsWithStats(changed.astype(np.uint8), connectivity=8)
        h, w = gray.shape[:2]
        windows = []
        for x, y, bw, bh, _ in stats[1:count]:
            windows.append(Window(int(x * SCALE - MARGIN_PX), int(y * SCALE - MARGIN_PX),
                                  int((x + bw) * SCALE + MARGIN_PX), int((y + bh) * SCALE + MARGIN_PX)).clipped(w, h))
        return merge_windows(windows)
