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


_SHARED: dict[tuple[int, bytes, tuple[int, ...]], TemplateDecoder] = {}
_SHARED_MAX = 16


class TemplateDecoder:
    """Matches candidate squares against the expected markers of one dictionary."""

    @classmethod
    def shared(cls, dictionary: cv2.aruco.Dictionary, ids: list[int]) -> TemplateDecoder:
        """One decoder per (dictionary, ids) for the whole process: its blurred templates are
        constants, and drawing them again for every still `campo detect` reads costs more than
        reading the markers."""
        key = (int(dictionary.markerSize), dictionary.bytesList.tobytes(), tuple(sorted(set(ids))))
        decoder = _SHARED.get(key)
        if decoder is None:
            if len(_SHARED) >= _SHARED_MAX:
                _SHARED.pop(next(iter(_SHARED)))
            decoder = _SHARED[key] = cls(dictionary, list(key[2]))
        return decoder

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
        self._cells_cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

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
        from campo.vision.detection.bits import unit_homographies  # bits imports nothing of ours; no cycle

        hom = unit_homographies(quads)
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


    def frame_fits(self, gray: np.ndarray, matches: list[TemplateMatch], *, blur_px: float = 1.2,
                   max_bad: int = 1, min_contrast: float = 20.0, tolerance: float = 0.35) -> np.ndarray:
        """Whether each match shows its marker's frame: a dark border inside a light quiet zone.

        The check `bits.frame_ok` makes on sharp markers, made against what the matched marker
        looks like blurred to this scale: a border cell next to white bits of a 13-px marker is
        grey, not black, and must not count against it. The cells (and the ring just outside)
        are fitted as offset + contrast x the blurred template's cells; the contrast must reach
        `min_contrast` grey levels, and at most `max_bad` border cells may be lighter (ring
        samples darker) than the fit by more than `tolerance` of the contrast; and the four
        corner cells must be darker than halfway between border and quiet zone.
        """
        from campo.vision.detection.bits import read_cells  # bits imports nothing of ours; no cycle

        if not matches:
            return np.zeros(0, bool)
        corners = np.stack([m.corners_px for m in matches])
        grid, ring = read_cells(gray, corners, self.cells)
        n = self.cells**2
        border = np.ones((self.cells, self.cells), bool)
        border[1:-1, 1:-1] = False
        side = np.linalg.norm(corners - np.roll(corners, -1, axis=1), axis=2).mean(axis=1)
        sigma = np.minimum(blur_px * PX_PER_CELL / np.maximum(side / self.cells, 0.5), 6.0)
        expected = [self._expected_cells(int(m.marker_id), int(round(sg * 10))) for m, sg in zip(matches, sigma)]
        e = np.stack([np.concatenate([eg.reshape(-1), er]) for eg, er in expected])  # (K, n + ring)
        v = np.concatenate([grid.reshape(len(matches), -1), ring], axis=1)
        # least squares v = offset + contrast * e, row by row
        em, vm = e.mean(axis=1, keepdims=True), v.mean(axis=1, keepdims=True)
        contrast = np.sum((e - em) * (v - vm), axis=1) / np.maximum(np.sum((e - em) ** 2, axis=1), 1e-9)
        resid = (v - vm) - contrast[:, None] * (e - em)
        rg, rr = resid[:, :n].reshape(-1, self.cells, self.cells), resid[:, n:]
        bad_border = np.sum(rg[:, border] > tolerance * contrast[:, None], axis=1)
        bad_ring = np.sum(rr < -tolerance * contrast[:, None], axis=1)
        # a square's corners stay dark under any blur (a letter 'o' has light ones)
        level = (np.median(grid[:, border], axis=1) + np.median(ring, axis=1)) / 2
        dark_corners = np.all(grid[:, [0, 0, -1, -1], [0, -1, 0, -1]] < level[:, None], axis=1)
        return (contrast >= min_contrast) & (bad_border <= max_bad) & (bad_ring <= max_bad) & dark_corners

    def _expected_cells(self, marker_id: int, sigma_tenths: int) -> tuple[np.ndarray, np.ndarray]:
        """The cells and ring of `marker_id` drawn and blurred like the templates (0 black, 1 white)."""
        key = (marker_id, sigma_tenths)
        cached = self._cells_cache.get(key)
        if cached is None:
            from campo.vision.detection.bits import read_cells

            crisp = self._crisp[int(np.searchsorted(self.ids, marker_id))]
            sigma = sigma_tenths / 10
            img = cv2.GaussianBlur(crisp, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE) if sigma > 0 else crisp
            a, b = PX_PER_CELL - 0.5, (self.cells + 1) * PX_PER_CELL - 0.5  # the black square's corners
            corners = np.array([[[a, a], [b, a], [b, b], [a, b]]])
            grid, ring = read_cells(np.ascontiguousarray(img, np.float32), corners, self.cells)
            cached = self._cells_cache[key] = (grid[0], ring[0])
        return cached


def _normalise(rows: np.ndarray) -> np.ndarray:
    """Rows made zero-mean and unit-norm (a flat row stays zero)."""
    rows = rows - rows.mean(axis=1, keepdims=True)
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-6)
