"""The table check: is every base read, and when one is not, why.

`check_table_image` runs the production pipeline's full scan on one frame (`analyse_image`) and
then says, for the user setting up a table:

- which anchors were found, and whether the table is located;
- for each base of the roster: seen (its pose, its marker's size in pixels and its blur), or
  missing and the likely reason: **duplicate id** (the marker is read twice), **misread** (read,
  but not the roster's size), **too small in the picture** (a marker of that size is below the
  detector's reach anywhere on this table, computed from the table's pose), **blurred** (squares
  of about the marker's size were seen but not read, and the picture's edges are softer than a
  marker cell), or **not seen** (not on the table, covered, or outside the picture);
- markers read that are **not on the roster**, where they lie on the table.

Blur is measured on each marker from its edges: for a step edge blurred by a Gaussian of sigma
s, the steepest grey-level slope is contrast / (s * sqrt(2 pi)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from campo.calibration.pipeline import FrameResult, analyse_image
from campo.calibration.poses import image_to_plane
from campo.calibration.registration import TableLocation
from campo.vision.camera_model import Intrinsics
from campo.vision.detection import Detection, to_gray
from campo.vision.tabletop import Roster, RosterBase, TableConfig

MIN_CELL_PX = 2.0
"""Pixels per marker cell below which a marker is not read (4x4 markers: 12 px a side)."""
COMFORT_CELL_PX = 3.0
"""Pixels per cell from which a marker is read reliably while it moves and in dim light."""
BLURRED_CELL_SHARE = 0.5
"""An edge blur (Gaussian sigma) above this share of a cell blends neighbouring cells."""
SHARP_STEP_SIGMA_PX = 0.6
"""What the slope measure reads on a perfectly sharp, anti-aliased edge (subtracted in quadrature)."""


@dataclass(frozen=True)
class Sighting:
    """One marker as seen: its size and sharpness in pixels, and where it lies on the table."""

    marker: int
    side_px: float
    blur_px: float
    centre_px: tuple[float, float]
    x_mm: float | None = None
    y_mm: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"marker": self.marker, "side_px": round(self.side_px, 1), "blur_px": round(self.blur_px, 2),
                "centre_px": [round(self.centre_px[0], 1), round(self.centre_px[1], 1)],
                "x_mm": None if self.x_mm is None else round(self.x_mm, 1),
                "y_mm": None if self.y_mm is None else round(self.y_mm, 1)}


@dataclass(frozen=True)
class BaseCheck:
    """One roster base: seen (with its pose and marker sighting) or missing, and why."""

    id: str
    marker: int
    side: str
    name: str
    status: str          # "seen", "duplicate", "misread", "too small", "blurred", "not seen", "table not located"
    reason: str
    sighting: Sighting | None = None
    pose: tuple[float, float, float] | None = None
    expected_px: tuple[float, float] | None = None   # marker side in px, nearest and farthest point of the table

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "marker": self.marker, "side": self.side, "name": self.name, "status": self.status,
                "seen": self.status == "seen", "reason": self.reason,
                "sighting": None if self.sighting is None else self.sighting.to_json(),
                "pose": None if self.pose is None else {"x_mm": round(self.pose[0], 1), "y_mm": round(self.pose[1], 1),
                                                        "heading_deg": round(self.pose[2], 1)},
                "expected_px": None if self.expected_px is None else [round(v, 1) for v in self.expected_px]}


@dataclass(frozen=True)
class TableCheck:
    """Everything the table check shows about one frame."""

    image_size: tuple[int, int]
    located: bool
    method: str
    reason: str
    warning: str
    anchors: list[dict[str, Any]]
    bases: list[BaseCheck]
    unknown: list[Sighting]
    unread_squares: int
    min_side_px: float          # the smallest side the detector reads at this dictionary
    blur_px: float              # median edge blur of every marker and unread square (nan: none)
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def all_seen(self) -> bool:
        return self.located and all(b.status == "seen" for b in self.bases)

    def advice(self) -> str:
        """One line for the whole table: what to fix first."""
        if not self.located:
            seen = sum(1 for a in self.anchors if a["seen"])
            if math.isfinite(self.blur_px) and self.unread_squares and self.blur_px > 1.5:
                return (f"table not located ({seen} of {len(self.anchors)} anchors read): the picture is blurred "
                        f"(edges spread over {self.blur_px:.1f} px): focus the camera and keep it still")
            return (f"table not located ({seen} of {len(self.anchors)} anchors read): every anchor must be in "
                    "the picture, uncovered, glued where table.toml says")
        missing = [b for b in self.bases if b.status != "seen"]
        if not missing:
            return "every base is read: ready to play"
        return f"{len(missing)} of {len(self.bases)} bases not read: see why beside each"

    def to_json(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for b in self.bases:
            counts[b.status] = counts.get(b.status, 0) + 1
        return {"image_size": list(self.image_size), "located": self.located, "method": self.method,
                "reason": self.reason, "warning": self.warning, "anchors": self.anchors,
                "anchors_seen": sum(1 for a in self.anchors if a["seen"]), "anchors_total": len(self.anchors),
                "bases": [b.to_json() for b in self.bases], "counts": counts, "all_seen": self.all_seen,
                "unknown": [u.to_json() for u in self.unknown], "unread_squares": self.unread_squares,
                "min_side_px": round(self.min_side_px, 1),
                "blur_px": None if not math.isfinite(self.blur_px) else round(self.blur_px, 2),
                "advice": self.advice(),
                "timings_ms": {k: round(v, 1) for k, v in self.timings_ms.items()}}


def cells_across(table: TableConfig) -> int:
    """Cells across one of the table's markers, border included (6 for a 4x4 dictionary)."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, table.table.dictionary))
    return int(d.markerSize) + 2


