"""Reading markers too small or too dim for bit thresholding, by matching whole templates.

Below about 2.5 px per cell, or in dim light, the detector still finds the marker's square but
thresholding its cells fails: blur mixes each cell with its neighbours. Here the square is
resampled to a canonical patch and compared, by normalised correlation, with each expected
marker drawn the same way and blurred by the same amount. Only ids the caller expects (anchors
and roster) are tried, and a reading is accepted only if it matches well and clearly better
than every other id, so a smudge or a misread never becomes a marker.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

PX_PER_CELL = 4


@dataclass(frozen=True)
class TemplateMatch:
    """One candidate read as `marker_id`: corners reordered so corner 0 is the marker's top-left."""

    index: int  # which candidate
    marker_id: int
    corners_px: np.ndarray
    score: float  # normalised correlation with the best template (1 = perfect)
    margin: float  # score minus the best score of any other id


def _unit_coords(cells: int) -> tuple[np.ndarray, np.ndarray]:
    """Canonical patch sample points in unit-square coordinates of the black square (ring included)."""
    n = (cells + 2) * PX_PER_CELL
    s = ((np.arange(n) + 0.5) / PX_PER_CELL - 1.0) / cells
    u, v = np.meshgrid(s, s)
    return u.reshape(-1), v.reshape(-1)


class TemplateDecoder:
    """Matches candidate squares against the expected markers of one dictionary."""

    def __init__(self, dictionary: cv2.aruco.Dictionary, ids: list[int]) -> None:
        self.dictionary = dictionary
        self.ids = np.array(sorted(set(ids)), dtype=int)
        self.cells = int(dictionary.markerSize) + 2
        n = int(dictionary.markerSize)
        crisp = []
        for marker_id in self.ids:
            bits = cv2.aruco.Dictionary.getBitsFromByteList(dictionary.bytesList[marker_id:marker_id + 1], n)
            grid = np.ones((self.cells + 2, self.cells + 2), np.float32)  # white ring
            grid[1:-1, 1:-1] = 0.0  # black border
            grid[2:-2, 2:-2] = bits
            crisp.append(cv2.resize(grid, None, fx=PX_PER_CELL, fy=PX_PER_CELL, interpolation=cv2.INTER_NEAREST))
        self._crisp = np.stack(crisp) if crisp else np.zeros((0, 1, 1), np.float32)
        self._u, self._v = _unit_coords(self.cells)
        # the inner bits (plus half the border around them) tell ids apart; ring and border do not
        size = (self.cells + 2) * PX_PER_CELL
        inner = np.zeros((size, size), bool)
        a, b = int(1.5 * PX_PER_CELL), size - int(1.5 * PX_PER_CELL)
        inner[a:b, a:b] = True
        self._inner = inner.reshape(-1)
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _templates(self, sigma_tenths: int) -> tuple[np.ndarray, np.ndarray]:
        """Normalised templates blurred by sigma (canonical px, in tenths): whole (N, P), inner (N, Q)."""
        cached = self._cache.get(sigma_tenths)
        if cached is None:
            sigma = sigma_tenths / 10
            out = np.stack([cv2.GaussianBlur(t, (0, 0), sigma) if sigma > 0 else t for t in self._crisp])
            out = out.reshape(len(out), -1)
            cached = self._cache[sigma_tenths] = (_normalise(out), _normalise(out[:, self._inner]))
        return cached

    def sample(self, gray: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """Canonical patches (K, P) of the squares `quads` (K,4,2), zero-mean and unit-norm."""
        src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
        hom = np.stack([cv2.getPerspectiveTransform(src, q.astype(np.float32)) for q in quads])
        pts = np.stack([self._u, self._v, np.ones_like(self._u)])
        img = np.einsum("kij,jp->kip", hom, pts)
        xy = (img[:, :2] / img[:, 2:3]).astype(np.float32)
        vals = cv2.remap(gray, xy[:, 0], xy[:, 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return vals.astype(np.float32)

    def match(
        self,
        gray: np.ndarray,
        quads: np.ndarray,
        *,
        blur_px: float = 1.0,
        min_score: float = 0.75,
        min_margin: float = 0.12,
    ) -> list[TemplateMatch]:
        """The candidates that read clearly as one expected marker (in any of 4 rotations)."""
        q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
        if len(q) == 0 or len(self.ids) == 0:
            return []
        rolled = np.stack([np.roll(q, -r, axis=1) for r in range(4)], axis=1)  # (K, 4 rot, 4, 2)
        raw = self.sample(gray, rolled.reshape(-1, 4, 2))  # (K*4, P)
        whole, inner = _normalise(raw), _normalise(raw[:, self._inner])
        side = np.linalg.norm(q - np.roll(q, -1, axis=1), axis=2).mean(axis=1)  # (K,)
        out = []
        for k in range(len(q)):
            sigma = blur_px * PX_PER_CELL / max(side[k] / self.cells, 0.5)
            t_whole, t_inner = self._templates(int(round(min(sigma, 6.0) * 10)))
            scores = inner[4 * k:4 * k + 4] @ t_inner.T  # (4 rot, N): which id, which way up
            rot, best = np.unravel_index(int(np.argmax(scores)), scores.shape)
            top = float(scores[rot, best])
            others = np.delete(scores, best, axis=1)
            second = float(others.max()) if others.size else -1.0
            shape = float(whole[4 * k + rot] @ t_whole[best])  # the whole marker, ring included
            if min(top, shape) >= min_score and top - second >= min_margin:
                out.append(TemplateMatch(k, int(self.ids[best]), rolled[k, rot].copy(), min(top, shape), top - second))
        return out


def _normalise(rows: np.ndarray) -> np.ndarray:
    """Rows made zero-mean and unit-norm (a flat row stays zero)."""
    rows = rows - rows.mean(axis=1, keepdims=True)
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-6)
