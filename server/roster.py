"""Loading a roster with the rules checked: the file's format (`campo.vision.tabletop`) and the
ruleset's vocabulary (`campo.engine`), composed here, above both layers."""

from __future__ import annotations

from pathlib import Path

from campo.engine.registry import get_ruleset, ruleset_names
from campo.errors import UnknownRulesetError
from campo.vision.tabletop import Roster, TableConfig, load_roster
from campo.vision.toml_files import Problem


def roster_rules_problems(roster: Roster) -> list[Problem]:
    """Problems with the roster's ruleset, troop types and traits, located by key."""
    try:
        vocab = get_ruleset(roster.ruleset).vocabulary
    except UnknownRulesetError:
        return [Problem(("ruleset",), f"unknown ruleset {roster.ruleset!r} "
                                      f"(known: {', '.join(ruleset_names())})")]
    problems = []
    for i, base in enumerate(roster.bases):
        for key, message in vocab.base_problems(base.type, base.traits):
            problems.append(Problem(("bases", i, *key.split(".")), message))
    return problems


def load_checked_roster(path: str | Path, table: TableConfig | None = None) -> Roster:
    """`roster.toml` checked in full: format, duplicates, anchors (given `table`) and the rules."""
    return load_roster(path, table=table, check=roster_rules_problems)
