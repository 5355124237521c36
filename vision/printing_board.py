"""The ChArUco calibration board as a printable page, drawn from OpenCV's own board definition.

Black squares and marker positions come from `cv2.aruco.CharucoBoard` (`getObjPoints`), not from
a re-implementation of its checkerboard rule, so the printed board is the board the detector
expects whatever OpenCV's conventions (legacy pattern, odd or even rows).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from campo.errors import CampoInputError
from campo.vision.printing import FOOTER_MM, MARGIN_MM, PAPER_MM, Label, Page, Rects, add_footer, marker_bits, marker_rects, paper_size

HEADER_MM = 16.0


def board_rects(board: cv2.aruco.CharucoBoard, x0: float, y0: float) -> list[Rects]:
    """The board's black squares and markers with its top-left corner at (x0, y0) mm."""
    sx, sy = board.getChessboardSize()
    square = float(board.getSquareLength())
    marker = float(board.getMarkerLength())
    dictionary = board.getDictionary()
    with_marker = set()
    markers = []
    for marker_id, corners in zip(np.asarray(board.getIds()).reshape(-1), board.getObjPoints()):
        corners = np.asarray(corners, np.float64).reshape(4, 3)
        centre = corners[:, :2].mean(axis=0)
        with_marker.add((int(centre[0] // square), int(centre[1] // square)))
        tl = corners[0, :2]
        markers.append(marker_rects(marker_bits(dictionary, int(marker_id)), x0 + tl[0], y0 + tl[1], marker))
    black = tuple(
        (x0 + i * square, y0 + j * square, x0 + (i + 1) * square, y0 + (j + 1) * square)
        for j in range(sy) for i in range(sx) if (i, j) not in with_marker
    )
    return [Rects(black), *markers]


def _usable(width: float, height: float) -> tuple[float, float]:
    return width - 2 * MARGIN_MM, height - 2 * MARGIN_MM - HEADER_MM - FOOTER_MM


def board_page(board: cv2.aruco.CharucoBoard, lines: list[str], paper: str = "auto") -> Page:
    """One page holding the whole board at exact scale; `paper="auto"` picks the smallest that fits."""
    sx, sy = board.getChessboardSize()
    square = float(board.getSquareLength())
    bw, bh = sx * square, sy * square
    names = list(PAPER_MM) if paper == "auto" else [paper]
    for name in names:
        for landscape in (False, True):
            w, h = paper_size(name, landscape=landscape)
            uw, uh = _usable(w, h)
            if bw <= uw and bh <= uh:
                page = Page(w, h)
                x0 = (w - bw) / 2
                y0 = MARGIN_MM + HEADER_MM
                page.add(*board_rects(board, x0, y0))
                for i, line in enumerate(lines):
                    page.add(Label(MARGIN_MM, MARGIN_MM + 4.0 + 5.0 * i, line, size_pt=10 if i == 0 else 8, bold=i == 0))
                add_footer(page)
                return page
    # Nothing fits: say which square size would, on the smallest paper asked for.
    w, h = paper_size(names[0], landscape=True)
    uw, uh = _usable(w, h)
    fit = math.floor(min(uw / sx, uh / sy))
    where = "any paper (A4, letter, A3)" if paper == "auto" else f"{paper} paper"
    raise CampoInputError(
        f"a {sx}x{sy} board of {square:g} mm squares ({bw:g} x {bh:g} mm) does not fit on {where}; "
        f"on {names[0]} use --square-mm {fit} --marker-mm {math.floor(fit * 0.75)}", key="--square-mm")
