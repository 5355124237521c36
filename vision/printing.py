"""Printable sheets at exact physical scale: pages of simple shapes in millimetres.

A sheet is laid out once, as a `Page` of `Rects`, `Polygons`, `Stroke`s and `Label`s in page
millimetres (origin at the top-left corner, y down), then rendered to PDF (vector, crisp at any
printer resolution) or to PNG at a chosen DPI by `vision.printing_render`. One layout for both
outputs means the PNG a test measures is the PDF a user prints.

Every page carries a 100 mm ruler and the line telling the user to print at actual size, because
a printer's "fit to page" silently shrinks markers by a few percent, which would skew every
distance Campo measures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from campo.errors import CampoInputError

PAPER_MM: dict[str, tuple[float, float]] = {
    "A4": (210.0, 297.0),
    "letter": (215.9, 279.4),
    "A3": (297.0, 420.0),
}
MARGIN_MM = 12.0
RULER_MM = 100.0
FOOTER_MM = 22.0  # ruler, its numbers and the print instruction
PRINT_NOTE = "Print at 100 % / actual size (no 'fit to page'); the ruler must measure 100 mm."


@dataclass(frozen=True)
class Rects:
    """Axis-aligned black rectangles (x0, y0, x1, y1) in mm, filled as one shape (no seams)."""

    boxes: tuple[tuple[float, float, float, float], ...]


@dataclass(frozen=True)
class Polygons:
    """Black polygons (each k x 2 mm), filled as one shape: rotated marker cells."""

    shapes: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class Stroke:
    """A polyline of `width_mm`, dashed when `dash_mm` = (on, off) is given."""

    points: tuple[tuple[float, float], ...]
    width_mm: float = 0.2
    dash_mm: tuple[float, float] | None = None
    closed: bool = False
    grey: float = 0.0  # 0 black .. 1 white


@dataclass(frozen=True)
class Label:
    """Text whose baseline starts at (x, y) mm ("start"), or is centred on x ("middle")."""

    x: float
    y: float
    text: str
    size_pt: float = 8.0
    anchor: str = "start"
    bold: bool = False


Item = Rects | Polygons | Stroke | Label


@dataclass
class Page:
    """One sheet of paper and what is printed on it."""

    width_mm: float
    height_mm: float
    items: list[Item] = field(default_factory=list)

    def add(self, *items: Item) -> None:
        self.items.extend(items)


def paper_size(name: str, *, landscape: bool = False) -> tuple[float, float]:
    """(width, height) in mm of a paper name (A4, letter, A3), portrait unless `landscape`."""
    key = {k.lower(): k for k in PAPER_MM}.get(name.lower())
    if key is None:
        raise CampoInputError(f"unknown paper {name!r} (choose {', '.join(PAPER_MM)})", key="--paper")
    w, h = PAPER_MM[key]
    return (h, w) if landscape else (w, h)


def marker_bits(dictionary: cv2.aruco.Dictionary, marker_id: int) -> np.ndarray:
    """The marker's cells including its black border, True = black, (n+2) x (n+2), row 0 on top."""
    n = dictionary.markerSize + 2
    image = dictionary.generateImageMarker(int(marker_id), n, borderBits=1)
    return np.asarray(image) < 128


def marker_rects(bits: np.ndarray, x0: float, y0: float, size_mm: float) -> Rects:
    """The black cells of an upright marker whose black square's top-left is (x0, y0).

    Runs of black cells in a row become one rectangle, to keep the PDF small.
    """
    n = bits.shape[0]
    cell = size_mm / n
    boxes = []
    for r in range(n):
        c = 0
        while c < n:
            if bits[r, c]:
                start = c
                while c < n and bits[r, c]:
                    c += 1
                boxes.append((x0 + start * cell, y0 + r * cell, x0 + c * cell, y0 + (r + 1) * cell))
            else:
                c += 1
    return Rects(tuple(boxes))


def marker_polygons(bits: np.ndarray, cx: float, cy: float, size_mm: float, up_deg_ccw: float) -> Polygons:
    """The black cells of a marker centred at (cx, cy) whose up is turned `up_deg_ccw` from page up."""
    upright = marker_rects(bits, cx - size_mm / 2, cy - size_mm / 2, size_mm)
    a = np.radians(up_deg_ccw)
    # Page y points down, so a counter-clockwise turn as seen on paper is (x, y) -> R(-a).
    rot = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
    shapes = []
    for x0, y0, x1, y1 in upright.boxes:
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) - (cx, cy)
        shapes.append(corners @ rot.T + (cx, cy))
    return Polygons(tuple(shapes))


def dashed_box(x0: float, y0: float, x1: float, y1: float) -> Stroke:
    """A dashed cut line around a cell."""
    return Stroke(((x0, y0), (x1, y0), (x1, y1), (x0, y1)), width_mm=0.15, dash_mm=(1.5, 1.0), closed=True, grey=0.35)


def arrow(cx: float, cy: float, angle_deg_ccw: float, length_mm: float) -> list[Stroke]:
    """An arrow centred on (cx, cy) pointing `angle_deg_ccw` counter-clockwise from page up."""
    a = np.radians(angle_deg_ccw)
    dx, dy = -np.sin(a), -np.cos(a)  # page up is (0, -1)
    tail = (cx - dx * length_mm / 2, cy - dy * length_mm / 2)
    tip = (cx + dx * length_mm / 2, cy + dy * length_mm / 2)
    head = []
    for side in (+1, -1):
        b = a + side * np.radians(150)
        head.append((tip[0] - np.sin(b) * length_mm * 0.35, tip[1] - np.cos(b) * length_mm * 0.35))
    return [
        Stroke((tail, tip), width_mm=0.3),
        Stroke((head[0], tip, head[1]), width_mm=0.3),
    ]


def ruler(x0: float, y0: float, length_mm: float = RULER_MM) -> list[Item]:
    """A ruler with a tick every mm, longer every 5 and 10 mm, numbered in cm; ticks hang from y0."""
    items: list[Item] = [Stroke(((x0, y0), (x0 + length_mm, y0)), width_mm=0.15)]
    for mm in range(int(length_mm) + 1):
        tick = 5.0 if mm % 10 == 0 else 3.0 if mm % 5 == 0 else 1.8
        items.append(Stroke(((x0 + mm, y0), (x0 + mm, y0 + tick)), width_mm=0.12))
        if mm % 10 == 0:
            items.append(Label(x0 + mm, y0 + tick + 2.6, str(mm), size_pt=6, anchor="middle"))
    items.append(Label(x0 + length_mm + 2.0, y0 + 2.5, f"{length_mm:g} mm", size_pt=7))
    return items


def add_footer(page: Page) -> None:
    """The 100 mm ruler and the print-at-actual-size line at the bottom of the page."""
    y = page.height_mm - MARGIN_MM - FOOTER_MM + 4.0
    page.add(*ruler(MARGIN_MM, y))
    page.add(Label(MARGIN_MM, y + 14.0, PRINT_NOTE, size_pt=8, bold=True))


def ruler_origin(page: Page) -> tuple[float, float]:
    """Where `add_footer` puts the ruler's 0 mm mark (for tests and docs)."""
    return MARGIN_MM, page.height_mm - MARGIN_MM - FOOTER_MM + 4.0
