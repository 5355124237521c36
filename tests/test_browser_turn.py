"""The turn stepper on the overlay page (issue 14 item 3), in real headless Chromium at a 10"
tablet's sizes in both orientations: the turn and phase of the rulebook's sequence of play, who
moves, Next and Back (undo), who plays first; ATTILA's turn driven by its cards."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from campo.engine.rulesets.attila.deck import Deck
from campo.server.rig import ServerSettings
from campo.server.runner import ServerThread, free_port
from tests.browser_fixtures import require_chromium
from tests.test_browser_setup import new_page
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames, wait_for
from tests.test_server_rulesets import LAYOUTS, all_seen, render_ruleset_frames, ruleset_settings

pytestmark = [pytest.mark.browser]
require_chromium()

TOKEN = "umpire-token-for-turn-tests"
SIZES = [(1024, 768), (768, 1024)]
SHOTS = os.environ.get("CAMPO_TURN_SHOTS")   # a folder to keep the screenshots in (to look at them)
BAR = '[data-testid="turn-stepper"]'


@pytest.fixture(scope="module")
def isd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    frames = tmp_path_factory.mktemp("frames")
    render_frames(frames, [LAYOUT])
    settings = ServerSettings(source=str(frames), table=TABLE, roster=ROSTER,
                              setup_file=tmp_path_factory.mktemp("setup") / "terrain.json",
                              port=free_port(), token=TOKEN, fps=5.0, status_interval_s=0.5)
    with ServerThread(settings) as srv:
        assert wait_for(lambda: srv.services.tracker.state is not None
                        and len(srv.services.tracker.state["bases"]) == 4, timeout=20)
        yield srv


@pytest.fixture(scope="module")
def attila(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    frames = tmp_path_factory.mktemp("attila-frames")
    render_ruleset_frames(frames, "attila", [LAYOUTS["attila"]])
    settings = ruleset_settings("attila", frames, tmp_path_factory.mktemp("attila-setup"),
                                deck_seed=31, port=free_port(), token=TOKEN, fps=5.0)
    with ServerThread(settings) as srv:
        assert wait_for(lambda: all_seen(srv.services.tracker.state, "attila"), timeout=30)
        yield srv


def open_page(browser: Any, url: str, size: tuple[int, int]) -> tuple[Any, Any, list[str]]:
    """A touch page of ``size`` (tests/test_browser_setup.py's), once the stepper is shown."""
    context, page, problems = new_page(browser, url, size)
    page.wait_for_selector(f"{BAR}:not([hidden])")
    return context, page, problems


def shot(page: Any, name: str, size: tuple[int, int], tmp: Path) -> Path:
    folder = Path(SHOTS) if SHOTS else tmp
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"turn-{size[0]}x{size[1]}-{name}.png"
    page.screenshot(path=str(path))
    return path


def text(page: Any, testid: str) -> str:
    return str(page.locator(f'[data-testid="{testid}"]').text_content()).strip()


def wait_text(page: Any, testid: str, expected: str) -> None:
    page.wait_for_function(
        "([id, want]) => (document.querySelector(`[data-testid=${id}]`) || {}).textContent?.includes(want)",
        arg=[testid, expected], timeout=10000)


def finger_sized(page: Any) -> list[str]:
    """The stepper's controls smaller than 48 px, its text smaller than 14 px, the bar taller
    than a quarter of the screen, and any sideways scrolling."""
    return page.evaluate("""() => {
        const out = [];
        const bar = document.querySelector('#turn-bar');
        for (const el of bar.querySelectorAll('button')) {
          const r = el.getBoundingClientRect();
          if (r.height < 48 || r.width < 48) out.push(`${el.dataset.testid} ${Math.round(r.width)}x${Math.round(r.height)}`);
        }
        for (const el of bar.querySelectorAll('span, div')) {
          const size = parseFloat(getComputedStyle(el).fontSize);
          if (el.getBoundingClientRect().height > 0 && size < 14) out.push(`text ${el.className} ${size}px`);
        }
        if (bar.getBoundingClientRect().height > innerHeight / 4) out.push(`bar ${bar.getBoundingClientRect().height}px high`);
        if (document.documentElement.scrollWidth > innerWidth + 1) out.push(`scrolls sideways ${document.documentElement.scrollWidth}`);
        const table = document.querySelector('#table').getBoundingClientRect();
        if (table.height < 200) out.push(`table squeezed to ${table.height}px`);
        return out; }""")


@pytest.mark.parametrize("size", SIZES, ids=["landscape", "portrait"])
def test_isd_stepper_steps_and_undoes(browser: Any, isd: ServerThread, size: tuple[int, int],
                                      tmp_path: Path) -> None:
    clock = isd.services.clock
    assert clock is not None
    clock.restore(0, None, "A")
    context, page, problems = open_page(browser, f"{isd.url}/?token={TOKEN}", size)
    try:
        assert text(page, "turn-number") == "Not started"
        assert "First impulse: bombardment (side A)" in text(page, "turn-next")
        assert page.locator('[data-testid="turn-back"]').is_disabled()   # nothing to undo
        page.click('[data-testid="turn-next"]')
        wait_text(page, "turn-number", "Turn 1")
        assert text(page, "turn-phase") == "First impulse: bombardment (side A)"
        assert text(page, "turn-moves") == "A: stayB: results only"
        assert "ISD §6" in text(page, "turn-does")
        for _ in range(2):
            page.click('[data-testid="turn-next"]')
        wait_text(page, "turn-phase", "manoeuvre and charges")
        assert text(page, "turn-moves") == "A: moveB: results only"
        assert finger_sized(page) == []
        landscape_or_portrait = shot(page, "isd-manoeuvre", size, tmp_path)
        assert landscape_or_portrait.stat().st_size > 10_000
        # B has the initiative in this game: one tap, and one tap back
        page.click('[data-testid="turn-first"]')
        wait_text(page, "turn-first", "B first")
        assert page.locator('[data-testid="turn-phase"]').get_attribute("class").endswith("side-B")
        assert text(page, "turn-moves") == "A: results onlyB: move"
        page.click('[data-testid="turn-back"]')
        wait_text(page, "turn-phase", "First impulse: fire (side B)")
        assert wait_for(lambda: (clock.view()["phase"], clock.view()["first"]) == ("first.fire", "B"))
        # the events list names the phases by their titles
        page.click('[data-testid="tab-events"]')
        wait_text(page, "events-list", "Phase First impulse: fire (side B)")
        shot(page, "isd-events", size, tmp_path)
    finally:
        context.close()
    assert problems == []


def test_a_read_only_page_sees_the_clock_but_cannot_step(browser: Any, isd: ServerThread) -> None:
    clock = isd.services.clock
    assert clock is not None
    clock.restore(2, "second.melee", "A")
    context, page, problems = open_page(browser, f"{isd.url}/", (1024, 768))
    try:
        wait_text(page, "turn-number", "Turn 2")
        assert text(page, "turn-phase") == "Second impulse: melee (side B)"
        for control in ("turn-next", "turn-back", "turn-first"):
            assert page.locator(f'[data-testid="{control}"]').is_disabled()
    finally:
        context.close()
    assert problems == []
    assert clock.view()["phase"] == "second.melee"


@pytest.mark.parametrize("size", SIZES, ids=["landscape", "portrait"])
def test_attila_stepper_deals_the_cards(browser: Any, attila: ServerThread, size: tuple[int, int],
                                        tmp_path: Path) -> None:
    """ATT 14: Next shuffles for the turn, then draws card after card; Back puts the card back;
    the Army tab's deck shows the same card."""
    clock = attila.services.clock
    assert clock is not None and clock.tool is not None
    context, page, problems = open_page(browser, f"{attila.url}/?token={TOKEN}", size)
    try:
        turn = clock.view()["turn"]
        assert "first" not in clock.view()["actions"]
        assert page.locator('[data-testid="turn-first"]').count() == 0
        if clock.view()["next"]["phase"] != "shuffle":
            while clock.view()["next"]["phase"] != "shuffle":   # an earlier test left cards
                before = clock.view()
                page.click('[data-testid="turn-next"]')
                # each click handled before the next (a second click could land on the shuffle)
                assert wait_for(lambda: clock.view() != before, timeout=15)
        page.click('[data-testid="turn-next"]')
        wait_text(page, "turn-number", f"Turn {turn + 1}")
        assert text(page, "turn-phase") == "Cards shuffled"
        assert text(page, "turn-next") == "Next: draw a card ▶"
        card = Deck(seed=31).shuffled(turn + 1)[0]
        page.click('[data-testid="turn-next"]')
        title = {"move": "moves", "shoot": "shoots", "melee": "starts melee",
                 "reorganise": "reorganises"}[card.action]
        wait_text(page, "turn-phase", f"Player {card.player} {title}")
        assert finger_sized(page) == []
        page.click('[data-testid="tab-army"]')
        wait_text(page, "deck-current", card.text)
        shot(page, "attila-card", size, tmp_path)
        page.click('[data-testid="turn-back"]')
        wait_text(page, "turn-phase", "Cards shuffled")
        wait_text(page, "deck-current", "Turn shuffled")
        assert clock.tool.view()["remaining"] == clock.tool.view()["size"]
    finally:
        context.close()
    assert problems == []
