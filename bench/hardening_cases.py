"""Issue 16's attacks, run against one Campo tree: what the user sees, how long, how much memory.

Each case builds its own files in a temporary folder and drives that tree's `campo` command (its
`.venv`) as a user would: real processes, real servers on loopback ports, real files. Run it on
two trees (main before the hardening, this branch after) to fill the report's table:

    .venv/bin/python bench/hardening_cases.py --root /tmp/campo-before [--only host,nested]
    .venv/bin/python bench/hardening_cases.py --root .

Numbers are wall seconds and peak resident memory of the command (GNU time); they are printed,
never asserted (tests/test_hardening_*.py assert the behaviour).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

CASES: dict[str, Callable[[Path, Path], str]] = {}


def case(name: str) -> Callable[[Callable[[Path, Path], str]], Callable[[Path, Path], str]]:
    def register(fn: Callable[[Path, Path], str]) -> Callable[[Path, Path], str]:
        CASES[name] = fn
        return fn
    return register


# -- running things ----------------------------------------------------------------------------


def run(root: Path, args: list[str], timeout: float = 120, term_after: float | None = None,
        cwd: Path | None = None) -> dict[str, Any]:
    """`campo ARGS` under GNU time: exit code, last stderr line, seconds, peak MB."""
    stats = Path(tempfile.mktemp(suffix=".time"))
    cmd = ["/usr/bin/time", "-q", "-f", "%e %M", "-o", str(stats), str(root / ".venv/bin/campo"), *args]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                            errors="replace")
    termed = None
    try:
        if term_after is not None:
            try:
                proc.wait(term_after)
            except subprocess.TimeoutExpired:
                termed = time.monotonic()
                _signal_campo(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _signal_campo(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return {"rc": "timeout", "err": f"still running after {timeout:.0f} s", "s": timeout, "mb": 0.0,
                "out": out}
    wall = time.monotonic() - t0
    try:
        secs, kb = stats.read_text().split()[-2:]
        mb = int(kb) / 1024
    except (OSError, ValueError):
        secs, mb = f"{wall:.2f}", 0.0
    stats.unlink(missing_ok=True)
    lines = [l for l in err.strip().splitlines() if l.strip()]
    result = {"rc": proc.returncode, "err": lines[-1][:160] if lines else "", "s": float(secs), "mb": mb,
              "out": out, "lines": len(lines)}
    if termed is not None:
        result["after_term_s"] = time.monotonic() - termed
    return result


def _signal_campo(time_pid: int, sig: int) -> None:
    """Signal the campo child of GNU time (time itself forwards nothing)."""
    children = Path(f"/proc/{time_pid}/task/{time_pid}/children")
    pids = children.read_text().split() if children.exists() else []
    for pid in pids or [str(time_pid)]:
        try:
            os.kill(int(pid), sig)
        except ProcessLookupError:
            pass


def describe(r: dict[str, Any]) -> str:
    extra = f", {r['lines']} stderr lines" if r.get("lines", 0) > 1 else ""
    return f"exit {r['rc']}: {r['err']!r}{extra} ({r['s']:.1f} s, {r['mb']:.0f} MB)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A `campo serve`/`campo replay` process on a loopback port."""

    def __init__(self, root: Path, args: list[str], cwd: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([str(root / ".venv/bin/campo"), *args, "--port", str(self.port)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                                     errors="replace")
        self.err: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()
        end = time.monotonic() + 90
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited {self.proc.returncode}: {self.err[-3:]}")
            try:
                httpx.get(self.url + "/api/status", timeout=2)
                return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("server did not start")

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.err.append(line.rstrip())

    def rss_mb(self, field: str = "VmRSS") -> float:
        """Resident memory now (VmRSS) or at its peak so far (VmHWM), MB."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) / 1024
        return 0.0

    def tracebacks(self) -> int:
        return sum(1 for l in self.err if l.startswith("Traceback"))

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


@contextmanager
def server(root: Path, args: list[str], cwd: Path) -> Iterator[Server]:
    srv = Server(root, args, cwd)
    try:
        yield srv
    finally:
        srv.stop()


def put(url: str, body: str, **headers: str) -> httpx.Response:
    return httpx.put(url, content=body, headers={"content-type": "application/json", **headers}, timeout=30)


def make_recording(path: Path, seconds: float = 12.0) -> None:
    from campo.server.recording import Recorder
    from campo.server.recording.simulate import demo_scenario, demo_script, play

    with Recorder(path) as rec:
        for t, state in play(demo_scenario(), demo_script(), until=seconds):
            rec.record_state(state, t=t)


def scenario(n_bases: int = 2) -> dict[str, Any]:
    from campo.server.recording.simulate import demo_scenario

    s = demo_scenario(max(1, n_bases // 2))
    return s


# -- the cases ---------------------------------------------------------------------------------

ROAD = '{"terrain": [{"id": "r", "kind": "road", "line_mm": [[0, 0], [Infinity, 10]]}]}'


@case("terrain-infinity")
def terrain_infinity(root: Path, work: Path) -> str:
    setup = work / "terrain.json"
    with server(root, ["serve", "--source", "demo", "--terrain", str(setup)], work) as srv:
        code = put(srv.url + "/api/terrain", ROAD).status_code
        time.sleep(3)
        state = httpx.get(srv.url + "/api/state", timeout=30).status_code
        tracebacks = srv.tracebacks() + sum(1 for l in srv.err if "ERROR" in l)
    written = "Infinity" in setup.read_text() if setup.exists() else False
    restart = ""
    if setup.exists():
        try:
            with server(root, ["serve", "--source", "demo", "--terrain", str(setup)], work) as srv2:
                time.sleep(3)
                restart = f"after restart GET /api/state {httpx.get(srv2.url + '/api/state', timeout=30).status_code}"
        except RuntimeError as exc:
            restart = f"restart refused: {str(exc)[-120:]}"
    return (f"PUT {code}; GET /api/state {state}; {tracebacks} error lines in 3 s; "
            f"terrain.json has Infinity: {written}; {restart}")


@case("setting-infinity")
def setting_infinity(root: Path, work: Path) -> str:
    body = '{"settings": {"a25_cavalry_charge_distance_in": Infinity}}'
    with server(root, ["serve", "--source", "demo"], work) as srv:
        code = put(srv.url + "/api/settings", body).status_code
        time.sleep(2)
        state = httpx.get(srv.url + "/api/state", timeout=30).status_code
        big = put(srv.url + "/api/settings", '{"settings": {"a25_cavalry_charge_distance_in": 1e300}}').status_code
        put(srv.url + "/api/settings", '{"settings": {}}')
        ws_reply = _ws_send(srv.url, '{"type": "settings", "settings": {"a25_cavalry_charge_distance_in": Infinity}}')
    return f"HTTP Infinity {code}, then GET /api/state {state}; HTTP 1e300 {big}; WebSocket: {ws_reply}"


def _ws_send(url: str, text: str) -> str:
    from websockets.sync.client import connect

    try:
        with connect(url.replace("http", "ws") + "/ws", open_timeout=10) as ws:
            ws.send(text)
            end = time.monotonic() + 10
            while time.monotonic() < end:
                msg = json.loads(ws.recv(timeout=10))
                if msg["topic"] == "reply":
                    p = msg["payload"]
                    return "accepted" if p.get("ok") else f"refused: {p.get('error', '')[:90]}"
    except Exception as exc:  # noqa: BLE001 - what the client saw
        return f"{type(exc).__name__}: {str(exc)[:80]}"
    return "no reply"


@case("host-header")
def host_header(root: Path, work: Path) -> str:
    evil = {"host": "evil.example:8123"}
    with server(root, ["serve", "--source", "demo"], work) as srv:
        time.sleep(2)
        live = {p: httpx.get(srv.url + p, headers=evil, timeout=30).status_code
                for p in ("/api/state", "/api/setup", "/api/camera.jpg", "/api/status", "/")}
    rec = work / "game.db"
    make_recording(rec)
    with server(root, ["replay", str(rec)], work) as srv:
        replay = {p: httpx.get(srv.url + p, headers=evil, timeout=30).status_code
                  for p in ("/api/state", "/api/replay/timeline")}
    return f"live {live}; replay {replay}"


@case("replay-body")
def replay_body(root: Path, work: Path) -> str:
    rec = work / "game.db"
    make_recording(rec)
    with server(root, ["replay", str(rec)], work) as srv:
        before = srv.rss_mb()
        size = 300 * 1024 * 1024
        chunk = b'{"t": 1, "pad": "' + b"x" * (size - 20) + b'"}'
        try:
            code: Any = httpx.post(srv.url + "/api/replay/cursor", content=chunk,
                                   headers={"content-type": "application/json"}, timeout=120).status_code
        except httpx.HTTPError as exc:
            code = type(exc).__name__
        del chunk
        time.sleep(1)
        after, peak = srv.rss_mb(), srv.rss_mb("VmHWM")
        nested = httpx.post(srv.url + "/api/replay/cursor", content="[" * 100000 + "]" * 100000,
                            timeout=30).status_code
        huge = httpx.post(srv.url + "/api/replay/cursor", content='{"seq": 1e400}', timeout=30).status_code
        t0 = time.monotonic()
        codes = []
        while time.monotonic() - t0 < 5:
            codes.append(httpx.post(srv.url + "/api/replay/cursor", json={"t": 1.0}, timeout=30).status_code)
    return (f"300 MB cursor body: {code}, server RSS {before:.0f} -> {after:.0f} MB (peak {peak:.0f}); nested: {nested}; "
            f"seq 1e400: {huge}; {len(codes)} cursor moves in 5 s, {codes.count(429)} refused")


@case("ws-flood")
def ws_flood(root: Path, work: Path) -> str:
    from websockets.sync.client import connect

    with server(root, ["serve", "--source", "demo"], work) as srv:
        url = srv.url.replace("http", "ws") + "/ws"
        stack = contextlib.ExitStack()
        sockets = [stack.enter_context(connect(url, open_timeout=10)) for _ in range(20)]
        sent, refused = 0, 0
        stop = time.monotonic() + 10
        note = json.dumps({"type": "event", "kind": "note", "text": "flood"})
        while time.monotonic() < stop:
            for ws in sockets:
                ws.send(note)
                sent += 1
            for ws in sockets:
                while True:
                    msg = json.loads(ws.recv(timeout=10))
                    if msg["topic"] == "reply":
                        refused += not msg["payload"]["ok"]
                        break
        stack.close()
    return f"20 connections, {sent} writes in 10 s, {refused} refused"


@case("xff")
def xff(root: Path, work: Path) -> str:
    from concurrent.futures import ThreadPoolExecutor

    def burst(url: str, rotate: bool) -> list[int]:
        def one(i: int) -> int:
            headers = {"x-forwarded-for": f"10.0.{i // 250}.{i % 250}"} if rotate else {}
            return httpx.post(url + "/api/events", json={"kind": "bogus"}, headers=headers,
                              timeout=30).status_code
        with ThreadPoolExecutor(8) as pool:
            return list(pool.map(one, range(300)))

    with server(root, ["serve", "--source", "demo"], work) as srv:
        plain = burst(srv.url, False)
        time.sleep(3)   # the bucket refills
        rotating = burst(srv.url, True)
    return (f"300 writes at once from one address: {plain.count(429)} refused; the same with a rotating "
            f"X-Forwarded-For: {rotating.count(429)} refused")


@case("read-flood")
def read_flood(root: Path, work: Path) -> str:
    frames = work / "frames"
    _demo_frames(frames)
    from campo.vision.synthetic.demo import DATA_DIR

    args = ["serve", "--source", str(frames), "--table", str(DATA_DIR / "table.toml"),
            "--roster", str(DATA_DIR / "roster.toml"), "--terrain", str(work / "t.json"), "--fps", "15"]
    with server(root, args, work) as srv:
        time.sleep(8)
        calm = _fps(srv.url)
        ids = [b["id"] for b in httpx.get(srv.url + "/api/state", timeout=30).json()["bases"]][:5]
        stop = time.monotonic() + 12
        counts = {"ok": 0, "429": 0, "other": 0}

        def flood(path: str) -> None:
            with httpx.Client(timeout=30) as c:
                while time.monotonic() < stop:
                    code = c.get(srv.url + path).status_code
                    counts["ok" if code == 200 else "429" if code == 429 else "other"] += 1

        def camera(k: int) -> None:   # a new width each time: the one-picture cache never helps
            with httpx.Client(timeout=30) as c:
                i = 0
                while time.monotonic() < stop:
                    i += 1
                    code = c.get(f"{srv.url}/api/camera.jpg?width={3840 - (i * 4 + k) % 800}"
                                 f"&base={ids[i % len(ids)]}").status_code
                    counts["ok" if code == 200 else "429" if code == 429 else "other"] += 1

        threads = [threading.Thread(target=camera, args=(k,)) for k in range(4)] + \
                  [threading.Thread(target=flood, args=(f"/api/geometry/{i}",)) for i in ids]
        for t in threads:
            t.start()
        time.sleep(6)
        busy = _fps(srv.url)
        for t in threads:
            t.join()
    return f"pipeline {calm:.1f} fps calm, {busy:.1f} fps under 9 reading loops ({counts})"


def _fps(url: str) -> float:
    """The pipeline's frame rate, asked from another loopback address than the flood's."""
    samples = []
    with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.5"), timeout=30) as c:
        for _ in range(4):
            samples.append(c.get(url + "/api/status").json()["fps"])
            time.sleep(1)
    return sum(samples) / len(samples)


def _demo_frames(folder: Path, n: int = 45) -> None:
    import cv2

    from campo.vision.synthetic.demo import DemoCamera

    folder.mkdir(parents=True, exist_ok=True)
    cam = DemoCamera(size=(1280, 720))
    for i in range(n):
        cv2.imwrite(str(folder / f"f{i:03d}.jpg"), cam.render(10.0 + i / 15).image)


@case("nested-json-live")
def nested_json_live(root: Path, work: Path) -> str:
    deep = "[" * 100000 + "]" * 100000
    with server(root, ["serve", "--source", "demo"], work) as srv:
        http = put(srv.url + "/api/terrain", deep).status_code
        ws = _ws_send(srv.url, deep)
        tb = srv.tracebacks()
    return f"HTTP {http}; WebSocket {ws}; {tb} tracebacks in the server's log"


@case("scenario-encoding")
def scenario_encoding(root: Path, work: Path) -> str:
    latin = work / "latin1.json"
    latin.write_bytes(json.dumps(scenario()).replace("A", "À").encode("latin-1"))
    binary = work / "binary.json"
    binary.write_bytes(bytes(range(256)) * 40)
    setup = work / "terrain.json"
    setup.write_bytes(b'{"version": 1, "terrain": [], "note": "caf\xe9"}')
    r1 = run(root, ["analyze", str(latin), "--json"])
    r2 = run(root, ["analyze", str(binary), "--json"])
    r3 = run(root, ["serve", "--source", "demo", "--terrain", str(setup), "--port", str(free_port())], timeout=60)
    return f"latin-1: {describe(r1)}; binary: {describe(r2)}; latin-1 terrain.json at serve: {describe(r3)}"


@case("nested-files")
def nested_files(root: Path, work: Path) -> str:
    deep = "[" * 100000 + "]" * 100000
    table = work / "table.toml"
    table.write_text(f"[table]\nwidth_mm = 1800.0\ndepth_mm = 1200.0\nx = {deep}\n")
    camera = work / "camera.json"
    camera.write_text(deep)
    scen = work / "scenario.json"
    scen.write_text('{"ruleset": "italia-se-desta", "x": ' + deep + "}")
    roster = _roster_file(work, 2)
    img = work / "img.png"
    _png(img, 64, 64)
    r1 = run(root, ["detect", str(img), "--table", str(table), "--roster", str(roster), "--json"])
    r2 = run(root, ["detect", str(img), "--table", str(_table_file(work)), "--roster", str(roster),
                    "--camera", str(camera), "--json"])
    r3 = run(root, ["analyze", str(scen), "--json"])
    return f"table.toml: {describe(r1)}; camera.json: {describe(r2)}; scenario: {describe(r3)}"


def _table_file(work: Path, **over: str) -> Path:
    path = work / "table-ok.toml"
    anchors = ""
    for i, (x, y) in enumerate([(40, 40), (1760, 40), (1760, 1160), (40, 1160)]):
        ax = over.get("x_mm", str(float(x))) if i == 0 else str(float(x))
        size = over.get("size_mm", "40.0") if i == 0 else "40.0"
        anchors += f"\n[[anchors]]\nmarker = {i}\nx_mm = {ax}\ny_mm = {float(y)}\nsize_mm = {size}\n"
    path.write_text(f"[table]\nwidth_mm = {over.get('width_mm', '1800.0')}\ndepth_mm = 1200.0\n{anchors}")
    return path


def _roster_file(work: Path, n: int, first_marker: int = 10, rotation: str = "0.0", name: str = "roster.toml") -> Path:
    path = work / name
    parts = ['ruleset = "italia-se-desta"\n']
    for i in range(n):
        parts.append(f'\n[[bases]]\nmarker = {first_marker + i}\nid = "b{i}"\nside = "A"\ntype = "B"\n'
                     f'width_mm = 80.0\ndepth_mm = 40.0\nmarker_size_mm = 18.0\nmarker_rotation_deg = {rotation}\n'
                     f'traits = {{ arm = "infantry" }}\n')
    path.write_text("".join(parts))
    return path


def _png(path: Path, w: int, h: int) -> None:
    import cv2
    import numpy as np

    cv2.imwrite(str(path), np.full((h, w, 3), 255, np.uint8))


@case("absurd-numbers")
def absurd_numbers(root: Path, work: Path) -> str:
    out = []
    for label, value in (("Infinity", "Infinity"), ("1e308", "1e308")):
        s = json.dumps(scenario()).replace('"width_mm": 80.0', f'"width_mm": {value}', 1)
        p = work / f"wide-{label}.json"
        p.write_text(s)
        out.append(f"base width_mm {label}: {describe(run(root, ['analyze', str(p), '--json']))}")
    img = work / "img.png"
    _png(img, 64, 64)
    roster = _roster_file(work, 2)
    for label, over in (("table width inf", {"width_mm": "inf"}), ("anchor size inf", {"size_mm": "inf"}),
                        ("anchor x_mm nan", {"x_mm": "nan"})):
        r = run(root, ["detect", str(img), "--table", str(_table_file(work, **over)), "--roster", str(roster), "--json"])
        out.append(f"{label}: {describe(r)}")
    nan_roster = _roster_file(work, 2, rotation="nan", name="nan.toml")
    r = run(root, ["detect", str(img), "--table", str(_table_file(work)), "--roster", str(nan_roster), "--json"])
    out.append(f"roster marker_rotation_deg nan: {describe(r)}")
    cam = work / "singular.json"
    cam.write_text(json.dumps({"version": 1, "image_size": [64, 64], "camera_matrix": [[1, 1, 32], [1, 1, 32], [0, 0, 1]],
                               "dist_coeffs": [0, 0, 0, 0, 0], "rms_px": 0.3}))
    r = run(root, ["detect", str(img), "--table", str(_table_file(work)), "--roster", str(roster),
                   "--camera", str(cam), "--json"])
    out.append(f"singular camera matrix: {describe(r)}")
    dup = work / "dup.json"
    dup.write_text(json.dumps(scenario())[:-1] + ', "ruleset": "federico"}')
    out.append(f"duplicate ruleset key: {describe(run(root, ['analyze', str(dup), '--json']))}")
    return "; ".join(out)


@case("png-header")
def png_header(root: Path, work: Path) -> str:
    liar = work / "liar.png"
    _lying_png(liar, 100000, 100000)
    roster = _roster_file(work, 2)
    table = _table_file(work)
    r1 = run(root, ["detect", str(liar), "--table", str(table), "--roster", str(roster), "--json"])
    big = work / "big.png"
    _png(big, 20000, 20000)
    r2 = run(root, ["detect", str(big), "--table", str(table), "--roster", str(roster), "--json"], timeout=180)
    return f"header 100000x100000: {describe(r1)}; real 20000x20000 PNG: {describe(r2)}"


def _lying_png(path: Path, w: int, h: int) -> None:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 100))
                     + chunk(b"IEND", b""))


@case("unknown-markers")
def unknown_markers(root: Path, work: Path) -> str:
    img = work / "img.png"
    _png(img, 64, 64)
    out = []
    for n in (1000, 4000):
        roster = _roster_file(work, n, first_marker=300, name=f"r{n}.toml")   # not in DICT_4X4_250
        r = run(root, ["detect", str(img), "--table", str(_table_file(work)), "--roster", str(roster), "--json"],
                timeout=200)
        out.append(f"{n}: exit {r['rc']} in {r['s']:.1f} s, {len(r['err'])} chars, {r['mb']:.0f} MB")
    return "; ".join(out)


@case("big-scenario")
def big_scenario(root: Path, work: Path) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from battles import dense_battle

    path = work / "big.json"
    path.write_text(json.dumps(dense_battle("italia-se-desta", 10000)))
    r = run(root, ["analyze", str(path), "--json"], timeout=60, term_after=5)
    after = f"; ended {r['after_term_s']:.1f} s after SIGTERM" if "after_term_s" in r else ""
    return f"{describe(r)}{after}"


@case("bad-host")
def bad_host(root: Path, work: Path) -> str:
    r = run(root, ["serve", "--source", "demo", "--host", "999.1.1.1"], timeout=60)
    return describe(r)


@case("disk-full")
def disk_full(root: Path, work: Path) -> str:
    """A 2 MB tmpfs in a private mount namespace holds the recording; a ballast file fills it."""
    script = work / "full.sh"
    port = free_port()
    script.write_text(f"""set -e
mkdir -p {work}/mnt
mount -t tmpfs -o size=2m tmpfs {work}/mnt
exec {root}/.venv/bin/campo serve --source demo --record {work}/mnt/game.db --port {port}
""")
    proc = subprocess.Popen(["unshare", "-m", "sh", str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, errors="replace")
    url = f"http://127.0.0.1:{port}"
    mnt = Path(f"/proc/{proc.pid}/root{work}/mnt")
    try:
        for _ in range(300):
            try:
                httpx.get(url + "/api/status", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        time.sleep(3)
        ballast = mnt / "ballast"
        with open(ballast, "wb", buffering=0) as fh:
            try:
                while True:
                    fh.write(b"\0" * 65536)
                    fh.flush()
            except OSError:
                pass
        time.sleep(5)
        status_full = httpx.get(url + "/api/status", timeout=10).json()
        ballast.unlink()
        time.sleep(8)
        status_after = httpx.get(url + "/api/status", timeout=10).json()
        size_before_stop = (mnt / "game.db").stat().st_size
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    tb = err.count("Traceback")
    return (f"/api/status while full: recording={status_full.get('recording', 'absent')}; after space returned: "
            f"{status_after.get('recording', 'absent')}; file {size_before_stop} bytes; Ctrl-C exit {proc.returncode}, "
            f"{tb} tracebacks; last line {err.strip().splitlines()[-1][:120] if err.strip() else ''!r}")


def _ro(work: Path, inner: str) -> list[str]:
    """Run `inner` (sh) in a private mount namespace where `work/ro` is mounted read-only."""
    return ["unshare", "-m", "sh", "-c",
            f"mount --bind {work}/ro {work}/ro && mount -o remount,ro,bind {work}/ro && {inner}"]


def _run_raw(cmd: list[str], timeout: float = 60) -> dict[str, Any]:
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")
    lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
    return {"rc": p.returncode, "err": lines[-1][:160] if lines else "", "s": time.monotonic() - t0, "mb": 0.0,
            "lines": len(lines)}


@case("read-only")
def read_only(root: Path, work: Path) -> str:
    ro = work / "ro"
    ro.mkdir()
    make_recording(ro / "game.db")
    campo = root / ".venv/bin/campo"
    r1 = _run_raw(_ro(work, f"{campo} export {ro}/game.db --json > /dev/null"))
    r2 = _run_raw(_ro(work, f"timeout -s INT 15 {campo} serve --source demo --record {ro}/new.db "
                            f"--port {free_port()}"), timeout=40)
    r3 = run(root, ["export", str(ro / "game.db"), "--json", "-o", "/missing/dir/x.json"])
    return f"export from a read-only folder: {describe(r1)}; serve --record into it: {describe(r2)}; " \
           f"export -o /missing/dir/x.json: {describe(r3)}"


@case("damaged-recordings")
def damaged_recordings(root: Path, work: Path) -> str:
    good = work / "good.db"
    make_recording(good, seconds=30)
    out = []
    trunc = work / "trunc.db"
    data = good.read_bytes()
    trunc.write_bytes(data[:-1234])
    for fmt in ("--json", "--csv"):
        out.append(f"truncated export {fmt}: {describe(run(root, ['export', str(trunc), fmt]))}")
    out.append(f"truncated report: {describe(run(root, ['report', str(trunc), '-o', str(work / 'r.html')]))}")
    for label, sql, args in (
            ("bad delta", "UPDATE entries SET body = ? WHERE seq = (SELECT min(seq) FROM entries "
                          "WHERE encoding = 'delta')", (zlib.compress(b'{"bases": [1, 2]}'),)),
            ("non-numeric t", "UPDATE entries SET t = 'soon' WHERE seq = 3", ()),
            ("zlib bomb", "UPDATE entries SET body = ? WHERE seq = (SELECT min(seq) FROM entries "
                          "WHERE kind = 'state')", (_bomb(),))):
        path = work / f"{label.replace(' ', '-')}.db"
        shutil.copy(good, path)
        conn = sqlite3.connect(path)
        conn.execute(sql, args)
        conn.commit()
        conn.close()
        out.append(f"{label}: {describe(run(root, ['export', str(path), '--json'], timeout=120))}")
    return "; ".join(out)


def _bomb() -> bytes:
    c = zlib.compressobj(9)
    parts = [c.compress(b'{"ruleset": "italia-se-desta", "pad": "')]
    block = b"x" * (1 << 20)
    for _ in range(1000):   # ~1 GB of x, about 1 MB compressed
        parts.append(c.compress(block))
    parts.append(c.compress(b'"}'))
    parts.append(c.flush())
    return b"".join(parts)


@case("two-writers")
def two_writers(root: Path, work: Path) -> str:
    db = work / "game.db"
    with server(root, ["serve", "--source", "demo", "--record", str(db)], work):
        try:
            with server(root, ["serve", "--source", "demo", "--record", str(db)], work) as second:
                time.sleep(20)
                outcome = f"second accepted ({second.err[-1:]})"
        except RuntimeError as exc:
            outcome = f"second refused: {str(exc)[-160:]}"
    conn = sqlite3.connect(db)
    ts = [r[0] for r in conn.execute("SELECT t FROM entries ORDER BY seq")]
    conn.close()
    back = sum(1 for a, b in zip(ts, ts[1:]) if b < a)
    return f"{outcome}; t went backwards {back} times"


@case("unreadable-frame")
def unreadable_frame(root: Path, work: Path) -> str:
    frames = work / "frames"
    _demo_frames(frames, n=6)
    (frames / "f002.jpg").write_bytes(b"not an image")
    from campo.vision.synthetic.demo import DATA_DIR

    args = ["serve", "--source", str(frames), "--table", str(DATA_DIR / "table.toml"),
            "--roster", str(DATA_DIR / "roster.toml"), "--terrain", str(work / "t.json"), "--fps", "6"]
    with server(root, args, work) as srv:
        time.sleep(15)
        st = httpx.get(srv.url + "/api/status", timeout=10).json()
    cam = st["camera"]
    return (f"in 15 s: {cam['frames']} frames, {cam['reconnects']} reconnects, signal {cam['signal']}, "
            f"error {cam.get('error')!r}, skipped {cam.get('skipped')}")


@case("no-signal")
def no_signal(root: Path, work: Path) -> str:
    frames = work / "frames"
    _demo_frames(frames, n=3)
    from campo.vision.synthetic.demo import DATA_DIR

    args = ["serve", "--source", str(frames), "--table", str(DATA_DIR / "table.toml"),
            "--roster", str(DATA_DIR / "roster.toml"), "--terrain", str(work / "t.json"), "--fps", "6"]
    with server(root, args, work) as srv:
        time.sleep(8)
        seen = httpx.get(srv.url + "/api/status", timeout=10).json()
        shutil.rmtree(frames)
        time.sleep(4)
        st = httpx.get(srv.url + "/api/status", timeout=10).json()
    return (f"with signal: located {seen['table_located']}, {seen['bases_seen']} bases; no signal "
            f"(signal {st['camera']['signal']}): located {st['table_located']}, {st['bases_seen']} bases")


@case("fifty-clients")
def fifty_clients(root: Path, work: Path) -> str:
    """50 WebSocket clients on the demo: capture -> state received, p50/p95, and message size."""
    from websockets.sync.client import connect

    with server(root, ["serve", "--source", "demo"], work) as srv:
        time.sleep(5)
        url = srv.url.replace("http", "ws") + "/ws"
        lat: list[float] = []
        sizes: list[int] = []
        stop = time.monotonic() + 20

        def watch() -> None:
            with connect(url, open_timeout=30, max_size=2**24) as ws:
                while time.monotonic() < stop:
                    try:
                        text = ws.recv(timeout=2)
                    except TimeoutError:
                        continue
                    msg = json.loads(text)
                    if msg["topic"] == "state" and msg["payload"].get("live", {}).get("captured_unix"):
                        lat.append(1000 * (time.time() - msg["payload"]["live"]["captured_unix"]))
                        sizes.append(len(text))

        threads = [threading.Thread(target=watch) for _ in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    lat.sort()
    if not lat:
        return "no states received"
    return (f"{len(lat)} states received by 50 clients in 20 s: latency p50 {lat[len(lat) // 2]:.0f} ms, "
            f"p95 {lat[int(len(lat) * 0.95)]:.0f} ms; state messages {sum(sizes) / len(sizes) / 1024:.0f} KB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, required=True, help="the Campo tree (with its .venv) to attack")
    parser.add_argument("--only", help="comma-separated case names (default: all)")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(CASES)
    for name in names:
        work = Path(tempfile.mkdtemp(prefix=f"campo-{name}-"))
        try:
            outcome = CASES[name](args.root.resolve(), work)
        except Exception as exc:  # noqa: BLE001 - the harness reports and goes on
            outcome = f"HARNESS ERROR {type(exc).__name__}: {exc}"
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(f"| {name} | {outcome} |", flush=True)


if __name__ == "__main__":
    main()
