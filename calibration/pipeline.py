"""The single per-frame entry: image in, table location and base poses out.

`FramePipeline.process(image, t)` is what the live server calls for each camera frame and what
`campo detect` calls (through `analyse_image`) for each still: detect markers, locate the table,
turn markers into base poses, filter them over time. Once the table is located, markers are
followed from where their image velocity puts them, lost ones are searched in windows that grow
with the time since they were seen, with a full scan every `full_scan_every` frames or
`full_scan_every_s` seconds, whichever comes first (new bases; while tracking holds it starts
from the markers followed into the frame: `TableScanner.rescan`),
whenever the anchors are lost (a bumped camera) and when the lost windows would cover much of the
table. How a full scan searches (anchors first in the halved frame, then the markers, cheapest
first) is `calibration/table_scan.py`; this module decides when to scan and when to track.
In dim light, when single frames are not enough, markers are read from the average of the still
frames (the live frame wherever anything moved; `calibration/integration.py`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from campo.calibration.change_watch import ChangeWatcher
from campo.calibration.detection_merge import merge_detections, new_reads
from campo.calibration.detector_variants import DIM_FRAME_BLUR_PX, DIM_STAGE_CONSTANT, dimmed
from campo.calibration.integration import FrameIntegrator, agrees_with_live
from campo.calibration.poses import PoseReport, base_box_mm, base_poses
from campo.calibration.registration import TableLocation, locate_table
from campo.calibration.table_in_image import table_window
from campo.calibration.table_scan import TableScanner, expected_ids_settings
from campo.calibration.tokens import TokenReport, read_tokens
from campo.calibration.tracking import TrackedBase, Tracker, TrackerSettings
from campo.vision.camera_model import Intrinsics
from campo.vision.detection import Detection, DetectorSettings, MarkerDetector, Window, merge_windows, to_gray
from campo.errors import CampoInputError
from campo.vision.tabletop import Roster, TableConfig

CAMERA_MOVED_PX = 1.5
"""Anchors that moved further than this in the image mean the camera moved: search everywhere."""

LOST_SEARCH_INTERVAL_S = 0.1
"""Lost markers are searched for every `lost_search_every` frames, and at least this often (s):
at 2 frames per second every frame."""

LOST_REGION_FULL_SCAN = 0.4
"""When the windows around lost markers cover more than this share of the table, scan it all."""

INTEGRATED_SCAN_DEPTHS = (4, 8)
"""In dim light, with markers unread, the table is scanned again once the still pixels are
averaged over this many frames (noise halved, then down by 2.8): new markers are found only in
full scans."""

STILL_SEARCH_SIDES = 2.0
"""In dim light, a lost marker whose pixels did not change is searched this many sides around it."""

TOKEN_SCAN_EVERY_S = 1.0
"""With status tokens on the roster, the table is scanned at least this often (s): a token laid
down is a new marker, which only a full scan finds (a base's markers are followed)."""

MOVING_PX_PER_S, MOVING_BACK_S, MOVING_SIDES = 5.0, 0.5, 2.0
"""A base whose marker moves faster than this (image px/s) is being carried: changes from where
it was this long ago to where it is, within this many of its marker's sides, are its own."""

TOKEN_FORGET_S = 1.0
"""A token unread for this long is no longer followed in a growing window (it was most likely
lifted); full scans find it again if it was only covered."""


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
    tokens: TokenReport = field(default_factory=TokenReport)  # the status tokens read in this frame

    def to_json(self, image: str) -> dict[str, Any]:
        """The `campo detect --json` object for this frame (measured poses, not filtered)."""
        loc = self.location
        return {
            "image": image,
            "table_located": loc.located,
            "anchors_seen": loc.anchors_seen,
            "bases": [b.to_json() for b in self.report.bases],
            "tokens": [t.to_json() for t in self.tokens.tokens],
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
        full_scan_every_s: float = 5.0,
        lost_search_every: int = 3,
        use_windows: bool = True,
        integrate_frames: int = 8,
        small_side_px: float | None = None,
    ) -> None:
        self.table = table
        self.roster = roster
        self.intrinsics = intrinsics
        self.base_settings = expected_ids_settings(detector_settings or DetectorSettings(), table, roster)
        self.detector = MarkerDetector(table.table.dictionary, self.base_settings)
        # how full scans search (and the scale, light); `small_side_px`: see TableScanner
        self.scanner = TableScanner(table, roster, self.detector, *(() if small_side_px is None else (small_side_px,)))
        self.tracker = Tracker(tracker_settings)
        self.full_scan_every = full_scan_every
        # at 2 fps, 30 frames would be 15 s for a new base; tokens are laid down more often
        self.full_scan_every_s = min(full_scan_every_s, TOKEN_SCAN_EVERY_S) if roster.tokens else full_scan_every_s
        self._last_full_t = float("-inf")
        self.lost_search_every = lost_search_every  # look around markers that were lost, every n frames
        self.use_windows = use_windows
        self._frames_since_scan = 0
        self._located = False
        self._table_roi: Window | None = None  # where the table is in the image
        self._last_unknown: set[int] = set()  # what the last full scan saw besides our bases
        self._last_duplicates: set[int] = set()
        self._moved = False
        self._lost_search_t = float("-inf")  # when windows were last searched for lost markers
        # in dim light, still pixels are averaged over up to `integrate_frames` frames (1 = never)
        self._integrator = FrameIntegrator(integrate_frames) if integrate_frames > 1 else None
        self._integrated_scans: set[int] = set()  # integration depths already given a full scan
        self._was_missing = False  # whether the last frame left expected markers unread
        self._complete_frames = 0  # frames in a row that read every expected marker
        # with status tokens on the roster: where something was laid down, searched at once
        self._watch = ChangeWatcher() if roster.tokens else None
        self._location: TableLocation | None = None  # the table as last located

    @property
    def location(self) -> TableLocation | None:
        """The table as last located (None until it is, and while it is not)."""
        return self._location

    def _camera_moved(self, dets: list[Detection]) -> bool:
        """Whether the anchors moved in the image since the last frame (the camera was bumped)."""
        before = {d.marker_id: d for d in self.tracker.last_detections() if d.marker_id in self.table.anchor_ids}
        shifts = [np.linalg.norm(d.centre_px - before[d.marker_id].centre_px)
                  for d in dets if d.marker_id in before]
        return not shifts or float(np.median(shifts)) > CAMERA_MOVED_PX

    def _anchor_scan(self, gray: np.ndarray, roi: list[Window] | None, intr: Intrinsics | None,
                     width: int, height: int) -> tuple[list[Detection], TableLocation]:
        """`TableScanner.anchor_scan` (kept here for tests that check it on a pipeline)."""
        return self.scanner.anchor_scan(gray, roi, intr, width, height)

    # -- dim light: integrating still frames --------------------------------------------------

    def _integrate(self, live: np.ndarray) -> tuple[np.ndarray, int]:
        """The image to read markers from, and over how many frames its still pixels are averaged.

        Only in dim light once the table is located, and only when single frames are not enough
        (markers under `SMALL_SIDE_PX`, or some unread): in good light, or at 4K, one frame reads
        everything and the average costs ~14 ms per 1080p frame. Otherwise the live frame, and
        the average restarts.
        """
        if self._integrator is None:
            return live, 1
        # (kept on while markers were missing within the last `depth` frames: what only the
        # average reads would otherwise be lost again at once)
        recent = self._integrator.frames > 0 and self._complete_frames < self._integrator.depth
        needed = self.scanner.small_stage is not None or self._was_missing or recent
        if not (self.scanner.dim and self._located and needed):
            self._integrator.reset()
            self._integrated_scans.clear()
            return live, 1
        integrated = self._integrator.add(live)
        depth = self._integrator.frames
        if depth <= 1:
            self._integrated_scans.clear()
            return live, 1
        return integrated, depth

    def _still(self, lost: list[Detection]) -> list[Detection]:
        """The lost markers whose pixels have not changed since they were last seen (integrated)."""
        integ = self._integrator
        if integ is None:
            return []
        return [d for d in lost if integ.depth_at(d.corners_px) >= 2]

    def _live_only(self, live: np.ndarray, gray: np.ndarray, dets: list[Detection]) -> list[Detection]:
        """`dets` read from the integrated `gray`, less any the live frame does not show (ghosts)."""
        if gray is live or not dets or self._integrator is None:
            return dets
        ok = agrees_with_live(live, gray, dets, self.detector.cells, self._integrator.noise_sigma)
        return [d for d, good in zip(dets, ok) if good]

    # -- one frame ----------------------------------------------------------------------------

    def process(self, image: np.ndarray, t: float = 0.0, source: str = "") -> FrameResult:
        """Analyse one frame taken at `t` seconds (BGR or grey)."""
        t0 = time.perf_counter()
        live = to_gray(image)
        height, width = live.shape[:2]
        intr = fit_intrinsics(self.intrinsics, width, height, source)
        timings: dict[str, float] = {}
        # In dim light with the table located, read from the average of the still frames (the live
        # frame wherever anything moved: see calibration/integration.py).
        gray, depth = self._integrate(live)
        detector = dimmed(self.scanner.tracking_detector) if self.scanner.dim else self.scanner.tracking_detector
        periodic = (self.use_windows and self._located and (self._frames_since_scan >= self.full_scan_every
                                                             or t - self._last_full_t >= self.full_scan_every_s))
        full = not (self.use_windows and self._located) or periodic
        # the periodic scan of a live frame starts from the markers followed into it (`rescan`)
        rescan = periodic and gray is live
        if not full and self._was_missing and depth in INTEGRATED_SCAN_DEPTHS and depth not in self._integrated_scans:
            # markers still unread and the noise halved again since the last look: scan the table
            self._integrated_scans.add(depth)
            full = True
        self._moved = False
        location = TableLocation.not_located("not searched")
        dets: list[Detection] = []
        rescanned = False  # whether the table was scanned from the markers followed (`rescan`)
        if not full or rescan:
            # follow every marker from where its image velocity puts it now (not where it was:
            # at 2 frames per second a base being moved is several marker widths further on)
            dets, lost = detector.track(gray, self.tracker.predicted_detections(t))
            dets = self._live_only(live, gray, dets)
            lost_anchor = any(d.marker_id in self.table.anchor_ids for d in lost)
            due = (self._frames_since_scan % self.lost_search_every == 0
                   or t - self._lost_search_t >= LOST_SEARCH_INTERVAL_S)
            full = False  # (a rescan's full search comes once the followed anchors locate the table)
            if lost and (lost_anchor or due) and not rescan:
                self._lost_search_t = t
                still = self._still(lost) if gray is not live else []
                # markers lost where nothing moved are still there, unread in the noise: look just there
                windows = [Window.around(d.corners_px, STILL_SEARCH_SIDES * d.side_px) for d in still]
                moving = {d.marker_id for d in lost} - {d.marker_id for d in still}
                if moving:
                    windows += self.tracker.search_windows(markers=moving, t=t)
                windows = merge_windows(windows)
                roi = self._table_roi or Window(0, 0, width, height)
                if sum(w.clipped(width, height).area for w in windows) > LOST_REGION_FULL_SCAN * roi.area:
                    full = True  # lost all over the table: one full scan is cheaper than many windows
                    self._moved = lost_anchor  # anchors lost too: the camera may have moved, search everywhere
                else:
                    dets = merge_detections(dets, self._search(detector, live, gray, windows, dets))
            if not full and not rescan and self._watch is not None:
                full = self._search_settled(live, gray, intr, detector, dets, width, height)
            if not full:
                location = locate_table(dets, self.table, intr)
                self._moved = location.located and self._camera_moved(dets)
                if not location.located or self._moved:
                    # anchors covered or the camera bumped: old image positions mean nothing, look everywhere
                    full = True
                    self.tracker.forget_pixels()
                    if self._integrator is not None and gray is not live:
                        self._integrator.reset()
                        gray = live
                elif rescan:
                    roi = [self._table_roi] if self._table_roi else None
                    dets, location = self.scanner.rescan(gray, roi, intr, width, height, dets, location)
                    full = rescanned = True
        if full and not rescanned:
            # a full scan: of the table's part of the image when the camera has not moved
            roi = [self._table_roi] if (self._table_roi and self._located and not self._moved) else None
            dets, location = self.scanner.full_scan(gray, roi, intr, width, height)
            if gray is not live and location.located and not self._camera_moved(dets):
                # still markers read in earlier frames but not by this scan: follow them too
                read = {d.marker_id for d in dets}
                known = [d for d in self.tracker.predicted_detections(t) if d.marker_id not in read]
                if known:
                    dets = merge_detections(dets, detector.track(gray, known)[0])
            if gray is not live:
                kept = self._live_only(live, gray, dets)
                if len(kept) < len(dets):
                    dets = kept
                    location = locate_table(dets, self.table, intr)
            if location.located and self.tracker.last_detections() and self._camera_moved(dets):
                self.tracker.forget_pixels()  # (velocities across a camera move would be nonsense)
                if self._integrator is not None:
                    self._integrator.reset()
        if full and self._watch is not None:
            self._watch.reset(live)
        self._was_missing = self.scanner.missing(dets)
        self._complete_frames = 0 if self._was_missing else self._complete_frames + 1
        timings["detect_ms"] = (time.perf_counter() - t0) * 1000
        t1 = time.perf_counter()
        report = base_poses(dets, location, self.roster, intr, self.table)
        if full:
            self._last_unknown, self._last_duplicates = set(report.unknown_markers), set(report.duplicate_markers)
        else:
            # Windows and tracking only look at known markers: keep what the last full scan saw.
            report = _with_remembered(report, self._last_unknown, self._last_duplicates)
        tokens = read_tokens(dets, location, self.roster, intr)
        if location.located:
            tracked = self.tracker.update(t, report.bases)
            anchors = set(location.anchors_used)
            posed = list(report.readings.values()) + list(tokens.readings.values()) + \
                [d for d in dets if d.marker_id in anchors]
            self.tracker.remember_pixels(posed, t)
            self._forget_lifted_tokens(t)
        else:
            tracked = self.tracker.bases(set())
            self.tracker.forget_pixels()
        self._located = location.located
        self._location = location if location.located else None
        if not location.located and self._integrator is not None:
            self._integrator.reset()
        elif self._integrator is not None and self._integrator.frames == 0 and full:
            self._integrate(live)  # this scan found dim light: this frame is the average's first
        if location.located and full:
            self._table_roi = table_window(self.table, self.roster, location, intr, width, height)
        self._frames_since_scan = 0 if full else self._frames_since_scan + 1
        if full:
            self._last_full_t = t
        timings["poses_ms"] = (time.perf_counter() - t1) * 1000
        timings["total_ms"] = (time.perf_counter() - t0) * 1000
        warnings = [w for w in [location.warning] if w]
        if not location.located:
            warnings.append(f"table not located: {location.reason}")
        for marker, why in sorted(report.rejected.items()):
            warnings.append(f"marker {marker} ignored: {why}")
        if report.duplicate_markers:
            warnings.append(f"markers seen more than once (no pose given): {report.duplicate_markers}")
        for marker, why in sorted(tokens.rejected.items()):
            warnings.append(f"token marker {marker} ignored: {why}")
        if tokens.duplicates:
            warnings.append(f"token markers seen more than once (not placed): {tokens.duplicates}")
        return FrameResult(t, dets, location, report, tracked, full, timings, warnings, tokens)

    def _covered(self, live: np.ndarray, intr: Intrinsics | None) -> np.ndarray | None:
        """Where a change is a base's own: each base's box where it was last seen, and around
        the bases being carried (`ChangeWatcher.covered`)."""
        assert self._watch is not None
        if self._location is None:
            return None
        sizes = self.roster.by_id()
        boxes = []
        for b in self.tracker.bases():
            entry = sizes[b.id]
            boxes.append(base_box_mm(b.x_mm, b.y_mm, b.heading_deg, entry.width_mm, entry.depth_mm, entry.height_mm))
        if not boxes:
            return None
        try:
            px = self._location.project(np.concatenate(boxes), intr).reshape(len(boxes), 8, 2)
        except ValueError:   # a pnp location whose intrinsics are gone: nothing is the bases' own
            return None
        moving = self.tracker.moving_windows(MOVING_PX_PER_S, MOVING_BACK_S, MOVING_SIDES)
        return self._watch.covered(live, list(px), moving)

    def _search_settled(self, live: np.ndarray, gray: np.ndarray, intr: Intrinsics | None,
                        detector: MarkerDetector, dets: list[Detection], width: int, height: int) -> bool:
        """Search where something was laid down since the last frame (`ChangeWatcher`), adding
        what is read to ``dets`` in place; True when so much changed that a full scan is due."""
        assert self._watch is not None
        windows = self._watch.settled(live, self._covered(live, intr))
        if not windows:
            return False
        roi = self._table_roi or Window(0, 0, width, height)
        if sum(w.area for w in windows) > LOST_REGION_FULL_SCAN * roi.area:
            return True
        dets[:] = merge_detections(dets, self._search(detector, live, gray, windows, dets))
        return False

    def _search(self, detector: MarkerDetector, live: np.ndarray, gray: np.ndarray, windows: list[Window],
                dets: list[Detection]) -> list[Detection]:
        """The markers in `windows` that `dets` does not hold already (`new_reads`), read by the
        scanner's window finder for `detector`."""
        finder = self.scanner.window_finder(detector)
        read, unread = finder.scan(gray, windows)
        return self._live_only(live, gray, finder.finish(gray, new_reads(read, dets), unread))

    def _forget_lifted_tokens(self, t: float) -> None:
        """Stop following tokens unread for `TOKEN_FORGET_S` (see there)."""
        gone = {m for m in self.roster.tokens_by_marker()
                if (seen := self.tracker.seen_at(m)) is not None and t - seen > TOKEN_FORGET_S}
        if gone:
            self.tracker.forget_markers(gone)


def _with_remembered(report: PoseReport, unknown: set[int], duplicates: set[int]) -> PoseReport:
    """`report` plus the unknown and duplicated ids of the last full scan (never a duplicate's pose)."""
    dup = duplicates | set(report.duplicate_markers)
    return PoseReport([b for b in report.bases if b.marker not in dup],
                      sorted(unknown | set(report.unknown_markers)), sorted(dup), report.rejected,
                      {m: d for m, d in report.readings.items() if m not in dup})


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


# DIM_FRAME_BLUR_PX and DIM_STAGE_CONSTANT live in calibration/detector_variants.py; re-exported
# because tests import them from here.
__all__ = ["DIM_FRAME_BLUR_PX", "DIM_STAGE_CONSTANT", "FramePipeline", "FrameResult", "analyse_image",
           "fit_intrinsics"]
