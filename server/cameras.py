"""`campo serve --source A --source B ...`: several cameras feeding one game.

Each `--source` gets its own capture thread (`Capture`, which reconnects on its own) and is
paired by order with a `--camera` file; one loop (`RigLiveTracker`) takes a round of their newest
frames, runs `calibration.cameras.CameraRig` on it (a pipeline per camera, readings fused in table
mm, one tracker) and publishes like the one-camera loop. A camera that disconnects holds nobody
up: a round waits for every camera with a signal, `ROUND_WAIT_S` at most, and goes on with the
frames it has; the bases only the lost camera saw keep their last pose, stale, and its part of the
table is listed as unknown in the status (`unknown_areas`).

`--source demo --source demo` is the demo's two-camera mode (`vision/synthetic/demo_wide.py`):
the demo game on a 180 x 120 cm table, each synthetic camera over one half, one shared clock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from campo.calibration.cameras import CameraFrame, CameraRig, RigResult
from campo.errors import CampoInputError
from campo.server.capture import Capture, CaptureStatus
from campo.server.live import CameraView, FpsMeter, LiveTracker
from campo.server.sources import Frame, FrameSource, _Counter, _Pacer, open_source
from campo.vision.camera_model import Intrinsics

ROUND_WAIT_S = 0.1
"""After a round's first frame, how long the others are waited for (a camera is not a clock)."""

MAX_CAMERAS = 4


@dataclass(frozen=True)
class CameraSpec:
    """One camera of the rig: its name on the page, its source and its intrinsics."""

    name: str
    source: FrameSource
    intrinsics: Intrinsics | None


# -- the demo's two cameras ------------------------------------------------------------------


class DemoClock:
    """The game time both demo cameras render: started by the first camera opened."""

    def __init__(self, duration_s: float, speed: float = 1.0) -> None:
        self.duration_s = duration_s
        self.speed = speed
        self._t0: float | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._t0 is None:
                self._t0 = time.monotonic()

    def game_time(self) -> float:
        with self._lock:
            elapsed = 0.0 if self._t0 is None else time.monotonic() - self._t0
        return (elapsed * self.speed) % self.duration_s


class DemoViewSource:
    """One of the wide demo's two synthetic cameras (`WideDemo.render(index, t)`), paced at `fps`."""

    def __init__(self, demo: Any, index: int, clock: DemoClock, *, fps: float = 10.0) -> None:
        self.demo = demo
        self.index = index
        self.clock = clock
        self.name = f"demo camera {index + 1}"
        self.intrinsics: Intrinsics = demo.intrinsics
        self._open = False
        self._pacer = _Pacer(fps)
        self._count = _Counter()

    def open(self) -> None:
        self.clock.start()
        self._open = True

    def read(self) -> Frame | None:
        if not self._open:
            return None
        self._pacer.tick()
        render = self.demo.render(self.index, self.clock.game_time())
        return self._count.frame(render.image, render.truth)

    def close(self) -> None:
        self._open = False


def check_camera_options(sources: Sequence[str], cameras: Sequence[Any]) -> None:
    """The repeated `--source` and `--camera` make a rig (`CampoInputError` naming the option)."""
    if not 2 <= len(sources) <= MAX_CAMERAS:
        raise CampoInputError(f"{len(sources)} sources given: a rig has 2 to {MAX_CAMERAS} cameras", key="--source")
    if cameras and len(cameras) != len(sources):
        raise CampoInputError(f"{len(sources)} --source but {len(cameras)} --camera: give one camera.json per "
                              "source, in the same order, or none", key="--camera")
    demos = [s.strip() == "demo" for s in sources]
    if any(demos) and not all(demos):
        raise CampoInputError("demo cannot be mixed with real cameras", key="--source")
    if any(s.strip() in ("phone", "rehearsal") for s in sources):
        raise CampoInputError("phone and rehearsal sources work alone, not in a rig of cameras", key="--source")
    if all(demos) and len(sources) != 2:
        raise CampoInputError("the demo has a two-camera mode only (--source demo --source demo)", key="--source")


def camera_specs(sources: Sequence[str], cameras: Sequence[Any], *, fps: float | None = None) -> tuple[list[CameraSpec], Any]:
    """The rig's cameras from the repeated `--source` and `--camera` (paired by order), and the
    wide demo game when every source is `demo` (else None)."""
    from campo.calibration.camera_file import load_camera

    check_camera_options(sources, cameras)
    if all(s.strip() == "demo" for s in sources):
        from campo.vision.synthetic.demo_wide import WideDemo

        demo = WideDemo()
        clock = DemoClock(demo.game.duration_s)
        views = [DemoViewSource(demo, i, clock, fps=fps or 10.0) for i in range(2)]
        intr = [load_camera(c).intrinsics for c in cameras] if cameras else [v.intrinsics for v in views]
        return [CameraSpec(v.name, v, i) for v, i in zip(views, intr)], demo
    specs = []
    for k, spec in enumerate(sources):
        source = open_source(spec, fps=fps)
        intr = load_camera(cameras[k]).intrinsics if cameras else None
        specs.append(CameraSpec(f"#{k + 1} {source.name}", source, intr))  # "#2 camera 1", "#1 video a.mp4"
    return specs, None


