"""The projector page and the tablet page together in real headless Chromium: a tap on the
tablet changes the projection (both pages read the same clock, epoch ms from
``performance.timeOrigin + performance.now()``: a paint never precedes its tap), the arc is lit
and the markers stay dark. How quickly is a benchmark's question: bench/projector_tap.py."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from campo.server.rig import ServerSettings
from campo.server.runner import ServerThread, free_port
from campo.vision.synthetic.projection import ProjectorModel
from tests.browser_fixtures import checked_page, require_chromium
from tests.projector_fixtures import PROJECTOR, layout_server, tap_latency_ms
from tests.server_fixtures import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

require_chromium()

TOKEN = "umpire-token-for-projector-tests"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with layout_server(tmp_path_factory, TOKEN, calibrated=True) as srv:
        yield srv


@pytest.fixture
def pages(browser: Any, server: ServerThread) -> Iterator[tuple[Any, Any]]:
    with checked_page(browser, f"{server.url}/projector?token={TOKEN}", ["#light"], size=PROJECTOR) as projector, \
            checked_page(browser, f"{server.url}/?token={TOKEN}", ['[data-testid="base-pie-aosta"]']) as tablet:
        projector.wait_for_function("window.projector.msg && window.projector.state && window.projector.draws.length > 0")
        yield projector, tablet


def projector_px(server: ServerThread, x_mm: float, y_mm: float) -> tuple[int, int]:
    cal = server.services.projector.calibration  # type: ignore[union-attr]
    u, v = cal.to_projector(np.array([[x_mm, y_mm]]))[0]
    return int(round(u)), int(round(v))


def pixel(page: Any, xy: tuple[int, int]) -> list[int]:
    """RGB of the projector canvas at (x, y) (a 3x3 maximum, so a thin line is not missed)."""
    return page.evaluate("""([x, y]) => { const c = document.getElementById('light').getContext('2d');
        const d = c.getImageData(x - 1, y - 1, 3, 3).data; const out = [0, 0, 0];
        for (let i = 0; i < d.length; i += 4) for (let k = 0; k < 3; k++) out[k] = Math.max(out[k], d[i + k]);
        return out; }""", list(xy))


def test_a_tap_on_the_tablet_changes_the_projection(pages: tuple[Any, Any], server: ServerThread,
                                                     tmp_path: Path) -> None:
    projector, tablet = pages
    # before any tap: nothing lit where Aosta's arc will be (800, 400 facing +y)
    ahead = projector_px(server, 800.0, 470.0)
    assert max(pixel(projector, ahead)) < 20
    latencies = []
    for base_id in ["pie-aosta", "aus-47", "pie-cuneo", "aus-59", "pie-aosta", "aus-47", "pie-cuneo"]:
        latencies.append(tap_latency_ms(projector, tablet, base_id))
    print(f"\ntap -> projector paint (ms): {', '.join(f'{v:.1f}' for v in latencies)}")
    assert min(latencies) > 0   # the clocks agree: a paint never precedes its tap
    # the last tap selected Cuneo (950, 400, facing +y): its arc is lit ahead of it, its marker is dark
    projector.wait_for_function("window.projector.geometry && window.projector.geometry.id === 'pie-cuneo'")
    shot = Path(os.environ.get("CAMPO_SCREENSHOTS", tmp_path)) / "projector-1920x1080.png"
    projector.screenshot(path=str(shot))
    print(f"projector screenshot: {shot}")
    assert max(pixel(projector, projector_px(server, 950.0, 470.0))) > 40, "the arc ahead of Cuneo is lit"
    assert max(pixel(projector, projector_px(server, 950.0, 400.0))) == 0, "no light on Cuneo's marker"


def test_the_ruler_and_terrain_reach_the_projector(pages: tuple[Any, Any], server: ServerThread) -> None:
    projector, tablet = pages
    tablet.click('[data-testid="tool-ruler"]')
    box = tablet.locator('[data-testid="table"]').bounding_box()
    for fx in (0.3, 0.6):
        tablet.mouse.click(box["x"] + box["width"] * fx, box["y"] + box["height"] * 0.3)
    projector.wait_for_function("window.projector.msg.view.ruler.length === 2")
    ruler = projector.evaluate("window.projector.msg.view.ruler")
    mid = ((ruler[0][0] + ruler[1][0]) / 2, (ruler[0][1] + ruler[1][1]) / 2)
    assert max(pixel(projector, projector_px(server, *mid))) > 200, "the ruler's line is drawn"


@pytest.fixture(scope="module")
def projected(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerThread, ProjectorModel]]:
    """A live server whose camera films the demo table under a simulated projector that shows
    what the server asks the projector page to show; no projector.json yet."""
    from campo.server.app import build_services
    from campo.server.game_state import GameSetup
    from campo.server.rig import Rig
    from campo.vision.synthetic.demo import DemoGame
    from tests.projector_fixtures import ProjectedTableSource

    game = DemoGame.load()
    model = ProjectorModel.above(game.table, PROJECTOR, tilt_deg=5.0, roll_deg=-1.0)
    source = ProjectedTableSource(game, model)
    folder = tmp_path_factory.mktemp("calibrate")
    settings = ServerSettings(source="projected", port=free_port(), token=TOKEN, status_interval_s=0.25,
                              projector_file=folder / "projector.json")
    rig = Rig(game.table, game.roster, source.intrinsics, source,
              GameSetup(game.roster.ruleset, game.terrain, None, path=None))
    services = build_services(settings, rig)
    source.service = services.projector
    with ServerThread(settings, services=services) as srv:
        assert wait_for(lambda: srv.services.tracker.state is not None and srv.services.tracker.view is not None
                        and srv.services.tracker.view.result.location.located, timeout=30)
        yield srv, model


def test_calibrate_from_the_tablet_with_the_projector_page_open(browser: Any, projected: Any) -> None:
    """The button on the tablet; the projector page shows black, then the pattern; the camera
    sees it; projector.json is written and the page draws through it."""
    srv, model = projected
    with checked_page(browser, f"{srv.url}/projector?token={TOKEN}", ["#light"], size=PROJECTOR) as projector, \
            checked_page(browser, f"{srv.url}/?token={TOKEN}", ['[data-testid="tab-camera"]']) as tablet:
        projector.wait_for_selector('[data-testid="projector-message"]:not([hidden])')
        assert "not calibrated" in projector.locator('[data-testid="projector-message"]').text_content()
        tablet.click('[data-testid="tab-camera"]')
        tablet.click('[data-testid="projector-calibrate"]')
        tablet.wait_for_function("document.querySelector('[data-testid=projector-status]').textContent"
                                 ".startsWith('calibrated:')", timeout=60000)
        status = tablet.locator('[data-testid="projector-status"]').text_content()
        print(f"\n{status}")
        assert "kept: first calibration" in status
        projector.wait_for_selector('[data-testid="projector-message"]', state="hidden")
        check_token_kept_dark(srv, projector)
    service = srv.services.projector
    cal = service.calibration
    assert cal is not None and srv.settings.projector_file.exists()
    table = srv.services.rig.table.table
    xs, ys = np.meshgrid(np.linspace(0, table.width_mm, 19), np.linspace(0, table.depth_mm, 13))
    grid = np.column_stack([xs.ravel(), ys.ravel()])
    true_px = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), model.table_to_projector).reshape(-1, 2)
    err = np.linalg.norm(cal.to_table(true_px) - grid, axis=1)
    print(f"true error over the table: median {np.median(err):.2f} mm, worst {err.max():.2f} mm")
    assert err.max() <= 2.0


def check_token_kept_dark(srv: ServerThread, projector: Any) -> None:
    """A ruler drawn across a status token lying on the table: lit on both sides, dark over it."""
    projector.wait_for_function("window.projector.tokens.length > 0", timeout=20000)
    x, y, _ = projector.evaluate("window.projector.tokens[0]")
    import httpx

    r = httpx.put(f"{srv.url}/api/projector/view", headers={"X-Campo-Token": TOKEN},
                  json={"base": None, "ruler": [[x - 150, y], [x + 150, y]], "terrain": False})
    assert r.status_code == 200
    projector.wait_for_function("window.projector.msg.view.ruler.length === 2")
    assert max(pixel(projector, projector_px(srv, x, y))) == 0, "no light on the token"
    assert min(pixel(projector, projector_px(srv, x + 100, y))) > 200, "the ruler is lit beside it"


def test_the_projector_says_when_it_is_not_calibrated(pages: tuple[Any, Any], server: ServerThread) -> None:
    projector, _ = pages
    service = server.services.projector
    assert service is not None
    kept = service.calibration
    try:
        service.calibration = None
        service.publish()
        projector.wait_for_selector('[data-testid="projector-message"]:not([hidden])')
        assert "not calibrated" in projector.locator('[data-testid="projector-message"]').text_content()
    finally:
        service.calibration = kept
        service.publish()
    projector.wait_for_selector('[data-testid="projector-message"]', state="hidden")
