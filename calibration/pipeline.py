"""The single per-frame entry: image in, table location and base poses out.

`FramePipeline.process(image, t)` is what the live server calls for each camera frame and what
`campo detect` calls (through `analyse_image`) for each still: detect markers, locate the table,
turn markers into base poses, filter them over time. Once the table is located, markers are
followed from where their image velocity puts them, lost ones are searched in windows that grow
with the time since they were seen, with a full scan every `full_scan_every` frames or
`full_scan_every_s` seconds, whichever comes first (new bases),
whenever the anchors are lost (a bumped camera) and when the lost windows would cover much of the
table. Full scans find the anchors first in the halved frame, then run cheapest first and stop
once every expected marker is read (`_full_scan`).
In dim light, when single frames are not enough, markers are read from the average of the still
frames (the live frame wherever anything moved; `calibration/integration.py`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from calibration.integration import FrameIntegrator, agrees_with_live
from calibration.poses import PoseReport, base_poses
from calibration.registration import TableLocation, locate_table
from calibration.tracking import TrackedBase, Tracker, TrackerSettings
from vision.camera_model import Intrinsics
from vision.detection import Detection, DetectorSettings, MarkerDetector, Window, merge_windows, to_gray
from vision.detection.bits import read_cells
from vision.detection.detector import small_marker_settings
from vision.detection.regions import marker_windows
from vision.errors import CampoInputError
from vision.tabletop import Roster, TableConfig

CAMERA_MOVED_PX = 1.5
"""Anchors that moved further than this in the image mean the camera moved: search everywhere."""

ANCHOR_SCAN_SIDE_PX = 1000
"""Full scans look for the anchors first in the frame halved until its longer side is at most this
(anchors are the table's largest markers): a few ms, and then the scale of the markers, where
the table is and the light are known before the costly stages run."""

ANCHOR_MIN_SIDE_PX = 12.0
"""... reading squares of at least this side in the halved frame (smaller squares are most of
the candidates and the cost); smaller anchors are left to the full-size stages, which run as
before when the anchor scan does not locate the table."""

ANCHOR_SCAN_WINDOWS = (13, 23)
"""... with these adaptive-threshold windows (halved pixels), one at a time until the table is
located: the first alone reads 3 or 4 of the 4 anchors at 1080p and 4K, in typical and dim
light and from a bumped camera (bench/vision_accuracy.py frames); anchors it misses are read
by the stages after it."""

TYPICAL_LIGHT_FINDER = "contours"
DIM_LIGHT_FINDER = "aruco"
"""Who proposes candidate squares (vision/detection/quads.py): in typical light contours and
vectorised bit reading, about half of ArucoDetector's time (1080p: 7 against 13 ms); in dim light sensor noise makes
hundreds of thousands of specks whose contours cost more in Python than ArucoDetector, which
keeps them in C++. The anchor scan (halved frames, less noise) always uses contours."""

TYPICAL_LIGHT_CONSTANT = 0.055
"""In typical light the full-size stages threshold at this share of the anchors' black-to-white
step below the local mean (at least the configured constant, 7): the cloth's texture then makes
a third fewer contours (1080p 120 x 80 cm: 8.3 -> 5.7 ms for contours and squares; 4K: 27 ->
23 ms), and every marker is still read (bench/vision_accuracy.py)."""

CONTOUR_EDGE_FIT_REACH = 0.8
"""Squares proposed by contours start within about half a pixel of the edges (grown to undo the
threshold's inset, quads.py), so one edge-fitting pass reaching 0.8 cell fits them as well as
two passes from ArucoDetector's corners (1080p 120x80 cm: 0.029 px median centre error, 4K:
0.019 px, against 0.028 and 0.018) at half the cost."""

SMALL_SIDE_PX = 15.0
"""Markers smaller than this (in the image) are hard to find at full size: upsample the search."""

TARGET_SIDE_PX = 26.0
"""... to about this size."""

LOST_SEARCH_INTERVAL_S = 0.1
"""Lost markers are searched for every `lost_search_every` frames, and at least this often (s):
at 2 frames per second every frame."""

LOST_REGION_FULL_SCAN = 0.4
"""When the windows around lost markers cover more than this share of the table, scan it all."""

SMALL_STAGE_UPSAMPLE = 2.0
"""Full scans upsample small markers this much (candidate squares for all, at a third of 2.5x's cost)."""

SMALL_STAGE_WINDOW = 0.35
"""... with one adaptive-threshold window of this many upsampled marker sides."""

INTEGRATED_SCAN_DEPTHS = (4, 8)
"""In dim light, with markers unread, the table is scanned again once the still pixels are
averaged over this many frames (noise halved, then down by 2.8): new markers are found only in
full scans."""

STILL_SEARCH_SIDES = 2.0
"""In dim light, a lost marker whose pixels did not change is searched this many sides around it."""

DIM_CONTRAST = 120.0
"""Anchors with less contrast than this (grey levels, border to quiet zone) mean dim light
(typical light gives about 180 on the synthetic camera, an evening lamp about 85) ..."""

DIM_STAGE_WINDOW = 0.6
DIM_STAGE_CONSTANT = 3.0
"""... and small markers are then searched with a wider threshold window and a lower constant ..."""

DIM_FRAME_BLUR_PX = 1.5
"""... and template readings' frames are checked against markers blurred this much (1.2 in good
light): dim frames are softer. At 1080p over 180 x 120 cm, from the true corners, 70 instead of
59 of 104 markers pass on a single dim frame (78 instead of 69 on 16 averaged ones), with no
wrong id; marker-free clutter, dim or not, still gives no marker (tests/test_vision_detection.py)."""


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
        full_scan_every_s: float = 5.0,
        lost_search_every: int = 3,
        use_windows: bool = True,
        integrate_frames: int = 8,
    ) -> None:
        self.table = table
        self.roster = roster
        self.intrinsics = intrinsics
        settings = detector_settings or DetectorSettings()
        if not settings.expected_ids:  # read faint markers from templates, but only ours
            settings = replace(settings, expected_ids=frozenset(table.anchor_ids | set(roster.by_marker())))
        self.base_settings = settings
        self.detector = MarkerDetector(table.table.dictionary, self.base_settings)
        # Full scans run one adaptive-threshold window at a time and stop once every expected
        # marker is read (see `_full_scan`): at 16-25 px one window reads nearly all of them.
        wins = list(range(settings.adaptive_win_min, settings.adaptive_win_max + 1, max(settings.adaptive_win_step, 1)))
        wins.insert(0, wins.pop(len(wins) // 2))  # the middle window first: it reads in dim light too
        self._stages = [self.detector.with_settings(replace(settings, adaptive_win_min=w, adaptive_win_max=w))
                        for w in wins]
        self._anchor_stages: dict[float, list[MarkerDetector]] = {}  # the anchor scan, by downsampling scale
        self._variants: dict[tuple[DetectorSettings, str, float], MarkerDetector] = {}  # see `_variant`
        self._small_stage: MarkerDetector | None = None  # the upsampled stage, for markers under SMALL_SIDE_PX
        self._small_stage_dim: MarkerDetector | None = None  # ... and its dim-light variant
        self._expected = frozenset(table.anchor_ids | set(roster.by_marker()))
        self._side_range: tuple[float, float] | None = None  # plausible marker sides (px) once located
        self.tracker = Tracker(tracker_settings)
        self.full_scan_every = full_scan_every
        self.full_scan_every_s = full_scan_every_s  # at 2 fps, 30 frames would be 15 s for a new base
        self._last_full_t = float("-inf")
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
        self._lost_search_t = float("-inf")  # when windows were last searched for lost markers
        self._dim = False  # whether the last full scan found the table in dim light
        # in dim light, still pixels are averaged over up to `integrate_frames` frames (1 = never)
        self._integrator = FrameIntegrator(integrate_frames) if integrate_frames > 1 else None
        self._integrated_scans: set[int] = set()  # integration depths already given a full scan
        self._was_missing = False  # whether the last frame left expected markers unread
        self._complete_frames = 0  # frames in a row that read every expected marker

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
        sizes = [b.marker_size_mm for b in self.roster.bases] + [a.size_mm for a in self.table.anchors]
        self._side_range = (0.7 * side_px, 2.0 * side_px * max(sizes) / min(sizes))
        if up == 1.0:
            # the full-size stages need not look at squares much smaller than any marker of ours
            # (most candidates are small clutter): a third of their time at 4K
            self._stages = [s.with_settings(replace(s.settings, min_side_px=max(s.settings.min_side_px, self._side_range[0])))
                            for s in self._stages]
        if up > 1.0:
            settings = small_marker_settings(self.base_settings, up, 0.7 * side_px, self._side_range[1])
            self._scaled = self.detector.with_settings(settings)
            # one threshold window of about a third of the upsampled marker: every candidate square
            # at 1080p over 180x120 cm (13 px markers, 2x), at half the cost of three windows
            w = int(round(SMALL_STAGE_WINDOW * side_px * SMALL_STAGE_UPSAMPLE)) | 1
            self._small_stage = self.detector.with_settings(replace(
                settings, upsample=SMALL_STAGE_UPSAMPLE, adaptive_win_min=w, adaptive_win_max=w))
            # in dim light a wider window and a lower constant: 85 instead of 18 of 104 squares
            w = int(round(DIM_STAGE_WINDOW * side_px * SMALL_STAGE_UPSAMPLE)) | 1
            self._small_stage_dim = self.detector.with_settings(replace(
                settings, upsample=SMALL_STAGE_UPSAMPLE, adaptive_win_min=w, adaptive_win_max=w,
                adaptive_constant=DIM_STAGE_CONSTANT, frame_blur_px=DIM_FRAME_BLUR_PX))

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

    def _missing(self, dets: list[Detection]) -> bool:
        return bool(self._expected - {d.marker_id for d in dets})

    def _full_scan(self, gray: np.ndarray, roi: list[Window] | None, intr: Intrinsics | None,
                   width: int, height: int) -> tuple[list[Detection], TableLocation]:
        """Search the whole table, cheapest stage first, stopping once every marker is read.

        First the anchors, in the halved frame (`_anchor_scan`): once they locate the table the
        marker scale and the light are known before any costly stage runs. Each stage is then
        one adaptive-threshold window (the middle one first: it reads nearly every marker of
        16 px or more, in dim light too, for a third of the cost of all three), searching only
        the table, for squares of our markers' sizes, proposed by contours in typical light
        (`TYPICAL_LIGHT_FINDER`); what it reads is refined and confirmed by its bits. Unread
        squares of a marker's size are read from templates, dim light skips the smallest window,
        and markers under `SMALL_SIDE_PX` get the upsampled stage (its dim-light variant in dim
        light), searched only in windows around places with marker black and quiet-zone white
        (vision/detection/regions.py), instead of more full-size windows. When the anchor scan
        does not locate the table, the full-size stages run on the whole frame, as before.
        """
        dets, location = self._anchor_scan(gray, roi, intr, width, height)
        where = roi
        order = list(self._stages)
        if location.located:
            where, order = self._on_located(gray, dets, location, intr, width, height, order)
        while order:
            stage = order.pop(0)
            read, unread = stage.scan(gray, where)
            known = {d.marker_id for d in dets}
            read = [r for r in read if r[0] not in known]
            if not location.located:
                # the anchors first: if the markers turn out small, the upsampled stage reads the rest
                anchors = self.table.anchor_ids
                dets = _merge(dets, stage.finish(gray, [r for r in read if r[0] in anchors], []))
                read = [r for r in read if r[0] not in anchors]
                location = locate_table(dets, self.table, intr)
                if location.located:
                    where, order = self._on_located(gray, dets, location, intr, width, height, order)
            if not (location.located and self._small_stage is not None and stage in self._stages):
                dets = _merge(dets, stage.finish(gray, read, []))
            if not location.located:
                continue
            small_next = bool(order) and order[0] in (self._small_stage, self._small_stage_dim)
            if self._missing(dets) and unread and self._side_range is not None and not small_next:
                # (full-size squares of markers too small to read are left to the upsampled stage)
                low, high = self._side_range
                sides = _sides(np.stack(unread))
                sized = [q for q, side in zip(unread, sides) if low <= side <= high]
                dets = _merge(dets, stage.finish(gray, [], sized))
            if not self._missing(dets):
                break
        if location.located:
            location = locate_table(dets, self.table, intr)
        return dets, location

    def _anchor_scan(self, gray: np.ndarray, roi: list[Window] | None, intr: Intrinsics | None,
                     width: int, height: int) -> tuple[list[Detection], TableLocation]:
        """The anchors read from the frame halved (`ANCHOR_SCAN_SIDE_PX`), refined at full size."""
        halvings = 0
        while max(width, height) / 2**halvings > ANCHOR_SCAN_SIDE_PX:
            halvings += 1
        scale = 0.5**halvings
        stages = self._anchor_stages.get(scale)
        if stages is None:
            stages = self._anchor_stages[scale] = [self.detector.with_settings(replace(
                self.base_settings, upsample=scale, min_side_px=ANCHOR_MIN_SIDE_PX / scale, expected_ids=frozenset(),
                adaptive_win_min=w, adaptive_win_max=w, finder=TYPICAL_LIGHT_FINDER)) for w in ANCHOR_SCAN_WINDOWS]
        anchors = self.table.anchor_ids
        dets: list[Detection] = []
        location = TableLocation.not_located("no anchors")
        # refined (one pass, as for every contour-proposed square: `CONTOUR_EDGE_FIT_REACH`) and
        # confirmed by the full-size detector, its template check included
        finisher = self._variant(self.detector, TYPICAL_LIGHT_FINDER, 0.0)
        for stage in stages:
            read, _ = stage.scan(gray, roi)
            known = {d.marker_id for d in dets}
            dets = _merge(dets, finisher.finish(gray, [r for r in read if r[0] in anchors and r[0] not in known], []))
            location = locate_table(dets, self.table, intr)
            if location.located:
                break
        return dets, location

    def _on_located(self, gray: np.ndarray, dets: list[Detection], location: TableLocation,
                    intr: Intrinsics | None, width: int, height: int,
                    order: list[MarkerDetector]) -> tuple[list[Window] | None, list[MarkerDetector]]:
        """Once the anchors locate the table: where to search and which stages are still to run.

        The marker scale is known now (chosen at the first lock), and the light from the anchors.
        """
        if self._upsample is None:
            self._choose_scale(self._smallest_marker_px(location, intr, width, height))
        # (the stages still to run, as sized for the markers by `_choose_scale`)
        wins = [s.settings.adaptive_win_min for s in order]
        order = [s for w in wins for s in self._stages if s.settings.adaptive_win_min == w]
        table_roi = self._table_window(location, intr, width, height)
        where = [table_roi] if table_roi else None
        black, white = _light_levels(gray, dets, self.table.anchor_ids, self.detector.cells)
        dim = self._dim = white - black < DIM_CONTRAST
        lit = bool(np.isfinite(white))  # (the levels are known: anchors were read)
        if self._small_stage is not None:
            order = [self._small_stage_dim if dim else self._small_stage]
            if self._side_range is not None and lit:
                # the upsampled search only where a marker can be (vision/detection/regions.py)
                region = table_roi or Window(0, 0, width, height)
                where = marker_windows(gray, region, black, white, self._side_range[0] / 0.7)
        elif dim:  # the smallest window reads nothing in dim light
            smallest = min(self._stages, key=lambda s: s.settings.adaptive_win_min)
            order = [_dimmed(s) for s in order if s.settings.adaptive_win_min != smallest.settings.adaptive_win_min]
        finder = DIM_LIGHT_FINDER if dim else TYPICAL_LIGHT_FINDER
        constant = float(round(TYPICAL_LIGHT_CONSTANT * (white - black))) if not dim and lit else 0.0
        return where, [self._variant(s, finder, constant if s.settings.upsample == 1.0 else 0.0) for s in order]

    def _variant(self, detector: MarkerDetector, finder: str, constant: float) -> MarkerDetector:
        """`detector` with `finder` and at least `constant` (`_with_finder`, `_with_constant`),
        made once: the light and the scale change rarely, and settings are costly to copy."""
        key = (detector.settings, finder, constant)
        found = self._variants.get(key)
        if found is None:
            found = self._variants[key] = _with_constant(_with_finder(detector, finder), constant)
        return found

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
        needed = self._small_stage is not None or self._was_missing or recent
        if not (self._dim and self._located and needed):
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
        detector = _dimmed(self._scaled) if self._dim else self._scaled
        full = (not (self.use_windows and self._located) or self._frames_since_scan >= self.full_scan_every
                or t - self._last_full_t >= self.full_scan_every_s)
        if not full and self._was_missing and depth in INTEGRATED_SCAN_DEPTHS and depth not in self._integrated_scans:
            # markers still unread and the noise halved again since the last look: scan the table
            self._integrated_scans.add(depth)
            full = True
        self._moved = False
        location = TableLocation.not_located("not searched")
        dets: list[Detection] = []
        if not full:
            # follow every marker from where its image velocity puts it now (not where it was:
            # at 2 frames per second a base being moved is several marker widths further on)
            dets, lost = detector.track(gray, self.tracker.predicted_detections(t))
            dets = self._live_only(live, gray, dets)
            lost_anchor = any(d.marker_id in self.table.anchor_ids for d in lost)
            due = (self._frames_since_scan % self.lost_search_every == 0
                   or t - self._lost_search_t >= LOST_SEARCH_INTERVAL_S)
            if lost and (lost_anchor or due):
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
                    finder = self._small_stage_dim if (self._dim and self._small_stage_dim is not None) else detector
                    dets = _merge(dets, self._live_only(live, gray, finder.detect(gray, windows)))
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
        if full:
            # a full scan: of the table's part of the image when the camera has not moved
            roi = [self._table_roi] if (self._table_roi and self._located and not self._moved) else None
            dets, location = self._full_scan(gray, roi, intr, width, height)
            if gray is not live and location.located and not self._camera_moved(dets):
                # still markers read in earlier frames but not by this scan: follow them too
                read = {d.marker_id for d in dets}
                known = [d for d in self.tracker.predicted_detections(t) if d.marker_id not in read]
                if known:
                    dets = _merge(dets, detector.track(gray, known)[0])
            if gray is not live:
                kept = self._live_only(live, gray, dets)
                if len(kept) < len(dets):
                    dets = kept
                    location = locate_table(dets, self.table, intr)
            if location.located and self.tracker.last_detections() and self._camera_moved(dets):
                self.tracker.forget_pixels()  # (velocities across a camera move would be nonsense)
                if self._integrator is not None:
                    self._integrator.reset()
        self._was_missing = self._missing(dets)
        self._complete_frames = 0 if self._was_missing else self._complete_frames + 1
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
            anchors = set(location.anchors_used)
            posed = list(report.readings.values()) + [d for d in dets if d.marker_id in anchors]
            self.tracker.remember_pixels(posed, t)
        else:
            tracked = self.tracker.bases(set())
            self.tracker.forget_pixels()
        self._located = location.located
        if not location.located and self._integrator is not None:
            self._integrator.reset()
        elif self._integrator is not None and self._integrator.frames == 0 and full:
            self._integrate(live)  # this scan found dim light: this frame is the average's first
        if location.located and full:
            self._table_roi = self._table_window(location, intr, width, height)
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
        return FrameResult(t, dets, location, report, tracked, full, timings, warnings)


def _dimmed(detector: MarkerDetector) -> MarkerDetector:
    """`detector` with the dim-light frame check (`DIM_FRAME_BLUR_PX`)."""
    if detector.settings.frame_blur_px == DIM_FRAME_BLUR_PX:
        return detector
    return detector.with_settings(replace(detector.settings, frame_blur_px=DIM_FRAME_BLUR_PX))


def _with_finder(detector: MarkerDetector, finder: str) -> MarkerDetector:
    """`detector` proposing candidate squares with `finder` (see `TYPICAL_LIGHT_FINDER`)."""
    if detector.settings.finder == finder:
        return detector
    fit = detector.settings.edge_fit
    if finder == "contours":
        fit = replace(fit, passes=1, first_reach_cells=CONTOUR_EDGE_FIT_REACH)
    return detector.with_settings(replace(detector.settings, finder=finder, edge_fit=fit))


def _with_constant(detector: MarkerDetector, constant: float) -> MarkerDetector:
    """`detector` thresholding at least `constant` below the local mean (`TYPICAL_LIGHT_CONSTANT`)."""
    if constant <= detector.settings.adaptive_constant:
        return detector
    return detector.with_settings(replace(detector.settings, adaptive_constant=constant))


def _light_levels(gray: np.ndarray, dets: list[Detection], anchor_ids: set[int], cells: int) -> tuple[float, float]:
    """Grey levels of the anchors' black border and white quiet zone (medians): how lit the table is."""
    corners = [d.corners_px for d in dets if d.marker_id in anchor_ids]
    if not corners:
        return 0.0, float("inf")
    grid, ring = read_cells(gray, np.stack(corners), cells)
    border = np.ones((cells, cells), bool)
    border[1:-1, 1:-1] = False
    return float(np.median(grid[:, border])), float(np.median(ring))


def _sides(quads: np.ndarray) -> np.ndarray:
    """Mean side of each quad (K,4,2)."""
    return np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2).mean(axis=1)


def _with_remembered(report: PoseReport, unknown: set[int], duplicates: set[int]) -> PoseReport:
    """`report` plus the unknown and duplicated ids of the last full scan (never a duplicate's pose)."""
    dup = duplicates | set(report.duplicate_markers)
    return PoseReport([b for b in report.bases if b.marker not in dup],
                      sorted(unknown | set(report.unknown_markers)), sorted(dup), report.rejected,
                      {m: d for m, d in report.readings.items() if m not in dup})


def _merge(first: list[Detection], second: list[Detection]) -> list[Detection]:
    """Detections of two searches of one image: a marker read by both is kept once (the first).

    A marker read from its template where another marker was read by its bits is dropped: two
    markers (with their quiet zones) cannot be that close, so it is a misread.
    """
    if not first or not second:
        return list(first) + list(second)
    fc, fs = _centres_sides(first)
    sc, ss = _centres_sides(second)
    fid = np.array([d.marker_id for d in first])
    sid = np.array([d.marker_id for d in second])
    ftemplate = np.array([d.refined.endswith("template") for d in first])
    stemplate = np.array([d.refined.endswith("template") for d in second])
    # near[j, i]: second[j] and first[i] are closer than two markers with quiet zones can be
    near = np.linalg.norm(sc[:, None] - fc[None], axis=2) < 1.3 * np.maximum(fs[None], ss[:, None])
    again = np.any(near & (sid[:, None] == fid[None]), axis=1)  # read by both searches
    keep = ~again & ~(stemplate & np.any(near, axis=1))  # template misreads next to a marker go
    dropped = np.any(near[keep & ~stemplate] & ftemplate[None], axis=0)
    return [d for d, gone in zip(first, dropped) if not gone] + [d for d, k in zip(second, keep) if k]


def _centres_sides(dets: list[Detection]) -> tuple[np.ndarray, np.ndarray]:
    c = np.stack([d.corners_px for d in dets])
    return c.mean(axis=1), np.linalg.norm(c - np.roll(c, -1, axis=1), axis=2).mean(axis=1)


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
