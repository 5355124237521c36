"""The compact per-base summary the board draws without a tap (`Ruleset.summaries`), and the
shape every ruleset gives it: keys omitted when empty, so 100 bases fit in a few kilobytes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def base_summary(*, contacts: Mapping[str, str] | None = None,
                 commanded_by: Iterable[str] = (), supported_by: Iterable[str] = (),
                 badges: Iterable[str] = ()) -> dict[str, Any]:
    """One base's summary: ``contacts`` {enemy id: aspect of this base touched},
    ``commanded_by``, ``supported_by`` (ids), ``badges`` (short words drawn on the base)."""
    out: dict[str, Any] = {}
    if contacts:
        out["contacts"] = dict(contacts)
    for name, values in (("commanded_by", commanded_by), ("supported_by", supported_by),
                         ("badges", badges)):
        listed = list(values)
        if listed:
            out[name] = listed
    return out
