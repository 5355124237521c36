"""The static table: a cloth with painted terrain and clutter, and the floor around it.

Terrain uses the scenario's terrain list (`{"kind": "wood", "polygon_mm": ...}`, `{"kind":
"road", "line_mm": ...}`, a hill may carry `crest_mm`); without one, a plausible layout is
made up from the seed. Everything here is painted flat at z = 0 in one texture.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import cv2
import numpy as np

from shapely import LineString, Polygon

from campo.vision.tabletop import TableConfig

MARGIN_MM = 500.0
CLOTH = (62, 122, 96)  # BGR, a green gaming mat
FLOOR = (52, 66, 84)  # wooden floor / table frame around the mat

AREA_COLOURS = {
    "wood": (45, 88, 62), "town": (120, 150, 165), "hill": (84, 140, 128), "marsh": (90, 115, 95),
    "water": (140, 110, 70), "rough": (80, 110, 115),
}
LINE_STYLES = {  # colour, width mm
    "road": ((120, 160, 180), 30.0), "river": ((150, 115, 70), 55.0), "stream": ((150, 120, 80), 22.0),
    "hedge": ((35, 75, 45), 12.0), "wall": ((150, 155, 160), 8.0),
}


class Painter:
    """Draws in table millimetres onto a texture covering the table plus a margin."""

    def __init__(self, table: TableConfig, texels_per_mm: float, margin_mm: float = MARGIN_MM) -> None:
        self.s = float(texels_per_mm)
        self.margin = float(margin_mm)
        w = table.table.width_mm + 2 * margin_mm
        d = table.table.depth_mm + 2 * margin_mm
        self.size = (int(np.ceil(w * self.s)), int(np.ceil(d * self.s)))
        self.image = np.empty((self.size[1], self.size[0], 3), np.uint8)

    def px(self, pts_mm: Any) -> np.ndarray:
        """Table mm -> fixed-point (shift 4) texel coordinates; row 0 is y = -margin."""
        p = (np.asarray(pts_mm, np.float64).reshape(-1, 2) + self.margin) * self.s - 0.5
        return np.round(p * 16).astype(np.int32)

    @staticmethod
    def colour(c: Sequence[float] | float) -> tuple[float, ...]:
        return (float(c),) if np.isscalar(c) else tuple(float(v) for v in c)  # type: ignore[arg-type]

    def r(self, mm: float) -> int:
        return max(1, int(round(mm * self.s * 16)))

    def poly(self, pts_mm: Any, colour: Sequence[float] | float, img: np.ndarray | None = None) -> None:
        cv2.fillPoly(self.image if img is None else img, [self.px(pts_mm)], self.colour(colour), cv2.LINE_AA, 4)

    def line(self, pts_mm: Any, colour: Sequence[float] | float, width_mm: float, img: np.ndarray | None = None) -> None:
        thick = max(1, int(round(width_mm * self.s)))
        cv2.polylines(self.image if img is None else img, [self.px(pts_mm)], False, self.colour(colour), thick, cv2.LINE_AA, 4)

    def circle(self, c_mm: Any, r_mm: float, colour: Sequence[float] | float, img: np.ndarray | None = None) -> None:
        c = self.px(c_mm)[0]
        cv2.circle(self.image if img is None else img, (int(c[0]), int(c[1])), self.r(r_mm), self.colour(colour), -1, cv2.LINE_AA, 4)

    def noise(self, cell_mm: float, rng: np.random.Generator) -> np.ndarray:
        """Smooth random field (float32, ~N(0,1)) with features of about `cell_mm`."""
        w, h = self.size
        n = rng.normal(0, 1, (max(2, int(h / (cell_mm * self.s)) + 2), max(2, int(w / (cell_mm * self.s)) + 2))).astype(np.float32)
        return cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)

    def mask(self) -> np.ndarray:
        return np.zeros(self.image.shape[:2], np.uint8)



def _smooth_blob(centre: np.ndarray, radius: float, rng: np.random.Generator, n: int = 24) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = radius * (1 + 0.18 * np.sin(2 * a + rng.uniform(0, 6)) + 0.1 * np.sin(3 * a + rng.uniform(0, 6)))
    return centre + np.column_stack([np.cos(a) * r * 1.3, np.sin(a) * r])


def random_terrain(table: TableConfig, seed: int) -> list[dict[str, Any]]:
    """A plausible terrain list (scenario format) for a table, from a seed."""
    rng = np.random.default_rng(seed)
    w, d = table.table.width_mm, table.table.depth_mm
    out: list[dict[str, Any]] = []
    for i in range(2):
        c = np.array([rng.uniform(0.15, 0.85) * w, rng.uniform(0.3, 0.7) * d])
        out.append({"id": f"wood-{i + 1}", "kind": "wood", "polygon_mm": _smooth_blob(c, 0.08 * d, rng, 12).round(1).tolist()})
    c = np.array([rng.uniform(0.3, 0.7) * w, rng.uniform(0.35, 0.65) * d])
    hill = _smooth_blob(c, 0.12 * d, rng, 14)
    out.append({"id": "hill-1", "kind": "hill", "polygon_mm": hill.round(1).tolist(),
                "crest_mm": [(c - [0.12 * d, 0]).round(1).tolist(), (c + [0.12 * d, 0]).round(1).tolist()]})
    xs = np.linspace(-20, w + 20, 7)
    river = np.column_stack([xs, 0.5 * d + rng.normal(0, 0.06 * d, 7)])
    out.append({"id": "river-1", "kind": "stream", "line_mm": river.round(1).tolist()})
    ys = np.linspace(-20, d + 20, 6)
    road = np.column_stack([rng.uniform(0.2, 0.8) * w + rng.normal(0, 0.04 * w, 6), ys])
    out.append({"id": "road-1", "kind": "road", "line_mm": road.round(1).tolist()})
    return out


def _paint_area(p: Painter, item: Mapping[str, Any], rng: np.random.Generator) -> None:
    kind = item.get("kind", "rough")
    poly = np.asarray(item["polygon_mm"], np.float64)
    colour = AREA_COLOURS.get(kind, AREA_COLOURS["rough"])
    if kind == "hill":
        # Stepped contours, lighter toward the crest.
        c = poly.mean(axis=0)
        for k, f in enumerate((1.0, 0.75, 0.5)):
            ring = c + (poly - c) * f
            p.poly(ring, np.asarray(colour) + k * 8)
            p.line(np.vstack([ring, ring[:1]]), np.asarray(colour) * 0.8, 2.0)
        return
    p.poly(poly, colour)
    if kind == "town":
        _paint_buildings(p, poly, rng)
        return
    x0, y0 = poly.min(axis=0)
    x1, y1 = poly.max(axis=0)
    if kind in ("wood", "marsh", "rough"):
        n = int((x1 - x0) * (y1 - y0) / {"wood": 350, "marsh": 900, "rough": 700}[kind])
        for _ in range(n):
            q = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])
            if cv2.pointPolygonTest(poly.astype(np.float32), (float(q[0]), float(q[1])), False) < 0:
                continue
            if kind == "wood":
                g = rng.uniform(0.7, 1.2)
                p.circle(q + [2, 3], rng.uniform(9, 16), (20, 40, 28))
                p.circle(q, rng.uniform(8, 15), (30 * g, 75 * g, 45 * g))
                p.circle(q - [3, 3], rng.uniform(3, 6), (55 * g, 110 * g, 75 * g))
            elif kind == "marsh":
                p.line(np.array([q, q + [12, 0]]), (150, 130, 90), 3)
            else:
                p.circle(q, rng.uniform(3, 7), (95, 120, 130))


def _paint_buildings(p: Painter, poly: np.ndarray, rng: np.random.Generator) -> None:
    """Houses with pitched roofs, squared to the town's street grid, none overlapping."""
    area = Polygon(poly).buffer(-4)
    street = rng.uniform(0, np.pi / 2)
    x0, y0, x1, y1 = area.bounds
    houses: list[Polygon] = []
    for _ in range(400):
        q = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])
        a = street + rng.choice([0.0, np.pi / 2]) + rng.normal(0, 0.04)
        box = _rect(q, a, rng.uniform(28, 48), rng.uniform(18, 26))
        shape = Polygon(box)
        if not area.contains(shape) or any(shape.distance(h) < 5 for h in houses):
            continue
        houses.append(shape)
        roof = np.array((40, 70, 160) if rng.random() < 0.65 else (105, 108, 112)) * rng.uniform(0.85, 1.1)
        p.poly(box + [4, 5], (55, 65, 75))  # shadow
        ridge = np.array([(box[0] + box[3]) / 2, (box[1] + box[2]) / 2])
        p.poly(np.array([box[0], box[1], ridge[1], ridge[0]]), roof * 1.12)  # the lit slope
        p.poly(np.array([ridge[0], ridge[1], box[2], box[3]]), roof * 0.82)
        p.line(ridge, roof * 0.6, 1.2)


