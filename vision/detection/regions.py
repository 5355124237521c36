"""Where in a frame a marker can be: windows around places with both marker black and quiet-zone white.

A marker is a black square in a white quiet zone, so every marker has, within about its own
side, pixels as dark as its black border and as light as its quiet zone. Once the anchors give
those two grey levels (and the marker size in pixels), everything else on the table (cloth,
woods, roads, rivers) can be skipped: at 1080p over 180 x 120 cm the windows around the places
that have both cover about a quarter of the table, and the costly upsampled search runs on them
only (packed side by side: `MarkerDetector.scan` with many windows).
"""

from __future__ import annotations

import cv2
import numpy as np

from campo.vision.detection.types import Window, merge_boxes

MAX_SHARE = 0.6
"""When the windows would cover more than this share of the region, the region is returned whole."""

LIGHT_STEP = 0.55
"""A dark place counts when, within a marker's side of it, a pixel is lighter than its darkest
by this share of the anchors' black-to-white step (at 1080p over 180 x 120 cm, in typical and
dim light and from a bumped camera, 0.45 lets the sensor noise of dim light through, so the
windows cover the whole table; 0.55 keeps every marker and a fifth of the table)."""

MARGIN_SIDES = 1.0
"""Windows reach this many marker sides beyond the places found (0.6 cut 3 of 104 markers)."""


def marker_windows(gray: np.ndarray, region: Window, black: float, white: float, side_px: float, *,
                   tolerance: float = 0.35) -> list[Window]:
    """Windows of `region` (merged, none overlapping) that may hold a marker of about `side_px`.

    `black` and `white` are the grey levels of a marker's border and quiet zone here (from the
    anchors); a pixel counts as marker black within `tolerance` x their difference, and a
    place as a marker's when a pixel near it is lighter by `LIGHT_STEP` of it. Each window
    reaches `MARGIN_SIDES` beyond the place, so a marker in it is whole with its quiet zone.
    Found on the region halved (the tests need no detail, and it is a quarter of the pixels).
    """
    h, w = gray.shape[:2]
    r = region.clipped(w, h)
    if r.area == 0:
        return []
    x0, y0 = r.x0, r.y0
    sub = gray[y0:r.y1, x0:r.x1]
    sh, sw = sub.shape[:2]
    if sh < 4 or sw < 4:
        return [r]
    half = cv2.resize(sub[: sh // 2 * 2, : sw // 2 * 2], (sw // 2, sh // 2), interpolation=cv2.INTER_AREA)
    contrast = max(white - black, 1.0)
    k = max(3, int(round(side_px / 2)) | 1)  # about a marker side, in halved pixels
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    darkest = cv2.erode(half, kernel)
    lightest = cv2.dilate(half, kernel)
    # dark as a marker's border, with a lighter quiet zone near: a shadowed or soiled quiet zone is
    # far from the anchors' white, so the light side is tested against the dark pixel found
    both = ((darkest <= black + tolerance * contrast)
            & (lightest.astype(np.int16) - darkest >= LIGHT_STEP * contrast)).astype(np.uint8)
    if not both.any():
        return []
    # (the outer contours' boxes: a tenth of connectedComponentsWithStats' time here)
    contours, _ = cv2.findContours(both, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    boxes = np.array([cv2.boundingRect(c) for c in contours], np.float64).reshape(-1, 4)
    margin = MARGIN_SIDES * side_px
    lo = 2 * boxes[:, :2] + (x0, y0) - margin
    hi = 2 * (boxes[:, :2] + boxes[:, 2:4]) + (x0, y0) + margin
    wins = merge_boxes(np.concatenate([np.floor(lo), np.ceil(hi)], axis=1).astype(int))
    wins = [Window(*map(int, b)).clipped(w, h) for b in wins]
    if sum(wi.area for wi in wins) > MAX_SHARE * r.area:
        return [r]
    return wins
