"""Where a live frame's time goes: the server's per-frame step, in-process, frame by frame.

`bench/server_latency.py` measures capture -> browser through a real server, where the machine's
other load, Chromium and the capture thread all add wall time. This runs the same step
(`LiveTracker._process`: pipeline, then the engine when the game changed) on the same dense
battle, one frame after another with no threads, and prints for each frame the wall and CPU time
(a frame much slower in wall time than in CPU time waited for the machine, not for our work),
the garbage collector's pauses by generation, and which frames were full scans.

    .venv/bin/python bench/live_frames.py [--bases 100] [--size 1920x1080] [--passes 4] [--freeze]

``--freeze``: `gc.freeze()` after the first pass (what freezing the objects alive after start-up
would save in the collector's full passes).
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bases", type=int, default=100)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--passes", type=int, default=4, help="passes over the 24 frames (the first is warm-up)")
    parser.add_argument("--freeze", action="store_true", help="gc.freeze() after the first pass")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    from server_latency import dense_files, render_dense

    from campo.server.app import build_services
    from campo.server.rig import ServerSettings
    from campo.server.sources import Frame

    work = Path(tempfile.mkdtemp(prefix="campo-frames-"))
    try:
        table, roster, scenario = dense_files(work / "files", args.bases)
        print(f"rendering 24 frames of {args.bases} bases at {size[0]}x{size[1]} ...", flush=True)
        render_dense(work / "moving", table, roster, scenario, 24, size)
        tracker = build_services(ServerSettings(source=str(work / "moving"), table=table, roster=roster,
                                                setup_file=work / "terrain.json", port=1)).tracker
        images = [cv2.imread(str(p)) for p in sorted((work / "moving").glob("*.jpg"))]
        pauses: list[tuple[int, float]] = []   # (generation, ms)
        started: list[float] = []

        def on_gc(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                started.append(time.perf_counter())
            elif started:
                pauses.append((info["generation"], (time.perf_counter() - started.pop()) * 1000))

        gc.callbacks.append(on_gc)
        rows = []
        t = 1000.0
        for n in range(args.passes):
            if n == 1:
                pauses.clear()
                if args.freeze:
                    gc.collect()
                    gc.freeze()
            for i, image in enumerate(images):
                t += 0.1
                analyses, gcs = tracker.analyses, len(pauses)
                w0, c0 = time.perf_counter(), time.process_time()
                tracker._process(Frame(image, t, time.time(), n * len(images) + i + 1))
                wall, cpu = (time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000
                result = tracker._last_result
                if n:
                    rows.append((i, result.full_scan, tracker._frame_ms[1],
                                 tracker._analysis_ms if tracker.analyses > analyses else 0.0,
                                 wall, cpu, sum(ms for _, ms in pauses[gcs:])))
        gc.callbacks.remove(on_gc)
        print("frame full  pipeline  analysis   wall    cpu   gc (ms)")
        for r in rows:
            print(f"{r[0]:5d} {'yes' if r[1] else '   '} {r[2]:9.1f} {r[3]:9.1f} {r[4]:6.1f} {r[5]:6.1f} {r[6]:5.1f}")
        a = np.array([r[2:] for r in rows])
        for k, name in enumerate(["pipeline", "analysis (when run)", "wall", "cpu"]):
            vals = a[:, k][a[:, k] > 0] if k == 1 else a[:, k]
            print(f"{name}: p50 {np.percentile(vals, 50):.1f} ms, p95 {np.percentile(vals, 95):.1f} ms, "
                  f"max {vals.max():.1f} ms")
        for g in (0, 1, 2):
            ms = [p for gen, p in pauses if gen == g]
            if ms:
                print(f"gc generation {g}: {len(ms)} pauses, mean {np.mean(ms):.1f} ms, max {max(ms):.1f} ms")
        print(f"{sum(r[1] for r in rows)} full scans in {len(rows)} frames; "
              f"load average {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
