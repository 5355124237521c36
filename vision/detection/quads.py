"""Candidate squares and their ids without ArucoDetector: contours, then bits read all at once.

ArucoDetector spends about 0.15 ms on every candidate square it tries to read (OpenCV 5,
one thread), which on a table full of clutter is most of its time: a hundred small markers
and as many squares of clutter, upsampled, cost 30 ms beyond thresholding and contours
(6 ms). Here the squares come from the same adaptive threshold and contours, and every
square's cells are sampled in one vectorised pass (`bits.read_cells`) and compared with
every code of the dictionary in all four rotations.
Readings still go through the detector's refinement and confirmation (`MarkerDetector.finish`),
so this only proposes; it never decides alone what is a marker.
"""

from __future__ import annotations

import cv2
import numpy as np

from campo.vision.detection.bits import read_cells


def find_quads(gray: np.ndarray, *, window: int, constant: float, min_side_px: float, max_side_px: float,
               accuracy: float, border_px: float = 1.0) -> np.ndarray:
    """Convex four-sided contours of the adaptive threshold (K,4,2), clockwise in the image.

    The same candidates as ArucoDetector's (dark regions darker than their `window` mean by
    `constant`, polygons within `accuracy` x perimeter), by perimeter between 4 x `min_side_px`
    and 4 x `max_side_px`, and at least `border_px` inside the image.
    """
    binary = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, window | 1, constant)
    contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    lo, hi = 4 * min_side_px, 4 * max_side_px
    min_corner_gap = 0.05 * lo  # (ArucoDetector's minCornerDistanceRate on the smallest perimeter)
    lengths = np.fromiter(map(len, contours), np.int64, count=len(contours))
    quads = []
    for i in np.flatnonzero((lengths >= lo) & (lengths <= hi)):
        poly = cv2.approxPolyDP(contours[i], accuracy * float(lengths[i]), True)
        if len(poly) == 4 and cv2.isContourConvex(poly):
            quads.append(poly.reshape(4, 2))
    if not quads:
        return np.zeros((0, 4, 2))
    q = np.stack(quads).astype(np.float64)
    gaps = np.linalg.norm(q - np.roll(q, -1, axis=1), axis=2).min(axis=1)
    h, w = gray.shape[:2]
    inside = (q.min(axis=1) >= border_px).all(axis=1) & (q[..., 0].max(axis=1) <= w - 1 - border_px) \
        & (q[..., 1].max(axis=1) <= h - 1 - border_px)
    q = q[(gaps >= min_corner_gap) & inside]
    return clockwise(q)


def clockwise(quads: np.ndarray) -> np.ndarray:
    """Quads (K,4,2) in clockwise image order (like a marker's corners seen upright)."""
    if len(quads) == 0:
        return quads
    a = quads[:, 1] - quads[:, 0]
    b = quads[:, 2] - quads[:, 1]
    cross = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    return np.where((cross < 0)[:, None, None], quads[:, ::-1], quads)


def rotated_codes(codes: np.ndarray) -> np.ndarray:
    """Every code (N,n,n) in its four rotations, flattened: (4, N, n*n) bool.

    Rotation r is the code as read under corners rolled by r (corner r taken as top-left).
    """
    return np.stack([np.rot90(codes, k=-r, axes=(1, 2)).reshape(len(codes), -1) for r in range(4)])


_TWO_MEANS_ROUNDS = 3  # (1080p, dim light: 55 instead of 45 of 64 read from rough squares)

_POPCOUNT16 = np.array([bin(i).count("1") for i in range(1 << 16)], np.uint8)


def _packed(bits: np.ndarray) -> np.ndarray:
    """Rows of up to 16 bits (..., b) packed into integers (...)."""
    weights = (1 << np.arange(bits.shape[-1], dtype=np.int64))
    return (bits.astype(np.int64) * weights).sum(axis=-1)


def grown(quads: np.ndarray, px: float) -> np.ndarray:
    """Quads (K,4,2) grown by `px` on every side (about their centres)."""
    if len(quads) == 0 or px == 0:
        return quads.copy()
    centre = quads.mean(axis=1, keepdims=True)
    side = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2).mean(axis=1)[:, None, None]
    return centre + (quads - centre) * (side + 2 * px) / np.maximum(side, 1e-9)


