"""Inline SVG drawings of the table for the game report: terrain, bases, tracks (no JS, no CSS
files). SVG y points down, the table's y points away from player A, so y is flipped: A's edge
is at the bottom of the picture, as A sees the table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from campo.server.recording.movement import rect_of

SIDE_COLOURS = {"A": "#1f5fbf", "B": "#c0392b"}
TERRAIN_COLOURS = {"wood": "#7fae6b", "town": "#b9a48a", "village": "#b9a48a", "hill": "#d8c89a",
                   "marsh": "#9fc2b8", "rice": "#9fc2b8", "water": "#8fb8de", "river": "#5b8fd0",
                   "stream": "#7aa6da", "road": "#a08b6d", "wall": "#777", "hedge": "#4f7f3f"}


class TableSvg:
    """Accumulates SVG elements in table millimetres (flipped so A's edge is at the bottom)."""

    def __init__(self, width_mm: float, depth_mm: float, *, px_width: int = 900) -> None:
        self.w, self.d = float(width_mm), float(depth_mm)
        self.px_width = px_width
        self.parts: list[str] = []

    def pt(self, x: float, y: float) -> str:
        return f"{x:.1f},{self.d - y:.1f}"

    def terrain(self, features: Iterable[Mapping[str, Any]]) -> None:
        for f in features:
            colour = TERRAIN_COLOURS.get(str(f.get("kind")), "#bbb")
            title = f"<title>{escape(str(f.get('name') or f.get('id')))} ({escape(str(f.get('kind')))})</title>"
            if f.get("polygon_mm"):
                pts = " ".join(self.pt(x, y) for x, y in f["polygon_mm"])
                self.parts.append(f'<polygon points="{pts}" fill="{colour}" fill-opacity="0.7" '
                                  f'stroke="#555" stroke-width="1">{title}</polygon>')
            elif f.get("line_mm"):
                pts = " ".join(self.pt(x, y) for x, y in f["line_mm"])
                self.parts.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" '
                                  f'stroke-width="8" stroke-linecap="round">{title}</polyline>')

    def base(self, b: Mapping[str, Any], *, faded: bool = False, label: bool = True) -> None:
        r = rect_of(b)
        colour = SIDE_COLOURS.get(str(b.get("side")), "#444")
        pts = " ".join(self.pt(x, y) for x, y in r.corners)
        fl, fr = r.front_left, r.front_right
        opacity = "0.35" if faded else "0.9"
        name = escape(str(b.get("name") or b["id"]))
        self.parts.append(
            f'<g class="base" data-id="{escape(str(b["id"]))}"><title>{name}</title>'
            f'<polygon points="{pts}" fill="{colour}" fill-opacity="{opacity}" stroke="#222" '
            f'stroke-width="1"/><line x1="{fl[0]:.1f}" y1="{self.d - fl[1]:.1f}" '
            f'x2="{fr[0]:.1f}" y2="{self.d - fr[1]:.1f}" stroke="#fff" stroke-width="3"/></g>')
        if label and not faded:
            self.parts.append(f'<text x="{r.cx:.1f}" y="{self.d - r.cy + 4:.1f}" '
                              f'text-anchor="middle" font-size="18" fill="#111" '
                              f'stroke="#fff" stroke-width="3" paint-order="stroke">'
                              f'{escape(str(b["id"]))}</text>')

    def track(self, side: str, points: Sequence[tuple[float, float]], base_id: str) -> None:
        if len(points) < 2:
            return
        colour = SIDE_COLOURS.get(side, "#444")
        pts = " ".join(self.pt(x, y) for x, y in points)
        self.parts.append(f'<polyline class="track" data-id="{escape(base_id)}" points="{pts}" '
                          f'fill="none" stroke="{colour}" stroke-width="3" '
                          f'stroke-dasharray="8 4" stroke-opacity="0.8"/>')

    def render(self, title: str) -> str:
        h = round(self.px_width * self.d / self.w)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.w:.0f} {self.d:.0f}" '
                f'width="{self.px_width}" height="{h}" role="img" aria-label="{escape(title)}">'
                f'<rect x="0" y="0" width="{self.w:.0f}" height="{self.d:.0f}" fill="#eef0e4" '
                f'stroke="#333" stroke-width="2"/>{"".join(self.parts)}'
                f'<text x="10" y="{self.d - 10:.0f}" font-size="20" fill="#333">A</text>'
                f'<text x="10" y="28" font-size="20" fill="#333">B</text></svg>')
