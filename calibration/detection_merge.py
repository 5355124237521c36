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
    fc, fs = _centres_sides(first)
    sc, ss = _centres_sides(second)
    fid = np.array([d.marker_id for d in first])
    sid = np.array([d.marker_id for d in second])
    ftemplate = np.array([d.refined.endswith("template") for d in first])
    stemplate = np.array([d.refined.endswith("template") for d in second])
    # near[j, i]: second[j] and first[i] are closer than two markers with quiet zones can be
    near = np.linalg.norm(sc[:, None] - fc[None], axis=2) < 1.3 * np.maximum(fs[None], ss[:, None])
    again = np.any(near & (sid[:, None] == fid[None]), axis=1)  # read by both searches
    keep = ~again & ~(stemplate & np.any(near, axis=1))  # template misreads next to a marker go
    dropped = np.any(near[keep & ~stemplate] & ftemplate[None], axis=0)
    return [d for d, gone in zip(first, dropped) if not gone] + [d for d, k in zip(second, keep) if k]


def new_reads(read: list[tuple[int, np.ndarray]], dets: list[Detection]) -> list[tuple[int, np.ndarray]]:
    """The rough reads (id, corners) of a search that `merge_detections(dets, ...)` would keep:
    not a marker of `dets` read again where it is (same test as there). A window search around
    a lost marker mostly reads its neighbours, already followed: they need no refining and
    confirming a second time (4K, 100 bases: a third of a window search's time)."""
    if not read or not dets:
        return list(read)
    dc, ds = _centres_sides(dets)
    did = np.array([d.marker_id for d in dets])
    rc = np.stack([c for _, c in read])
    near = np.linalg.norm(rc.mean(axis=1)[:, None] - dc[None], axis=2) < 1.3 * np.maximum(ds[None], quad_sides(rc)[:, None])
    again = np.any(near & (np.array([m for m, _ in read])[:, None] == did[None]), axis=1)
    return [r for r, a in zip(read, again) if not a]


def quad_sides(quads: np.ndarray) -> np.ndarray:
    """Mean side of each quad (K,4,2): which unread squares have a marker's size."""
    return np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2).mean(axis=1)


def _centres_sides(dets: list[Detection]) -> tuple[np.ndarray, np.ndarray]:
    c = np.stack([d.corners_px for d in dets])
    return c.mean(axis=1), quad_sides(c)
