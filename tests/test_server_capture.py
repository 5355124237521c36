"""The capture thread: newest frame only, drops counted, reconnects after a lost signal."""

from __future__ import annotations

import logging
import shutil
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from campo.server.capture import Capture, LatestSlot
from campo.server.sources import Frame, FolderSource
from tests.server_fixtures import wait_for


def _frame(i: int, t: float | None = None) -> Frame:
    return Frame(np.zeros((2, 2, 3), np.uint8), time.monotonic() if t is None else t, time.time(), i)


def test_latest_slot_keeps_the_newest_and_counts_drops() -> None:
    slot = LatestSlot()
    assert slot.take(timeout=0.01) is None
    assert slot.put(_frame(1)) is False
    assert slot.put(_frame(2)) is True
    assert slot.put(_frame(3)) is True
    got = slot.take(timeout=0)
    assert got is not None and got.index == 3
    assert slot.dropped == 2
    assert slot.take(timeout=0.01) is None


def test_latest_slot_wakes_a_waiting_taker() -> None:
    slot = LatestSlot()
    threading.Timer(0.05, lambda: slot.put(_frame(7))).start()
    got = slot.take(timeout=5)
    assert got is not None and got.index == 7


def _shots(folder: Path, n: int = 3) -> None:
    folder.mkdir(exist_ok=True)
    for i in range(n):
        cv2.imwrite(str(folder / f"{i}.png"), np.full((24, 32, 3), 30 * i, np.uint8))


def test_a_slow_consumer_makes_the_capture_drop_not_queue(tmp_path: Path) -> None:
    _shots(tmp_path / "shots")
    cap = Capture(FolderSource(tmp_path / "shots", fps=200))
    cap.start()
    try:
        assert wait_for(lambda: cap.status().frames >= 40, timeout=10)
        status = cap.status()
        assert status.signal and status.source == "folder shots"
        assert status.dropped >= status.frames - 2  # nobody took them
        frame = cap.slot.take(timeout=1)
        assert frame is not None and frame.index >= 40
    finally:
        cap.stop()


class _RepeatingClock(FolderSource):
    """A folder whose driver stamps every second frame with the previous frame's time."""

    def read(self) -> Frame | None:
        frame = super().read()
        if frame is not None and frame.index % 2 == 0:
            return Frame(frame.image, getattr(self, "_last_t", frame.t), frame.wall, frame.index)
        if frame is not None:
            self._last_t = frame.t
        return frame


def test_non_monotonic_timestamps_are_rejected(tmp_path: Path) -> None:
    _shots(tmp_path / "shots")
    cap = Capture(_RepeatingClock(tmp_path / "shots", fps=200))
    cap.start()
    try:
        assert wait_for(lambda: cap.status().rejected >= 5, timeout=10)
        assert cap.status().frames >= 5
    finally:
        cap.stop()


def test_lost_signal_reconnects_with_backoff(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "shots"
    _shots(folder)
    cap = Capture(FolderSource(folder, fps=100), backoff_s=(0.05, 0.2))
    with caplog.at_level(logging.WARNING):
        cap.start()
        try:
            assert wait_for(lambda: cap.status().frames >= 3)
            shutil.rmtree(folder)  # the "camera" is unplugged
            assert wait_for(lambda: not cap.status().signal)
            assert "no signal" in cap.status().error or "cannot open" in cap.status().error
            time.sleep(0.5)  # several failed reopen attempts, the thread survives
            assert not cap.status().signal
            _shots(folder)  # plugged back in
            assert wait_for(lambda: cap.status().signal and cap.status().reconnects >= 1)
            before = cap.status().frames
            assert wait_for(lambda: cap.status().frames > before + 3)
        finally:
            cap.stop()
    assert "retrying" in caplog.text or "reopening" in caplog.text


def test_stop_is_prompt_even_while_backing_off(tmp_path: Path) -> None:
    cap = Capture(FolderSource(tmp_path / "never-there"), backoff_s=(5.0, 5.0))
    cap.start()
    assert wait_for(lambda: "cannot open" in cap.status().error)
    t0 = time.monotonic()
    cap.stop()
    assert time.monotonic() - t0 < 2


def test_a_camera_feed_that_stops_stays_no_signal(monkeypatch: pytest.MonkeyPatch) -> None:
    """`campo serve` reads its camera through the setup host's feed (`FeedSource`): when the
    camera stops sending (a folder removed, a webcam unplugged), the live status must stay
    "no signal" — it flapped back to "signal" at every reopen, with the table "located"."""
    from campo.server.setup import feed as feed_module
    from campo.server.setup.feed import FeedSource, FrameFeed
    from campo.server.sources import Frame

    monkeypatch.setattr(feed_module, "NO_SIGNAL_S", 0.3)
    feed = FrameFeed()
    stop = threading.Event()

    def camera() -> None:
        k = 0
        while not stop.is_set():
            k += 1
            feed.publish(Frame(np.zeros((8, 8, 3), np.uint8), time.monotonic(), time.time(), k))
            time.sleep(0.02)

    sender = threading.Thread(target=camera, daemon=True)
    sender.start()
    capture = Capture(FeedSource(feed, "test camera"), backoff_s=(0.05, 0.2))
    capture.start()
    try:
        deadline = time.monotonic() + 5
        while capture.status().frames < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert capture.status().signal
        stop.set()
        sender.join()
        time.sleep(0.6)
        seen = []
        for _ in range(30):   # 1.5 s of reopening attempts
            seen.append(capture.status().signal)
            time.sleep(0.05)
        assert not any(seen)
        assert "no frames from" in capture.status().error
    finally:
        capture.stop()
