"""Where frames come from: a webcam, a video file, a folder of images, or the synthetic demo camera.

All four share one small `FrameSource` interface (open / read / close), so tests, benchmarks and
a club evening with a real webcam all go through the same capture thread and per-frame loop.
`read()` returns the next frame or `None` when the signal is lost (a camera unplugged, a video
that cannot be decoded); the capture thread then closes and reopens the source with back-off.
A folder skips an image it cannot read (damaged, too large) and says so in `skipped`; the others
play on.

Files and folders are paced at their own frame rate and loop at the end, so a recorded clip
behaves like a camera watching the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from campo.errors import CampoInputError
from campo.vision.image_files import ImageError, read_image

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg")


class SourceError(CampoInputError):
    """A source that cannot be opened at start (bad path, no such camera)."""


@dataclass(frozen=True)
class Frame:
    """One captured image: BGR pixels, when it was grabbed, and its number from this source.

    `t` is `time.monotonic()` at capture (what the pipeline's tracker uses); `wall` is
    `time.time()` at capture, so a browser on the same machine can measure end-to-end latency.
    `truth` carries the synthetic camera's ground truth (None for real cameras).
    """

    image: np.ndarray = field(repr=False)
    t: float
    wall: float
    index: int
    truth: Any = field(default=None, repr=False)


@runtime_checkable
class ReportsSkipped(Protocol):
    """A source that can skip some of its input (a folder's unreadable images) and go on."""

    def skipped(self) -> dict[str, str]:
        """What was skipped lately and why (file name -> reason)."""


@runtime_checkable
class FrameSource(Protocol):
    """A camera-like thing the capture thread can open, read from and close."""

    name: str

    def open(self) -> None:
        """Acquire the device or file; raise `SourceError` when it is not there."""

    def read(self) -> Frame | None:
        """Block until the next frame; `None` when the signal is lost."""

    def close(self) -> None:
        """Release the device or file (idempotent)."""


class _Pacer:
    """Sleeps so that `tick()` returns at most `fps` times a second (no catch-up bursts)."""

    def __init__(self, fps: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.period = 1.0 / fps if fps > 0 else 0.0
        self.clock = clock
        self._next = 0.0

    def tick(self) -> None:
        now = self.clock()
        if self._next > now:
            time.sleep(self._next - now)
            now = self._next
        self._next = now + self.period


class _Counter:
    def __init__(self) -> None:
        self.index = 0

    def frame(self, image: np.ndarray, truth: Any = None) -> Frame:
        self.index += 1
        return Frame(image, time.monotonic(), time.time(), self.index, truth)


class CameraSource:
    """A webcam or capture card by device index (`--source 0`) or device path (`/dev/video2`)."""

    def __init__(self, device: int | str, *, width: int | None = None, height: int | None = None) -> None:
        self.device = device
        self.name = f"camera {device}"
        self.width, self.height = width, height
        self._cap: cv2.VideoCapture | None = None
        self._count = _Counter()

    def open(self) -> None:
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open camera {self.device!r} (is it plugged in and free?)")
        if self.width and self.height:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # we want the newest frame, not a backlog
        self._cap = cap

    def read(self) -> Frame | None:
        if self._cap is None:
            return None
        ok, image = self._cap.read()
        if not ok or image is None or image.size == 0:
            return None
        return self._count.frame(image)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class VideoSource:
    """A video file played at its own frame rate, looping at the end."""

    def __init__(self, path: str | Path, *, fps: float | None = None, loop: bool = True) -> None:
        self.path = Path(path)
        self.name = f"video {self.path.name}"
        self.loop = loop
        self._fps = fps
        self._cap: cv2.VideoCapture | None = None
        self._pacer: _Pacer | None = None
        self._count = _Counter()

    def open(self) -> None:
        if not self.path.is_file():
            raise SourceError("video file not found", path=self.path)
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise SourceError("cannot decode this video (unknown format?)", path=self.path)
        fps = self._fps or cap.get(cv2.CAP_PROP_FPS) or 25.0
        self._pacer = _Pacer(fps if 0 < fps <= 240 else 25.0)
        self._cap = cap

    def read(self) -> Frame | None:
        if self._cap is None or self._pacer is None:
            return None
        ok, image = self._cap.read()
        if not ok and self.loop:
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, image = self._cap.read()
        if not ok or image is None:
            return None
        self._pacer.tick()
        return self._count.frame(image)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class FolderSource:
    """The images of a folder in name order, `fps` a second, looping (stills of a game).

    An image that cannot be read (damaged, not an image, too large, deleted) is skipped and
    listed in `skipped()` until it reads again; the folder is listed afresh at each loop, so
    images added or removed during a game are noticed. Only when no image at all can be read is
    the signal lost.
    """

    MAX_SKIPPED = 50   # reasons kept (a folder of thousands of bad files lists the first 50)

    def __init__(self, path: str | Path, *, fps: float = 2.0, loop: bool = True) -> None:
        self.path = Path(path)
        self.name = f"folder {self.path.name}"
        self.fps = fps
        self.loop = loop
        self._files: list[Path] = []
        self._next = 0
        self._skipped: dict[str, str] = {}
        self._pacer = _Pacer(fps)
        self._count = _Counter()

    def _scan(self) -> list[Path]:
        try:
            return sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        except OSError:
            return []

    def open(self) -> None:
        if not self.path.is_dir():
            raise SourceError("image folder not found", path=self.path)
        self._files = self._scan()
        if not self._files:
            raise SourceError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in this folder", path=self.path)
        self._next = 0

    def skipped(self) -> dict[str, str]:
        return dict(self._skipped)

    def read(self) -> Frame | None:
        tried = 0
        while self._files and tried < len(self._files):
            if self._next >= len(self._files):
                if not self.loop:
                    return None
                self._files, self._next = self._scan(), 0   # images added or removed meanwhile
                continue
            path = self._files[self._next]
            self._next += 1
            tried += 1
            try:
                image = read_image(path)
            except ImageError as exc:
                if path.name in self._skipped or len(self._skipped) < self.MAX_SKIPPED:
                    self._skipped[path.name] = exc.message
                continue
            self._skipped.pop(path.name, None)
            self._pacer.tick()
            return self._count.frame(image)
        return None   # nothing in the folder can be read: no signal (reopening rescans)

    def close(self) -> None:
        self._files = []


class DemoSource:
    """The synthetic camera filming the demo game (vision/synthetic/demo.py), in real time, looping.

    Each frame is rendered for the game time elapsed since `open()`, so a slow consumer sees the
    game move on (as with a real camera) instead of slowing it down.
    """

    def __init__(self, *, fps: float = 15.0, speed: float = 1.0, start_s: float = 0.0,
                 size: tuple[int, int] = (1920, 1080)) -> None:
        from campo.vision.synthetic.demo import DemoCamera

        self.name = "demo"
        self.camera = DemoCamera(size=size)
        self.game = self.camera.game
        self.intrinsics = self.camera.intrinsics
        self.fps = fps
        self.speed = speed
        self.start_s = start_s
        self._t0: float | None = None
        self._pacer = _Pacer(fps)
        self._count = _Counter()

    def open(self) -> None:
        self._t0 = time.monotonic()

    def game_time(self) -> float:
        """Seconds into the demo script (it loops)."""
        elapsed = 0.0 if self._t0 is None else time.monotonic() - self._t0
        return (self.start_s + elapsed * self.speed) % self.game.duration_s

    def read(self) -> Frame | None:
        if self._t0 is None:
            return None
        self._pacer.tick()
        render = self.camera.render(self.game_time())
        return self._count.frame(render.image, render.truth)

    def close(self) -> None:
        self._t0 = None


def open_source(spec: str, *, fps: float | None = None) -> FrameSource:
    """The source a `--source` value names: `demo`, a device index or `/dev/video*`, a video, a folder.

    Nothing is opened here (the capture thread opens it), but paths are checked so a typo is an
    error at start rather than an endless "no signal".
    """
    spec = spec.strip()
    if not spec:
        raise SourceError("empty --source (use demo, a camera number, a video file or an image folder)")
    if spec == "demo":
        return DemoSource(fps=fps or 15.0)
    if spec.isdigit():
        return CameraSource(int(spec))
    path = Path(spec)
    if spec.startswith("/dev/video"):
        return CameraSource(spec)
    if path.is_dir():
        return FolderSource(path, fps=fps or 2.0)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            raise SourceError("a single image is not a source; give the folder that holds it", path=path)
        return VideoSource(path, fps=fps)
    raise SourceError("no such camera, video file or image folder (use demo, 0, 1, ... for cameras)",
                      path=path)
