"""Shapes as the overlay draws them: plain [[x, y], ...] lists in table mm, rounded to 0.1 mm."""

from __future__ import annotations

from typing import Any


def ring_coords(geom: Any) -> list[list[float]]:
    """Exterior ring of a polygon (largest part if several) as [[x, y], ...]; [] otherwise.

    >>> import shapely
    >>> ring_coords(shapely.box(0, 0, 2, 1))
    [[2.0, 0.0], [2.0, 1.0], [0.0, 1.0], [0.0, 0.0]]
    """
    if geom is None or geom.is_empty:
        return []
    if hasattr(geom, "geoms"):
        geom = max(geom.geoms, key=lambda g: g.area)
    if geom.geom_type != "Polygon":
        return []
    return [[round(x, 1), round(y, 1)] for x, y in list(geom.exterior.coords)[:-1]]
