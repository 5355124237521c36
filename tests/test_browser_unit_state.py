"""A base's state changed from the page on a tablet (issue 14), in real headless Chromium with a
touch screen, landscape 1024x768 and portrait 768x1024: tap the base, tap the state; the change
is in /api/state at once and Undo takes it back. Every control a finger uses is at least 48 px
each way, measured on the page. The replay shows a base's state at the moment shown."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from campo.server.recording import Recorder
from campo.server.recording.simulate import demo_scenario, demo_script, play
from campo.server.runner import ServerThread
from tests.browser_fixtures import checked_page, overlay_server, replay_server, require_chromium
from tests.server_fixtures import wait_for

pytestmark = [pytest.mark.browser]

TOKEN = "umpire-token-for-state-tests"
TABLETS = {"landscape": (1024, 768), "portrait": (768, 1024)}
MIN_TARGET_PX = 48
SHOTS = os.environ.get("CAMPO_SCREENSHOTS")   # a folder to keep the screenshots in, to look at

require_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with overlay_server(tmp_path_factory, TOKEN) as srv:
        yield srv


def traits(server: ServerThread, base_id: str) -> dict[str, Any]:
    """The base's traits as `/api/state` reports them (what a script sees)."""
    import httpx

    state = httpx.get(f"{server.url}/api/state", timeout=5).json()
    return next(b for b in state["bases"] if b["id"] == base_id)["traits"]


def small_targets(page: Any) -> list[str]:
    """Every enabled button of the state controls narrower or lower than a fingertip."""
    return page.evaluate("""(least) => [...document.querySelectorAll(
            '[data-testid=state-controls] button')].filter((b) => !b.disabled).flatMap((b) => {
          const r = b.getBoundingClientRect();
          return r.width < least || r.height < least
            ? [`${b.dataset.testid}: ${r.width.toFixed(0)}x${r.height.toFixed(0)}`] : []; })""",
                         MIN_TARGET_PX)


def shot(page: Any, tmp_path: Path, name: str) -> None:
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


@pytest.mark.parametrize("orientation", TABLETS)
def test_two_taps_change_a_state_and_undo_takes_it_back(browser: Any, server: ServerThread,
                                                        tmp_path: Path, orientation: str) -> None:
    with checked_page(browser, f"{server.url}/?token={TOKEN}", ['[data-testid="base-aus-47"]'],
                      size=TABLETS[orientation], touch=True) as page:
        assert traits(server, "aus-47").get("disordered", False) is False
        page.locator('[data-testid="base-aus-47"]').tap()                  # tap 1: the base
        toggle = page.locator('[data-testid="state-disordered"]')
        toggle.wait_for()
        assert toggle.text_content() == "no"
        # the state is the first thing under the base's name: on screen without scrolling
        top = page.evaluate("document.querySelector('[data-testid=state-controls]')"
                            ".getBoundingClientRect().top")
        assert 0 <= top <= TABLETS[orientation][1] - 2 * MIN_TARGET_PX, top
        assert small_targets(page) == []
        toggle.tap()                                                         # tap 2: the state
        assert wait_for(lambda: traits(server, "aus-47").get("disordered") is True, timeout=10)
        page.wait_for_selector('[data-testid="state-disordered"][aria-pressed="true"]')
        assert page.locator('[data-testid="state-disordered"]').text_content() == "yes"
        # the board shows it without a tap: the state words drawn behind the base
        page.wait_for_selector('[data-testid="badge-state-aus-47"]')
        assert "disordered" in page.locator('[data-testid="badge-state-aus-47"]').text_content()
        # a count: one more loss, shown against the rulebook's limit (ISD §4, B: 9)
        page.locator('[data-testid="state-losses-plus"]').tap()
        assert wait_for(lambda: traits(server, "aus-47").get("losses") == 1, timeout=10)
        page.wait_for_function(
            "document.querySelector('[data-testid=state-losses-value]').textContent === '1 / 9'")
        assert small_targets(page) == []
        shot(page, tmp_path, f"state-{orientation}")
        # Undo, twice: the loss, then the disorder
        page.locator('[data-testid="state-undo"]').tap()
        assert wait_for(lambda: traits(server, "aus-47").get("losses") == 0, timeout=10)
        page.locator('[data-testid="state-undo"]').tap()
        assert wait_for(lambda: traits(server, "aus-47").get("disordered") is False, timeout=10)
        page.wait_for_selector('[data-testid="state-disordered"][aria-pressed="false"]')
        assert page.locator('[data-testid="state-losses-value"]').text_content() == "0 / 9"
        page.wait_for_function("!(document.querySelector('[data-testid=badge-state-aus-47]') || "
                               "{textContent: ''}).textContent.includes('disordered')")


def test_a_read_only_page_shows_the_state_without_controls_to_change_it(
        browser: Any, server: ServerThread) -> None:
    """Without the umpire's token the page shows the state; its buttons are disabled and there
    is no Undo."""
    with checked_page(browser, server.url, ['[data-testid="base-pie-aosta"]'],
                      size=TABLETS["portrait"], touch=True) as page:
        page.locator('[data-testid="base-pie-aosta"]').tap()
        page.locator('[data-testid="state-disordered"]').wait_for()
        assert page.locator('[data-testid="state-disordered"]').is_disabled()
        assert page.locator('[data-testid="state-undo"]').count() == 0


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`campo replay` of the demo game, with the umpire's change of a-1's state (5 losses:
    shaken, and disordered) recorded after the last move and no state after it."""
    path = tmp_path_factory.mktemp("rec") / "game.db"
    played = list(play(demo_scenario(), demo_script()))
    with Recorder(path) as rec:
        for t, state in played:
            rec.record_state(state, t=t)
        rec.record_event("unit_state", {"base": "a-1", "traits": {"losses": 5, "disordered": True},
                                        "before": {"losses": 0, "disordered": False},
                                        "source": "page"}, t=played[-1][0] + 1)
    with replay_server(path) as url:
        yield url


def test_the_replay_shows_a_bases_state_at_each_moment(browser: Any, replayed: str) -> None:
    with checked_page(browser, replayed + "/", ["body.replay-ready", '[data-testid="base-a-1"]'],
                      size=TABLETS["portrait"], touch=True) as page:
        page.locator('[data-testid="tab-events"]').tap()
        page.locator('#replay-events li[data-kind="unit_state"]').tap()
        page.locator('[data-testid="tab-base"]').tap()
        page.locator('[data-testid="base-a-1"]').tap()
        page.wait_for_function(
            "document.querySelector('[data-testid=state-losses-value]')?.textContent === '5 / 9'")
        toggle = page.locator('[data-testid="state-disordered"]')
        assert toggle.text_content() == "yes" and toggle.is_disabled()
        assert page.locator('[data-testid="state-undo"]').count() == 0   # a replay is read-only
        page.locator('[data-testid="replay-scrubber"]').fill("0")        # back to the start
        page.wait_for_function(
            "document.querySelector('[data-testid=state-losses-value]')?.textContent === '0 / 9'")
        assert page.locator('[data-testid="state-disordered"]').text_content() == "no"
