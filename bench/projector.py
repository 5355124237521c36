"""Projector benchmark: the calibration's residual in mm over the table, and marker recall with
the projection on and off.

Calibration (Campo's synthetic camera, vision/synthetic, with projected light from
vision/synthetic/projection.py): the projector shows black, then the ChArUco pattern; Campo
locates the table from the anchors in the dark frame, reads the pattern, fits the homography
(calibration/projector.py). Printed per setup: the fit's own residual (median, worst, coverage
of the table) and the true error against the projector's real mapping on a 37 x 25 grid over
the whole table (median, worst).

Recall: every marker that should be read (wholly visible), read with the projection off and
with it on. "On" is the hardest overlay the page can draw: the projector's full white over the
whole picture (as if arcs and bands covered the table) with the page's dark squares round every
marker (server/projector_view.py: the marker, a quarter of its side more each way, 6 mm more);
"bare" is the same flood without the dark squares (what the page must avoid). Two scene styles:
Campo's synthetic camera (the demo game's bases at 8 moments, two camera/projector
setups) and bench/vision_render.py's independent renderer (16 mm 4x4 markers on cloth).

    python bench/projector.py            # all setups
    python bench/projector.py --quick    # one moment per setup (the tests use this)
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from campo.calibration.pipeline import FramePipeline
from campo.calibration.projector import ProjectorPattern, calibrate_from_frame, residuals_mm
from campo.calibration.table_scan import expected_ids_settings
from campo.server.projector_view import MARKER_MARGIN_MM
from campo.vision.camera_model import Intrinsics
from campo.vision.detection.detector import DetectorSettings, MarkerDetector
from campo.vision.synthetic import Effects, SyntheticCamera, overhead
from campo.vision.synthetic.demo import DemoGame, demo_intrinsics, demo_pose
from campo.vision.synthetic.pose import CameraPose, look_at
from campo.vision.synthetic.projection import ProjectedLight, ProjectorModel
from campo.vision.synthetic.scene import PlacedBase

QUIET_FACTOR = 0.25   # as server/projector_view.dark_footprints
BRIGHTNESS = 1.0      # the projector's white as bright as the room's light on the table
BLUR_PX = 1.5


def _vision_render() -> Any:
    path = Path(__file__).resolve().parent / "vision_render.py"
    name = "_campo_bench_vision_render"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@dataclass
class Setup:
    """One table seen by one camera, with a projector over it."""

    name: str
    camera: SyntheticCamera
    projector: ProjectorModel
    moments: list[list[PlacedBase]]


def setups(quick: bool = False) -> list[Setup]:
    """The demo game under the demo camera, and under a wider, more tilted camera with a
    projector off-centre and turned."""
    game = DemoGame.load()
    times = game.keyframe_times()
    picks = times[:: max(1, len(times) // (1 if quick else 8))][: 1 if quick else 8]
    moments = [game.poses_at(t) for t in picks]
    table = game.table
    intr = demo_intrinsics()
    demo = SyntheticCamera(table, intr, demo_pose(table, intr), effects=Effects.typical(), seed=3,
                           terrain=game.terrain)
    wide = Intrinsics.ideal(1920, 1080, 70.0, dist=(-0.08, 0.02, 0.0, 0.0, 0.0))
    tilted = SyntheticCamera(table, wide, overhead(table, wide, tilt_deg=18.0, roll_deg=-1.5, margin=1.08),
                             effects=Effects.typical(), seed=11, terrain=game.terrain)
    return [
        Setup("demo camera, projector overhead", demo, ProjectorModel.above(table, tilt_deg=4.0, roll_deg=1.0), moments),
        Setup("tilted wide camera, projector askew", tilted,
              ProjectorModel.above(table, (1280, 800), tilt_deg=-10.0, roll_deg=-3.0, margin=1.12,
                                   offset_mm=(40.0, -30.0)), moments),
    ]


# -- calibration ---------------------------------------------------------------------------------


def calibrate(setup: Setup) -> dict[str, float]:
    """Calibrate as the server does (dark frame, then the pattern); the fit's residual and its
    true error over the whole table."""
    cam, model = setup.camera, setup.projector
    table = cam.table.table
    bases = setup.moments[0]
    pattern = ProjectorPattern.for_screen(*model.size)
    dark = cam.render(bases, light=ProjectedLight(np.zeros(model.size[::-1], np.uint8), model.table_to_projector,
                                                  brightness=BRIGHTNESS, blur_px=BLUR_PX)).image
    location = FramePipeline(cam.table, _roster(), cam.intrinsics).process(dark, 0.0).location
    lit = cam.render(bases, light=ProjectedLight(pattern.image(), model.table_to_projector,
                                                 brightness=BRIGHTNESS, blur_px=BLUR_PX)).image
    started = time.process_time()
    fit = calibrate_from_frame(lit, pattern, location, cam.intrinsics, (table.width_mm, table.depth_mm), dark=dark)
    cpu = time.process_time() - started
    xs, ys = np.meshgrid(np.linspace(0, table.width_mm, 37), np.linspace(0, table.depth_mm, 25))
    grid = np.column_stack([xs.ravel(), ys.ravel()])
    true_px = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), model.table_to_projector).reshape(-1, 2)
    err = residuals_mm(fit.homography, grid, true_px)
    return {"median_mm": fit.median_mm, "worst_mm": fit.worst_mm, "coverage": fit.coverage,
            "corners": fit.corners_used, "true_median_mm": float(np.median(err)), "true_worst_mm": float(err.max()),
            "cpu_s": cpu}


def _roster() -> Any:
    return DemoGame.load().roster


# -- recall --------------------------------------------------------------------------------------


def dark_squares_mm(centres: list[tuple[float, float, float, float]]) -> list[np.ndarray]:
    """The page's dark square round each marker (centre x, y, up degrees, side), in table mm."""
    out = []
    for x, y, up, side in centres:
        s = side * (1 + 2 * QUIET_FACTOR) + 2 * MARKER_MARGIN_MM
        a = np.radians(up)
        u, r = np.array([np.cos(a), np.sin(a)]), np.array([np.sin(a), -np.cos(a)])
        out.append(np.array([[x, y] + s / 2 * (sr * r + su * u) for sr, su in ((-1, 1), (1, 1), (1, -1), (-1, -1))]))
    return out


