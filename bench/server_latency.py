"""End-to-end latency of the live server, and its CPU use when the table is still.

1. Latency: the demo game pre-rendered at 1080p to JPEG files is played by a folder source at
   the camera rate (a webcam hands us decoded frames; the synthetic camera's render cost is left
   out). A real uvicorn server on a loopback port serves headless Chromium, whose page records,
   for every `state` it receives, now - the frame's capture time (same machine, same clock):
   p50 / p95 on arrival and after the table is redrawn.
2. CPU while idle: the same server watching a still table (frames still arrive and are
   processed, nothing changes, the engine does not run), then with no signal at all.

    .venv/bin/python bench/server_latency.py [--seconds 20] [--fps 15] [--size 1920x1080]

Numbers are noisy on a shared machine; they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np


CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def render_demo(folder: Path, frames: int, fps: float, size: tuple[int, int], start_s: float) -> None:
    from campo.vision.synthetic.demo import DemoCamera

    cam = DemoCamera(size=size)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(frames):
        image = cam.render(start_s + i / fps).image
        cv2.imwrite(str(folder / f"f{i:04d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])


def serve(folder: Path, fps: float, setup: Path):  # type: ignore[no-untyped-def]
    from campo.server.rig import ServerSettings
    from campo.server.runner import ServerThread, free_port
    from campo.vision.synthetic.demo import DATA_DIR

    settings = ServerSettings(source=str(folder), table=DATA_DIR / "table.toml", roster=DATA_DIR / "roster.toml",
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
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    from playwright.sync_api import sync_playwright

    from campo.vision.synthetic.demo import DATA_DIR

    work = Path(tempfile.mkdtemp(prefix="campo-bench-"))
    try:
        print(f"rendering {args.frames} demo frames at {size[0]}x{size[1]} ...", flush=True)
        render_demo(work / "moving", args.frames, args.fps, size, start_s=10.0)  # t = 10 s: the armies advance
        shutil.copy(DATA_DIR / "terrain.json", work / "unused-terrain.json")
        with serve(work / "moving", args.fps, work / "terrain.json") as srv, sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{srv.url}/")
            page.wait_for_function("window.campo.statesReceived > 2", timeout=60000)
            page.evaluate("window.campo.latenciesMs = []; window.campo.drawnLatenciesMs = []")
            frames0, analyses0 = srv.services.tracker.frames, srv.services.tracker.analyses
            lives: list[dict] = []
            unsubscribe = srv.services.hub.subscribe(
                lambda r: lives.append(r.payload["live"]) if r.topic == "state" and r.payload["live"]["frame"] else None)
            time.sleep(args.seconds)
            unsubscribe()
            arrived = page.evaluate("window.campo.latenciesMs")
            drawn = page.evaluate("window.campo.drawnLatenciesMs")
            frames = srv.services.tracker.frames - frames0
            analyses = srv.services.tracker.analyses - analyses0
            dropped = srv.services.capture.status().dropped
            browser.close()
        print(f"latency, capture -> state in Chromium ({len(arrived)} states over {args.seconds:g} s; "
              f"{frames / args.seconds:.1f} frames/s processed, {analyses} analyses, {dropped} frames dropped):")
        print(f"  on arrival: p50 {np.percentile(arrived, 50):.0f} ms, p95 {np.percentile(arrived, 95):.0f} ms, "
              f"max {max(arrived):.0f} ms")
        print(f"  table redrawn: p50 {np.percentile(drawn, 50):.0f} ms, p95 {np.percentile(drawn, 95):.0f} ms")
        for key in ("queued_ms", "pipeline_ms", "analysis_ms"):
            vals = [lv[key] for lv in lives]
            print(f"  of which {key[:-3]}: p50 {np.percentile(vals, 50):.0f} ms, p95 {np.percentile(vals, 95):.0f} ms")
        server = [1000 * (lv["published_unix"] - lv["captured_unix"]) for lv in lives]
        print(f"  capture -> published by the server: p50 {np.percentile(server, 50):.0f} ms, "
              f"p95 {np.percentile(server, 95):.0f} ms")

        still = work / "still"
        still.mkdir()
        shutil.copy(work / "moving" / "f0000.jpg", still / "f0000.jpg")
        with serve(still, args.fps, work / "terrain.json") as srv:
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
