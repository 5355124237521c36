"""The scenario JSON (one moment of a game) as strict pydantic models.

Shape: shared/interfaces.md, "Scenario JSON". Optional extras for the live server and the other
rulesets: ``stale``/``marker``/``name`` on bases; ``settings``, ``armies``, ``turn``, ``phase`` and
``name`` on the scenario; ``level``, ``cover``, ``slope``, ``name`` on terrain.
"""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from campo.engine.terrain import AREA_KINDS, LINEAR_KINDS
from campo.errors import ScenarioError
from campo.safe_input import parse_json, read_bounded, unsound_value

# What a tabletop can hold. Beyond these a number is a typo or an attack, and the engine's
# geometry (GEOS) would overflow or run for minutes: refused, naming the key.
MAX_TABLE_MM = 100_000.0
"""A table side: 100 m (a club table is 1.8 m; a convention's long table 10 m)."""
MAX_COORD_MM = 1_000_000.0
"""A position on or off the table: 1 km from the origin either way."""
MAX_BASE_MM = 10_000.0
"""A base's frontage or depth: 10 m (an ATTILA camp is 20 cm)."""
MAX_BASES = 1000
"""Bases in one scenario: a 6' x 4' table packed edge to edge holds about 700 of 80 x 40 mm, and
the largest predefined marker dictionary has 1000 markers."""
MAX_TERRAIN = 500
"""Terrain features in one scenario."""
MAX_POINTS = 2000
"""Points in one polygon, line or crest."""
MAX_SCENARIO_BYTES = 32 * 1024 * 1024
"""Largest scenario file read (1000 bases with their traits and 500 detailed features fit in a
few MB)."""
SCENE_KEYS = ("ruleset", "table", "terrain", "settings", "armies", "turn", "phase")
"""Scenario members whose change can alter every verdict (a live game judges everything again)."""

Coordinate = Annotated[float, Field(ge=-MAX_COORD_MM, le=MAX_COORD_MM)]
XY = tuple[Coordinate, Coordinate]
Points = Annotated[list[XY], Field(max_length=MAX_POINTS)]


class _Strict(BaseModel):
    # NaN and infinities are refused on every float field ("must be a finite number")
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class TableSize(_Strict):
    width_mm: float = Field(gt=0, le=MAX_TABLE_MM)
    depth_mm: float = Field(gt=0, le=MAX_TABLE_MM)


class TerrainFeature(_Strict):
    """An area (``polygon_mm``) or a linear (``line_mm``) terrain feature, table mm."""

    id: str = Field(min_length=1)
    kind: str
    polygon_mm: Points | None = None
    line_mm: Points | None = None
    crest_mm: Points | None = None
    level: int = Field(1, ge=-100, le=100, description="hill level (1 = one level above the table)")
    cover: Literal["none", "soft", "hard"] | None = Field(
        None, description="override of the ruleset's cover class for this kind")
    slope: Literal["gentle", "steep"] | None = None
    impassable: bool | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _shape(self) -> TerrainFeature:
        if (self.polygon_mm is None) == (self.line_mm is None):
            raise ValueError("give exactly one of polygon_mm (area) or line_mm (linear)")
        if self.polygon_mm is not None:
            if self.kind not in AREA_KINDS:
                raise ValueError(f"kind {self.kind!r} is not an area kind "
                                 f"(known: {', '.join(sorted(AREA_KINDS))})")
            if len(self.polygon_mm) < 3:
                raise ValueError("polygon_mm needs at least 3 points")
            from shapely.geometry import Polygon
            if not Polygon(self.polygon_mm).is_valid:
                raise ValueError("polygon_mm is not a simple polygon (edges cross)")
        if self.line_mm is not None:
            if self.kind not in LINEAR_KINDS:
                raise ValueError(f"kind {self.kind!r} is not a linear kind "
                                 f"(known: {', '.join(sorted(LINEAR_KINDS))})")
            if len(self.line_mm) < 2:
                raise ValueError("line_mm needs at least 2 points")
        if self.crest_mm is not None:
            if self.kind != "hill":
                raise ValueError("only a hill may carry crest_mm")
            if len(self.crest_mm) < 2:
                raise ValueError("crest_mm needs at least 2 points")
        return self

    @property
    def is_area(self) -> bool:
        return self.polygon_mm is not None


class BaseState(_Strict):
    """One base on the table: pose in table mm, size, troop type and traits."""

    id: str = Field(min_length=1)
    side: Literal["A", "B"]
    type: str
    x_mm: Coordinate
    y_mm: Coordinate
    heading_deg: float = Field(ge=-MAX_COORD_MM, le=MAX_COORD_MM)
    width_mm: float = Field(gt=0, le=MAX_BASE_MM)
    depth_mm: float = Field(gt=0, le=MAX_BASE_MM)
    traits: dict[str, Any] = Field(default_factory=dict)
    stale: bool = False
    marker: int | None = None
    name: str | None = None

    @field_validator("heading_deg")
    @classmethod
    def _wrap(cls, v: float) -> float:
        return v % 360.0


