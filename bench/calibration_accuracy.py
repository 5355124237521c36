"""How accurate are ChArUco intrinsics, by number of photos? Prints errors (%) against the truth.

Renders views of the default 7x5 board through a known 1280x960 camera with lens distortion
(the synthetic camera's careful sweep, `Effects.typical()`: blur 0.7 px, noise 3, JPEG 88; see
tests/test_calibration_camera_views.py), runs the same detection and calibration as
`campo calibrate-camera`, and compares fx, fy, cx, cy with the truth, over several random sets of
poses per row. Also prints how far apart the estimated and the true camera put the same ray,
where the photos saw the board ("seen") and over the whole image ("whole", which includes
extrapolation into image corners no photo covered). ``--reach-corners`` lets the later photos of
each session run off the picture's corners and edges, as ChArUco allows: the whole picture is
then pinned down far better, at a small cost where the board was seen.

    .venv/bin/python bench/calibration_accuracy.py [--views 5 8 12 20 30] [--seeds 4] [--reach-corners]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


from campo.calibration.calibrate_intrinsics import CalibrationRefused, calibrate  # noqa: E402
from campo.calibration.charuco import BoardSpec, detect_board_views  # noqa: E402
from tests.test_calibration_camera_views import TRUE_CAMERA, good_views  # noqa: E402
from campo.vision.camera_model import Intrinsics  # noqa: E402

KEYS = {"fx": (0, 0), "fy": (1, 1), "cx": (0, 2), "cy": (1, 2)}


def ray_gap_px(estimated: Intrinsics, truth: Intrinsics, pixels: np.ndarray) -> float:
    """Largest distance between where the true and the estimated camera put the rays of `pixels`."""
    rays = truth.undistort(pixels)
    back = estimated.project(np.column_stack([rays, np.ones(len(rays))]), np.zeros(3), np.zeros(3))
    return float(np.max(np.linalg.norm(back - pixels, axis=1)))


def whole_image(truth: Intrinsics) -> np.ndarray:
    w, h = truth.image_size
    return np.stack(np.meshgrid(np.linspace(0, w - 1, 17), np.linspace(0, h - 1, 13)), -1).reshape(-1, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", type=int, nargs="+", default=[5, 8, 12, 20, 30])
    parser.add_argument("--seeds", type=int, default=4, help="random photo sessions per row")
    parser.add_argument("--reach-corners", action="store_true",
                        help="sessions whose later photos run off the picture's corners and edges")
    args = parser.parse_args()
    spec = BoardSpec()
    truth = TRUE_CAMERA
    print(f"camera {truth.image_size[0]}x{truth.image_size[1]}, fx {truth.camera_matrix[0, 0]:g}, "
          f"dist {np.round(truth.dist_coeffs, 4).tolist()}; board {spec.describe()}")
    print("errors in % of the true value: mean |err| (max |err|) over sessions; "
          "ray gap px = max over seen/whole image, mean over sessions")
    print(f"{'views':>5} {'fx':>13} {'fy':>13} {'cx':>13} {'cy':>13} {'rms px':>7} {'gap seen/whole':>14} "
          f"{'ms/view':>8} refused")
    for n in args.views:
        errors: dict[str, list[float]] = {k: [] for k in KEYS}
        rms, gaps, refused, seconds, frames = [], [], 0, 0.0, 0
        for seed in range(args.seeds):
            images = good_views(spec, n, seed=seed, reach_corners=args.reach_corners)
            start = time.perf_counter()
            size, views, missed = detect_board_views(images, spec)
            try:
                report = calibrate(views, size, spec, not_found=missed)
            except CalibrationRefused:
                refused += 1
                continue
            finally:
                seconds += time.perf_counter() - start
                frames += len(images)
            k = report.calibration.intrinsics.camera_matrix
            for name, at in KEYS.items():
                errors[name].append(abs(k[at] - truth.camera_matrix[at]) / truth.camera_matrix[at] * 100)
            rms.append(report.calibration.rms_px)
            seen = np.concatenate([v.image_points for v in views]).astype(np.float64)
            est = report.calibration.intrinsics
            gaps.append((ray_gap_px(est, truth, seen), ray_gap_px(est, truth, whole_image(truth))))
        cells = [f"{np.mean(e):6.3f} ({np.max(e):5.3f})" if e else f"{'-':>13}" for e in errors.values()]
        lens = f"{np.mean([g[0] for g in gaps]):5.2f}/{np.mean([g[1] for g in gaps]):5.2f}" if gaps else "-"
        rms_text = f"{np.mean(rms):7.3f}" if rms else f"{'-':>7}"
        print(f"{n:>5} {' '.join(cells)} {rms_text} {lens:>14} {seconds / max(frames, 1) * 1000:8.0f} "
              f"{refused}/{args.seeds}")


if __name__ == "__main__":
    main()
