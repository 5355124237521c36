"""A phone as the camera: the camera page in headless Chromium with a fake camera device streams
JPEG frames over the WebSocket into the production capture path (`BrowserCameraSource` ->
`Capture` -> the feed the calibration, the table check and the live game read); over plain HTTP on
loopback (a secure context) and over `--https` with the self-signed certificate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser_fixtures import CHROMIUM_ARGS, require_chromium
from tests.server_fixtures import wait_for
from tests.setup_fixtures import HostThread

pytestmark = [pytest.mark.browser]
require_chromium()

FAKE_CAMERA = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]


@pytest.fixture(scope="module")
def chromium_args() -> list[str]:
    return [*CHROMIUM_ARGS, *FAKE_CAMERA, "--ignore-certificate-errors"]


def stream(browser: Any, url: str, host: HostThread, frames: int = 12) -> dict[str, Any]:
    context = browser.new_context(viewport={"width": 412, "height": 915}, ignore_https_errors=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    try:
        page.goto(url)
        page.select_option('[data-testid="camera-resolution"]', "1280x720")
        page.click('[data-testid="camera-start"]')
        page.wait_for_function(f"window.campoCamera.acked >= {frames}", timeout=60000)
        stats = page.evaluate("() => ({...window.campoCamera})")
        assert page.locator('[data-testid="camera-state"]').text_content() == "Streaming to Campo."
    finally:
        context.close()
    assert problems == []
    return stats


def test_the_phone_page_streams_into_the_capture_path(browser: Any, tmp_path: Path) -> None:
    with HostThread(tmp_path, "phone", token="secret-token") as host:
        stats = stream(browser, f"{host.url}/camera?token=secret-token", host)
        assert stats["errors"] == [] and stats["width"] == 1280 and stats["height"] == 720
        _, frame = host.campo.feed.latest()
        assert frame is not None and frame.image.shape == (720, 1280, 3)
        assert wait_for(lambda: host.campo.camera_status()["frames"] >= 10)
        assert host.campo.camera_status()["signal"] is True


def test_frames_without_the_token_are_refused(browser: Any, tmp_path: Path) -> None:
    with HostThread(tmp_path, "phone", token="secret-token") as host:
        context = browser.new_context()
        page = context.new_page()
        try:
            page.goto(f"{host.url}/camera")
            page.click('[data-testid="camera-start"]')
            page.wait_for_function("window.campoCamera.errors.length > 0", timeout=30000)
            assert "token" in page.evaluate("window.campoCamera.errors[0]")
        finally:
            context.close()
        assert host.campo.feed.latest() == (0, None)


def test_https_with_the_self_signed_certificate(browser: Any, tmp_path: Path) -> None:
    from campo.server.setup.https import ensure_certificate

    certificate = ensure_certificate([], tmp_path / "https")
    with HostThread(tmp_path / "game", "phone", certificate=certificate) as host:
        assert host.url.startswith("https://")
        stats = stream(browser, f"{host.url}/camera", host, frames=6)
        assert stats["acked"] >= 6
