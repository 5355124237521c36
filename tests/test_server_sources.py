"""Frame sources: folder, video file, camera, and `open_source` turning `--source` into one."""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from campo.server.sources import CameraSource, FolderSource, SourceError, VideoSource, open_source


def _images(folder: Path, n: int, size: tuple[int, int] = (64, 48)) -> list[np.ndarray]:
    folder.mkdir(exist_ok=True)
    out = []
    for i in range(n):
        img = np.full((size[1], size[0], 3), 40 * i, np.uint8)
        cv2.imwrite(str(folder / f"img{i:02d}.png"), img)
        out.append(img)
    return out


def test_folder_source_reads_in_name_order_and_loops(tmp_path: Path) -> None:
    images = _images(tmp_path / "shots", 3)
    (tmp_path / "shots" / "notes.txt").write_text("not an image")
    src = FolderSource(tmp_path / "shots", fps=1000)
    src.open()
    frames = [src.read() for _ in range(5)]
    src.close()
    assert all(f is not None for f in frames)
    assert [int(f.image[0, 0, 0]) for f in frames] == [int(images[i % 3][0, 0, 0]) for i in range(5)]  # type: ignore[union-attr]
    assert [f.index for f in frames] == [1, 2, 3, 4, 5]  # type: ignore[union-attr]
    ts = [f.t for f in frames]  # type: ignore[union-attr]
    assert ts == sorted(ts) and len(set(ts)) == 5


def test_folder_source_is_paced(tmp_path: Path) -> None:
    _images(tmp_path / "shots", 2)
    src = FolderSource(tmp_path / "shots", fps=20)
    src.open()
    t0 = time.monotonic()
    for _ in range(5):
        src.read()
    assert time.monotonic() - t0 >= 4 / 20 * 0.9


def test_folder_source_loses_signal_when_images_vanish(tmp_path: Path) -> None:
    _images(tmp_path / "shots", 2)
    src = FolderSource(tmp_path / "shots", fps=1000)
    src.open()
    assert src.read() is not None
    for p in (tmp_path / "shots").iterdir():
        p.unlink()
    assert src.read() is None


def test_video_source_plays_and_loops(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 200.0, (64, 48))
    assert writer.isOpened()
    for i in range(3):
        writer.write(np.full((48, 64, 3), 80 * i, np.uint8))
    writer.release()
    src = VideoSource(path)
    src.open()
    frames = [src.read() for _ in range(5)]
    src.close()
    assert all(f is not None and f.image.shape == (48, 64, 3) for f in frames)
    levels = [int(f.image.mean()) for f in frames]  # type: ignore[union-attr]
    assert levels[3] == pytest.approx(levels[0], abs=3)  # looped back to the first frame


def test_undecodable_video_is_an_error_at_open(tmp_path: Path) -> None:
    path = tmp_path / "broken.mp4"
    path.write_bytes(b"this is no video")
    with pytest.raises(SourceError, match="broken.mp4"):
        VideoSource(path).open()


def test_missing_camera_is_an_error_at_open() -> None:
    with pytest.raises(SourceError, match="cannot open camera"):
        CameraSource("/dev/video-does-not-exist").open()


def test_open_source_picks_the_kind(tmp_path: Path) -> None:
    _images(tmp_path / "shots", 1)
    (tmp_path / "game.mp4").write_bytes(b"")
    assert isinstance(open_source(str(tmp_path / "shots")), FolderSource)
    assert isinstance(open_source(str(tmp_path / "game.mp4")), VideoSource)
    assert isinstance(open_source("0"), CameraSource)
    assert isinstance(open_source("/dev/video3"), CameraSource)


@pytest.mark.parametrize("spec, message", [
    ("", "empty --source"),
    ("nowhere/at/all", "no such camera, video file or image folder"),
])
def test_open_source_errors_are_clear(spec: str, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        open_source(spec)


def test_single_image_is_not_a_source(tmp_path: Path) -> None:
    _images(tmp_path / "shots", 1)
    with pytest.raises(SourceError, match="give the folder"):
        open_source(str(tmp_path / "shots" / "img00.png"))


def test_empty_folder_is_an_error_at_open(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="no images"):
        FolderSource(tmp_path / "empty").open()
