"""The rulebooks Campo knows: one line each, naming the module that holds its `RULESET`.

A new rulebook is a package under `engine/rulesets/` whose `ruleset` module defines `RULESET`
(an object of the `campo.engine.ruleset.Ruleset` protocol) and one line here. The server finds
everything else about it (settings, reference tables, terrain kinds, umpire tools, its page
module) through that object. Modules are imported by name on first use, so nothing in the engine
imports a rulebook at module level.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from campo.errors import UnknownRulesetError

if TYPE_CHECKING:
    from campo.engine.ruleset import Ruleset

RULESETS: dict[str, str] = {
    "italia-se-desta": "campo.engine.rulesets.italia.ruleset",
    "federico": "campo.engine.rulesets.federico.ruleset",
    "attila": "campo.engine.rulesets.attila.ruleset",
}


def ruleset_names() -> tuple[str, ...]:
    """Every rulebook's scenario name, in registry order."""
    return tuple(RULESETS)


def get_ruleset(name: str) -> Ruleset:
    """The ruleset object for a scenario's ``ruleset`` name (one object per rulebook)."""
    module = RULESETS.get(name)
    if module is None:
        raise UnknownRulesetError(
            f"unknown ruleset {name!r} (the engine knows: {', '.join(RULESETS)})", key="ruleset")
    return importlib.import_module(module).RULESET  # type: ignore[no-any-return]
