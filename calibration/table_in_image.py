"""Where the located table and its markers lie in the image: what a full scan need look at."""

from __future__ import annotations

import numpy as np

from campo.calibration.registration import TableLocation
from campo.vision.camera_model import Intrinsics
from campo.vision.detection import Window
from campo.vision.tabletop import Roster, TableConfig


def _top_height_mm(roster: Roster, location: TableLocation) -> float:
    """Height of the tallest base's marker, when the pose knows heights (PnP); else the table top."""
    return max(b.height_mm for b in roster.bases) if location.method == "pnp" else 0.0


def smallest_marker_px(table: TableConfig, roster: Roster, location: TableLocation,
                       intr: Intrinsics | None) -> float:
    """Side in pixels of the smallest roster marker at the table's far corners (worst case).

    It sets the upsampling and the sizes of squares worth reading.
    """
    size = min(roster.marker_sizes_mm)
    z = _top_height_mm(roster, location)
    tw, td = table.table.width_mm, table.table.depth_mm
    sides = []
    for x, y in [(0.1 * tw, 0.1 * td), (0.9 * tw, 0.1 * td), (0.1 * tw, 0.9 * td), (0.9 * tw, 0.9 * td), (tw / 2, td / 2)]:
        pts = np.array([[x, y, z], [x + size, y, z], [x, y + size, z]])
        px = location.project(pts, intr)
        sides.append(min(np.linalg.norm(px[1] - px[0]), np.linalg.norm(px[2] - px[0])))
    return float(min(sides))


def table_window(table: TableConfig, roster: Roster, location: TableLocation, intr: Intrinsics | None,
                 width: int, height: int) -> Window | None:
    """The part of the image the table covers (plus a margin): full scans need look nowhere else.

    None when the table's outline cannot be projected or covers nearly the whole image.
    """
    t = table.table
    z = _top_height_mm(roster, location)
    xs = np.linspace(0.0, t.width_mm, 9)
    ys = np.linspace(0.0, t.depth_mm, 7)
    edge = [(x, y) for x in xs for y in (0.0, t.depth_mm)] + [(x, y) for y in ys for x in (0.0, t.width_mm)]
    pts = np.array([[x, y, zz] for x, y in edge for zz in (0.0, z)])
    try:
        px = location.project(pts, intr)
    except ValueError:
        return None
    if not np.all(np.isfinite(px)):
        return None
    margin = 0.03 * max(width, height)
    win = Window.around(px, margin).clipped(width, height)
    return win if win.area < 0.95 * width * height else None
