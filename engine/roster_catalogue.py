"""What a roster builder offers for one rulebook: its troop types with their bases and starting
traits, and the army lists it carries (`Ruleset.roster_catalogue`). Each rulebook's package fills
it from its own vocabulary and tables; nothing is retyped in the server."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RosterCatalogue:
    """``types``: one entry per choice in the builder (``key``, ``type``, ``label``, ``meaning``,
    ``size_mm`` [frontage, depth] or None with a ``size_note`` saying why, ``size_cites``,
    starting ``traits``, the ``main_traits`` shown first); ``army_lists``: ``{"army", "nation",
    "units": [...]}`` templates from the rulebook's lists (empty when it has none)."""

    types: list[dict[str, Any]]
    army_lists: list[dict[str, Any]] = field(default_factory=list)


def type_entry(type_: str, meaning: str, main_traits: tuple[str, ...], *, size_mm: Any = None,
               size_cites: str | None = None, size_note: str | None = None,
               traits: dict[str, Any] | None = None, key: str | None = None,
               label: str | None = None) -> dict[str, Any]:
    """One troop type as the builder lists it (a size the rulebook does not give is None, and
    ``size_note`` tells the group to enter its own)."""
    return {"key": key or type_, "type": type_, "label": label or type_, "meaning": meaning,
            "size_mm": list(size_mm) if size_mm else None, "size_cites": size_cites if size_mm else None,
            "size_note": None if size_mm else size_note, "traits": dict(traits or {}),
            "main_traits": list(main_traits)}