def identify(gray: np.ndarray, quads: np.ndarray, codes_by_rotation: np.ndarray, *, min_contrast: float = 15.0,
             max_bad_border: int = 1, grow_px: float | tuple[float, ...] = 0.0,
             centres_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Which marker each square (K,4,2, clockwise) shows: ids (K,) (-1: none) and corners (K,4,2).

    A square reads as marker i when its cells, thresholded halfway between its dark and light
    cells, match code i exactly in one rotation only, with at most `max_bad_border` light
    border cells; corners come back rolled so corner 0 is the marker's top-left (OpenCV's
    order). `centres_only`: each cell read at its centre alone (see `bits.read_cells`), for the
    many rough squares of a search.

    Squares from contours are grown by `grow_px` first: a contour runs through the outermost
    dark pixels of a thresholded square, which thresholding has already eaten into, so it lies
    a pixel or two inside the marker's edges (1080p over 180 x 120 cm, 13-px markers upsampled
    2x: 69 of 104 read as they are, 96 grown by 1 px, 98 by 2 px, 99 by 1 px then 2 px). Given
    several values, squares unread grown by one are tried grown by the next (blur sets the
    inset: at 2x upsampling of a camera frame 2 px reads best, of a sharp drawing 1 px).
    """
    grows = grow_px if isinstance(grow_px, tuple) else (grow_px,)
    ids, out = _identify_once(gray, quads, codes_by_rotation, min_contrast, max_bad_border, grows[0], centres_only)
    for g in grows[1:]:
        todo = np.flatnonzero(ids < 0)
        if not len(todo):
            break
        more, corners = _identify_once(gray, quads[todo], codes_by_rotation, min_contrast, max_bad_border, g,
                                       centres_only)
        hit = more >= 0
        ids[todo[hit]] = more[hit]
        out[todo[hit]] = corners[hit]
    return ids, out


def _identify_once(gray: np.ndarray, quads: np.ndarray, codes_by_rotation: np.ndarray, min_contrast: float,
                   max_bad_border: int, grow_px: float, centres_only: bool) -> tuple[np.ndarray, np.ndarray]:
    """`identify` with one growth."""
    k = len(quads)
    ids = np.full(k, -1)
    quads = grown(quads, grow_px)
    if k == 0:
        return ids, quads
    n_bits = codes_by_rotation.shape[2]
    n = int(round(np.sqrt(n_bits)))
    cells = n + 2
    grid, ring = read_cells(gray, quads, cells, centres_only=centres_only)
    mask = np.ones((cells, cells), bool)
    mask[1:-1, 1:-1] = False
    black = np.median(grid[:, mask], axis=1)
    white = np.median(ring, axis=1)
    level = (black + white) / 2
    # then halfway between the dark and the light cells (two-means, like ArucoDetector's Otsu): a
    # shadowed or soiled quiet zone reads grey, and halfway to it a blurred black bit reads white
    values = grid.reshape(k, -1)
    for _ in range(_TWO_MEANS_ROUNDS):
        light = values >= level[:, None]
        n_light = light.sum(axis=1)
        mean_light = np.where(light, values, 0).sum(axis=1) / np.maximum(n_light, 1)
        mean_dark = np.where(light, 0, values).sum(axis=1) / np.maximum(values.shape[1] - n_light, 1)
        level = np.where((n_light > 0) & (n_light < values.shape[1]), (mean_light + mean_dark) / 2, level)
    framed = (white - black >= min_contrast) & (np.sum(grid[:, mask] > level[:, None], axis=1) <= max_bad_border)
    bits = (grid[:, 1:-1, 1:-1] > level[:, None, None]).reshape(k, -1)  # (K, n*n)
    # Hamming distance to every code in every rotation: (K, 4, N)
    if n_bits <= 16:
        dist = _POPCOUNT16[_packed(bits)[:, None, None] ^ _packed(codes_by_rotation)[None]]
    else:
        ones = bits.astype(np.int32) @ codes_by_rotation.reshape(-1, n_bits).T.astype(np.int32)
        dist = bits.sum(axis=1)[:, None] + codes_by_rotation.reshape(-1, n_bits).sum(axis=1)[None] - 2 * ones
        dist = dist.reshape(k, 4, -1)
    flat = dist.reshape(k, -1).argmin(axis=1)
    rot, marker = np.unravel_index(flat, dist.shape[1:])
    exact = dist[np.arange(k), rot, marker] == 0
    # a code that also reads exactly in another rotation or as another id is ambiguous: not read
    unique = np.sum(dist == 0, axis=(1, 2)) == 1
    ok = framed & exact & unique
    ids[ok] = marker[ok]
    out = quads.copy()
    for r in range(1, 4):
        sel = ok & (rot == r)
        out[sel] = np.roll(quads[sel], -r, axis=1)
    return ids, out
