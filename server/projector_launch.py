"""`campo serve --projector`: open the projector page full screen once the server listens.

A Chromium-family browser is started with ``--kiosk --app=URL`` (Firefox with ``--kiosk``) in a
profile of its own, so it does not join an open window. Without a browser or without a display
the URL is printed instead: the umpire opens it on the projector's screen by hand. Nothing here
ever stops the server.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import quote

from campo.server.security import local_address

STARTED: list[subprocess.Popen[bytes]] = []
"""The browsers started here: they outlive this call (and may outlive the server), so they are
kept rather than left to the garbage collector while still running."""

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "microsoft-edge", "firefox")


def projector_url(host: str, port: int, token: str | None = None, https: bool = False) -> str:
    """Where the projector page is, seen from this machine (`security.local_address`, the
    address `wait_listening` probes).

    >>> projector_url("0.0.0.0", 8000, "abc"), projector_url("::", 8000)
    ('http://127.0.0.1:8000/projector?token=abc', 'http://[::1]:8000/projector')
    """
    local = local_address(host)
    if ":" in local:
        local = f"[{local}]"
    query = f"?token={quote(token)}" if token else ""
    return f"{'https' if https else 'http'}://{local}:{port}/projector{query}"


def find_browser() -> str | None:
    """The first browser on PATH that can show a page full screen, or None."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def browser_command(browser: str, url: str, profile: str) -> list[str]:
    """The command that shows ``url`` full screen without window decorations."""
    if os.path.basename(browser).startswith("firefox"):
        return [browser, "--kiosk", "--new-instance", "--profile", profile, url]
    return [browser, "--kiosk", f"--app={url}", f"--user-data-dir={profile}", "--no-first-run",
            "--noerrdialogs", "--disable-infobars", "--autoplay-policy=no-user-gesture-required"]


def has_display() -> bool:
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def wait_listening(host: str, port: int, timeout: float) -> bool:
    """Whether something accepts connections on ``host:port`` (a wildcard bind probed at its
    `security.local_address`) within ``timeout`` seconds."""
    target = local_address(host)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with socket.create_connection((target, port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def open_projector(url: str, host: str, port: int, *, timeout: float = 60.0) -> str:
    """Once the server listens, start the browser on ``url``; returns what was done (printed)."""
    if not wait_listening(host, port, timeout):
        return f"campo serve: projector: the server did not start; open {url} on the projector's screen"
    browser = find_browser() if has_display() else None
    if browser is None:
        why = "no display" if not has_display() else "no browser found"
        return f"campo serve: projector ({why}): open {url} full screen on the projector's screen"
    profile = tempfile.mkdtemp(prefix="campo-projector-")
    try:
        STARTED.append(subprocess.Popen(browser_command(browser, url, profile), stdin=subprocess.DEVNULL,  # noqa: S603
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
    except OSError as exc:
        return f"campo serve: projector: {os.path.basename(browser)} did not start ({exc}); open {url} by hand"
    return f"campo serve: projector page opened full screen in {os.path.basename(browser)} ({url})"


def launch_in_background(url: str, host: str, port: int) -> threading.Thread:
    """`open_projector` in a daemon thread, printing what it did (the serve goes on regardless)."""
    def run() -> None:
        try:
            print(open_projector(url, host, port), flush=True)
        except Exception as exc:  # noqa: BLE001 - the projector is never worth stopping the server
            print(f"campo serve: projector: {exc}; open {url} by hand", flush=True)

    thread = threading.Thread(target=run, name="campo-projector-browser", daemon=True)
    thread.start()
    return thread
