"""Write the markers to print for a table and roster (PDF, optionally PNGs), at exact scale.

One marker per base with its id and name and an arrow to the base front, the roster's status
tokens with their meaning under each, then the table's anchor markers on their own pages. Print at 100 % / actual size and check the 100 mm ruler; cut along
the dashed lines, keeping the white margin around each marker.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from campo.server.roster import load_checked_roster
from campo.vision.printing_markers import CUT_CHOICES, marker_sheets
from campo.vision.printing_render import write_pdf, write_pngs
from campo.vision.tabletop import load_table


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table", required=True, metavar="TABLE.toml", help="the table and its anchors")
    parser.add_argument("--roster", required=True, metavar="ROSTER.toml", help="which marker is which base")
    parser.add_argument("-o", "--output", required=True, metavar="MARKERS.pdf", help="PDF to write")
    parser.add_argument("--paper", default="A4", help="A4 (default), letter or A3")
    parser.add_argument("--cut", default="marker", choices=CUT_CHOICES,
                        help="cut lines around each marker (default) or around each base's outline")
    parser.add_argument("--png", metavar="DIR", help="also write each page as DIR/markers-N.png")
    parser.add_argument("--dpi", type=float, default=300.0, help="PNG resolution (default 300)")


def run(args: argparse.Namespace) -> int:
    table = load_table(args.table)
    roster = load_checked_roster(args.roster, table)
    pages = marker_sheets(table, roster, paper=args.paper, cut=args.cut)
    write_pdf(pages, args.output, title=f"Campo markers {Path(args.roster).name}")
    tokens = f", {len(roster.tokens)} status tokens" if roster.tokens else ""
    print(f"wrote {args.output}: {len(roster.bases)} base markers{tokens} and {len(table.anchors)} anchors "
          f"on {len(pages)} {args.paper} pages")
    if args.png:
        paths = write_pngs(pages, args.png, Path(args.output).stem, args.dpi)
        print(f"wrote {len(paths)} PNGs at {args.dpi:g} dpi in {args.png}")
    print("print at 100 % / actual size; the ruler must measure 100 mm")
    return 0
