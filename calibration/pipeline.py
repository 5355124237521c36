"""The single per-frame entry: image in, table location and base poses out.

`FramePipeline.process(image, t)` is what the live server calls for each camera frame and what
`campo detect` calls (through `analyse_image`) for each still: detect markers, locate the table,
turn markers into base poses, filter them over time. Once the table is located, only windows
around the markers of the previous frame are searched, with a full scan every
`full_scan_every` frames (new bases) and whenever the anchors are lost (a bumped camera).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from calibration.poses import PoseReport, base_poses
from calibration.registration import TableLocation, locate_table
from calibration.tracking import TrackedBase, Tracker, TrackerSettings
from vision.camera_model import Intrinsics
from vision.detection import Detection, DetectorSettings, MarkerDetector, Window, to_gray
from vision.detection.detector import small_marker_settings
from vision.errors import CampoInputError
from vision.tabletop import Roster, TableConfig

CAMERA_MOVED_PX = 1.5
"""Anchors that moved further than this in the image mean the camera moved: search everywhere."""

SMALL_SIDE_PX = 15.0
"""Markers smaller than this (in the image) are hard to find at full size: upsample the search."""

TARGET_SIDE_PX = 26.0
"""... to about this size."""


@dataclass(frozen=True)
class FrameResult:
    """What one frame says: markers, table location, measured and tracked base poses."""

    t: float
    detections: list[Detection]
    location: TableLocation
    report: PoseReport
    tracked: list[TrackedBase]
    full_scan: bool
    timings_ms: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_json(self, image: str) -> dict[str, Any]:
        """The `campo detect --json` object for this frame (measured poses, not filtered)."""
        loc = self.location
        return {
            "image": image,
            "table_located": loc.located,
            "anchors_seen": loc.anchors_seen,
            "bases": [b.to_json() for b in self.report.bases],
            "unknown_markers": self.report.unknown_markers,
            "duplicate_markers": self.report.duplicate_markers,
            "method": loc.method,
            "reprojection_error_px": None if loc.reprojection_error_px is None else round(loc.reprojection_error_px, 3),
            "warnings": self.warnings,
        }


def fit_intrinsics(intrinsics: Intrinsics | None, width: int, height: int, source: str = "") -> Intrinsics | None:
    """Intrinsics for an image of this size: the same, or scaled for a camera in another mode."""
    if intrinsics is None or intrinsics.image_size == (width, height):
        return intrinsics
    cw, ch = intrinsics.image_size
    if abs(cw / ch - width / height) > 0.01:
        raise CampoInputError(
            f"image is {width}x{height} but the camera was calibrated at {cw}x{ch} (another aspect ratio)",
            path=source or None)
    return intrinsics.scaled(width, height)


class FramePipeline:
    """Detection, registration, poses and tracking for one camera looking at one table."""

    def __init__(
        self,
        table: TableConfig,
        roster: Roster,
        intrinsics: Intrinsics | None,
        *,
        detector_settings: DetectorSettings | None = None,
        tracker_settings: TrackerSettings | None = None,
        full_scan_every: int = 30,
        lost_search_every: int = 3,
        use_windows: bool = True,
    ) -> None:
        self.table = table
        self.roster = roster
        self.intrinsics = intrinsics
        settings = detector_settings or DetectorSettings()
        if not settings.expected_ids:  # read faint markers from templates, but only ours
            settings = replace(settings, expected_ids=frozenset(table.anchor_ids | set(roster.by_marker())))
        self.base_settings = settings
        self.detector = MarkerDetector(table.table.dictionary, self.base_settings)
        self.tracker = Tracker(tracker_settings)
        self.full_scan_every = full_scan_every
        self.lost_search_every = lost_search_every  # look around markers that were lost, every n frames
        self.use_windows = use_windows
        self._frames_since_scan = 0
        self._located = False
        self._upsample: float | None = None  # chosen once the table is located
        self._scaled = self.detector  # the detector used once the scale is known
        self._table_roi: Window | None = None  # where the table is in the image
        self._last_unknown: set[int] = set()  # what the last full scan saw besides our bases
        self._last_duplicates: set[int] = set()
        self._moved = False

    # -- detection strategy -------------------------------------------------------------------

    def _smallest_marker_px(self, location: TableLocation, intr: Intrinsics | None, width: int, height: int) -> float:
        """Side in pixels of the smallest roster marker at the table's far corners (worst case)."""
        size = min(b.marker_size_mm for b in self.roster.bases)
        z = max(b.height_mm for b in self.roster.bases) if location.method == "pnp" else 0.0
        tw, td = self.table.table.width_mm, self.table.table.depth_mm
        sides = []
        for x, y in [(0.1 * tw, 0.1 * td), (0.9 * tw, 0.1 * td), (0.1 * tw, 0.9 * td), (0.9 * tw, 0.9 * td), (tw / 2, td / 2)]:
            pts = np.array([[x, y, z], [x + size, y, z], [x, y + size, z]])
            px = location.project(pts, intr)
            sides.append(min(np.linalg.norm(px[1] - px[0]), np.linalg.norm(px[2] - px[0])))
        return float(min(sides))

    def _choose_scale(self, side_px: float) -> None:
        """Pick the upsampling that makes the smallest marker about `TARGET_SIDE_PX` wide."""
        if self.base_settings.upsample != 1.0:
            self._upsample = self.base_settings.upsample  # fixed by the caller
            return
        up = 1.0 if side_px >= SMALL_SIDE_PX else float(np.clip(np.ceil(2 * TARGET_SIDE_PX / max(side_px, 1.0)) / 2, 1.0, 4.0))
        self._upsample = up
        if up > 1.0:
            sizes = [b.marker_size_mm for b in self.roster.bases]
            settings = small_marker_settings(self.base_settings, up, 0.7 * side_px,
                                             2.0 * side_px * max(sizes) / min(sizes))
            self._scaled = MarkerDetector(self.table.table.dictionary, settings)

    def _table_window(self, location: TableLocation, intr: Intrinsics | None, width: int, height: int) -> Window | None:
        """The part of the image the table covers (plus a margin): full scans need look nowhere else."""
        t = self.table.table
        z = max(b.height_mm for b in self.roster.bases) if location.method == "pnp" else 0.0
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

    def _camera_moved(self, dets: list[Detection]) -> bool:
        """Whether the anchors moved in the image since the last frame (the camera was bumped)."""
        before = {d.marker_id: d for d in self.tracker.last_detections() if d.marker_id in self.table.anchor_ids}
        shifts = [np.linalg.norm(d.centre_px - before[d.marker_id].centre_px)
                  for d in dets if d.marker_id in before]
        return not shifts or float(np.median(shifts)) > CAMERA_MOVED_PX

    # -- one frame ----------------------------------------------------------------------------

    def process(self, image: np.ndarray, t: float = 0.0, source: str = "") -> FrameResult:
        """Analyse one frame taken at `t` seconds (BGR or grey)."""
        t0 = time.perf_counter()
        gray = to_gray(image)
        height, width = gray.shape[:2]
        intr = fit_intrinsics(self.intrinsics, width, height, source)
        timings: dict[str, float] = {}
        detector = self._scaled
        full = not (self.use_windows and self._located) or self._frames_since_scan >= self.full_scan_every
        self._moved = False
        location = TableLocation.not_located("not searched")
        dets: list[Detection] = []
        if not full:
            dets, lost = detector.track(gray, self.tracker.last_detections())
            lost_anchor = any(d.marker_id in self.table.anchor_ids for d in lost)
            if lost and (lost_anchor or self._frames_since_scan % self.lost_search_every == 0):
                windows = self.tracker.search_windows(markers={d.marker_id for d in lost})
                dets = _merge(dets, detector.detect(gray, windows))
            location = locate_table(dets, self.table, intr)
            self._moved = location.located and self._camera_moved(dets)
            if not location.located or self._moved:
                # anchors covered or the camera bumped: old image positions mean nothing, look everywhere
                full = True
                self.tracker.forget_pixels()
        if full:
            # a full scan: of the table's part of the image when the camera has not moved
            roi = [self._table_roi] if (self._table_roi and self._located and not self._moved) else None
            dets = detector.detect(gray, roi)
            if detector is not self.detector:  # upsampled: the full-size scan still finds some it misses
                dets = _merge(dets, self.detector.detect(gray, roi))
            location = locate_table(dets, self.table, intr)
        if location.located and self._upsample is None:
            # First lock: now the marker scale is known, read small markers from upsampled images.
            self._choose_scale(self._smallest_marker_px(location, intr, width, height))
            if self._scaled is not self.detector:
                roi = self._table_window(location, intr, width, height)
                dets = _merge(self._scaled.detect(gray, [roi] if roi else None), dets)
                location = locate_table(dets, self.table, intr)
        timings["detect_ms"] = (time.perf_counter() - t0) * 1000
        t1 = time.perf_counter()
        report = base_poses(dets, location, self.roster, intr, self.table)
        if full:
            self._last_unknown, self._last_duplicates = set(report.unknown_markers), set(report.duplicate_markers)
        else:
            # Windows and tracking only look at known markers: keep what the last full scan saw.
            report = _with_remembered(report, self._last_unknown, self._last_duplicates)
        if location.located:
            tracked = self.tracker.update(t, report.bases)
            kept = {b.marker for b in report.bases} | set(location.anchors_used)
            self.tracker.remember_pixels([d for d in dets if d.marker_id in kept])
        else:
            tracked = self.tracker.bases(set())
            self.tracker.forget_pixels()
        self._located = location.located
        if location.located and full:
            self._table_roi = self._table_window(location, intr, width, height)
        self._frames_since_scan = 0 if full else self._frames_since_scan + 1
        timings["poses_ms"] = (time.perf_counter() - t1) * 1000
        timings["total_ms"] = (time.perf_counter() - t0) * 1000
        warnings = [w for w in [location.warning] if w]
        if not location.located:
            warnings.append(f"table not located: {location.reason}")
        for marker, why in sorted(report.rejected.items()):
            warnings.append(f"marker {marker} ignored: {why}")
        if report.duplicate_markers:
            warnings.append(f"markers seen more than once (no pose given): {report.duplicate_markers}")
        return FrameResult(t, dets, location, report, tracked, full, timings, warnings)


