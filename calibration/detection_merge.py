"""Merging the detections of two searches of one image (full-scan stages, tracking, windows)."""

from __future__ import annotations

import numpy as np

from campo.vision.detection import Detection


def merge_detections(first: list[Detection], second: list[Detection]) -> list[Detection]:
    """Detections of two searches of one image: a marker read by both is kept once (the first).

    A marker read from its template where another marker was read by its bits is dropped: two
    markers (with their quiet zones) cannot be that close, so it is a misread.
    """
    if not first or not second:
        return list(first) + list(second)
    ftemplate = np.array([d.refined.endswith("template") for d in first])
    stemplate = np.array([d.refined.endswith("template") for d in second])
    near, again = _overlap(*_centres_sides(second), np.array([d.marker_id for d in second]),
                           *_centres_sides(first), np.array([d.marker_id for d in first]))
    keep = ~again & ~(stemplate & np.any(near, axis=1))  # template misreads next to a marker go
    dropped = np.any(near[keep & ~stemplate] & ftemplate[None], axis=0)
    return [d for d, gone in zip(first, dropped) if not gone] + [d for d, k in zip(second, keep) if k]


def new_reads(read: list[tuple[int, np.ndarray]], dets: list[Detection]) -> list[tuple[int, np.ndarray]]:
    """The rough reads (id, corners) of a search that `merge_detections(dets, ...)` would keep:
    not a marker of `dets` read again where it is (`_overlap`, as there). A window search around
    a lost marker mostly reads its neighbours, already followed: they need no refining and
    confirming a second time (4K, 100 bases: a third of a window search's time)."""
    if not read or not dets:
        return list(read)
    rc = np.stack([c for _, c in read])
    _, again = _overlap(rc.mean(axis=1), quad_sides(rc), np.array([m for m, _ in read]),
                        *_centres_sides(dets), np.array([d.marker_id for d in dets]))
    return [r for r, a in zip(read, again) if not a]


def quad_sides(quads: np.ndarray) -> np.ndarray:
    """Mean side of each quad (K,4,2): which unread squares have a marker's size."""
    return np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2).mean(axis=1)


def _overlap(a_centres: np.ndarray, a_sides: np.ndarray, a_ids: np.ndarray,
             b_centres: np.ndarray, b_sides: np.ndarray, b_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(near[j, i]: markers a[j] and b[i] are closer than two markers with their quiet zones can
    be; again[j]: a[j] is a marker of b read again where it is)."""
    near = np.linalg.norm(a_centres[:, None] - b_centres[None], axis=2) < 1.3 * np.maximum(b_sides[None], a_sides[:, None])
    return near, np.any(near & (a_ids[:, None] == b_ids[None]), axis=1)


def _centres_sides(dets: list[Detection]) -> tuple[np.ndarray, np.ndarray]:
    c = np.stack([d.corners_px for d in dets])
    return c.mean(axis=1), quad_sides(c)
