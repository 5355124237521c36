"""Write the ChArUco calibration board to print (PDF, optionally PNG), at exact scale.

Print it at 100 % / actual size, check the 100 mm ruler, and glue it flat on stiff card. Then
photograph it and run `campo calibrate-camera` with the same --squares/--square-mm/--marker-mm.
"""

from __future__ import annotations

import argparse

from campo.calibration.charuco import BoardSpec
from campo.vision.printing_board import board_page
from campo.vision.printing_render import write_pdf, write_png


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", required=True, metavar="BOARD.pdf", help="PDF to write")
    parser.add_argument("--squares", default="7x5", help="squares across x down (default 7x5)")
    parser.add_argument("--square-mm", type=float, default=40.0, help="side of a square in mm (default 40)")
    parser.add_argument("--marker-mm", type=float, default=30.0, help="side of a marker in mm (default 30)")
    parser.add_argument("--dictionary", default="DICT_4X4_250", help="marker dictionary (default DICT_4X4_250)")
    parser.add_argument("--paper", default="auto", help="A4, letter, A3 or auto (smallest that fits; default)")
    parser.add_argument("--png", metavar="BOARD.png", help="also write the page as a PNG")
    parser.add_argument("--dpi", type=float, default=300.0, help="PNG resolution (default 300)")


def run(args: argparse.Namespace) -> int:
    spec = BoardSpec.parse(args.squares, args.square_mm, args.marker_mm, args.dictionary)
    lines = [
        f"Campo calibration board: {spec.describe()}",
        "Glue flat on stiff card. Photograph it 10-20 times, tilted, filling the corners of the picture.",
        f"campo calibrate-camera PHOTOS... -o camera.json {spec.cli_options()}",
    ]
    page = board_page(spec.cv_board(), lines, args.paper)
    write_pdf([page], args.output, title=f"Campo board {spec.describe()}")
    paper = f"{page.width_mm:g} x {page.height_mm:g} mm"
    print(f"wrote {args.output} ({spec.describe()}, page {paper})")
    if args.png:
        write_png(page, args.png, args.dpi)
        print(f"wrote {args.png} at {args.dpi:g} dpi")
    print("print at 100 % / actual size; the ruler must measure 100 mm")
    return 0
