"""`campo serve --projector` opens the projector page full screen, or says where it is; it never
stops the server (server/projector_launch.py)."""

from __future__ import annotations

import socket
import stat
from collections.abc import Iterator
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


@pytest.fixture
def listening() -> Iterator[int]:
    """A port something listens on (the server, as far as the launcher can tell)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def test_a_server_on_every_ipv6_interface_is_opened_where_it_listens() -> None:
    """A bind to "::" may take IPv6 only: the URL and the probe both go to ::1 (the URL once
    said 127.0.0.1 while the probe asked ::1)."""
    with socket.socket(socket.AF_INET6) as listener:
        listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        listener.bind(("::", 0))
        listener.listen()
        port = listener.getsockname()[1]
        url = projector_url("::", port)
        assert url == f"http://[::1]:{port}/projector"
        assert launch.wait_listening("::", port, timeout=5)


def test_without_a_display_the_url_is_printed(monkeypatch: pytest.MonkeyPatch, listening: int) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    url = projector_url("127.0.0.1", listening)
    said = open_projector(url, "127.0.0.1", listening, timeout=5)
    assert said == f"campo serve: projector (no display): open {url} full screen on the projector's screen"


def test_without_a_browser_the_url_is_printed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, listening: int) -> None:
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setenv("PATH", str(tmp_path))
    said = open_projector("http://127.0.0.1:1/projector", "127.0.0.1", listening, timeout=5)
    assert "no browser found" in said and "http://127.0.0.1:1/projector" in said


def test_the_browser_found_is_started_once_the_server_listens(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                             listening: int) -> None:
    """A program named chromium first on PATH (a script writing down its arguments) is started
    with the kiosk flags once the port accepts connections."""
    args_file = tmp_path / "args.txt"
    fake = tmp_path / "chromium"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {args_file}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setenv("PATH", str(tmp_path))
    url = projector_url("127.0.0.1", listening)
    said = open_projector(url, "127.0.0.1", listening, timeout=5)
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


@pytest.mark.slow
def test_campo_serve_projector_without_a_display_prints_the_url_and_serves(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    import httpx

    from campo.server.runner import free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    proc = subprocess.Popen([sys.executable, "-m", "campo.server.cli", "serve", "--source", "demo", "--fps", "2",
                             "--projector", "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=tmp_path)
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line.strip())
            if "projector" in line:
                break
        assert lines[-1] == (f"campo serve: projector (no display): open http://127.0.0.1:{port}/projector "
                             "full screen on the projector's screen"), lines
        page = httpx.get(f"http://127.0.0.1:{port}/projector", timeout=30)
        assert page.status_code == 200 and "projector.js" in page.text
        assert httpx.get(f"http://127.0.0.1:{port}/api/projector", timeout=30).json()["calibration"] is None
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err
