"""Loading a roster with the rules checked: the ruleset exists, every type and trait is known."""

from __future__ import annotations

from pathlib import Path

from campo.engine.vocabulary import VOCABULARIES
from campo.vision.tabletop import Roster, TableConfig, load_roster
from campo.vision.toml_files import Problem


def roster_rules_problems(roster: Roster) -> list[Problem]:
    """Problems with the roster's ruleset, troop types and traits, located by key."""
    vocab = VOCABULARIES.get(roster.ruleset)
    if vocab is None:
        return [Problem(("ruleset",), f"unknown ruleset {roster.ruleset!r} (known: {', '.join(VOCABULARIES)})")]
    problems = []
    for i, base in enumerate(roster.bases):
        for key, message in vocab.base_problems(base.type, base.traits):
            problems.append(Problem(("bases", i, *key.split(".")), message))
    return problems


def load_checked_roster(path: str | Path, table: TableConfig | None = None) -> Roster:
    """`roster.toml` checked in full: format, duplicates, anchors (given `table`) and the rules."""
    return load_roster(path, table=table, check=roster_rules_problems)