def paint_table(
    table: TableConfig,
    texels_per_mm: float,
    *,
    terrain: Sequence[Mapping[str, Any]] | None = None,
    clutter: bool = True,
    seed: int = 0,
) -> Painter:
    """The painted table texture (cloth, terrain, clutter, the floor around it); no markers."""
    rng = np.random.default_rng(seed)
    p = Painter(table, texels_per_mm)
    w, d = table.table.width_mm, table.table.depth_mm
    # Flat colours are painted first; the cloth's mottling and the floor's grain are added at the end,
    # so that painted terrain is mottled like the mat it is painted on.
    p.image[:] = np.array(FLOOR, np.uint8)
    mat = np.array([[0, 0], [w, 0], [w, d], [0, d]])
    p.poly(mat, CLOTH)
    cv2.polylines(p.image, [p.px(mat)], True, (35, 45, 55), max(1, int(round(8 * p.s))), cv2.LINE_AA, 4)
    items = list(terrain) if terrain is not None else random_terrain(table, seed)
    order = {"hill": 0, "marsh": 1, "rough": 1, "water": 1, "river": 2, "stream": 2, "road": 3, "wood": 4, "town": 4,
             "hedge": 5, "wall": 5}
    for item in sorted(items, key=lambda t: order.get(t.get("kind", ""), 4)):
        if "polygon_mm" in item:
            _paint_area(p, item, rng)
        elif "line_mm" in item:
            colour, width = LINE_STYLES.get(item.get("kind", "road"), LINE_STYLES["road"])
            line = np.asarray(item["line_mm"], np.float64)
            if item.get("kind") in ("river", "stream"):
                p.line(line, (60, 90, 80), width + 8)
            p.line(line, colour, width)
            if item.get("kind") == "wall":
                p.line(line, (90, 95, 100), width * 0.3)
    if clutter:
        paint_clutter(p, table, rng, items)
    _add_texture_noise(p, table, rng)
    return p


