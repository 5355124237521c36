"""Several cameras over one table: a `FramePipeline` each, their readings fused, one tracker.

`CameraRig.process(frames)` takes one round of frames (the newest frame of each camera that
delivered one) and returns a `RigResult`, which reads like a one-camera `FrameResult` for the
live loop (tracked bases, warnings, a table location, a pose report) plus what each camera did.

Where the fusion sits: each camera's pipeline detects, registers and poses its own markers and
keeps its own tracker, but only for where to look in its next image (pixel positions and
velocities). Their *measured* poses of the round are fused (`calibration/fusion.py`) and fed to
one table-mm `Tracker`, so each base has exactly one track and one filtered pose, whichever
camera or cameras saw it; fusing after tracking would give each base one track per camera, whose
snaps and stale flags would then have to be reconciled.

Hand-over: a camera finds a marker it never saw only in a full scan (every few seconds), so
a base carried across the seam would go stale once it left the first camera's view. Before each
frame, every base the game's tracker placed in the last round well inside a camera's view that
this camera does not follow is handed to it (its marker projected into this camera's image, as
if this camera had seen it there), and it follows it from the next frame; a base placed outside
a camera's view is dropped from that camera's search (it would otherwise widen its windows until
it made every frame a full scan).

A camera that delivered no frame this round lends its last readings for `HOLD_S` seconds (the
cameras are not synchronised); after that, or while its registration is not good enough
(`camera_coverage.registration_gap`), it contributes nothing: the bases only it saw keep their
last pose, stale, and the table it covered is reported as unknown (`unknown_areas`), not
emptied.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from shapely.geometry import Point, Polygon
from shapely.ops import unary_union
from shapely.prepared import prep

from campo.calibration.camera_coverage import coverage_mm, registration_gap
from campo.calibration.fusion import CameraReadings, FusedReport, fuse
from campo.calibration.pipeline import FramePipeline, FrameResult, fit_intrinsics
from campo.calibration.poses import BasePose, PoseReport
from campo.calibration.registration import TableLocation
from campo.calibration.tokens import TokenReport
from campo.calibration.tracking import TrackedBase, Tracker, TrackerSettings
from campo.vision.camera_model import Intrinsics
from campo.vision.detection.types import Detection
from campo.vision.tabletop import Roster, TableConfig

HOLD_S = 1.0
"""A camera's last readings stand in for this long when it delivers no new frame."""

HAND_OVER_INSET_MM = 40.0
"""A base is handed to a camera when it lies this far inside that camera's view (its marker then
lies wholly inside the image)."""

FORGET_OUTSIDE_MM = 60.0
"""... and dropped from a camera's search when it lies this far outside it."""

RIG_SMALL_SIDE_PX = 18.0
"""Each camera of a rig upsamples its full scans for markers under this side (px), not 15
(`table_scan.SMALL_SIDE_PX`): two 1080p cameras over 180 x 120 cm see 16 mm markers at 16-17 px,
where the full-size stages missed 4 of 56 markers turned about 45 degrees on the synthetic camera
(bench/two_cameras.py) and the upsampled stage read them all."""


@dataclass(frozen=True)
class CameraFrame:
    """One camera's newest frame in a round."""

    camera: str
    image: np.ndarray = field(repr=False)
    t: float


@dataclass(frozen=True)
class CameraState:
    """One camera after a round: its last result, whether it counted, what it lacks, what it sees."""

    camera: str
    result: FrameResult | None
    image_size: tuple[int, int] | None
    used: bool  # its readings went into this round's fusion
    gap: str  # what its registration lacks ("" when it is good enough)
    coverage_mm: list[list[float]]  # the table it covers (its last located view)
    fresh: bool  # it delivered a frame this round

    def to_json(self) -> dict[str, object]:
        loc = None if self.result is None else self.result.location
        return {"camera": self.camera, "used": self.used, "fresh": self.fresh,
                "table_located": bool(loc is not None and loc.located),
                "anchors_seen": 0 if loc is None else int(loc.anchors_seen),
                "anchors_used": [] if loc is None else list(loc.anchors_used),
                "registration": self.gap or "ok",
                "bases_seen": 0 if self.result is None else len(self.result.report.bases),
                "coverage_mm": self.coverage_mm}


