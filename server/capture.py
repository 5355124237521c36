"""The capture thread: reads a `FrameSource` as fast as it delivers and keeps only the newest frame.

The camera never waits for the per-frame pipeline: a frame that nobody took before the next one
arrived is dropped and counted. A source that fails to open or loses its signal puts the thread
in the "no signal" state; it is closed and reopened with exponential back-off, forever, so an
unplugged webcam plugged back in simply resumes. Frames with a zero or non-monotonic timestamp
are dropped (a driver glitch must not confuse the tracker).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from campo.server.sources import Frame, FrameSource, ReportsSkipped

log = logging.getLogger(__name__)


class LatestSlot:
    """A one-frame mailbox: `put` replaces what is there (counting it dropped), `take` empties it."""

    def __init__(self) -> None:
        self._frame: Frame | None = None
        self._cond = threading.Condition()
        self.dropped = 0

    def put(self, frame: Frame) -> bool:
        """Store `frame`; True when an untaken frame was overwritten (dropped)."""
        with self._cond:
            dropped = self._frame is not None
            if dropped:
                self.dropped += 1
            self._frame = frame
            self._cond.notify_all()
            return dropped

    def take(self, timeout: float | None = None) -> Frame | None:
        """The newest frame, waiting up to `timeout` seconds for one; None when none came."""
        with self._cond:
            if self._frame is None:
                self._cond.wait(timeout)
            frame, self._frame = self._frame, None
            return frame

    def peek(self) -> Frame | None:
        with self._cond:
            return self._frame


@dataclass(frozen=True)
class CaptureStatus:
    """What the status bar says about the camera."""

    source: str
    signal: bool
    frames: int
    dropped: int
    rejected: int  # zero or non-monotonic timestamps
    reconnects: int
    error: str
    skipped: dict[str, str] = field(default_factory=dict)  # input the source skipped: name -> why

    def to_json(self) -> dict[str, object]:
        return {"source": self.source, "signal": self.signal, "frames": self.frames,
                "dropped": self.dropped, "rejected": self.rejected,
                "reconnects": self.reconnects, "error": self.error,
                "skipped": [{"name": name, "error": why} for name, why in self.skipped.items()]}


class Capture:
    """Runs `source` in a daemon thread, publishing into a `LatestSlot`."""

    def __init__(self, source: FrameSource, *, backoff_s: tuple[float, float] = (0.5, 8.0)) -> None:
        self.source = source
        self.slot = LatestSlot()
        self.backoff_min, self.backoff_max = backoff_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._signal = False
        self._frames = 0
        self._rejected = 0
        self._reconnects = 0
        self._error = "starting"
        self._last_t = 0.0

    # -- control ------------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="campo-capture", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.source.close()

    def status(self) -> CaptureStatus:
        skipped = self.source.skipped() if isinstance(self.source, ReportsSkipped) else {}
        with self._lock:
            return CaptureStatus(self.source.name, self._signal, self._frames, self.slot.dropped,
                                 self._rejected, self._reconnects, self._error, skipped)

    # -- the thread ---------------------------------------------------------------------------

    def _set(self, *, signal: bool, error: str = "") -> None:
        with self._lock:
            self._signal = signal
            self._error = error

    def _accept(self, frame: Frame) -> bool:
        if frame.t <= 0 or frame.t <= self._last_t:
            with self._lock:
                self._rejected += 1
            return False
        self._last_t = frame.t
        return True

    def _run(self) -> None:
        delay = self.backoff_min
        first = True
        while not self._stop.is_set():
            try:
                self.source.open()
            except Exception as exc:  # noqa: BLE001 - any driver failure means "no signal, retry"
                self._set(signal=False, error=f"cannot open {self.source.name}: {exc}")
                log.warning("%s; retrying in %.1f s", self._error, delay)
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff_max)
                continue
            if not first:
                with self._lock:
                    self._reconnects += 1
            first = False
            self._set(signal=True)
            got_any = self._pump()
            self.source.close()
            if self._stop.is_set():
                break
            self._set(signal=False, error=f"no signal from {self.source.name}")
            log.warning("lost signal from %s; reopening in %.1f s", self.source.name, delay)
            if got_any:
                delay = self.backoff_min  # it worked for a while: retry quickly first
            self._stop.wait(delay)
            delay = min(delay * 2, self.backoff_max)

    def _pump(self) -> bool:
        """Read until the signal is lost or we are stopped; True when any frame came."""
        got_any = False
        while not self._stop.is_set():
            try:
                frame = self.source.read()
            except Exception as exc:  # noqa: BLE001 - a driver error is a lost signal
                log.warning("%s: read failed: %s", self.source.name, exc)
                frame = None
            if frame is None:
                return got_any
            if not self._accept(frame):
                continue
            got_any = True
            with self._lock:
                self._frames += 1
            self.slot.put(frame)
        return got_any

