"""Write a game report: one self-contained HTML page (deployment, tracks, losses, events).

`campo report GAME.db -o report.html` reads a recording and writes a page with no external
files (inline SVG and CSS), suitable for sharing with the club.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from campo.server.recording import open_recording
from campo.server.recording.report import write_report
from campo.errors import CampoInputError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", type=Path, metavar="GAME.db", help="a campo recording")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="report.html",
                        help="the HTML page to write")
    parser.add_argument("--title", help="the page's title (default: the game's name)")


def run(args: argparse.Namespace) -> int:
    with open_recording(args.recording) as rec:
        try:
            write_report(rec, args.output, title=args.title)
        except OSError as exc:
            raise CampoInputError(f"cannot write the report: {exc.strerror or exc}",
                                  path=args.output) from None
    print(f"wrote {args.output}")
    return 0