def edge_blur_px(grey: np.ndarray, corners_px: np.ndarray) -> float:
    """The Gaussian sigma (px) of a marker's edges, from its steepest slope and its contrast."""
    c = np.asarray(corners_px, np.float64).reshape(4, 2)
    side = float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))
    pad = max(2, int(round(side / 6)))
    x0, y0 = np.floor(c.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(c.max(axis=0)).astype(int) + pad + 1
    h, w = grey.shape[:2]
    crop = grey[max(0, y0):min(h, y1), max(0, x0):min(w, x1)].astype(np.float32)
    if crop.shape[0] < 5 or crop.shape[1] < 5:
        return float("nan")
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    slope = float(np.percentile(np.hypot(gx, gy), 99.5))
    contrast = float(np.percentile(crop, 97) - np.percentile(crop, 3))
    if slope <= 1e-6 or contrast < 10:
        return float("nan")
    sigma = contrast / (slope * math.sqrt(2 * math.pi))
    return math.sqrt(max(0.0, sigma * sigma - SHARP_STEP_SIGMA_PX ** 2))


def _sighting(grey: np.ndarray, d: Detection, location: TableLocation, intrinsics: Intrinsics | None,
              z_mm: float) -> Sighting:
    centre = d.centre_px
    x = y = None
    if location.located:
        try:
            xy = image_to_plane(centre.reshape(1, 2), location, intrinsics, z_mm)[0]
            if np.all(np.isfinite(xy)):
                x, y = float(xy[0]), float(xy[1])
        except ValueError:
            pass
    return Sighting(d.marker_id, d.side_px, edge_blur_px(grey, d.corners_px), (float(centre[0]), float(centre[1])), x, y)


def marker_px_on_table(table: TableConfig, location: TableLocation, intrinsics: Intrinsics | None,
                       size_mm: float, height_mm: float = 0.0) -> tuple[float, float] | None:
    """(largest, smallest) side in px a marker of ``size_mm`` would have on this table, over 9 points."""
    if not location.located:
        return None
    w, d = table.table.width_mm, table.table.depth_mm
    sides = []
    for fx in (0.05, 0.5, 0.95):
        for fy in (0.05, 0.5, 0.95):
            cx, cy = fx * w, fy * d
            h = size_mm / 2
            square = np.array([[cx - h, cy + h], [cx + h, cy + h], [cx + h, cy - h], [cx - h, cy - h]], np.float64)
            px = _table_to_image(square, location, intrinsics, height_mm)
            if px is not None:
                sides.append(float(np.mean(np.linalg.norm(px - np.roll(px, -1, axis=0), axis=1))))
    return (max(sides), min(sides)) if sides else None


def _table_to_image(points_mm: np.ndarray, location: TableLocation, intrinsics: Intrinsics | None,
                    z_mm: float) -> np.ndarray | None:
    pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
    if location.method == "homography" and location.homography is not None:
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), location.homography).reshape(-1, 2)
    if location.method == "pnp" and intrinsics is not None:
        obj = np.column_stack([pts, np.full(len(pts), z_mm)])
        return intrinsics.project(obj, location.rvec, location.tvec)
    return None


