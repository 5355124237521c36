"""Sheets of the markers a table needs: one per base of the roster, the roster's status tokens,
then the anchors.

Each marker keeps a white quiet zone one cell wide inside a dashed cut line, so that after cutting
it still has the white margin detection needs on a dark base. Beside it: the base id and name,
the marker id and size, and an arrow showing which way the base's front goes once glued (from
`marker_rotation_deg`). With ``cut="base"`` the cut line is the base's own outline instead, with
the marker printed at its offset and rotation: glue the paper flush with the base edges. A status
token's card is its marker inside the cut line, with what the token means written under it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
from reportlab.pdfbase.pdfmetrics import stringWidth

from campo.errors import CampoInputError
from campo.vision.printing import (
    FOOTER_MM,
    MARGIN_MM,
    Item,
    Label,
    Page,
    add_footer,
    arrow,
    dashed_box,
    marker_bits,
    marker_polygons,
    marker_rects,
    paper_size,
)
from campo.vision.tabletop import Anchor, Roster, RosterBase, RosterToken, TableConfig

HEADER_MM = 10.0
GAP_MM = 4.0
LABEL_GAP_MM = 3.0
LABEL_WIDTH_MM = 46.0
LABEL_HEIGHT_MM = 22.0
CUT_CHOICES = ("marker", "base")


@dataclass(frozen=True)
class _Cell:
    """One thing to place: its size (cut area plus label) and how to draw it at (x, y)."""

    width: float
    height: float
    draw: Callable[[float, float], list[Item]]


def quiet_zone_mm(dictionary: cv2.aruco.Dictionary, size_mm: float) -> float:
    """One marker cell: the white margin kept around every printed marker."""
    return size_mm / (dictionary.markerSize + 2)


def _fit(text: str, width_mm: float, size_pt: float, bold: bool = False) -> str:
    """`text` shortened with an ellipsis to fit `width_mm` in Helvetica."""
    font = "Helvetica-Bold" if bold else "Helvetica"
    limit = width_mm / 25.4 * 72
    if stringWidth(text, font, size_pt) <= limit:
        return text
    while text and stringWidth(text + "...", font, size_pt) > limit:
        text = text[:-1]
    return text + "..."


def _label_items(x: float, y: float, lines: list[str], front_deg: float | None) -> list[Item]:
    items: list[Item] = []
    for i, line in enumerate(lines):
        bold = i == 0
        size = 9.0 if bold else 7.5
        items.append(Label(x, y + 3.5 + 3.9 * i, _fit(line, LABEL_WIDTH_MM, size, bold), size_pt=size, bold=bold))
    if front_deg is not None:
        ay = y + 3.5 + 3.9 * len(lines) + 2.2
        items += arrow(x + 2.5, ay, front_deg, 5.0)
        items.append(Label(x + 6.5, ay + 1.2, "base front", size_pt=7))
    return items


def _direction_words(up_deg: float) -> str:
    """Where a marker's top edge points on the table, in words players use."""
    words = {0: "toward +x (A's right)", 90: "toward B", 180: "toward -x (A's left)", 270: "toward A"}
    a = up_deg % 360
    for angle, text in words.items():
        if abs(a - angle) < 1e-6:
            return f"top edge {text}"
    return f"top edge {a:g} deg CCW from +x"


def _marker_cell(dictionary: cv2.aruco.Dictionary, marker: int, size: float, lines: list[str],
                 front_deg: float | None) -> _Cell:
    q = quiet_zone_mm(dictionary, size)
    cut = size + 2 * q
    bits = marker_bits(dictionary, marker)

    def draw(x: float, y: float) -> list[Item]:
        items: list[Item] = [dashed_box(x, y, x + cut, y + cut), marker_rects(bits, x + q, y + q, size)]
        return items + _label_items(x + cut + LABEL_GAP_MM, y, lines, front_deg)

    return _Cell(cut + LABEL_GAP_MM + LABEL_WIDTH_MM, max(cut, LABEL_HEIGHT_MM), draw)


def _token_cell(dictionary: cv2.aruco.Dictionary, token: RosterToken) -> _Cell:
    """A token's card (marker and quiet zone inside the cut line), its meaning written under it."""
    size = token.size_mm
    q = quiet_zone_mm(dictionary, size)
    cut = size + 2 * q
    bits = marker_bits(dictionary, token.marker)
    lines = token_label_lines(token)
    width = max(cut, LABEL_WIDTH_MM)

    def draw(x: float, y: float) -> list[Item]:
        items: list[Item] = [dashed_box(x, y, x + cut, y + cut), marker_rects(bits, x + q, y + q, size)]
        for i, line in enumerate(lines):
            bold = i == 0
            size_pt = 8.0 if bold else 7.0
            items.append(Label(x, y + cut + 3.5 + 3.4 * i, _fit(line, width, size_pt, bold), size_pt=size_pt, bold=bold))
        return items

    return _Cell(width, cut + 2.0 + 3.4 * len(lines), draw)


def token_label_lines(token: RosterToken) -> list[str]:
    """What is printed under a token's card: its name, what it sets, its marker."""
    return [token.label, token.meaning, f"{token.id}: marker {token.marker}, {token.size_mm:g} mm"]


def token_sheets(table: TableConfig, roster: Roster, *, paper: str = "A4",
                 title: str = "Campo status tokens") -> list[Page]:
    """Pages with the roster's status tokens (none when it has none), in roster order."""
    if not roster.tokens:
        return []
    name = table.table.dictionary
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    cells = [_token_cell(dictionary, t) for t in roster.tokens]
    return _pack(cells, paper, f"{title} ({roster.ruleset}, {name}; lay against a base, behind it)")


