"""Where things are in 3D: base boxes and marker squares in the table frame (mm, z up).

The conventions are those of shared/interfaces.md: heading CCW from +x, base `right` is the
front direction turned clockwise, marker up = heading + marker_rotation_deg, OpenCV corner
order top-left, top-right, bottom-right, bottom-left.
"""

from __future__ import annotations

import numpy as np

from campo.vision.synthetic.scene import PlacedBase
from campo.vision.tabletop import Anchor


def unit(deg: float) -> np.ndarray:
    """The table-plane unit vector at `deg` CCW from +x, as a 3D vector."""
    a = np.radians(deg)
    return np.array([np.cos(a), np.sin(a), 0.0])


def right_of(up: np.ndarray) -> np.ndarray:
    """`up` turned 90° clockwise (seen from above): the right of something facing `up`."""
    return np.array([up[1], -up[0], 0.0])


def square_corners(centre: np.ndarray, up: np.ndarray, side: float) -> np.ndarray:
    """4x3 corners of a square of side `side` facing `up`, in OpenCV marker order."""
    r = right_of(up) * side / 2
    u = up * side / 2
    return np.array([centre - r + u, centre + r + u, centre + r - u, centre - r - u])


def base_frame(pb: PlacedBase) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(centre at z=0, front unit vector, right unit vector) of a placed base."""
    front = unit(pb.heading_deg)
    return np.array([pb.x_mm, pb.y_mm, 0.0]), front, right_of(front)


def base_marker(pb: PlacedBase) -> tuple[np.ndarray, np.ndarray, float]:
    """(centre on the base top, up unit vector, side) of the marker on a placed base."""
    b = pb.base
    centre, front, right = base_frame(pb)
    c = centre + right * b.marker_offset_mm[0] + front * b.marker_offset_mm[1]
    c[2] = b.height_mm
    return c, unit(pb.heading_deg + b.marker_rotation_deg), b.marker_size_mm


def base_marker_corners(pb: PlacedBase) -> np.ndarray:
    """4x3 marker corners on the base top, OpenCV order."""
    c, up, side = base_marker(pb)
    return square_corners(c, up, side)


def anchor_corners(anchor: Anchor) -> np.ndarray:
    """4x3 corners of an anchor marker on the table (z = 0), OpenCV order."""
    return square_corners(np.array([anchor.x_mm, anchor.y_mm, 0.0]), unit(anchor.up_deg), anchor.size_mm)


def base_box(pb: PlacedBase) -> np.ndarray:
    """8x3 corners of the base box: bottom face (front-left, front-right, back-right, back-left), then top."""
    b = pb.base
    centre, front, right = base_frame(pb)
    fw, fd = right * b.width_mm / 2, front * b.depth_mm / 2
    bottom = np.array([centre + fd - fw, centre + fd + fw, centre - fd + fw, centre - fd - fw])
    top = bottom + np.array([0.0, 0.0, b.height_mm])
    return np.concatenate([bottom, top])
