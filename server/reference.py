"""The umpire's rules panel (`GET /api/rules`): the ruleset's unit, its settings (the rulebook's
ambiguities and the values the rulebook does not give) with the values in force, its terrain
kinds, and its quick-reference tables, all asked of the ruleset object (`Ruleset.reference`
builds the tables from the rulebook's tables modules, so the page shows the numbers the engine
uses). Federico and ATTILA rows carry a ``gap`` flag: the page shows those under
"Not in the rulebook: set for your group"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campo.engine.registry import get_ruleset
from campo.engine.terrain import TERRAIN_KINDS

GAP_HEADING = "Not in the rulebook: set for your group"


def _jsonable(value: Any) -> Any:
    """A setting's value in JSON form (tuples and sets become lists)."""
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_jsonable(v) for v in value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def settings_rows(ruleset: str, values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ruleset's `describe_settings()` rows with `value` (in force) and `overridden`."""
    rs = get_ruleset(ruleset)
    in_force = rs.load_settings(values)
    rows = rs.describe_settings()
    for row in rows:
        row["value"] = _jsonable(getattr(in_force, row["name"]))
        row["default"] = _jsonable(row["default"])
        row["overridden"] = row["name"] in values
        row.setdefault("gap", False)
    return rows


def rules_info(ruleset: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """What `/api/rules` returns: unit, settings (with `value` in force and `gap`), the gap
    heading, the terrain kinds the editor offers (every kind the engine knows, with what it
    does under this rulebook) and the reference tables."""
    rs = get_ruleset(ruleset)
    return {"ruleset": rs.name, "title": rs.title, "unit": rs.unit, "mm_per_unit": rs.mm_per_unit,
            "gap_heading": GAP_HEADING,
            "settings": settings_rows(ruleset, values),
            "terrain_kinds": [{"kind": kind, "shape": k.shape, "label": k.label,
                               "effect": rs.terrain_kinds.get(kind, "")}
                              for kind, k in TERRAIN_KINDS.items()],
            "page_module": None if rs.page_module is None else f"/rulesets/{rs.name}.js",
            "reference": rs.reference(in_force_settings(ruleset, values))}


def in_force_settings(ruleset: str, values: Mapping[str, Any]) -> Any:
    return get_ruleset(ruleset).load_settings(values)
