"""A 180 x 120 cm table with 16 mm markers: two 1080p cameras against one 1080p and one 4K camera.

The table (`vision/synthetic/demo_wide.wide_table`: six 40 mm anchors, four in the corners and two
mid-way along the long edges, in the band both halves see) holds `--bases` bases on a jittered
grid over the whole table plus `--seam` bases in the band x = 800..1000 mm around the seam (some
wholly in both cameras' views, some cut by one camera's edge). Camera rigs:

- `2x1080p`: two 1080p cameras straight down over each half, turned a quarter (the demo's
  two-camera mode: `demo_wide.half_pose`, ~1.08 px/mm, overlap x = 820..980 mm);
- `1x1080p`: one 1080p camera straight down over the whole table (~0.76 px/mm at 4 % margin);
- `1x4K`: one 4K camera the same (~1.5 px/mm).

Scene styles: `synthetic`, the project's own synthetic camera (`vision/synthetic`: 62 degree lens
with barrel distortion, 3 mm bases, typical webcam effects, cloth, terrain clutter); `warp` and
`exact`, the independent renderers of `bench/vision_render.py` (pinhole, markers flat on the
cloth, blur and noise), which Campo was not tuned on. Every rig goes through
`calibration.cameras.CameraRig` (one camera: the same code, fusion of one).

Per rig and style, over `--seeds` scenes: recall (bases given a pose within `GROSS_MM` of the
truth, over all bases on the table), median and p95 position error of the fused base centres
(mm), gross errors (posed > `GROSS_MM` off), bases read by two cameras, bases doubled (one id
given twice: fusion is by marker id, so this must be 0) and disagreements (reported, no pose),
and CPU ms per fused frame (`time.process_time`, all cameras and the fusion): `cold` is the
first frame (full scans), `track` a second frame of the same scene with fresh sensor noise,
`rescan` a third 6 s later (the pipelines' periodic full scan, knowing where the bases are).

`--demo FPS`: instead, the demo's two-camera mode (`campo serve --source demo --source demo`)
over its whole game, bases moving across the seam: rounds in which a base that either camera
shows whole was stale, the tracked error, CPU ms per round.

Usage: .venv/bin/python bench/two_cameras.py [--seeds 3] [--bases 100] [--seam 30]
       [--rigs 2x1080p,1x1080p,1x4K] [--styles synthetic,warp]
       .venv/bin/python bench/two_cameras.py --demo 5
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import vision_render as vr  # noqa: E402

from campo.calibration.cameras import CameraFrame, CameraRig, RigResult  # noqa: E402
from campo.calibration.registration import anchor_corners, square_corners  # noqa: E402
from campo.vision.camera_model import Intrinsics  # noqa: E402
from campo.vision.synthetic import Effects, PlacedBase, SyntheticCamera, overhead  # noqa: E402
from campo.vision.synthetic.demo import demo_intrinsics  # noqa: E402
from campo.vision.synthetic.demo_wide import half_pose, wide_table  # noqa: E402
from campo.vision.synthetic.pose import CameraPose  # noqa: E402
from campo.vision.tabletop import Roster, RosterBase, TableConfig  # noqa: E402

GROSS_MM = 10.0
MARKER_MM = 16.0
SEAM_BAND_MM = (800.0, 1000.0)
SPACING_MM = 45.0
"""Bases in the seam band are placed at least this far from any other (30 x 20 mm bases never touch)."""


@dataclass(frozen=True)
class View:
    """One camera of a rig: its name, optics and pose."""

    name: str
    intrinsics: Intrinsics
    pose: CameraPose


def rig_views(rig: str, pinhole: bool) -> list[View]:
    """The cameras of a rig (`pinhole`: no lens distortion, for the independent renderers)."""
    table = wide_table()

    def optics(size: tuple[int, int]) -> Intrinsics:
        return Intrinsics.ideal(size[0], size[1], 62.0) if pinhole else demo_intrinsics(size)

    if rig == "2x1080p":
        intr = optics((1920, 1080))
        return [View(f"cam{i + 1}", intr, half_pose(intr, i)) for i in range(2)]
    size = {"1x1080p": (1920, 1080), "1x4K": (3840, 2160)}[rig]
    intr = optics(size)
    return [View("cam1", intr, overhead(table, intr, margin=1.04))]


def px_per_mm(views: list[View], height_mm: float) -> float:
    """Image pixels per table mm at the middle of each camera's view (the mean over the rig)."""
    from campo.calibration.registration import TableLocation

    out = []
    for v in views:
        loc = TableLocation(True, "pnp", rvec=v.pose.rvec, tvec=v.pose.tvec)
        c = v.pose.centre_mm
        px = loc.project(np.array([[c[0], c[1], height_mm], [c[0] + 10.0, c[1], height_mm]]), v.intrinsics)
        out.append(float(np.linalg.norm(px[1] - px[0])) / 10.0)
    return float(np.mean(out))