def _with_remembered(report: PoseReport, unknown: set[int], duplicates: set[int]) -> PoseReport:
    """`report` plus the unknown and duplicated ids of the last full scan (never a duplicate's pose)."""
    dup = duplicates | set(report.duplicate_markers)
    return PoseReport([b for b in report.bases if b.marker not in dup],
                      sorted(unknown | set(report.unknown_markers)), sorted(dup), report.rejected)


def _merge(first: list[Detection], second: list[Detection]) -> list[Detection]:
    """Detections of two searches of one image: a marker read by both is kept once (the first).

    A marker read from its template where another marker was read by its bits is dropped: two
    markers (with their quiet zones) cannot be that close, so it is a misread.
    """
    if not first or not second:
        return list(first) + list(second)
    fc = np.array([d.centre_px for d in first])
    fs = np.array([d.side_px for d in first])
    fid = np.array([d.marker_id for d in first])
    ftemplate = np.array([d.refined.endswith("template") for d in first])
    dropped = np.zeros(len(first), bool)
    added = []
    for d in second:
        dist = np.linalg.norm(fc - d.centre_px, axis=1)
        near = dist < 1.3 * np.maximum(fs, d.side_px)
        if np.any(near & (fid == d.marker_id)):
            continue
        is_template = d.refined.endswith("template")
        if is_template and np.any(near):
            continue
        if not is_template:
            dropped |= near & ftemplate
        added.append(d)
    return [d for d, gone in zip(first, dropped) if not gone] + added


def analyse_image(
    image: np.ndarray,
    table: TableConfig,
    roster: Roster,
    intrinsics: Intrinsics | None,
    *,
    source: str = "",
    detector_settings: DetectorSettings | None = None,
) -> FrameResult:
    """One still image, on its own (no tracking history)."""
    return FramePipeline(table, roster, intrinsics, detector_settings=detector_settings).process(image, 0.0, source)


__all__ = ["FramePipeline", "FrameResult", "analyse_image", "fit_intrinsics"]
