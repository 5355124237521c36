"""The setup's building blocks without a browser: files written whole with versions, drafts checked
field by field, the builder's catalogue from the engine, the live calibration and the table check
on the rehearsal camera."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from campo.atomic_file import write_atomic
from campo.errors import CampoInputError
from campo.server.game_state import GameSetup
from campo.server.setup import catalogue, drafts, files, rehearsal


@pytest.mark.parametrize("module", [drafts, rehearsal])
def test_doctests(module: object) -> None:
    assert doctest.testmod(module).failed == 0   # type: ignore[arg-type]


def test_a_file_changed_on_disk_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "roster.toml"
    v1 = write_atomic(path, "a = 1\n")
    assert files.version_of(path) == v1 and [p.name for p in tmp_path.iterdir()] == ["roster.toml"]
    path.write_text("a = 2\n")                     # edited by hand meanwhile
    with pytest.raises(files.FileChangedError, match="changed on disk"):
        files.check_version(path, v1)


def test_a_draft_names_every_wrong_field() -> None:
    table = drafts.check_table({"table": {"width_mm": 1200.0, "depth_mm": 800.0},
                                "anchors": [{"marker": 0, "x_mm": 40.0, "y_mm": 40.0, "size_mm": 40.0},
                                            {"marker": 1, "x_mm": 1160.0, "y_mm": 760.0, "size_mm": 40.0}]})
    assert table.ok and "4 anchors" in table.warnings[0]["message"]
    base = {"marker": 0, "id": "a", "side": "A", "type": "Z", "width_mm": 80.0, "depth_mm": 40.0,
            "marker_size_mm": 25.0, "traits": {"weapon": "XX"}}
    checked = drafts.check_roster({"ruleset": "italia-se-desta", "bases": [base]}, table.value)
    keys = {p["key"] for p in checked.problems}
    assert not checked.ok and keys == {"bases[0].marker", "bases[0].type", "bases[0].traits.weapon"}


def test_an_imported_roster_reports_file_line_and_key() -> None:
    with pytest.raises(CampoInputError) as err:
        drafts.import_roster('ruleset = "attila"\n[[bases]]\nmarker = 3\nid = "x"\nside = "C"\n', "mine.toml", None)
    assert drafts.error_lines(err.value)[0] == "mine.toml:5: bases[0].side: Input should be 'A' or 'B' (got 'C')"


def test_the_catalogue_comes_from_the_rulebooks() -> None:
    isd = catalogue.catalogue("italia-se-desta")
    b_inf = next(t for t in isd["types"] if t["key"] == "B/infantry")
    assert b_inf["size_mm"] == [80.0, 40.0] and b_inf["traits"]["arm"] == "infantry"
    piedmont = next(a for a in isd["army_lists"] if a["army"] == "piedmont")
    bersaglieri = next(u for u in piedmont["units"] if u["troop"] == "Bersaglieri")
    assert bersaglieri["type"] == "E" and bersaglieri["traits"]["light"] and bersaglieri["traits"]["marksmen"]
    assert all(t["size_mm"] is None and "ATTILA gives no base sizes" in t["size_note"]
               for t in catalogue.catalogue("attila")["types"])
    assert catalogue.catalogue("federico", {"base_size_infantry_mm": [50.0, 25.0]})["types"][0]["size_mm"] == [50.0, 25.0]


@pytest.mark.slow
def test_live_calibration_on_the_rehearsal_camera_finds_its_lens() -> None:
    from campo.calibration.charuco import BoardSpec
    from campo.server.setup.calibrate_live import LiveCalibrator

    spec = BoardSpec()
    source = rehearsal.RehearsalSource(lambda: rehearsal.BoardScene(spec), fps=1000)
    saved: list[object] = []
    cal = LiveCalibrator(spec, lambda report: saved.append(report) or "camera.json")
    source.open()
    for _ in range(80):
        cal.offer(source.read())   # type: ignore[arg-type]
        if saved:
            break
    progress = cal.progress()
    assert progress["saved"] == "camera.json" and progress["views"] >= 10 and progress["skipped_moving"] > 0
    true_f = rehearsal.rehearsal_intrinsics().focal_px
    assert abs(progress["verdict"]["fx"] - true_f) / true_f < 0.005


@pytest.mark.slow
def test_the_table_check_says_why_a_base_is_not_read() -> None:
    from campo.calibration.table_check import check_table_image
    from campo.vision.synthetic import Effects, PlacedBase, SyntheticCamera, overhead
    from campo.vision.tabletop import RosterBase
    from tests.server_fixtures import ROSTER, TABLE
    from campo.server.roster import load_checked_roster
    from campo.vision.tabletop import Roster, load_table

    table = load_table(TABLE)
    roster = load_checked_roster(ROSTER, table)
    tiny = RosterBase(marker=30, id="tiny", side="A", type="E", width_mm=50.0, depth_mm=20.0, marker_size_mm=6.0,
                      traits={"arm": "infantry"})
    missing = RosterBase(marker=31, id="away", side="B", type="B", width_mm=80.0, depth_mm=40.0, marker_size_mm=30.0)
    full = Roster(ruleset=roster.ruleset, bases=[*roster.bases, tiny, missing])
    intr = rehearsal.rehearsal_intrinsics()
    camera = SyntheticCamera(table, intr, overhead(table, intr), effects=Effects(blur_sigma_px=0.6, noise_sigma=2),
                             terrain=[], clutter=False)
    by_id = full.by_id()
    stranger = RosterBase(marker=77, id="stranger", side="B", type="B", width_mm=80.0, depth_mm=40.0, marker_size_mm=30.0)
    placed = [PlacedBase(by_id[i], x, y, h) for i, x, y, h in rehearsal.deployment(table, roster)]
    placed += [PlacedBase(tiny, 900.0, 600.0, 90.0), PlacedBase(stranger, 900.0, 800.0, 270.0)]
    check = check_table_image(camera.render(placed).image, table, full, intr).to_json()
    status = {b["id"]: b["status"] for b in check["bases"]}
    assert status == {"pie-aosta": "seen", "pie-cuneo": "seen", "aus-47": "seen", "aus-59": "seen",
                      "tiny": "too small", "away": "not seen"}
    assert check["anchors_seen"] == 4 and [u["marker"] for u in check["unknown"]] == [77]
    seen = next(b for b in check["bases"] if b["id"] == "pie-aosta")
    assert 12 < seen["sighting"]["side_px"] < 30


def test_a_file_that_cannot_be_written_is_one_clear_error(tmp_path: Path) -> None:
    """Every layer's whole-or-nothing writer: a folder that cannot be made (here a file stands
    where it should be) and a setup save both say which file, and leave nothing behind."""
    (tmp_path / "taken").write_text("a file, not a folder")
    with pytest.raises(CampoInputError, match="taken/sub/x.json: cannot write"):
        write_atomic(tmp_path / "taken" / "sub" / "x.json", "{}")
    setup = GameSetup("italia-se-desta", [], {}, path=tmp_path / "taken" / "setup.json")
    with pytest.raises(CampoInputError, match="setup.json: cannot write"):
        setup.set_settings({})
    assert setup.version == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["taken"]
