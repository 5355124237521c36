"""Measure the camera's intrinsics from photos of the ChArUco board (see `campo board`).

Prints the RMS reprojection error, each photo's error and how much of the picture the board's
corners covered; writes camera.json. Refuses, saying what to photograph next, when the photos
are too few, too poor or cover too little of the picture.
"""

from __future__ import annotations

import argparse

from campo.calibration.calibrate_intrinsics import MIN_VIEWS, CalibrationReport, calibrate
from campo.calibration.camera_file import save_camera
from campo.calibration.charuco import BoardSpec, BoardView, find_board_views
from campo.errors import CampoInputError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGES", help="photos of the board (10-20 recommended)")
    parser.add_argument("-o", "--output", required=True, metavar="CAMERA.json", help="camera file to write")
    parser.add_argument("--squares", default="7x5", help="squares across x down (default 7x5)")
    parser.add_argument("--square-mm", type=float, default=40.0, help="side of a square as printed, mm (default 40)")
    parser.add_argument("--marker-mm", type=float, default=30.0, help="side of a marker as printed, mm (default 30)")
    parser.add_argument("--dictionary", default="DICT_4X4_250", help="marker dictionary (default DICT_4X4_250)")
    parser.add_argument("--min-views", type=int, default=MIN_VIEWS,
                        help=f"fewest usable photos accepted (default {MIN_VIEWS})")


def _progress(i: int, n: int, name: str, view: BoardView | None) -> None:
    width = len(str(n))
    seen = f"{view.corners} corners, {view.markers_seen} markers" if view else "board not found"
    print(f"[{i:>{width}}/{n}] {name}: {seen}", flush=True)


def print_report(report: CalibrationReport, spec: BoardSpec) -> None:
    cal = report.calibration
    k = cal.intrinsics.camera_matrix
    d = cal.intrinsics.dist_coeffs.reshape(-1)
    s = report.std_dev
    print(f"RMS reprojection error: {cal.rms_px:.3f} px over {len(report.views)} views")
    print("per view (px):")
    for v in report.views:
        print(f"  {v.rms_px:6.3f}  {v.corners:3d}/{spec.inner_corners} corners, tilt {v.tilt_deg:4.1f} deg  {v.name}")
    for name, why in report.rejected:
        print(f"  not used: {name}: {why}")
    rows = report.coverage.rows()
    print(f"coverage: corners in {report.coverage.fraction:.0%} of the picture "
          f"({len(rows[0])}x{len(rows)} cells, '#' has corners):")
    for row in rows:
        print(f"  {row}")
    print(f"fx {k[0, 0]:.2f} +- {s['fx']:.2f}  fy {k[1, 1]:.2f} +- {s['fy']:.2f}  "
          f"cx {k[0, 2]:.2f} +- {s['cx']:.2f}  cy {k[1, 2]:.2f} +- {s['cy']:.2f} px")
    print("distortion k1 k2 p1 p2 k3: " + " ".join(f"{x:.5f}" for x in d))
    for w in report.warnings:
        print(f"warning: {w}")


def run(args: argparse.Namespace) -> int:
    spec = BoardSpec.parse(args.squares, args.square_mm, args.marker_mm, args.dictionary)
    if args.min_views < 3:
        raise CampoInputError(f"must be at least 3 (got {args.min_views})", key="--min-views")
    print(f"looking for the {spec.describe()} board in {len(args.images)} photos")
    search = find_board_views(args.images, spec, progress=_progress)
    for note in search.notes:
        print(f"note: {note}")
    spec, size, views, missed = search.spec, search.image_size, search.views, search.missed
    print(f"calibrating a {size[0]}x{size[1]} camera from {len(views)} views...", flush=True)
    report = calibrate(views, size, spec, not_found=missed, min_views=args.min_views)
    print_report(report, spec)
    try:
        save_camera(report.calibration, args.output)
    except OSError as exc:
        raise CampoInputError(f"cannot write: {exc.strerror or exc}", path=args.output) from None
    print(f"wrote {args.output}")
    return 0
