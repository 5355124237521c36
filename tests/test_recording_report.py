"""`campo report`: one self-contained HTML page with every unit, its track, losses and events."""

from __future__ import annotations

import copy
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from campo.server.recording import Recorder, open_recording
from campo.server.recording.simulate import demo_scenario, demo_script, play


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "club-night.db"
    played = list(play(demo_scenario(), demo_script()))
    with Recorder(path) as rec:
        for t, state in played:
            rec.record_state(state, t=t)
        hit = copy.deepcopy(played[-1][1])
        hit["turn"] = 2
        for b in hit["bases"]:
            if b["id"] == "a-1":
                b["traits"]["losses"] = 2
        rec.record_state(hit, t=played[-1][0] + 5)
        rec.record_event("note", {"text": "Cavalry <charge> & melee"}, t=played[-1][0] + 6)
    return path


def test_report_has_every_unit_event_and_the_losses(run_campo, game: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    code, stdout, err = run_campo("report", game, "-o", out)
    assert code == 0, err
    html = out.read_text()
    parser = _Collect()
    parser.feed(html)
    tags = parser.tags
    # Self-contained: no scripts, no external references.
    assert not [t for t, a in tags if t in ("script", "link", "img", "iframe")]
    assert not re.search(r"(src|href)=['\"]https?:", html)
    svgs = [a for t, a in tags if t == "svg"]
    assert len(svgs) == 2  # deployment and tracks
    ids = {b["id"] for b in demo_scenario()["bases"]}
    drawn = {a["data-id"] for t, a in tags if t == "g" and a.get("class") == "base"}
    assert drawn == ids
    tracked = {a["data-id"] for t, a in tags if t == "polyline" and a.get("class") == "track"}
    assert tracked == {m.base for m in demo_script()}
    with open_recording(game) as rec:
        events = rec.events()
    rows = re.findall(r"<tr(?: class='exceeded')?><td>\d+:\d\d</td>", html)
    assert len(rows) == len(events)
    assert "Cavalry &lt;charge&gt; &amp; melee" in html  # escaped, not injected
    assert html.count("class='exceeded'") == 2  # a-3 and a-4 moved too far
    losses = html.split("<h2>Losses per turn</h2>")[1].split("</table>")[0]
    assert re.search(r"<tr><td>2</td><td>2</td><td>0</td><td>0</td><td>0</td></tr>", losses)


def test_empty_recording_still_makes_a_page(run_campo, tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    Recorder(path).close()
    out = tmp_path / "r.html"
    code, _, err = run_campo("report", path, "-o", out)
    assert code == 0, err
    assert "No bases were recorded" in out.read_text()


def test_unwritable_output_is_a_clear_error(run_campo, game: Path, tmp_path: Path) -> None:
    code, _, err = run_campo("report", game, "-o", tmp_path / "no" / "such" / "r.html")
    assert code == 2 and "cannot write the report" in err
