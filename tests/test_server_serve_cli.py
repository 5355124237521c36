"""`campo serve`: its options, its errors, and a real server process answering on loopback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from campo.server.runner import free_port
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames

Run = Callable[..., tuple[int, str, str]]


def test_serve_is_a_command_with_the_contract_options(run_campo: Run) -> None:
    code, out, _ = run_campo("serve", "--help")
    assert code == 0
    for option in ("--source", "--table", "--roster", "--camera", "--host", "--port"):
        assert option in out


@pytest.mark.parametrize("args, message", [
    (["--source", "no/such/thing"], "no such camera, video file or image folder"),
    (["--source", "demo", "--port", "0"], "--port"),
    (["--source", "demo", "--fps", "-1"], "--fps"),
])
def test_bad_arguments_give_one_clear_line(run_campo: Run, args: list[str], message: str) -> None:
    code, _, err = run_campo("serve", *args)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_a_table_needs_its_roster(run_campo: Run, tmp_path: Path) -> None:
    # (with neither, the page opens the setup: tests/test_browser_setup.py)
    render_frames(tmp_path / "shots", [LAYOUT])
    code, _, err = run_campo("serve", "--source", str(tmp_path / "shots"), "--table", str(TABLE))
    assert code == 2 and "--roster is required" in err
    code, _, err = run_campo("serve", "--source", str(tmp_path / "shots"), "--table", str(TABLE),
                             "--roster", str(tmp_path / "missing.toml"))
    assert code == 2 and "missing.toml" in err


@pytest.mark.slow
def test_serve_process_answers_and_stops_cleanly(tmp_path: Path) -> None:
    render_frames(tmp_path / "shots", [LAYOUT])
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "campo.server.cli", "serve", "--source", str(tmp_path / "shots"), "--table", str(TABLE),
         "--roster", str(ROSTER), "--terrain", str(tmp_path / "terrain.json"), "--port", str(port), "--fps", "5"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1],
        env={**os.environ, "PYTHONWARNINGS": "error"})
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.strip() == f"campo serve: open http://127.0.0.1:{port}/"
        state: dict = {}
        end = time.monotonic() + 30
        while time.monotonic() < end and len(state.get("bases", [])) < 4:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2) as res:
                    state = json.load(res)
            except OSError:
                time.sleep(0.2)
        assert {b["id"] for b in state["bases"]} == {"pie-aosta", "pie-cuneo", "aus-47", "aus-59"}
        assert "analysis" in state
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        finally:
            if proc.poll() is None:
                proc.kill()
    _, err = proc.communicate()
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_port_in_use_is_one_clear_line(run_campo: Run, tmp_path: Path) -> None:
    from campo.server.runner import bind_socket

    render_frames(tmp_path / "shots", [LAYOUT])
    sock = bind_socket("127.0.0.1", 0)
    sock.listen()
    try:
        port = sock.getsockname()[1]
        code, _, err = run_campo("serve", "--source", str(tmp_path / "shots"), "--table", str(TABLE),
                                 "--roster", str(ROSTER), "--terrain", str(tmp_path / "t.json"), "--port", str(port))
    finally:
        sock.close()
    assert code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in err and "Traceback" not in err


def test_record_option_is_offered_with_the_recorder(run_campo: Run) -> None:
    import importlib.util

    code, out, _ = run_campo("serve", "--help")
    assert ("--record" in out) == (importlib.util.find_spec("campo.server.recording") is not None)
