"""What one camera of several contributes: whether its registration is good enough, and what it sees.

With one camera, two anchors locate the table (`registration.MIN_ANCHORS`): they span it. A
camera that sees only part of the table sees only some anchors, often close together or on one
line, and a pose from those is weak far from them, which is where the other camera's bases are
compared. So a camera of a multi-camera rig counts only when its registration used at least 3
anchors not on one line (with its camera.json: a full pose) or 4 (without one: a homography,
which also needs them not on one line). `registration_gap` says what a camera lacks, in words for
the status bar; `coverage_mm` is the part of the table its image covers (the area marked unknown
when that camera is lost).
"""

from __future__ import annotations

import numpy as np
from shapely.geometry import Polygon, box

from campo.calibration.poses import image_to_plane
from campo.calibration.registration import TableLocation
from campo.vision.camera_model import Intrinsics
from campo.vision.tabletop import TableConfig

MIN_ANCHORS_WITH_INTRINSICS = 3
MIN_ANCHORS_HOMOGRAPHY = 4

LINE_SPREAD_MM = 50.0
"""Anchors whose centres stray less than this (RMS, mm) from one straight line are on a line."""

EDGE_SAMPLES = 16
"""Points per image side when the image's outline is cast onto the table."""


def off_line_spread_mm(points: np.ndarray) -> float:
    """RMS distance (mm) of points from their best-fitting straight line (0 for 2 or fewer).

    >>> off_line_spread_mm(np.array([[0, 0], [100, 0], [200, 0.0]]))
    0.0
    >>> round(off_line_spread_mm(np.array([[0, 0], [100, 0], [0, 100], [100, 100.0]])), 1)
    50.0
    """
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(p) < 3:
        return 0.0
    s = np.linalg.svd(p - p.mean(axis=0), compute_uv=False)
    return float(s[-1] / np.sqrt(len(p)))


def registration_gap(location: TableLocation, table: TableConfig, has_intrinsics: bool) -> str:
    """What this camera's registration lacks to count in a multi-camera rig ("" when nothing)."""
    if not location.located:
        return f"table not located: {location.reason}"
    need = MIN_ANCHORS_WITH_INTRINSICS if has_intrinsics else MIN_ANCHORS_HOMOGRAPHY
    how = "with its camera.json" if has_intrinsics else "without a camera.json (homography)"
    used = sorted(location.anchors_used)
    by_id = {a.marker: a for a in table.anchors}
    named = ", ".join(str(m) for m in used) or "none"
    if len(used) < need:
        return f"anchors {named} used: needs {need} not on one line {how}"
    spread = off_line_spread_mm(np.array([[by_id[m].x_mm, by_id[m].y_mm] for m in used]))
    if spread < LINE_SPREAD_MM:
        return f"anchors {named} lie on one line: needs {need} not on one line {how}"
    return ""


def coverage_mm(location: TableLocation, intrinsics: Intrinsics | None, image_size: tuple[int, int],
                table: TableConfig) -> list[list[float]]:
    """The part of the table this camera's image covers, as a polygon in table mm ([] if none).

    The image's outline is cast onto the table top (z = 0) and cut to the table's rectangle.
    """
    if not location.located:
        return []
    w, h = image_size
    s = np.linspace(0.0, 1.0, EDGE_SAMPLES, endpoint=False)
    outline = np.concatenate([
        np.column_stack([s * (w - 1), np.zeros_like(s)]),
        np.column_stack([np.full_like(s, w - 1), s * (h - 1)]),
        np.column_stack([(1 - s) * (w - 1), np.full_like(s, h - 1)]),
        np.column_stack([np.zeros_like(s), (1 - s) * (h - 1)]),
    ])
    try:
        pts = image_to_plane(outline, location, intrinsics, 0.0)
    except ValueError:
        return []
    if not np.all(np.isfinite(pts)):
        return []
    seen = Polygon(pts).buffer(0).intersection(box(0.0, 0.0, table.table.width_mm, table.table.depth_mm))
    if seen.is_empty or seen.geom_type != "Polygon":
        seen = seen.convex_hull
    if seen.is_empty or seen.geom_type != "Polygon":
        return []
    return [[round(float(x), 1), round(float(y), 1)] for x, y in list(seen.exterior.coords)[:-1]]
