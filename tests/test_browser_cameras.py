"""The page with two cameras (docs/cameras.md) in Debian's chromium: each camera's signal, frame
rate, anchors and registration in the status bar, and the half of a lost camera marked unknown."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.browser_fixtures import checked_page, require_chromium
from tests.server_fixtures import wait_for
from tests.test_server_cameras import Unpluggable

require_chromium()


@pytest.mark.slow
def test_the_status_bar_shows_each_camera_and_a_lost_cameras_area(browser: Any, tmp_path: Path) -> None:
    from campo.server.app import build_services
    from campo.server.rig import ServerSettings, load_rig
    from campo.server.runner import ServerThread, free_port

    settings = ServerSettings(source="demo", sources=("demo", "demo"), port=free_port(), fps=4.0,
                              status_interval_s=0.25)
    rig = load_rig(settings)
    cable = Unpluggable(rig.cameras[1].source)
    rig = replace(rig, cameras=(rig.cameras[0], replace(rig.cameras[1], source=cable)))
    with ServerThread(settings, services=build_services(settings, rig)) as srv:
        assert wait_for(lambda: srv.services.tracker.state is not None
                        and len(srv.services.tracker.state["bases"]) >= 12, timeout=60)
        with checked_page(browser, f"{srv.url}/", ['[data-testid="base-pie-aosta"]']) as pg:
            pill = pg.locator('[data-testid="cameras"]')
            pg.wait_for_function("""() => {
                const t = document.querySelector('[data-testid="cameras"]').textContent;
                return /demo camera 1: [0-9.]+ fps, anchors 4, table located/.test(t)
                    && /demo camera 2: [0-9.]+ fps, anchors 4, table located/.test(t); }""", timeout=20000)
            assert "ok" in (pill.get_attribute("class") or "")
            assert pg.locator("polygon.unknown-area").count() == 0
            cable.unplugged.set()
            pg.wait_for_function("""() => document.querySelector('[data-testid="cameras"]')
                .textContent.includes('demo camera 2: no signal')""", timeout=20000)
            pg.wait_for_selector("polygon.unknown-area", timeout=20000)
            assert "bad" in (pill.get_attribute("class") or "")
            assert "unknown: demo camera 2 not seen" in pg.locator('[data-testid="unknown-areas"]').text_content()
            # the bases of the lost half are still drawn, faded (stale), not removed
            right = pg.evaluate("window.campo.state.bases.filter(b => b.x_mm > 1100).map(b => b.id)")
            assert right
            for base_id in right:
                assert "stale" in (pg.locator(f'[data-testid="base-{base_id}"]').get_attribute("class") or "")
            pg.screenshot(path=str(tmp_path / "camera-lost.png"))
            cable.unplugged.clear()
            pg.wait_for_function("""() => !document.querySelector('polygon.unknown-area')""", timeout=30000)
