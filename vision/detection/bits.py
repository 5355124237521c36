"""Reading a marker's bits under given corners: to confirm a tracked marker is still there.

Once a marker's corners are known (from the previous frame, refined on this one's edges), its
identity is checked by sampling the centre of every cell through the homography of its corners,
instead of running the whole detector again. The black border must read black, the quiet zone
just outside must read white, and the inner bits must match the expected code.
"""

from __future__ import annotations

import cv2
import numpy as np

_SUB = np.array([-0.2, 0.0, 0.2])  # sub-samples per cell (in cells), averaged


def unit_homographies(corners: np.ndarray) -> np.ndarray:
    """Homographies (M,3,3) from the unit square (0..1, top-left first) to each marker's corners.

    Solved for all markers at once (the closed form for a square's corners; Heckbert 1989):
    one getPerspectiveTransform call per marker cost more than sampling the cells.
    """
    c = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    x0, y0, x1, y1, x2, y2, x3, y3 = (c[:, i // 2, i % 2] for i in range(8))
    dx1, dx2, dx3 = x1 - x2, x3 - x2, x0 - x1 + x2 - x3
    dy1, dy2, dy3 = y1 - y2, y3 - y2, y0 - y1 + y2 - y3
    den = dx1 * dy2 - dx2 * dy1
    den = np.where(np.abs(den) > 1e-12, den, 1e-12)
    g = (dx3 * dy2 - dx2 * dy3) / den
    h = (dx1 * dy3 - dx3 * dy1) / den
    hom = np.empty((len(c), 3, 3))
    hom[:, 0] = np.stack([x1 - x0 + g * x1, x3 - x0 + h * x3, x0], axis=1)
    hom[:, 1] = np.stack([y1 - y0 + g * y1, y3 - y0 + h * y3, y0], axis=1)
    hom[:, 2] = np.stack([g, h, np.ones_like(g)], axis=1)
    return hom


def read_cells(gray: np.ndarray, corners: np.ndarray, cells: int, *,
               centres_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Mean grey of each cell (M, cells, cells), plus a ring of samples just outside (M, 4*cells).

    `cells` counts the border (6 for a 4x4 dictionary). The ring lies half a cell outside the
    black square, in the white quiet zone. Each cell is the mean of 3 x 3 samples, or with
    `centres_only` its centre alone (a ninth of the work, for sorting many candidates).
    """
    c = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    m = len(c)
    hom = unit_homographies(c)
    centres = (np.arange(cells) + 0.5) / cells
    sub = np.zeros(1) if centres_only else _SUB
    su = sub / cells
    u = (centres[:, None] + su[None, :]).reshape(-1)  # (cells*3,)
    gu, gv = np.meshgrid(u, u)  # (cells*3, cells*3)
    edge = (np.arange(cells) + 0.5) / cells
    out = -0.5 / cells
    ring_u = np.concatenate([edge, np.full(cells, 1 - out), edge[::-1], np.full(cells, out)])
    ring_v = np.concatenate([np.full(cells, out), edge, np.full(cells, 1 - out), edge[::-1]])
    pu = np.concatenate([gu.reshape(-1), ring_u])
    pv = np.concatenate([gv.reshape(-1), ring_v])
    pts = np.stack([pu, pv, np.ones_like(pu)])  # (3, P)
    img_pts = np.einsum("mij,jp->mip", hom, pts)
    xy = (img_pts[:, :2] / img_pts[:, 2:3]).astype(np.float32)  # (M, 2, P)
    vals = cv2.remap(gray, xy[:, 0], xy[:, 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float64)
    k = len(sub)
    n = cells * k
    grid = vals[:, : n * n].reshape(m, cells, k, cells, k)
    grid = grid.reshape(m, cells, cells) if k == 1 else grid.mean(axis=(2, 4))
    ring = vals[:, n * n:]
    return grid, ring


def frame_ok(gray: np.ndarray, corners: np.ndarray, cells: int, *, max_bad: int = 2, min_contrast: float = 15.0) -> np.ndarray:
    """Whether each square has a marker's frame: a dark border inside a light quiet zone (M,).

    Read without the bits, so it also checks markers read from templates, where a letter 'o'
    or a patch of checkered cloth might otherwise pass.
    """
    grid, ring = read_cells(gray, corners, cells)
    border = np.ones((cells, cells), bool)
    border[1:-1, 1:-1] = False
    black = np.median(grid[:, border], axis=1)
    white = np.median(ring, axis=1)
    level = (black + white) / 2
    border_bad = np.sum(grid[:, border] > level[:, None], axis=1)
    ring_bad = np.sum(ring < level[:, None], axis=1)
    return (white - black >= min_contrast) & (border_bad <= max_bad) & (ring_bad <= max_bad)


def code_bits(dictionary: cv2.aruco.Dictionary, marker_id: int) -> np.ndarray:
    """The inner bits (n x n, 1 = white) of `marker_id` as printed (rotation 0)."""
    n = int(dictionary.markerSize)
    return cv2.aruco.Dictionary.getBitsFromByteList(dictionary.bytesList[marker_id:marker_id + 1], n).astype(bool)


def verify_markers(
    gray: np.ndarray,
    corners: np.ndarray,
    codes: np.ndarray,
    *,
    max_bit_errors: int = 1,
    min_contrast: float = 20.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Whether each marker under `corners` (M,4,2) shows its expected `codes` (M,n,n bool).

    Returns (ok (M,) bool, bit errors (M,) int). The threshold is halfway between the black
    border and the white ring around it, so dim or uneven light does not matter.
    """
    c = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    if len(c) == 0:
        return np.zeros(0, bool), np.zeros(0, int)
    cells = codes.shape[1] + 2
    grid, ring = read_cells(gray, c, cells)
    border_mask = np.ones((cells, cells), bool)
    border_mask[1:-1, 1:-1] = False
    black = np.median(grid[:, border_mask], axis=1)
    white = np.median(ring, axis=1)
    level = (black + white) / 2
    inner = grid[:, 1:-1, 1:-1] > level[:, None, None]
    errors = np.sum(inner != codes, axis=(1, 2))
    border_bad = np.sum(grid[:, border_mask] > level[:, None], axis=1)
    ring_bad = np.sum(ring < level[:, None], axis=1)
    ok = (white - black >= min_contrast) & (errors <= max_bit_errors) & (border_bad == 0) & (ring_bad <= cells // 2)
    return ok, errors + border_bad
