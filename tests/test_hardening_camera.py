"""Issue 16, the camera: an unreadable image in a folder source is skipped and reported, and
the images after it play (it flapped the signal every frame and never showed them)."""

from __future__ import annotations

from pathlib import Path

import httpx

from campo.server.rig import ServerSettings
from campo.server.runner import ServerThread, free_port
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames, wait_for

MOVED = [(b, x, y + 100.0 if b == "pie-aosta" else y, h) for b, x, y, h in LAYOUT]


def aosta_y(url: str) -> float | None:
    bases = httpx.get(url + "/api/state", timeout=10).json()["bases"]
    return next((b["y_mm"] for b in bases if b["id"] == "pie-aosta"), None)


def test_an_unreadable_image_is_skipped_and_the_rest_play(tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    render_frames(folder, [LAYOUT, LAYOUT, MOVED])     # frame000, frame001, frame002
    (folder / "frame001.png").write_bytes(b"not an image at all")
    (folder / "frame001b.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01\x86\xa0\x00\x01\x86\xa0"
                                           b"\x08\x02\x00\x00\x00")   # claims 100000 x 100000
    settings = ServerSettings(source=str(folder), table=TABLE, roster=ROSTER, setup_file=tmp_path / "terrain.json",
                              fps=8.0, port=free_port(), status_interval_s=0.2)
    with ServerThread(settings) as srv:
        assert wait_for(lambda: aosta_y(srv.url) is not None, timeout=30)
        # the image after the bad ones is shown (Aosta 100 mm further), and the loop goes on
        assert wait_for(lambda: (y := aosta_y(srv.url)) is not None and abs(y - 500.0) < 5, timeout=20)
        assert wait_for(lambda: (y := aosta_y(srv.url)) is not None and abs(y - 400.0) < 5, timeout=20)
        camera = httpx.get(srv.url + "/api/status", timeout=10).json()["camera"]
    assert camera["signal"] is True and camera["reconnects"] == 0 and camera["error"] == ""
    skipped = {s["name"]: s["error"] for s in camera["skipped"]}
    assert set(skipped) == {"frame001.png", "frame001b.png"}
    assert "not a PNG, JPEG" in skipped["frame001.png"]
    assert "100000x100000 pixels is too large" in skipped["frame001b.png"]


def test_a_folder_with_nothing_readable_has_no_signal(tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    (folder / "a.png").write_bytes(b"junk")
    settings = ServerSettings(source=str(folder), table=TABLE, roster=ROSTER, setup_file=tmp_path / "terrain.json",
                              fps=8.0, port=free_port(), status_interval_s=0.2)
    with ServerThread(settings) as srv:
        def camera() -> dict:
            return httpx.get(srv.url + "/api/status").json()["camera"]  # type: ignore[no-any-return]

        assert wait_for(lambda: camera()["reconnects"] >= 1, timeout=20)
        assert wait_for(lambda: not camera()["signal"] and camera()["skipped"], timeout=10)
        assert camera()["skipped"][0]["name"] == "a.png"
