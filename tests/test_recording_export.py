"""`campo export GAME.db --json | --csv`: order, continuity, shapes, and clear errors."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest

from campo.server.recording import Recorder, schema
from campo.server.recording.simulate import demo_scenario, demo_script, play


@pytest.fixture
def game(tmp_path: Path) -> tuple[Path, list[tuple[float, dict]]]:
    path = tmp_path / "game.db"
    played = list(play(demo_scenario(), demo_script()))
    with Recorder(path, snapshot_every=10) as rec:
        for t, state in played:
            rec.record_state({**state, "analysis": {"bases": {}}}, t=t)
            if t == 3.0:
                rec.record_event("note", {"text": "Piedmontese advance"}, t=t)
    return path, played


def test_json_lines_hold_every_state_in_order(run_campo, game) -> None:
    path, played = game
    code, out, err = run_campo("export", path, "--json")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert all({"seq", "t", "kind"} <= line.keys() for line in lines)
    seqs, ts = [x["seq"] for x in lines], [x["t"] for x in lines]
    assert all(a < b for a, b in zip(seqs, seqs[1:], strict=False))
    assert all(a <= b for a, b in zip(ts, ts[1:], strict=False))
    assert ts[0] == 0.0
    states = [x for x in lines if x["kind"] == "state"]
    assert [s["state"] for s in states] == [s for _, s in played]
    assert [s["t"] for s in states] == pytest.approx([t for t, _ in played])
    assert all("analysis" not in s["state"] for s in states)
    kinds = {x["kind"] for x in lines}
    assert {"state", "note", "move", "appeared", "turn", "phase"} <= kinds
    note = next(x for x in lines if x["kind"] == "note")
    assert note["text"] == "Piedmontese advance" and note["t"] == 3.0


def test_csv_holds_the_events(run_campo, game, tmp_path: Path) -> None:
    path, _ = game
    out_file = tmp_path / "events.csv"
    code, _, err = run_campo("export", path, "--csv", "-o", out_file)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out_file.read_text())))
    assert rows and {r["kind"] for r in rows} >= {"move", "note"}
    moves = [r for r in rows if r["kind"] == "move"]
    assert {r["base"] for r in moves} == {m.base for m in demo_script()}
    assert all(json.loads(r["details"])["base"] == r["base"] for r in moves)
    assert any("EXCEEDED" in r["summary"] for r in moves)
    assert [int(r["seq"]) for r in rows] == sorted(int(r["seq"]) for r in rows)


def test_not_a_recording_is_one_clear_line(run_campo, tmp_path: Path) -> None:
    bogus = tmp_path / "notes.txt"
    bogus.write_text("not a database\n" * 20)
    code, out, err = run_campo("export", bogus, "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and str(bogus) in err and "not a Campo recording" in err
    assert "Traceback" not in err


def test_newer_schema_is_one_clear_line(run_campo, game) -> None:
    path, _ = game
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 3}")
    conn.commit()
    conn.close()
    code, _, err = run_campo("export", path, "--json")
    assert code == 2 and str(path) in err and "newer" in err and err.count("\n") == 1


def test_missing_file(run_campo, tmp_path: Path) -> None:
    code, _, err = run_campo("export", tmp_path / "nope.db", "--json")
    assert code == 2 and "nope.db" in err


def test_a_format_is_required(run_campo, game) -> None:
    code, _, err = run_campo("export", game[0])
    assert code == 2 and "--json" in err