def make_scene(seed: int, n_grid: int, n_seam: int, height_mm: float) -> tuple[Roster, list[PlacedBase]]:
    """`n_grid` bases on a jittered grid over the table and `n_seam` in the seam band."""
    rng = np.random.default_rng(seed)
    w, d = 1800.0, 1200.0
    cols = int(math.ceil(math.sqrt(n_grid * w / d)))
    rows = int(math.ceil(n_grid / cols))
    spots = [(100 + (i % cols + 0.5) * (w - 200) / cols + rng.uniform(-20, 20),
              100 + (i // cols + 0.5) * (d - 200) / rows + rng.uniform(-20, 20)) for i in range(n_grid)]
    seam: list[tuple[float, float]] = []
    for _ in range(200 * n_seam):  # random places in the band, none within SPACING_MM of another base
        if len(seam) == n_seam:
            break
        x, y = float(rng.uniform(*SEAM_BAND_MM)), float(rng.uniform(110, d - 110))
        if all(math.hypot(x - a, y - b) >= SPACING_MM for a, b in spots + seam):
            seam.append((x, y))
    if len(seam) < n_seam:
        raise SystemExit(f"only {len(seam)} of {n_seam} bases fit in the seam band {SEAM_BAND_MM} mm")
    spots += seam
    roster, placed = [], []
    for i, (x, y) in enumerate(spots):
        base = RosterBase.model_validate({
            "marker": 10 + i, "id": f"b{i:03d}", "side": "AB"[i % 2], "type": "B", "width_mm": 30.0,
            "depth_mm": 20.0, "marker_size_mm": MARKER_MM, "marker_offset_mm": [0.0, 0.0],
            "marker_rotation_deg": 0.0, "height_mm": height_mm})
        roster.append(base)
        placed.append(PlacedBase(base, float(x), float(y), float(rng.uniform(0, 360))))
    return Roster(ruleset="italia-se-desta", bases=roster), placed


def synthetic_renderer(table: TableConfig, view: View, seed: int) -> Callable[[list[PlacedBase], int], np.ndarray]:
    """The project's synthetic camera (each render draws fresh sensor noise)."""
    cam = SyntheticCamera(table, view.intrinsics, view.pose, effects=Effects.typical(), seed=seed)
    return lambda placed, k: cam.render(placed).image


def flat_renderer(style: str, table: TableConfig, view: View, seed: int) -> Callable[[list[PlacedBase], int], np.ndarray]:
    """`bench/vision_render.py`'s `style` renderer: markers flat on a cloth with clutter, pinhole."""
    w, h = view.intrinsics.image_size
    cam = vr.Camera((w, h), view.intrinsics.camera_matrix, view.pose.rvec, view.pose.tvec)
    background = vr.clutter(vr.cloth((w, h), seed), seed + 1, count=int(60 * w * h / (1920 * 1080)))
    anchors = [vr.Marker(table.table.dictionary, a.marker, anchor_corners(a)[:, :2]) for a in table.anchors]

    def render(placed: list[PlacedBase], k: int) -> np.ndarray:
        markers = anchors + [vr.Marker(table.table.dictionary, pb.base.marker,
                                       square_corners((pb.x_mm, pb.y_mm), MARKER_MM, pb.heading_deg)[:, :2])
                             for pb in placed]
        scene = vr.Scene(cam, markers, background, style, vr.Effects(blur_px=0.7, noise=2.5, seed=seed * 100 + k))
        gray = scene.render()
        return cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
    return render


@dataclass
class Tally:
    found: int = 0
    total: int = 0
    gross: int = 0
    both: int = 0
    doubled: int = 0
    disagreements: int = 0
    errors: list[float] | None = None
    cold_ms: list[float] | None = None
    track_ms: list[float] | None = None
    rescan_ms: list[float] | None = None
    px_per_mm: float = 0.0

    def __post_init__(self) -> None:
        self.errors, self.cold_ms, self.track_ms, self.rescan_ms = [], [], [], []


def score(result: RigResult, placed: list[PlacedBase], tally: Tally) -> None:
    truth = {pb.base.id: pb for pb in placed}
    ids = [b.id for b in result.fused.bases]
    tally.total += len(placed)
    tally.doubled += len(ids) - len(set(ids))
    tally.both += sum(1 for cams in result.fused.seen_by.values() if len(cams) > 1)
    tally.disagreements += len(result.fused.disagreements)
    for b in result.fused.bases:
        t = truth[b.id]
        err = math.hypot(b.x_mm - t.x_mm, b.y_mm - t.y_mm)
        if err > GROSS_MM:
            tally.gross += 1
        else:
            tally.found += 1
            tally.errors.append(err)  # type: ignore[union-attr]


def run(rig_name: str, style: str, seeds: list[int], n_grid: int, n_seam: int) -> Tally:
    table = wide_table()
    tally = Tally()
    tally.px_per_mm = px_per_mm(rig_views(rig_name, pinhole=style != "synthetic"), 0.0)
    for seed in seeds:
        roster, placed = make_scene(seed, n_grid, n_seam, 3.0 if style == "synthetic" else 0.0)
        views = rig_views(rig_name, pinhole=style != "synthetic")
        renders = [synthetic_renderer(table, v, seed) if style == "synthetic" else flat_renderer(style, table, v, seed)
                   for v in views]
        rig = CameraRig(table, roster, [(v.name, v.intrinsics) for v in views])
        # frame 0: cold (full scans); 1: tracking (scored); 2: 6 s later, the periodic full scan
        for k, t in enumerate((1.0, 1.5, 7.5)):
            frames = [CameraFrame(v.name, r(placed, k), t) for v, r in zip(views, renders)]
            c0 = time.process_time()
            result = rig.process(frames)
            ms = (time.process_time() - c0) * 1000
            (tally.cold_ms, tally.track_ms, tally.rescan_ms)[k].append(ms)  # type: ignore[union-attr]
            if k == 1:
                score(result, placed, tally)
    return tally


def row(rig_name: str, style: str, t: Tally) -> str:
    e = np.array(t.errors) if t.errors else np.array([np.nan])
    return (f"{rig_name:9s} {style:9s} {t.px_per_mm:6.2f} {100 * t.found / max(t.total, 1):7.2f}% {t.found:4d}/{t.total:<4d} "
            f"{np.median(e):8.3f} {np.percentile(e, 95):8.3f} {t.gross:5d} {t.both:5d} {t.doubled:7d} {t.disagreements:6d} "
            f"{np.median(t.cold_ms):8.1f} {np.median(t.track_ms):8.1f} {np.median(t.rescan_ms):9.1f}")


def run_demo(fps: float) -> str:
    """The demo's two-camera mode over its whole 90 s game at `fps` rounds a second: rounds in
    which a base whose marker either camera shows whole was stale, the tracked error, CPU."""
    from campo.vision.synthetic.demo_wide import WideDemo

    demo = WideDemo()
    game = demo.game
    rig = CameraRig(game.table, game.roster, [("cam1", demo.intrinsics), ("cam2", demo.intrinsics)])
    rounds = int(game.duration_s * fps)
    stale_rounds, stale_bases, errors, cpu = 0, 0, [], 0.0
    for k in range(rounds):
        t = k / fps
        renders = [demo.render(i, t) for i in range(2)]
        c0 = time.process_time()
        result = rig.process([CameraFrame(f"cam{i + 1}", r.image, 1.0 + t) for i, r in enumerate(renders)])
        cpu += time.process_time() - c0
        shown = {m for r in renders for m, truth in r.truth.markers.items() if truth.visible_fraction >= 0.999}
        truth = {pb.base.id: pb for pb in game.poses_at(t)}
        stale = [b for b in result.tracked if b.stale and b.marker in shown]
        stale_rounds += bool(stale)
        stale_bases += len(stale)
        errors += [math.hypot(b.x_mm - truth[b.id].x_mm, b.y_mm - truth[b.id].y_mm) for b in result.tracked if not b.stale]
    e = np.array(errors)
    return (f"demo, two cameras, {fps:g} rounds/s over {game.duration_s:g} s ({rounds} rounds): rounds with a shown "
            f"base stale {stale_rounds}, stale base-rounds {stale_bases}; tracked position error median "
            f"{np.median(e):.2f} p95 {np.percentile(e, 95):.2f} max {e.max():.1f} mm (bases moving); "
            f"CPU ms per round {1000 * cpu / rounds:.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--bases", type=int, default=100, help="bases on the grid over the table")
    ap.add_argument("--seam", type=int, default=30, help="more bases in the seam band x = 800..1000 mm")
    ap.add_argument("--rigs", default="2x1080p,1x1080p,1x4K")
    ap.add_argument("--styles", default="synthetic,warp")
    ap.add_argument("--threads", type=int, default=1, help="OpenCV threads (1: CPU time counts only the work)")
    ap.add_argument("--demo", type=float, metavar="FPS",
                    help="instead: the demo's two-camera mode over its whole game at FPS rounds a second")
    args = ap.parse_args(argv)
    cv2.setNumThreads(args.threads)
    if args.demo:
        print(run_demo(args.demo))
        return 0
    seeds = list(range(1, args.seeds + 1))
    print(f"180 x 120 cm, {MARKER_MM:g} mm markers, {args.bases} bases + {args.seam} in the seam band, "
          f"seeds {seeds}; scored on the second frame; CPU ms per fused frame (median)")
    print(f"{'rig':9s} {'style':9s} {'px/mm':>6s} {'recall':>8s} {'found':>9s} {'pos_med':>8s} {'pos_p95':>8s} {'gross':>5s} "
          f"{'both':>5s} {'doubled':>7s} {'clash':>6s} {'cold_ms':>8s} {'track_ms':>8s} {'rescan_ms':>9s}")
    for style in args.styles.split(","):
        for rig_name in args.rigs.split(","):
            print(row(rig_name, style, run(rig_name, style, seeds, args.bases, args.seam)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
