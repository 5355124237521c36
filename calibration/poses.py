"""From marker corners to base poses in table millimetres.

Each marker's corners are cast as rays and cut with the plane at that base's own height
(`height_mm`): mapping them to the table top instead puts a 3 mm thick base about 2 mm off near
the table edge. The marker's centre and `up` then give the base's centre and heading through the
roster's `marker_offset_mm` and `marker_rotation_deg`.

Markers are never guessed: an id read twice is reported in `duplicate_markers` and gives no
pose (unless just one of the readings has that marker's size and shape on the table); an id that is neither an anchor nor in the roster goes to `unknown_markers`; a marker whose
measured size is far from the roster's is rejected as a misread (`rejected`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

from campo.calibration.registration import TableLocation
from campo.vision.camera_model import Intrinsics
from campo.vision.detection.types import Detection
from campo.vision.tabletop import Roster, RosterBase, TableConfig

SIZE_TOLERANCE = 0.25
"""A marker measured more than 25 % off its roster size is a misread, not a base."""

MAX_ELONGATION = 1.25
"""A marker's longest side over its shortest, on its plane; beyond this it is part of a marker
misread as a whole one (or not a marker at all)."""


@dataclass(frozen=True)
class BasePose:
    """A base seen in this frame: its centre and heading in the table frame."""

    id: str
    marker: int
    x_mm: float
    y_mm: float
    heading_deg: float
    marker_corners_mm: np.ndarray = field(repr=False)  # 4x2, on the marker's own plane
    size_ratio: float = 1.0  # measured marker side / roster marker side

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "marker": self.marker, "x_mm": round(self.x_mm, 2),
                "y_mm": round(self.y_mm, 2), "heading_deg": round(self.heading_deg, 2)}


@dataclass(frozen=True)
class PoseReport:
    """Everything the markers of one frame say about the bases."""

    bases: list[BasePose]
    unknown_markers: list[int]
    duplicate_markers: list[int]
    rejected: dict[int, str] = field(default_factory=dict)  # marker -> why it gave no pose
    readings: dict[int, Detection] = field(default_factory=dict, repr=False)  # marker -> the reading posed


def image_to_plane(pixels: np.ndarray, location: TableLocation, intrinsics: Intrinsics | None,
                   z_mm: float | np.ndarray) -> np.ndarray:
    """Raw image pixels (Nx2) -> table (x, y) where their rays meet the plane z = `z_mm` (one or N).

    With a homography location only z = 0 is known, so `z_mm` is ignored (the warning on the
    location says so).
    """
    px = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
    if location.method == "homography":
        inv = np.linalg.inv(location.homography)
        return cv2.perspectiveTransform(px.reshape(-1, 1, 2), inv).reshape(-1, 2)
    if location.method != "pnp" or intrinsics is None:
        raise ValueError("table not located (or no intrinsics for a pnp location)")
    norm = intrinsics.undistort(px)
    rays_cam = np.column_stack([norm, np.ones(len(norm))])
    r = location.rotation
    rays = rays_cam @ r  # == (R^T @ ray) for each row: directions in the table frame
    c = location.camera_centre_mm
    s = (z_mm - c[2]) / rays[:, 2]
    return c[:2] + s[:, None] * rays[:, :2]


def marker_up_deg(corners_mm: np.ndarray) -> float:
    """Direction of a marker's up (centre -> top edge) from its 4 corners on the table, in degrees.

    All four sides vote: the left and right sides point up directly, the top and bottom sides
    point right and are turned 90 degrees counter-clockwise.

    >>> round(marker_up_deg(np.array([[-1, 1], [1, 1], [1, -1], [-1, -1]], float)), 6)
    90.0
    """
    c = np.asarray(corners_mm, dtype=np.float64)
    up_left, up_right = c[0] - c[3], c[1] - c[2]
    right_top, right_bottom = c[1] - c[0], c[2] - c[3]
    turn = lambda v: np.array([-v[1], v[0]])  # noqa: E731  (90 degrees CCW)
    v = up_left + up_right + turn(right_top) + turn(right_bottom)
    return float(np.degrees(np.arctan2(v[1], v[0])) % 360.0)


def _up_angles(corners: np.ndarray) -> np.ndarray:
    """`marker_up_deg` for many markers at once (N,4,2) -> (N,)."""
    c = corners
    up = (c[:, 0] - c[:, 3]) + (c[:, 1] - c[:, 2])
    right = (c[:, 1] - c[:, 0]) + (c[:, 2] - c[:, 3])
    v = up + np.stack([-right[:, 1], right[:, 0]], axis=1)
    return np.degrees(np.arctan2(v[:, 1], v[:, 0])) % 360.0


def base_from_marker(base: RosterBase, marker_xy: np.ndarray, marker_up: float) -> tuple[float, float, float]:
    """The base's centre (x, y) and heading from its marker's centre and up direction."""
    heading = (marker_up - base.marker_rotation_deg) % 360.0
    a = np.radians(heading)
    front = np.array([np.cos(a), np.sin(a)])
    right = np.array([np.sin(a), -np.cos(a)])
    off_right, off_front = base.marker_offset_mm
    centre = np.asarray(marker_xy, dtype=np.float64) - off_right * right - off_front * front
    return float(centre[0]), float(centre[1]), float(heading)


def base_box_mm(x_mm: float, y_mm: float, heading_deg: float, width_mm: float, depth_mm: float,
                height_mm: float) -> np.ndarray:
    """The 8 corners (8x3, table mm) of a base's box: its footprint, then its top.

    >>> base_box_mm(0.0, 0.0, 90.0, 80.0, 40.0, 3.0)[:4, :2].round(6).tolist()
    [[-40.0, 20.0], [40.0, 20.0], [40.0, -20.0], [-40.0, -20.0]]
    """
    a = np.radians(heading_deg)
    front = np.array([np.cos(a), np.sin(a)]) * depth_mm / 2
    right = np.array([np.sin(a), -np.cos(a)]) * width_mm / 2
    c = np.array([x_mm, y_mm])
    foot = np.array([c + front - right, c + front + right, c - front + right, c - front - right])
    return np.vstack([np.column_stack([foot, np.zeros(4)]), np.column_stack([foot, np.full(4, height_mm)])])


def _side_mm(c: np.ndarray) -> float:
    return float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))


def elongation(corners: np.ndarray) -> float:
    """How far a quadrilateral is from a square: max over min of its sides and of its diagonals.

    >>> elongation(np.array([[0, 0], [2, 0], [2, 2], [0, 2]], float))
    1.0
    """
    c = np.asarray(corners, dtype=np.float64)
    sides = np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)
    diagonals = np.linalg.norm(c[:2] - c[2:], axis=1)
    if sides.min() <= 0 or diagonals.min() <= 0:
        return float("inf")
    return float(max(sides.max() / sides.min(), diagonals.max() / diagonals.min()))


def _plausible_unknowns(dets: list[Detection], ids: set[int], location: TableLocation,
                        intrinsics: Intrinsics | None, roster: Roster, table: TableConfig | None) -> set[int]:
    """Unknown ids whose every reading is a square of a marker's size on the table.

    An unknown id cannot be checked against the roster, so it must at least look like a marker
    a player would use (between 0.7 x the smallest and 1.3 x the largest known marker, square);
    anything else is a misread and is not reported.
    """
    sizes = [b.marker_size_mm for b in roster.bases] + ([a.size_mm for a in table.anchors] if table else [])
    low, high = 0.7 * min(sizes), 1.3 * max(sizes)
    z = float(np.median([b.height_mm for b in roster.bases])) if location.method == "pnp" else 0.0
    keep = set()
    for m in ids:
        shapes = [image_to_plane(d.corners_px, location, intrinsics, z) for d in dets if d.marker_id == m]
        if all(np.all(np.isfinite(c)) and low <= _side_mm(c) <= high and elongation(c) <= MAX_ELONGATION for c in shapes):
            keep.add(m)
    return keep


def base_poses(
    detections: Iterable[Detection],
    location: TableLocation,
    roster: Roster,
    intrinsics: Intrinsics | None,
    table: TableConfig | None = None,
    *,
    size_tolerance: float = SIZE_TOLERANCE,
) -> PoseReport:
    """Poses of the roster's bases seen in `detections`, plus unknown and duplicated ids.

    Anchor ids (from `table`) are neither bases nor unknown. Without a located table no pose can
    be computed, but unknown and duplicated ids are still reported.
    """
    dets = list(detections)
    # anchors and the roster's status tokens are neither bases nor unknown (calibration/tokens.py)
    anchors = (table.anchor_ids if table is not None else set()) | set(roster.tokens_by_marker())
    counts = Counter(d.marker_id for d in dets)
    roster_by_marker = roster.by_marker()
    doubled = {m for m, n in counts.items() if n > 1 and m not in anchors}
    unknown_ids = {m for m in counts if m not in roster_by_marker and m not in anchors}
    if location.located and unknown_ids:
        unknown_ids = _plausible_unknowns(dets, unknown_ids, location, intrinsics, roster, table)
    unknown = sorted(unknown_ids)
    bases: list[BasePose] = []
    rejected: dict[int, str] = {}
    readings: dict[int, Detection] = {}
    resolved: set[int] = set()  # ids read twice where only one reading has the marker's size and shape
    if location.located:
        mine = [(d, roster_by_marker[d.marker_id]) for d in dets if d.marker_id in roster_by_marker]
        if mine:
            # one call for every corner of every marker (undistortion dominates the cost)
            z = np.array([b.height_mm if location.method == "pnp" else 0.0 for _, b in mine])
            px = np.concatenate([d.corners_px for d, _ in mine])
            plane = image_to_plane(px, location, intrinsics, np.repeat(z, 4)).reshape(-1, 4, 2)
            sides = np.linalg.norm(plane - plane[:, [1, 2, 3, 0]], axis=2)  # (N, 4)
            diagonals = np.linalg.norm(plane[:, :2] - plane[:, 2:], axis=2)  # (N, 2)
            with np.errstate(divide="ignore", invalid="ignore"):
                elong = np.maximum(sides.max(1) / sides.min(1), diagonals.max(1) / diagonals.min(1))
            sizes = np.array([b.marker_size_mm for _, b in mine])
            ratios = sides.mean(axis=1) / sizes
            ups = _up_angles(plane)
            finite = np.all(np.isfinite(plane), axis=(1, 2))
            fits = finite & (np.abs(ratios - 1.0) <= size_tolerance) & (elong <= MAX_ELONGATION)
            # An id read twice gives no pose, unless only one of its readings is a marker of its
            # size and shape on the table (the other a dark rectangle read from its template).
            fitting = Counter(d.marker_id for k, (d, _) in enumerate(mine) if fits[k])
            resolved = {m for m in doubled if fitting[m] == 1}
            for k, (d, base) in enumerate(mine):
                if d.marker_id in doubled and (d.marker_id not in resolved or not fits[k]):
                    continue
                ratio = float(ratios[k])
                if not finite[k] or abs(ratio - 1.0) > size_tolerance:
                    rejected[d.marker_id] = f"measured size {ratio:.2f} x the roster's {base.marker_size_mm:g} mm"
                    continue
                if not elong[k] <= MAX_ELONGATION:
                    rejected[d.marker_id] = f"not square on the table (elongation {elong[k]:.2f})"
                    continue
                x, y, heading = base_from_marker(base, plane[k].mean(axis=0), float(ups[k]))
                bases.append(BasePose(base.id, base.marker, x, y, heading, plane[k], ratio))
                readings[d.marker_id] = d
    duplicates = sorted(doubled - resolved)
    bases.sort(key=lambda b: b.id)
    return PoseReport(bases, unknown, duplicates, rejected, readings)
