"""The overlay page in real headless Chromium (Debian's), driven by Playwright, against a real
uvicorn server on a loopback port fed with real synthetic frames."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from campo.server.rig import ServerSettings
from campo.server.runner import ServerThread, free_port
from tests.browser_fixtures import (CHROMIUM_ARGS, SIDE_RGB, checked_page, overlay_server,
                                    require_chromium)
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames, wait_for

pytestmark = [pytest.mark.browser]

TOKEN = "umpire-token-for-tests"

require_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with overlay_server(tmp_path_factory, TOKEN) as srv:
        yield srv


@pytest.fixture(scope="module")
def chromium_args() -> list[str]:
    """The shared flags plus --disable-quic (the live overlay's pages were always run without QUIC)."""
    return [*CHROMIUM_ARGS, "--disable-quic"]


@pytest.fixture
def page(browser: Any, server: ServerThread) -> Iterator[Any]:
    with checked_page(browser, f"{server.url}/?token={TOKEN}",
                      ['[data-testid="base-pie-aosta"]']) as pg:
        yield pg


def screen_xy(page: Any, x_mm: float, y_mm: float) -> tuple[float, float]:
    """Viewport pixels of a table point (through the SVG's own transform)."""
    return tuple(page.evaluate(
        """([x, y]) => { const m = document.querySelector('#flip').getScreenCTM();
                        return [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]; }""", [x_mm, y_mm]))


def state(server: ServerThread) -> dict[str, Any]:
    return server.services.tracker.state  # type: ignore[return-value]


def test_page_shows_the_bases_and_the_status(page: Any, server: ServerThread) -> None:
    for base_id, name in [("pie-aosta", "Brigata Aosta"), ("pie-cuneo", "Brigata Cuneo"),
                          ("aus-47", "IR 47"), ("aus-59", "IR 59")]:
        g = page.locator(f'[data-testid="base-{base_id}"]')
        assert g.get_attribute("class").split()[:2] == ["base", "A" if base_id.startswith("pie") else "B"]
        assert g.locator("text").text_content() == name
        assert g.locator("title").text_content() == name
    page.wait_for_function("document.querySelector('[data-testid=table-located]').textContent === 'table located'")
    assert page.locator('[data-testid="anchors"]').text_content() == "anchors 4/4"
    assert page.locator('[data-testid="fps"]').text_content().endswith("fps")
    assert page.locator('[data-testid="access"]').text_content() == "umpire (token)"


def test_selecting_a_base_shows_its_arc_and_the_engines_numbers(page: Any, server: ServerThread) -> None:
    page.click('[data-testid="base-pie-aosta"]')
    page.wait_for_selector('[data-testid="arc"]')
    assert page.locator('[data-testid="base-name"]').text_content() == "Brigata Aosta"
    analysis = server.services.tracker.snapshot.base_analysis("pie-aosta")  # type: ignore[union-attr]
    assert analysis["targets"], "the layout puts IR 47 in Aosta's arc"
    for t in analysis["targets"]:
        row = page.locator(f'[data-testid="targets"] tr[data-target="{t["id"]}"]')
        assert row.locator('[data-field="distance"]').text_content() == f"{t['distance']:.2f}"
        assert row.locator('[data-field="margin"]').text_content() == f"{t['margin']:.2f}"
        # a sight line is drawn to each target within range, none to the far ones
        assert page.locator(f'line.los[data-target="{t["id"]}"]').count() == (1 if t["in_range"] else 0)
    for c in analysis["charges"]:
        row = page.locator(f'[data-testid="charges"] tr[data-charge="{c["target"]}"]')
        assert row.locator('[data-field="distance"]').text_content() == f"{c['distance']:.2f}"
        assert ("yes" if c["legal"] else "no") in row.text_content()
        path_class = page.locator(f'polyline.charge-path[data-target="{c["target"]}"]').get_attribute("class")
        assert ("legal" if c["legal"] else "illegal") in path_class.split()
        # the charger's outline at contact, and the stop of an intercepted charge (ISD A29, A30)
        if c["path"]:
            assert page.locator(f'polygon.charge-contact[data-target="{c["target"]}"]').count() == 1
        stop = page.locator(f'circle.charge-stop[data-target="{c["target"]}"]')
        assert stop.count() == (1 if c.get("intercepted_at") else 0)
    # the drawn arc is the engine's polygon
    points = page.locator('[data-testid="arc"]').get_attribute("points").split()
    geometry = json.loads(page.evaluate("fetch('/api/geometry/pie-aosta').then(r => r.text())"))
    assert len(points) == len(geometry["arc"])
    # the base is drawn as the engine's own rectangle
    drawn = [tuple(map(float, p.split(","))) for p in
             page.locator('[data-testid="base-pie-aosta"] polygon').get_attribute("points").split()]
    engine_rect = [tuple(p) for p in geometry["polygon"]]
    assert len(drawn) == 4
    for corner in engine_rect:
        assert min(np.hypot(corner[0] - d[0], corner[1] - d[1]) for d in drawn) < 0.2
    assert page.locator('[data-testid="base-pie-aosta"]').get_attribute("class").split()[-1] == "selected"


def test_ruler_measures_in_rules_units(page: Any) -> None:
    page.click('[data-testid="tool-ruler"]')
    a, b = screen_xy(page, 200, 900), screen_xy(page, 450, 900)  # 250 mm apart: 10 inches of 25 mm
    page.mouse.click(*a)
    page.mouse.click(*b)
    text = page.locator('[data-testid="ruler-readout"]').text_content()
    inches = float(text.split()[0])
    mm_per_px = 250 / abs(b[0] - a[0])
    assert inches == pytest.approx(10.0, abs=2 * mm_per_px / 25)  # a click lands on a whole pixel
    assert text.split()[1] == "in"
    measured = page.evaluate("window.campo.rulerResult.mm")
    assert measured == pytest.approx(250, abs=2 * mm_per_px)


def test_terrain_drawn_on_the_page_round_trips(page: Any, server: ServerThread, browser: Any) -> None:
    page.click('[data-testid="tab-terrain"]')
    page.select_option('[data-testid="terrain-kind"]', "wood")
    page.click('[data-testid="terrain-add"]')
    corners = [(150, 150), (450, 150), (450, 350), (150, 350)]
    for x, y in corners:
        page.mouse.click(*screen_xy(page, x, y))
    page.click('[data-testid="terrain-finish"]')
    page.click('[data-testid="terrain-save"]')
    page.wait_for_function("document.querySelector('[data-testid=terrain-msg]').textContent.startsWith('saved')")
    assert wait_for(lambda: any(t["kind"] == "wood" for t in state(server)["terrain"]), timeout=10)
    wood = next(t for t in state(server)["terrain"] if t["kind"] == "wood")
    assert np.allclose(wood["polygon_mm"], corners, atol=5)
    saved = json.loads(server.services.setup.path.read_text())  # type: ignore[union-attr]
    assert saved["terrain"] == state(server)["terrain"]
    # a fresh page (another tablet) draws it
    other = browser.new_page()
    other.goto(f"{server.url}/")
    other.wait_for_selector(f'polygon.terrain.wood[data-terrain="{wood["id"]}"]', timeout=10000)
    other.close()
    # and deleting it round-trips too
    page.click(f'[data-testid="terrain-delete-{wood["id"]}"]')
    page.click('[data-testid="terrain-save"]')
    assert wait_for(lambda: not any(t["kind"] == "wood" for t in state(server)["terrain"]), timeout=10)


def test_a_hill_with_its_crest_and_a_river_are_drawn_and_saved(page: Any, server: ServerThread) -> None:
    page.click('[data-testid="tab-terrain"]')
    page.select_option('[data-testid="terrain-kind"]', "hill")
    page.click('[data-testid="terrain-add"]')
    for x, y in [(1300, 850), (1650, 850), (1650, 1100), (1300, 1100)]:
        page.mouse.click(*screen_xy(page, x, y))
    page.click('[data-testid="terrain-finish"]')
    hill_id = page.locator('#terrain-list li.selected').get_attribute("data-terrain-item")
    page.locator(f'[data-terrain-item="{hill_id}"] button', has_text="Crest").click()
    for x, y in [(1350, 975), (1600, 975)]:
        page.mouse.click(*screen_xy(page, x, y))
    page.click('[data-testid="terrain-finish"]')
    page.select_option('[data-testid="terrain-kind"]', "river")
    page.click('[data-testid="terrain-add"]')
    for x, y in [(1200, 0), (1250, 600), (1800, 700)]:
        page.mouse.click(*screen_xy(page, x, y))
    page.click('[data-testid="terrain-finish"]')
    page.click('[data-testid="terrain-save"]')
    page.wait_for_function("document.querySelector('[data-testid=terrain-msg]').textContent.startsWith('saved')")
    assert wait_for(lambda: {t["kind"] for t in state(server)["terrain"]} >= {"hill", "river"}, timeout=10)
    hill = next(t for t in state(server)["terrain"] if t["kind"] == "hill")
    river = next(t for t in state(server)["terrain"] if t["kind"] == "river")
    assert np.allclose(hill["crest_mm"], [(1350, 975), (1600, 975)], atol=5)
    assert len(river["line_mm"]) == 3
    page.wait_for_selector("polyline.terrain.crest", state="attached")  # a level line has no height
    page.wait_for_selector(f'polyline.terrain.river[data-terrain="{river["id"]}"]')
    for item in (hill, river):  # leave the table as it was
        page.click(f'[data-testid="terrain-delete-{item["id"]}"]')
    page.click('[data-testid="terrain-save"]')
    assert wait_for(lambda: state(server)["terrain"] == [], timeout=10)


def test_bases_are_drawn_in_their_sides_colours(page: Any, server: ServerThread) -> None:
    png = page.screenshot()
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    for base in state(server)["bases"]:
        x, y = screen_xy(page, base["x_mm"], base["y_mm"])
        b, g, r = image[round(y), round(x)].astype(int)
        want = SIDE_RGB[base["side"]]
        assert abs(r - want[0]) < 25 and abs(g - want[1]) < 25 and abs(b - want[2]) < 25, (base["id"], (r, g, b))
    # and the cloth between them is not a side colour
    x, y = screen_xy(page, 100, 1000)
    b, g, r = image[round(y), round(x)].astype(int)
    assert (r, g, b) != SIDE_RGB["A"] and (r, g, b) != SIDE_RGB["B"]


def test_without_the_token_the_page_is_read_only(browser: Any, server: ServerThread) -> None:
    pg = browser.new_page()
    pg.goto(f"{server.url}/")
    pg.wait_for_function("document.querySelector('[data-testid=access]').textContent.startsWith('read-only')")
    pg.wait_for_selector('[data-testid="base-aus-47"]')
    assert pg.locator('[data-testid="terrain-add"]').is_disabled()
    pg.wait_for_selector('[data-testid="turn-next"]')
    assert pg.locator('[data-testid="turn-next"]').is_disabled()
    pg.close()


def test_settings_and_reference_tables(page: Any, server: ServerThread) -> None:
    page.click('[data-testid="tab-rules"]')
    select = page.locator('select[data-setting="a1_zones"]')
    select.wait_for()
    assert page.locator('[data-testid="reference"] table').count() >= 5
    assert "Movement" in page.locator('[data-testid="reference"]').text_content()
    select.select_option("corner_diagonals")
    page.click('[data-testid="settings-save"]')
    page.wait_for_function("document.querySelector('[data-testid=settings-msg]').textContent.startsWith('applied')")
    assert wait_for(lambda: (state(server).get("settings") or {}).get("a1_zones") == "corner_diagonals")
    select.select_option("front_halfplane")
    page.click('[data-testid="settings-save"]')
    assert wait_for(lambda: (state(server).get("settings") or {}).get("a1_zones") == "front_halfplane")


def test_umpire_events_are_sent_and_listed(page: Any, server: ServerThread) -> None:
    got: list[Any] = []
    unsubscribe = server.services.hub.subscribe(got.append)
    try:
        page.click('[data-testid="tab-events"]')
        page.click('[data-testid="turn-next"]')   # the turn stepper (tests/test_browser_turn.py)
        page.wait_for_function("document.querySelector('[data-testid=events-list]').textContent.includes('Phase')")
        assert "Turn 1" in page.locator('[data-testid="events-list"]').text_content()
        page.fill('[data-testid="event-note-text"]', "IR 47 disordered")
        page.click('[data-testid="event-note"]')
        page.wait_for_function("document.querySelector('[data-testid=events-list]').textContent.includes('IR 47 disordered')")
    finally:
        unsubscribe()
    assert [r.payload["kind"] for r in got if r.topic == "event"] == ["turn", "phase", "note"]


def test_camera_view_shows_the_frame(page: Any) -> None:
    page.click('[data-testid="tab-camera"]')
    page.wait_for_function("document.querySelector('[data-testid=camera-img]').naturalWidth > 0", timeout=10000)
    assert page.evaluate("document.querySelector('[data-testid=camera-img]').naturalWidth") == 960


@pytest.mark.slow
def test_tablet_portrait_layout_keeps_everything_usable(browser: Any, server: ServerThread) -> None:
    context = browser.new_context(viewport={"width": 800, "height": 1280}, has_touch=True, is_mobile=True)
    pg = context.new_page()
    pg.goto(f"{server.url}/?token={TOKEN}")
    pg.wait_for_selector('[data-testid="base-aus-47"]')
    table_box = pg.locator('[data-testid="table"]').bounding_box()
    panel_box = pg.locator("#panel").bounding_box()
    assert panel_box["y"] >= table_box["y"] + table_box["height"] - 1  # panel below the table
    pg.tap('[data-testid="base-aus-47"]')
    pg.wait_for_function("document.querySelector('[data-testid=base-name]')?.textContent === 'IR 47'")
    context.close()


@pytest.mark.slow
def test_a_base_hidden_by_a_hand_is_drawn_faded(browser: Any, tmp_path: Path) -> None:
    from campo.vision.synthetic import Hand

    hand = Hand.reaching((1000.0, 1250.0), (1000.0, 690.0), height_mm=60.0)  # over IR 59, from B's edge
    frames = tmp_path / "frames"
    render_frames(frames, [LAYOUT, LAYOUT], hands=[[], [hand]])
    settings = ServerSettings(source=str(frames), table=TABLE, roster=ROSTER, setup_file=tmp_path / "t.json",
                              port=free_port(), fps=4.0)
    with ServerThread(settings) as srv:
        pg = browser.new_page()
        pg.goto(f"{srv.url}/")
        seen = pg.wait_for_function("""() => {
            const hidden = document.querySelector('[data-testid="base-aus-59"].stale');
            const other = document.querySelector('[data-testid="base-aus-47"]');
            return hidden && other && [getComputedStyle(hidden).opacity, other.classList.contains('stale')]; }""",
                                    timeout=20000).json_value()
        assert float(seen[0]) < 0.5 and seen[1] is False
        pg.close()


@pytest.mark.slow
def test_page_shows_the_demo_games_bases(browser: Any, tmp_path: Path) -> None:
    settings = ServerSettings(source="demo", port=free_port(), fps=6.0)
    with ServerThread(settings) as srv:
        roster = srv.services.rig.roster
        assert wait_for(lambda: srv.services.tracker.state is not None
                        and len(srv.services.tracker.state["bases"]) >= len(roster.bases) - 2, timeout=60)
        pg = browser.new_page(viewport={"width": 1280, "height": 800})
        pg.goto(f"{srv.url}/")
        pg.wait_for_function("window.campo.state && window.campo.state.bases.length >= %d" % (len(roster.bases) - 2))
        shown = pg.evaluate("window.campo.state.bases.map(b => b.id)")
        for base_id in shown:
            full = roster.by_id()[base_id].label
            assert pg.locator(f'[data-testid="base-{base_id}"] title').text_content() == full
            label = pg.locator(f'[data-testid="base-{base_id}"] text').text_content()
            assert label == full or (label.endswith("…") and full.startswith(label[:-1]))
        assert pg.locator("polygon.terrain").count() + pg.locator("polyline.terrain").count() >= len(srv.services.rig.setup.snapshot()[1])
        # a general lists the bases it commands, a unit the generals that command it (the engine's verdicts)
        pg.click('[data-testid="base-pie-gen-durando"]')
        check = """() => {
            const a = window.campo.state.summary.bases;
            const name = (id) => window.campo.state.bases.find((b) => b.id === id).name;
            const mine = Object.keys(a).filter((id) => (a[id].commanded_by || []).includes('pie-gen-durando'));
            const shown = document.querySelector('[data-testid=commands]');
            return mine.length > 0 && shown && mine.every((id) => shown.textContent.includes(name(id)));
        }"""
        pg.wait_for_function(check, timeout=10000)
        pg.screenshot(path=str(tmp_path / "demo.png"))
        pg.close()


@pytest.mark.slow
def test_status_bar_shows_unknown_markers_and_a_lost_camera(browser: Any, tmp_path: Path) -> None:
    import shutil

    from campo.vision.synthetic import PlacedBase
    from campo.vision.tabletop import RosterBase

    stranger = RosterBase(marker=77, id="stranger", side="B", type="B", width_mm=80, depth_mm=40,
                          marker_size_mm=30, height_mm=3)
    frames = tmp_path / "frames"
    render_frames(frames, [LAYOUT], extra=[PlacedBase(stranger, 1400.0, 300.0, 0.0)])
    settings = ServerSettings(source=str(frames), table=TABLE, roster=ROSTER, setup_file=tmp_path / "t.json",
                              port=free_port(), fps=5.0, status_interval_s=0.2)
    with ServerThread(settings) as srv:
        pg = browser.new_page()
        pg.goto(f"{srv.url}/")
        pg.wait_for_function("document.querySelector('[data-testid=unknown-markers]').textContent === 'unknown markers: 77'",
                             timeout=20000)
        shutil.rmtree(frames)  # the camera is unplugged
        pg.wait_for_function("document.querySelector('#st-signal').textContent.startsWith('no signal')", timeout=10000)
        assert pg.locator('[data-testid="base-aus-47"]').count() == 1  # the last state stays on screen
        pg.close()


def test_base_panel_shows_the_melee_modifiers(page: Any) -> None:
    """The panel code, in Chromium, on the engine's own analysis of two bases front to front."""
    from campo import engine

    sc = {"ruleset": "italia-se-desta", "table": {"width_mm": 1200, "depth_mm": 800}, "bases": [
        {"id": "a", "side": "A", "type": "B", "x_mm": 500, "y_mm": 500, "heading_deg": 90,
         "width_mm": 80, "depth_mm": 40, "traits": {"quality": "veteran"}},
        {"id": "b", "side": "B", "type": "B", "x_mm": 500, "y_mm": 540, "heading_deg": 270,
         "width_mm": 80, "depth_mm": 40, "traits": {}}]}
    info = engine.analyze(sc)["bases"]["a"]
    melee = info["melee"]
    shown = page.evaluate("""async ([base, info]) => {
        const panels = await import('/static/panels.js');
        const root = document.createElement('div');
        panels.renderBasePanel(root, base, info, 'in', new Map());
        const box = root.querySelector('[data-testid="melee"]');
        return {total: box.querySelector('[data-field="total"]').textContent,
                items: [...box.querySelectorAll('li')].map((li) => li.textContent)};
    }""", [sc["bases"][0], info])
    assert shown["total"] == f"score d6 +{melee['total']}"
    assert shown["items"] == [m["label"] for m in melee["modifiers"]]
    assert any("veteran" in label for label in shown["items"])
