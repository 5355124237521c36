"""Frames per second of the synthetic camera (vision/synthetic), at 1080p and 4K.

Usage: .venv/bin/python bench/synthetic_camera.py [--bases 60] [--frames 30] [--sizes 1080p,4k]
       [--effects clean,typical,dim] [--supersample 2] [--threads 2] [--no-demo]

Renders a table with N moving bases and a hand passing over it, through a mildly distorting
lens, and prints frames per second per (size, effects). The static table is rendered once
per size (its time is printed separately); each timed frame moves every base. A last line
times the demo game (18 bases, 1080p, typical effects).
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic import DemoCamera, Effects, Hand, PlacedBase, SyntheticCamera, overhead
from campo.vision.tabletop import Anchor, RosterBase, TableConfig, TableSpec

SIZES = {"720p": (1280, 720), "1080p": (1920, 1080), "4k": (3840, 2160)}


def make_table() -> TableConfig:
    w, d = 1800.0, 1200.0
    anchors = [Anchor(marker=i, x_mm=x, y_mm=y, size_mm=40.0) for i, (x, y) in
               enumerate([(40.0, 40.0), (w - 40, 40.0), (w - 40, d - 40), (40.0, d - 40)])]
    return TableConfig(table=TableSpec(width_mm=w, depth_mm=d), anchors=anchors)


def make_bases(n: int) -> list[RosterBase]:
    return [RosterBase(marker=10 + i, id=f"base-{i}", side="A" if i % 2 else "B", type="B", width_mm=80.0,
                       depth_mm=40.0, marker_size_mm=28.0, height_mm=3.0, traits={"arm": "infantry"})
            for i in range(n)]


def poses(bases: list[RosterBase], t: float) -> list[PlacedBase]:
    out = []
    cols = 10
    for i, b in enumerate(bases):
        x = 150 + (i % cols) * 165 + 20 * np.sin(t + i)
        y = 150 + (i // cols) * 150 + 15 * np.cos(0.7 * t + i)
        out.append(PlacedBase(b, float(x), float(y), float((90 + 20 * np.sin(0.5 * t + i)) % 360)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bases", type=int, default=60)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--sizes", default="1080p,4k")
    ap.add_argument("--effects", default="clean,typical,dim")
    ap.add_argument("--supersample", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2, help="OpenCV threads (the target machine has 2 cores)")
    ap.add_argument("--no-demo", dest="demo", action="store_false", help="skip the demo game's frames")
    args = ap.parse_args()
    cv2.setNumThreads(args.threads)
    table = make_table()
    bases = make_bases(args.bases)
    print(f"synthetic camera: {args.bases} bases + 1 hand, {args.frames} frames each, OpenCV threads={args.threads}, "
          f"supersample={args.supersample}")
    print("(fps is wall-clock; CPU ms/frame sums all threads, so 1000 / CPU ms is a floor on the speed with the")
    print(" machine to ourselves; on a shared machine the wall-clock fps understates it.)")
    for size_name in args.sizes.split(","):
        w, h = SIZES[size_name]
        intr = Intrinsics.ideal(w, h, 62, dist=(-0.06, 0.015, 0.0, 0.0, 0.0))
        pose = overhead(table, intr, tilt_deg=8)
        cam = SyntheticCamera(table, intr, pose, effects=Effects.clean(), seed=3, supersample=args.supersample)
        t0 = time.perf_counter()
        cam.static_image()
        static_s = time.perf_counter() - t0
        for eff_name in args.effects.split(","):
            effects = getattr(Effects, eff_name)()
            cam.render(poses(bases, 0.0), [Hand.reaching((900, -50), (800, 400))], effects=effects)  # warm caches
            t0, c0 = time.perf_counter(), time.process_time()
            for f in range(args.frames):
                t = f / 10
                hand = Hand.reaching((900 + 300 * np.sin(t), -50), (800 + 200 * np.sin(t), 300 + 150 * np.cos(t)))
                cam.render(poses(bases, t), [hand], effects=effects)
            fps = args.frames / (time.perf_counter() - t0)
            cpu_ms = (time.process_time() - c0) / args.frames * 1000
            print(f"{size_name:>6} {w}x{h}  {eff_name:<8} {fps:6.1f} fps wall  {cpu_ms:6.1f} ms CPU/frame "
                  f"(= {1000 / cpu_ms:5.1f} fps if the CPU were ours)  static layer {static_s:.2f} s")
    if args.demo:
        cam = DemoCamera()
        cam.render(0.0)
        t0, c0 = time.perf_counter(), time.process_time()
        for f in range(args.frames):
            cam.render(f / 15.0 + 40.0)  # 40 s in: the charge, then a hand over the melee
        fps = args.frames / (time.perf_counter() - t0)
        cpu_ms = (time.process_time() - c0) / args.frames * 1000
        print(f"  demo 1920x1080  typical  {fps:6.1f} fps wall  {cpu_ms:6.1f} ms CPU/frame "
              f"(= {1000 / cpu_ms:5.1f} fps if the CPU were ours)  {len(cam.game.roster.bases)} bases")


if __name__ == "__main__":
    main()
