"""How lit the table is, read from the anchors: it picks the detector variants for the frame."""

from __future__ import annotations

import numpy as np

from campo.vision.detection import Detection
from campo.vision.detection.bits import read_cells

DIM_CONTRAST = 120.0
"""Anchors with less contrast than this (grey levels, border to quiet zone) mean dim light
(typical light gives about 180 on the synthetic camera, an evening lamp about 85)."""


def anchor_light_levels(gray: np.ndarray, dets: list[Detection], anchor_ids: set[int],
                        cells: int) -> tuple[float, float]:
    """Grey levels of the anchors' black border and white quiet zone (medians): how lit the table is.

    (0, inf) when no anchor was read: the light is unknown.
    """
    corners = [d.corners_px for d in dets if d.marker_id in anchor_ids]
    if not corners:
        return 0.0, float("inf")
    grid, ring = read_cells(gray, np.stack(corners), cells)
    border = np.ones((cells, cells), bool)
    border[1:-1, 1:-1] = False
    return float(np.median(grid[:, border])), float(np.median(ring))


def is_dim(black: float, white: float) -> bool:
    """Whether the anchors' border-to-quiet-zone step means dim light (`DIM_CONTRAST`)."""
    return white - black < DIM_CONTRAST
