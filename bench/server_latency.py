"""End-to-end latency of the live server, and its CPU use when the table is still.

1. Latency: the demo game pre-rendered at 1080p to JPEG files is played by a folder source at
   the camera rate (a webcam hands us decoded frames; the synthetic camera's render cost is left
   out). The folder source stamps a frame's capture time after decoding its JPEG (4K: ~29 ms
   CPU), so the decode is not in the latency, though it runs on the capture thread beside the
   pipeline and takes its share of the cores. A real uvicorn server on a loopback port serves
   headless Chromium, whose page records, for every `state` it receives, now - the frame's
   capture time (same machine, same clock):
   p50 / p95 on arrival and after the table is redrawn.
2. CPU while idle: the same server watching a still table (frames still arrive and are
   processed, nothing changes, the engine does not run), then with no signal at all.

    .venv/bin/python bench/server_latency.py [--seconds 20] [--fps 15] [--size 1920x1080]
    .venv/bin/python bench/server_latency.py --bases 100 --size 3840x2160 --fps 10 [--latency-only]

With ``--bases N`` the table is not the demo's 18 bases but a dense "L'Italia s'è desta!"
battle of N bases on a 6' x 4' table (bench/battles.py), its markers rendered by the synthetic
camera, one unit advancing 4 cm per frame while the rest stand; it also prints the size of the
WebSocket `state` messages per base (issue 13: at most 400 bytes, terrain included).

Numbers are noisy on a shared machine; they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def render_demo(folder: Path, frames: int, fps: float, size: tuple[int, int], start_s: float) -> None:
    from campo.vision.synthetic.demo import DemoCamera

    cam = DemoCamera(size=size)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(frames):
        image = cam.render(start_s + i / fps).image
        cv2.imwrite(str(folder / f"f{i:04d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])


def dense_files(folder: Path, n: int) -> tuple[Path, Path, dict]:
    """table.toml and roster.toml of a dense ISD battle of ``n`` bases (markers 10 and up, 25 mm
    on 3 mm bases), and its scenario."""
    from battles import dense_battle

    from campo.vision.tabletop import Anchor, Roster, RosterBase, TableConfig, TableSpec, dump_roster, dump_table

    scenario = dense_battle("italia-se-desta", n)
    w, d = scenario["table"]["width_mm"], scenario["table"]["depth_mm"]
    table = TableConfig(table=TableSpec(width_mm=w, depth_mm=d, dictionary="DICT_4X4_250"),
                        anchors=[Anchor(marker=k, x_mm=x, y_mm=y, size_mm=40.0) for k, (x, y) in
                                 enumerate([(30, 30), (w - 30, 30), (w - 30, d - 30), (30, d - 30)])])
    roster = Roster(ruleset="italia-se-desta", bases=[
        RosterBase(marker=10 + k, id=b["id"], side=b["side"], type=b["type"], width_mm=b["width_mm"],
                   depth_mm=b["depth_mm"], marker_size_mm=min(25.0, b["width_mm"] - 4, b["depth_mm"] - 4),
                   height_mm=3.0, traits=b["traits"]) for k, b in enumerate(scenario["bases"])])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "table.toml").write_text(dump_table(table))
    (folder / "roster.toml").write_text(dump_roster(roster))
    return folder / "table.toml", folder / "roster.toml", scenario


def render_dense(folder: Path, table_path: Path, roster_path: Path, scenario: dict, frames: int,
                 size: tuple[int, int]) -> None:
    """Frames of the dense battle: one unit advances 40 mm a frame (back to the start every 8)."""
    from battles import moved_unit

    from campo.server.roster import load_checked_roster
    from campo.vision.camera_model import Intrinsics
    from campo.vision.synthetic import Effects, PlacedBase, SyntheticCamera, overhead
    from campo.vision.tabletop import load_table

    table = load_table(table_path)
    by_id = load_checked_roster(roster_path, table).by_id()
    intr = Intrinsics.ideal(size[0], size[1], 60)
    cam = SyntheticCamera(table, intr, overhead(table, intr), effects=Effects.typical(), seed=1, terrain=[])
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(frames):
        moment = moved_unit(scenario, dy=40.0 * (i % 8))
        bases = [PlacedBase(by_id[b["id"]], b["x_mm"], b["y_mm"], b["heading_deg"]) for b in moment["bases"]]
        cv2.imwrite(str(folder / f"f{i:04d}.jpg"), cam.render(bases).image, [cv2.IMWRITE_JPEG_QUALITY, 95])


def serve(folder: Path, fps: float, setup: Path, table: Path | None = None,
          roster: Path | None = None):  # type: ignore[no-untyped-def]
    from campo.server.rig import ServerSettings
    from campo.server.runner import ServerThread, free_port
    from campo.vision.synthetic.demo import DATA_DIR

    settings = ServerSettings(source=str(folder), table=table or DATA_DIR / "table.toml",
                              roster=roster or DATA_DIR / "roster.toml",
                              setup_file=setup, port=free_port(), fps=fps)
    return ServerThread(settings)


def cpu_percent(seconds: float) -> float:
    c0, t0 = time.process_time(), time.monotonic()
    time.sleep(seconds)
    return 100.0 * (time.process_time() - c0) / (time.monotonic() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the browser watches")
    parser.add_argument("--fps", type=float, default=15.0)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--frames", type=int, default=150, help="demo frames rendered (played in a loop)")
    parser.add_argument("--bases", type=int, default=0,
                        help="a dense battle of this many bases instead of the demo game")
    parser.add_argument("--latency-only", action="store_true", help="skip the CPU measurements")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    from playwright.sync_api import sync_playwright

    from campo.vision.synthetic.demo import DATA_DIR

    work = Path(tempfile.mkdtemp(prefix="campo-bench-"))
    try:
        files: tuple[Path | None, Path | None] = (None, None)
        if args.bases:
            table, roster, scenario = dense_files(work / "files", args.bases)
            files = (table, roster)
            frames_n = min(args.frames, 24)
            print(f"rendering {frames_n} frames of {args.bases} bases at {size[0]}x{size[1]} ...", flush=True)
            render_dense(work / "moving", table, roster, scenario, frames_n, size)
        else:
            print(f"rendering {args.frames} demo frames at {size[0]}x{size[1]} ...", flush=True)
            render_demo(work / "moving", args.frames, args.fps, size, start_s=10.0)  # t = 10 s: the armies advance
        shutil.copy(DATA_DIR / "terrain.json", work / "unused-terrain.json")
        with serve(work / "moving", args.fps, work / "terrain.json", *files) as srv, sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{srv.url}/")
            page.wait_for_function("window.campo.statesReceived > 2", timeout=60000)
            page.evaluate("window.campo.latenciesMs = []; window.campo.drawnLatenciesMs = []")
            frames0, analyses0 = srv.services.tracker.frames, srv.services.tracker.analyses
            lives: list[dict] = []
            sizes: list[float] = []

            def on_state(r) -> None:  # type: ignore[no-untyped-def]
                if r.topic == "state" and r.payload["live"]["frame"]:
                    lives.append(r.payload["live"])
                    text = json.dumps({"topic": "state", "seq": 0, "payload": r.payload}, separators=(",", ":"))
                    sizes.append(len(text.encode()) / max(1, len(r.payload["bases"])))

            unsubscribe = srv.services.hub.subscribe(on_state)
            time.sleep(args.seconds)
            unsubscribe()
            arrived = page.evaluate("window.campo.latenciesMs")
            drawn = page.evaluate("window.campo.drawnLatenciesMs")
            frames = srv.services.tracker.frames - frames0
            analyses = srv.services.tracker.analyses - analyses0
            dropped = srv.services.capture.status().dropped
            browser.close()
        print(f"latency, capture -> state in Chromium ({len(arrived)} states over {args.seconds:g} s; "
              f"{frames / args.seconds:.1f} frames/s processed, {analyses} analyses, {dropped} frames dropped; "
              f"load average {os.getloadavg()[0]:.1f}):")
        print(f"  on arrival: p50 {np.percentile(arrived, 50):.0f} ms, p95 {np.percentile(arrived, 95):.0f} ms, "
              f"max {max(arrived):.0f} ms")
        print(f"  table redrawn: p50 {np.percentile(drawn, 50):.0f} ms, p95 {np.percentile(drawn, 95):.0f} ms")
        print(f"  state messages: {statistics.mean(sizes):.0f} bytes per base on average "
              f"(max {max(sizes):.0f}), {len(lives)} states")
        for key in ("queued_ms", "pipeline_ms", "analysis_ms"):
            vals = [lv[key] for lv in lives]
            print(f"  of which {key[:-3]}: p50 {np.percentile(vals, 50):.0f} ms, p95 {np.percentile(vals, 95):.0f} ms")
        server = [1000 * (lv["published_unix"] - lv["captured_unix"]) for lv in lives]
        print(f"  capture -> published by the server: p50 {np.percentile(server, 50):.0f} ms, "
              f"p95 {np.percentile(server, 95):.0f} ms")

        if args.latency_only:
            return
        still = work / "still"
        still.mkdir()
        shutil.copy(work / "moving" / "f0000.jpg", still / "f0000.jpg")
        with serve(still, args.fps, work / "terrain.json", *files) as srv:
            time.sleep(3)  # settle
            busy = cpu_percent(10)
            fps = srv.services.tracker.status()["fps"]
            analyses0 = srv.services.tracker.analyses
            shutil.rmtree(still)  # the camera is unplugged
            time.sleep(2)
            no_signal = cpu_percent(10)
            assert srv.services.tracker.analyses == analyses0
        print(f"CPU, still table at {fps:.1f} fps (pipeline runs, engine idle): {busy:.0f} % of one core")
        print(f"CPU, no signal (reconnect back-off only): {no_signal:.1f} % of one core")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
