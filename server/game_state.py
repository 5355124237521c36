"""The game as the server holds it: roster + tracked poses + the umpire's terrain and settings.

`scenario_from_tracking` turns the roster and the tracker's poses into the scenario JSON of
shared/interfaces.md (bases never seen are absent; bases hidden by a hand keep their last pose
with `"stale": true`). `poses_changed` decides whether a frame really changed the game: poses are
compared with tolerances, so sensor noise never triggers a new analysis.

`GameSetup` is what the umpire edits on the page (terrain, ruleset settings). It is saved
atomically to the setup file (`terrain.json`, see docs/server.md) and carries a version number
the per-frame loop watches to re-analyse after an edit.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from campo.atomic_file import write_atomic
from campo.engine.scenario import MAX_TERRAIN, TerrainFeature
from campo.errors import CampoInputError, FileFormatError
from campo.safe_input import format_loc, object_with_keys, parse_json, read_bounded, unsound_value
from campo.vision.tabletop import Roster

SETUP_FILE_VERSION = 1
MAX_SETUP_BYTES = 8 * 1024 * 1024
"""Largest terrain.json read (500 detailed features fit in a few hundred KB)."""


class PoseLike(Protocol):
    id: str
    x_mm: float
    y_mm: float
    heading_deg: float
    stale: bool


@dataclass(frozen=True)
class PoseTolerance:
    """How far a base must move (or turn) before the game state counts as changed."""

    mm: float = 3.0
    deg: float = 2.0


@dataclass(frozen=True)
class PoseKey:
    """The part of a tracked pose that matters for change detection."""

    x_mm: float
    y_mm: float
    heading_deg: float
    stale: bool


def pose_keys(tracked: Iterable[PoseLike]) -> dict[str, PoseKey]:
    return {b.id: PoseKey(b.x_mm, b.y_mm, b.heading_deg, bool(b.stale)) for b in tracked}


def _turn(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def poses_changed(old: Mapping[str, PoseKey], new: Mapping[str, PoseKey], tol: PoseTolerance) -> bool:
    """True when a base appeared, vanished, became (un)stale, or moved/turned beyond `tol`.

    >>> a = {"x": PoseKey(100.0, 100.0, 90.0, False)}
    >>> poses_changed(a, {"x": PoseKey(101.0, 100.5, 90.8, False)}, PoseTolerance())
    False
    >>> poses_changed(a, {"x": PoseKey(105.0, 100.0, 90.0, False)}, PoseTolerance())
    True
    >>> poses_changed(a, {"x": PoseKey(100.0, 100.0, 359.5 + 91.0, False)}, PoseTolerance())
    False
    """
    if old.keys() != new.keys():
        return True
    for base_id, n in new.items():
        o = old[base_id]
        if o.stale != n.stale:
            return True
        if math.hypot(n.x_mm - o.x_mm, n.y_mm - o.y_mm) > tol.mm or _turn(n.heading_deg, o.heading_deg) > tol.deg:
            return True
    return False


def scenario_from_tracking(
    roster: Roster,
    table_size: tuple[float, float],
    tracked: Iterable[PoseLike],
    terrain: list[dict[str, Any]],
    settings: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The scenario JSON for the bases the tracker knows (in roster order)."""
    by_id = {t.id: t for t in tracked}
    bases = []
    for rb in roster.bases:
        pose = by_id.get(rb.id)
        if pose is None:
            continue  # never seen: absent from the game (cannot be targeted or charged)
        base: dict[str, Any] = {
            "id": rb.id, "side": rb.side, "type": rb.type,
            "x_mm": round(float(pose.x_mm), 2), "y_mm": round(float(pose.y_mm), 2),
            "heading_deg": round(float(pose.heading_deg) % 360.0, 2),
            "width_mm": rb.width_mm, "depth_mm": rb.depth_mm, "traits": dict(rb.traits),
            "marker": rb.marker, "name": rb.label,
        }
        if pose.stale:
            base["stale"] = True
        bases.append(base)
    scenario: dict[str, Any] = {
        "ruleset": roster.ruleset,
        "table": {"width_mm": table_size[0], "depth_mm": table_size[1]},
        "terrain": [dict(t) for t in terrain],
        "bases": bases,
    }
    if settings:
        scenario["settings"] = dict(settings)
    return scenario


# -- the umpire's setup ------------------------------------------------------------------------