def _unread_squares(grey: np.ndarray, table: TableConfig, low_px: float, high_px: float) -> list[np.ndarray]:
    """Dark squares of about a marker's size that OpenCV proposed but could not read."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, table.table.dictionary))
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 0.003
    _, _, rejected = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(grey)
    out = []
    for quad in rejected or ():
        q = np.asarray(quad, np.float64).reshape(4, 2)
        side = float(np.mean(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)))
        if low_px <= side <= high_px:
            out.append(q)
    return out


def check_table_image(image: np.ndarray, table: TableConfig, roster: Roster,
                      intrinsics: Intrinsics | None) -> TableCheck:
    """The table check of one frame (see the module's docstring)."""
    grey = to_gray(image)
    h, w = grey.shape[:2]
    result: FrameResult = analyse_image(image, table, roster, intrinsics, source="camera")
    loc, report = result.location, result.report
    z = float(np.median([b.height_mm for b in roster.bases])) if roster.bases else 0.0
    cells = cells_across(table)
    min_side = MIN_CELL_PX * cells
    by_marker: dict[int, list[Detection]] = {}
    for d in result.detections:
        by_marker.setdefault(d.marker_id, []).append(d)
    anchors = []
    for a in table.anchors:
        seen = by_marker.get(a.marker, [])
        anchors.append({"marker": a.marker, "seen": bool(seen), "x_mm": a.x_mm, "y_mm": a.y_mm,
                        "used": a.marker in loc.anchors_used,
                        "side_px": round(seen[0].side_px, 1) if seen else None})
    poses = {p.marker: p for p in report.bases}
    sizes = [b.marker_size_mm for b in roster.bases]
    expected_all = marker_px_on_table(table, loc, intrinsics, min(sizes), z) if sizes else None
    low = 0.5 * min_side
    high = 2.0 * (expected_all[0] * max(sizes) / min(sizes) if expected_all else max(w, h) / 8)
    unread = _unread_squares(grey, table, low, high)
    unread_blur = [edge_blur_px(grey, q) for q in unread]
    checks = []
    for b in roster.bases:
        checks.append(_check_base(b, grey, by_marker.get(b.marker, []), poses.get(b.marker), report.duplicate_markers,
                                  report.rejected, loc, intrinsics, table, cells, unread, unread_blur))
    unknown = [_sighting(grey, ds[0], loc, intrinsics, z) for m, ds in sorted(by_marker.items())
               if m in report.unknown_markers]
    blurs = [bl for bl in unread_blur + [edge_blur_px(grey, d.corners_px) for d in result.detections]
             if math.isfinite(bl)]
    return TableCheck((w, h), loc.located, loc.method, loc.reason, loc.warning or "", anchors, checks, unknown,
                      len(unread), min_side, float(np.median(blurs)) if blurs else float("nan"),
                      dict(result.timings_ms))


def _check_base(b: RosterBase, grey: np.ndarray, readings: list[Detection], pose: Any, duplicates: list[int],
                rejected: dict[int, str], loc: TableLocation, intrinsics: Intrinsics | None, table: TableConfig,
                cells: int, unread: list[np.ndarray], unread_blur: list[float]) -> BaseCheck:
    name = b.label
    expected = marker_px_on_table(table, loc, intrinsics, b.marker_size_mm, b.height_mm)
    min_side = MIN_CELL_PX * cells
    if b.marker in duplicates:
        return BaseCheck(b.id, b.marker, b.side, name, "duplicate",
                         f"marker {b.marker} is read {len(readings)} times: two bases carry the same printed "
                         "marker (or a spare print lies on the table); no pose is given until one is removed",
                         _sighting(grey, readings[0], loc, intrinsics, b.height_mm) if readings else None,
                         expected_px=expected)
    if pose is not None:
        s = _sighting(grey, readings[0], loc, intrinsics, b.height_mm)
        cell = s.side_px / cells
        notes = []
        if cell < COMFORT_CELL_PX:
            notes.append(f"small: {s.side_px:.0f} px ({cell:.1f} px a cell); it may be lost while moved "
                         f"or in dim light (comfortable from {COMFORT_CELL_PX * cells:.0f} px)")
        if math.isfinite(s.blur_px) and s.blur_px > BLURRED_CELL_SHARE * cell:
            notes.append(f"soft: its edges are blurred over {s.blur_px:.1f} px, a cell is {cell:.1f} px")
        return BaseCheck(b.id, b.marker, b.side, name, "seen", "; ".join(notes) or "read", s,
                         (pose.x_mm, pose.y_mm, pose.heading_deg), expected)
    if b.marker in rejected:
        return BaseCheck(b.id, b.marker, b.side, name, "misread",
                         f"marker {b.marker} is read but {rejected[b.marker]}: check marker_size_mm "
                         "against the printed marker", _sighting(grey, readings[0], loc, intrinsics, b.height_mm)
                         if readings else None, expected_px=expected)
    if not loc.located:
        return BaseCheck(b.id, b.marker, b.side, name, "table not located",
                         f"the table is not located ({loc.reason}): place the anchors first", expected_px=expected)
    if expected is not None and expected[0] < min_side:
        larger = b.marker_size_mm * min_side / max(expected[1], 1e-6)
        return BaseCheck(b.id, b.marker, b.side, name, "too small",
                         f"too small in the picture: its {b.marker_size_mm:g} mm marker is "
                         f"{expected[1]:.0f}-{expected[0]:.0f} px here and needs {min_side:.0f} px: print it at "
                         f"{math.ceil(larger):.0f} mm or more, or bring the camera closer", expected_px=expected)
    if expected is not None:
        near = [bl for q, bl in zip(unread, unread_blur)
                if 0.6 * expected[1] <= float(np.mean(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1))) <= 1.5 * expected[0]]
        cell = expected[1] / cells
        blurred = [bl for bl in near if math.isfinite(bl) and bl > BLURRED_CELL_SHARE * cell]
        if blurred:
            return BaseCheck(b.id, b.marker, b.side, name, "blurred",
                             f"blurred: {len(blurred)} square(s) of a marker's size are seen but not read, their "
                             f"edges spread over {float(np.median(blurred)):.1f} px against cells of {cell:.1f} px: "
                             "focus the camera, light the table, keep the camera still", expected_px=expected)
    return BaseCheck(b.id, b.marker, b.side, name, "not seen",
                     "not seen: is the base on the table, inside the picture, its marker uncovered and "
                     "face up?", expected_px=expected)
