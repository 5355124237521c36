"""Fire resolution on the umpire's tablet (issue 14 item 4), in real headless Chromium at tablet
sizes in both orientations: tap a base, pick a legal target, see the engine's modifiers and the
rulebook's table, tap the dice, read the result and confirm the losses into the unit state."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from campo.server.rig import ServerSettings
from campo.server.runner import ServerThread, free_port
from tests.browser_fixtures import CHROMIUM_ARGS, checked_page, require_chromium
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames, wait_for

pytestmark = [pytest.mark.browser]

TOKEN = "umpire-token-for-tests"
SHOTS = os.environ.get("CAMPO_RESOLVE_SHOTS")   # a folder to keep the screenshots in

require_chromium()


@pytest.fixture(scope="module")
def chromium_args() -> list[str]:
    return [*CHROMIUM_ARGS, "--disable-quic"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    frames = tmp_path / "frames"
    render_frames(frames, [LAYOUT])
    settings = ServerSettings(source=str(frames), table=TABLE, roster=ROSTER,
                              setup_file=tmp_path / "terrain.json", port=free_port(), token=TOKEN,
                              fps=5.0, status_interval_s=0.25, dice_seed=3)
    with ServerThread(settings) as srv:
        assert wait_for(lambda: srv.services.tracker.state is not None
                        and len(srv.services.tracker.state["bases"]) == 4, timeout=20)
        yield srv


def touch_problems(page: Any) -> list[str]:
    """Buttons of the resolution sheet smaller than a finger (48 px), and text under 14 px."""
    return page.evaluate("""() => {
        const out = [];
        for (const el of document.querySelectorAll('#resolve button, .resolve-targets button')) {
          const r = el.getBoundingClientRect();
          if (r.width && (r.height < 48 || r.width < 48))
            out.push(`${el.dataset.testid || el.textContent} ${Math.round(r.width)}x${Math.round(r.height)}`);
        }
        for (const el of document.querySelectorAll('#resolve p, #resolve li, #resolve td')) {
          const s = parseFloat(getComputedStyle(el).fontSize);
          if (el.getBoundingClientRect().height && s < 14) out.push(`text ${s}px: ${el.textContent.slice(0, 20)}`);
        }
        return out; }""")


def shot(page: Any, name: str, tmp_path: Path) -> None:
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1024, 768), (768, 1024)], ids=["landscape", "portrait"])
def test_a_full_fire_resolution_from_selection_to_confirmed_losses(
        browser: Any, server: ServerThread, size: tuple[int, int], tmp_path: Path) -> None:
    units = server.services.units
    assert units is not None
    with checked_page(browser, f"{server.url}/?token={TOKEN}", ['[data-testid="base-pie-aosta"]'],
                      size=size, touch=True) as page:
        page.click('[data-testid="base-pie-aosta"]')
        # the legal targets of Brigata Aosta: IR 47 only (IR 59 is beyond 6", ISD §7)
        page.wait_for_selector('[data-testid="fire-at-aus-47"]')
        assert page.locator('[data-testid^="fire-at-"]').count() == 1
        page.locator('[data-testid="fire-at-aus-47"]').scroll_into_view_if_needed()
        page.tap('[data-testid="fire-at-aus-47"]')
        page.wait_for_selector('[data-testid="resolve-table"]')
        assert page.locator('[data-testid="resolve-title"]').text_content() == \
            "Musketry: Brigata Aosta → IR 47"
        mods = page.locator('[data-testid="resolve-modifiers"] li').all_text_contents()
        assert mods[0].startswith("fire factor, unit B: 3 d6") and "re-roll 1s" in mods[1]
        rows = page.locator('[data-testid="resolve-table"] tbody tr').all_text_contents()
        assert rows == ["1miss", "2miss", "3miss", "4miss", "5hit: 1 loss", "6hit: 1 loss"]
        assert page.locator('[data-testid="resolve-read"]').is_disabled()
        shot(page, f"resolve-dice-{size[0]}x{size[1]}", tmp_path)
        for k, face in enumerate((6, 5, 2)):
            page.locator(f'[data-testid="die-0-{k}"] [data-face="{face}"]').tap()
        assert touch_problems(page) == []
        page.tap('[data-testid="resolve-read"]')
        page.wait_for_selector('[data-testid="resolve-outcome"]')
        assert page.locator('[data-testid="resolve-outcome"]').text_content() == \
            "2 hits: 2 losses"
        assert page.locator('[data-testid="resolve-effects"]').text_content() == "IR 47: losses 0 → 2"
        # the table rows the dice were read on are marked
        assert page.locator('[data-testid="resolve-table"] tr.read').count() == 3
        assert units.traits("aus-47") == {}           # nothing applied before the tap
        shot(page, f"resolve-result-{size[0]}x{size[1]}", tmp_path)
        page.tap('[data-testid="resolve-confirm"]')
        page.wait_for_selector('[data-testid="resolve-applied"]')
        assert page.locator('[data-testid="resolve-applied"]').text_content() == "IR 47: losses 2"
        assert units.traits("aus-47") == {"losses": 2}
        assert touch_problems(page) == []
        page.tap('[data-testid="resolve-done"]')
        assert page.locator('[data-testid="resolve"]').is_hidden()
        # the target's own panel shows the losses the engine now uses
        page.click('[data-testid="base-aus-47"]')
        page.wait_for_function(
            "document.querySelector('[data-testid=state-losses-value]')?.textContent === '2 / 9'")


@pytest.mark.slow
def test_campo_rolls_for_the_umpire(browser: Any, server: ServerThread, tmp_path: Path) -> None:
    with checked_page(browser, f"{server.url}/?token={TOKEN}", ['[data-testid="base-pie-aosta"]'],
                      size=(1024, 768), touch=True) as page:
        page.click('[data-testid="base-pie-aosta"]')
        page.tap('[data-testid="fire-at-aus-47"]')
        page.wait_for_selector('[data-testid="resolve-roll"]')
        page.tap('[data-testid="resolve-roll"]')
        page.wait_for_selector('[data-testid="resolve-outcome"]')
        # seed 3, first roll: the seed shown is the one recorded with the roll
        assert page.locator('[data-testid="resolve-dice"]').text_content().endswith("(seed 300000)")
        page.tap('[data-testid="resolve-close"]')
        # the base's own test: the Manoeuvre Table (ISD ManTab), ordered column
        page.tap('[data-testid="manoeuvre-at-pie-aosta"]')
        page.wait_for_selector('[data-testid="resolve-table"]')
        assert page.locator('[data-testid="resolve-title"]').text_content() == \
            "Manoeuvre test: Brigata Aosta"
        assert page.locator('[data-testid="resolve-table"] tbody tr').count() == 5
        assert touch_problems(page) == []
        shot(page, "resolve-manoeuvre-1024x768", tmp_path)


GUN = """
[[bases]]
marker = 30
id = "pie-gun"
side = "A"
name = "Batteria 1"
type = "gun"
width_mm = 40.0
depth_mm = 40.0
marker_size_mm = 30.0
height_mm = 3.0
traits = { battery = "divisional", quality = "regular" }
"""


@pytest.fixture
def gun_server(tmp_path: Path) -> Iterator[ServerThread]:
    """The test game plus a Piedmontese gun 15" from IR 59 (ISD §6 band over 12" to 18": +0)."""
    from campo.vision.synthetic import PlacedBase
    from campo.vision.tabletop import RosterBase

    roster = tmp_path / "roster.toml"
    roster.write_text(ROSTER.read_text() + GUN)
    gun = RosterBase(marker=30, id="pie-gun", side="A", name="Batteria 1", type="gun",
                     width_mm=40, depth_mm=40, marker_size_mm=30, height_mm=3.0,
                     traits={"battery": "divisional", "quality": "regular"})
    frames = tmp_path / "frames"
    render_frames(frames, [LAYOUT], extra=[PlacedBase(gun, 1150.0, 300.0, 90.0)])
    settings = ServerSettings(source=str(frames), table=TABLE, roster=roster,
                              setup_file=tmp_path / "terrain.json", port=free_port(), token=TOKEN,
                              fps=5.0, status_interval_s=0.25)
    with ServerThread(settings) as srv:
        assert wait_for(lambda: srv.services.tracker.state is not None
                        and len(srv.services.tracker.state["bases"]) == 5, timeout=20)
        yield srv


