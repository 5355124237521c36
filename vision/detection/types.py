"""The value a detector returns for each marker it read: id, corners, and how sure it is."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, eq=False)
class Detection:
    """One marker read in one image.

    `corners_px` is 4x2 float64 in raw (distorted) image pixels, OpenCV order: top-left,
    top-right, bottom-right, bottom-left as the marker is printed, so corners 0 -> 1 are its
    top edge. `edge_rms_px` is the RMS distance of the sub-pixel edge points from the four
    fitted edge lines (NaN when the edges were not fitted); `bit_errors` is the Hamming distance
    between the bits read and the dictionary code (0 when exact).
    """

    marker_id: int
    corners_px: np.ndarray = field(repr=False)
    edge_rms_px: float = float("nan")
    bit_errors: int = 0
    refined: str = "none"  # which corner refinement produced the corners: "edges", "subpix", ...

    @property
    def centre_px(self) -> np.ndarray:
        return self.corners_px.mean(axis=0)

    @property
    def side_px(self) -> float:
        """Mean side length in pixels."""
        c = self.corners_px
        return float(np.linalg.norm(c - c[[1, 2, 3, 0]], axis=1).mean())


@dataclass(frozen=True)
class Window:
    """A rectangle of the image to search (x0, y0 inclusive; x1, y1 exclusive), in pixels."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def area(self) -> int:
        return max(0, self.x1 - self.x0) * max(0, self.y1 - self.y0)

    def clipped(self, width: int, height: int) -> Window:
        return Window(max(0, self.x0), max(0, self.y0), min(width, self.x1), min(height, self.y1))

    def overlaps(self, other: Window) -> bool:
        return self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1

    def union(self, other: Window) -> Window:
        return Window(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1))

    @classmethod
    def around(cls, points_px: np.ndarray, margin_px: float) -> Window:
        """The box around `points_px` grown by `margin_px` on each side."""
        p = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        lo = np.floor(p.min(axis=0) - margin_px).astype(int)
        hi = np.ceil(p.max(axis=0) + margin_px).astype(int) + 1
        return cls(int(lo[0]), int(lo[1]), int(hi[0]), int(hi[1]))


def merge_windows(windows: list[Window]) -> list[Window]:
    """Merge overlapping windows so no pixel is searched twice (and no marker is split)."""
    if len(windows) < 2:
        return list(windows)
    boxes = merge_boxes(np.array([(w.x0, w.y0, w.x1, w.y1) for w in windows], dtype=np.int64))
    return [Window(*(int(v) for v in b)) for b in boxes]


def merge_boxes(boxes: np.ndarray) -> np.ndarray:
    """Boxes (N,4: x0,y0,x1,y1, x1 y1 exclusive) merged until none overlap (vectorised `merge_windows`)."""
    b = np.asarray(boxes).reshape(-1, 4)
    while len(b) > 1:
        over = (b[:, None, 0] < b[None, :, 2]) & (b[None, :, 0] < b[:, None, 2]) \
            & (b[:, None, 1] < b[None, :, 3]) & (b[None, :, 1] < b[:, None, 3])
        if over.sum() == len(b):  # each box overlaps only itself
            break
        # groups of boxes joined by overlaps (connected components of the overlap graph)
        group = np.arange(len(b))
        changed = True
        while changed:
            reach = np.where(over, group[None, :], len(b)).min(axis=1)
            changed = bool(np.any(reach < group))
            group = np.minimum(group, reach)
            group = group[group]
        labels = np.unique(group, return_inverse=True)[1]
        merged = np.empty((labels.max() + 1, 4), b.dtype)
        for i in range(len(merged)):
            sel = b[labels == i]
            merged[i] = (sel[:, 0].min(), sel[:, 1].min(), sel[:, 2].max(), sel[:, 3].max())
        b = merged
    return b
