"""Camera intrinsics from ChArUco views, with the checks that make a bad calibration a refusal.

Wrong intrinsics skew every distance Campo measures, silently. So `calibrate` refuses (raises
`CalibrationRefused`, saying what to photograph next) when the views are too few, show too little
of the board, leave most of the image uncovered, or do not fit the model (high RMS); and it
returns warnings for softer signs (face-on photos only, uncertain focal length, one bad photo).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

import cv2
import numpy as np

from campo.calibration.camera_file import CameraCalibration
from campo.calibration.charuco import BoardSpec, BoardView
from campo.vision.camera_model import Intrinsics
from campo.errors import CampoInputError

MIN_VIEWS = 5
MIN_COVERAGE = 0.35  # refuse below: the principal point and distortion would be guesses
WARN_COVERAGE = 0.60
MAX_RMS_PX = 2.0  # refuse above: wrong board options, a bent board or blurred photos
WARN_RMS_PX = 1.0
COVERAGE_GRID = (8, 6)  # cells across, down
MIN_TILT_DEG = 15.0   # warn when no photo is tilted more
REFUSE_TILT_DEG = 4.0  # refuse: square-on photos leave the focal length undetermined (19 % off
                       # at 0 degrees in the synthetic test, with a tiny reported uncertainty)
MAX_FOCAL_UNCERTAINTY = 0.03   # refuse above (OpenCV's standard deviation of fx or fy, relative)
WARN_FOCAL_UNCERTAINTY = 0.005  # every careful synthetic session stays under 0.2 %
OUTLIER_FACTOR = 3.0


class CalibrationRefused(CampoInputError):
    """The photos cannot give trustworthy intrinsics; the message says what to photograph next."""


@dataclass(frozen=True)
class Coverage:
    """How many corners fall in each cell of a grid laid over the image (rows x cols counts)."""

    counts: np.ndarray

    @property
    def fraction(self) -> float:
        return float(np.mean(self.counts > 0))

    def rows(self) -> list[str]:
        """The grid as text: '#' a cell with corners, '.' an empty one."""
        return ["".join("#" if c else "." for c in row) for row in self.counts]

    def empty_regions(self) -> list[str]:
        """Plain words for the parts of the image with no corners (for advice)."""
        rows, cols = self.counts.shape
        r, c = max(1, rows // 3), max(1, cols // 3)
        parts = {
            "top-left corner": self.counts[:r, :c],
            "top-right corner": self.counts[:r, -c:],
            "bottom-left corner": self.counts[-r:, :c],
            "bottom-right corner": self.counts[-r:, -c:],
            "top edge": self.counts[:1, :],
            "bottom edge": self.counts[-1:, :],
            "left edge": self.counts[:, :1],
            "right edge": self.counts[:, -1:],
        }
        return [name for name, cells in parts.items() if not np.any(cells)]


@dataclass(frozen=True)
class ViewResult:
    name: str
    corners: int
    rms_px: float
    tilt_deg: float  # angle between the board's normal and the optical axis


@dataclass(frozen=True)
class CalibrationReport:
    """The calibration and the evidence for trusting it."""

    calibration: CameraCalibration
    views: list[ViewResult]
    coverage: Coverage
    std_dev: dict[str, float]  # 1-sigma of fx, fy, cx, cy in px
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (image, why it was not used)
    warnings: list[str] = field(default_factory=list)

    @property
    def per_view_rms(self) -> dict[str, float]:
        return {v.name: v.rms_px for v in self.views}


def measure_coverage(views: Sequence[BoardView], image_size: tuple[int, int],
                     grid: tuple[int, int] = COVERAGE_GRID) -> Coverage:
    cols, rows = grid
    w, h = image_size
    counts = np.zeros((rows, cols), np.int32)
    for v in views:
        c = np.clip((v.image_points[:, 0] / w * cols).astype(int), 0, cols - 1)
        r = np.clip((v.image_points[:, 1] / h * rows).astype(int), 0, rows - 1)
        np.add.at(counts, (r, c), 1)
    return Coverage(counts)


def min_corners(spec: BoardSpec) -> int:
    """Corners a view needs to count: a quarter of the board, and never fewer than 6."""
    return max(6, math.ceil(spec.inner_corners / 4))


def split_usable(views: Sequence[BoardView], spec: BoardSpec) -> tuple[list[BoardView], list[tuple[str, str]]]:
    """Views with enough non-collinear corners, and the others with the reason."""
    board = spec.cv_board()
    need = min_corners(spec)
    usable, rejected = [], []
    for v in views:
        if v.corners < need:
            rejected.append((v.name, f"only {v.corners} of {spec.inner_corners} corners seen (need {need})"))
        elif board.checkCharucoCornersCollinear(v.corner_ids.reshape(-1, 1)):
            rejected.append((v.name, "the corners seen lie on one line"))
        else:
            usable.append(v)
    return usable, rejected


def _run(views: Sequence[BoardView], image_size: tuple[int, int]) -> tuple:
    obj = [v.object_points.reshape(-1, 1, 3) for v in views]
    img = [v.image_points.reshape(-1, 1, 2) for v in views]
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 200, 1e-12)
    return cv2.calibrateCameraExtended(obj, img, image_size, None, None, flags=0, criteria=criteria)


def _tilt_deg(rvec: np.ndarray) -> float:
    normal = cv2.Rodrigues(rvec)[0][:, 2]
    return float(np.degrees(np.arccos(min(1.0, abs(normal[2])))))


CAMERA_CHECK_RMS_PX = 0.5  # fits worse than this are checked for photos from two cameras
CAMERA_SPLIT_GAIN = 2.0  # two cameras when two groups each fit this many times better than all together
CAMERA_FOCAL_GAP = 0.05  # ... and their focal lengths differ by more than this (relative)
MIN_GROUP_VIEWS = 3


def per_view_focal(views: Sequence[BoardView], image_size: tuple[int, int], k: np.ndarray, d: np.ndarray
                   ) -> np.ndarray:
    """Each photo's own focal length (px), the principal point and distortion held at `k`, `d`
    (rough: the shared distortion is a compromise; used only to order the photos)."""
    flags = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_ASPECT_RATIO
             | cv2.CALIB_FIX_K1 | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3 | cv2.CALIB_ZERO_TANGENT_DIST)
    dist = np.asarray(d, np.float64).reshape(-1)[:5].copy()
    dist[2:4] = 0.0  # (ZERO_TANGENT_DIST: held at zero)
    out = []
    for v in views:
        _, kv, *_ = cv2.calibrateCamera([v.object_points.reshape(-1, 1, 3)], [v.image_points.reshape(-1, 1, 2)],
                                        image_size, np.asarray(k, np.float64).copy(), dist.copy(), flags=flags)
        out.append(float(np.sqrt(kv[0, 0] * kv[1, 1])))
    return np.array(out)


def more_than_one_camera(views: Sequence[BoardView], image_size: tuple[int, int], rms: float, k: np.ndarray,
                         d: np.ndarray) -> str:
    """A sentence naming two groups of photos that are two cameras, or "".

    Photos of one size from two cameras (or one camera at two zoom settings) cannot share
    intrinsics: the joint fit is a compromise that suits neither. The photos are ordered by
    their own focal length (`per_view_focal`) and split in two at every place: when both
    groups, calibrated apart, fit `CAMERA_SPLIT_GAIN` times better than all together and
    their focal lengths differ, they are named.
    """
    n = len(views)
    if rms < CAMERA_CHECK_RMS_PX or n < 2 * MIN_GROUP_VIEWS:
        return ""
    order = np.argsort(per_view_focal(views, image_size, k, d))
    best: tuple[float, int, float, float] | None = None
    for cut in range(MIN_GROUP_VIEWS, n - MIN_GROUP_VIEWS + 1):
        groups = [[views[i] for i in order[:cut]], [views[i] for i in order[cut:]]]
        fits = [_run(g, image_size) for g in groups]
        points = [sum(v.corners for v in g) for g in groups]
        pooled = float(np.sqrt(sum(p * f[0] ** 2 for p, f in zip(points, fits)) / sum(points)))
        focal = [float(np.sqrt(f[1][0, 0] * f[1][1, 1])) for f in fits]
        if best is None or pooled < best[0]:
            best = (pooled, cut, focal[0], focal[1])
    assert best is not None
    _, cut, _, _ = best
    # then each photo goes to the group whose camera fits it better, until no photo moves
    group = np.zeros(n, int)
    group[order[cut:]] = 1
    for _ in range(3):
        fits = [_run([v for v, g in zip(views, group) if g == j], image_size) for j in (0, 1)]
        errors = np.array([[_view_error(v, f[1], f[2]) for f in fits] for v in views])
        moved = errors.argmin(axis=1)
        if np.array_equal(moved, group) or min(np.sum(moved == 0), np.sum(moved == 1)) < MIN_GROUP_VIEWS:
            break
        group = moved
    fits = [_run([v for v, g in zip(views, group) if g == j], image_size) for j in (0, 1)]
    points = [sum(v.corners for v, g in zip(views, group) if g == j) for j in (0, 1)]
    pooled = float(np.sqrt(sum(p * f[0] ** 2 for p, f in zip(points, fits)) / sum(points)))
    focal = [float(np.sqrt(f[1][0, 0] * f[1][1, 1])) for f in fits]
    if rms < CAMERA_SPLIT_GAIN * pooled or abs(focal[1] - focal[0]) < CAMERA_FOCAL_GAP * min(focal):
        return ""

    def names(j: int) -> str:
        listed = [v.name for v, g in zip(views, group) if g == j]
        return ", ".join(listed[:4]) + (f" and {len(listed) - 4} more" if len(listed) > 4 else "")

    return (f"the photos come from more than one camera (or zoom setting): focal length about {focal[0]:.0f} px "
            f"in {names(0)} and about {focal[1]:.0f} px in {names(1)} (each group fits to {pooled:.2f} px, all "
            f"together to {rms:.2f} px); calibrate each camera on its own photos")


def _view_error(view: BoardView, k: np.ndarray, d: np.ndarray) -> float:
    """RMS reprojection error (px) of one photo under the intrinsics `k`, `d` (its own pose)."""
    obj, img = view.object_points.reshape(-1, 1, 3), view.image_points.reshape(-1, 1, 2)
    ok, rvec, tvec = cv2.solvePnP(obj, img, k, d)
    if not ok:
        return float("inf")
    proj, _ = cv2.projectPoints(obj, rvec, tvec, k, d)
    # (float64: under another camera's intrinsics a pose can throw points far out of float32's range)
    err = float(np.sqrt(np.mean(np.sum((proj.astype(np.float64) - img) ** 2, axis=2))))
    return err if np.isfinite(err) else float("inf")


def _missing_advice(n_more: int, coverage: Coverage) -> str:
    where = coverage.empty_regions()
    target = f" (nothing yet near the {', '.join(where[:3])})" if where else ""
    return (f"take at least {n_more} more photo{'s' if n_more != 1 else ''} of the whole board, "
            f"tilted 20-45 degrees, with the board near the corners and edges of the picture{target}")


def calibrate(views: Sequence[BoardView], image_size: tuple[int, int], spec: BoardSpec,
              *, not_found: Sequence[str] = (), min_views: int = MIN_VIEWS) -> CalibrationReport:
    """Intrinsics (pinhole + k1 k2 p1 p2 k3) from board views, or `CalibrationRefused` saying why."""
    usable, rejected = split_usable(views, spec)
    rejected = [(name, "board not found") for name in not_found] + rejected
    coverage = measure_coverage(usable, image_size)
    if len(usable) < min_views:
        refusal = f"only {len(usable)} usable view{'s' if len(usable) != 1 else ''} of the board (need at least {min_views})"
        if rejected:
            refusal += "; not used: " + "; ".join(f"{n}: {why}" for n, why in rejected[:4])
            refusal += " ..." if len(rejected) > 4 else ""
        raise CalibrationRefused(f"{refusal}. {_missing_advice(min_views - len(usable), coverage).capitalize()}.")
    if coverage.fraction < MIN_COVERAGE:
        raise CalibrationRefused(
            f"the board's corners cover only {coverage.fraction:.0%} of the picture (need {MIN_COVERAGE:.0%}). "
            f"{_missing_advice(3, coverage).capitalize()}.")

    warnings: list[str] = []
    rms, k, d, rvecs, _, std_int, _, per_view = _run(usable, image_size)
    per_view = np.asarray(per_view).reshape(-1)
    median = float(np.median(per_view))
    bad = [i for i, e in enumerate(per_view) if e > max(OUTLIER_FACTOR * median, WARN_RMS_PX)]
    if bad and len(usable) - len(bad) >= min_views:
        for i in bad:
            rejected.append((usable[i].name, f"reprojection error {per_view[i]:.2f} px, far above the others "
                                             f"(median {median:.2f} px): blurred, or the board not flat?"))
            warnings.append(f"left out {usable[i].name}: error {per_view[i]:.2f} px vs median {median:.2f} px")
        usable = [v for i, v in enumerate(usable) if i not in set(bad)]
        coverage = measure_coverage(usable, image_size)
        rms, k, d, rvecs, _, std_int, _, per_view = _run(usable, image_size)
        per_view = np.asarray(per_view).reshape(-1)

    cameras = more_than_one_camera(usable, image_size, rms, k, d)
    if cameras:  # no intrinsics suit both: refused, not averaged
        raise CalibrationRefused(f"{cameras[0].upper()}{cameras[1:]}")
    if rms > MAX_RMS_PX:
        worst = np.argsort(per_view)[::-1][:3]
        listed = ", ".join(f"{usable[i].name} {per_view[i]:.2f} px" for i in worst)
        one_bad = per_view[worst[0]] > max(OUTLIER_FACTOR * float(np.median(per_view)), WARN_RMS_PX)
        raise CalibrationRefused(
            f"RMS reprojection error {rms:.2f} px is too high (limit {MAX_RMS_PX:g} px); worst photos: {listed} "
            f"(median {float(np.median(per_view)):.2f} px). "
            + ("One photo is far worse than the others: leave it out or take it again. " if one_bad else "")
            + "Check --squares, --square-mm and --marker-mm against the printed board, that it is glued flat, "
              "and that the photos are sharp")
    if rms > WARN_RMS_PX:
        warnings.append(f"RMS error {rms:.2f} px is high (good is under {WARN_RMS_PX:g} px): sharper photos help")
    if coverage.fraction < WARN_COVERAGE:
        where = coverage.empty_regions()
        warnings.append(f"corners cover {coverage.fraction:.0%} of the picture; more photos near the "
                        f"{', '.join(where[:3]) if where else 'edges'} would pin down the lens distortion")
    tilts = [_tilt_deg(r) for r in rvecs]
    if max(tilts) < REFUSE_TILT_DEG:
        raise CalibrationRefused(
            f"every photo faces the board squarely (within {max(tilts):.1f} degrees): the focal "
            f"length cannot be told from the distance. Tilt the board 20-45 degrees in several photos")
    if max(tilts) < MIN_TILT_DEG:
        warnings.append(f"every photo faces the board within {max(tilts):.0f} degrees: tilt it 20-45 degrees "
                        "in some photos, or the focal length is poorly determined")
    std = np.asarray(std_int).reshape(-1)
    std_dev = {name: float(std[i]) for i, name in enumerate(("fx", "fy", "cx", "cy"))}
    uncertainty = max(std_dev["fx"] / k[0, 0], std_dev["fy"] / k[1, 1])
    if uncertainty > MAX_FOCAL_UNCERTAINTY:
        raise CalibrationRefused(
            f"the photos do not pin down the focal length (uncertain by {uncertainty:.1%}, limit "
            f"{MAX_FOCAL_UNCERTAINTY:.0%}) although they fit (RMS {rms:.2f} px): add photos of the "
            f"whole board tilted 20-45 degrees, near the middle of the picture as well as its corners")
    if uncertainty > WARN_FOCAL_UNCERTAINTY:
        warnings.append(f"focal length uncertain by {uncertainty:.1%}: add tilted photos of the "
                        f"whole board")
    ratio = k[0, 0] / k[1, 1]
    if not 0.9 < ratio < 1.1:
        warnings.append(f"fx/fy = {ratio:.3f}: unusual for a camera with square pixels; check the photos")

    results = [ViewResult(v.name, v.corners, float(e), t) for v, e, t in zip(usable, per_view, tilts)]
    extra = {
        "per_view_rms_px": {r.name: round(r.rms_px, 4) for r in results},
        "views": len(results),
        "coverage": round(coverage.fraction, 4),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "board": spec.to_json(),
    }
    intrinsics = Intrinsics((int(image_size[0]), int(image_size[1])), np.asarray(k, np.float64),
                            np.asarray(d, np.float64).reshape(-1))
    calibration = CameraCalibration(intrinsics, float(rms), extra=extra)
    return CalibrationReport(calibration, results, coverage, std_dev, rejected, warnings)