@pytest.mark.slow
def test_a_bombardment_draws_the_fall_back_as_a_ghost(browser: Any, gun_server: ServerThread,
                                                      tmp_path: Path) -> None:
    units = gun_server.services.units
    assert units is not None
    with checked_page(browser, f"{gun_server.url}/?token={TOKEN}", ['[data-testid="base-pie-gun"]'],
                      size=(768, 1024), touch=True) as page:
        page.click('[data-testid="base-pie-gun"]')
        page.tap('[data-testid="fire-at-aus-59"]')
        page.wait_for_selector('[data-testid="resolve-table"]')
        assert page.locator('[data-testid="resolve-title"]').text_content() == \
            "Bombardment: Batteria 1 → IR 59"
        # ISD §6: 11-12 «1 perdita, si disordina e arretra 3"»; 5 + 6 + 0 (over 12" to 18") = 11
        page.locator('[data-testid="die-0-0"] [data-face="5"]').tap()
        page.locator('[data-testid="die-0-1"] [data-face="6"]').tap()
        page.tap('[data-testid="resolve-read"]')
        page.wait_for_selector('[data-testid="ghost-aus-59"]')
        assert page.locator('[data-testid="resolve-table"] tr.read').text_content().startswith("11–12")
        assert page.locator('[data-testid="resolve-effects"]').text_content() == \
            'IR 59: losses 0 → 1, disordered, falls back 3"'
        # the ghost stands 3" (75 mm) behind IR 59, which faces side A (heading 270): toward +y
        ys = page.evaluate("""() => document.querySelector('[data-testid=ghost-aus-59]')
            .getAttribute('points').split(' ').map((p) => Number(p.split(',')[1]))""")
        base = next(b for b in gun_server.services.tracker.state["bases"] if b["id"] == "aus-59")
        assert sum(ys) / 4 == pytest.approx(base["y_mm"] + 75.0, abs=0.2)
        shot(page, "resolve-ghost-768x1024", tmp_path)
        page.tap('[data-testid="resolve-confirm"]')
        page.wait_for_selector('[data-testid="resolve-applied"]')
        assert units.traits("aus-59") == {"losses": 1, "disordered": True}
