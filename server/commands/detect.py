"""Base poses in the table frame from still images, one line (or JSON object) per image.

Each image is analysed on its own: the table is located from its anchors (full camera pose with
--camera, a homography without), then every roster marker becomes a base pose.

An image that cannot be read is reported on stderr (naming the file) and, with --json, as a line
{"image": ..., "error": ...}; the other images are still analysed and the exit status is 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


from campo.calibration.camera_file import load_camera
from campo.calibration.pipeline import FrameResult, analyse_image
from campo.server.roster import load_checked_roster
from campo.errors import CampoInputError
from campo.vision.image_files import read_image
from campo.vision.tabletop import load_table


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGES", help="image files (PNG, JPEG, ...)")
    parser.add_argument("--table", required=True, type=Path, help="table.toml (size, anchors, dictionary)")
    parser.add_argument("--roster", required=True, type=Path, help="roster.toml (which marker is which base)")
    parser.add_argument("--camera", type=Path, help="camera.json from `campo calibrate-camera` (strongly advised)")
    parser.add_argument("--json", action="store_true", help="one JSON object per image on stdout")


def _table_text(name: str, result: FrameResult) -> str:
    loc = result.location
    lines = [f"{name}: " + (f"table located ({loc.method}, {loc.anchors_seen} anchors, "
                            f"reprojection {loc.reprojection_error_px:.2f} px)" if loc.located else "table NOT located")]
    if result.report.bases:
        lines.append(f"  {'base':<24} {'marker':>6} {'x_mm':>9} {'y_mm':>9} {'heading':>8}")
        for b in result.report.bases:
            lines.append(f"  {b.id:<24} {b.marker:>6} {b.x_mm:>9.1f} {b.y_mm:>9.1f} {b.heading_deg:>8.1f}")
    if result.report.unknown_markers:
        lines.append(f"  unknown markers: {', '.join(map(str, result.report.unknown_markers))}")
    lines += [f"  warning: {w}" for w in result.warnings]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    table = load_table(args.table)
    roster = load_checked_roster(args.roster, table)
    intrinsics = load_camera(args.camera).intrinsics if args.camera else None
    failed = 0
    for name in args.images:
        try:
            result = analyse_image(read_image(Path(name)), table, roster, intrinsics, source=name)
        except CampoInputError as exc:
            failed += 1
            print(f"campo detect: {exc}", file=sys.stderr)
            if args.json:
                print(json.dumps({"image": name, "error": str(exc), "table_located": False}), flush=True)
            continue
        if args.json:
            print(json.dumps(result.to_json(name)), flush=True)
        else:
            print(_table_text(name, result), flush=True)
    return 2 if failed else 0
