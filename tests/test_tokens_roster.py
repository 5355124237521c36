"""Status tokens in roster.toml (issue 14 item 2): declared with what they set, checked against the
rulebook's state traits with file, line and key, printed at exact scale with their meaning."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from campo.errors import FileFormatError
from campo.server.roster import load_checked_roster
from campo.vision.tabletop import card_side_mm, dump_roster, load_roster, load_table

DATA = Path(__file__).parent / "data" / "formats"
ROSTER = (DATA / "roster.toml").read_text()
TOKENS = """
[[tokens]]
marker = 40
id = "disorder-1"
name = "Disordered"
sets = { disordered = true }

[[tokens]]
marker = 41
id = "loss-1"
adds = { losses = 1 }
size_mm = 16.0
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "roster.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_tokens_load_with_their_meaning_and_round_trip(tmp_path: Path) -> None:
    roster = load_checked_roster(write(tmp_path, ROSTER + TOKENS), load_table(DATA / "table.toml"))
    dis, loss = roster.tokens
    assert (dis.id, dis.marker, dis.sets, dis.size_mm) == ("disorder-1", 40, {"disordered": True}, 20.0)
    assert dis.meaning == "disordered = true" and loss.meaning == "losses + 1" and loss.label == "loss-1"
    assert roster.token_reach_mm == 15.0 and set(roster.tokens_by_marker()) == {40, 41}
    assert 40 not in roster.by_marker()   # a token is not a base
    again = load_checked_roster(write(tmp_path, dump_roster(roster)))
    assert again == roster
    # a roster without tokens is written as before (existing files stay byte-identical)
    plain = load_roster(DATA / "roster.toml")
    assert "tokens" not in dump_roster(plain) and "token_reach" not in dump_roster(plain)


@pytest.mark.parametrize(
    ("edit", "line", "key", "words"),
    [
        # a token's marker is a base's
        (lambda t: t.replace("marker = 40", "marker = 10"), 30, "tokens[0].marker",
         "duplicated marker 10 (a base) (first used at line 4)"),
        # a token's id is a base's
        (lambda t: t.replace('id = "loss-1"', 'id = "pie-aosta"'), 37, "tokens[1].id", "duplicated id 'pie-aosta' (a base)"),
        # a trait no base has under the rulebook
        (lambda t: t.replace("disordered = true", "routed = true"), 33, "tokens[0].sets.routed",
         "'routed' is not a state trait of any base on this roster under italia-se-desta (they have: "),
        # a value the trait cannot take
        (lambda t: t.replace("disordered = true", 'disordered = "yes"'), 33, "tokens[0].sets.disordered",
         "must be true or false"),
        # adding to a trait that is no count
        (lambda t: t.replace("losses = 1", "disordered = 1"), 38, "tokens[1].adds.disordered", "not a count"),
        # a token that does nothing
        (lambda t: t.replace("adds = { losses = 1 }", ""), 35, "tokens[1].sets", "must set or add some state trait"),
        # a typo in a token's key
        (lambda t: t.replace("size_mm = 16.0", "sise_mm = 16.0"), 39, "tokens[1].sise_mm", "unknown key"),
    ],
)
def test_token_errors_name_file_line_and_key(tmp_path: Path, edit, line: int, key: str, words: str) -> None:
    path = write(tmp_path, edit(ROSTER + TOKENS))
    with pytest.raises(FileFormatError) as info:
        load_checked_roster(path)
    err = info.value
    assert (err.path, err.line, err.key) == (str(path), line, key), str(err)
    assert words in str(err)


def test_a_token_marker_that_is_an_anchor_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, ROSTER + TOKENS.replace("marker = 40", "marker = 0"))
    with pytest.raises(FileFormatError, match="tokens need their own markers") as info:
        load_checked_roster(path, load_table(DATA / "table.toml"))
    assert info.value.key == "tokens[0].marker"


def test_card_side_is_the_printed_cut_square() -> None:
    assert card_side_mm(20.0, "DICT_4X4_250") == pytest.approx(80 / 3)
    assert card_side_mm(21.0, "DICT_5X5_100") == pytest.approx(21.0 * 9 / 7)


def test_markers_prints_each_token_at_exact_scale_with_its_meaning(tmp_path: Path) -> None:
    from campo.vision.printing import Label, Rects
    from campo.vision.printing_markers import marker_sheets, token_sheets

    table = load_table(DATA / "table.toml")
    roster = load_checked_roster(write(tmp_path, ROSTER + TOKENS), table)
    pages = token_sheets(table, roster)
    assert len(pages) == 1
    texts = [i.text for i in pages[0].items if isinstance(i, Label)]
    for words in ("Disordered", "disordered = true", "losses + 1", "loss-1: marker 41, 16 mm"):
        assert any(words in t for t in texts), (words, texts)
    # each marker's black square is exactly its size: the bits' rectangles span size_mm
    squares = [i for i in pages[0].items if isinstance(i, Rects)]
    spans = sorted(round(float(b[:, 2].max() - b[:, 0].min()), 6)
                   for b in (np.asarray(s.boxes) for s in squares))
    assert spans == [16.0, 20.0]
    # the full print: bases, then the tokens, then the anchors
    assert len(marker_sheets(table, roster)) == 3
    assert token_sheets(table, load_roster(DATA / "roster.toml")) == []
