"""The status bar in real headless Chromium shows what issue 16 made visible: the recording (and
why it is paused) and the images a folder source skipped."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from campo.server.recording import attach
from campo.server.rig import ServerSettings
from campo.server.runner import ServerThread, free_port
from tests.browser_fixtures import checked_page, require_chromium
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames, wait_for

pytestmark = [pytest.mark.browser]

require_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    frames = tmp_path_factory.mktemp("frames")
    render_frames(frames, [LAYOUT, LAYOUT])
    (frames / "frame000b.png").write_bytes(b"not an image")
    work = tmp_path_factory.mktemp("work")
    settings = ServerSettings(source=str(frames), table=TABLE, roster=ROSTER, setup_file=work / "terrain.json",
                              port=free_port(), fps=5.0, status_interval_s=0.25)
    srv = ServerThread(settings)
    attach(srv.app, srv.services, work / "game.db")
    with srv:
        assert wait_for(lambda: srv.services.tracker.state is not None
                        and len(srv.services.tracker.state["bases"]) == 4, timeout=20)
        yield srv


@pytest.fixture
def page(browser: Any, server: ServerThread) -> Iterator[Any]:
    with checked_page(browser, f"{server.url}/", ['[data-testid="base-pie-aosta"]']) as pg:
        yield pg


def test_the_status_bar_shows_the_recording_and_the_skipped_images(page: Any) -> None:
    page.wait_for_function("document.querySelector('[data-testid=recording]').textContent === 'recording game.db'")
    assert "ok" in page.locator('[data-testid="recording"]').get_attribute("class")
    page.wait_for_function("document.querySelector('[data-testid=skipped-images]').textContent.length > 0")
    text = page.locator('[data-testid="skipped-images"]').text_content()
    assert text.startswith("images skipped: frame000b.png (cannot read this image")
