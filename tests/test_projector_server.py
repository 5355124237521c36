"""The projector's endpoints on the live server (server/projector.py): the tablet's choice is
checked and reaches every page on the ``projector`` topic with the base's geometry; the pattern;
a calibration without a projector page fails plainly and keeps what there was; a bad
projector.json stops the start with one line naming it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import httpx
import numpy as np
import pytest
from websockets.sync.client import connect

from campo.calibration.projector import ProjectorCalibration, save_projector
from campo.errors import FileFormatError
from campo.server import projector as projector_module
from campo.server.app import build_services
from campo.server.rig import ServerSettings
from campo.server.runner import ServerThread
from campo.vision.synthetic.projection import ProjectorModel
from campo.vision.tabletop import load_table
from tests.projector_fixtures import layout_server
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames

TOKEN = "projector-token"
HEADERS = {"X-Campo-Token": TOKEN}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with layout_server(tmp_path_factory, TOKEN, calibrated=False) as srv:
        yield srv


@pytest.fixture
def http(server: ServerThread) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def next_projector(ws: Any, want: Any = lambda p: True) -> dict[str, Any]:
    while True:
        msg = json.loads(ws.recv(timeout=10))
        if msg["topic"] == "projector" and want(msg["payload"]):
            return msg["payload"]  # type: ignore[no-any-return]


def test_the_projector_state_names_what_to_keep_dark(http: httpx.Client) -> None:
    p = http.get("/api/projector").json()
    assert p["mode"] == "overlay" and p["calibration"] is None
    assert {b for b, *_ in LAYOUT} <= set(p["markers"])
    assert p["markers"]["pie-aosta"]["size_mm"] > 0 and len(p["anchors"]) == 4
    assert p["view"] == {"base": None, "ruler": [], "terrain": False}
    assert http.get("/projector").status_code == 200


def test_the_tablets_choice_reaches_the_projector_topic_with_the_geometry(server: ServerThread,
                                                                         http: httpx.Client) -> None:
    with connect(server.url.replace("http://", "ws://") + "/ws", origin=server.url) as ws:
        next_projector(ws)   # the latest state, on connecting
        r = http.put("/api/projector/view", headers=HEADERS,
                     json={"base": "pie-aosta", "ruler": [[100, 100], [400, 300]], "terrain": True})
        assert r.status_code == 200, r.text
        p = next_projector(ws, lambda p: p["view"]["base"] == "pie-aosta")
    assert p["view"] == {"base": "pie-aosta", "ruler": [[100.0, 100.0], [400.0, 300.0]], "terrain": True}
    assert p["geometry"]["id"] == "pie-aosta" and len(p["geometry"]["arc"]) > 2
    r = http.put("/api/projector/view", headers=HEADERS, json={"base": None})
    assert r.status_code == 200 and http.get("/api/projector").json()["geometry"] is None


@pytest.mark.parametrize("body, status, words", [
    ({"base": "nobody"}, 404, "no base 'nobody'"),
    ({"bases": "pie-aosta"}, 422, "bases"),
    ({"ruler": [[0, 0], [1, 1], [2, 2]]}, 422, "ruler"),
    ({"ruler": [[0, "x"]]}, 422, "ruler.0.1"),
    ({"terrain": "yes please"}, 422, "terrain"),
    ("[1, 2]", 400, "JSON object"),
    ("{", 400, "not JSON"),
])
def test_a_bad_view_is_refused_naming_the_problem(http: httpx.Client, body: Any, status: int, words: str) -> None:
    before = http.get("/api/projector").json()["view"]
    content = body if isinstance(body, str) else json.dumps(body)
    r = http.put("/api/projector/view", headers={**HEADERS, "Content-Type": "application/json"}, content=content)
    assert r.status_code == status
    assert words in r.text
    assert http.get("/api/projector").json()["view"] == before


def test_writes_need_the_token(http: httpx.Client) -> None:
    assert http.put("/api/projector/view", json={"base": None}).status_code == 403
    assert http.put("/api/projector/screen", json={"width": 1280, "height": 800}).status_code == 403
    assert http.post("/api/projector/calibrate").status_code == 403


def test_the_screen_size_and_the_pattern(http: httpx.Client) -> None:
    assert http.put("/api/projector/screen", headers=HEADERS, json={"width": 10, "height": 800}).status_code == 422
    assert http.put("/api/projector/screen", headers=HEADERS, json={"width": 1280, "height": 800}).status_code == 200
    p = http.get("/api/projector").json()
    assert p["screen"] == [1280, 800]
    png = http.get(p["pattern_url"])
    image = cv2.imdecode(np.frombuffer(png.content, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert image.shape == (800, 1280) and set(np.unique(image)) == {0, 255}
    assert http.get("/api/projector/pattern.png?width=20&height=20").status_code == 422


def test_calibrating_without_a_projector_page_fails_and_keeps_the_old_calibration(
        server: ServerThread, http: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(projector_module, "SHOWN_TIMEOUT_S", 0.3)
    service = server.services.projector
    assert service is not None
    r = http.post("/api/projector/calibrate", headers=HEADERS)
    assert r.status_code == 200
    body = r.json()
    assert body["ok"] is False and body["state"] == "failed"
    assert "no projector page showed the pattern" in body["reason"]
    assert service.calibration is None and service.mode == "overlay"
    assert not server.settings.projector_file.exists()  # type: ignore[union-attr]


def test_a_bad_projector_json_stops_the_start_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "projector.json"
    model = ProjectorModel.above(load_table(TABLE))
    save_projector(ProjectorCalibration((1920, 1080), model.table_to_projector, 0.1, 0.2, 0.8, 50, 60), path)
    data = json.loads(path.read_text())
    data["homography"][0][0] = "one"
    path.write_text(json.dumps(data))
    frames = tmp_path / "frames"
    frames.mkdir()
    render_frames(frames, [LAYOUT])
    settings = ServerSettings(source=str(frames), table=TABLE, roster=ROSTER, projector_file=path,
                              setup_file=tmp_path / "terrain.json")
    with pytest.raises(FileFormatError, match=r"projector.json: homography: must be a number"):
        build_services(settings)


def test_one_calibration_at_a_time(server: ServerThread, http: httpx.Client) -> None:
    service = server.services.projector
    assert service is not None and service.begin()
    try:
        r = http.post("/api/projector/calibrate", headers=HEADERS)
        assert r.status_code == 409 and "already running" in r.json()["error"]
    finally:
        service.job = {"state": "idle"}


def test_the_status_tokens_lying_on_the_table_are_named_for_the_projector_to_keep_dark() -> None:
    """The demo game at 30 s: a loss marker lies behind Brigata Regina; the live status part
    places it where it lies (the pipeline's reading), with its marker's side."""
    from campo.calibration.pipeline import FramePipeline
    from campo.server.projector_view import token_darkness
    from campo.vision.synthetic.demo import DemoCamera

    demo = DemoCamera()
    t = 30.0
    placed = demo.game.tokens_at(t)
    assert placed, "the demo script lays a token from 27 s"
    pipeline = FramePipeline(demo.game.table, demo.game.roster, demo.intrinsics)
    result = pipeline.process(demo.render(t).image, t)
    part = token_darkness(lambda: result, demo.game.roster)()
    assert len(part["projector_tokens"]) == len(placed)
    for token in placed:
        x, y, side = min(part["projector_tokens"], key=lambda p: (p[0] - token.x_mm) ** 2 + (p[1] - token.y_mm) ** 2)
        assert abs(x - token.x_mm) < 3 and abs(y - token.y_mm) < 3
        assert side == token.token.size_mm
    assert token_darkness(lambda: None, demo.game.roster)() == {"projector_tokens": []}


def test_the_command_radius_drawn_for_a_general() -> None:
    """ISD §3: 9" for a Division general, 6" for a Corps commander, halved in fog; Federico's
    ``command_radius_cm`` (none by default); no circle for a unit. The engine's overlay geometry
    carries it, so the projector (and the tablet) draw what the rulebook's own code says."""
    from campo.engine import GameState

    def command_radius_mm(state: GameState, base_id: str) -> float | None:
        return state.ruleset.overlay_geometry(state, base_id).get("command_radius_mm")

    data = Path(__file__).parent / "data" / "engine"

    def state(name: str, settings: dict[str, Any] | None = None) -> GameState:
        scenario = json.loads((data / name).read_text())["scenario"]
        if settings is not None:
            scenario["settings"] = settings
        return GameState.from_dict(scenario)

    isd = state("italia/command_radius.json")
    assert command_radius_mm(isd, "gen-div") == 225.0
    assert command_radius_mm(isd, "gen-corps") == 150.0
    assert command_radius_mm(isd, "u-in") is None
    assert command_radius_mm(state("italia/command_radius_fog.json"), "gen-div") == 112.5
    assert command_radius_mm(state("federico/melees.json"), "cmd-a") is None
    assert command_radius_mm(state("federico/melees.json", {"command_radius_cm": 30}), "cmd-a") == 300.0
    assert command_radius_mm(state("federico/melees.json", {"command_radius_cm": 30}), "a1") is None
