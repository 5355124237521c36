"""The per-frame loop: newest frame -> pipeline -> game state -> summary (only on real change) -> hub.

Runs in its own thread so the CPU-heavy work (marker detection, the rules engine) never blocks
the web server's event loop. The engine runs only when the game really changed: a base moved or
turned beyond `PoseTolerance`, appeared, or was hidden / uncovered, or the umpire edited the
terrain or the settings; and then only for what the change reaches (`engine.live.LiveAnalysis`):
the `state` message carries the scenario and each base's compact summary, and a base's full
analysis is computed when a page asks for it (`snapshot`). A `status` message (frame rate,
anchors, unknown markers, camera signal) is published a few times a second whatever happens.
No exception in one frame stops the loop: the error is shown on the page and the poses still go
out.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from campo.engine.live import LiveAnalysis, Snapshot
from campo.engine.registry import get_ruleset
from campo.errors import CampoInputError
from campo.server.capture import Capture
from campo.server.game_state import GameSetup, PoseKey, PoseLike, PoseTolerance, pose_keys, poses_changed, scenario_from_tracking
from campo.server.hub import StateHub
from campo.server.sources import Frame
from campo.server.tokens import TokenBoard, problem_lines
from campo.server.unit_state import UnitStates
from campo.vision.tabletop import Roster

log = logging.getLogger(__name__)


class FrameResultLike(Protocol):
    """What the loop reads from `calibration.pipeline.FrameResult`."""

    tracked: Sequence[PoseLike]
    timings_ms: dict[str, float]
    warnings: list[str]
    tokens: Any   # calibration.tokens.TokenReport: the status tokens read

    @property
    def location(self) -> Any: ...

    @property
    def report(self) -> Any: ...


class Pipeline(Protocol):
    """`calibration.pipeline.FramePipeline`, as the loop uses it."""

    def process(self, image: np.ndarray, t: float = 0.0, source: str = "") -> FrameResultLike: ...


class FpsMeter:
    """Frames per second over the last `window_s` seconds (ticked by one thread, read by others)."""

    def __init__(self, window_s: float = 2.0) -> None:
        self.window_s = window_s
        self._times: deque[float] = deque()
        self._lock = threading.Lock()

    def _forget(self, now: float) -> None:
        while self._times and self._times[0] < now - self.window_s:
            self._times.popleft()

    def tick(self, t: float) -> None:
        with self._lock:
            self._times.append(t)
            self._forget(t)

    def fps(self, now: float) -> float:
        with self._lock:
            self._forget(now)
            if len(self._times) < 2:
                return 0.0
            span = max(self._times[-1] - self._times[0], 1e-6)
            return (len(self._times) - 1) / span


@dataclass(frozen=True)
class CameraView:
    """The last processed frame and what the pipeline found in it (for the camera panel)."""

    frame: Frame
    result: FrameResultLike


class LiveTracker:
    """Owns the per-frame thread; publishes `state` and `status` to the hub."""

    def __init__(
        self,
        *,
        capture: Capture,
        pipeline: Pipeline,
        roster: Roster,
        table_size: tuple[float, float],
        anchors_total: int,
        setup: GameSetup,
        hub: StateHub,
        analyst: LiveAnalysis | None = None,
        units: UnitStates | None = None,
        tokens: TokenBoard | None = None,
        tolerance: PoseTolerance = PoseTolerance(),
        status_interval_s: float = 0.5,
        mode: str = "live",
    ) -> None:
        self.capture = capture
        self.pipeline = pipeline
        self.roster = roster
        self.table_size = table_size
        self.anchors_total = anchors_total
        self.setup = setup
        self.hub = hub
        self.analyst = analyst or LiveAnalysis()
        self.units = units
        self.tokens = tokens  # the roster's status tokens, applied to `units` as they lie
        self.tolerance = tolerance
        self.status_interval_s = status_interval_s
        self.mode = mode
        self.analyses = 0  # how many times the engine ran (tests check it stays low)
        # what the rulebook remembers across moments (ATTILA: groups that split stay split)
        self.memory = get_ruleset(roster.ruleset).memory()
        self.frames = 0
        # more members of status(), each a callable giving {name: value} (the recorder's "recording")
        self.status_parts: list[Callable[[], dict[str, Any]]] = []
        self.view: CameraView | None = None
        self.state: dict[str, Any] | None = None   # the latest `state` message's payload
        self.snapshot: Snapshot | None = None      # its analyses, computed when asked
        self._published: dict[str, PoseKey] = {}
        self._edits = (-1, -1)  # the umpire's edits last published: (setup, unit state) versions
        self._tracked: list[PoseLike] = []
        self._fps = FpsMeter()
        self._last_result: Any = None
        self._analysis_ms = 0.0
        self._frame_ms = (0.0, 0.0)  # (waited in the slot, pipeline) for the latest frame
        self._frame_error = ""  # why the latest frame could not be used ("" when it could)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- control ------------------------------------------------------------------------------

    def start(self) -> None:
        self._publish_state(None)  # the empty game, so /api/state answers before the first frame
        self._thread = threading.Thread(target=self._run, name="campo-live", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the loop -----------------------------------------------------------------------------

    def _run(self) -> None:
        next_status = 0.0
        while not self._stop.is_set():
            frame = self.capture.slot.take(timeout=0.1)
            try:
                if frame is not None:
                    self._process(frame)
                elif self._edited():
                    self._publish_state(None)  # an edit while the camera shows nothing new
                now = time.monotonic()
                if now >= next_status:
                    self.hub.publish_threadsafe("status", self.status())
                    next_status = now + self.status_interval_s
            except CampoInputError as exc:  # e.g. a camera mode that does not match camera.json
                self._report_frame_error(str(exc))
            except Exception:  # noqa: BLE001 - the server must outlive any one bad frame
                log.exception("frame %s failed; carrying on", None if frame is None else frame.index)

    def _report_frame_error(self, message: str) -> None:
        """Shown in the status bar; logged once per distinct message (not 15 times a second)."""
        if message != self._frame_error:
            log.warning("frames cannot be used: %s", message)
        self._frame_error = message

    def _process(self, frame: Frame) -> None:
        started = time.monotonic()
        result = self.pipeline.process(frame.image, frame.t, self.capture.source.name)
        self._use(frame, result, started, CameraView(frame, result))

    def _use(self, frame: Frame, result: FrameResultLike, started: float, view: CameraView | None) -> None:
        """Everything after the pipeline (shared with the several-camera loop, server/cameras.py)."""
        self._frame_ms = ((started - frame.t) * 1000, (time.monotonic() - started) * 1000)
        self.frames += 1
        self._fps.tick(time.monotonic())
        self._last_result = result
        if view is not None:
            self.view = view
        self._frame_error = ""
        self._tracked = list(result.tracked)
        if self.tokens is not None:
            for change in self.tokens.update(result.tokens.tokens, self._tracked, frame.t,
                                             bool(result.location.located)):
                self.hub.publish_threadsafe("event", change.event())
        keys = pose_keys(self._tracked)
        if (self._edited() or poses_changed(self._published, keys, self.tolerance)
                or (self.memory is not None and self.memory.due(time.monotonic()))):
            self._publish_state(frame)

    def _edits_now(self) -> tuple[int, int]:
        return (self.setup.version, -1 if self.units is None else self.units.version)

    def _edited(self) -> bool:
        """The umpire changed the terrain, the settings or a base's state since the last state."""
        return self._edits_now() != self._edits

    def _publish_state(self, frame: Frame | None) -> None:
        edits = self._edits_now()
        _, terrain, settings = self.setup.snapshot()
        scenario = scenario_from_tracking(self.roster, self.table_size, self._tracked, terrain, settings)
        if self.units is not None:
            self.units.apply(scenario)
        if self.memory is not None:
            self.memory.apply(scenario)
        t0 = time.perf_counter()
        snapshot = self._summarise(scenario)
        if self.memory is not None and snapshot.error is None and \
                (learnt := self.memory.learn(snapshot.summary["board"], time.monotonic())):
            log.info("remembered for good: %s", ", ".join(sorted(set(learnt.values()))))
        self._analysis_ms = (time.perf_counter() - t0) * 1000
        self.analyses += 1
        self._edits = edits
        self._published = pose_keys(self._tracked)
        state = dict(scenario)
        state["summary"] = snapshot.summary
        state["live"] = {
            "mode": self.mode,
            "frame": None if frame is None else frame.index,
            "captured_unix": None if frame is None else round(frame.wall, 4),
            "queued_ms": None if frame is None else round(self._frame_ms[0], 2),
            "pipeline_ms": None if frame is None else round(self._frame_ms[1], 2),
            "analysis_ms": round(self._analysis_ms, 2),
            "published_unix": round(time.time(), 4),
        }
        self.snapshot = snapshot
        self.state = state
        self.hub.publish_threadsafe("state", state)

    def _summarise(self, scenario: dict[str, Any]) -> Snapshot:
        """The engine's snapshot of this moment. An engine bug is logged and shown on the page
        (the poses still go out); a state the engine refuses shows why."""
        try:
            return self.analyst.update(scenario)
        except Exception as exc:  # noqa: BLE001 - an engine bug: the poses still go out, marked
            log.exception("analysis failed on a state the engine should have judged")
            return self.analyst.failed(
                scenario, f"internal error in the rules engine ({type(exc).__name__}); see the log")

    # -- status -------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """The status bar's numbers (also served at /api/status)."""
        cap = self.capture.status()
        # without a signal the last frame's findings are old news: nothing is located or seen
        result = self._last_result if cap.signal else None
        located = bool(result is not None and result.location.located)
        report = None if result is None else result.report
        parts: dict[str, Any] = {}
        for part in self.status_parts:
            parts.update(part())
        if self.tokens is not None:
            tokens = self.tokens.status()
            parts["tokens"] = tokens
            parts["token_problems"] = problem_lines(tokens)
        return parts | {
            "mode": self.mode,
            "fps": round(self._fps.fps(time.monotonic()), 2),
            "frames": self.frames,
            "camera": cap.to_json(),
            "table_located": located,
            "anchors_seen": 0 if result is None else int(result.location.anchors_seen),
            "anchors_total": self.anchors_total,
            "unknown_markers": [] if report is None else list(report.unknown_markers),
            "duplicate_markers": [] if report is None else list(report.duplicate_markers),
            "bases_seen": 0 if result is None else sum(1 for b in result.tracked if not b.stale),
            "frame_error": self._frame_error,
            "warnings": [] if result is None else list(result.warnings)[:8],
            "timings_ms": {} if result is None else {k: round(v, 2) for k, v in result.timings_ms.items()},
            "analysis_ms": round(self._analysis_ms, 2),
            "analyses": self.analyses,
            "clients": self.hub.client_count,
            "time_unix": round(time.time(), 3),
        }
