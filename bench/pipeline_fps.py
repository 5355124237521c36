"""Per-frame cost of the live loop on the demo game: pipeline fps, engine time, render time.

Renders the demo frames first (the synthetic camera's own cost is reported apart: a real webcam
does not spend our CPU on it), then runs them through `FramePipeline.process` in order, and the
engine's `analyze` on the states that really changed (as `server/live.py` does).

    .venv/bin/python bench/pipeline_fps.py [--frames 60] [--fps 15] [--size 1920x1080]

Numbers are noisy on a shared machine; they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--fps", type=float, default=15.0, help="camera rate used to space frames in game time")
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--start", type=float, default=10.0, help="demo time of the first frame (s)")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))

    from campo.calibration.pipeline import FramePipeline
    from campo.engine import analyze
    from campo.server.game_state import PoseTolerance, pose_keys, poses_changed, scenario_from_tracking
    from campo.vision.synthetic.demo import DemoCamera

    cam = DemoCamera(size=(w, h))
    game = cam.game
    cam.render(0.0)  # the static layer, once
    renders, images = [], []
    for i in range(args.frames):
        t0 = time.perf_counter()
        images.append(cam.render(args.start + i / args.fps).image)
        renders.append((time.perf_counter() - t0) * 1000)

    pipeline = FramePipeline(game.table, game.roster, cam.intrinsics)
    size = (game.table.table.width_mm, game.table.table.depth_mm)
    per_frame, analyses, seen = [], [], []
    published: dict = {}
    wall0 = time.perf_counter()
    for i, image in enumerate(images):
        t0 = time.perf_counter()
        result = pipeline.process(image, args.start + i / args.fps)
        per_frame.append((time.perf_counter() - t0) * 1000)
        seen.append(sum(1 for b in result.tracked if not b.stale))
        keys = pose_keys(result.tracked)
        if poses_changed(published, keys, PoseTolerance()):
            t1 = time.perf_counter()
            analyze(scenario_from_tracking(game.roster, size, result.tracked, game.terrain))
            analyses.append((time.perf_counter() - t1) * 1000)
            published = keys
    wall = time.perf_counter() - wall0

    print(f"demo game from t = {args.start:g} s, {args.frames} frames at {w}x{h}, {len(game.roster.bases)} bases, "
          f"camera {args.fps:g} fps")
    print(f"  synthetic render (not part of the live cost): p50 {pct(renders, 50):.1f} ms")
    print(f"  pipeline per frame: p50 {pct(per_frame, 50):.1f} ms, p95 {pct(per_frame, 95):.1f} ms "
          f"-> {1000 / statistics.mean(per_frame):.1f} fps (pipeline alone)")
    print(f"  engine analyze on {len(analyses)} real changes: p50 {pct(analyses, 50):.1f} ms, p95 {pct(analyses, 95):.1f} ms")
    print(f"  live loop (pipeline + analysis when changed): {args.frames / wall:.1f} fps")
    print(f"  bases seen per frame: min {min(seen)}, median {statistics.median(seen):.0f} of {len(game.roster.bases)}")


if __name__ == "__main__":
    main()
