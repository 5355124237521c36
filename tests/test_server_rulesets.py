"""The live server with a Federico or an ATTILA roster, end to end in-process (FastAPI TestClient):
real synthetic frames (vision.synthetic.SyntheticCamera) from a folder source, the production
capture thread, pipeline and engine; then the rules panel data and the ruleset's own analysis.

The layouts and setup files here are shared with tests/test_browser_rulesets.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import pytest
from fastapi.testclient import TestClient

from campo.engine.analysis import analyze
from campo.server.app import Services, build_services, create_app
from tests.test_server_app import scenario_of
from campo.server.rig import ServerSettings
from tests.server_fixtures import receive_until, wait_for

DATA = Path(__file__).parent / "data" / "server"
BASE = "http://127.0.0.1"

# (id, x, y, heading). Federico: Forcade III stands apart from its regiment (isolated); the Garde
# faces Forcade I and II at musket range. ATTILA: the Hun riders (CL, d6) must charge the legion.
LAYOUTS: dict[str, list[tuple[str, float, float, float]]] = {
    "federico": [("pr-forcade-1", 700.0, 400.0, 90.0), ("pr-forcade-2", 780.0, 400.0, 90.0),
                 ("pr-forcade-3", 1050.0, 400.0, 90.0), ("pr-fritz", 740.0, 320.0, 90.0),
                 ("au-garde", 740.0, 520.0, 270.0), ("au-hussars", 1300.0, 700.0, 270.0),
                 ("au-daun", 1000.0, 950.0, 270.0)],
    "attila": [("hun-riders", 600.0, 400.0, 90.0), ("hun-foot", 1100.0, 400.0, 90.0),
               ("hun-attila", 850.0, 330.0, 90.0), ("rom-leg-1", 600.0, 600.0, 270.0),
               ("rom-leg-2", 680.0, 600.0, 270.0), ("rom-aetius", 900.0, 900.0, 270.0)],
}
# The group's own numbers (settings the rulebooks do not give): bases of 80 x 40 mm, and a touch
# tolerance that forgives the camera's millimetre of pose noise.
SETUPS: dict[str, dict[str, Any]] = {
    "federico": {"version": 1,
                 "terrain": [{"id": "hill-1", "kind": "hill",
                              "polygon_mm": [[620, 350], [840, 350], [840, 450], [620, 450]]}],
                 "settings": {"f17_cohesion_tolerance_cm": 1.0, "base_size_infantry_mm": [80.0, 40.0],
                              "base_size_cavalry_mm": [80.0, 40.0]}},
    "attila": {"version": 1, "terrain": [], "settings": {"at2_contact_tolerance_mm": 5.0}},
}


def table_path(ruleset: str) -> Path:
    return DATA / ruleset / "table.toml"


def roster_path(ruleset: str) -> Path:
    return DATA / ruleset / "roster.toml"


def render_ruleset_frames(folder: Path, ruleset: str,
                          layouts: Sequence[Sequence[tuple[str, float, float, float]]]) -> list[Path]:
    """One PNG per layout of the ruleset's roster, camera straight above the table (real pixels)."""
    from campo.server.roster import load_checked_roster
    from campo.vision.camera_model import Intrinsics
    from campo.vision.synthetic import Effects, PlacedBase, SyntheticCamera, overhead
    from campo.vision.tabletop import load_table

    table = load_table(table_path(ruleset))
    by_id = load_checked_roster(roster_path(ruleset), table).by_id()
    intr = Intrinsics.ideal(1280, 720, 60)
    cam = SyntheticCamera(table, intr, overhead(table, intr), effects=Effects.clean(), seed=1, terrain=[])
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, layout in enumerate(layouts):
        path = folder / f"frame{i:03d}.png"
        cv2.imwrite(str(path), cam.render([PlacedBase(by_id[b], x, y, h) for b, x, y, h in layout]).image)
        paths.append(path)
    return paths


def ruleset_settings(ruleset: str, frames: Path, setup_dir: Path, **kw: Any) -> ServerSettings:
    """Server settings for the ruleset's roster on a folder of frames, its setup file in `setup_dir`."""
    setup = setup_dir / "terrain.json"
    setup.write_text(json.dumps(SETUPS[ruleset]), encoding="utf-8")
    return ServerSettings(source=str(frames), table=table_path(ruleset), roster=roster_path(ruleset),
                          setup_file=setup, fps=kw.pop("fps", 10.0), status_interval_s=0.25, **kw)


def all_seen(state: dict[str, Any] | None, ruleset: str) -> bool:
    return state is not None and len(state["bases"]) == len(LAYOUTS[ruleset])


@pytest.fixture(scope="module", params=["federico", "attila"])
def live(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, TestClient, Services]]:
    ruleset = request.param
    frames = tmp_path_factory.mktemp(f"{ruleset}-frames")
    render_ruleset_frames(frames, ruleset, [LAYOUTS[ruleset]])
    settings = ruleset_settings(ruleset, frames, tmp_path_factory.mktemp(f"{ruleset}-setup"))
    services = build_services(settings)
    with TestClient(create_app(settings, services=services), base_url=BASE) as client:
        assert wait_for(lambda: all_seen(client.get("/api/state").json(), ruleset), timeout=30)
        yield ruleset, client, services


