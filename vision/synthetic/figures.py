"""Painted 15 mm figures seen from above, on a base's top texture (around its marker).

Only looks matter here: the figures never cover the marker or its quiet zone (`keep_out`).
Coordinates are base-top millimetres with the front edge at y = 0 (texture row 0).
"""

from __future__ import annotations

import cv2
import numpy as np

from campo.vision.tabletop import RosterBase

SIDE_COLOURS = {
    # coat, trousers/facings, headgear (BGR): Piedmontese dark blue, Austrian white with light blue trousers.
    "A": ((110, 50, 28), (140, 130, 120), (25, 25, 30)),
    "B": ((225, 228, 230), (150, 110, 80), (30, 30, 32)),
}
MUSKET = (40, 62, 88)
SKIN = (120, 150, 205)
HORSES = ((38, 62, 98), (30, 45, 70), (28, 28, 32), (95, 120, 150))


def kind_of(base: RosterBase) -> str:
    """What to paint: infantry, cavalry, gun or general."""
    arm = str(base.traits.get("arm", ""))
    if base.type in ("gun", "limber") or arm == "artillery":
        return "gun"
    if base.type == "general":
        return "general"
    if arm == "cavalry" or base.type == "C":
        return "cavalry"
    return "infantry"


class _Brush:
    def __init__(self, img: np.ndarray, scale: float) -> None:
        self.img, self.scale = img, scale

    def pt(self, x: float, y: float) -> tuple[int, int]:
        return int(round((x * self.scale - 0.5) * 16)), int(round((y * self.scale - 0.5) * 16))

    def ellipse(self, x: float, y: float, ax: float, ay: float, colour, angle: float = 0.0) -> None:
        axes = (max(1, int(round(ax * self.scale * 16))), max(1, int(round(ay * self.scale * 16))))
        cv2.ellipse(self.img, self.pt(x, y), axes, angle, 0, 360, tuple(map(float, colour)), -1, cv2.LINE_AA, 4)

    def line(self, x0: float, y0: float, x1: float, y1: float, colour, width_mm: float) -> None:
        cv2.line(self.img, self.pt(x0, y0), self.pt(x1, y1), tuple(map(float, colour)),
                 max(1, int(round(width_mm * self.scale))), cv2.LINE_AA, 4)


