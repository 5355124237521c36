"""The setup page in real headless Chromium at tablet sizes: from an empty folder, through the
rulebook, the table, the roster, printing, the live calibration on the rehearsal camera (which
waves a ChArUco board, then films the table) and the table check, to the first analysed state."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_fixtures import require_chromium
from tests.server_fixtures import wait_for
from tests.setup_fixtures import HostThread

pytestmark = [pytest.mark.browser]
require_chromium()

SHOTS = os.environ.get("CAMPO_SETUP_SHOTS")   # a folder to keep the screenshots in (for looking at them)
TABLET_SIZES = [(1024, 768), (768, 1024), (1366, 1024), (1024, 1366)]


def new_page(browser: Any, url: str, size: tuple[int, int]) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.goto(url)
    return context, page, problems


def shot(page: Any, name: str, size: tuple[int, int], tmp: Path) -> None:
    folder = Path(SHOTS) if SHOTS else tmp
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"setup-{size[0]}x{size[1]}-{name}.png"))


def tablet_friendly(page: Any) -> list[str]:
    """Controls in the visible step smaller than a finger (44 px), and sideways scrolling."""
    small = page.evaluate("""() => {
        const out = [];
        for (const el of document.querySelectorAll('header button, .step.active button, .step.active input, .step.active select, .step.active a.button, .step.active label.button, .step.active summary')) {
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.height === 0 || el.closest('details:not([open])') && el.tagName !== 'SUMMARY') continue;
          if (r.height < 44 || r.width < 44) out.push(`${el.tagName} ${el.dataset.testid || el.textContent.trim().slice(0, 20)} ${Math.round(r.width)}x${Math.round(r.height)}`);
        }
        if (document.documentElement.scrollWidth > innerWidth + 1) out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${innerWidth}`);
        return out; }""")
    fonts = page.evaluate("""() => [...document.querySelectorAll('.step.active p, .step.active label, .step.active td, .step.active li')]
        .filter((el) => el.getBoundingClientRect().height > 0)
        .map((el) => parseFloat(getComputedStyle(el).fontSize)).filter((s) => s < 14)""")
    return small + [f"text of {s} px" for s in fonts[:3]]


def walk_to_play(page: Any, size: tuple[int, int], tmp: Path, host: HostThread) -> None:
    """The whole setup, as a user with a tablet would do it."""
    page.wait_for_selector('[data-testid="rulebook-italia-se-desta"]')
    assert tablet_friendly(page) == []
    shot(page, "1-game", size, tmp)
    page.click('[data-testid="rulebook-italia-se-desta"]')
    page.click('[data-testid="step-table"]')
    page.click('[data-testid="preset-1200x800"]')
    page.wait_for_function("document.querySelector('[data-testid=save-state]').textContent === 'all saved'")
    assert tablet_friendly(page) == []
    shot(page, "2-table", size, tmp)
    # "all saved" may already show (the rulebook's save) before the preset's own save lands
    assert wait_for(lambda: 'width_mm = 1200.0' in host.campo.files.table.read_text(), timeout=10)
    # the roster: three brigades a side, then a mistake, shown on its field, and undone
    page.click('[data-testid="step-roster"]')
    page.select_option('[data-testid="add-type"]', "B/infantry")
    page.fill('[data-testid="add-count"]', "3")
    page.click('[data-testid="add-unit"]')
    page.select_option('[data-testid="add-side"]', "B")
    page.click('[data-testid="add-unit"]')
    page.wait_for_function("document.querySelector('[data-testid=save-state]').textContent === 'all saved'")
    assert page.locator('[data-testid="base-0-width_mm"]').input_value() == "80"
    assert page.locator('[data-testid="base-0-trait-weapon"]').input_value() == "MR"
    page.fill('[data-testid="base-1-marker"]', "0")          # an anchor's marker
    page.wait_for_selector('[data-testid="field-message"]')
    message = page.locator('[data-testid="base-1-marker"] >> xpath=../following-sibling::div[1]').text_content()
    assert "anchor" in message
    assert re.search(r"problem", page.locator('[data-testid="save-state"]').text_content())
    shot(page, "3-roster-problem", size, tmp)
    assert "marker = 11" in host.campo.files.roster.read_text()      # the file kept its last good state
    page.click('[data-testid="undo"]')
    page.wait_for_function("document.querySelector('[data-testid=save-state]').textContent === 'all saved'")
    assert page.locator('[data-testid="base-1-marker"]').input_value() == "11"
    assert tablet_friendly(page) == []
    shot(page, "3-roster", size, tmp)
    # print: the markers PDF of this roster
    page.click('[data-testid="step-print"]')
    pdf = page.request.get(host.url + page.locator('[data-testid="markers-pdf"]').get_attribute("href"))
    assert pdf.ok and pdf.body()[:5] == b"%PDF-"
    assert tablet_friendly(page) == []
    shot(page, "4-print", size, tmp)
    # the camera, calibrated live on the rehearsal camera
    page.click('[data-testid="step-camera"]')
    page.click('[data-testid="source-rehearsal"]')
    page.wait_for_function("Number(document.querySelector('[data-testid=calibration-views]').textContent.split(' ')[0]) >= 3",
                           timeout=60000)
    assert tablet_friendly(page) == []
    shot(page, "5-camera-collecting", size, tmp)
    page.wait_for_function("document.querySelector('[data-testid=calibration-saved]').textContent.startsWith('Saved')",
                           timeout=120000)
    assert host.campo.files.camera.exists()
    assert "px" in page.locator('[data-testid="calibration-rms"]').text_content()
    assert "%" in page.locator('[data-testid="calibration-focal"]').text_content()
    shot(page, "5-camera-saved", size, tmp)
    # the table check: every base read, with its size in pixels
    page.click('[data-testid="step-check"]')
    page.wait_for_function("document.querySelector('[data-testid=check-advice]').textContent.startsWith('every base is read')",
                           timeout=60000)
    assert page.locator('[data-testid="check-bases"] tbody tr').count() == 6
    assert page.locator('[data-testid="check-anchors"]').text_content().startswith("anchors read: 4 of 4")
    assert tablet_friendly(page) == []
    shot(page, "6-check", size, tmp)
    page.click('[data-testid="step-play"]')
    page.wait_for_selector('[data-testid="play"]:not([disabled])')
    shot(page, "7-play", size, tmp)
    page.click('[data-testid="play"]')
    page.wait_for_url(re.compile(r"/(\?.*)?$"))
    page.wait_for_selector('[data-testid="base-a-b-infantry-1"]', timeout=60000)
    page.wait_for_function("document.querySelector('[data-testid=table-located]').textContent === 'table located'",
                           timeout=30000)
    page.wait_for_function("window.campo.state && window.campo.state.bases.length === 6", timeout=30000)
    assert page.locator('[data-testid="setup-link"]').is_visible()
    shot(page, "8-first-state", size, tmp)


@pytest.mark.slow
@pytest.mark.parametrize("size", TABLET_SIZES[:2], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_whole_setup_from_an_empty_folder_to_the_first_analysed_state(
        browser: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    folder = tmp_path / "game"
    with HostThread(folder, "rehearsal") as host:
        context, page, problems = new_page(browser, f"{host.url}/", size)
        try:
            walk_to_play(page, size, tmp_path, host)
            state = page.request.get(f"{host.url}/api/state").json()
            assert len(state["bases"]) == 6 and state["analysis"]["bases"]
        finally:
            context.close()
        assert problems == []
    assert {p.name for p in folder.iterdir() if not p.name.startswith(".")} >= {"table.toml", "roster.toml", "camera.json"}


@pytest.fixture(scope="module")
def set_up_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostThread]:
    """A folder with a table and a roster already (the setup reached again from a live game)."""
    from tests.server_fixtures import ROSTER, TABLE

    folder = tmp_path_factory.mktemp("ready")
    (folder / "table.toml").write_text(TABLE.read_text())
    (folder / "roster.toml").write_text(ROSTER.read_text())
    with HostThread(folder, "rehearsal") as host:
        yield host


@pytest.mark.parametrize("size", TABLET_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_step_fits_a_tablet(browser: Any, set_up_folder: HostThread, tmp_path: Path,
                                  size: tuple[int, int]) -> None:
    context, page, problems = new_page(browser, f"{set_up_folder.url}/setup#roster", size)
    try:
        page.wait_for_selector('[data-testid="base-0"]')
        for step in ("game", "table", "roster", "print", "camera", "check", "play"):
            page.click(f'[data-testid="step-{step}"]')
            page.wait_for_timeout(150)
            assert tablet_friendly(page) == [], step
            shot(page, f"fit-{step}", size, tmp_path)
    finally:
        context.close()
    assert problems == []


def test_a_roster_file_is_imported_with_its_errors_named(browser: Any, set_up_folder: HostThread, tmp_path: Path) -> None:
    bad = tmp_path / "their-roster.toml"
    bad.write_text('ruleset = "italia-se-desta"\n\n[[bases]]\nmarker = 40\nid = "x"\nside = "C"\ntype = "B"\n'
                   'width_mm = 80.0\ndepth_mm = 40.0\nmarker_size_mm = 25.0\n')
    context, page, problems = new_page(browser, f"{set_up_folder.url}/setup#roster", (1024, 768))
    try:
        page.wait_for_selector('[data-testid="base-0"]')
        before = set_up_folder.campo.files.roster.read_text()
        page.set_input_files('[data-testid="import-file"]', str(bad))
        page.wait_for_selector('[data-testid="roster-problems"] li')
        text = page.locator('[data-testid="roster-problems"]').text_content()
        assert "their-roster.toml:6: bases[0].side" in text
        assert set_up_folder.campo.files.roster.read_text() == before    # nothing written, nothing lost
    finally:
        context.close()
    assert problems == []
