"""`campo replay` in real headless Chromium: scrub to a moment or jump to an event and see the
recorded positions on the board (drawn by the live page), with each move's measured path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from campo.server.recording import Recorder, open_recording
from campo.server.recording.simulate import demo_scenario, demo_script, play
from tests.browser_fixtures import SIDE_RGB, checked_page, replay_server, require_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]

require_chromium()


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "game.db"
    with Recorder(path) as rec:
        for t, state in play(demo_scenario(), demo_script()):
            rec.record_state(state, t=t)
    return path


@pytest.fixture(scope="module")
def server(recording: Path) -> Iterator[str]:
    with replay_server(recording) as url:
        yield url


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    with checked_page(browser, server + "/", ["body.replay-ready", '[data-testid="base-a-1"]']) as pg:
        yield pg


def shown_at(page: Any, seq: int | None = None, t: float | None = None) -> None:
    """Wait until the page's board shows the replay moment asked for."""
    page.wait_for_function(
        """([seq, t]) => { const s = window.campo.state; const r = s && s.live && s.live.replay;
             return r && (seq === null || r.seq === seq) && (t === null || Math.abs(r.t - t) < 1e-6); }""",
        arg=[seq, t], timeout=10000)
    page.wait_for_timeout(100)  # one animation frame for the SVG to be painted


def centre_on_board(page: Any, base_id: str) -> tuple[float, float]:
    """The drawn base's centre in table mm (mean of its polygon's corners)."""
    points = page.locator(f'[data-testid="base-{base_id}"] polygon').get_attribute("points")
    xy = [tuple(map(float, p.split(","))) for p in points.split()]
    return (sum(p[0] for p in xy) / len(xy), sum(p[1] for p in xy) / len(xy))


def pixel(page: Any, x_mm: float, y_mm: float) -> tuple[int, int, int]:
    """The colour painted at a table point (a screenshot pixel, through the SVG's transform)."""
    import cv2
    import numpy as np

    sx, sy = page.evaluate(
        """([x, y]) => { const m = document.querySelector('#flip').getScreenCTM();
                        return [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]; }""",
        [x_mm, y_mm])
    img = cv2.imdecode(np.frombuffer(page.screenshot(), np.uint8), cv2.IMREAD_COLOR)
    b, g, r = img[int(round(sy)), int(round(sx))]
    return int(r), int(g), int(b)


def near(rgb: tuple[int, int, int], target: tuple[int, int, int], tol: int = 40) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(rgb, target, strict=True))


def test_jump_to_the_charge_shows_the_recorded_positions(page: Any, recording: Path) -> None:
    page.click('[data-testid="tab-events"]')
    charge = page.locator('#replay-events li[data-kind="charge"]')
    seq = int(charge.get_attribute("data-seq"))
    charge.click()
    with open_recording(recording) as rec:
        expected = rec.state_at_seq(seq)
    assert expected is not None
    shown_at(page, seq=expected.seq)
    for b in expected.data["bases"]:
        x, y = centre_on_board(page, b["id"])
        assert (x, y) == pytest.approx((b["x_mm"], b["y_mm"]), abs=0.2), b["id"]
    assert near(pixel(page, 330.0, 440.0), SIDE_RGB["B"])  # b-1 where its charge ended
    assert not near(pixel(page, 330.0, 700.0), SIDE_RGB["B"])  # ... not where it started
    assert "current" in (charge.get_attribute("class") or "").split()  # highlighted in the list
    label = page.locator('[data-testid="move-path-b-1"] text').text_content()
    assert label == "10.4in / 12in"
    assert "EXCEEDED" not in label
    assert page.locator('[data-testid="replay-time"]').text_content().startswith("0:08")


def test_scrub_back_to_before_the_charge(page: Any, recording: Path) -> None:
    page.locator('[data-testid="replay-scrubber"]').fill("3")
    shown_at(page, t=3.0)
    with open_recording(recording) as rec:
        expected = rec.state_at(3.0)
    assert expected is not None
    for b in expected.data["bases"]:
        assert centre_on_board(page, b["id"]) == pytest.approx((b["x_mm"], b["y_mm"]), abs=0.2)
    assert centre_on_board(page, "a-1") == pytest.approx((300.0, 400.0), abs=0.2)
    assert near(pixel(page, 330.0, 700.0), SIDE_RGB["B"])  # b-1 has not charged yet
    assert page.locator('[data-testid="move-path-b-1"]').count() == 0
    assert page.locator('[data-testid="move-path-a-1"]').count() == 1


def test_play_advances_and_next_event_steps(page: Any) -> None:
    page.select_option('[data-testid="replay-speed"]', "10")
    page.click('[data-testid="replay-play"]')
    page.wait_for_function("window.campoReplay.t > 5 || !window.campoReplay.playing", timeout=10000)
    page.click('[data-testid="replay-play"]')  # pause (or play again from the end)
    if page.evaluate("window.campoReplay.playing"):
        page.click('[data-testid="replay-play"]')
    page.locator('[data-testid="replay-scrubber"]').fill("0")
    shown_at(page, t=0.0)
    page.select_option('[data-testid="replay-filter"]', "moves")
    page.click('[data-testid="replay-next"]')
    page.wait_for_function("window.campoReplay.shownSeq !== null")
    first_move_seq = page.evaluate("window.campoReplay.shownSeq")
    kinds = page.evaluate(
        "window.campoReplay.timeline.events.filter(e => e.seq === %d).map(e => e.kind)"
        % first_move_seq)
    assert kinds == ["move"]
