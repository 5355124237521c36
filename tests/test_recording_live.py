"""Recording the real live server (`campo serve --record`): real frames, real pipeline, real
engine. A base is filmed moving 4" (100 mm); the recording has the move, the umpire's note, and
survives the server being killed with SIGKILL."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from campo.server.recording import attach, open_recording
from campo.server.rig import ServerSettings
from campo.server.runner import ServerThread, free_port
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames, wait_for

pytestmark = [pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[1]
FPS = 10.0
STEPS_Y = [400.0, 425.0, 450.0, 475.0, 500.0]  # pie-aosta's y in the moving frames
HOLD_START, HOLD_END = 20, 20  # frames at the start and end poses (2 s each at 10 fps: longer than
# a move takes to settle, so every loop of the clip is a move there and a move back, whichever
# frame the server sees first)


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clip that loops every 2.9 s: Aosta still, advancing 100 mm in 4 frames, still again."""
    work = tmp_path_factory.mktemp("render")
    layouts = [[(b, x, y_a if b == "pie-aosta" else y, h) for b, x, y, h in LAYOUT]
               for y_a in STEPS_Y]
    rendered = render_frames(work, layouts)
    folder = tmp_path_factory.mktemp("clip")
    sequence = ([rendered[0]] * HOLD_START + rendered[1:] + [rendered[-1]] * (HOLD_END - 1))
    for i, src in enumerate(sequence):
        shutil.copy(src, folder / f"f{i:03d}.png")
    return folder


def _settings(frames: Path, tmp: Path) -> ServerSettings:
    return ServerSettings(source=str(frames), table=TABLE, roster=ROSTER,
                          setup_file=tmp / "terrain.json", port=free_port(), fps=FPS)


def _forward(move: dict) -> bool:
    """Aosta's advance (the clip also takes it back when it loops)."""
    return move["base"] == "pie-aosta" and move["to"]["y_mm"] > move["from"]["y_mm"] + 50


def _moves(path: Path) -> list:
    with open_recording(path) as rec:
        return rec.events({"move"})


def test_live_server_records_the_filmed_move(frames: Path, tmp_path: Path) -> None:
    path = tmp_path / "live.db"
    srv = ServerThread(_settings(frames, tmp_path))
    recorder = attach(srv.app, srv.services, path)
    with srv:
        reply = httpx.post(f"{srv.url}/api/events", json={"kind": "note", "text": "Aosta advances"})
        assert reply.status_code == 200, reply.text
        assert wait_for(lambda: any(_forward(m.data) for m in _moves(path)), timeout=30, interval=0.3)
    assert recorder._closed  # closed by the app's shutdown
    with open_recording(path) as rec:
        entries = list(rec.entries())
    seqs = [e.seq for e in entries]
    assert seqs == sorted(set(seqs))
    assert [e.t for e in entries] == sorted(e.t for e in entries)
    states = [e for e in entries if e.kind == "state"]
    assert all("analysis" not in s.data and "live" not in s.data for s in states)
    move = next(e for e in entries if e.kind == "move" and _forward(e.data))
    assert move.data["from"]["y_mm"] == pytest.approx(400.0, abs=2.0)
    assert move.data["to"]["y_mm"] == pytest.approx(500.0, abs=2.0)
    assert move.data["distance"] == pytest.approx(4.0, abs=0.1)  # 100 mm in inches of 25 mm
    assert move.data["unit"] == "in" and move.data["allowance"] is not None
    notes = [e for e in entries if e.kind == "note"]
    assert [n.data["text"] for n in notes] == ["Aosta advances"]
    assert {"appeared"} <= {e.kind for e in entries}


def test_kill_9_of_campo_serve_leaves_a_readable_recording(frames: Path, tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    port = free_port()
    cmd = [sys.executable, "-m", "campo.server.cli", "serve", "--source", str(frames), "--table",
           str(TABLE), "--roster", str(ROSTER), "--terrain", str(tmp_path / "terrain.json"),
           "--fps", str(FPS), "--port", str(port), "--record", str(path)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # Wait for at least one full filmed move to be committed, then kill it mid-game.
        ok = wait_for(lambda: path.exists() and len(_moves(path)) >= 1, timeout=60, interval=0.3)
        time.sleep(1.3)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        stderr = proc.stderr.read().decode() if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
    assert ok, f"no move recorded; server said: {stderr[-2000:]}"
    assert proc.returncode == -signal.SIGKILL

    out = subprocess.run([sys.executable, "-m", "campo.server.cli", "export", str(path), "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    seqs, ts = [x["seq"] for x in lines], [x["t"] for x in lines]
    assert seqs[0] == 1
    assert all(a < b for a, b in zip(seqs, seqs[1:], strict=False)), "seq strictly increasing"
    assert all(a <= b for a, b in zip(ts, ts[1:], strict=False)), "t non-decreasing"
    states = [x for x in lines if x["kind"] == "state"]
    ys = [next((b["y_mm"] for b in s["state"]["bases"] if b["id"] == "pie-aosta"), None)
          for s in states]
    seen = [y for y in ys if y is not None]
    assert min(seen) == pytest.approx(400.0, abs=2.0) and max(seen) == pytest.approx(500.0, abs=2.0)
    # continuity: no entry lost between the first and the last (seq has no holes), and every
    # recorded pose is one that was filmed (the live loop may skip frames, never invent them)
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    assert all(min(abs(y - s) for s in STEPS_Y) <= 2.0 for y in seen)
    assert any(x["kind"] == "move" for x in lines)


def test_kill_9_while_recording_the_demo(tmp_path: Path) -> None:
    """`campo serve --source demo --record`, killed hard mid-game: the export is in order, has
    no holes, and every pose it holds is one the demo's script really passed through."""
    import numpy as np

    from campo.vision.synthetic.demo import DemoGame

    path = tmp_path / "demo.db"
    cmd = [sys.executable, "-m", "campo.server.cli", "serve", "--source", "demo", "--fps", "5",
           "--port", str(free_port()), "--record", str(path)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def states() -> int:
        if not path.exists():
            return 0
        with open_recording(path) as rec:
            return rec.count("state")

    try:
        ok = wait_for(lambda: states() >= 8, timeout=90, interval=0.5)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        stderr = proc.stderr.read().decode() if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
    assert ok, f"the demo was not recorded; server said: {stderr[-2000:]}"

    out = subprocess.run([sys.executable, "-m", "campo.server.cli", "export", str(path), "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    seqs, ts = [x["seq"] for x in lines], [x["t"] for x in lines]
    assert seqs == list(range(1, len(seqs) + 1))
    assert all(a <= b for a, b in zip(ts, ts[1:], strict=False))
    game = DemoGame.load()
    by_id = game.roster.by_id()
    samples = np.arange(0.0, game.duration_s, 0.05)
    truth = {bid: np.array([track.pose_at(t, by_id[bid])[:2] for t in samples])
             for bid, track in game.tracks.items()}
    checked = 0
    for line in lines:
        if line["kind"] != "state":
            continue
        for b in line["state"]["bases"]:
            if b.get("stale"):
                continue
            d = np.hypot(*(truth[b["id"]] - (b["x_mm"], b["y_mm"])).T).min()
            assert d < 4.0, f"{b['id']} recorded at ({b['x_mm']}, {b['y_mm']}), {d:.1f} mm off its script"
            checked += 1
    assert checked >= 8 * 10