def test_state_carries_the_rulesets_analysis(live: tuple[str, TestClient, Services]) -> None:
    ruleset, client, _ = live
    state = client.get("/api/state").json()
    assert state["ruleset"] == ruleset
    for base_id, x, y, heading in LAYOUTS[ruleset]:
        base = next(b for b in state["bases"] if b["id"] == base_id)
        assert base["x_mm"] == pytest.approx(x, abs=3) and base["y_mm"] == pytest.approx(y, abs=3)
    analysis = state["analysis"]
    assert "error" not in analysis
    assert analysis == analyze(scenario_of(state))
    assert analysis["ruleset"] == ruleset and analysis["unit"] == "cm" and analysis["mm_per_unit"] == 10.0
    if ruleset == "federico":
        assert analysis["isolated"] == ["pr-forcade-3"]
        forcade = analysis["bases"]["pr-forcade-1"]
        assert forcade["regiment"] == "IR Forcade" and forcade["isolated"] is False
        assert analysis["bases"]["pr-forcade-3"]["isolated"] is True
        garde = next(t for t in forcade["targets"] if t["id"] == "au-garde")
        assert garde["legal"] and garde["band"] == "short" and garde["modifiers"]
        attack = next(c for c in forcade["charges"] if c["target"] == "au-garde")
        assert attack["legal"] and attack["melee"]["odds_per_die"]
        assert analysis["army_morale"]["A"]["chief"] == "pr-fritz"
        assert analysis["army_morale"]["A"]["threshold_bases"] >= 1
        assert [o["held_by"] for o in analysis["objectives"] if o["id"] == "hill-1"] == ["A"]
    else:
        assert analysis["mandatory_charges"][0]["base"] == "hun-riders"
        assert set(analysis["mandatory_charges"][0]["targets"]) == {"rom-leg-1", "rom-leg-2"}
        leg = next(g for g in analysis["groups"] if g["id"] == "leg")
        assert leg["members"] == ["rom-leg-1", "rom-leg-2"] and not leg["split"]
        assert analysis["bases"]["rom-leg-1"]["group"] == "leg"
        assert analysis["control_points"]["A"]["groups"]["riders"]["cost"] == 1
        assert analysis["army_morale"]["B"]["demoralised"] is False
        assert set(analysis["deployment"]["zones"]) == {"A", "B"}


def test_rules_panel_lists_the_rulesets_settings_gaps_and_tables(live: tuple[str, TestClient, Services]) -> None:
    ruleset, client, _ = live
    rules = client.get("/api/rules").json()
    assert rules["ruleset"] == ruleset and rules["unit"] == "cm"
    assert rules["gap_heading"] == "Not in the rulebook: set for your group"
    by_name = {s["name"]: s for s in rules["settings"]}
    titles = [t["title"] for t in rules["reference"]]
    if ruleset == "federico":
        from campo.engine.rulesets.federico import units

        assert by_name["f1_zones"]["gap"] is False and by_name["f17_cohesion_tolerance_cm"]["gap"] is True
        assert by_name["f17_cohesion_tolerance_cm"]["value"] == 1.0 and by_name["f17_cohesion_tolerance_cm"]["overridden"]
        assert by_name["base_size_infantry_mm"]["value"] == [80.0, 40.0]
        fire = next(t for t in rules["reference"] if t["title"].startswith("Fire ranges"))
        musket = next(r for r in fire["rows"] if r[0] == "musket")
        assert musket[1:] == [f"{units.RANGES_CM['musket'][0]:g} cm", f"{units.RANGES_CM['musket'][1]:g} cm",
                              str(units.DICE["musket"])]
        assert any(t.startswith("Movement") for t in titles)
    else:
        from campo.engine.rulesets.attila import units

        assert by_name["at1_contact_side"]["gap"] is False and by_name["move_cm_fp"]["gap"] is True
        assert by_name["heavy_types"]["value"] == ["FP", "CP", "chariot_heavy"]
        weapons = next(t for t in rules["reference"] if t["title"] == "Missile weapons")
        assert [r[2] for r in weapons["rows"]] == [f"{cm:g} cm" for cm in units.MAX_RANGE_CM.values()]
        costs = next(t for t in rules["reference"] if t["title"].startswith("Control Points"))
        assert costs["rows"] == [["General alive, free and within 40 cm", "1", "2"],
                                 ["General dead, in contact or farther than 40 cm", "2", "3"]]
        movement = next(t for t in rules["reference"] if t["title"] == "Movement rates")
        assert movement["gap"] is True and movement["rows"][0][:2] == ["FP", "10 cm"]


