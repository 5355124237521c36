"""Loading a roster with the rules checked: the file's format (`campo.vision.tabletop`) and the
ruleset's vocabulary (`campo.engine`), composed here, above both layers."""

from __future__ import annotations

from pathlib import Path

from campo.engine.registry import get_ruleset, ruleset_names
from campo.engine.ruleset import Ruleset
from campo.engine.scenario import BaseState
from campo.engine.unit_state import StateTrait
from campo.errors import UnknownRulesetError
from campo.vision.tabletop import Roster, RosterBase, TableConfig, load_roster
from campo.vision.toml_files import Problem


def base_state(entry: RosterBase, traits: dict[str, object] | None = None) -> BaseState:
    """A roster base as the engine's `BaseState` (at the origin: its state traits do not depend
    on where it stands), with ``traits`` over the roster's."""
    return BaseState(id=entry.id, side=entry.side, type=entry.type, x_mm=0.0, y_mm=0.0,
                     heading_deg=0.0, width_mm=entry.width_mm, depth_mm=entry.depth_mm,
                     traits={**entry.traits, **(traits or {})})


def token_problems(roster: Roster, ruleset: Ruleset) -> list[Problem]:
    """Each token's traits against the state traits the roster's bases have under the rulebook:
    a trait no base has, a value no base can take, or an ``adds`` on a trait that is no count."""
    declared: dict[str, list[StateTrait]] = {}
    for entry in roster.bases:
        for trait in ruleset.unit_state(base_state(entry)):
            declared.setdefault(trait.key, []).append(trait)
    known = ", ".join(sorted(declared)) or "none"
    problems = []
    for i, token in enumerate(roster.tokens):
        for field, values in (("sets", token.sets), ("adds", token.adds)):
            for key, value in values.items():
                loc = ("tokens", i, field, key)
                traits = declared.get(key)
                if traits is None:
                    problems.append(Problem(loc, f"{key!r} is not a state trait of any base on this roster "
                                                 f"under {roster.ruleset} (they have: {known})"))
                elif field == "adds" and not any(t.kind == "count" for t in traits):
                    problems.append(Problem(loc, f"{key!r} is not a count: a token can only set it"))
                elif field == "sets" and all(t.problem(value) for t in traits):
                    problems.append(Problem(loc, traits[0].problem(value) or ""))
    return problems


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
    if problems or not roster.tokens:  # (the bases' state is read from valid traits only)
        return problems
    return token_problems(roster, get_ruleset(roster.ruleset))


def load_checked_roster(path: str | Path, table: TableConfig | None = None) -> Roster:
    """`roster.toml` checked in full: format, duplicates, anchors (given `table`) and the rules."""
    return load_roster(path, table=table, check=roster_rules_problems)
