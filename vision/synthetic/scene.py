"""What stands on the table in one frame: bases at their poses, status tokens lying against them,
and hands reaching over it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from shapely import LineString, Polygon, unary_union

from campo.vision.tabletop import RosterBase, RosterToken, card_side_mm


@dataclass(frozen=True)
class PlacedBase:
    """A roster base at a pose on the table (centre in mm, heading in degrees CCW from +x)."""

    base: RosterBase
    x_mm: float
    y_mm: float
    heading_deg: float

    @property
    def id(self) -> str:
        return self.base.id


@dataclass(frozen=True)
class PlacedToken:
    """A roster token's card lying on the table: its centre (mm) and the way its marker's top
    edge points (degrees CCW from +x)."""

    token: RosterToken
    x_mm: float
    y_mm: float
    up_deg: float = 90.0

    @property
    def id(self) -> str:
        return self.token.id

    def as_card(self, dictionary: str) -> PlacedBase:
        """The card as a thin square "base" the renderer draws like any other: the marker and its
        white quiet zone fill it (nothing is painted around them)."""
        side = card_side_mm(self.token.size_mm, dictionary)
        card = RosterBase(marker=self.token.marker, id=self.token.id, side="A", type="token",
                          width_mm=side, depth_mm=side, marker_size_mm=self.token.size_mm,
                          height_mm=self.token.height_mm)
        return PlacedBase(card, self.x_mm, self.y_mm, self.up_deg)


@dataclass(frozen=True, eq=False)
class Hand:
    """A player's hand and forearm: a flat occluder `outline_mm` (table x, y) at `height_mm`.

    Build one with `Hand.reaching`; any polygon works (it is drawn as a skin-coloured shape).
    """

    outline_mm: np.ndarray = field(repr=False)
    height_mm: float = 150.0
    skin_bgr: tuple[int, int, int] = (120, 150, 205)

    def __post_init__(self) -> None:
        pts = np.asarray(self.outline_mm, dtype=np.float64).reshape(-1, 2)
        if len(pts) < 3:
            raise ValueError("a hand outline needs at least 3 points")
        object.__setattr__(self, "outline_mm", pts)

    @classmethod
    def reaching(
        cls,
        from_mm: Sequence[float],
        to_mm: Sequence[float],
        *,
        height_mm: float = 150.0,
        arm_width_mm: float = 68.0,
        spread: float = 0.5,
        skin_bgr: tuple[int, int, int] = (120, 150, 205),
    ) -> Hand:
        """An arm coming in from `from_mm` (e.g. beyond a table edge) with the fingertips at `to_mm`.

        The outline is a forearm, a palm, four fingers and a thumb (right hand, palm down);
        `spread` 0..1 opens the fingers.
        """
        start = np.asarray(from_mm, dtype=np.float64)
        tip = np.asarray(to_mm, dtype=np.float64)
        direction = tip - start
        length = float(np.linalg.norm(direction))
        d = direction / length if length > 1e-6 else np.array([0.0, 1.0])
        n = np.array([d[1], -d[0]])  # to the hand's right seen from above; the thumb is on the left (-n)
        scale = arm_width_mm / 68.0

        def at(along: float, across: float) -> tuple[float, float]:
            p = tip + d * along * scale + n * across * scale
            return float(p[0]), float(p[1])

        # Lengths back from the fingertips (mm, for a 68 mm forearm).
        knuckles, wrist = -80.0, -175.0
        parts = [LineString([at(wrist - 10, 0), (float(start[0] - d[0] * 500), float(start[1] - d[1] * 500))]).buffer(34 * scale),
                 Polygon([at(wrist, -30), at(wrist, 30), at(knuckles, 44), at(knuckles + 8, 0), at(knuckles, -44)]).buffer(6 * scale)]
        fingers = [(-30.0, 64.0, 8.0), (-10.0, 76.0, 8.5), (10.0, 80.0, 8.5), (30.0, 70.0, 7.5)]
        for across, flen, half_w in fingers:
            fan = across * (1 + 0.6 * spread)
            parts.append(LineString([at(knuckles + 4, across), at(knuckles + flen, fan)]).buffer(half_w * scale))
        parts.append(LineString([at(wrist + 45, -36), at(wrist + 95, -62 - 20 * spread), at(knuckles + 30, -70 - 25 * spread)])
                     .buffer(10 * scale))
        shape = unary_union(parts).simplify(0.4 * scale)
        if shape.geom_type != "Polygon":
            shape = max(shape.geoms, key=lambda g: g.area)
        outline = np.asarray(shape.exterior.coords)[:-1]
        return cls(outline, height_mm, skin_bgr)