def flood_picture(size: tuple[int, int], table_to_projector: np.ndarray, squares_mm: list[np.ndarray]) -> np.ndarray:
    """Full white, with ``squares_mm`` (table mm) black: the hardest overlay the page draws."""
    w, h = size
    picture = np.full((h, w), 255, np.uint8)
    for sq in squares_mm:
        px = cv2.perspectiveTransform(sq.reshape(-1, 1, 2), table_to_projector).reshape(-1, 2)
        cv2.fillPoly(picture, [np.round(px * 16).astype(np.int32)], 0, cv2.LINE_AA, 4)
    return picture


def _marker_centres(bases: list[PlacedBase], setup: Setup) -> list[tuple[float, float, float, float]]:
    from campo.vision.synthetic.geometry import base_marker

    out = [(a.x_mm, a.y_mm, a.up_deg, a.size_mm) for a in setup.camera.table.anchors]
    for pb in bases:
        c, up, side = base_marker(pb)
        out.append((float(c[0]), float(c[1]), float(np.degrees(np.arctan2(up[1], up[0]))), side))
    return out


def synthetic_recall(setup: Setup) -> dict[str, tuple[int, int]]:
    """(found, expected) with the projection off, on (dark squares) and bare (no squares)."""
    cam, model = setup.camera, setup.projector
    detector = MarkerDetector(cam.table.table.dictionary,
                              expected_ids_settings(DetectorSettings(), cam.table, _roster()))
    tally = {"off": [0, 0], "on": [0, 0], "bare": [0, 0]}
    for bases in setup.moments:
        pictures = {"off": None, "on": flood_picture(model.size, model.table_to_projector,
                                                     dark_squares_mm(_marker_centres(bases, setup))),
                    "bare": np.full(model.size[::-1], 255, np.uint8)}
        for name, picture in pictures.items():
            light = None if picture is None else ProjectedLight(picture, model.table_to_projector,
                                                               brightness=BRIGHTNESS, blur_px=BLUR_PX)
            render = cam.render(bases, light=light)
            expected = set(render.truth.visible_markers())
            found = {d.marker_id for d in detector.detect(render.image)}
            tally[name][0] += len(found & expected)
            tally[name][1] += len(expected)
    return {k: (v[0], v[1]) for k, v in tally.items()}


