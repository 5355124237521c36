"""Overlay geometry for one base in the current state (arc, range bands, charge paths), cached.

The engine computes it (`engine.analysis.overlay_geometry`); this module only strips the
server's extra members from the state and caches the answer until the state changes, so a
tablet that asks again on every redraw costs nothing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

SERVER_MEMBERS = ("analysis", "live")
"""Members the server adds to the scenario JSON; not part of the engine's input."""

_CACHE_SIZE = 64
_lock = threading.Lock()
_cache: OrderedDict[tuple[int, str], dict[str, Any]] = OrderedDict()


def scenario_of(state: dict[str, Any]) -> dict[str, Any]:
    """The scenario JSON inside a published state."""
    return {k: v for k, v in state.items() if k not in SERVER_MEMBERS}


def geometry_for(state: dict[str, Any], base_id: str) -> dict[str, Any]:
    """The engine's overlay geometry for `base_id` in `state` (table mm)."""
    from campo.engine import overlay_geometry

    key = (id(state), base_id)
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit.get("_state") is state:
            return hit["geometry"]  # type: ignore[no-any-return]
    geometry = overlay_geometry(scenario_of(state), base_id)
    with _lock:
        _cache[key] = {"_state": state, "geometry": geometry}
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return geometry