# -- capture and the loop ----------------------------------------------------------------------


@dataclass(frozen=True)
class FrameRound:
    """The newest frame of each camera that had one (what the loop processes at once)."""

    frames: dict[str, Frame] = field(repr=False)
    index: int
    t: float
    wall: float


class CameraCaptures:
    """One `Capture` thread per camera, and rounds of their newest frames (`take`)."""

    def __init__(self, specs: Sequence[CameraSpec]) -> None:
        self.names = [s.name for s in specs]
        self.captures = {s.name: Capture(s.source) for s in specs}
        self.slot = self  # the loop takes rounds from `capture.slot`, as from one camera's slot
        self.source = _GroupName(", ".join(self.names))
        self._rounds = 0

    def start(self) -> None:
        for c in self.captures.values():
            c.start()

    def stop(self, timeout: float = 5.0) -> None:
        for c in self.captures.values():
            c.stop(timeout)

    def take(self, timeout: float | None = None) -> FrameRound | None:
        """The newest frame of every camera with a signal, waiting `timeout` s for the first and
        then `ROUND_WAIT_S` for the rest; None when no camera delivered."""
        end = time.monotonic() + (timeout or 0.0)
        got: dict[str, Frame] = {}
        first = 0.0
        while True:
            for name, cap in self.captures.items():
                if name not in got and (frame := cap.slot.take(timeout=0)) is not None:
                    got[name] = frame
                    first = first or time.monotonic()
            now = time.monotonic()
            live = {n for n, c in self.captures.items() if c.status().signal}
            if got and (live <= set(got) or now - first >= ROUND_WAIT_S):
                break
            if not got and now >= end:
                return None
            time.sleep(0.003)
        self._rounds += 1
        return FrameRound(got, self._rounds, max(f.t for f in got.values()), max(f.wall for f in got.values()))

    def status(self) -> CaptureStatus:
        """All cameras as one: a signal while any camera has one; counts added up; errors joined."""
        each = [c.status() for c in self.captures.values()]
        return CaptureStatus(self.source.name, any(s.signal for s in each), sum(s.frames for s in each),
                             sum(s.dropped for s in each), sum(s.rejected for s in each),
                             sum(s.reconnects for s in each),
                             "; ".join(f"{n}: {s.error}" for n, s in zip(self.names, each) if s.error))


@dataclass(frozen=True)
class _GroupName:
    name: str


class RigLiveTracker(LiveTracker):
    """`LiveTracker` over a rig of cameras: rounds of frames in, `RigResult` out; per-camera status."""

    def __init__(self, *, captures: CameraCaptures, rig: CameraRig, **kwargs: Any) -> None:
        super().__init__(capture=captures, pipeline=rig, **kwargs)  # type: ignore[arg-type]
        self.captures = captures
        self.rig = rig
        self._camera_fps = {name: FpsMeter() for name in rig.names}

    def _process(self, frame: FrameRound) -> None:  # type: ignore[override]
        started = time.monotonic()
        frames = [CameraFrame(name, f.image, f.t) for name, f in frame.frames.items()]
        result = self.rig.process(frames)
        for name in frame.frames:
            self._camera_fps[name].tick(time.monotonic())
        # the camera panel shows the first camera (its intrinsics are the renderer's), when it delivered
        first = result.cameras[0]
        view = CameraView(frame.frames[first.camera], first.result) if first.fresh else None  # type: ignore[arg-type]
        self._use(frame, result, started, view)  # type: ignore[arg-type]

    def status(self) -> dict[str, Any]:
        out = super().status()
        result: RigResult | None = self._last_result
        now = time.monotonic()
        cameras = []
        by_name = {} if result is None else {s.camera: s for s in result.cameras}
        for name, cap in self.captures.captures.items():
            cs = cap.status()
            state = by_name.get(name)
            row = {"camera": name, "table_located": False, "anchors_seen": 0, "anchors_used": [],
                   "registration": "no frame yet", "used": False, "bases_seen": 0, "coverage_mm": []}
            if state is not None:
                row |= state.to_json()
            if not cs.signal:
                row["used"] = False
                row["table_located"] = False
                row["registration"] = f"no signal ({cs.error})" if cs.error else "no signal"
            cameras.append(row | {"signal": cs.signal, "fps": round(self._camera_fps[name].fps(now), 2),
                                  "source": cs.to_json()})
        out["cameras"] = cameras
        out["unknown_areas"] = [] if result is None else [a.to_json() for a in result.unknown_areas]
        out["disagreements"] = [] if result is None else [d.to_json() for d in result.fused.disagreements]
        return out


def rig_loop(specs: Sequence[CameraSpec], table: Any, roster: Any, **tracker_kwargs: Any) -> tuple[CameraCaptures, RigLiveTracker]:
    """The captures and the loop of a rig of cameras (wired by `server.app.build_services`)."""
    captures = CameraCaptures(specs)
    rig = CameraRig(table, roster, [(s.name, s.intrinsics) for s in specs])
    tracker = RigLiveTracker(captures=captures, rig=rig, roster=roster,
                             table_size=(table.table.width_mm, table.table.depth_mm),
                             anchors_total=len(table.anchors), **tracker_kwargs)
    return captures, tracker
