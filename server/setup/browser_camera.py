"""A browser's camera as a `FrameSource`: a phone on the club's Wi-Fi streams JPEG frames.

The camera page (`/camera`) opens the phone's camera with getUserMedia, draws each frame to a
canvas, encodes it as JPEG and sends it over the WebSocket `/ws/camera`; the server decodes it
here and hands it to the capture thread like any camera's frame. The page keeps at most two
frames in flight (each is acknowledged), so a slow Wi-Fi lowers the frame rate instead of
building a queue: the picture the tracker sees is never older than a frame or two.
"""

from __future__ import annotations

import struct
import threading
import time
from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from campo.errors import CampoInputError
from campo.server.capture import LatestSlot
from campo.server.sources import Frame

HEADER = struct.Struct("<Idd")
"""Before each JPEG: the page's frame number (u32), its capture time (ms since the Unix epoch on
the phone's clock) and how long encoding took (ms); little-endian."""
MAX_FRAME_BYTES = 8 * 1024 * 1024
MAX_SIDE_PX = 4096
WAIT_S = 1.0
IDLE_S = 60.0
"""`read` returns None (no signal) after this long without a frame: no phone is not an error to
log every second; the page shows how many camera pages are connected and their rate."""


@dataclass(frozen=True)
class Received:
    """What the server says back about one frame (the page shows it, the benchmark measures it)."""

    number: int
    width: int
    height: int
    decode_ms: float
    received_unix_ms: float

    def to_json(self) -> dict[str, float]:
        return {"ack": self.number, "width": self.width, "height": self.height,
                "decode_ms": round(self.decode_ms, 2), "server_ms": round(self.received_unix_ms, 1)}


def decode_frame(message: bytes) -> tuple[int, float, float, np.ndarray]:
    """(number, capture ms, encode ms, BGR image) from one binary message; `CampoInputError` if bad."""
    if len(message) <= HEADER.size:
        raise CampoInputError("camera frame too short", key="frame")
    if len(message) > MAX_FRAME_BYTES:
        raise CampoInputError(f"camera frame of {len(message)} bytes (limit {MAX_FRAME_BYTES})", key="frame")
    number, captured, encode_ms = HEADER.unpack_from(message)
    image = cv2.imdecode(np.frombuffer(message, np.uint8, offset=HEADER.size), cv2.IMREAD_COLOR)
    if image is None:
        raise CampoInputError("camera frame is not a JPEG or PNG image", key="frame")
    if max(image.shape[:2]) > MAX_SIDE_PX:
        raise CampoInputError(f"camera frame of {image.shape[1]}x{image.shape[0]} (limit {MAX_SIDE_PX} px a side)",
                              key="frame")
    return number, captured, encode_ms, image


class BrowserCameraSource:
    """Frames pushed by a browser (`push`), read by the capture thread (`read`)."""

    def __init__(self, name: str = "phone camera") -> None:
        self.name = name
        self._slot = LatestSlot()
        self._lock = threading.Lock()
        self._index = 0
        self._open = False
        self.senders = 0            # camera pages connected now
        self._times: deque[float] = deque(maxlen=60)
        self.last: Received | None = None
        # capture (on the sender's clock) -> decoded here, ms: a latency when both clocks agree
        # (the benchmark's browser runs on this machine); on a phone the page's round trip says more
        self.latencies_ms: deque[float] = deque(maxlen=2000)

    def open(self) -> None:
        self._open = True

    def push(self, message: bytes) -> Received:
        """Decode one frame from the camera page and make it the newest; what to acknowledge."""
        t0 = time.perf_counter()
        number, captured_ms, _, image = decode_frame(message)
        now = time.monotonic()
        with self._lock:
            self._index += 1
            index = self._index
            self._times.append(now)
        # the phone's clock is not ours: `wall` is when it arrived, what latency is counted from
        self._slot.put(Frame(image, now, time.time(), index))
        got = Received(number, image.shape[1], image.shape[0], (time.perf_counter() - t0) * 1000, time.time() * 1000)
        self.last = got
        self.latencies_ms.append(got.received_unix_ms - captured_ms)
        return got

    def fps(self) -> float:
        with self._lock:
            times = list(self._times)
        if len(times) < 2 or time.monotonic() - times[-1] > 2.0:
            return 0.0
        return (len(times) - 1) / max(times[-1] - times[0], 1e-6)

    def read(self) -> Frame | None:
        """The next frame; while no page sends any, wait quietly (up to `IDLE_S`, then "no signal")."""
        waited = 0.0
        while self._open and waited < IDLE_S:
            frame = self._slot.take(WAIT_S)
            if frame is not None:
                return frame
            waited += WAIT_S
        return None

    def close(self) -> None:
        self._open = False
