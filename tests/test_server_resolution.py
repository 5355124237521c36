"""Resolving fire from the live server (issue 14 item 4): the shot's modifiers and table from the
engine, the umpire's dice or Campo's seeded roll, the proposed losses confirmed into the unit
state in one request (undone like any change), and every roll and result recorded."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from campo.engine.resolution import Roll, roll
from campo.server.app import Services, build_services, create_app
from campo.server.recording import attach, open_recording
from campo.server.rig import ServerSettings
from tests.server_fixtures import ROSTER, TABLE, state_bases, wait_for

BASE = "http://127.0.0.1"
SHOT = {"shooter": "pie-aosta", "target": "aus-47"}


@pytest.fixture
def live(still_frames: Path, tmp_path: Path) -> Iterator[tuple[TestClient, Services, Path]]:
    settings = ServerSettings(source=str(still_frames), table=TABLE, roster=ROSTER, dice_seed=7,
                              setup_file=tmp_path / "terrain.json", fps=10.0, status_interval_s=0.2)
    services = build_services(settings)
    app = create_app(settings, services=services)
    game = tmp_path / "game.db"
    attach(app, services, game)
    with TestClient(app, base_url=BASE) as client:
        assert wait_for(lambda: len(state_bases(client.get("/api/state"))) == 4, timeout=20)
        assert wait_for(lambda: services.tracker.snapshot is not None
                        and services.tracker.snapshot.state is not None, timeout=20)
        yield client, services, game


def test_the_shot_shows_the_engines_modifiers_and_the_rulebooks_table(
        live: tuple[TestClient, Services, Path]) -> None:
    client, _, _ = live
    test = client.get("/api/resolve/fire", params=SHOT).json()
    # Aosta: unit B (3 d6, ISD §4/§7), rifled muskets MR (re-roll 1s, ISD §7), 4.8" from IR 47
    assert test["title"] == "Musketry" and test["cites"] == "ISD §7"
    assert [m["label"] for m in test["modifiers"]] == ["fire factor, unit B: 3 d6",
                                                       "rifled arms (MR): re-roll 1s"]
    assert test["rolls"] == [{"label": "3d6", "count": 3, "sides": 6, "offset": 0,
                              "reroll_ones": True, "only_if": ""}]
    # ISD §7: «Ogni 5 o 6 costituisce un colpo a segno»
    assert [r[1] for r in test["table"]["rows"]] == ["miss"] * 4 + ["hit: 1 loss"] * 2
    # IR 59 is out of musketry range (6", ISD §7): refused with the engine's reason
    far = client.get("/api/resolve/fire", params={"shooter": "pie-aosta", "target": "aus-59"})
    assert far.status_code == 422 and "cannot fire at aus-59" in far.json()["detail"]
    assert client.get("/api/resolve/fire", params={"shooter": "pie-aosta",
                                                   "target": "nobody"}).status_code == 404


def test_umpire_dice_to_confirmed_losses_recorded_and_undone(
        live: tuple[TestClient, Services, Path]) -> None:
    client, services, game = live
    reply = client.post("/api/resolve/fire", json={**SHOT, "dice": [[6, 5, 2]]})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["roll"] == {"by": "umpire", "dice": [[6, 5, 2]]}
    assert body["outcome"]["row"] == "2 hits"
    assert body["outcome"]["effects"] == [{"base": "aus-47", "text": "losses 0 → 2",
                                           "traits": {"losses": 2}, "remove": False}]
    assert services.units.traits("aus-47") == {}          # nothing applied before the tap
    done = client.post(f"/api/resolve/{body['id']}/confirm")
    assert done.status_code == 200, done.text
    assert done.json()["changes"] == [{"base": "aus-47", "traits": {"losses": 2},
                                       "before": {"losses": 0}}]
    assert wait_for(lambda: next(b for b in client.get("/api/state").json()["bases"]
                                 if b["id"] == "aus-47")["traits"].get("losses") == 2)
    # once only
    assert client.post(f"/api/resolve/{body['id']}/confirm").status_code == 404
    # Undo takes it back like any change of state
    with client.websocket_connect("ws://127.0.0.1/ws") as ws:
        ws.send_json({"type": "undo_unit_state"})
        while True:
            msg = ws.receive_json()
            if msg["topic"] == "reply":
                break
    assert msg["payload"]["ok"] and services.units.traits("aus-47") == {"losses": 0}
    services_recorder_flush(client)
    with open_recording(game) as rec:
        kinds = [(e.kind, e.data.get("status")) for e in rec.events({"roll", "resolution",
                                                                      "unit_state"})]
        rolls = [e.data for e in rec.events({"roll"})]
    assert kinds == [("roll", None), ("resolution", "proposed"), ("unit_state", None),
                     ("resolution", "confirmed"), ("unit_state", None)]
    assert rolls[0]["dice"] == [[6, 5, 2]] and rolls[0]["by"] == "umpire"
    assert rolls[0]["actor"] == "pie-aosta" and rolls[0]["target"] == "aus-47"


def test_campo_rolls_seeded_and_the_seed_replays_the_roll(
        live: tuple[TestClient, Services, Path]) -> None:
    client, services, _ = live
    body = client.post("/api/resolve/fire", json=SHOT).json()
    rolled = body["roll"]
    assert rolled["by"] == "campo" and rolled["seed"] == 7 * 100_000
    again = roll([Roll("3d6", 3, 6, reroll_ones=True)], random.Random(rolled["seed"]))
    assert [rolled["thrown"], rolled["dice"]] == list(again)
    # the hits are the dice that show 5 or 6 (ISD §7; no per-die modifier on this shot)
    hits = sum(d >= 5 for d in rolled["dice"][0])
    assert body["outcome"]["score"]["hits"] == hits


@pytest.mark.parametrize("dice, words", [([[6, 5]], "3 die faces"), ([[6, 5, 7]], "dice[0][2]"),
                                         ("66", "group")])
def test_bad_dice_are_refused_naming_the_die(live: tuple[TestClient, Services, Path],
                                             dice: object, words: str) -> None:
    client, _, _ = live
    reply = client.post("/api/resolve/fire", json={**SHOT, "dice": dice})
    assert reply.status_code == 422 and words in reply.json()["error"]


def services_recorder_flush(client: TestClient) -> None:
    """Wait until the recording has every event published so far."""
    client.app.state.recorder.flush(5.0)  # type: ignore[attr-defined]


def test_a_manoeuvre_test_proposes_the_forced_move_back_as_a_ghost(
        live: tuple[TestClient, Services, Path]) -> None:
    client, services, _ = live
    test = client.get("/api/resolve/manoeuvre", params={"actor": "pie-aosta"}).json()
    # ISD ManTab: fresh +2; IR 47 within 6" -1 (ISD A25)
    assert [m["label"] for m in test["modifiers"]] == ["fresh troops: +2",
                                                       'enemy infantry within 6": -1']
    # 1 + 1 + 1 = 3: «Allontanato», moves away at least ½ move (an ordered unit)
    body = client.post("/api/resolve/manoeuvre", json={"actor": "pie-aosta",
                                                       "dice": [[1, 1]]}).json()
    assert body["outcome"]["row"] == "3–4"
    (effect,) = body["outcome"]["effects"]
    assert effect["traits"] == {} and effect["ghost"]["heading_deg"] == 90.0
    aosta = next(b for b in client.get("/api/state").json()["bases"] if b["id"] == "pie-aosta")
    assert effect["ghost"]["y_mm"] < aosta["y_mm"]          # straight back, away from its front
    done = client.post(f"/api/resolve/{body['id']}/confirm").json()
    assert done["changes"] == [] and done["by_hand"][0]["base"] == "pie-aosta"
    assert services.units.traits("pie-aosta") == {}


def test_rolls_and_results_read_as_one_line_each_in_exports(
        live: tuple[TestClient, Services, Path]) -> None:
    from campo.server.recording.export import summary

    client, _, game = live
    body = client.post("/api/resolve/fire", json={**SHOT, "dice": [[6, 5, 2]]}).json()
    client.post(f"/api/resolve/{body['id']}/confirm")
    services_recorder_flush(client)
    with open_recording(game) as rec:
        lines = [summary(e) for e in rec.events({"roll", "resolution"})]
    assert lines == ["fire pie-aosta -> aus-47: umpire's dice 6 5 2",
                     "fire pie-aosta -> aus-47 proposed: 2 hits: 2 losses",
                     "fire pie-aosta -> aus-47 confirmed: 2 hits: 2 losses"]


def test_a_result_read_before_another_change_is_not_applied_over_it(
        live: tuple[TestClient, Services, Path]) -> None:
    client, services, _ = live
    body = client.post("/api/resolve/fire", json={**SHOT, "dice": [[6, 6, 6]]}).json()
    # the umpire sets IR 47's losses by hand before confirming the volley read against 0
    assert client.put("/api/bases/aus-47/state", json={"traits": {"losses": 1}}).status_code == 200
    reply = client.post(f"/api/resolve/{body['id']}/confirm")
    assert reply.status_code == 409 and "read them again" in reply.json()["error"]
    assert services.units.traits("aus-47") == {"losses": 1}
