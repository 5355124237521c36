"""Every kind of terrain the engine knows: its shape (an area or a line) and a plain name.

Scenarios may use these kinds and no others (`campo.engine.scenario` checks); each ruleset says
what each kind does under its rulebook (`Ruleset.terrain_kinds`), and the terrain editor offers
every kind listed here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class TerrainKind:
    shape: Literal["area", "line"]
    label: str


TERRAIN_KINDS: dict[str, TerrainKind] = {
    # areas
    "wood": TerrainKind("area", "wood"),
    "town": TerrainKind("area", "town"),
    "village": TerrainKind("area", "village"),
    "farm": TerrainKind("area", "farm"),
    "hill": TerrainKind("area", "hill (may carry a crest line)"),
    "marsh": TerrainKind("area", "marsh"),
    "rice": TerrainKind("area", "rice field"),
    "water": TerrainKind("area", "lake or pond"),
    "rough": TerrainKind("area", "rough ground"),
    "cultivated": TerrainKind("area", "cultivated fields"),
    "orchard": TerrainKind("area", "orchard or vineyard"),
    "fortification": TerrainKind("area", "fortification"),
    "camp": TerrainKind("area", "camp"),
    # lines
    "road": TerrainKind("line", "road"),
    "river": TerrainKind("line", "river"),
    "stream": TerrainKind("line", "stream"),
    "hedge": TerrainKind("line", "hedge"),
    "wall": TerrainKind("line", "wall"),
    "stone_wall": TerrainKind("line", "stone wall"),
    "low_wall": TerrainKind("line", "low wall"),
    "parapet": TerrainKind("line", "parapet (field works)"),
    "tree_row": TerrainKind("line", "row of trees"),
    "tree_lined_road": TerrainKind("line", "tree-lined road"),
    "fortification_line": TerrainKind("line", "fortified line"),
    "bridge": TerrainKind("line", "bridge"),
    "ford": TerrainKind("line", "ford"),
    "crest": TerrainKind("line", "crest (on its own)"),
}

AREA_KINDS = frozenset(k for k, v in TERRAIN_KINDS.items() if v.shape == "area")
LINEAR_KINDS = frozenset(k for k, v in TERRAIN_KINDS.items() if v.shape == "line")
