"""The scenario's terrain as shapely shapes, built once per game state and shared by every
ruleset (area features as polygons, linear ones as lines, hill crests as lines)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from shapely.geometry import LineString, Polygon

if TYPE_CHECKING:
    from campo.engine.state import GameState


@dataclass(frozen=True)
class TerrainShapes:
    """(id, kind, shape) per area and linear feature, (id, line) per crest, in table mm."""

    areas: list[tuple[str, str, Polygon]]
    linears: list[tuple[str, str, LineString]]
    crests: list[tuple[str, LineString]]


def terrain_shapes(state: GameState) -> TerrainShapes:
    """The state's terrain shapes, cached on the state (rebuilt only when the state changes)."""

    def build() -> TerrainShapes:
        terrain = state.scenario.terrain
        return TerrainShapes(
            areas=[(t.id, t.kind, Polygon(t.polygon_mm)) for t in terrain if t.polygon_mm is not None],
            linears=[(t.id, t.kind, LineString(t.line_mm)) for t in terrain if t.line_mm is not None],
            crests=[(t.id, LineString(t.crest_mm)) for t in terrain if t.crest_mm is not None],
        )

    return state.cached("terrain_shapes", build)
