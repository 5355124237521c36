"""Vision accuracy benchmark: Campo against a plain OpenCV pipeline on the synthetic camera.

For each scenario (image size x table x number of bases, 16-18 mm markers) and condition
(a normal frame, a bumped camera, dim light) it renders frames with exact ground truth and
prints recall of visible markers, position and heading errors (median, p95), gross errors
(a base more than 10 mm off, or a phantom) and time per frame, for:

- peer: ArucoDetector tuned for small markers (minMarkerPerimeterRate 0.01,
  CORNER_REFINE_SUBPIX), solvePnP on the anchors, then the same height-correct plane geometry;
- campo-cold: Campo on the frame alone (what `campo detect` does: full scan);
- campo-track: Campo's FramePipeline after one earlier frame (search windows, edge tracking);
  for "bumped" the earlier frame was taken before the camera moved;
- still4 / still8 (dim light, a still scene): Campo's FramePipeline after N frames of the same
  scene at 2 fps (fresh sensor noise in each), which it averages where nothing moved
  (calibration/integration.py), against the peer on the last frame alone (a plain pipeline
  reads one frame); time is the median of frames 2..N (full scans and integration included).

Last (without --scenario), the demo game at 2 frames per second: bases moving between frames,
counted as stale while visible (the live server's field report).

Usage: .venv/bin/python bench/vision_accuracy.py [--scenario NAME ...] [--repeat N]
ms/frame is wall-clock (median of --repeat runs), cpu_ms the CPU time of all this process's
threads; on a shared machine wall-clock is inflated by the other load, CPU time much less. The
peer and campo-cold are timed in turn, round by round, so both see the same load.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

import cv2
import numpy as np


from campo.calibration.pipeline import FramePipeline  # noqa: E402
from campo.calibration.poses import PoseReport, base_poses  # noqa: E402
from campo.calibration.registration import TableLocation, anchor_corners  # noqa: E402
from campo.vision.camera_model import Intrinsics  # noqa: E402
from campo.vision.synthetic import Effects, PlacedBase, SyntheticCamera, look_at, overhead  # noqa: E402
from campo.vision.synthetic.truth import GroundTruth  # noqa: E402
from campo.vision.tabletop import Roster, RosterBase, TableConfig  # noqa: E402

GROSS_MM = 10.0
STILL_FRAMES = (4, 8)
STILL_INTERVAL_S = 0.5


@dataclass(frozen=True)
class Scenario:
    name: str
    width_px: int
    height_px: int
    table_mm: tuple[float, float]
    bases: int
    margin: float  # how much wider than the table the view is (sets px per mm)


SCENARIOS = [
    Scenario("4k-180x120", 3840, 2160, (1800.0, 1200.0), 120, 1.15),
    Scenario("1080p-120x80", 1920, 1080, (1200.0, 800.0), 60, 1.15),
    Scenario("1080p-180x120", 1920, 1080, (1800.0, 1200.0), 100, 1.15),
]


def make_table(w: float, d: float) -> TableConfig:
    spots = [(40.0, 40.0), (w - 40.0, 40.0), (w - 40.0, d - 40.0), (40.0, d - 40.0)]
    return TableConfig.model_validate({
        "table": {"width_mm": w, "depth_mm": d, "dictionary": "DICT_4X4_250"},
        "anchors": [{"marker": i, "x_mm": x, "y_mm": y, "size_mm": 40.0, "up_deg": 90.0} for i, (x, y) in enumerate(spots)],
    })


def make_bases(sc: Scenario, seed: int = 7) -> tuple[Roster, list[PlacedBase]]:
    """`sc.bases` bases on a jittered grid, random headings, 16-18 mm markers on 3 mm bases."""
    rng = np.random.default_rng(seed)
    w, d = sc.table_mm
    cols = int(np.ceil(np.sqrt(sc.bases * w / d)))
    rows = int(np.ceil(sc.bases / cols))
    roster, placed = [], []
    for i in range(sc.bases):
        base = RosterBase.model_validate({
            "marker": 10 + i, "id": f"b{i:03d}", "side": "AB"[i % 2], "type": "B", "width_mm": 40.0, "depth_mm": 20.0,
            "marker_size_mm": float(np.round(rng.uniform(16.0, 18.0), 1)), "marker_offset_mm": [0.0, 0.0],
            "marker_rotation_deg": float(rng.choice([0.0, 90.0, 180.0, 270.0])), "height_mm": 3.0})
        x = 120 + (i % cols + 0.5) * (w - 240) / cols + rng.uniform(-15, 15)
        y = 120 + (i // cols + 0.5) * (d - 240) / rows + rng.uniform(-15, 15)
        roster.append(base)
        placed.append(PlacedBase(base, float(x), float(y), float(rng.uniform(0, 360))))
    return Roster(ruleset="italia-se-desta", bases=roster), placed


def nudge(placed: list[PlacedBase], seed: int) -> list[PlacedBase]:
    """A third of the bases moved a little (what happens between two frames of a game)."""
    rng = np.random.default_rng(seed)
    out = []
    for pb in placed:
        if rng.random() < 1 / 3:
            pb = PlacedBase(pb.base, pb.x_mm + rng.uniform(-2, 2), pb.y_mm + rng.uniform(-2, 2), pb.heading_deg + rng.uniform(-3, 3))
        out.append(pb)
    return out


# --- the peer: plain OpenCV -----------------------------------------------------------------


class PeerPipeline:
    """ArucoDetector (minMarkerPerimeterRate 0.01, SUBPIX) + solvePnP on the anchors."""

    def __init__(self, table: TableConfig, roster: Roster, intrinsics: Intrinsics) -> None:
        p = cv2.aruco.DetectorParameters()
        p.minMarkerPerimeterRate = 0.01
        p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        self.detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250), p)
        self.table, self.roster, self.intr = table, roster, intrinsics

    def process(self, image: np.ndarray) -> PoseReport:
        from campo.vision.detection import Detection

        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _ = self.detector.detectMarkers(gray)
        ids = [] if ids is None else np.asarray(ids).reshape(-1).tolist()
        dets = [Detection(int(i), np.asarray(c, np.float64).reshape(4, 2)) for i, c in zip(ids, corners)]
        anchors = {a.marker: a for a in self.table.anchors}
        obj = [anchor_corners(anchors[d.marker_id]) for d in dets if d.marker_id in anchors]
        img = [d.corners_px for d in dets if d.marker_id in anchors]
        if len(obj) < 2:
            return base_poses(dets, TableLocation.not_located("peer"), self.roster, self.intr, self.table)
        ok, rvec, tvec = cv2.solvePnP(np.concatenate(obj), np.concatenate(img), self.intr.camera_matrix, self.intr.dist_coeffs)
        loc = TableLocation(True, "pnp", rvec=rvec.reshape(3), tvec=tvec.reshape(3), anchors_seen=len(obj))
        return base_poses(dets, loc, self.roster, self.intr, self.table, size_tolerance=np.inf)


# --- scoring --------------------------------------------------------------------------------


@dataclass
class Score:
    recall: float
    pos_med: float
    pos_p95: float
    head_med: float
    head_p95: float
    gross: int
    ms: float
    found: int
    visible: int
    cpu_ms: float = float("nan")


def score(report: PoseReport, truth: GroundTruth, ms: float, cpu_ms: float) -> Score:
    visible = {m.base_id for m in truth.visible_markers().values() if m.base_id}
    in_truth = set(truth.markers)
    pos, head, gross = [], [], 0
    found = 0
    for b in report.bases:
        t = truth.bases.get(b.id)
        if t is None or b.id not in visible and truth.markers.get(b.marker) is None:
            gross += 1  # a phantom: no such base in view
            continue
        e = float(np.hypot(b.x_mm - t.x_mm, b.y_mm - t.y_mm))
        if e > GROSS_MM:
            gross += 1
            continue
        if b.id in visible:
            found += 1
        pos.append(e)
        head.append(abs((b.heading_deg - t.heading_deg + 180) % 360 - 180))
    gross += sum(1 for m in report.unknown_markers if m not in in_truth)
    q = lambda v, p: float(np.percentile(v, p)) if v else float("nan")  # noqa: E731
    return Score(found / max(len(visible), 1), q(pos, 50), q(pos, 95), q(head, 50), q(head, 95), gross, ms, found,
                 len(visible), cpu_ms)


def timed(fn, repeat: int):
    """Result, median wall-clock ms and median CPU ms (all threads of this process) of `fn()`."""
    return timed_together([fn], repeat)[0]


def timed_together(fns, repeat: int):
    """`timed` for several functions run in turn, `repeat` rounds: on a shared machine the load
    changes from second to second, and alternating puts the same load on each."""
    times = [[] for _ in fns]
    cpu = [[] for _ in fns]
    out = [None] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t0, c0 = time.perf_counter(), time.process_time()
            out[i] = fn()
            times[i].append((time.perf_counter() - t0) * 1000)
            cpu[i].append((time.process_time() - c0) * 1000)
    return [(o, float(np.median(t)), float(np.median(c))) for o, t, c in zip(out, times, cpu)]


def run_scenario(sc: Scenario, repeat: int) -> list[tuple[str, str, Score, float]]:
    table = make_table(*sc.table_mm)
    roster, placed = make_bases(sc)
    intr = Intrinsics.ideal(sc.width_px, sc.height_px, 70.0, dist=(-0.10, 0.03, 0.0, 0.0, 0.0))
    pose = overhead(table, intr, tilt_deg=8.0, margin=sc.margin)
    c = pose.centre_mm
    bumped = look_at((c[0] + 45.0, c[1] - 30.0, c[2] + 25.0), (sc.table_mm[0] / 2 - 20.0, sc.table_mm[1] / 2 + 15.0, 0.0), roll_deg=1.5)
    px_mm = intr.focal_px / c[2]
    rows = []
    conditions = [("normal", Effects.typical(), pose), ("bumped", Effects.typical(), bumped), ("dim", Effects.dim(), pose)]
    cam = SyntheticCamera(table, intr, pose, seed=11)
    for cond, effects, frame_pose in conditions:
        warm = cam.render(placed, pose=pose, effects=effects)
        moved = nudge(placed, seed=5)
        frame = cam.render(moved, pose=frame_pose, effects=effects)
        peer = PeerPipeline(table, roster, intr)
        (report, ms, cpu), (cold, cold_ms, cold_cpu) = timed_together(
            [lambda: peer.process(frame.image), lambda: FramePipeline(table, roster, intr).process(frame.image, 0.0)],
            repeat)
        rows.append((cond, "peer", score(report, frame.truth, ms, cpu), px_mm))
        rows.append((cond, "campo-cold", score(cold.report, frame.truth, cold_ms, cold_cpu), px_mm))
        pipe = FramePipeline(table, roster, intr)
        pipe.process(warm.image, 0.0)
        tracked = pipe.process(frame.image, 0.1)
        # steady state: the same scene again, windows and edge tracking only
        _, ms, cpu = timed(lambda: pipe.process(frame.image, 0.2), repeat)
        s = score(tracked.report, frame.truth, ms, cpu)
        rows.append((cond, "campo-track", s, px_mm))
        if cond == "dim":
            rows += run_still(table, roster, intr, cam, moved, pose, effects, px_mm)
    return rows


def run_still(table: TableConfig, roster: Roster, intr: Intrinsics, cam: SyntheticCamera, placed: list[PlacedBase],
              pose, effects: Effects, px_mm: float) -> list[tuple[str, str, Score, float]]:
    """A still scene in dim light, N frames: the peer on the last one, Campo tracking all N."""
    rows = []
    for n in STILL_FRAMES:
        pipe = FramePipeline(table, roster, intr)
        times, cpus = [], []
        for k in range(n):
            frame = cam.render(placed, pose=pose, effects=effects)
            t0, c0 = time.perf_counter(), time.process_time()
            result = pipe.process(frame.image, k * STILL_INTERVAL_S)
            times.append((time.perf_counter() - t0) * 1000)
            cpus.append((time.process_time() - c0) * 1000)
        peer = PeerPipeline(table, roster, intr)
        report, ms, cpu = timed(lambda: peer.process(frame.image), 1)
        rows.append((f"still{n}", "peer", score(report, frame.truth, ms, cpu), px_mm))
        rows.append((f"still{n}", "campo-track", score(result.report, frame.truth, float(np.median(times[1:])),
                                                      float(np.median(cpus[1:]))), px_mm))
    return rows


def run_motion(frames: int = 40, interval_s: float = 0.5) -> str:
    """The demo game (1080p, 120x80 cm, bases moving) at 2 fps: how often a visible base is stale."""
    from campo.vision.synthetic import DemoCamera

    cam = DemoCamera()
    pipe = FramePipeline(cam.game.table, cam.game.roster, cam.intrinsics)
    bad_frames, misses, cpu = 0, 0, []
    for k in range(frames):
        t = k * interval_s
        render = cam.render(t)
        c0 = time.process_time()
        result = pipe.process(render.image, t)
        cpu.append((time.process_time() - c0) * 1000)
        visible = {m.base_id for m in render.truth.visible_markers().values() if m.base_id}
        fresh = {b.id for b in result.tracked if not b.stale}
        stale = visible - fresh
        bad_frames += bool(stale)
        misses += len(stale)
    return (f"demo at {1 / interval_s:g} fps, {frames} frames: frames with a visible base stale {bad_frames}/{frames}, "
            f"stale base-frames {misses}, cpu_ms median {np.median(cpu):.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", action="append", choices=[s.name for s in SCENARIOS])
    ap.add_argument("--repeat", type=int, default=3, help="timing repetitions (median)")
    ap.add_argument("--threads", type=int, default=2,
                    help="OpenCV threads (cpu_ms counts all of them, idle spinning of the pool included)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(args.threads)
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    print(f"{'scenario':<15} {'cond':<7} {'method':<12} {'recall':>7} {'found':>8} {'pos_med':>8} {'pos_p95':>8} "
          f"{'head_med':>8} {'head_p95':>8} {'gross':>5} {'ms/frame':>9} {'cpu_ms':>8}")
    for sc in chosen:
        for cond, method, s, px_mm in run_scenario(sc, args.repeat):
            print(f"{sc.name:<15} {cond:<7} {method:<12} {100 * s.recall:>6.1f}% {s.found:>3}/{s.visible:<4} "
                  f"{s.pos_med:>7.3f}  {s.pos_p95:>7.3f}  {s.head_med:>7.2f}  {s.head_p95:>7.2f}  {s.gross:>5} {s.ms:>9.1f} "
                  f"{s.cpu_ms:>8.1f}",
                  flush=True)
        print(f"  ({sc.name}: {px_mm:.2f} px/mm at the table centre; positions in mm, headings in degrees)", flush=True)
    if not args.scenario:
        print(run_motion(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
