"""The server's game state: scenario from tracked poses, change detection, the umpire's setup file."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from campo.engine.analysis import analyze
from campo.server.roster import load_checked_roster
from campo.server.game_state import GameSetup, PoseKey, PoseTolerance, check_terrain, poses_changed, scenario_from_tracking
from tests.server_fixtures import ROSTER, TABLE
from campo.errors import CampoInputError
from campo.vision.tabletop import load_table

WOOD = {"id": "wood-1", "kind": "wood", "polygon_mm": [[300, 400], [500, 400], [500, 560], [300, 560]]}
HILL = {"id": "hill-1", "kind": "hill", "polygon_mm": [[900, 900], [1200, 900], [1200, 1100], [900, 1100]],
        "crest_mm": [[950, 1000], [1150, 1000]]}
WALL = {"id": "wall-1", "kind": "wall", "line_mm": [[800, 300], [1000, 300]]}


@dataclass(frozen=True)
class Pose:
    id: str
    x_mm: float
    y_mm: float
    heading_deg: float
    stale: bool = False


@pytest.fixture(scope="module")
def roster():  # type: ignore[no-untyped-def]
    return load_checked_roster(ROSTER, load_table(TABLE))


TOL = PoseTolerance(mm=3.0, deg=2.0)
BASE = {"a": PoseKey(100.0, 100.0, 90.0, False)}


@pytest.mark.parametrize("new, changed", [
    ({"a": PoseKey(102.0, 101.0, 91.5, False)}, False),  # noise
    ({"a": PoseKey(103.5, 100.0, 90.0, False)}, True),  # moved
    ({"a": PoseKey(100.0, 100.0, 92.5, False)}, True),  # turned
    ({"a": PoseKey(100.0, 100.0, 90.0, True)}, True),  # hidden by a hand
    ({}, True),  # gone
    ({"a": BASE["a"], "b": PoseKey(0.0, 0.0, 0.0, False)}, True),  # appeared
])
def test_poses_changed_uses_tolerances(new: dict[str, PoseKey], changed: bool) -> None:
    assert poses_changed(BASE, new, TOL) is changed


def test_heading_wraps_around_zero() -> None:
    assert not poses_changed({"a": PoseKey(0, 0, 359.5, False)}, {"a": PoseKey(0, 0, 0.8, False)}, TOL)


def test_scenario_from_tracking_matches_the_contract(roster) -> None:  # type: ignore[no-untyped-def]
    tracked = [Pose("aus-47", 820.0, 560.0, 270.0), Pose("pie-aosta", 800.0, 400.0, 90.0, stale=True)]
    sc = scenario_from_tracking(roster, (1800.0, 1200.0), tracked, [WOOD], {"a1_zones": "corner_diagonals"})
    assert sc["ruleset"] == "italia-se-desta" and sc["table"] == {"width_mm": 1800.0, "depth_mm": 1200.0}
    assert [b["id"] for b in sc["bases"]] == ["pie-aosta", "aus-47"]  # roster order; never-seen bases absent
    aosta = sc["bases"][0]
    assert aosta["stale"] is True and aosta["name"] == "Brigata Aosta" and aosta["marker"] == 10
    assert aosta["traits"]["weapon"] == "MR" and aosta["width_mm"] == 80.0
    assert "stale" not in sc["bases"][1]
    assert sc["settings"] == {"a1_zones": "corner_diagonals"}
    analysis = analyze(sc)  # the engine accepts it as is
    assert set(analysis["bases"]) == {"pie-aosta", "aus-47"}


def test_check_terrain_accepts_areas_lines_and_crests() -> None:
    out = check_terrain([WOOD, HILL, WALL])
    assert [t["id"] for t in out] == ["wood-1", "hill-1", "wall-1"]
    assert out[1]["crest_mm"] == [[950.0, 1000.0], [1150.0, 1000.0]]


@pytest.mark.parametrize("bad, key", [
    ([{"id": "x", "kind": "wood", "line_mm": [[0, 0], [1, 1]]}], "terrain[0](x)"),
    ([WOOD, {**WOOD}], "terrain[1](wood-1)"),
    ([{"id": "w", "kind": "wood", "polygon_mm": [[0, 0], [10, 10], [10, 0], [0, 10]]}], "terrain[0](w)"),
    ([{"id": "r", "kind": "river", "line_mm": [[0, 0], [1, 1]], "colour": "blue"}], "terrain[0](r)"),
    ("wood", "terrain"),
])
def test_check_terrain_names_the_bad_feature(bad: object, key: str) -> None:
    with pytest.raises(CampoInputError) as err:
        check_terrain(bad)
    assert err.value.key == key


def test_setup_saves_atomically_and_loads_back(tmp_path: Path) -> None:
    path = tmp_path / "terrain.json"
    setup = GameSetup.load("italia-se-desta", path, default_terrain=[WOOD])
    assert not path.exists()  # nothing written until the umpire edits
    setup.set_terrain([WOOD, HILL, WALL])
    setup.set_settings({"a1_zones": "corner_diagonals"})
    assert setup.version == 2
    assert [p.name for p in tmp_path.iterdir()] == ["terrain.json"]  # no temporary file left
    again = GameSetup.load("italia-se-desta", path)
    assert again.snapshot()[1:] == setup.snapshot()[1:]
    assert json.loads(path.read_text())["version"] == 1


def test_bad_setting_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    setup = GameSetup("italia-se-desta", [WOOD], path=tmp_path / "terrain.json")
    with pytest.raises(CampoInputError, match="a1_zones"):
        setup.set_settings({"a1_zones": "sideways"})
    with pytest.raises(CampoInputError):
        setup.set_settings({"no_such_setting": 1})
    assert setup.version == 0 and not (tmp_path / "terrain.json").exists()


@pytest.mark.parametrize("text, message", [
    ("{", "invalid JSON"),
    ('{"version": 1, "terrain": [], "colour": 1}', "unknown key"),
    ('{"version": 9, "terrain": []}', "version 9"),
    ('{"version": 1, "terrain": [{"id": "w", "kind": "lava", "polygon_mm": [[0,0],[1,0],[1,1]]}]}', "lava"),
])
def test_bad_setup_file_names_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "terrain.json"
    path.write_text(text)
    with pytest.raises(CampoInputError, match=message) as err:
        GameSetup.load("italia-se-desta", path)
    assert str(path) in str(err.value)


def test_fps_meter_counts_the_recent_window() -> None:
    from campo.server.live import FpsMeter

    meter = FpsMeter(window_s=2.0)
    assert meter.fps(0.0) == 0.0
    for i in range(31):
        meter.tick(10.0 + i / 15)  # 15 fps for 2 s
    assert meter.fps(12.0) == pytest.approx(15.0, rel=0.01)
    assert meter.fps(20.0) == 0.0  # nothing for a while: the camera stopped
