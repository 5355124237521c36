"""The words each ruleset understands in a base's `type` and `traits`, and its unit of length.

This is the vocabulary of `shared/interfaces.md` ("Ruleset vocabulary"), kept as data so that a
roster or scenario typo is caught at load time with the file, line and key. Each ruleset keeps its
own in its package (`engine/rulesets/<name>/vocabulary.py`, the ruleset's ``vocabulary``); every
key carries its documentation and its citation. This module holds the shapes and the docs table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from campo.engine.registry import get_ruleset, ruleset_names

TraitKind = Literal["choice", "bool", "int", "text", "text_or_list"]


@dataclass(frozen=True)
class Trait:
    """One `traits` key: what values it takes and what it means."""

    kind: TraitKind
    doc: str
    choices: tuple[Any, ...] = ()

    def problem(self, value: Any) -> str | None:
        """Why `value` is not acceptable, or None when it is."""
        if self.kind == "bool":
            return None if isinstance(value, bool) else f"must be true or false (got {value!r})"
        if self.kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
            if not ok:
                return f"must be a whole number (got {value!r})"
            if self.choices and value not in self.choices:
                return f"must be one of {', '.join(map(str, self.choices))} (got {value!r})"
            return None
        if self.kind == "choice":
            if value in self.choices and type(value) is type(self.choices[0]):
                return None
            return f"must be one of {', '.join(map(repr, self.choices))} (got {value!r})"
        if self.kind == "text":
            return None if isinstance(value, str) and value else f"must be a non-empty string (got {value!r})"
        if isinstance(value, str) and value:
            return None
        if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
            return None
        return f"must be a name or a list of names (got {value!r})"


@dataclass(frozen=True)
class Vocabulary:
    """A ruleset's troop types and trait keys (its title and unit are the `Ruleset`'s)."""

    ruleset: str
    types: Mapping[str, str]  # type code -> meaning
    traits: Mapping[str, Trait]
    general_types: frozenset[str] = field(default_factory=frozenset)
    per_type: Mapping[str, Mapping[str, tuple[Any, ...]]] = field(default_factory=dict)
    """Narrower choices of a trait for one type, e.g. ISD's letter A is infantry only."""

    def base_problems(self, type_: str, traits: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(key, message) for everything wrong with a base's type and traits."""
        problems = []
        if type_ not in self.types:
            problems.append(("type", f"unknown troop type {type_!r} for {self.ruleset} (known: {', '.join(self.types)})"))
        for key, value in traits.items():
            trait = self.traits.get(key)
            if trait is None:
                problems.append((f"traits.{key}", f"unknown trait for {self.ruleset} (known: {', '.join(sorted(self.traits))})"))
            elif (why := trait.problem(value)) is not None:
                problems.append((f"traits.{key}", why))
            elif value not in self.per_type.get(type_, {}).get(key, (value,)):
                allowed = " or ".join(map(str, self.per_type[type_][key]))
                problems.append((f"traits.{key}", f"type {type_!r} can only be {allowed} (got {value!r})"))
        return problems


def state_traits(disordered: str, shaken: str, losses: str) -> dict[str, Trait]:
    """The game-state traits every ruleset shares, each cited to its own rulebook."""
    return {
        "disordered": Trait("bool", f"The unit is disordered ({disordered})."),
        "shaken": Trait("bool", f"The unit is shaken ({shaken})."),
        "losses": Trait("int", f"Losses suffered, a count ({losses})."),
    }


def markdown() -> str:
    """The vocabulary as the Markdown tables of docs/formats.md (its ``vocabulary`` block,
    `doc_common.refresh_blocks`: regenerated, never hand-edited)."""
    kinds = {"bool": "`true`/`false`", "int": "whole number", "text": "name", "text_or_list": "name or list of names"}
    out = []
    for rs in (get_ruleset(name) for name in ruleset_names()):
        v = rs.vocabulary
        out += [f"### `{rs.name}`: {rs.title} (unit `{rs.unit}` = {rs.mm_per_unit:g} mm)", "",
                "| `type` | meaning |", "| --- | --- |"]
        out += [f"| `{t}` | {d} |" for t, d in v.types.items()]
        out += ["", "| trait | values | meaning |", "| --- | --- | --- |"]
        for key, trait in v.traits.items():
            values = ", ".join(f"`{c}`" for c in trait.choices) if trait.choices else kinds[trait.kind]
            out.append(f"| `{key}` | {values} | {trait.doc} |")
        out.append("")
    return "\n".join(out).rstrip("\n")


if __name__ == "__main__":   # python -m campo.engine.vocabulary docs/formats.md
    from campo.engine.rulesets.doc_common import refresh_main

    raise SystemExit(refresh_main({"vocabulary": markdown}, module="campo.engine.vocabulary"))
