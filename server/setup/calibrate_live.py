"""Calibrating the camera live: the user moves the ChArUco board, Campo keeps the good views.

Each frame's board corners are found with the calibration package's own detector. A view is kept
only when it is

- **sharp**: the board stood still since the previous frame (its corners moved less than
  `STILL_PX`), so there is no motion blur; a frame taken while the board moves is skipped;
- **useful**: enough corners, not on one line (`calibration.calibrate_intrinsics.split_usable`);
- **new**: the board's outline (its four outer corners, through the view's homography) is more
  than `NEW_VIEW_SHARE` of the picture's diagonal away from every view kept so far: a new place,
  size, turn or tilt.

From `MIN_VIEWS` views on, `calibrate()` runs after each new one and its verdict is shown: RMS,
focal length and its uncertainty, the coverage grid, and (while refused) what to do next. When
the result is good (RMS, focal uncertainty and coverage all within the levels that give no
warning) `camera.json` is saved at once, atomically.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from campo.calibration.calibrate_intrinsics import (
    MIN_VIEWS, WARN_COVERAGE, WARN_FOCAL_UNCERTAINTY, WARN_RMS_PX, CalibrationRefused, CalibrationReport,
    calibrate, measure_coverage, split_usable,
)
from campo.calibration.charuco import BoardSpec, BoardView, board_detector, detect_view
from campo.server.sources import Frame
from campo.vision.detection.detector import to_gray

STILL_PX = 1.0
"""A board whose corners moved less than this (at 1280 px wide) since the last frame is still."""
NEW_VIEW_SHARE = 0.08
"""A kept view's outline differs from every other by at least this share of the picture diagonal."""
MAX_VIEWS = 40
GOOD_VIEWS = 10
"""A result counts as good only from this many views (the intrinsics settle by 8-12, docs)."""


@dataclass(frozen=True)
class Verdict:
    """The latest calibration's numbers (None before there are enough views)."""

    rms_px: float
    fx: float
    fy: float
    cx: float
    cy: float
    focal_uncertainty: float     # relative 1-sigma of fx, fy (the larger)
    coverage: float
    warnings: tuple[str, ...]
    good: bool

    def to_json(self) -> dict[str, Any]:
        return {"rms_px": round(float(self.rms_px), 3), "fx": round(float(self.fx), 1),
                "fy": round(float(self.fy), 1), "cx": round(float(self.cx), 1), "cy": round(float(self.cy), 1),
                "focal_uncertainty_pct": round(100 * float(self.focal_uncertainty), 3),
                "coverage": round(float(self.coverage), 3), "warnings": list(self.warnings), "good": bool(self.good)}


@dataclass
class Progress:
    """What the page shows while calibrating."""

    spec: BoardSpec
    image_size: tuple[int, int] | None = None
    views: list[BoardView] = field(default_factory=list)
    outlines: list[np.ndarray] = field(default_factory=list)
    seen_corners: np.ndarray | None = None      # the last frame's corners (px), for the overlay
    seen_note: str = "waiting for the camera"
    frames: int = 0
    skipped_moving: int = 0
    verdict: Verdict | None = None
    report: CalibrationReport | None = None
    refusal: str = ""
    saved: str = ""        # where camera.json was written ("" not yet)
    save_error: str = ""

    def to_json(self) -> dict[str, Any]:
        coverage = measure_coverage(self.views, self.image_size) if self.image_size and self.views else None
        return {
            "board": self.spec.to_json(), "board_text": self.spec.describe(),
            "image_size": list(self.image_size) if self.image_size else None,
            "views": len(self.views), "min_views": MIN_VIEWS, "good_views": GOOD_VIEWS,
            "frames": self.frames, "skipped_moving": self.skipped_moving, "seeing": self.seen_note,
            "coverage_rows": coverage.rows() if coverage else [],
            "coverage": round(coverage.fraction, 3) if coverage else 0.0,
            "advice": self.advice(coverage),
            "verdict": None if self.verdict is None else self.verdict.to_json(),
            "refusal": self.refusal, "saved": self.saved, "save_error": self.save_error,
        }

    def advice(self, coverage: Any) -> str:
        if self.saved:
            return "camera.json is saved: go on to the table check"
        if not self.views:
            return "hold the board in front of the camera, still, in the middle of the picture"
        if len(self.views) < MIN_VIEWS or self.refusal:
            where = coverage.empty_regions() if coverage is not None else []
            place = f" toward the {where[0]}" if where else ""
            return f"move the board{place}, tilt it 20-45 degrees, and hold it still"
        if self.verdict is not None and not self.verdict.good:
            return self.verdict.warnings[0] if self.verdict.warnings else \
                f"a few more views (at least {GOOD_VIEWS}), board tilted, near the picture's corners"
        return "good: saving"


def outline_px(view: BoardView, spec: BoardSpec) -> np.ndarray | None:
    """The board's four outer corners in the picture, through the view's homography (None if degenerate)."""
    if view.corners < 4:
        return None
    h, _ = cv2.findHomography(view.object_points[:, :2].astype(np.float64), view.image_points.astype(np.float64))
    if h is None:
        return None
    w, d = spec.squares_x * spec.square_mm, spec.squares_y * spec.square_mm
    box = np.array([[[0, 0]], [[w, 0]], [[w, d]], [[0, d]]], np.float64)
    return cv2.perspectiveTransform(box, h).reshape(4, 2)


