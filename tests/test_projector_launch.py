"""`campo serve --projector` opens the projector page full screen, or says where it is; it never
stops the server (server/projector_launch.py)."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest

from campo.server import projector_launch as launch
from campo.server.projector_launch import browser_command, open_projector, projector_url


def test_the_url_is_the_local_projector_page() -> None:
    assert projector_url("127.0.0.1", 8000) == "http://127.0.0.1:8000/projector"
    assert projector_url("0.0.0.0", 8443, "t o", https=True) == "https://127.0.0.1:8443/projector?token=t%20o"
    assert projector_url("::1", 8000) == "http://[::1]:8000/projector"


def test_chromium_is_asked_for_a_kiosk_window_in_its_own_profile() -> None:
    cmd = browser_command("/usr/bin/chromium", "http://127.0.0.1:8000/projector", "/tmp/p")
    assert cmd[:3] == ["/usr/bin/chromium", "--kiosk", "--app=http://127.0.0.1:8000/projector"]
    assert "--user-data-dir=/tmp/p" in cmd
    assert browser_command("/usr/bin/firefox", "u", "/tmp/p")[:2] == ["/usr/bin/firefox", "--kiosk"]


def test_without_a_display_the_url_is_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    said = open_projector("http://127.0.0.1:1/projector", "127.0.0.1", 1, timeout=0.1)
    assert said == "campo serve: projector (no display): open http://127.0.0.1:1/projector full screen on the projector's screen"


def test_without_a_browser_the_url_is_printed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setenv("PATH", str(tmp_path))
    said = open_projector("http://127.0.0.1:1/projector", "127.0.0.1", 1, timeout=0.1)
    assert "no browser found" in said and "http://127.0.0.1:1/projector" in said


def test_the_browser_found_is_started_once_the_server_listens(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A program named chromium first on PATH (a script writing down its arguments) is started
    with the kiosk flags once the port accepts connections."""
    args_file = tmp_path / "args.txt"
    fake = tmp_path / "chromium"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {args_file}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setenv("PATH", str(tmp_path))
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        url = projector_url("127.0.0.1", port)
        said = open_projector(url, "127.0.0.1", port, timeout=5)
    assert said.startswith("campo serve: projector page opened full screen in chromium")
    assert launch.STARTED[-1].wait(timeout=10) == 0
    args = args_file.read_text().split("\n")
    assert "--kiosk" in args and f"--app={url}" in args


def test_a_server_that_never_listens_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setenv("PATH", str(tmp_path))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]   # bound, never listening
        said = launch.open_projector(projector_url("127.0.0.1", port), "127.0.0.1", port, timeout=0.3)
    assert "the server did not start" in said