def check_terrain(features: Any, *, path: str | Path | None = None) -> list[dict[str, Any]]:
    """Validated terrain features (the scenario's shape); errors name the feature and key."""
    if not isinstance(features, list):
        raise CampoInputError("terrain must be a list of features", path=path, key="terrain")
    if len(features) > MAX_TERRAIN:
        raise CampoInputError(f"{len(features)} features; at most {MAX_TERRAIN}", path=path, key="terrain")
    problem = unsound_value(features)
    if problem is not None:
        raise CampoInputError(problem[1], path=path, key=format_loc(("terrain", *problem[0])))
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, item in enumerate(features):
        label = f"terrain[{i}]" + (f"({item['id']})" if isinstance(item, dict) and isinstance(item.get("id"), str) else "")
        try:
            feature = TerrainFeature.model_validate(item)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            errors = getattr(exc, "errors", lambda: [])()
            msg = "; ".join(
                (".".join(str(p) for p in e["loc"]) + ": " if e["loc"] else "") + e["msg"].removeprefix("Value error, ")
                for e in errors) or str(exc)
            raise CampoInputError(msg, path=path, key=label) from None
        if feature.id in seen:
            raise CampoInputError(f"duplicate terrain id {feature.id!r}", path=path, key=label)
        seen.add(feature.id)
        out.append(feature.model_dump(mode="json", exclude_none=True, exclude_defaults=True))
    return out


def check_settings(ruleset: str, values: Any, *, path: str | Path | None = None) -> dict[str, Any]:
    """The umpire's setting overrides, validated by the ruleset (only the keys given are kept)."""
    if not isinstance(values, dict):
        raise CampoInputError("settings must be an object of name: value", path=path, key="settings")
    problem = unsound_value(values)
    if problem is not None:
        raise CampoInputError(problem[1], path=path, key=format_loc(problem[0]))
    from campo.engine.rulesets import get_ruleset

    get_ruleset(ruleset).load_settings(values)  # raises CampoInputError naming the key
    return dict(values)


class GameSetup:
    """Terrain and settings, shared by the web handlers and the per-frame loop (thread-safe)."""

    def __init__(self, ruleset: str, terrain: list[dict[str, Any]] | None = None,
                 settings: dict[str, Any] | None = None, *, path: Path | None = None) -> None:
        self.ruleset = ruleset
        self.path = path
        self._lock = threading.Lock()
        self._terrain = check_terrain(terrain or [])
        self._settings = check_settings(ruleset, settings or {})
        self.version = 0

    @classmethod
    def load(cls, ruleset: str, path: Path, default_terrain: list[dict[str, Any]] | None = None) -> GameSetup:
        """From the setup file when it exists, else `default_terrain` (saved on the first edit)."""
        if not path.exists():
            return cls(ruleset, default_terrain, None, path=path)
        data = parse_json(read_bounded(path, MAX_SETUP_BYTES, what="a terrain file"), path=path)
        data = object_with_keys(data, path, {"version", "terrain", "settings"}, not_object=(
            "must be a JSON object {\"version\": %d, \"terrain\": [...], \"settings\": {...}}%s"
            % (SETUP_FILE_VERSION, " (this is a bare list of terrain features: put it under "
               "\"terrain\", or give another file with --terrain)" if isinstance(data, list) else "")))
        if data.get("version") != SETUP_FILE_VERSION:
            raise FileFormatError(f"version {data.get('version')!r} is not supported (this Campo reads "
                                  f"{SETUP_FILE_VERSION})", path=path, key="version")
        return cls(ruleset, check_terrain(data.get("terrain", []), path=path),
                   check_settings(ruleset, data.get("settings", {}), path=path), path=path)

    def snapshot(self) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
        """(version, terrain, settings), consistent with each other."""
        with self._lock:
            return self.version, [dict(t) for t in self._terrain], dict(self._settings)

    def set_terrain(self, features: Any) -> list[dict[str, Any]]:
        terrain = check_terrain(features)
        with self._lock:
            self._save(terrain, self._settings)
            self._terrain = terrain
            self.version += 1
        return terrain

    def set_settings(self, values: Any) -> dict[str, Any]:
        settings = check_settings(self.ruleset, values)
        with self._lock:
            self._save(self._terrain, settings)
            self._settings = settings
            self.version += 1
        return settings

    def _save(self, terrain: list[dict[str, Any]], settings: dict[str, Any]) -> None:
        """Write the setup file first: a change that cannot be saved is not applied either."""
        if self.path is None:
            return
        data = {"version": SETUP_FILE_VERSION, "terrain": terrain, "settings": settings}
        # allow_nan=False: a non-finite number is refused before this; never written as Infinity
        write_atomic(self.path, json.dumps(data, indent=2, allow_nan=False) + "\n")