def render_recall(quick: bool = False) -> dict[str, tuple[int, int]]:
    """The same on bench/vision_render.py's independent renderer: 16 mm DICT_4X4_250 markers on
    cloth, an 1280x960 camera ~1 px/mm, a projector over the plane."""
    vr = _vision_render()
    tally = {"off": [0, 0], "on": [0, 0], "bare": [0, 0]}
    size = (1280, 960)
    detector = MarkerDetector("DICT_4X4_250")
    for i in range(2 if quick else 6):
        rng = np.random.default_rng(500 + i)
        cam = vr.looking_at(size, 1000, (0, 0), 1000, rng.uniform(0, 20), rng.uniform(0, 360))
        markers = []
        for k in range(48):
            r, c = divmod(k, 8)
            centre = np.array([(c - 3.5) * 120, (r - 2.5) * 120]) + rng.uniform(-20, 20, 2)
            a = rng.uniform(0, 2 * np.pi)
            rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            sq = np.array([[-1, 1], [1, 1], [1, -1], [-1, -1]]) * 8.0
            markers.append(vr.Marker("DICT_4X4_250", k, sq @ rot.T + centre))
        fx = vr.Effects(blur_px=0.8, noise=3.0, jpeg=90, seed=i)
        scene = vr.Scene(cam, markers, vr.cloth(size, 900 + i), "exact", fx)
        clean = scene.background.astype(np.float32).copy()
        for m in markers:
            vr.RENDERERS["exact"](clean, cam, m)
        projector = CameraPose.from_matrix(*_pose_above(rng))
        model = ProjectorModel((1280, 800), Intrinsics.ideal(1280, 800, 50.0).camera_matrix, projector)
        squares = []
        for m in markers:
            c = m.corners_mm.mean(axis=0)
            up = m.corners_mm[0] + m.corners_mm[1] - 2 * c
            squares.append((float(c[0]), float(c[1]), float(np.degrees(np.arctan2(up[1], up[0]))), 16.0))
        pictures = {"off": None, "on": flood_picture(model.size, model.table_to_projector, dark_squares_mm(squares)),
                    "bare": np.full((800, 1280), 255, np.uint8)}
        expected = {mid for mid, _ in scene.truth()}
        for name, picture in pictures.items():
            lit = clean
            if picture is not None:
                light = ProjectedLight(picture, model.table_to_projector, brightness=BRIGHTNESS, blur_px=BLUR_PX).light[..., 0]
                to_projector = model.table_to_projector @ np.linalg.inv(cam.homography())
                on_cam = cv2.warpPerspective(light, to_projector, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
                lit = clean * (1.0 + BRIGHTNESS * on_cam)
            image = vr.apply_effects(lit, fx)
            found = {d.marker_id for d in detector.detect(image)}
            tally[name][0] += len(found & expected)
            tally[name][1] += len(expected)
    return {k: (v[0], v[1]) for k, v in tally.items()}


def _pose_above(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A projector 1.4 m over the plane's centre, a little askew (rotation, tvec)."""
    pose = look_at((rng.uniform(-80, 80), rng.uniform(-200, -100), 1400.0), (0.0, 0.0, 0.0), roll_deg=rng.uniform(-4, 4))
    return pose.rotation, pose.tvec


def pct(found_expected: tuple[int, int]) -> float:
    found, expected = found_expected
    return 100.0 * found / max(expected, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one moment per setup")
    args = parser.parse_args(argv)
    print(f"{'setup':<38}{'median':>8}{'worst':>8}{'cover':>7}{'corners':>8}{'true med':>9}{'true max':>9}{'cpu s':>7}")
    for s in setups(args.quick):
        r = calibrate(s)
        print(f"{s.name:<38}{r['median_mm']:7.2f} {r['worst_mm']:7.2f} {100 * r['coverage']:5.0f}% {r['corners']:7d} "
              f"{r['true_median_mm']:8.2f} {r['true_worst_mm']:8.2f} {r['cpu_s']:6.2f}")
    print(f"\n{'recall':<38}{'off':>14}{'on':>14}{'bare':>14}{'on-off':>8}")
    rows = [(f"synthetic: {s.name}", synthetic_recall(s)) for s in setups(args.quick)]
    rows.append(("vision_render: 16 mm on cloth", render_recall(args.quick)))
    for name, t in rows:
        cells = "".join(f"{pct(t[k]):6.1f}% {t[k][0]:>3}/{t[k][1]:<3}" for k in ("off", "on", "bare"))
        print(f"{name:<38}{cells}{pct(t['on']) - pct(t['off']):+7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
