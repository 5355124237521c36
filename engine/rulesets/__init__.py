"""Rulesets: one package per rulebook (data, tables, settings, modifiers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from campo.errors import UnknownRulesetError

if TYPE_CHECKING:
    from campo.engine.ruleset import Ruleset

KNOWN = ("italia-se-desta", "attila", "federico")


def get_ruleset(name: str) -> Ruleset:
    """The ruleset object for a scenario's ``ruleset`` name (one object per rulebook)."""
    if name == "italia-se-desta":
        from campo.engine.rulesets.italia.ruleset import RULESET

        return RULESET
    if name == "attila":
        from campo.engine.rulesets.attila.ruleset import RULESET as ATTILA_RULESET

        return ATTILA_RULESET
    if name == "federico":
        from campo.engine.rulesets.federico.ruleset import RULESET as FEDERICO_RULESET

        return FEDERICO_RULESET
    raise UnknownRulesetError(f"unknown ruleset {name!r} (the engine knows: {', '.join(KNOWN)})",
                              key="ruleset")
