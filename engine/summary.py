"""The compact per-base summary the board draws without a tap (`Ruleset.summaries`), and the
shape every ruleset gives it: keys omitted when empty, so 100 bases fit in a few kilobytes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from campo.engine.results import with_lists


def base_summary(*, contacts: Mapping[str, str] | None = None,
                 commanded_by: Iterable[str] = (), supported_by: Iterable[str] = (),
                 badges: Iterable[str] = ()) -> dict[str, Any]:
    """One base's summary: ``contacts`` {enemy id: aspect of this base touched},
    ``commanded_by``, ``supported_by`` (ids), ``badges`` (short words drawn on the base)."""
    out: dict[str, Any] = {"contacts": dict(contacts)} if contacts else {}
    return with_lists(out, commanded_by=list(commanded_by), supported_by=list(supported_by),
                      badges=list(badges))