def paint_figures(img: np.ndarray, base: RosterBase, scale: float, keep_out: np.ndarray, rng: np.random.Generator) -> None:
    """Figures in ranks (infantry), horses and riders (cavalry, generals) or a gun and its crew."""
    w, d = base.width_mm, base.depth_mm
    h, wi = img.shape[:2]
    b = _Brush(img, scale)
    coat, trousers, hat = SIDE_COLOURS.get(base.side, SIDE_COLOURS["A"])
    kind = kind_of(base)

    def free(x: float, y: float, rx: float, ry: float) -> bool:
        x0, x1 = int((x - rx) * scale), int((x + rx) * scale) + 1
        y0, y1 = int((y - ry) * scale), int((y + ry) * scale) + 1
        if x0 < 0 or y0 < 0 or x1 > wi or y1 > h or x - rx < 0.5 or x + rx > w - 0.5 or y - ry < 0.5 or y + ry > d - 0.5:
            return False
        return not keep_out[y0:y1, x0:x1].any()

    def shadow(x: float, y: float, rx: float, ry: float) -> None:
        b.ellipse(x + 0.8, y + 0.9, rx, ry, (22, 36, 30))

    if kind == "gun":
        x, y = w / 2, 7.0
        if free(x, y, 5.5, 6.0):
            shadow(x, y, 2.2, 6.0)
            b.ellipse(x, y, 1.5, 5.8, (45, 95, 140))  # bronze barrel, muzzle to the front
            b.ellipse(x, y - 5.2, 1.2, 0.5, (20, 30, 40))
            for side in (-1, 1):
                b.ellipse(x + side * 4.0, y + 2.5, 0.9, 3.2, (35, 50, 70))  # wheels
        crew_y = 5.0
        for cx in (3.0, w - 3.0):
            if free(cx, crew_y, 2.2, 2.2):
                _soldier(b, cx, crew_y, coat, trousers, hat, rng, musket=False)
        return
    if kind in ("cavalry", "general"):
        n = 1 if kind == "general" else max(1, int(w // 10))
        xs = [w / 2 + 9.0] if kind == "general" else list((np.arange(n) + 0.5) * (w / n))
        for x in xs:
            for y in (9.0, 23.0) if d >= 30 and kind == "cavalry" else (d / 2,):
                if not free(x, y, 3.5, 8.5):
                    continue
                horse = HORSES[int(rng.integers(len(HORSES)))]
                shadow(x, y, 3.0, 8.0)
                b.ellipse(x, y + 1, 2.8, 7.0, horse)
                b.ellipse(x, y - 6.2, 1.3, 2.4, horse)  # head, to the front
                b.line(x, y + 7.5, x + rng.uniform(-1, 1), y + 10, (20, 25, 30), 0.8)  # tail
                b.ellipse(x, y + 1.5, 2.4, 1.9, coat)  # rider
                b.ellipse(x, y + 1.3, 1.2, 1.2, hat)
                if kind == "general":
                    b.ellipse(x, y + 1.3, 1.7, 0.5, (40, 170, 215))  # gold braid / bicorne
                    b.ellipse(x - 1.5, y + 3.0, 0.7, 1.2, (45, 45, 190))  # sash
        if kind == "general":  # an aide on foot
            if free(w / 2 - 11, d / 2 + 6, 2.5, 2.5):
                _soldier(b, w / 2 - 11, d / 2 + 6, coat, trousers, hat, rng, musket=False)
        return
    # Infantry: ranks from the front edge, files 4.6 mm apart.
    files = max(1, int((w - 2) // 4.6))
    ranks = [4.0 + 7.5 * k for k in range(6) if 4.0 + 7.5 * k + 3 <= d]
    for r, y in enumerate(ranks):
        for f in range(files):
            x = (f + 0.5) * (w / files) + rng.normal(0, 0.25) + (1.2 if r % 2 else 0.0)
            yy = y + rng.normal(0, 0.3)
            if free(x, yy, 2.3, 2.8):
                _soldier(b, x, yy, coat, trousers, hat, rng, musket=True,
                         plume=base.side == "A" and bool(base.traits.get("light")))


def _soldier(b: _Brush, x: float, y: float, coat, trousers, hat, rng: np.random.Generator, *, musket: bool,
             plume: bool = False) -> None:
    """One standing figure from above: shadow, pack, shoulders, head; musket at the shoulder."""
    b.ellipse(x + 0.7, y + 0.9, 2.2, 1.7, (22, 36, 30))
    b.ellipse(x, y + 1.3, 1.5, 1.0, (40, 55, 70))  # pack / blanket roll behind
    b.ellipse(x, y, 2.2, 1.4, coat)
    light = tuple(min(255, c * 1.25 + 20) for c in coat)
    b.ellipse(x - 0.5, y - 0.3, 1.1, 0.6, light)
    b.line(x - 1.6, y - 0.5, x + 1.6, y + 0.5, (225, 225, 220), 0.35)  # cross belt
    b.ellipse(x, y - 0.1, 0.95, 0.95, hat)
    if plume:
        b.ellipse(x + 0.6, y + 0.6, 1.1, 1.5, (40, 70, 40), 30)  # bersaglieri feathers
    if musket:
        b.line(x + 1.5, y - 3.0, x + 1.7, y + 1.0, (30, 30, 35) if rng.random() < 0.5 else (45, 62, 88), 0.45)
        b.ellipse(x + 1.5, y - 3.0, 0.25, 0.25, (150, 150, 155))  # bayonet tip
