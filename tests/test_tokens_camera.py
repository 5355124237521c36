"""Status tokens seen by the camera: read by the real pipeline on synthetic frames, applied by the
live server (recorded as `unit_state` events from the "token" source) and measured on the demo."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from campo.calibration.pipeline import FramePipeline
from campo.server.app import build_services, create_app
from campo.server.recording import attach, open_recording
from campo.server.rig import ServerSettings
from campo.vision.synthetic.demo import DemoCamera
from tests.bench_modules import bench_module
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, wait_for

TOKEN = """
[[tokens]]
marker = 40
id = "disorder-1"
name = "Disordered"
sets = { disordered = true }
"""


def test_the_pipeline_places_a_token_and_does_not_call_it_unknown() -> None:
    cam = DemoCamera()
    pipeline = FramePipeline(cam.game.table, cam.game.roster, cam.intrinsics)
    render = cam.render(30.0)
    result = pipeline.process(render.image, 30.0)
    [token] = result.tokens.tokens
    truth = render.truth.tokens["loss-1"]
    assert token.id == "loss-1" and token.marker == 42
    assert np.hypot(token.x_mm - truth.x_mm, token.y_mm - truth.y_mm) < 2.0
    assert 42 not in result.report.unknown_markers and "loss-1" not in render.truth.bases
    assert result.to_json("f.png")["tokens"] == [token.to_json()]


def _frames(folder: Path, roster_path: Path, with_token: int, without: int,
            where: tuple[float, float] | None = None) -> None:
    """``with_token`` frames with the disorder token behind Brigata Aosta (or at ``where``), then
    ``without``."""
    from campo.server.roster import load_checked_roster
    from campo.vision.camera_model import Intrinsics
    from campo.vision.synthetic import Effects, PlacedBase, SyntheticCamera, overhead
    from campo.vision.synthetic.scene import PlacedToken
    from campo.vision.tabletop import card_side_mm, load_table

    table = load_table(TABLE)
    roster = load_checked_roster(roster_path, table)
    intr = Intrinsics.ideal(1280, 720, 60)
    cam = SyntheticCamera(table, intr, overhead(table, intr), effects=Effects.clean(), seed=1, terrain=[])
    bases = [PlacedBase(roster.by_id()[b], x, y, h) for b, x, y, h in LAYOUT]
    aosta = bases[0]
    behind = aosta.y_mm - aosta.base.depth_mm / 2 - card_side_mm(20.0, table.table.dictionary) / 2 - 1.0
    token = PlacedToken(roster.tokens[0], *(where or (aosta.x_mm + 5.0, behind)), 95.0)
    folder.mkdir()
    cv2.imwrite(str(folder / "f000.png"), cam.render(bases, tokens=[token]).image)
    cv2.imwrite(str(folder / f"f{with_token:03d}.png"), cam.render(bases).image)
    for i in range(1, with_token + without):
        if i != with_token:
            shutil.copy(folder / ("f000.png" if i < with_token else f"f{with_token:03d}.png"), folder / f"f{i:03d}.png")


@pytest.mark.slow
def test_the_live_server_applies_a_token_and_takes_it_back(tmp_path: Path) -> None:
    roster = tmp_path / "roster.toml"
    roster.write_text(ROSTER.read_text() + TOKEN, encoding="utf-8")
    _frames(tmp_path / "frames", roster, 8, 60)   # 0.8 s with the token, 6 s without, looped
    settings = ServerSettings(source=str(tmp_path / "frames"), table=TABLE, roster=roster,
                              setup_file=tmp_path / "terrain.json", fps=10.0, status_interval_s=0.2)
    services = build_services(settings)
    app = create_app(settings, services=services)
    attach(app, services, tmp_path / "game.db")
    with TestClient(app, base_url="http://127.0.0.1") as client:
        def token_status() -> dict:
            return next(t for t in client.get("/api/status").json().get("tokens", []) if t["id"] == "disorder-1")

        assert wait_for(lambda: token_status()["holds"] == "pie-aosta", timeout=30, interval=0.3)
        status = client.get("/api/status").json()
        assert status["token_problems"] == [] and 40 not in status["unknown_markers"]
        state = client.get("/api/state").json()
        assert next(b for b in state["bases"] if b["id"] == "pie-aosta")["traits"]["disordered"] is True
        assert wait_for(lambda: token_status()["holds"] is None, timeout=30, interval=0.3)
        assert services.units.traits("pie-aosta") == {"disordered": False}   # type: ignore[union-attr]
    with open_recording(tmp_path / "game.db") as rec:
        events = [e.data for e in rec.events({"unit_state"})]
    assert [(e["base"], e["traits"], e["before"], e["source"]) for e in events[:2]] == [
        ("pie-aosta", {"disordered": True}, {"disordered": False}, "token"),
        ("pie-aosta", {"disordered": False}, {"disordered": True}, "token")]


@pytest.mark.slow
@pytest.mark.browser
def test_the_status_bar_says_why_a_token_sets_nothing(browser: Any, tmp_path: Path) -> None:
    from campo.server.runner import ServerThread, free_port

    roster = tmp_path / "roster.toml"
    roster.write_text(ROSTER.read_text() + TOKEN, encoding="utf-8")
    _frames(tmp_path / "frames", roster, 2, 0, where=(1400.0, 300.0))   # on the open table
    settings = ServerSettings(source=str(tmp_path / "frames"), table=TABLE, roster=roster,
                              setup_file=tmp_path / "t.json", port=free_port(), fps=5.0, status_interval_s=0.2)
    with ServerThread(settings) as srv:
        pg = browser.new_page()
        pg.goto(f"{srv.url}/")
        pg.wait_for_function("document.querySelector('[data-testid=token-problems]').textContent"
                             " === 'token disorder-1 lies against no base'", timeout=20000)
        assert pg.locator('[data-testid="unknown-markers"]').text_content() == ""
        pg.close()


@pytest.mark.slow
def test_demo_tokens_are_attached_to_the_right_base() -> None:
    """Issue 14 item 2's measure: attached right in >= 99 % of the frames where a token is wholly
    visible, never to a wrong base, never where there is none; two placed and two lifted."""
    score = bench_module("tokens_demo").measure(fps=5.0)
    assert score.visible > 200
    assert score.right_share >= 0.99, score.misses
    assert score.wrong == 0 and score.phantom == 0 and score.settled_wrong == 0
    assert [(c["base"], c["traits"], c["source"]) for c in score.changes] == [
        ("pie-regina", {"losses": 1}, "token"), ("aus-ir45", {"disordered": True}, "token"),
        ("pie-regina", {"losses": 0}, "token"), ("aus-ir45", {"disordered": False}, "token")]
