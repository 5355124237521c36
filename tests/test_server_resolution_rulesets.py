"""Fire resolution end to end for Federico and ATTILA (issue 14 item 4): the live server on real
synthetic frames of each rulebook's roster, the umpire's dice read off the rulebook's table, the
proposed state change confirmed into the unit state."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from campo.server.app import Services, build_services, create_app
from tests.server_fixtures import wait_for
from tests.test_server_rulesets import LAYOUTS, render_ruleset_frames, ruleset_settings

BASE = "http://127.0.0.1"
# ATTILA: the Hun riders (bows, d8, ATT T) brought 11 cm from the legion: long range
ATTILA_LAYOUT = [("hun-riders", 600.0, 450.0, 90.0) if b[0] == "hun-riders" else b
                 for b in LAYOUTS["attila"]]


def serve(ruleset: str, layout: list[tuple[str, float, float, float]],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Services]]:
    frames = tmp_path_factory.mktemp(f"{ruleset}-frames")
    render_ruleset_frames(frames, ruleset, [layout])
    settings = ruleset_settings(ruleset, frames, tmp_path_factory.mktemp(f"{ruleset}-setup"))
    services = build_services(settings)
    with TestClient(create_app(settings, services=services), base_url=BASE) as client:
        assert wait_for(lambda: len(client.get("/api/state").json()["bases"]) == len(layout),
                        timeout=30)
        assert wait_for(lambda: services.tracker.snapshot is not None
                        and services.tracker.snapshot.state is not None, timeout=30)
        yield client, services


@pytest.fixture
def federico(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Services]]:
    yield from serve("federico", LAYOUTS["federico"], tmp_path_factory)


@pytest.fixture
def attila(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Services]]:
    yield from serve("attila", ATTILA_LAYOUT, tmp_path_factory)


def confirm(client: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    reply = client.post(f"/api/resolve/{body['id']}/confirm")
    assert reply.status_code == 200, reply.text
    return reply.json()  # type: ignore[no-any-return]


def test_federico_volley_drops_the_garde_a_class(federico: tuple[TestClient, Services]) -> None:
    client, services = federico
    shot = {"actor": "pr-forcade-1", "target": "au-garde"}
    test = client.get("/api/resolve/fire", params=shot).json()
    modifier = sum(m["delta"] for m in test["modifiers"])
    assert test["rolls"][0]["count"] == 1          # «Ogni basetta di fanteria lancia 1D6»
    assert modifier <= 2
    # 1 + modifier is below the firer's class 4: «il bersaglio rimane fermo e scenderà di una
    # Classe»: the Garde, class 5, becomes 4
    body = client.post("/api/resolve/fire", json={**shot, "dice": [[1]]}).json()
    assert body["outcome"]["score"]["results"] == ["halt"]
    done = confirm(client, body)
    assert {"base": "au-garde", "traits": {"class": 4}, "before": {"class": 5}} in done["changes"]
    assert services.units.traits("au-garde") == {"class": 4}


def test_attila_arrow_disorders_the_legion(attila: tuple[TestClient, Services]) -> None:
    client, services = attila
    shot = {"actor": "hun-riders", "target": "rom-leg-1"}
    test = client.get("/api/resolve/fire", params=shot).json()
    # long range needs 7 (ATT 6.B, T) on the bows' d8; a Heavy unit saves on 4+ (6.C)
    assert test["table"]["title"] == "Shooting: d8 needs 7+"
    assert [r["sides"] for r in test["rolls"]] == [8, 6]
    missed = client.post("/api/resolve/fire", json={**shot, "dice": [[6], [1]]}).json()
    assert missed["outcome"]["row"] == "miss" and missed["outcome"]["effects"] == []
    body = client.post("/api/resolve/fire", json={**shot, "dice": [[8], [2]]}).json()
    assert body["outcome"]["row"] == "hit"
    confirm(client, body)
    assert services.units.traits("rom-leg-1") == {"disordered": True}
