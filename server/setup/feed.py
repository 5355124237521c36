"""One camera, several readers: the newest frame fanned out to the setup and the live game.

The host runs one `Capture` thread on the real source (webcam, phone, video, rehearsal camera)
and publishes each frame here. Readers never take a frame from each other: each waits for a
frame newer than the last one it saw (and skips any it was too slow for), so the calibration,
the table check and the live tracker all see the same camera without a second capture thread.
`FeedSource` is the `FrameSource` the live game's own capture thread reads.
"""

from __future__ import annotations

import threading
import time

from campo.server.sources import Frame, SourceError

NO_SIGNAL_S = 2.0
"""A live game reading the feed calls the signal lost after this long without a frame."""


class FrameFeed:
    """The newest frame, and a condition readers wait on for the next one."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._frame: Frame | None = None
        self._serial = 0
        self.name = "no camera"

    def publish(self, frame: Frame) -> None:
        with self._cond:
            self._frame = frame
            self._serial += 1
            self._cond.notify_all()

    def latest(self) -> tuple[int, Frame | None]:
        """(serial, frame) of the newest frame (serial 0: none yet)."""
        with self._cond:
            return self._serial, self._frame

    def next_after(self, serial: int, timeout: float) -> tuple[int, Frame | None]:
        """The first frame newer than ``serial``, waiting up to ``timeout`` s ((serial, None) when none came)."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._serial <= serial:
                left = end - time.monotonic()
                if left <= 0:
                    return serial, None
                self._cond.wait(left)
            return self._serial, self._frame


class FeedSource:
    """The feed as a `FrameSource`, for the live game's capture thread."""

    def __init__(self, feed: FrameFeed, name: str) -> None:
        self.feed = feed
        self.name = name
        self._seen = 0
        self._open = False

    def open(self) -> None:
        """Open once the camera sends a frame: a camera that sends none for `NO_SIGNAL_S` (gone,
        unplugged, a folder removed) fails to open, so the live status stays "no signal" with
        the table not located, instead of flapping back to "signal" at every reopen."""
        serial, _ = self.feed.latest()
        newer, frame = self.feed.next_after(serial, NO_SIGNAL_S)
        if frame is None:
            raise SourceError(f"no frames from {self.feed.name}")
        self._seen = newer - 1   # the first read returns that frame
        self._open = True

    def read(self) -> Frame | None:
        while self._open:
            serial, frame = self.feed.next_after(self._seen, NO_SIGNAL_S)
            if frame is None:
                return None   # no frame for a while: the live status shows "no signal"
            self._seen = serial
            return frame
        return None

    def close(self) -> None:
        self._open = False