def test_list_settings_are_accepted_and_bad_ones_refused(live: tuple[str, TestClient, Services]) -> None:
    ruleset, client, services = live
    name, good, bad = (("base_size_cavalry_mm", [60.0, 30.0], [60.0, "wide"]) if ruleset == "federico"
                       else ("heavy_types", ["FP", "CP"], {"nested": [1]}))
    scalars = {k: v for k, v in SETUPS[ruleset]["settings"].items() if not isinstance(v, (list, dict))}
    structured = {k: v for k, v in SETUPS[ruleset]["settings"].items() if isinstance(v, (list, dict))}
    reply = client.put("/api/settings", json={"settings": scalars, "structured": {**structured, name: good}}).json()
    assert reply["ok"], reply
    assert wait_for(lambda: (client.get("/api/state").json().get("settings") or {}).get(name) == good)
    for body in ({"settings": scalars, "structured": {**structured, name: bad}},   # the ruleset refuses it
                 {"settings": {**scalars, name: good}, "structured": structured}):  # a list among the scalars
        refused = client.put("/api/settings", json=body)
        assert refused.status_code == 422 and not refused.json()["ok"], body
    assert client.put("/api/settings", json={"settings": scalars, "structured": structured}).json()["ok"]


def test_attila_card_deck_shuffles_and_draws_for_every_page(live: tuple[str, TestClient, Services]) -> None:
    ruleset, client, services = live
    if ruleset != "attila":
        assert client.get("/api/deck").status_code == 404
        assert client.post("/api/deck", json={"action": "draw"}).status_code == 422
        return
    from campo.engine.rulesets.attila.deck import Deck

    seed = client.get("/api/deck").json()["seed"]
    expected = Deck(seed=seed).shuffled(client.get("/api/deck").json()["turn"] + 1)
    with client.websocket_connect("ws://127.0.0.1/ws") as watcher:
        receive_until(watcher, "deck")  # the deck as it stands, right after hello
        shuffled = client.post("/api/deck", json={"action": "shuffle"}).json()
        assert shuffled["ok"] and shuffled["deck"]["current"] is None and shuffled["deck"]["remaining"] == 8
        drawn = client.post("/api/deck", json={"action": "draw"}).json()["deck"]
        assert drawn["current"] == expected[0].to_dict()
        assert drawn["remaining"] == 7 and len(drawn["left"]) == 7 and expected[0].text not in drawn["left"]
        seen = receive_until(watcher, "deck")["payload"]
        while seen["current"] is None:  # the shuffle's message comes first
            seen = receive_until(watcher, "deck")["payload"]
        assert seen["current"] == expected[0].to_dict()
    for _ in range(7):
        assert client.post("/api/deck", json={"action": "draw"}).json()["ok"]
    over = client.post("/api/deck", json={"action": "draw"})
    assert over.status_code == 422 and "shuffle" in over.json()["error"]
    assert client.get("/api/deck").json()["turn_over"] is True
    bad = client.post("/api/deck", json={"action": "cheat"})
    assert bad.status_code == 422 and "action" in bad.json()["error"]


def test_a_read_only_page_sees_the_deck_but_cannot_turn_it(live: tuple[str, TestClient, Services]) -> None:
    ruleset, client, services = live
    if ruleset != "attila":
        pytest.skip("only ATTILA has a card deck")
    from campo.server.security import AccessPolicy

    open_policy = services.policy
    services.policy = AccessPolicy("secret-for-this-test")
    try:
        with client.websocket_connect("ws://127.0.0.1/ws") as ro:
            assert receive_until(ro, "hello")["payload"]["can_write"] is False
            assert "turn" in receive_until(ro, "deck")["payload"]
            ro.send_json({"type": "deck", "action": "draw"})
            reply = receive_until(ro, "reply")["payload"]
            assert not reply["ok"] and "read-only" in reply["error"]
    finally:
        services.policy = open_policy


def test_settings_and_deck_messages_are_strict() -> None:
    from campo.server.messages import DeckAction, MessageError, SetSettings, parse_client_message

    m = parse_client_message({"type": "settings", "settings": {"f1_zones": "corner_diagonals"},
                              "structured": {"base_size_infantry_mm": [80, 40], "missile_by_type": {"FL": "bows"}}})
    assert isinstance(m, SetSettings)
    assert m.values() == {"f1_zones": "corner_diagonals", "base_size_infantry_mm": [80, 40],
                          "missile_by_type": {"FL": "bows"}}
    assert isinstance(parse_client_message('{"type": "deck", "action": "draw"}'), DeckAction)
    for bad, why in [({"type": "settings", "settings": {"x": 1}, "structured": {"x": [1]}}, "both"),
                     ({"type": "settings", "settings": {}, "structured": {"x": [[1]]}}, "structured"),
                     ({"type": "settings", "settings": {}, "structured": {"x": 3}}, "structured"),
                     ({"type": "deck", "action": ""}, "action"),
                     ({"type": "deck", "action": "draw", "card": 1}, "card")]:
        with pytest.raises(MessageError, match=why):
            parse_client_message(bad)