def _add_texture_noise(p: Painter, table: TableConfig, rng: np.random.Generator) -> None:
    """Mottled cloth on the mat, wood grain on the floor."""
    w_px, h_px = p.size
    w, d = table.table.width_mm, table.table.depth_mm
    m = p.mask()
    p.poly(np.array([[0, 0], [w, 0], [w, d], [0, d]]), 255, m)
    inside = m.astype(np.float32) * (1 / 255.0)
    grain = cv2.resize(rng.standard_normal((h_px, max(2, w_px // 40)), dtype=np.float32), (w_px, h_px))
    floor = p.noise(40, rng) * 6 + grain * 4
    cloth = p.noise(180, rng) * 5 + p.noise(25, rng) * 3 + rng.standard_normal((h_px, w_px), dtype=np.float32) * 3
    noise = floor + (cloth - floor) * inside
    for c in range(3):
        p.image[:, :, c] = np.clip(p.image[:, :, c] + noise * (0.8, 1.2, 1.0)[c], 0, 255).astype(np.uint8)


def _rect(centre: np.ndarray, angle: float, length: float, width: float) -> np.ndarray:
    u = np.array([np.cos(angle), np.sin(angle)]) * length / 2
    v = np.array([-np.sin(angle), np.cos(angle)]) * width / 2
    return np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v])


def paint_clutter(p: Painter, table: TableConfig, rng: np.random.Generator,
                  terrain: Sequence[Mapping[str, Any]] = ()) -> None:
    """Dice, a ruler and a tape measure along the players' edges, clear of anchors, terrain and each other."""
    w, d = table.table.width_mm, table.table.depth_mm
    inside = Polygon([(8, 8), (w - 8, 8), (w - 8, d - 8), (8, d - 8)])
    taken = [Polygon(_rect(np.array([a.x_mm, a.y_mm]), np.radians(a.up_deg), a.size_mm * 1.4, a.size_mm * 1.4)).buffer(30)
             for a in table.anchors]
    for item in terrain:
        if "polygon_mm" in item:
            taken.append(Polygon(item["polygon_mm"]).buffer(10))
        elif "line_mm" in item:
            taken.append(LineString(item["line_mm"]).buffer(LINE_STYLES.get(item.get("kind", ""), (None, 30.0))[1] / 2 + 10))

    def place(make, edge_y: float, tries: int = 80) -> tuple[np.ndarray, np.ndarray, float] | None:
        """(footprint, centre, angle) of `make(centre, angle)` near the edge at `edge_y`; None if no room."""
        for _ in range(tries):
            q = np.array([rng.uniform(0.08, 0.92) * w, edge_y + rng.uniform(-25, 25)])
            a = float(rng.uniform(-0.35, 0.35))
            pts = make(q, a)
            shape = Polygon(pts).convex_hull
            if inside.contains(shape) and not any(shape.intersects(t) for t in taken):
                taken.append(shape.buffer(10))
                return pts, q, a
        return None

    for edge_y in (45.0, d - 45.0):
        for _ in range(3):  # dice
            body = (230, 230, 228) if rng.random() < 0.5 else (40, 40, 190)
            placed = place(lambda q, a: _rect(q, a * 4, 16, 16), edge_y)
            if placed is None:
                continue
            die = placed[0]
            pip = (30, 30, 30) if body[0] > 100 else (235, 235, 235)
            p.poly(die + [2, 2], (40, 55, 50))
            p.poly(die, body)
            c, u, v = die.mean(axis=0), (die[1] - die[0]) / 2, (die[3] - die[0]) / 2
            for k in range(int(rng.integers(1, 7))):
                off = [(0, 0), (-.5, -.5), (.5, .5), (-.5, .5), (.5, -.5), (0, -.5)][k]
                p.circle(c + u * off[0] + v * off[1], 1.3, pip)
    placed = place(lambda q, a: _rect(q, a * 0.3, 300, 30), 55.0)
    if placed is not None:  # a 30 cm ruler with its ticks
        ruler = placed[0]
        p.poly(ruler + [3, 3], (40, 55, 50))
        p.poly(ruler, (80, 200, 230))
        along, across = (ruler[1] - ruler[0]) / 300, (ruler[3] - ruler[0]) / 30
        for k in range(0, 301, 25):
            b = ruler[0] + along * k
            p.line(np.array([b, b + across * (12 if k % 50 == 0 else 7)]), (30, 30, 30), 1.0)

    def tape(q: np.ndarray, a: float) -> np.ndarray:
        """Footprint of a tape measure: its case (a disc at q) and 20 cm of tape pulled out along a."""
        ring = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        direction = np.array([np.cos(a), np.sin(a)])
        return np.vstack([q + 36 * np.column_stack([np.cos(ring), np.sin(ring)]),
                          _rect(q + direction * 130, a, 200, 18)])

    placed = place(tape, d - 55.0)
    if placed is not None:
        _, case, a = placed
        direction = np.array([np.cos(a), np.sin(a)])
        n = np.array([-direction[1], direction[0]])
        start = case + direction * 30
        strip = np.array([start - n * 9, start + direction * 200 - n * 9, start + direction * 200 + n * 9, start + n * 9])
        p.poly(strip + [2, 2], (40, 55, 50))
        p.poly(strip, (150, 225, 240))
        for k in range(0, 200, 10):
            b = start + direction * k - n * 9
            p.line(np.array([b, b + n * (8 if k % 50 == 0 else 4)]), (30, 30, 30), 0.8)
        p.circle(case + [3, 3], 36, (40, 55, 50))
        p.circle(case, 35, (30, 180, 230))
        p.circle(case, 12, (40, 40, 40))
