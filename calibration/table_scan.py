"""The full scan of a frame: anchors first on the halved frame, then the markers, cheapest first.

`TableScanner.full_scan` is what the pipeline runs on a cold frame, every few seconds (new bases)
and whenever tracking cannot go on (anchors lost, camera bumped). The anchors, the table's
largest markers, are read in the halved frame (`anchor_scan`): a few ms, after which the marker
size in pixels, where the table is and the light are known, and the costly stages are chosen for
them (`_on_located`): full-size stages one adaptive-threshold window at a time, with contours or
ArucoDetector proposing squares (`calibration/detector_variants.py`), or for markers under
`SMALL_SIDE_PX` one upsampled stage searched only in windows where a marker can be
(vision/detection/regions.py). The scan stops once every expected marker is read.
The periodic scans for new bases, while tracking holds, start from the markers followed into
the frame instead (`rescan`: no anchor scan, followed markers not read twice).
The scanner also keeps what the scan learnt for the frames between scans: the detector sized
for the markers (`tracking_detector`) and the light (`dim`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from campo.calibration.detection_merge import merge_detections, new_reads, quad_sides
from campo.calibration.detector_variants import (
    DIM_DENOISE_MAX_SIDE_PX,
    DIM_DENOISE_PX,
    DIM_FRAME_BLUR_PX,
    DIM_LIGHT_FINDER,
    DIM_STAGE_CONSTANT,
    DIM_STAGE_WINDOW,
    TYPICAL_LIGHT_CONSTANT,
    TYPICAL_LIGHT_FINDER,
    VariantCache,
    dimmed,
)
from campo.calibration.registration import TableLocation, locate_table
from campo.calibration.table_in_image import smallest_marker_px, table_window
from campo.calibration.table_light import anchor_light_levels, is_dim
from campo.vision.camera_model import Intrinsics
from campo.vision.detection import Detection, DetectorSettings, MarkerDetector, Window
from campo.vision.detection.detector import small_marker_settings
from campo.vision.detection.regions import marker_windows
from campo.vision.tabletop import Roster, TableConfig

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

SMALL_SIDE_PX = 15.0
"""Markers smaller than this (in the image) are hard to find at full size: upsample the search."""

TARGET_SIDE_PX = 26.0
"""... to about this size."""

SMALL_STAGE_UPSAMPLE = 2.0
"""Full scans upsample small markers this much (candidate squares for all, at a third of 2.5x's cost)."""

SMALL_STAGE_WINDOW = 0.35
"""... with one adaptive-threshold window of this many upsampled marker sides."""


class TableScanner:
    """The full-scan strategy for one table and roster, and what it learnt (scale, light)."""

    def __init__(self, table: TableConfig, roster: Roster, detector: MarkerDetector,
                 small_side_px: float = SMALL_SIDE_PX) -> None:
        """`detector` carries the caller's settings (expected ids filled in): every stage derives from it.
        `small_side_px`: markers smaller than this get the upsampled stage (`SMALL_SIDE_PX`)."""
        self.small_side_px = small_side_px
        self.table = table
        self.roster = roster
        self.detector = detector
        settings = self.base_settings = detector.settings
        # Full scans run one adaptive-threshold window at a time and stop once every expected
        # marker is read (see `full_scan`): at 16-25 px one window reads nearly all of them.
        wins = list(range(settings.adaptive_win_min, settings.adaptive_win_max + 1, max(settings.adaptive_win_step, 1)))
        wins.insert(0, wins.pop(len(wins) // 2))  # the middle window first: it reads in dim light too
        self._stages = [detector.with_settings(replace(settings, adaptive_win_min=w, adaptive_win_max=w))
                        for w in wins]
        self._anchor_stages: dict[float, list[MarkerDetector]] = {}  # the anchor scan, by downsampling scale
        self._variants = VariantCache()
        self.small_stage: MarkerDetector | None = None  # the upsampled stage, for markers under SMALL_SIDE_PX
        self.small_stage_dim: MarkerDetector | None = None  # ... and its dim-light variant
        self._expected = frozenset(table.anchor_ids | set(roster.by_marker()))
        self._side_range: tuple[float, float] | None = None  # plausible marker sides (px) once located
        self._upsample: float | None = None  # chosen once the table is located
        self.tracking_detector = detector  # the detector for tracking once the scale is known
        self.dim = False  # whether the last full scan found the table in dim light
        self.window_stage: MarkerDetector | None = None  # typical light, full size: see `window_finder`

    def missing(self, dets: list[Detection]) -> bool:
        """Whether some expected marker (anchor or roster) is not among `dets`."""
        return bool(self._expected - {d.marker_id for d in dets})

    def window_finder(self, detector: MarkerDetector) -> MarkerDetector:
        """The detector for searching windows around lost markers: the upsampled dim stage in dim
        light with small markers (it reads squares the full-size one misses); in typical light
        with full-size markers the full scan's first stage (`window_stage`: contours, one
        threshold window: 4K, a 0.7 Mpx window around a carried base, every marker read at 40 %
        of ArucoDetector's three windows); else `detector`."""
        if self.dim:
            return self.small_stage_dim if self.small_stage_dim is not None else detector
        return self.window_stage if self.window_stage is not None else detector

    def full_scan(self, gray: np.ndarray, roi: list[Window] | None, intr: Intrinsics | None,
                  width: int, height: int) -> tuple[list[Detection], TableLocation]:
        """Search the whole table (or `roi`), cheapest stage first, stopping once every marker is read.

        First the anchors, in the halved frame (`anchor_scan`): once they locate the table the
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
        dets, location = self.anchor_scan(gray, roi, intr, width, height)
        where = roi
        order = list(self._stages)
        if location.located:
            where, order = self._on_located(gray, dets, location, intr, width, height, order)
        return self._stages_from(gray, dets, location, where, order, intr, width, height)

    def rescan(self, gray: np.ndarray, roi: list[Window] | None, intr: Intrinsics | None, width: int, height: int,
               dets: list[Detection], location: TableLocation) -> tuple[list[Detection], TableLocation]:
        """`full_scan` starting from `dets`, the markers followed into this frame, whose anchors
        located the table (`location`): the periodic scan for new bases and unknown or repeated
        markers. No anchor scan, and what the stages read again of the followed markers, where
        they are, is not refined and confirmed a second time (`new_reads`): 4K, 100 bases,
        about 31 ms after following them, instead of a 50 ms full scan."""
        where, order = self._on_located(gray, dets, location, intr, width, height, list(self._stages))
        if where is None and roi is not None:
            where = roi
        return self._stages_from(gray, dets, location, where, order, intr, width, height, followed=True)

    def _stages_from(self, gray: np.ndarray, dets: list[Detection], location: TableLocation,
                     where: list[Window] | None, order: list[MarkerDetector], intr: Intrinsics | None,
                     width: int, height: int, followed: bool = False) -> tuple[list[Detection], TableLocation]:
        """The stages of `full_scan` in `order`, from what is read already (`dets`). `followed`:
        `dets` are the followed markers (`rescan`), and the first stage still reports one read
        again elsewhere (a repeated marker), as it does in a full scan."""
        first = True
        while order:
            stage = order.pop(0)
            read, unread = stage.scan(gray, where)
            known = {d.marker_id for d in dets}
            read = new_reads(read, dets) if (followed and first) else [r for r in read if r[0] not in known]
            first = False
            if not location.located:
                # the anchors first: if the markers turn out small, the upsampled stage reads the rest
                anchors = self.table.anchor_ids
                dets = merge_detections(dets, stage.finish(gray, [r for r in read if r[0] in anchors], []))
                read = [r for r in read if r[0] not in anchors]
                location = locate_table(dets, self.table, intr)
                if location.located:
                    where, order = self._on_located(gray, dets, location, intr, width, height, order)
            if not (location.located and self.small_stage is not None and stage in self._stages):
                dets = merge_detections(dets, stage.finish(gray, read, []))
            if not location.located:
                continue
            small_next = bool(order) and order[0] in (self.small_stage, self.small_stage_dim)
            sized: list[np.ndarray] = []
            if self.missing(dets) and unread and self._side_range is not None and not small_next:
                # (full-size squares of markers too small to read are left to the upsampled stage)
                low, high = self._side_range
                sides = quad_sides(np.stack(unread))
                sized = [q for q, side in zip(unread, sides) if low <= side <= high]
                dets = merge_detections(dets, stage.finish(gray, [], sized))
            if not self.missing(dets):
                break
            if order and not self.dim and self.small_stage is None and stage.settings.upsample == 1.0:
                # In typical light a marker the first threshold window did not read still shows
                # as a square of a marker's size there: the other windows look only around those
                # (a base off the table, or covered, made every window scan the whole table:
                # 4K, cloth with terrain: 3 x 70 ms of findContours instead of 70 and a few)
                where = _around_squares(self._not_read(sized, dets), width, height)
                if not where:
                    break
        if location.located:
            location = locate_table(dets, self.table, intr)
        return dets, location

    @staticmethod
    def _not_read(quads: list[np.ndarray], dets: list[Detection]) -> list[np.ndarray]:
        """The squares that may still be markers: not on (or around) one read already."""
        if not quads or not dets:
            return list(quads)
        q = np.stack(quads).mean(axis=1)
        c = np.stack([d.corners_px for d in dets])
        near = np.linalg.norm(q[:, None] - c.mean(axis=1)[None], axis=2) < quad_sides(c)[None]
        return [quad for quad, n in zip(quads, near.any(axis=1)) if not n]

    def anchor_scan(self, gray: np.ndarray, roi: list[Window] | None, intr: Intrinsics | None,
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
        finisher = self._variants.get(self.detector, TYPICAL_LIGHT_FINDER, 0.0)
        for stage in stages:
            read, _ = stage.scan(gray, roi)
            known = {d.marker_id for d in dets}
            new = [r for r in read if r[0] in anchors and r[0] not in known]
            dets = merge_detections(dets, finisher.finish(gray, new, []))
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
            self._choose_scale(smallest_marker_px(self.table, self.roster, location, intr))
        # (the stages still to run, as sized for the markers by `_choose_scale`)
        wins = [s.settings.adaptive_win_min for s in order]
        order = [s for w in wins for s in self._stages if s.settings.adaptive_win_min == w]
        table_roi = table_window(self.table, self.roster, location, intr, width, height)
        where = [table_roi] if table_roi else None
        black, white = anchor_light_levels(gray, dets, self.table.anchor_ids, self.detector.cells)
        dim = self.dim = is_dim(black, white)
        lit = bool(np.isfinite(white))  # (the levels are known: anchors were read)
        if self.small_stage is not None:
            order = [self.small_stage_dim if dim else self.small_stage]
            if self._side_range is not None and lit:
                # the upsampled search only where a marker can be (vision/detection/regions.py)
                region = table_roi or Window(0, 0, width, height)
                where = marker_windows(gray, region, black, white, self._side_range[0] / 0.7)
        elif dim:  # the smallest window reads nothing in dim light
            smallest = min(self._stages, key=lambda s: s.settings.adaptive_win_min)
            order = [dimmed(s) for s in order if s.settings.adaptive_win_min != smallest.settings.adaptive_win_min]
        finder = DIM_LIGHT_FINDER if dim else TYPICAL_LIGHT_FINDER
        constant = float(round(TYPICAL_LIGHT_CONSTANT * (white - black))) if not dim and lit else 0.0
        stages = [self._variants.get(s, finder, constant if s.settings.upsample == 1.0 else 0.0) for s in order]
        self.window_stage = stages[0] if (stages and not dim and self.small_stage is None and lit) else None
        marker_px = self._side_range[0] / 0.7 if self._side_range is not None else np.inf
        if dim and self.small_stage is None and order and marker_px < DIM_DENOISE_MAX_SIDE_PX:
            # first the full-size squares by contours of a lightly blurred frame (`DIM_DENOISE_PX`):
            # cheaper than ArucoDetector's, which stay as the fallback while markers are missing
            stages.insert(0, self._variants.get(order[0], finder, 0.0, DIM_DENOISE_PX))
        return where, stages

    def _choose_scale(self, side_px: float) -> None:
        """Pick the upsampling that makes the smallest marker about `TARGET_SIDE_PX` wide."""
        if self.base_settings.upsample != 1.0:
            self._upsample = self.base_settings.upsample  # fixed by the caller
            return
        up = 1.0 if side_px >= self.small_side_px else float(np.clip(np.ceil(2 * TARGET_SIDE_PX / max(side_px, 1.0)) / 2, 1.0, 4.0))
        self._upsample = up
        sizes = self.roster.marker_sizes_mm + [a.size_mm for a in self.table.anchors]
        self._side_range = (0.7 * side_px, 2.0 * side_px * max(sizes) / min(sizes))
        if up == 1.0:
            # the full-size stages need not look at squares much smaller than any marker of ours
            # (most candidates are small clutter): a third of their time at 4K
            self._stages = [s.with_settings(replace(s.settings, min_side_px=max(s.settings.min_side_px, self._side_range[0])))
                            for s in self._stages]
        if up > 1.0:
            settings = small_marker_settings(self.base_settings, up, 0.7 * side_px, self._side_range[1])
            self.tracking_detector = self.detector.with_settings(settings)
            # one threshold window of about a third of the upsampled marker: every candidate square
            # at 1080p over 180x120 cm (13 px markers, 2x), at half the cost of three windows
            w = int(round(SMALL_STAGE_WINDOW * side_px * SMALL_STAGE_UPSAMPLE)) | 1
            self.small_stage = self.detector.with_settings(replace(
                settings, upsample=SMALL_STAGE_UPSAMPLE, adaptive_win_min=w, adaptive_win_max=w))
            # in dim light a wider window and a lower constant: 85 instead of 18 of 104 squares
            w = int(round(DIM_STAGE_WINDOW * side_px * SMALL_STAGE_UPSAMPLE)) | 1
            self.small_stage_dim = self.detector.with_settings(replace(
                settings, upsample=SMALL_STAGE_UPSAMPLE, adaptive_win_min=w, adaptive_win_max=w,
                adaptive_constant=DIM_STAGE_CONSTANT, frame_blur_px=DIM_FRAME_BLUR_PX))


def _around_squares(quads: list[np.ndarray], width: int, height: int) -> list[Window]:
    """Windows around squares, each grown by twice its side (the marker and its quiet zone)."""
    wins = [Window.around(q, 2.0 * float(quad_sides(q[None])[0])).clipped(width, height) for q in quads]
    return [w for w in wins if w.area > 0]


def expected_ids_settings(settings: DetectorSettings, table: TableConfig, roster: Roster) -> DetectorSettings:
    """`settings` reading faint markers from templates, but only ours (anchors, roster bases and
    status tokens)."""
    if settings.expected_ids:
        return settings
    return replace(settings, expected_ids=frozenset(table.anchor_ids | set(roster.by_marker())
                                                    | set(roster.tokens_by_marker())))