@dataclass(frozen=True)
class UnknownArea:
    """Part of the table only a camera that does not count now covered: what is there is unknown."""

    camera: str
    reason: str  # why that camera does not count (no frame, what its registration lacks)
    polygon_mm: list[list[float]]

    def to_json(self) -> dict[str, object]:
        return {"camera": self.camera, "reason": self.reason, "polygon_mm": self.polygon_mm}


@dataclass(frozen=True)
class RigResult:
    """One round of every camera, fused: what the live loop reads (like `FrameResult`)."""

    t: float
    location: TableLocation  # located when any camera counts; anchors_seen over all cameras
    report: PoseReport  # the fused bases; unknown and duplicated ids over all cameras
    tracked: list[TrackedBase]
    fused: FusedReport
    cameras: list[CameraState]
    unknown_areas: list[UnknownArea]  # table seen only by cameras that do not count now
    tokens: TokenReport = field(default_factory=TokenReport)
    timings_ms: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


class CameraRig:
    """Every camera's pipeline, the fusion of their readings and the one tracker of the bases."""

    def __init__(self, table: TableConfig, roster: Roster, cameras: Sequence[tuple[str, Intrinsics | None]],
                 *, tracker_settings: TrackerSettings | None = None, hold_s: float = HOLD_S,
                 **pipeline_options: object) -> None:
        names = [name for name, _ in cameras]
        if len(set(names)) != len(names):
            raise ValueError(f"camera names must differ: {names}")
        self.table = table
        self.roster = roster
        self.intrinsics = {name: intr for name, intr in cameras}
        options: dict[str, object] = {"small_side_px": RIG_SMALL_SIDE_PX, **pipeline_options}
        self.pipelines = {name: FramePipeline(table, roster, intr, tracker_settings=tracker_settings,
                                              **options)  # type: ignore[arg-type]
                          for name, intr in cameras}
        self.tracker = Tracker(tracker_settings)
        self.hold_s = hold_s
        self.marker_sizes = {b.marker: b.marker_size_mm for b in roster.bases}
        self._heights = {b.marker: b.height_mm for b in roster.bases}
        self._last: dict[str, tuple[FrameResult, tuple[int, int]]] = {}
        self._coverage: dict[str, list[list[float]]] = {name: [] for name in names}
        self._placed: tuple[float, list[BasePose]] = (0.0, [])  # the last round's fused bases, and when

    @property
    def names(self) -> list[str]:
        return list(self.pipelines)

    def process(self, frames: Sequence[CameraFrame], t: float | None = None) -> RigResult:
        """One round: each frame through its camera's pipeline, then fusion and tracking at `t`
        (default: the newest frame's time)."""
        t0 = time.perf_counter()
        fresh = set()
        timings: dict[str, float] = {}
        for frame in frames:
            pipeline = self.pipelines[frame.camera]  # KeyError: a frame from no camera of ours
            h, w = frame.image.shape[:2]
            self._hand_over(frame.camera, pipeline, (w, h))
            result = pipeline.process(frame.image, frame.t, frame.camera)
            self._last[frame.camera] = (result, (w, h))
            fresh.add(frame.camera)
            timings[f"{frame.camera}_ms"] = result.timings_ms.get("total_ms", 0.0)
        now = t if t is not None else max((f.t for f in frames), default=0.0)
        states, used = self._states(fresh, now)
        t1 = time.perf_counter()
        readings = [CameraReadings(s.camera, s.result.report, s.image_size)  # type: ignore[union-attr,arg-type]
                    for s in used]
        fused = fuse(readings, self.marker_sizes)
        located = bool(used)
        self._placed = (now, fused.bases)
        tracked = self.tracker.update(now, fused.bases) if located else self.tracker.bases(set())
        timings["fusion_ms"] = (time.perf_counter() - t1) * 1000
        timings["total_ms"] = (time.perf_counter() - t0) * 1000
        report = PoseReport(fused.bases, fused.unknown_markers, fused.duplicate_markers, fused.rejected)
        return RigResult(now, self._location(states, used), report, tracked, fused, states,
                         self._unknown_areas(states), self._tokens(used), timings,
                         self._warnings(states, fused))

    def _hand_over(self, name: str, pipeline: FramePipeline, size: tuple[int, int]) -> None:
        """Give camera `name` the bases placed well inside its view that it does not follow, and
        drop from its search those placed well outside it (see the module's doc)."""
        when, placed = self._placed
        location, cover = pipeline.location, self._coverage[name]
        if not placed or location is None or len(cover) < 3:
            return
        intr = fit_intrinsics(self.intrinsics[name], size[0], size[1], name)
        view = Polygon(cover)
        inside, near = prep(view.buffer(-HAND_OVER_INSET_MM)), prep(view.buffer(FORGET_OUTSIDE_MM))
        followed = {d.marker_id for d in pipeline.tracker.last_detections()}
        given: list[Detection] = []
        gone: set[int] = set()
        for pose in placed:
            where = Point(pose.x_mm, pose.y_mm)
            if pose.marker in followed:
                if not near.contains(where):
                    gone.add(pose.marker)
            elif inside.contains(where):
                z = self._heights[pose.marker] if location.method == "pnp" else 0.0
                corners = np.column_stack([pose.marker_corners_mm, np.full(4, z)])
                try:
                    px = location.project(corners, intr)
                except ValueError:
                    return
                if np.all(np.isfinite(px)) and px.min() >= 0 and px[:, 0].max() < size[0] and px[:, 1].max() < size[1]:
                    given.append(Detection(pose.marker, px))
        if gone:
            pipeline.tracker.forget_markers(gone)
        if given:
            pipeline.tracker.remember_pixels(given, when)

    def _states(self, fresh: set[str], now: float) -> tuple[list[CameraState], list[CameraState]]:
        states, used = [], []
        for name in self.pipelines:
            last = self._last.get(name)
            if last is None:
                states.append(CameraState(name, None, None, False, "no frame yet", [], False))
                continue
            result, size = last
            recent = name in fresh or now - result.t <= self.hold_s
            gap = registration_gap(result.location, self.table, self.intrinsics[name] is not None)
            if result.location.located and name in fresh:
                intr = fit_intrinsics(self.intrinsics[name], size[0], size[1], name)
                self._coverage[name] = coverage_mm(result.location, intr, size, self.table) or self._coverage[name]
            if not recent:
                gap = f"no frame for {now - result.t:.1f} s"
            state = CameraState(name, result, size, recent and not gap, gap, self._coverage[name], name in fresh)
            states.append(state)
            if state.used:
                used.append(state)
        return states, used

    def _location(self, states: list[CameraState], used: list[CameraState]) -> TableLocation:
        seen = {m for s in states if (s.used or s.fresh) and s.result is not None  # (not a lost camera's)
                and s.result.location.located for m in s.result.location.anchors_used}
        if not used:
            why = "; ".join(f"{s.camera}: {s.gap}" for s in states) or "no camera"
            return TableLocation.not_located(why, len(seen))
        first = used[0].result.location  # type: ignore[union-attr]
        anchors = tuple(sorted({m for s in used for m in s.result.location.anchors_used}))  # type: ignore[union-attr]
        return replace(first, anchors_seen=len(seen), anchors_used=anchors, warning="")

    def _unknown_areas(self, states: list[CameraState]) -> list[UnknownArea]:
        """The table seen only by cameras that do not count now (lost, or badly registered)."""
        def shape(s: CameraState) -> Polygon | None:
            return Polygon(s.coverage_mm) if len(s.coverage_mm) >= 3 else None
        live = [p for s in states if s.used and (p := shape(s)) is not None]
        out = []
        for s in states:
            p = shape(s)
            if s.used or p is None:
                continue
            rest = p.difference(unary_union(live)) if live else p
            for part in getattr(rest, "geoms", [rest]):
                if not part.is_empty and part.geom_type == "Polygon" and part.area > 1.0:
                    out.append(UnknownArea(s.camera, s.gap, [[round(x, 1), round(y, 1)]
                                                            for x, y in list(part.exterior.coords)[:-1]]))
        return out

    def _tokens(self, used: list[CameraState]) -> TokenReport:
        """Status tokens over every camera that counts (one reading per token: the first camera's)."""
        tokens, dup, seen = [], set(), set()
        for s in used:
            rep = s.result.tokens  # type: ignore[union-attr]
            dup.update(rep.duplicates)
            for tok in rep.tokens:
                if tok.id not in seen:
                    seen.add(tok.id)
                    tokens.append(tok)
        return TokenReport([tok for tok in tokens if tok.marker not in dup], sorted(dup))

    @staticmethod
    def _warnings(states: list[CameraState], fused: FusedReport) -> list[str]:
        out = [f"{s.camera}: not used: {s.gap}" for s in states if not s.used]
        out += [d.describe() for d in fused.disagreements]
        if fused.duplicate_markers:
            out.append(f"markers seen more than once (no pose given): {fused.duplicate_markers}")
        return out