class Scenario(_Strict):
    """One moment of a game (shared/interfaces.md)."""

    ruleset: str
    table: TableSize
    terrain: list[TerrainFeature] = Field(default_factory=list, max_length=MAX_TERRAIN)
    bases: list[BaseState] = Field(default_factory=list, max_length=MAX_BASES)
    settings: dict[str, Any] | None = None
    armies: dict[str, Any] | None = None
    turn: int | None = None
    phase: str | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _unique_ids(self) -> Scenario:
        for what, items in (("bases", self.bases), ("terrain", self.terrain)):
            seen: set[str] = set()
            for item in items:
                if item.id in seen:
                    raise ValueError(f"duplicate {what} id {item.id!r}")
                seen.add(item.id)
        return self

    def base(self, base_id: str) -> BaseState:
        for b in self.bases:
            if b.id == base_id:
                return b
        raise KeyError(base_id)


def _loc(loc: tuple[Any, ...], data: Any) -> str:
    """Pydantic location -> ``bases[3](pie-aosta).heading_deg`` (names the base when it can)."""
    out, node = "", data
    for part in loc:
        if isinstance(part, int):
            label = ""
            if isinstance(node, list) and 0 <= part < len(node):
                node = node[part]
                if isinstance(node, dict) and isinstance(node.get("id"), str):
                    label = f"({node['id']})"
            else:
                node = None
            out += f"[{part}]{label}"
        else:
            out += ("." if out else "") + str(part)
            node = node.get(part) if isinstance(node, dict) else None
    return out


def parse_scenario(data: Any, *, path: str | Path | None = None,
                   before: tuple[Any, Scenario] | None = None) -> Scenario:
    """A `Scenario` from decoded JSON; every problem is reported at once, by key.

    Traits and settings hold free-form values: a non-finite or absurd number or too deep a
    nesting anywhere is refused first (`campo.safe_input`), naming its key.

    ``before`` is an earlier moment that parsed (its decoded JSON and its `Scenario`: a live
    game's previous moment, where most bases have not moved): the bases and the terrain given
    exactly as then are taken over, and only the rest is checked, with the same errors."""
    if isinstance(data, Scenario):
        return data
    checked, given = (data, data) if before is None else _taking_over(data, *before)
    problem = unsound_value(checked)
    if problem is not None:
        raise ScenarioError(problem[1], path=path, key=_loc(problem[0], data) or None)
    try:
        return Scenario.model_validate(given)
    except ValidationError as exc:
        errors = exc.errors()
        found = [(_loc(tuple(e["loc"]), data), e["msg"].removeprefix("Value error, "))
                 for e in errors]
        if len(found) == 1:
            key, msg = found[0]
            raise ScenarioError(msg, path=path, key=key or None) from None
        joined = "; ".join(f"{key}: {msg}" if key else msg for key, msg in found)
        raise ScenarioError(f"{len(found)} problems: {joined}", path=path) from None


def _taking_over(data: Any, old_data: Any, old: Scenario) -> tuple[Any, Any]:
    """(``data`` to check for unsound values, ``data`` to validate): the bases (by id) and the
    terrain given exactly as in ``old_data`` left out of the first (they were sound) and replaced
    by their parsed models in the second (pydantic takes a model as it is). Every other item
    keeps its place, so an error names it as before."""
    if not isinstance(data, dict) or not isinstance(old_data, dict):
        return data, data
    checked, given = dict(data), dict(data)
    terrain = data.get("terrain")
    if isinstance(terrain, list) and terrain and _given_as_then(old_data.get("terrain"), terrain):
        checked["terrain"], given["terrain"] = None, list(old.terrain)
    bases, old_bases = data.get("bases"), old_data.get("bases")
    if isinstance(bases, list) and isinstance(old_bases, list):
        was = {b["id"]: (b, m) for b, m in zip(old_bases, old.bases)
               if isinstance(b, dict) and isinstance(b.get("id"), str) and m.id == b["id"]}
        checked_bases, given_bases = list(bases), list(bases)
        for k, b in enumerate(bases):
            hit = was.get(b.get("id")) if isinstance(b, dict) and isinstance(b.get("id"), str) \
                else None
            if hit is not None and _given_as_then(hit[0], b):
                checked_bases[k], given_bases[k] = None, hit[1]
        checked["bases"], given["bases"] = checked_bases, given_bases
    return checked, given


def _given_as_then(before: Any, now: Any) -> bool:
    """The same object (a live game's copy shares what did not change) or `same_json`."""
    return now is before or same_json(before, now)


def same_json(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same decoded JSON, types and order included: 4 and 4.0
    (or 1 and true), equal to Python, are not the same to a reader of traits or of the scenario
    sent on. Compared as marshal's bytes (C speed: the live server asks it of every base; its
    version 2 writes no back-references, so equal values give equal bytes).

    >>> same_json({"class": 4}, {"class": 4.0}), same_json({"a": [1, "x"]}, {"a": [1, "x"]})
    (False, True)
    """
    try:
        return marshal.dumps(a, 2) == marshal.dumps(b, 2)
    except ValueError:   # not JSON: never taken for the same
        return False


def load_scenario_file(path: str | Path) -> Scenario:
    """Read and check a scenario JSON file; errors name the file, the line and the key.

    The file is read in bounded time and memory: at most `MAX_SCENARIO_BYTES`, UTF-8, nesting,
    numbers and duplicate keys checked while decoding (`campo.safe_input.parse_json`)."""
    p = Path(path)
    raw = read_bounded(p, MAX_SCENARIO_BYTES, what="a scenario", error=ScenarioError)
    return parse_scenario(parse_json(raw, path=p, error=ScenarioError, check_values=False,
                                         invalid="not valid JSON"), path=p)
