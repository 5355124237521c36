"""Reading blurred markers: every cell fitted against each code as the blur would show it.

Thresholding a marker's cells fails under blur before the marker becomes unreadable: at 1.5 px
of blur on a 6x6 marker of 24 px (3 px per cell), a lone white bit between black ones reads
grey, under the threshold halfway between the border and the quiet zone, and the marker shows
2-7 bit errors (a real limit of 1). Here the cells read under the refined corners are compared
with every code of the dictionary, in its four rotations, drawn and blurred by a few amounts:
the fit `cells = offset + contrast x expected cells` that leaves the smallest residual names the
marker, and only when it fits well (normalised correlation `MIN_CORRELATION`), with at most
one cell off by more than `CELL_TOLERANCE` of the contrast, and clearly better than every other
id (`MIN_RESIDUAL_RATIO`): a smudge or a clutter square never becomes a marker by being
closest to something.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from campo.vision.detection.bits import read_cells

PX_PER_CELL = 8
BLUR_CELLS = (0.0, 0.25, 0.4, 0.55)
"""Blurs tried, in cells (sigma): sharp, and up to about 1.5 px on a 3-px cell."""

MIN_CORRELATION = 0.93
MIN_RESIDUAL_RATIO = 2.5
"""The best other id must leave this many times the residual variance of the reading."""

CELL_TOLERANCE = 0.35
MAX_BAD_CELLS = 1


@lru_cache(maxsize=8)
def expected_cells(dictionary_name: str) -> np.ndarray:
    """(B, 4, N, cells*cells) normalised expected cells: every code, its 4 rotations, each blur.

    Rotation r is the code read under corners rolled by r, as `quads.rotated_codes`. The cells
    read from a blurred drawing are linear in the drawing's cells, so each blur is one matrix,
    measured on one drawing per cell (a few hundred small blurs, not one per code).
    """
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary_name))
    n = int(d.markerSize)
    cells = n + 2
    count = len(d.bytesList)
    bits = np.stack([cv2.aruco.Dictionary.getBitsFromByteList(d.bytesList[i:i + 1], n) for i in range(count)])
    a, b = PX_PER_CELL - 0.5, (cells + 1) * PX_PER_CELL - 0.5
    square = np.array([[[a, a], [b, a], [b, b], [a, b]]], np.float64)
    g = cells + 2  # the drawing: the white ring, the black border, the bits
    out = np.empty((len(BLUR_CELLS), 4, count, cells * cells), np.float32)
    for k, sigma in enumerate(BLUR_CELLS):
        op = np.empty((cells * cells, g * g), np.float32)  # cells read <- drawing's cells
        for j in range(g * g):
            impulse = np.zeros((g, g), np.float32)
            impulse.flat[j] = 1.0
            img = np.repeat(np.repeat(impulse, PX_PER_CELL, axis=0), PX_PER_CELL, axis=1)
            if sigma > 0:
                img = cv2.GaussianBlur(img, (0, 0), sigma * PX_PER_CELL, borderType=cv2.BORDER_CONSTANT)
            op[:, j] = read_cells(img, square, cells)[0].reshape(-1)
        op[np.abs(op) < 1e-6] = 0.0  # (a blur's far tail: denormal floats made the fit 100x slower)
        ring = np.ones((g, g), np.float32)
        ring[1:-1, 1:-1] = 0.0
        for r in range(4):
            grid = np.broadcast_to(ring, (count, g, g)).copy()
            grid[:, 2:-2, 2:-2] = np.rot90(bits, k=-r, axes=(1, 2))
            out[k, r] = grid.reshape(count, -1) @ op.T
    return _normalise(out)


def _normalise(rows: np.ndarray) -> np.ndarray:
    rows = rows - rows.mean(axis=-1, keepdims=True)
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-6)


def decode_blurred(gray: np.ndarray, quads: np.ndarray, dictionary_name: str, *, min_contrast: float = 15.0
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Ids (K,) (-1: none) of the squares `quads` (K,4,2, clockwise), read as blurred markers,
    and their corners rolled so corner 0 is the marker's top-left."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    ids = np.full(len(q), -1)
    if len(q) == 0:
        return ids, q.copy()
    e = expected_cells(dictionary_name)  # (B, 4, N, C)
    nb, _, count, c = e.shape
    cells = int(round(np.sqrt(c)))
    grid, _ring = read_cells(gray, q, cells)
    v = grid.reshape(len(q), -1).astype(np.float32)
    vm = v - v.mean(axis=1, keepdims=True)
    spread = np.linalg.norm(vm, axis=1)
    vn = vm / np.maximum(spread, 1e-6)[:, None]
    corr = (e.reshape(-1, c) @ vn.T).T.reshape(len(q), nb, 4, count)  # (K, B, 4, N)
    flat = corr.reshape(len(q), -1)
    best = flat.argmax(axis=1)
    blur, rot, marker = np.unravel_index(best, (nb, 4, count))
    top = flat[np.arange(len(q)), best]
    # the best fit of any other id (any blur, any rotation)
    per_id = corr.max(axis=(1, 2))  # (K, N)
    per_id[np.arange(len(q)), marker] = -1.0
    second = per_id.max(axis=1)
    ratio = (1 - second**2) / np.maximum(1 - top**2, 1e-9)
    # the fit itself: contrast, and cells off by more than the tolerance
    model = e[blur, rot, marker]  # (K, C) normalised
    contrast_n = np.sum(model * vm, axis=1)  # cells = mean + contrast_n * model
    resid = vm - contrast_n[:, None] * model
    span = contrast_n * (model.max(axis=1) - model.min(axis=1))  # grey levels from black to white
    bad = np.sum(np.abs(resid) > CELL_TOLERANCE * np.maximum(span, 1e-6)[:, None], axis=1)
    ok = (top >= MIN_CORRELATION) & (ratio >= MIN_RESIDUAL_RATIO) & (span >= min_contrast) & (bad <= MAX_BAD_CELLS)
    ids[ok] = marker[ok]
    out = q.copy()
    for r in range(1, 4):
        sel = ok & (rot == r)
        out[sel] = np.roll(q[sel], -r, axis=1)
    return ids, out