def _moved_px(a: BoardView, b: BoardView) -> float:
    """Median displacement of the corners two views share (inf when they share fewer than 4)."""
    common, ia, ib = np.intersect1d(a.corner_ids, b.corner_ids, return_indices=True)
    if len(common) < 4:
        return float("inf")
    return float(np.median(np.linalg.norm(a.image_points[ia] - b.image_points[ib], axis=1)))


class LiveCalibrator:
    """Turns a stream of frames into kept views and a calibration verdict (one thread feeds it)."""

    def __init__(self, spec: BoardSpec, save: Callable[[CalibrationReport], str]) -> None:
        self.spec = spec
        self._save = save
        self._board, self._detector = board_detector(spec)
        self._lock = threading.Lock()
        self._progress = Progress(spec)
        self._previous: BoardView | None = None

    def progress(self) -> dict[str, Any]:
        with self._lock:
            return self._progress.to_json()

    def overlay_data(self) -> tuple[np.ndarray | None, list[np.ndarray], tuple[int, int] | None, list[str]]:
        """(corners seen now, outlines kept, image size, coverage rows) for drawing on the picture."""
        with self._lock:
            p = self._progress
            rows = measure_coverage(p.views, p.image_size).rows() if p.views and p.image_size else []
            return p.seen_corners, list(p.outlines), p.image_size, rows

    def offer(self, frame: Frame) -> bool:
        """Look at one frame; True when it was kept as a new view."""
        grey = to_gray(frame.image)
        h, w = grey.shape[:2]
        view = detect_view(self._board, self._detector, f"frame {frame.index}", grey)
        with self._lock:
            p = self._progress
            if p.saved:
                return False
            if p.image_size not in (None, (w, h)):
                # another camera mode: what was kept belongs to the old one
                self._progress = p = Progress(self.spec)
                self._previous = None
            p.image_size = (w, h)
            p.frames += 1
            p.seen_corners = None if view is None else view.image_points.copy()
            previous, self._previous = self._previous, view
            if view is None:
                p.seen_note = "board not seen"
                return False
            usable, rejected = split_usable([view], self.spec)
            if not usable:
                p.seen_note = f"board seen, but {rejected[0][1]}"
                return False
            still_px = STILL_PX * w / 1280
            if previous is None or _moved_px(previous, view) > still_px:
                p.skipped_moving += 1
                p.seen_note = f"board seen ({view.corners} corners), moving: hold it still"
                return False
            outline = outline_px(view, self.spec)
            if outline is None:
                return False
            diagonal = float(np.hypot(w, h))
            if any(float(np.mean(np.linalg.norm(outline - o, axis=1))) < NEW_VIEW_SHARE * diagonal
                   for o in p.outlines):
                p.seen_note = f"board seen ({view.corners} corners), already have this view: move or tilt it"
                return False
            if len(p.views) >= MAX_VIEWS:
                p.seen_note = f"{MAX_VIEWS} views kept: enough"
                return False
            p.views.append(replace(view, name=f"view {len(p.views) + 1}"))
            p.outlines.append(outline)
            p.seen_note = f"kept view {len(p.views)} ({view.corners} corners)"
            views, size = list(p.views), (w, h)
        if len(views) >= MIN_VIEWS:
            self._judge(views, size)
        return True

    def _judge(self, views: list[BoardView], size: tuple[int, int]) -> None:
        """Calibrate from the views kept so far; save camera.json when the result is good."""
        try:
            report = calibrate(views, size, self.spec)
        except CalibrationRefused as exc:
            with self._lock:
                self._progress.refusal = exc.message
                self._progress.verdict = None
            return
        k = report.calibration.intrinsics.camera_matrix
        s = report.std_dev
        uncertainty = max(s["fx"] / k[0, 0], s["fy"] / k[1, 1])
        good = (report.calibration.rms_px <= WARN_RMS_PX and uncertainty <= WARN_FOCAL_UNCERTAINTY
                and report.coverage.fraction >= WARN_COVERAGE and len(report.views) >= GOOD_VIEWS)
        verdict = Verdict(float(report.calibration.rms_px), float(k[0, 0]), float(k[1, 1]), float(k[0, 2]),
                          float(k[1, 2]), float(uncertainty), float(report.coverage.fraction),
                          tuple(report.warnings), bool(good))
        with self._lock:
            self._progress.refusal = ""
            self._progress.verdict = verdict
            self._progress.report = report
        if good:
            self.save()

    def save(self) -> str:
        """Write camera.json from the latest accepted result (good or not: the user's choice)."""
        with self._lock:
            report = self._progress.report
        if report is None:
            raise CalibrationRefused("no calibration to save yet: keep moving the board")
        try:
            where = self._save(report)
        except OSError as exc:
            with self._lock:
                self._progress.save_error = f"cannot write camera.json: {exc}"
            raise
        with self._lock:
            self._progress.saved = where
            self._progress.save_error = ""
        return where


class CalibrationWorker:
    """Feeds the newest frames to a `LiveCalibrator` in its own thread, while `active()` says so."""

    def __init__(self, calibrator: LiveCalibrator, next_frame: Callable[[int, float], tuple[int, Frame | None]],
                 active: Callable[[], bool]) -> None:
        self.calibrator = calibrator
        self._next = next_frame
        self._active = active
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="campo-calibrate", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        serial = 0
        while not self._stop.is_set():
            if not self._active():
                self._stop.wait(0.2)
                continue
            serial, frame = self._next(serial, 0.5)
            if frame is not None:
                self.calibrator.offer(frame)
            else:
                time.sleep(0.01)
