"""Where the image changed and then held still: where something was laid down (a status token).

Following known markers never finds a new one; only a full scan does, every second or so. A
token is laid by a hand, so the place it lands changes and then, once the hand has gone, holds
still. `ChangeWatcher` keeps a small reference copy of the frame (1/`SCALE` a side, area
averaged, so sensor noise is low), and each frame gives the windows where the frame now differs
from that reference *and* did not change since the previous frame: those are searched for
markers at once (~1 ms for the watch, a few ms per window searched). The reference takes the new
pixels once they have been given, so each change is searched once; a full scan resets it.

Only a change to something with detail counts (a printed marker is black and white; a hand,
its shadow and the cloth are smooth at this scale), and only a small one: a place wider or taller than `MAX_SIDE_FRACTION` of the image is a
hand or a base carried (the bases' markers are followed anyway); it is neither searched nor
taken into the reference, so when the hand has gone only what it left behind differs. On the
bases themselves and around those being carried (``covered``, from the tracked poses) changes
are taken into the reference without a search: a base turning slowly changes a little in every
frame, and one carried leaves a trail of uncovered table.
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
TEXTURE_LEVEL = 12.0
"""Standard deviation of the grey levels over 3 x 3 watch pixels above which a place has detail."""
MAX_SIDE_FRACTION = 0.06
"""A changed place wider or taller than this share of the image width is not a token laid down
(a 27 mm card is ~2 % of a 1080p frame of a 120 cm table)."""


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

    def covered(self, gray: np.ndarray, outlines_px: list[np.ndarray], windows: list[Window]) -> np.ndarray:
        """The watch's mask of what ``outlines_px`` (convex polygons, image pixels, grown by a
        watch pixel) and ``windows`` cover, for `settled`."""
        h, w = gray.shape[:2]
        mask = np.zeros((max(1, h // SCALE), max(1, w // SCALE)), np.uint8)
        for poly in outlines_px:
            if np.all(np.isfinite(poly)):
                hull = cv2.convexHull(np.round(poly / SCALE * 16).astype(np.int32))
                cv2.fillConvexPoly(mask, hull, 1, cv2.LINE_8, 4)
        for win in windows:
            mask[max(0, win.y0 // SCALE):-(-win.y1 // SCALE), max(0, win.x0 // SCALE):-(-win.x1 // SCALE)] = 1
        return cv2.dilate(mask, np.ones((3, 3), np.uint8)) > 0

    def settled(self, gray: np.ndarray, covered: np.ndarray | None = None) -> list[Window]:
        """Windows (image pixels) where ``gray`` differs from the reference and is still,
        outside ``covered`` (`covered`'s mask; taken into the reference there)."""
        small = self._small(gray)
        ref, prev = self._reference, self._previous
        self._previous = small
        if ref is None or prev is None or ref.shape != small.shape:
            self._reference = small
            return []
        if covered is not None:
            ref[covered] = small[covered]
        changed = (np.abs(small - ref) > CHANGE_LEVEL) & (np.abs(small - prev) < STILL_LEVEL)
        if changed.any():
            mean = cv2.blur(small, (3, 3))
            detail = cv2.blur(small * small, (3, 3)) - mean * mean
            changed &= detail > TEXTURE_LEVEL ** 2
        if not changed.any():
            return []
        count, labels, stats, _ = cv2.connectedComponentsWithStats(changed.astype(np.uint8), connectivity=8)
        h, w = gray.shape[:2]
        largest = MAX_SIDE_FRACTION * w / SCALE
        places = np.flatnonzero((stats[:, 2] <= largest) & (stats[:, 3] <= largest))
        places = places[places > 0]   # (0 is the unchanged background)
        taken = np.isin(labels, places)
        ref[taken] = small[taken]   # each change is searched once
        windows = []
        for x, y, bw, bh, _ in stats[places]:
            windows.append(Window(int(x * SCALE - MARGIN_PX), int(y * SCALE - MARGIN_PX),
                                  int((x + bw) * SCALE + MARGIN_PX), int((y + bh) * SCALE + MARGIN_PX)).clipped(w, h))
        return merge_windows(windows)
