"""The overlay page with a Federico and an ATTILA roster, in real headless Chromium (Debian's)
driven by Playwright, against a real uvicorn server fed with real synthetic frames of that
roster: what only those rulebooks have is on the page (gap settings, mandatory charges, groups,
the card deck, isolated bases, fire and melee odds, the Army section)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from campo.server.runner import ServerThread, free_port
from tests.browser_fixtures import CHROMIUM_ARGS, checked_page, require_chromium
from tests.server_fixtures import wait_for
from tests.test_server_rulesets import LAYOUTS, all_seen, render_ruleset_frames, ruleset_settings

pytestmark = [pytest.mark.browser]

TOKEN = "umpire-token-for-ruleset-tests"

require_chromium()


@pytest.fixture(scope="module")
def chromium_args() -> list[str]:
    return [*CHROMIUM_ARGS, "--disable-quic"]


def _server(ruleset: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    frames = tmp_path_factory.mktemp(f"{ruleset}-frames")
    render_ruleset_frames(frames, ruleset, [LAYOUTS[ruleset]])
    settings = ruleset_settings(ruleset, frames, tmp_path_factory.mktemp(f"{ruleset}-setup"),
                                port=free_port(), token=TOKEN, fps=5.0)
    with ServerThread(settings) as srv:
        assert wait_for(lambda: all_seen(srv.services.tracker.state, ruleset), timeout=30)
        yield srv


@pytest.fixture(scope="module")
def attila(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    yield from _server("attila", tmp_path_factory)


@pytest.fixture(scope="module")
def federico(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    yield from _server("federico", tmp_path_factory)


def _page(browser: Any, server: ServerThread, first_base: str, token: bool = True) -> Any:
    return checked_page(browser, f"{server.url}/{f'?token={TOKEN}' if token else ''}",
                        [f'[data-testid="base-{first_base}"]'])


def text(page: Any, testid: str) -> str:
    return page.locator(f'[data-testid="{testid}"]').inner_text()


# -- ATTILA --------------------------------------------------------------------------------------


def test_attila_rules_tab_shows_the_gap_settings_apart(browser: Any, attila: ServerThread) -> None:
    with _page(browser, attila, "hun-riders") as page:
        page.click('[data-testid="tab-rules"]')
        heading = page.locator('[data-testid="gap-heading"]')
        heading.wait_for()
        assert heading.inner_text() == "Not in the rulebook: set for your group"
        gaps = page.locator('[data-testid="gap-settings"]')
        # the group's own numbers sit inside the marked box; the rulebook's readings do not
        assert gaps.locator('[data-setting="move_cm_fp"]').count() == 1
        assert gaps.locator('[data-setting="at1_contact_side"]').count() == 0
        assert page.locator('[data-testid="settings-list"] [data-setting="at1_contact_side"]').count() == 1
        box = gaps.evaluate("n => getComputedStyle(n).borderTopStyle")
        assert box == "dashed"  # visibly distinct
        reference = text(page, "reference")
        for title in ("Shooting bands", "Missile weapons", "Control Points: cost to move a unit or group",
                      "Movement rates"):
            assert title in reference
        assert "not in the rulebook" in reference


def test_attila_mandatory_charge_groups_and_zones(browser: Any, attila: ServerThread) -> None:
    with _page(browser, attila, "hun-riders") as page:
        # the base that must charge is marked on the table, the group is outlined
        page.wait_for_selector('[data-testid="must-charge-hun-riders"]')
        assert page.locator('[data-testid="badge-must-charge-hun-riders"]').text_content() == "MUST CHARGE"
        assert page.locator('[data-testid="must-charge-rom-leg-1"]').count() == 0
        assert page.locator('[data-testid="group-leg"]').count() == 1
        # the Army tab lists it for the umpire
        page.click('[data-testid="tab-army"]')
        item = page.locator('[data-testid="mandatory-charges"] [data-mandatory="hun-riders"]')
        item.wait_for()
        assert item.inner_text().startswith("Hun riders must charge Legio I or Legio II")
        assert "mounted with melee die d6" in item.inner_text()
        assert "steady" in text(page, "army-morale") and "the battle goes on" in text(page, "victory")
        assert "Hun riders" in text(page, "cp-A")
        # the Base panel: group id, mandatory charge
        page.click('[data-testid="base-rom-leg-2"]')
        page.wait_for_selector('[data-testid="group"]')
        assert text(page, "group").startswith("leg (heavy): Legio I, Legio II")
        page.click('[data-testid="base-hun-riders"]')
        page.wait_for_function("document.querySelector('[data-testid=base-name]').textContent === 'Hun riders'")
        assert text(page, "base-mandatory").startswith("must charge Legio I or Legio II")
        # deployment zones only while the toggle is on
        assert page.locator('[data-testid="zone-A-legal"]').count() == 0
        page.check('[data-testid="zones-toggle"]')
        page.wait_for_selector('[data-testid="zone-A-legal"]')
        assert page.locator('[data-testid="zones"] polygon').count() == 4
        page.uncheck('[data-testid="zones-toggle"]')
        assert page.locator('[data-testid="zones"] polygon').count() == 0


def test_drawing_a_card_shows_it_on_every_page(browser: Any, attila: ServerThread) -> None:
    from campo.engine.rulesets.attila.deck import Deck

    deck = attila.services.tool
    assert deck is not None
    with _page(browser, attila, "hun-riders") as umpire, _page(browser, attila, "hun-riders", token=False) as player:
        umpire.click('[data-testid="tab-army"]')
        player.click('[data-testid="tab-army"]')
        turn = deck.view()["turn"] + 1
        expected = Deck(seed=deck.seed).shuffled(turn)
        umpire.click('[data-testid="deck-shuffle"]')
        umpire.wait_for_function(f"document.querySelector('[data-testid=deck-count]').textContent.startsWith('turn {turn} ')")
        umpire.click('[data-testid="deck-draw"]')
        umpire.wait_for_function("document.querySelector('[data-testid=deck-current]').textContent.startsWith('Player')")
        assert text(umpire, "deck-current") == expected[0].text
        assert "1 drawn · 7 of 8 left" in text(umpire, "deck-count")
        # the player's read-only page sees the same card and cannot turn the deck
        player.wait_for_function(
            "t => document.querySelector('[data-testid=deck-current]').textContent === t", arg=expected[0].text)
        assert player.locator('[data-testid="deck-draw"]').is_disabled()
        assert player.locator('[data-testid="deck-shuffle"]').is_disabled()
        umpire.click('[data-testid="deck-draw"]')
        umpire.wait_for_function(
            "t => document.querySelector('[data-testid=deck-current]').textContent === t", arg=expected[1].text)
        assert umpire.locator('[data-testid="deck-drawn"] li').all_inner_texts() == [expected[0].text]


# -- Federico ------------------------------------------------------------------------------------


def test_federico_isolated_base_shows_its_badge(browser: Any, federico: ServerThread) -> None:
    with _page(browser, federico, "pr-forcade-1") as page:
        badge = page.locator('[data-testid="badge-isolated-pr-forcade-3"]')
        badge.wait_for()
        assert badge.text_content() == "ISOLATED"
        assert page.locator('[data-testid^="badge-isolated-"]').count() == 1
        page.click('[data-testid="base-pr-forcade-3"]')
        page.wait_for_selector('[data-testid="isolated-badge"]')
        assert text(page, "regiment").startswith("IR Forcade · class 4 · 3 bases · split")
        assert "ISOLATED: must rejoin its regiment" in text(page, "regiment")
        page.click('[data-testid="base-pr-forcade-1"]')
        page.wait_for_function("document.querySelector('[data-testid=base-name]').textContent === 'Forcade I'")
        assert page.locator('[data-testid="isolated-badge"]').count() == 0


def test_federico_fire_modifiers_melee_odds_and_army(browser: Any, federico: ServerThread) -> None:
    analysis = federico.services.tracker.snapshot.analysis()  # type: ignore[union-attr]
    shot = next(t for t in analysis["bases"]["pr-forcade-1"]["targets"] if t["id"] == "au-garde")
    with _page(browser, federico, "pr-forcade-1") as page:
        page.click('[data-testid="base-pr-forcade-1"]')
        row = page.locator('[data-testid="fire-modifiers"] tr[data-fire="au-garde"]')
        row.wait_for()
        cells = row.locator("td").all_inner_texts()
        assert cells[0] == "Garde"
        for m in shot["modifiers"]:
            assert m["label"] in cells[1]
        assert cells[2] == f"{shot['modifier_total']:+d}".replace("+0", "0")
        assert cells[4] == f"{round(shot['odds']['hit'] * 100)}%"
        melee = page.locator('[data-testid="melee-odds"] tr[data-melee="au-garde"]').locator("td").all_inner_texts()
        assert melee[0] == "Garde" and all(c.endswith("%") for c in melee[2:6])
        page.click('[data-testid="tab-army"]')
        page.wait_for_selector('[data-testid="army-morale"]')
        morale = text(page, "army-morale")
        assert "Frederick" in morale and "Daun" in morale
        a = analysis["army_morale"]["A"]
        assert f"{a['threshold_bases']} bases ({a['threshold_percent']:.0f}%)" in morale
        assert page.locator('[data-testid="objectives"] tr[data-objective="hill-1"]').inner_text().split("\t")[1] == "Side A"
        assert "Forcade III" in text(page, "isolated-list")
        page.click('[data-testid="tab-rules"]')
        page.wait_for_selector('[data-testid="gap-heading"]')
        assert page.locator('[data-testid="gap-settings"] [data-setting="f17_cohesion_tolerance_cm"]').count() == 1
        assert "Fire ranges (cm)" in text(page, "reference")
