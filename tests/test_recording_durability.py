"""`kill -9` of a recording process loses at most the last second, and the file always opens."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from campo.server.recording import open_recording

ROOT = Path(__file__).resolve().parents[1]

# The child records a base walking 1 mm per state at 50 states/s in real time, and after each
# state prints "<index> <t>" once the recorder has queued it.
CHILD = r"""
import copy, sys, time
from campo.server.recording import Recorder
from campo.server.recording.simulate import demo_scenario
state = demo_scenario()
rec = Recorder(sys.argv[1])
i = 0
while True:
    s = copy.deepcopy(state)
    s["bases"][0]["x_mm"] = 100.0 + i
    s["bases"][0]["traits"]["losses"] = i
    rec.record_state(s)
    print(i, rec.now(), flush=True)
    i += 1
    time.sleep(0.02)
"""


@pytest.mark.slow
def test_kill_9_loses_at_most_the_last_second(tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    printed: list[tuple[int, float]] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        i, t = line.split()
        printed.append((int(i), float(t)))
        if float(t) > 3.0:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    assert printed and printed[-1][1] > 3.0, "the child did not run"

    # The file opens, is intact, and holds every state up to one second before the kill.
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    conn.close()
    with open_recording(path) as rec:
        entries = list(rec.entries())
    seqs = [e.seq for e in entries]
    ts = [e.t for e in entries]
    assert all(a < b for a, b in zip(seqs, seqs[1:], strict=False)), "seq strictly increasing"
    assert all(a <= b for a, b in zip(ts, ts[1:], strict=False)), "t non-decreasing"
    indices = [e.data["bases"][0]["traits"]["losses"] for e in entries if e.kind == "state"]
    assert indices == list(range(len(indices))), "continuity: no state missing in between"
    t_kill = printed[-1][1]
    must_have = max(i for i, t in printed if t <= t_kill - 1.0)
    assert indices[-1] >= must_have, (
        f"lost more than 1 s: last state {indices[-1]}, needed {must_have}")
    # The recorder can carry on in the same file after the crash.
    from campo.server.recording import Recorder

    with Recorder(path, derive_events=False) as again:
        again.record_state({"ruleset": "italia-se-desta",
                            "table": {"width_mm": 1800, "depth_mm": 1200}, "bases": []})
    with open_recording(path) as rec:
        assert rec.count("resumed") == 1


def _count_in_another_process(path: Path) -> int:
    code = ("import sys; from campo.server.recording import open_recording\n"
            "with open_recording(sys.argv[1]) as rec: print(rec.count('state'))")
    out = subprocess.run([sys.executable, "-c", code, str(path)], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, check=True)
    return int(out.stdout)


def test_reading_the_file_in_the_writers_process_keeps_its_locks(tmp_path: Path) -> None:
    """Opening the recording being written, in the writer's own process (a game resumed reads its
    unit states; a test reads the file), must not strip SQLite's locks from the writer: if it did,
    the next reader elsewhere would fold in and delete the WAL the writer still writes to, and
    every later state would be lost."""
    import copy

    from campo.server.recording import Recorder
    from campo.server.recording.simulate import demo_scenario

    path = tmp_path / "game.db"
    state = demo_scenario()
    with Recorder(path, commit_interval=0.0) as rec:
        def write(n: int, start: int) -> None:
            for i in range(start, start + n):
                s = copy.deepcopy(state)
                s["bases"][0]["x_mm"] = 100.0 + i
                rec.record_state(s)
            rec.flush()

        write(5, 0)
        with open_recording(path) as same_process:
            assert same_process.count("state") == 5
        assert _count_in_another_process(path) == 5
        write(5, 5)
        assert _count_in_another_process(path) == 10
    with open_recording(path) as after:
        assert after.count("state") == 10
