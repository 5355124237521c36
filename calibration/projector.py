"""Projector-camera calibration: where each table millimetre is in the projector's picture.

The projector shows a ChArUco board drawn full screen in its own pixels (`ProjectorPattern`);
the camera, whose view of the table is located by its anchors, reads the board's corners; each
corner is then known twice: in projector pixels (where it was drawn) and in table mm (where the
camera saw it land, on the table plane). `fit_projector` fits the table-to-projector homography
(RANSAC, then least squares on the inliers) and says how well it holds in mm on the table: the
median and worst residual of the corners used and how much of the table they cover.

The result is `projector.json` (`save_projector` / `load_projector`): versioned, written
atomically, and checked on reading with a one-line error naming the file and the key.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from shapely.geometry import MultiPoint, Polygon, box

from campo.calibration.poses import image_to_plane
from campo.calibration.registration import TableLocation
from campo.atomic_file import write_atomic
from campo.errors import CampoInputError, FileFormatError
from campo.safe_input import object_with_keys, parse_json, read_bounded
from campo.vision.camera_model import Intrinsics
from campo.vision.detection.detector import to_gray

PROJECTOR_FILE_VERSION = 1
MAX_PROJECTOR_BYTES = 256 * 1024
PATTERN_DICTIONARY = "DICT_5X5_250"
"""Another family than the table's 4x4 markers: a corner of the pattern is never read as a base."""
MIN_CORNERS = 12
"""Corners needed for a fit worth keeping (a homography needs 4; a dozen spread out checks it)."""
RANSAC_PX = 2.0
"""Projector pixels a corner may be off and still count (~2 mm on a table a projector covers at
~1 px/mm): a corner that lands on a base, its figures or its edge is off by more and left out."""
MAX_MEDIAN_MM = 5.0
"""A fit whose median residual is above this is refused (the camera or the table moved)."""
TABLE_MARGIN_MM = 5.0
"""Corners seen this far outside the table are kept out (they fall on the floor, not the table)."""