def _base_cell(dictionary: cv2.aruco.Dictionary, base: RosterBase, lines: list[str]) -> _Cell:
    """The base outline (front edge at the top) with its marker at offset and rotation."""
    w, d = base.width_mm, base.depth_mm
    size = base.marker_size_mm
    q = quiet_zone_mm(dictionary, size)
    right, front = base.marker_offset_mm
    half = (size / 2 + q) * (abs(math.cos(math.radians(base.marker_rotation_deg)))
                             + abs(math.sin(math.radians(base.marker_rotation_deg))))
    if abs(right) + half > w / 2 + 1e-9 or abs(front) + half > d / 2 + 1e-9:
        raise CampoInputError(
            f"marker {base.marker} with its quiet zone does not fit on base {base.id!r} "
            f"({w:g} x {d:g} mm); print with --cut marker", key="--cut")
    bits = marker_bits(dictionary, base.marker)
    rot = base.marker_rotation_deg % 360
    quarter = round(rot / 90) % 4

    def draw(x: float, y: float) -> list[Item]:
        cx, cy = x + w / 2 + right, y + d / 2 - front
        if abs(rot - 90 * round(rot / 90)) < 1e-9:
            shape: Item = marker_rects(np.rot90(bits, quarter), cx - size / 2, cy - size / 2, size)
        else:
            shape = marker_polygons(bits, cx, cy, size, rot)
        items: list[Item] = [dashed_box(x, y, x + w, y + d), shape,
                             Label(x + w / 2, y - 1.0, "front", size_pt=6, anchor="middle")]
        return items + _label_items(x + w + LABEL_GAP_MM, y, lines, None)

    return _Cell(w + LABEL_GAP_MM + LABEL_WIDTH_MM, max(d + 3.0, LABEL_HEIGHT_MM), draw)


def _pack(cells: list[_Cell], paper: str, title: str) -> list[Page]:
    """Shelf packing, left to right then top to bottom, in the order given."""
    width, height = paper_size(paper)
    x_max = width - MARGIN_MM
    y_top = MARGIN_MM + HEADER_MM
    y_max = height - MARGIN_MM - FOOTER_MM
    pages: list[Page] = []
    page, x, y, shelf = None, MARGIN_MM, y_top, 0.0
    for cell in cells:
        if cell.width > x_max - MARGIN_MM or cell.height > y_max - y_top:
            raise CampoInputError(f"a {cell.width:.0f} x {cell.height:.0f} mm cell does not fit on {paper} paper; "
                                  "choose a larger --paper", key="--paper")
        if page is not None and x + cell.width > x_max:
            x, y, shelf = MARGIN_MM, y + shelf + GAP_MM, 0.0
        if page is None or y + cell.height > y_max:
            page = Page(width, height)
            pages.append(page)
            x, y, shelf = MARGIN_MM, y_top, 0.0
        page.add(*cell.draw(x, y))
        x += cell.width + GAP_MM
        shelf = max(shelf, cell.height)
    for i, p in enumerate(pages, 1):
        p.add(Label(MARGIN_MM, MARGIN_MM + 4.0, f"{title} - page {i}/{len(pages)}", size_pt=10, bold=True))
        add_footer(p)
    return pages


def base_label_lines(base: RosterBase) -> list[str]:
    """What is printed beside a base's marker."""
    return [
        base.id,
        base.name or f"side {base.side}, type {base.type}",
        f"marker {base.marker}, {base.marker_size_mm:g} mm, side {base.side}",
    ]


def roster_sheets(table: TableConfig, roster: Roster, *, paper: str = "A4", cut: str = "marker",
                  title: str = "Campo base markers") -> list[Page]:
    """Pages with every base's marker, in roster order."""
    if cut not in CUT_CHOICES:
        raise CampoInputError(f"unknown cut {cut!r} (choose {', '.join(CUT_CHOICES)})", key="--cut")
    name = table.table.dictionary
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    cells = []
    for base in roster.bases:
        lines = base_label_lines(base)
        if cut == "base":
            cells.append(_base_cell(dictionary, base, lines))
        else:
            # The base front seen from the printed marker: marker up is the front turned by rotation.
            cells.append(_marker_cell(dictionary, base.marker, base.marker_size_mm, lines, -base.marker_rotation_deg))
    return _pack(cells, paper, f"{title} ({roster.ruleset}, {name})")


def anchor_sheets(table: TableConfig, *, paper: str = "A4", title: str = "Campo table anchors") -> list[Page]:
    """Pages with the table's anchor markers, each labelled with where it goes."""
    name = table.table.dictionary
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    cells = []
    for a in table.anchors:
        cells.append(_marker_cell(dictionary, a.marker, a.size_mm, anchor_label_lines(a), None))
    return _pack(cells, paper, f"{title} ({name}, glue flat on the table)")


def anchor_label_lines(anchor: Anchor) -> list[str]:
    """What is printed beside an anchor's marker."""
    return [
        f"anchor {anchor.marker}",
        f"centre at x {anchor.x_mm:g}, y {anchor.y_mm:g} mm",
        _direction_words(anchor.up_deg),
        f"{anchor.size_mm:g} mm black square",
    ]


def marker_sheets(table: TableConfig, roster: Roster, *, paper: str = "A4", cut: str = "marker") -> list[Page]:
    """Everything to print for a table: the bases' markers, the status tokens, then the anchors,
    each on their own pages."""
    return (roster_sheets(table, roster, paper=paper, cut=cut) + token_sheets(table, roster, paper=paper)
            + anchor_sheets(table, paper=paper))
