"""The scenario's terrain as shapely shapes, shared by every ruleset (area features as polygons,
linear ones as lines, hill crests as lines).

Terrain changes rarely in a live game while the bases move every frame, so the shapes are kept
across states by the terrain's content (`TERRAIN_CACHE_SIZE` terrains, least recently used out):
a new state with the same terrain gets the same shapes (shared: never modify them).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shapely.geometry import LineString, Polygon

if TYPE_CHECKING:
    from campo.engine.scenario import TerrainFeature
    from campo.engine.state import GameState

TERRAIN_CACHE_SIZE = 8
"""How many distinct terrains keep their shapes (a live game has one; tests a few)."""


@dataclass(frozen=True)
class TerrainShapes:
    """(id, kind, shape) per area and linear feature, (id, line) per crest, in table mm."""

    areas: list[tuple[str, str, Polygon]]
    linears: list[tuple[str, str, LineString]]
    crests: list[tuple[str, LineString]]


def terrain_shapes(state: GameState) -> TerrainShapes:
    """The state's terrain shapes: the same objects for every state whose terrain is equal."""
    return state.cached("terrain_shapes",
                        lambda: _shapes_of(tuple(_feature_key(t) for t in state.scenario.terrain)))


def _points(points: list | None) -> tuple | None:
    return None if points is None else tuple((float(x), float(y)) for x, y in points)


def _feature_key(t: TerrainFeature) -> tuple:
    """What a feature's shapes are made of (id, kind, outline, line, crest): hashable."""
    return t.id, t.kind, _points(t.polygon_mm), _points(t.line_mm), _points(t.crest_mm)


@functools.lru_cache(maxsize=TERRAIN_CACHE_SIZE)
def _shapes_of(key: tuple) -> TerrainShapes:
    """The shapes of a terrain given as its `_feature_key` rows (cached by that content)."""
    return TerrainShapes(
        areas=[(tid, kind, Polygon(poly)) for tid, kind, poly, _, _ in key if poly is not None],
        linears=[(tid, kind, LineString(line)) for tid, kind, _, line, _ in key
                 if line is not None],
        crests=[(tid, LineString(crest)) for tid, _, _, _, crest in key if crest is not None],
    )
