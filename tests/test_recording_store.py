"""Recording storage: codec round trips, schema versions and migrations, recorder and reader."""

from __future__ import annotations

import copy
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campo.server.recording import Recorder, RecordingError, open_recording, schema
from campo.server.recording.codec import apply_delta, encode_delta
from campo.server.recording.simulate import demo_scenario, demo_script, play


def _base(i: int, **kw: object) -> dict:
    return {"id": f"b{i}", "side": "A", "type": "B", "x_mm": 10.0 * i, "y_mm": 5.0,
            "heading_deg": 90.0, "width_mm": 80.0, "depth_mm": 40.0, **kw}


base_st = st.builds(
    lambda i, x, y, h, stale, traits: _base(i, x_mm=x, y_mm=y, heading_deg=h, stale=stale,
                                            **({"traits": traits} if traits else {})),
    st.integers(0, 6), st.floats(0, 1800, allow_nan=False), st.floats(0, 1200, allow_nan=False),
    st.floats(0, 359.9), st.booleans(),
    st.dictionaries(st.sampled_from(["losses", "formation"]), st.integers(0, 3), max_size=2))
state_st = st.builds(
    lambda bases, turn, phase: {"ruleset": "italia-se-desta",
                                "table": {"width_mm": 1800, "depth_mm": 1200},
                                "bases": list({b["id"]: b for b in bases}.values()),
                                **({"turn": turn} if turn is not None else {}),
                                **({"phase": phase} if phase else {})},
    st.lists(base_st, max_size=6), st.one_of(st.none(), st.integers(1, 9)),
    st.sampled_from([None, "movement", "fire"]))


@settings(max_examples=150, deadline=None)
@given(state_st, state_st)
def test_delta_round_trip(prev: dict, state: dict) -> None:
    before = copy.deepcopy(prev)
    assert apply_delta(prev, encode_delta(prev, state)) == state
    assert prev == before  # the previous state is not modified


def test_delta_of_one_moved_base_names_only_what_changed() -> None:
    prev = demo_scenario()
    state = copy.deepcopy(prev)
    state["bases"][2]["x_mm"] += 5
    assert encode_delta(prev, state) == {"bases": {"a-2": {"x_mm": prev["bases"][2]["x_mm"] + 5}}}


def _record_demo(path: Path, **kw: object) -> list[tuple[float, dict]]:
    played = list(play(demo_scenario(), demo_script()))
    with Recorder(path, derive_events=False, **kw) as rec:
        for t, state in played:
            rec.record_state(state, t=t)
        rec.record_event("note", {"text": "Austrians hold the wood"}, t=played[-1][0])
    return played


def test_recording_round_trip_and_state_at(tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    played = _record_demo(path, snapshot_every=7)
    with open_recording(path) as rec:
        states = list(rec.states())
        assert [s.data for s in states] == [s for _, s in played]
        assert [s.t for s in states] == pytest.approx([t for t, _ in played])
        seqs = [e.seq for e in rec.entries()]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        for t, state in played[::5]:
            assert rec.state_at(t + 0.01).data == state
        assert rec.state_at(-1.0) is None
        assert rec.events({"note"})[0].data == {"text": "Austrians hold the wood"}
        assert rec.meta["format"] == "campo-recording"
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    encodings = dict(conn.execute(
        "SELECT encoding, count(*) FROM entries WHERE kind='state' GROUP BY encoding").fetchall())
    assert encodings["delta"] > encodings["snapshot"] > 1  # snapshots every 7, deltas between
    conn.close()


def test_identical_states_and_live_members_are_not_rows(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    state = demo_scenario()
    with Recorder(path, derive_events=False) as rec:
        rec.record_state({**state, "analysis": {"bases": {}}, "live": {"frame": 1}}, t=0)
        rec.record_state({**state, "analysis": {"bases": {}}, "live": {"frame": 2}}, t=0.1)
        rec.record_state(state, t=0.2)
    with open_recording(path) as rec:
        states = list(rec.states())
    assert len(states) == 1 and states[0].data == state


def test_appending_to_a_recording_continues_time_and_state(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    played = _record_demo(path, snapshot_every=5)
    moved = copy.deepcopy(played[-1][1])
    moved["bases"][0]["y_mm"] += 50
    with Recorder(path, derive_events=False) as rec:
        rec.record_state(moved, t=0.5)
    with open_recording(path) as rec:
        entries = list(rec.entries())
        assert entries[-1].data == moved and entries[-1].t >= played[-1][0]
        assert any(e.kind == "resumed" for e in entries)
        ts = [e.t for e in entries]
        assert ts == sorted(ts)


def _make_v1(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
    for sql in schema.MIGRATIONS[0]:
        conn.execute(sql)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO meta VALUES ('format', 'campo-recording')")
    conn.close()


def test_old_schema_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _make_v1(path)
    with Recorder(path, derive_events=False) as rec:
        rec.record_state(demo_scenario(), t=0)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert "entries_kind_seq" in indexes
    conn.close()
    with open_recording(path) as rec:
        assert len(list(rec.states())) == 1


def test_reader_migrates_an_old_file_too(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _make_v1(path)
    with open_recording(path) as rec:
        assert rec.version == schema.SCHEMA_VERSION and list(rec.entries()) == []


def test_newer_schema_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    _record_demo(path)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    for opener in (open_recording, Recorder):
        with pytest.raises(RecordingError, match="newer") as err:
            opener(path)
        assert str(path) in str(err.value)


@pytest.mark.parametrize("content", [b"", b"hello, this is a text file\n" * 10,
                                     b"SQLite format 3\x00" + b"\xff" * 600])
def test_foreign_or_damaged_files_are_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.db"
    path.write_bytes(content)
    with pytest.raises(RecordingError) as err:
        open_recording(path)
    assert str(path) in str(err.value)


def test_another_programs_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE photos (id INTEGER)")
    conn.commit()
    conn.close()
    for opener in (open_recording, Recorder):
        with pytest.raises(RecordingError, match="not a Campo recording"):
            opener(path)
    assert sqlite3.connect(path).execute("SELECT count(*) FROM photos").fetchone() == (0,)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="no such recording"):
        open_recording(tmp_path / "nope.db")
    with pytest.raises(RecordingError, match="directory"):
        open_recording(tmp_path)


def test_damaged_body_names_the_entry(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    _record_demo(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE entries SET body = x'00ff' WHERE seq = 3")
    conn.commit()
    conn.close()
    with open_recording(path) as rec, pytest.raises(RecordingError, match="seq 3"):
        list(rec.entries())


def test_event_payload_cannot_shadow_the_line_keys(tmp_path: Path) -> None:
    with Recorder(tmp_path / "g.db") as rec:
        with pytest.raises(ValueError, match="seq"):
            rec.record_event("note", {"seq": 4})
        with pytest.raises(ValueError):
            rec.record_event("state", {})


def test_recording_into_a_missing_folder_names_the_file(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "game.db"
    with pytest.raises(RecordingError, match="cannot create recording") as err:
        Recorder(target)
    assert str(target) in str(err.value)


def test_a_new_recording_appears_whole(tmp_path: Path) -> None:
    """Created aside and renamed: the file is a complete recording from its first byte."""
    path = tmp_path / "g.db"
    with Recorder(path, derive_events=False):
        assert path.exists() and not list(tmp_path.glob(".*partial"))
        with open_recording(path) as rec:
            assert rec.version == schema.SCHEMA_VERSION and rec.count() == 0
