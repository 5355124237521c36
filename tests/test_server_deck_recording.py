"""ATTILA's umpire deck with `campo serve --deck-seed N --record GAME.db`: the seed fixes the cards
dealt, and every shuffle and draw is in the recording (so a review shows the turn's sequence)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from campo.engine.rulesets.attila.deck import Deck
from campo.server.app import build_services, create_app
from campo.server.recording import attach_recorder, open_recording
from campo.server.recording.export import summary
from tests.server_fixtures import wait_for
from tests.test_server_rulesets import BASE, LAYOUTS, all_seen, render_ruleset_frames, ruleset_settings


def test_seeded_deck_draws_are_recorded(tmp_path: Path) -> None:
    frames = tmp_path / "frames"
    render_ruleset_frames(frames, "attila", [LAYOUTS["attila"]])
    settings = ruleset_settings("attila", frames, tmp_path, deck_seed=4242)
    services = build_services(settings)
    recorder = attach_recorder(services.hub, tmp_path / "game.db")
    with TestClient(create_app(settings, services=services), base_url=BASE) as client:
        assert wait_for(lambda: all_seen(client.get("/api/state").json(), "attila"), timeout=30)
        assert client.get("/api/deck").json()["seed"] == 4242
        turn = client.post("/api/deck", json={"action": "shuffle"}).json()["deck"]["turn"]
        drawn = [client.post("/api/deck", json={"action": "draw"}).json()["deck"]["current"]
                 for _ in range(3)]
    recorder.close()
    assert drawn == [c.to_dict() for c in Deck(seed=4242).shuffled(turn)[:3]]
    with open_recording(tmp_path / "game.db") as rec:
        events = rec.events({"shuffle", "card"})
    assert [e.kind for e in events] == ["shuffle", "card", "card", "card"]
    assert events[0].data == {"turn": turn, "cards": 8, "seed": 4242}
    assert [e.data["card"] for e in events[1:]] == drawn
    assert summary(events[1]) == f"card 1 of turn {turn}: {drawn[0]['text']}"


def test_deck_seed_must_be_a_plain_number(run_campo) -> None:
    code, _, err = run_campo("serve", "--deck-seed", "-5")
    assert code == 2 and "--deck-seed" in err and "Traceback" not in err
