"""What the roster builder offers for each rulebook: troop types, their bases and traits.

Everything comes from the rulebook's own package (`Ruleset.roster_catalogue`: the vocabulary,
ISD's base sizes and army lists, Federico's base-size settings); nothing is retyped here. A size
the rulebook does not give (ATTILA's bases, a Federico commander, ISD cavalry of letters B and D)
is ``None`` with a note saying so: the builder then asks for the group's own size instead of
inventing one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campo.engine.registry import get_ruleset, ruleset_names
from campo.engine.vocabulary import Vocabulary

STATE_TRAITS = ("disordered", "shaken", "losses")
"""Game-state traits: set during a game (PUT /api/bases/{id}/state), not in the builder's main view."""


def trait_fields(vocab: Vocabulary) -> list[dict[str, Any]]:
    """Every trait as a form field: key, kind, choices, doc."""
    return [{"key": key, "kind": t.kind, "choices": list(t.choices), "doc": t.doc,
             "state": key in STATE_TRAITS} for key, t in vocab.traits.items()]


def catalogue(ruleset: str, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the builder needs for ``ruleset`` (``settings``: the group's overrides, Federico's sizes)."""
    rs = get_ruleset(ruleset)
    vocab = rs.vocabulary
    offered = rs.roster_catalogue(settings or {})
    return {"ruleset": ruleset, "title": rs.title, "unit": rs.unit, "mm_per_unit": rs.mm_per_unit,
            "types": offered.types, "traits": trait_fields(vocab), "army_lists": offered.army_lists,
            "general_types": sorted(vocab.general_types)}


def rulebooks() -> list[dict[str, Any]]:
    """The rulebooks to choose from, in registry order."""
    out = []
    for name in ruleset_names():
        rs = get_ruleset(name)
        out.append({"ruleset": name, "title": rs.title, "unit": rs.unit, "mm_per_unit": rs.mm_per_unit})
    return out
