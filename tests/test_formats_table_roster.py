"""table.toml and roster.toml: strict loading, errors a user can act on, round trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from campo.server.roster import load_checked_roster
from campo.errors import FileFormatError
from campo.vision.tabletop import dump_roster, dump_table, load_roster, load_table


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_example_files_load(data_dir: Path) -> None:
    table = load_table(data_dir / "formats" / "table.toml")
    roster = load_checked_roster(data_dir / "formats" / "roster.toml", table)
    assert table.table.width_mm == 1800 and len(table.anchors) == 4
    assert [b.id for b in roster.bases] == ["pie-aosta", "aus-1"]
    aosta = roster.by_id()["pie-aosta"]
    assert aosta.marker_offset_mm == [0.0, 0.0] and aosta.traits["weapon"] == "MR"
    # Defaults for the keys the second base leaves out.
    aus = roster.by_marker()[11]
    assert aus.marker_rotation_deg == 0.0 and aus.marker_offset_mm == [0.0, 0.0]


def test_table_round_trip(data_dir: Path, tmp_path: Path) -> None:
    table = load_table(data_dir / "formats" / "table.toml")
    again = load_table(write(tmp_path, "t.toml", dump_table(table)))
    assert again == table


def test_roster_round_trip(data_dir: Path, tmp_path: Path) -> None:
    roster = load_checked_roster(data_dir / "formats" / "roster.toml")
    again = load_checked_roster(write(tmp_path, "r.toml", dump_roster(roster)))
    assert again == roster


ROSTER = (Path(__file__).parent / "data" / "formats" / "roster.toml").read_text()
TABLE = (Path(__file__).parent / "data" / "formats" / "table.toml").read_text()


@pytest.mark.parametrize(
    ("edit", "line", "key", "words"),
    [
        # an unknown key (a typo) names its line and key
        (lambda t: t.replace("height_mm = 3.0", "heigth_mm = 3.0", 1), 14, "bases[0].heigth_mm", "unknown key"),
        # a wrong type
        (lambda t: t.replace('width_mm = 80.0\ndepth_mm = 40.0\nmarker_size_mm = 18.0\nmarker_offset', 'width_mm = "80"\ndepth_mm = 40.0\nmarker_size_mm = 18.0\nmarker_offset', 1), 9, "bases[0].width_mm", "valid number"),
        # a duplicated marker: the second one is named, with the first one's line
        (lambda t: t.replace("marker = 11", "marker = 10"), 18, "bases[1].marker", "duplicated marker 10 (first used at line 4)"),
        # a duplicated base id
        (lambda t: t.replace('id = "aus-1"', 'id = "pie-aosta"'), 19, "bases[1].id", "duplicated id 'pie-aosta'"),
        # a base without a marker
        (lambda t: t.replace("marker = 11\n", ""), 17, "bases[1].marker", "required key is missing"),
        # an unknown ruleset
        (lambda t: t.replace('"italia-se-desta"', '"italia"'), 1, "ruleset", "unknown ruleset 'italia'"),
        # an unknown troop type
        (lambda t: t.replace('type = "C"', 'type = "Z"'), 22, "bases[1].type", "unknown troop type 'Z'"),
        # an unknown trait value, on the inline table's line
        (lambda t: t.replace('weapon = "ML"', 'weapon = "musket"'), 27, "bases[1].traits.weapon", "must be one of"),
        # a TOML syntax error
        (lambda t: t.replace("side = \"B\"", "side = B"), 20, None, "invalid TOML"),
    ],
)
def test_roster_errors_name_file_line_and_key(tmp_path: Path, edit, line: int, key: str | None, words: str) -> None:
    path = write(tmp_path, "roster.toml", edit(ROSTER))
    with pytest.raises(FileFormatError) as info:
        load_checked_roster(path)
    err = info.value
    assert err.path == str(path)
    assert err.line == line
    assert err.key == key
    assert words in str(err)
    assert str(err).startswith(f"{path}:{line}: ")


def test_marker_that_is_also_an_anchor(tmp_path: Path, data_dir: Path) -> None:
    table = load_table(data_dir / "formats" / "table.toml")
    path = write(tmp_path, "roster.toml", ROSTER.replace("marker = 11", "marker = 2"))
    with pytest.raises(FileFormatError, match=r"roster.toml:18: bases\[1\].marker: marker 2 is an anchor"):
        load_checked_roster(path, table)


def test_every_problem_reported_at_once(tmp_path: Path) -> None:
    text = ROSTER.replace('type = "C"', 'type = "Z"').replace('weapon = "ML"', 'weapon = "musket"')
    with pytest.raises(FileFormatError) as info:
        load_checked_roster(write(tmp_path, "roster.toml", text))
    assert "unknown troop type" in str(info.value) and "also" in str(info.value) and "weapon" in str(info.value)


@pytest.mark.parametrize(
    ("edit", "key", "words"),
    [
        (lambda t: t.replace('"DICT_4X4_250"', '"DICT_4X4_999"'), "table.dictionary", "unknown marker dictionary"),
        (lambda t: t.replace("marker = 3", "marker = 1"), "anchors[3].marker", "already anchor #2"),
        (lambda t: t.replace("marker = 3", "marker = 300"), "anchors[3].marker", "not in DICT_4X4_250"),
        (lambda t: t.replace("depth_mm = 1200.0", "depth_mm = -5.0"), "table.depth_mm", "greater than 0"),
        (lambda t: t.replace("width_mm = 1800.0", "width_mm = 1800.0\nlength_mm = 3"), "table.length_mm", "unknown key"),
    ],
)
def test_table_errors(tmp_path: Path, edit, key: str, words: str) -> None:
    path = write(tmp_path, "table.toml", edit(TABLE))
    with pytest.raises(FileFormatError) as info:
        load_table(path)
    assert info.value.key == key and words in str(info.value)
    assert info.value.line is not None


def test_too_few_anchors(tmp_path: Path) -> None:
    text = TABLE.split("[[anchors]]")[0] + "[[anchors]]" + TABLE.split("[[anchors]]")[1]
    with pytest.raises(FileFormatError, match="at least 2"):
        load_table(write(tmp_path, "table.toml", text))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileFormatError, match="file not found"):
        load_roster(tmp_path / "nope.toml")


def test_a_trait_value_the_type_cannot_take(tmp_path: Path) -> None:
    """ISD letter C is cavalry only: the roster says so at load time, not at the first analysis."""
    text = ROSTER.replace('weapon = "ML"', 'weapon = "ML", arm = "infantry"')
    with pytest.raises(FileFormatError, match=r"roster.toml:27: bases\[1\].traits.arm: type 'C' can only be cavalry"):
        load_checked_roster(write(tmp_path, "roster.toml", text))