@dataclass(frozen=True)
class ProjectorPattern:
    """A ChArUco board filling a projector's picture: ``squares`` across x down of ``square_px``,
    its top-left corner at ``origin_px``, markers of ``marker_px``, black around it."""

    size: tuple[int, int]
    squares: tuple[int, int]
    square_px: int
    marker_px: int
    origin_px: tuple[int, int]
    dictionary: str = PATTERN_DICTIONARY

    @classmethod
    def for_screen(cls, width: int, height: int, squares_x: int = 16) -> ProjectorPattern:
        """The pattern for a projector of ``width`` x ``height`` pixels: ``squares_x`` squares
        across, as many as fit down, centred (the corners reach one square from the edges, so
        they cover as much of the table as the picture does).

        >>> p = ProjectorPattern.for_screen(1920, 1080)
        >>> p.squares, p.square_px, p.origin_px
        ((16, 9), 120, (0, 0))
        """
        if not (64 <= width <= 16384 and 64 <= height <= 16384):
            raise CampoInputError(f"a projector of {width}x{height} px is not plausible (64..16384 each way)")
        square = int(min(width // squares_x, height // 4))
        cols, rows = width // square, height // square
        return cls((int(width), int(height)), (cols, rows), square, int(round(square * 0.7)),
                   ((width - cols * square) // 2, (height - rows * square) // 2))

    @cached_property
    def board(self) -> cv2.aruco.CharucoBoard:
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard(self.squares, float(self.square_px), float(self.marker_px), dictionary)

    @cached_property
    def detector(self) -> cv2.aruco.CharucoDetector:
        markers = cv2.aruco.DetectorParameters()
        markers.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        return cv2.aruco.CharucoDetector(self.board, cv2.aruco.CharucoParameters(), markers,
                                         cv2.aruco.RefineParameters())

    def image(self) -> np.ndarray:
        """The picture to show (grey, projector pixels): the board, black elsewhere."""
        w, h = self.size
        cols, rows = self.squares
        out = np.zeros((h, w), np.uint8)
        board = self.board.generateImage((cols * self.square_px, rows * self.square_px), marginSize=0, borderBits=1)
        x0, y0 = self.origin_px
        out[y0:y0 + board.shape[0], x0:x0 + board.shape[1]] = board
        return out

    @cached_property
    def corners_px(self) -> np.ndarray:
        """Nx2 projector pixels of each ChArUco corner, by corner id (pixel-centre convention)."""
        pts = np.asarray(self.board.getChessboardCorners(), np.float64).reshape(-1, 3)[:, :2]
        return pts + np.asarray(self.origin_px, np.float64) - 0.5

    def detect(self, image: np.ndarray, dark: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(ids, Nx2 raw camera pixels) of the pattern's corners read in a camera frame; with
        ``dark``, a frame of the same view with the projector showing black, they are read in
        the ratio of the two (`lit_ratio`), where the cloth's colours and terrain are gone."""
        grey = to_gray(image) if dark is None else lit_ratio(image, dark)
        corners, ids, _, _ = self.detector.detectBoard(grey)
        if ids is None or corners is None or len(ids) == 0:
            return np.zeros(0, int), np.zeros((0, 2))
        return np.asarray(ids).reshape(-1).astype(int), np.asarray(corners, np.float64).reshape(-1, 2)


def lit_ratio(lit: np.ndarray, dark: np.ndarray) -> np.ndarray:
    """How much brighter each pixel is with the pattern shown than with the projector black, as
    an 8-bit grey image: the table's own colours divide out (the camera sees albedo x light)."""
    a, b = to_gray(lit).astype(np.float32), to_gray(dark).astype(np.float32)
    if a.shape != b.shape:
        raise CalibrationFailed("the dark and the lit frame differ in size (did the camera change mode?)")
    ratio = cv2.GaussianBlur(a, (0, 0), 0.8) / (cv2.GaussianBlur(b, (0, 0), 0.8) + 6.0)
    lo, hi = np.percentile(ratio, [2, 98])
    return np.clip((ratio - lo) * (255.0 / max(hi - lo, 1e-6)), 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class ProjectorCalibration:
    """Table mm -> projector pixels, and how well it was measured (mm on the table)."""

    projector_size: tuple[int, int]
    homography: np.ndarray = field(repr=False)
    median_mm: float
    worst_mm: float
    coverage: float   # share of the table inside the hull of the corners used
    corners_used: int
    corners_seen: int
    created: str = ""
    version: int = PROJECTOR_FILE_VERSION

    def to_projector(self, points_mm: np.ndarray) -> np.ndarray:
        """Table points (Nx2 mm) -> projector pixels (Nx2)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def to_table(self, pixels: np.ndarray) -> np.ndarray:
        """Projector pixels (Nx2) -> table mm (Nx2)."""
        pts = np.asarray(pixels, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    def summary(self) -> str:
        return (f"residual median {self.median_mm:.2f} mm, worst {self.worst_mm:.2f} mm over "
                f"{self.coverage:.0%} of the table ({self.corners_used} of {self.corners_seen} corners)")

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "projector_size": list(self.projector_size),
                "homography": [[float(v) for v in row] for row in self.homography],
                "median_mm": round(self.median_mm, 4), "worst_mm": round(self.worst_mm, 4),
                "coverage": round(self.coverage, 4), "corners_used": self.corners_used,
                "corners_seen": self.corners_seen, "created": self.created}


def residuals_mm(homography: np.ndarray, table_mm: np.ndarray, projector_px: np.ndarray) -> np.ndarray:
    """Per corner: how far (mm, on the table) the homography puts its projector pixel from
    where the camera saw it."""
    back = cv2.perspectiveTransform(np.asarray(projector_px, np.float64).reshape(-1, 1, 2),
                                    np.linalg.inv(homography)).reshape(-1, 2)
    return np.linalg.norm(back - np.asarray(table_mm, np.float64).reshape(-1, 2), axis=1)


def table_coverage(points_mm: np.ndarray, table_size: tuple[float, float]) -> float:
    """Share of the table's area inside the convex hull of ``points_mm``."""
    if len(points_mm) < 3:
        return 0.0
    hull = MultiPoint([tuple(p) for p in np.asarray(points_mm, np.float64)]).convex_hull
    table: Polygon = box(0.0, 0.0, *table_size)
    return float(hull.intersection(table).area / table.area)


class CalibrationFailed(CampoInputError):
    """The pattern was not seen well enough to fit; the message says what to do."""


def fit_projector(ids: np.ndarray, camera_px: np.ndarray, pattern: ProjectorPattern, location: TableLocation,
                  intrinsics: Intrinsics | None, table_size: tuple[float, float]) -> ProjectorCalibration:
    """The table-to-projector homography from the pattern's corners read in one camera frame."""
    if not location.located:
        raise CalibrationFailed(f"the table is not located ({location.reason or 'no anchors'}): the camera "
                                "must see the anchors to place the pattern on the table")
    seen = len(ids)
    if seen < MIN_CORNERS:
        raise CalibrationFailed(f"only {seen} corners of the projected pattern were read (need {MIN_CORNERS}): "
                                "is the projector page open, on the projector, and the room not too bright?")
    table_mm = image_to_plane(camera_px, location, intrinsics, 0.0)
    w, d = table_size
    m = TABLE_MARGIN_MM
    on_table = (table_mm[:, 0] >= -m) & (table_mm[:, 0] <= w + m) & (table_mm[:, 1] >= -m) & (table_mm[:, 1] <= d + m)
    table_mm, proj = table_mm[on_table], pattern.corners_px[ids[on_table]]
    if len(table_mm) < MIN_CORNERS:
        raise CalibrationFailed(f"only {len(table_mm)} corners of the pattern fall on the table (need {MIN_CORNERS})")
    h, mask = cv2.findHomography(table_mm, proj, cv2.RANSAC, RANSAC_PX, maxIters=4000, confidence=0.999)
    if h is None:
        raise CalibrationFailed("the corners do not fit one plane mapping (is the camera moving?)")
    inliers = mask.reshape(-1).astype(bool)
    if inliers.sum() < MIN_CORNERS:
        raise CalibrationFailed(f"only {int(inliers.sum())} corners agree with each other (need {MIN_CORNERS})")
    refined, _ = cv2.findHomography(table_mm[inliers], proj[inliers], 0)
    h = refined if refined is not None else h
    h = h / h[2, 2]
    res = residuals_mm(h, table_mm[inliers], proj[inliers])
    return ProjectorCalibration(pattern.size, h, float(np.median(res)), float(res.max()),
                                table_coverage(table_mm[inliers], table_size), int(inliers.sum()), seen,
                                _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))


def calibrate_from_frame(image: np.ndarray, pattern: ProjectorPattern, location: TableLocation,
                         intrinsics: Intrinsics | None, table_size: tuple[float, float],
                         dark: np.ndarray | None = None) -> ProjectorCalibration:
    """`fit_projector` on the corners read in one camera frame (and its ``dark`` twin)."""
    ids, px = pattern.detect(image, dark)
    return fit_projector(ids, px, pattern, location, intrinsics, table_size)


def better_than(new: ProjectorCalibration, old: ProjectorCalibration | None,
                ids_table: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[bool, str]:
    """Whether ``new`` replaces ``old``, and why. With ``ids_table`` (the new corners: table mm
    and projector px) the old mapping is judged on today's corners: a projector that was nudged
    makes the old one worse there, however good it was when it was made."""
    if new.median_mm > MAX_MEDIAN_MM:
        return False, f"new fit too loose (median {new.median_mm:.1f} mm > {MAX_MEDIAN_MM:g} mm)"
    if old is None:
        return True, "first calibration"
    if old.projector_size != new.projector_size:
        return True, "the projector's picture changed size"
    if ids_table is not None:
        table_mm, proj = ids_table
        old_now = float(np.median(residuals_mm(old.homography, table_mm, proj)))
        if new.median_mm <= old_now:
            return True, f"new median {new.median_mm:.2f} mm; the previous one is {old_now:.2f} mm off today"
        return False, f"the previous calibration fits today's corners better ({old_now:.2f} mm vs {new.median_mm:.2f} mm)"
    if new.median_mm <= old.median_mm * 1.25 + 0.25 and new.coverage >= old.coverage * 0.8:
        return True, f"median {new.median_mm:.2f} mm (previous {old.median_mm:.2f} mm)"
    return False, f"worse than the previous one (median {new.median_mm:.2f} mm vs {old.median_mm:.2f} mm)"


# -- projector.json ------------------------------------------------------------------------------

_KEYS = {"version", "projector_size", "homography", "median_mm", "worst_mm", "coverage", "corners_used",
         "corners_seen", "created"}


def _fail(path: Path, key: str | None, message: str) -> FileFormatError:
    return FileFormatError(message, path=path, key=key)


def _number(path: Path, key: str, value: Any, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not lo <= value <= hi:
        raise _fail(path, key, f"must be a number in {lo:g}..{hi:g} (got {value!r:.40})")
    return float(value)


def parse_projector(data: Any, path: Path) -> ProjectorCalibration:
    """Validate a decoded projector.json object (every problem names the file and the key)."""
    data = object_with_keys(data, path, _KEYS, ("version", "projector_size", "homography",
                                                 "median_mm", "worst_mm", "coverage"))
    version = data["version"]
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= PROJECTOR_FILE_VERSION:
        raise _fail(path, "version", f"version {version!r} is not supported (this Campo reads 1..{PROJECTOR_FILE_VERSION})")
    size = data["projector_size"]
    if not (isinstance(size, list) and len(size) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and 64 <= v <= 16384 for v in size)):
        raise _fail(path, "projector_size", "must be [width, height], whole pixels in 64..16384")
    rows = data["homography"]
    if not (isinstance(rows, list) and len(rows) == 3 and all(isinstance(r, list) and len(r) == 3 for r in rows)):
        raise _fail(path, "homography", "must be a 3x3 list of lists")
    h = np.array([[_number(path, "homography", v, -1e9, 1e9) for v in r] for r in rows])
    if abs(np.linalg.det(h)) < 1e-12 or abs(h[2, 2]) < 1e-12:
        raise _fail(path, "homography", "is singular: not a mapping of the table")
    h = h / h[2, 2]
    return ProjectorCalibration(
        (size[0], size[1]), h, _number(path, "median_mm", data["median_mm"], 0, 1e4),
        _number(path, "worst_mm", data["worst_mm"], 0, 1e4), _number(path, "coverage", data["coverage"], 0, 1),
        int(_number(path, "corners_used", data.get("corners_used", 0), 0, 1e6)),
        int(_number(path, "corners_seen", data.get("corners_seen", 0), 0, 1e6)),
        str(data.get("created", ""))[:40], version)


def load_projector(path: str | Path) -> ProjectorCalibration:
    """Read projector.json (bounded, strict); `FileFormatError` names the file and the key."""
    path = Path(path)
    return parse_projector(parse_json(read_bounded(path, MAX_PROJECTOR_BYTES, what="a projector.json"), path=path), path)


def save_projector(calibration: ProjectorCalibration, path: str | Path) -> None:
    """Write projector.json whole or not at all (`campo.atomic_file`); a folder that cannot be
    written is a `CampoInputError` naming the file."""
    write_atomic(Path(path), json.dumps(calibration.to_json(), indent=2, allow_nan=False) + "\n")
